import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * Runs several HBase Thrift gateways in one JVM, each with its own configuration.
 *
 * <p>Why not bin/hbase thrift2 once per gateway: the stock main() copies the configuration
 * before ToolRunner applies "-D key=value" options, so per-gateway keys (QOP, HTTP, TLS) cannot be
 * given on the command line, and one JVM per gateway costs ~300 MB and a slow start each on a
 * 2-core machine. Here every gateway gets HBaseConfiguration.create() (hbase-site.xml from the
 * classpath) plus the keys given for it, and its own ThriftServer instance on its own thread.
 * All gateways log in as the same principal, so the process-wide Kerberos login they share is
 * the same for all of them.
 *
 * <p>Usage: java ... SecureGateways GATEWAY [GATEWAY ...], each GATEWAY one argument:
 * <pre>  name,thrift1|thrift2,port[,key=value]...</pre>
 * The process exits (status 1) as soon as any gateway stops or fails to start.
 */
public final class SecureGateways {
  private static final Object LOGIN_LOCK = new Object();

  private SecureGateways() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: SecureGateways name,thrift1|thrift2,port[,key=value]...");
      System.exit(2);
    }
    // Each gateway registers a metrics source named after its Thrift version; a second one of
    // the same name is an error unless the metrics system runs in "mini cluster" mode (as in
    // HBase's own tests), where it gets a numbered name instead.
    org.apache.hadoop.metrics2.lib.DefaultMetricsSystem.setMiniClusterMode(true);
    List<Thread> threads = new ArrayList<>();
    CountDownLatch firstExit = new CountDownLatch(1);
    for (String spec : args) {
      String[] parts = spec.split(",");
      if (parts.length < 3) {
        throw new IllegalArgumentException("bad gateway spec: " + spec);
      }
      String name = parts[0];
      String kind = parts[1];
      int port = Integer.parseInt(parts[2]);
      Configuration conf = HBaseConfiguration.create();
      conf.set("hbase.regionserver.thrift.ipaddress", "127.0.0.1");
      conf.setInt("hbase.regionserver.thrift.port", port);
      conf.setInt("hbase.thrift.info.port", -1);
      for (int i = 3; i < parts.length; i++) {
        int eq = parts[i].indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("bad key=value in " + spec + ": " + parts[i]);
        }
        conf.set(parts[i].substring(0, eq), parts[i].substring(eq + 1));
      }
      final org.apache.hadoop.hbase.thrift.ThriftServer server;
      // setupParamters() does the Kerberos login into process-wide state (Hadoop's
      // UserGroupInformation): one gateway at a time
      if ("thrift2".equals(kind)) {
        server = new org.apache.hadoop.hbase.thrift2.ThriftServer(conf) {
          @Override
          protected void setupParamters() throws java.io.IOException {
            synchronized (LOGIN_LOCK) {
              super.setupParamters();
            }
          }
        };
      } else if ("thrift1".equals(kind)) {
        server = new org.apache.hadoop.hbase.thrift.ThriftServer(conf) {
          @Override
          protected void setupParamters() throws java.io.IOException {
            synchronized (LOGIN_LOCK) {
              super.setupParamters();
            }
          }
        };
      } else {
        throw new IllegalArgumentException("kind must be thrift1 or thrift2: " + spec);
      }
      Thread t = new Thread(() -> {
        int rc;
        try {
          // null: no command line; port, bind address etc. come from conf
          rc = server.run(null);
        } catch (Throwable e) {
          System.err.println("gateway " + name + " failed: " + e);
          e.printStackTrace();
          rc = -1;
        }
        System.err.println("gateway " + name + " stopped (status " + rc + ")");
        firstExit.countDown();
      }, "gw-" + name);
      threads.add(t);
      System.err.println("gateway " + name + ": " + kind + " on 127.0.0.1:" + port);
    }
    for (Thread t : threads) {
      t.start();
    }
    firstExit.await();
    System.exit(1);
  }
}
