import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.Map;

import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;

import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.MessageProp;
import org.ietf.jgss.Oid;

/**
 * A Thrift2 client for the SASL/GSSAPI gateways, written against the wire format rather than
 * libthrift's TSaslClientTransport, so that every byte is visible (--trace) and the steps are
 * the ones another language's client (Rust + libgssapi, Python + gssapi) has to do:
 *
 * <ol>
 *   <li>Thrift SASL negotiation frames: 1 status byte (START=1, OK=2, BAD=3, ERROR=4,
 *       COMPLETE=5), a 4-byte big-endian payload length, the payload.</li>
 *   <li>SASL GSSAPI (RFC 4752): GSS-API context tokens (Kerberos AP-REQ / AP-REP), then the
 *       server's wrapped 4-byte security-layer offer and the client's wrapped 4-byte choice.</li>
 *   <li>Data: every Thrift message as one frame, 4-byte big-endian length + payload; the
 *       payload is GSS-wrapped when the chosen layer is integrity or confidentiality.</li>
 * </ol>
 *
 * <p>It calls tableExists(hbase:namespace) on each port (true means the gateway reached HBase
 * as the authenticated user) and prints one line per port; exit status 0 iff all answered true.
 *
 * <p>Usage: SaslProbe [--trace] [--keytab FILE --principal NAME] [--service hbase]
 * [--host localhost] [--timeout-ms N] [--table NS:NAME] [t1:]QOP:PORT ...   (QOP = auth | auth-int | auth-conf;
 * t1: a Thrift1 gateway, asked isTableEnabled(hbase:namespace)).
 * Without --keytab the Kerberos ticket cache (KRB5CCNAME, after kinit) is used.
 */
public final class SaslProbe {
  static final int START = 1, OK = 2, BAD = 3, ERROR = 4, COMPLETE = 5;
  static final String[] STATUS = { "?", "START", "OK", "BAD", "ERROR", "COMPLETE" };
  static final int LAYER_NONE = 1, LAYER_INTEGRITY = 2, LAYER_CONFIDENTIALITY = 4;

  static boolean trace;
  /** the table asked about, NS:NAME (default hbase:namespace) */
  static String table = "hbase:namespace";

  private SaslProbe() {
  }

