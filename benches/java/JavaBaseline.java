// The Java client's side of `cargo bench --bench writes`: HBase's own Java client (hbase-client
// 2.6.1, the jars hbase-local/hbase.sh fetches) writing and reading the same 8-column orders as
// the Rust bench, on a table the Rust bench creates (family `d`, nothing in it yet).
//
// Built and run by benches/writes.rs (javac against the launcher's lib folder, classes cached
// under target/java/JavaBaseline/); by hand:
//
//   javac -cp "$HOME/.cache/hbase-orm/hbase-2.6.1/lib/*" -d /tmp/jb benches/java/JavaBaseline.java
//   java $(grep -v '^#' hbase-local/jdk-flags) -cp "/tmp/jb:$HOME/.cache/hbase-orm/hbase-2.6.1/lib/*" \
//       JavaBaseline table=hbase_orm_it:some_table rows=20000
//
// Arguments (key=value): table (required), rows (100000), batch (500), singles (2000),
// gets (2000), runs (3), zk (127.0.0.1:2181).
//
// Measurements, in this order, each a warm-up round then `runs` measured rounds:
//   batched_puts  all rows, `batch` a call, Table.put(List<Put>) (the same rows every round)
//   single_puts   the first `singles` rows again, one Table.put(Put) each
//   gets          `gets` sequential Table.get of pseudo-random existing rows, decoded
//   scan          one full scan of the family, caching 1,000 rows, every row decoded
// The rows are built before the clock starts; what a round times is what the Rust side's
// Repository does inside its calls: key and cell encoding, the client, the round trips.
//
// Output: one tab-separated line per round on stdout,
//   java-baseline <name> <round> <rows> <seconds> <process_cpu_s> <thread_cpu_s>
// with round `warmup` or 1..runs. process_cpu_s is the whole JVM's CPU time over the round
// (com.sun.management.OperatingSystemMXBean.getProcessCpuTime: the calling thread, the
// client's Netty and ZooKeeper threads, the JIT compilers and the GC; on Linux counted in
// 10 ms clock ticks), the figure comparable with the Rust process's getrusage; thread_cpu_s is
// the calling thread's alone
// (ThreadMXBean.getCurrentThreadCpuTime), which leaves out the threads that do the socket I/O.
// Anything wrong (a missing row, a wrong value, a failed call) ends the program with exit 1.

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

public final class JavaBaseline {
  static final byte[] D = Bytes.toBytes("d");
  static final byte[] QUANTITY = Bytes.toBytes("quantity");
  static final byte[] AMOUNT_CENTS = Bytes.toBytes("amount_cents");
  static final byte[] PLACED_AT = Bytes.toBytes("placed_at");
  static final byte[] PRICE = Bytes.toBytes("price");
  static final byte[] STATUS = Bytes.toBytes("status");
  static final byte[] CITY = Bytes.toBytes("city");
  static final byte[] CHANNEL = Bytes.toBytes("channel");
  static final byte[] CURRENCY = Bytes.toBytes("currency");

  /** The characters of the texts, twice: any run of up to 36 from any of the first 36 is one substring. */
  static final String TEXT = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";

  /** An order as the Rust bench's `Order` holds it (src/workload.rs). */
  static final class Order {
    long customer;
    long order;
    long quantity;
    long amountCents;
    long placedAt;
    double price;
    String status;
    String city;
    String channel;
    String currency;
  }

  /** Text `field` of order `i`: what `workload::text` in src/workload.rs makes, 6 to 36 bytes. */
  static String text(long i, long field) {
    int len = 6 + (int) ((i * 7 + field * 11) % 31);
    int start = (int) ((i + field * 9) % 36);
    return TEXT.substring(start, start + len);
  }

  /** Order number `i`: what `workload::write_order` in src/workload.rs makes. */
  static Order order(long i) {
    Order o = new Order();
    o.customer = i / 50;
    o.order = i % 50;
    o.quantity = i % 7;
    o.amountCents = i * 137 % 100_000;
    o.placedAt = 1_700_000_000_000L + i;
    o.price = i * 0.25;
    o.status = text(i, 0);
    o.city = text(i, 1);
    o.channel = text(i, 2);
    o.currency = text(i, 3);
    return o;
  }

  /** The row key: customer and order as 8 big-endian bytes each (u64, order-preserving). */
  static byte[] key(long customer, long order) {
    byte[] k = new byte[16];
    Bytes.putLong(k, 0, customer);
    Bytes.putLong(k, 8, order);
    return k;
  }

  static Put put(Order o) {
    Put p = new Put(key(o.customer, o.order));
    p.addColumn(D, QUANTITY, Bytes.toBytes(o.quantity));
    p.addColumn(D, AMOUNT_CENTS, Bytes.toBytes(o.amountCents));
    p.addColumn(D, PLACED_AT, Bytes.toBytes(o.placedAt));
    p.addColumn(D, PRICE, Bytes.toBytes(o.price));
    p.addColumn(D, STATUS, Bytes.toBytes(o.status));
    p.addColumn(D, CITY, Bytes.toBytes(o.city));
    p.addColumn(D, CHANNEL, Bytes.toBytes(o.channel));
    p.addColumn(D, CURRENCY, Bytes.toBytes(o.currency));
    return p;
  }

