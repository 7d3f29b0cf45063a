// HBase's own Java client reading what hbase-orm wrote (tests/suite/bulk_load.rs): optionally a
// major compaction of the table first, waited for until every store of every region holds one
// file, then one scan of the whole table, every cell printed.
//
// Run by the suite through src/java.rs (javac against the launcher's jars, classes cached under
// target/java/ReadBack/); by hand:
//
//   javac -cp "$HOME/.cache/hbase-orm/hbase-2.6.1/lib/*" -d /tmp/rb tests/java/ReadBack.java
//   java $(grep -v '^#' hbase-local/jdk-flags) -cp "/tmp/rb:$HOME/.cache/hbase-orm/hbase-2.6.1/lib/*" \
//       ReadBack table=hbase_orm_it:some_table compact=true
//
// Arguments (key=value): table (required), zk (127.0.0.1:2181), compact (false), timeout
// (seconds the compaction may take, 120).
//
// Output on stdout: `compacted <seconds>` when asked to compact, then one line per cell,
//   cell <row> <family>:<qualifier> <timestamp> <value>
// tab-separated, row and value as Bytes.toStringBinary writes them (printable ASCII as it is,
// other bytes as \xNN), in the scan's order; last, `rows <n>`. Anything wrong (a failed call,
// a compaction that does not end) ends the program with exit 1.

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

public class ReadBack {
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("key=value expected: " + arg);
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String table = a.get("table");
    if (table == null) {
      throw new IllegalArgumentException("table=NAMESPACE:TABLE is required");
    }
    String[] zk = a.getOrDefault("zk", "127.0.0.1:2181").split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", zk[0]);
    conf.set("hbase.zookeeper.property.clientPort", zk.length > 1 ? zk[1] : "2181");
    TableName name = TableName.valueOf(table);
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      if (Boolean.parseBoolean(a.getOrDefault("compact", "false"))) {
        long timeout = Long.parseLong(a.getOrDefault("timeout", "120"));
        compact(connection, name, timeout);
      }
      long rows = 0;
      StringBuilder line = new StringBuilder();
      try (Table t = connection.getTable(name);
          ResultScanner scanner = t.getScanner(new Scan().setCaching(1000))) {
        for (Result r : scanner) {
          rows++;
          for (Cell c : r.rawCells()) {
            line.setLength(0);
            line.append("cell\t")
                .append(Bytes.toStringBinary(CellUtil.cloneRow(c)))
                .append('\t')
                .append(Bytes.toStringBinary(CellUtil.cloneFamily(c)))
                .append(':')
                .append(Bytes.toStringBinary(CellUtil.cloneQualifier(c)))
                .append('\t')
                .append(c.getTimestamp())
                .append('\t')
                .append(Bytes.toStringBinary(CellUtil.cloneValue(c)));
            System.out.println(line);
          }
        }
      }
      System.out.println("rows\t" + rows);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  // A major compaction of every region, waited for until no compaction runs and each store
  // of each region holds one file (asked of the region servers themselves, not the master's
  // last heartbeat).
  static void compact(Connection connection, TableName name, long timeoutSeconds)
      throws Exception {
    long started = System.nanoTime();
    try (Admin admin = connection.getAdmin()) {
      admin.majorCompact(name);
      long deadline = started + timeoutSeconds * 1_000_000_000L;
      while (true) {
        boolean done = admin.getCompactionState(name) == CompactionState.NONE;
        if (done) {
          for (ServerName server : admin.getRegionServers()) {
            List<RegionMetrics> regions = admin.getRegionMetrics(server, name);
            for (RegionMetrics region : regions) {
              if (region.getStoreFileCount() > region.getStoreCount()) {
                done = false;
              }
            }
          }
        }
        if (done) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the major compaction of " + name + " did not end in " + timeoutSeconds + " s");
        }
        Thread.sleep(200);
      }
    }
    System.out.printf("compacted\t%.1f%n", (System.nanoTime() - started) / 1e9);
  }
}
