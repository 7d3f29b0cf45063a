import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Prepares the secured HDFS of secure.sh for HBase, once per data dir: /hbase owned by hbase
 * (mode 755), where master-hdfs keeps its root dir, and /tmp world-writable with the sticky bit
 * (1777), as in any Hadoop installation. Run as HDFS's superuser (hdfs/localhost, logged in from
 * its keytab); one JVM instead of one FsShell per command.
 *
 * <p>Usage: HdfsSetup hdfs://HOST:PORT KEYTAB PRINCIPAL
 */
public final class HdfsSetup {
  private HdfsSetup() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: HdfsSetup hdfs://HOST:PORT KEYTAB PRINCIPAL");
      System.exit(2);
    }
    // core-site.xml and hdfs-site.xml from the classpath (Kerberos, the NameNode principal,
    // SASL data transfer)
    Configuration conf = new HdfsConfiguration();
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(args[2], args[1]);
    try (FileSystem fs = FileSystem.get(URI.create(args[0]), conf)) {
      Path hbase = new Path("/hbase");
      fs.mkdirs(hbase);
      fs.setOwner(hbase, "hbase", null);
      fs.setPermission(hbase, new FsPermission((short) 0755));
      Path tmp = new Path("/tmp");
      fs.mkdirs(tmp);
      fs.setPermission(tmp, new FsPermission((short) 01777));
      for (FileStatus st : fs.listStatus(new Path("/"))) {
        System.out.println(st.getPermission() + " " + st.getOwner() + " " + st.getGroup() + " "
            + st.getPath().toUri().getPath());
      }
    }
  }
}