  /** Decodes a row as the Rust side's entity read does: every field, from its cell. */
  static Order decode(Result r) {
    byte[] row = r.getRow();
    Order o = new Order();
    o.customer = Bytes.toLong(row, 0);
    o.order = Bytes.toLong(row, 8);
    o.quantity = Bytes.toLong(need(r, QUANTITY));
    o.amountCents = Bytes.toLong(need(r, AMOUNT_CENTS));
    o.placedAt = Bytes.toLong(need(r, PLACED_AT));
    o.price = Bytes.toDouble(need(r, PRICE));
    o.status = Bytes.toString(need(r, STATUS));
    o.city = Bytes.toString(need(r, CITY));
    o.channel = Bytes.toString(need(r, CHANNEL));
    o.currency = Bytes.toString(need(r, CURRENCY));
    return o;
  }

  static byte[] need(Result r, byte[] qualifier) {
    byte[] v = r.getValue(D, qualifier);
    if (v == null) {
      throw new IllegalStateException(
          "row " + Bytes.toStringBinary(r.getRow()) + " has no d:" + Bytes.toString(qualifier));
    }
    return v;
  }

  /** The `k`th row a get reads: what the Rust bench's `get_index` picks. */
  static long getIndex(long k, long rows) {
    long x = (k + 1) * 0x9E3779B97F4A7C15L;
    return Long.remainderUnsigned(x ^ (x >>> 29), rows);
  }

  interface Work {
    /** Does one round; returns the rows or calls it did. */
    long run() throws Exception;
  }

  static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static void measure(String name, int runs, Work work) throws Exception {
    for (int round = 0; round <= runs; round++) {
      long cpu0 = OS.getProcessCpuTime();
      long thread0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      long rows = work.run();
      long wall = System.nanoTime() - t0;
      long thread = THREADS.getCurrentThreadCpuTime() - thread0;
      long cpu = OS.getProcessCpuTime() - cpu0;
      System.out.printf(
          "java-baseline\t%s\t%s\t%d\t%.6f\t%.6f\t%.6f%n",
          name, round == 0 ? "warmup" : Integer.toString(round), rows, wall / 1e9, cpu / 1e9,
          thread / 1e9);
      System.out.flush();
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("arguments are key=value, not " + a);
      }
      opts.put(a.substring(0, eq), a.substring(eq + 1));
    }
    String tableName = opts.get("table");
    if (tableName == null) {
      throw new IllegalArgumentException("table=NAMESPACE:TABLE is required");
    }
    int rows = Integer.parseInt(opts.getOrDefault("rows", "100000"));
    int batch = Integer.parseInt(opts.getOrDefault("batch", "500"));
    int singles = Math.min(rows, Integer.parseInt(opts.getOrDefault("singles", "2000")));
    int gets = Integer.parseInt(opts.getOrDefault("gets", "2000"));
    int runs = Integer.parseInt(opts.getOrDefault("runs", "3"));
    String zk = opts.getOrDefault("zk", "127.0.0.1:2181");
    if (rows < 1 || batch < 1 || runs < 1) {
      throw new IllegalArgumentException("rows, batch and runs must be at least 1");
    }

    Configuration conf = HBaseConfiguration.create();
    int colon = zk.lastIndexOf(':');
    conf.set("hbase.zookeeper.quorum", colon < 0 ? zk : zk.substring(0, colon));
    if (colon >= 0) {
      conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
    }
    // A call that cannot finish fails within a minute instead of HBase's default 20 minutes of
    // retries: the Rust side bounds the whole program as well.
    conf.setInt("hbase.client.operation.timeout", 60_000);

    Order[] all = new Order[rows];
    for (int i = 0; i < rows; i++) {
      all[i] = order(i);
    }
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Table table = connection.getTable(TableName.valueOf(tableName))) {
      measure(
          "batched_puts",
          runs,
          () -> {
            for (int from = 0; from < rows; from += batch) {
              int to = Math.min(rows, from + batch);
              List<Put> puts = new ArrayList<>(to - from);
              for (int i = from; i < to; i++) {
                puts.add(put(all[i]));
              }
              table.put(puts);
            }
            return rows;
          });
      measure(
          "single_puts",
          runs,
          () -> {
            for (int i = 0; i < singles; i++) {
              table.put(put(all[i]));
            }
            return singles;
          });
      measure(
          "gets",
          runs,
          () -> {
            for (int k = 0; k < gets; k++) {
              Order want = all[(int) getIndex(k, rows)];
              Result r = table.get(new Get(key(want.customer, want.order)).addFamily(D));
              if (r.isEmpty()) {
                throw new IllegalStateException("get " + k + ": no row");
              }
              Order got = decode(r);
              if (got.placedAt != want.placedAt || !got.currency.equals(want.currency)) {
                throw new IllegalStateException("get " + k + ": another row's values");
              }
            }
            return gets;
          });
      measure(
          "scan",
          runs,
          () -> {
            long n = 0;
            long checksum = 0;
            Scan scan = new Scan().addFamily(D).setCaching(1000);
            try (ResultScanner scanner = table.getScanner(scan)) {
              for (Result r : scanner) {
                Order o = decode(r);
                checksum += o.quantity + o.city.length();
                n++;
              }
            }
            if (n != rows) {
              throw new IllegalStateException("scan read " + n + " rows, expected " + rows);
            }
            if (checksum == Long.MIN_VALUE) {
              System.out.println(checksum); // keeps the decoding from being optimised away
            }
            return n;
          });
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