  public static void main(String[] args) throws Exception {
    String keytab = null, principal = null, service = "hbase", host = "localhost";
    int timeoutMs = 10000;
    java.util.List<String> targets = new java.util.ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--trace": trace = true; break;
        case "--keytab": keytab = args[++i]; break;
        case "--principal": principal = args[++i]; break;
        case "--service": service = args[++i]; break;
        case "--host": host = args[++i]; break;
        case "--timeout-ms": timeoutMs = Integer.parseInt(args[++i]); break;
        case "--table": table = args[++i]; break;
        default: targets.add(args[i]);
      }
    }
    if (targets.isEmpty()) {
      System.err.println("usage: SaslProbe [--trace] [--keytab F --principal P] QOP:PORT ...");
      System.exit(2);
    }
    Subject subject = login(keytab, principal);
    boolean allOk = true;
    for (String t : targets) {
      boolean thrift1 = t.startsWith("t1:");
      String spec = thrift1 ? t.substring(3) : t;
      String qop = spec.substring(0, spec.lastIndexOf(':'));
      int port = Integer.parseInt(spec.substring(spec.lastIndexOf(':') + 1));
      final String svc = service, h = host;
      final int to = timeoutMs;
      String result;
      try {
        result = Subject.doAs(subject,
          (PrivilegedExceptionAction<String>) () -> probe(svc, h, port, qop, to, thrift1));
      } catch (Exception e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        result = "FAILED: " + c;
        allOk = false;
      }
      if (!result.contains("=true ")) {
        allOk = false;
      }
      System.out.println(port + " " + qop + ": " + result);
    }
    System.exit(allOk ? 0 : 1);
  }

  static Subject login(String keytab, String principal) throws Exception {
    Map<String, String> o = new HashMap<>();
    o.put("doNotPrompt", "true");
    o.put("isInitiator", "true");
    if (keytab != null) {
      o.put("useKeyTab", "true");
      o.put("keyTab", keytab);
      o.put("principal", principal);
      o.put("storeKey", "false");
    } else {
      o.put("useTicketCache", "true");
      String cc = System.getenv("KRB5CCNAME");
      if (cc != null) {
        o.put("ticketCache", cc.startsWith("FILE:") ? cc.substring(5) : cc);
      }
    }
    Configuration jaas = new Configuration() {
      @Override
      public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
        return new AppConfigurationEntry[] { new AppConfigurationEntry(
          "com.sun.security.auth.module.Krb5LoginModule",
          AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, o) };
      }
    };
    LoginContext lc = new LoginContext("probe", new Subject(), null, jaas);
    lc.login();
    return lc.getSubject();
  }

  static String probe(String service, String host, int port, String qop, int timeoutMs,
    boolean thrift1) throws Exception {
    int wanted;
    switch (qop) {
      case "auth": wanted = LAYER_NONE; break;
      case "auth-int": wanted = LAYER_INTEGRITY; break;
      case "auth-conf": wanted = LAYER_CONFIDENTIALITY; break;
      default: throw new IllegalArgumentException("QOP must be auth, auth-int or auth-conf");
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
      s.setSoTimeout(timeoutMs);
      DataInputStream in = new DataInputStream(s.getInputStream());
      DataOutputStream out = new DataOutputStream(s.getOutputStream());

      GSSManager m = GSSManager.getInstance();
      Oid krb5 = new Oid("1.2.840.113554.1.2.2");
      GSSName target = m.createName(service + "@" + host, GSSName.NT_HOSTBASED_SERVICE);
      GSSContext ctx = m.createContext(target, krb5, null, GSSContext.DEFAULT_LIFETIME);
      ctx.requestMutualAuth(true);
      ctx.requestInteg(true);
      ctx.requestConf(true);

      // 1. START with the mechanism name, then the first context token (AP-REQ) as OK
      sendNeg(out, START, "GSSAPI".getBytes(StandardCharsets.US_ASCII), "mechanism name");
      byte[] tok = ctx.initSecContext(new byte[0], 0, 0);
      sendNeg(out, ctx.isEstablished() ? COMPLETE : OK, tok, "GSS initial token (AP-REQ)");
      // 2. context tokens until the GSS context is established (server: AP-REP)
      while (!ctx.isEstablished()) {
        byte[] in1 = recvNeg(in, "GSS token from server (AP-REP)");
        tok = ctx.initSecContext(in1, 0, in1.length);
        sendNeg(out, OK, tok == null ? new byte[0] : tok,
          tok == null ? "empty response (context established, RFC 4752)" : "GSS token");
      }
      // 3. the server's security-layer offer: wrap(1 byte layer mask + 3 bytes max size)
      byte[] offerWrapped = recvNeg(in, "wrapped security-layer offer");
      MessageProp mp = new MessageProp(0, false);
      byte[] offer = ctx.unwrap(offerWrapped, 0, offerWrapped.length, mp);
      if (offer.length != 4) {
        throw new IOException("security-layer offer is " + offer.length + " bytes, not 4");
      }
      int mask = offer[0] & 0xff;
      int serverMax = ((offer[1] & 0xff) << 16) | ((offer[2] & 0xff) << 8) | (offer[3] & 0xff);
      log(String.format("  unwrapped offer: %s = layers 0x%02x (%s), max message size %d"
        + " (offer was integrity-protected, confidential=%b)",
        hex(offer), mask, layers(mask), serverMax, mp.getPrivacy()));
      if ((mask & wanted) == 0) {
        throw new IOException("server offers layers " + layers(mask) + ", not " + qop);
      }
      // 4. the client's choice: wrap(1 byte chosen layer + 3 bytes max size [+ authzid]);
      // authzid left empty: HBase's callback requires authzid == the authenticated principal
      int clientMax = wanted == LAYER_NONE ? 0 : 0x010000;
      byte[] choice = { (byte) wanted, (byte) (clientMax >> 16), (byte) (clientMax >> 8),
        (byte) clientMax };
      byte[] choiceWrapped = ctx.wrap(choice, 0, choice.length, new MessageProp(0, false));
      log("  choice before wrap: " + hex(choice) + " (layer " + layers(wanted) + ")");
      sendNeg(out, COMPLETE, choiceWrapped, "wrapped security-layer choice");
      byte[] done = recvNeg(in, "server's final message");
      if (lastStatus != COMPLETE) {
        throw new IOException("server ended negotiation with " + STATUS[lastStatus]);
      }
      if (done.length != 0) {
        log("  (unexpected payload in COMPLETE)");
      }

      // 5. one Thrift call, framed (and wrapped unless the layer is "none")
      byte[] call = thrift1 ? isTableEnabledCall(table, 1)
        : tableExistsCall(table.substring(0, table.indexOf(':')),
          table.substring(table.indexOf(':') + 1), 1);
      byte[] sendBody = wanted == LAYER_NONE ? call
        : ctx.wrap(call, 0, call.length, new MessageProp(0, wanted == LAYER_CONFIDENTIALITY));
      log("C->S data frame: length " + sendBody.length + " (Thrift message " + call.length
        + " bytes" + (wanted == LAYER_NONE ? ", not wrapped" : ", GSS-wrapped") + ")");
      log("  thrift: " + hex(call));
      log("  on wire: " + hex(frameHead(sendBody.length)) + " " + hexHead(sendBody));
      out.writeInt(sendBody.length);
      out.write(sendBody);
      out.flush();
      int len = in.readInt();
      byte[] body = new byte[len];
      in.readFully(body);
      byte[] reply = body;
      boolean conf = false;
      if (wanted != LAYER_NONE) {
        MessageProp rp = new MessageProp(0, false);
        reply = ctx.unwrap(body, 0, body.length, rp);
        conf = rp.getPrivacy();
      }
      log("S->C data frame: length " + len + " on wire: " + hexHead(body));
      log("  thrift reply" + (wanted == LAYER_NONE ? "" : " (unwrapped, confidential=" + conf
        + ")") + ": " + hex(reply));
      ctx.dispose();
      return (thrift1 ? "thrift1 isTableEnabled" : "tableExists") + "("
        + (table.length() > 60 ? table.substring(0, 40) + "...[" + table.length() + " chars]"
          : table) + ")="
        + parseBoolReply(reply) + " layer="
        + layers(wanted) + (wanted == LAYER_NONE ? "" : " server-wraps-with-privacy=" + conf);
    }
  }

  static int lastStatus;

  static void sendNeg(DataOutputStream out, int status, byte[] payload, String what)
    throws IOException {
    out.writeByte(status);
    out.writeInt(payload.length);
    out.write(payload);
    out.flush();
    log(String.format("C->S %-8s len=%-5d %s: %s %s", STATUS[status], payload.length, what,
      hex(new byte[] { (byte) status }) + " " + hex(frameHead(payload.length)),
      hexHead(payload)));
  }

  static byte[] recvNeg(DataInputStream in, String what) throws IOException {
    int status = in.readUnsignedByte();
    int len = in.readInt();
    byte[] p = new byte[len];
    in.readFully(p);
    lastStatus = status;
    String name = status < STATUS.length ? STATUS[status] : "?" + status;
    log(String.format("S->C %-8s len=%-5d %s: %s %s", name, len, what,
      hex(new byte[] { (byte) status }) + " " + hex(frameHead(len)), hexHead(p)));
    if (status == BAD || status == ERROR) {
      throw new IOException("server says " + name + ": " + new String(p, StandardCharsets.UTF_8));
    }
    return p;
  }

  // ---------------------------------------------------------------- Thrift binary protocol

  static byte[] tableExistsCall(String ns, String qualifier, int seq) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(0x80010001); // strict binary, message type CALL
    byte[] name = "tableExists".getBytes(StandardCharsets.US_ASCII);
    d.writeInt(name.length);
    d.write(name);
    d.writeInt(seq);
    d.writeByte(12); // field 1: struct TTableName
    d.writeShort(1);
    d.writeByte(11); // ns
    d.writeShort(1);
    d.writeInt(ns.length());
    d.write(ns.getBytes(StandardCharsets.UTF_8));
    d.writeByte(11); // qualifier
    d.writeShort(2);
    d.writeInt(qualifier.length());
    d.write(qualifier.getBytes(StandardCharsets.UTF_8));
    d.writeByte(0); // end of TTableName
    d.writeByte(0); // end of args
    return b.toByteArray();
  }

  static byte[] isTableEnabledCall(String table, int seq) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(b);
    d.writeInt(0x80010001);
    byte[] name = "isTableEnabled".getBytes(StandardCharsets.US_ASCII);
    d.writeInt(name.length);
    d.write(name);
    d.writeInt(seq);
    d.writeByte(11); // field 1: binary tableName
    d.writeShort(1);
    d.writeInt(table.length());
    d.write(table.getBytes(StandardCharsets.UTF_8));
    d.writeByte(0);
    return b.toByteArray();
  }

  /** "true"/"false" for a REPLY whose field 0 is a bool, else a description of the error. */
  static String parseBoolReply(byte[] r) {
    if (r.length < 12 || (r[0] & 0xff) != 0x80 || r[1] != 1) {
      return "not a strict binary message";
    }
    int type = r[3];
    int nameLen = ((r[4] & 0xff) << 24) | ((r[5] & 0xff) << 16) | ((r[6] & 0xff) << 8)
      | (r[7] & 0xff);
    int p = 8 + nameLen + 4;
    if (type == 3) {
      return "TApplicationException " + printable(r, p);
    }
    if (type != 2) {
      return "message type " + type;
    }
    if (r[p] == 2 && r[p + 1] == 0 && r[p + 2] == 0) {
      return r[p + 3] != 0 ? "true" : "false";
    }
    return "exception " + printable(r, p);
  }

  static String printable(byte[] r, int from) {
    StringBuilder sb = new StringBuilder();
    for (int i = from; i < r.length && sb.length() < 300; i++) {
      char c = (char) (r[i] & 0xff);
      sb.append(c >= 32 && c < 127 ? c : '.');
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------- output

  static String layers(int mask) {
    StringBuilder sb = new StringBuilder();
    if ((mask & 1) != 0) sb.append("none|");
    if ((mask & 2) != 0) sb.append("integrity|");
    if ((mask & 4) != 0) sb.append("confidentiality|");
    return sb.length() == 0 ? "-" : sb.substring(0, sb.length() - 1);
  }

  static byte[] frameHead(int len) {
    return new byte[] { (byte) (len >> 24), (byte) (len >> 16), (byte) (len >> 8), (byte) len };
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  static String hexHead(byte[] b) {
    if (b.length <= 48) return hex(b);
    byte[] h = java.util.Arrays.copyOf(b, 40);
    return hex(h) + "... (" + b.length + " bytes)";
  }

  static void log(String s) {
    if (trace) System.out.println(s);
  }
}
