#!/usr/bin/env python3
"""Readiness probe for the HBase Thrift gateways, standard library only.

Sends a real call and succeeds only if the gateway answers with a REPLY whose success field
(id 0, bool) is true. Unlike a TCP connect, this proves that the gateway reaches HBase.
  Thrift2 (THBaseService):  tableExists(1: TTableName{1: binary ns, 2: binary qualifier})
  Thrift1 (Hbase, --thrift1): isTableEnabled(1: binary "ns:qualifier")

The default table is hbase:namespace, not hbase:meta: the HBase client answers
tableExists(hbase:meta) with `true` locally, without asking the cluster, so a gateway says true
for hbase:meta seconds before the master has even initialized. hbase:namespace (a system table
in HBase 2.x) is looked up in hbase:meta on the region server, so `true` means meta is online.

Usage:
  ping.py                      check the local TCP gateways started by hbase.sh:
                                 127.0.0.1:$HBASE_ORM_THRIFT_PORT (default 9090), Thrift2, buffered + binary
                                 127.0.0.1:$HBASE_ORM_THRIFT_FRAMED_PORT (default 9091), Thrift2, framed + compact
                                 127.0.0.1:$HBASE_ORM_THRIFT1_PORT (default 9092), Thrift1, buffered + binary
                                 127.0.0.1:$HBASE_ORM_THRIFT_SHORT_PORT (default 9093), Thrift2, buffered + binary
  ping.py -p 9090              one Thrift2 gateway, buffered transport + binary protocol
  ping.py -p 9091 -f -c        one Thrift2 gateway, framed transport + compact protocol
  ping.py -p 9092 --thrift1    one Thrift1 gateway
  ping.py -p 9094 --http       one Thrift2 gateway over HTTP (hbase.regionserver.thrift.http):
                               the call is POSTed to / as application/x-thrift, binary protocol
  ping.py -p 9095 --https      the same over HTTPS, the server's certificate verified against
                               --cafile (default: $HBASE_ORM_DATA/tls/ca.pem, made by hbase.sh)
  ping.py -p 9096 --http --thrift1      a Thrift1 gateway over HTTP
  ping.py -p 9095 --https --doas alice  with the header "doAs: alice" (proxy-user support)
  ping.py --rpc regionserver -p 16020   a region server over HBase's own RPC
                               (AdminService.GetServerInfo; prints the server name it reports)
  ping.py --rpc master -p 16000         a master (MasterService.IsMasterRunning)
  ping.py --rpc meta -p 16020  the region server that serves hbase:meta
                               (AdminService.GetRegionInfo of its region; no gateway needed:
                               the readiness check of HBase 3.x, which has no gateways and no
                               hbase:namespace)
Options:
  -H/--host HOST     host (default 127.0.0.1)
  -p/--port PORT     port (repeatable: each given port is checked with the same -f/-c)
  -f/--framed        framed transport (4-byte big-endian length prefix)
  -c/--compact       compact protocol (default: binary protocol, strict)
  --http             Thrift over HTTP: one POST per call (-f does not apply)
  --https            Thrift over HTTPS (host name and chain verified)
  --cafile PEM       CA certificate(s) to trust for --https (default as above)
  --doas USER        send the header "doAs: USER" (HTTP only)
  --path PATH        HTTP request path (default /)
  --thrift1          Thrift1 gateway (service Hbase) instead of Thrift2 (THBaseService)
  --rpc KIND         no gateway: ask a master or region server directly over HBase's RPC
                     (KIND = master | regionserver | meta); success = a reply without
                     exception
  -t/--timeout SEC   connect + read timeout per gateway (default 5)
  --table NS:NAME    table to ask about (default hbase:namespace; must exist for success)
  -q/--quiet         print nothing, only set the exit status
Exit status: 0 if every checked gateway answered true, 1 otherwise, 2 on bad usage.
"""

import argparse
import http.client
import os
import re
import socket
import ssl
import struct
import sys
import time

# Thrift message types
CALL, REPLY, EXCEPTION, ONEWAY = 1, 2, 3, 4

# TBinaryProtocol type ids
T_STOP, T_BOOL, T_BYTE, T_DOUBLE = 0, 2, 3, 4
T_I16, T_I32, T_I64, T_STRING = 6, 8, 10, 11
T_STRUCT, T_MAP, T_SET, T_LIST = 12, 13, 14, 15

# TCompactProtocol type ids
C_STOP, C_TRUE, C_FALSE, C_BYTE, C_I16, C_I32, C_I64 = 0, 1, 2, 3, 4, 5, 6
C_DOUBLE, C_BINARY, C_LIST, C_SET, C_MAP, C_STRUCT = 7, 8, 9, 10, 11, 12
COMPACT_PROTOCOL_ID = 0x82
COMPACT_VERSION = 1



class ProtocolError(Exception):
    pass


# --------------------------------------------------------------------------- encoding

# The arguments of a call are given as a list of (field id, value): bytes for a binary field,
# a nested list of the same form for a struct field.

def binary_struct(fields):
    out = bytearray()
    for fid, value in fields:
        if isinstance(value, bytes):
            out += struct.pack(">bh", T_STRING, fid) + struct.pack(">i", len(value)) + value
        else:
            out += struct.pack(">bh", T_STRUCT, fid) + binary_struct(value)
    out.append(T_STOP)
    return bytes(out)


def encode_binary_call(name, seqid, args):
    """A CALL message in strict TBinaryProtocol."""
    out = bytearray()
    out += struct.pack(">I", 0x80010000 | CALL)          # strict version | message type
    nm = name.encode()
    out += struct.pack(">i", len(nm)) + nm
    out += struct.pack(">i", seqid)
    out += binary_struct(args)
    return bytes(out)


def varint(n):
    out = bytearray()
    while True:
        if n & ~0x7F:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        else:
            out.append(n)
            return bytes(out)


def compact_struct(fields):
    out = bytearray()
    last = 0
    for fid, value in fields:
        ctype = C_BINARY if isinstance(value, bytes) else C_STRUCT
        if 0 < fid - last <= 15:
            out.append(((fid - last) << 4) | ctype)      # short form: id delta + type
        else:
            out.append(ctype)                            # long form: type, zigzag i16 id
            out += varint((fid << 1) ^ (fid >> 15))
        last = fid
        if ctype == C_BINARY:
            out += varint(len(value)) + value
        else:
            out += compact_struct(value)
    out.append(C_STOP)
    return bytes(out)


def encode_compact_call(name, seqid, args):
    """A CALL message in TCompactProtocol."""
    out = bytearray()
    out.append(COMPACT_PROTOCOL_ID)
    out.append(COMPACT_VERSION | (CALL << 5))
    out += varint(seqid)                                 # seqid: unsigned varint (non-negative)
    nm = name.encode()
    out += varint(len(nm)) + nm
    out += compact_struct(args)
    return bytes(out)


def thrift2_table_exists(ns, qualifier):
    """THBaseService.tableExists(1: TTableName{1: ns, 2: qualifier})"""
    return "tableExists", [(1, [(1, ns), (2, qualifier)])]


def thrift1_is_table_enabled(ns, qualifier):
    """Hbase.isTableEnabled(1: Bytes tableName) with tableName "ns:qualifier"."""
    return "isTableEnabled", [(1, ns + b":" + qualifier)]


# --------------------------------------------------------------------------- decoding

class Reader:
    """Reads exactly n bytes from a socket (or from a buffer once a frame was read)."""

    def __init__(self, sock=None, data=None):
        self.sock = sock
        self.data = data
        self.pos = 0

    def read(self, n):
        if self.data is not None:
            if self.pos + n > len(self.data):
                raise ProtocolError("reply shorter than its contents")
            chunk = self.data[self.pos:self.pos + n]
            self.pos += n
            return chunk
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ProtocolError("connection closed by the server (wrong transport/protocol?)")
            buf += chunk
        return bytes(buf)

    def byte(self):
        return self.read(1)[0]

    def unpack(self, fmt):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]


class BinaryDecoder:
    def __init__(self, r):
        self.r = r

    def message_begin(self):
        first = self.r.unpack(">i")
        if first >= 0:
            raise ProtocolError("non-strict binary reply (first word %#x)" % first)
        if (first & 0xFFFF0000) != 0x80010000:
            raise ProtocolError("bad binary protocol version %#x" % (first & 0xFFFFFFFF))
        mtype = first & 0xFF
        name = self.r.read(self.r.unpack(">i")).decode("utf-8", "replace")
        seqid = self.r.unpack(">i")
        return name, mtype, seqid

    def field_begin(self):
        ftype = self.r.byte()
        if ftype == T_STOP:
            return T_STOP, 0
        return ftype, self.r.unpack(">h")

    def read_bool(self, ftype):
        return self.r.byte() != 0

    def read_string(self, ftype):
        return self.r.read(self.r.unpack(">i"))

    def skip(self, ftype, depth=0):
        if depth > 64:
            raise ProtocolError("nesting too deep")
        sizes = {T_BOOL: 1, T_BYTE: 1, T_DOUBLE: 8, T_I16: 2, T_I32: 4, T_I64: 8}
        if ftype in sizes:
            self.r.read(sizes[ftype])
        elif ftype == T_STRING:
            self.r.read(self.r.unpack(">i"))
        elif ftype == T_STRUCT:
            while True:
                t, _ = self.field_begin()
                if t == T_STOP:
                    return
                self.skip(t, depth + 1)
        elif ftype == T_MAP:
            kt, vt, n = self.r.byte(), self.r.byte(), self.r.unpack(">i")
            for _ in range(n):
                self.skip(kt, depth + 1)
                self.skip(vt, depth + 1)
        elif ftype in (T_SET, T_LIST):
            et, n = self.r.byte(), self.r.unpack(">i")
            for _ in range(n):
                self.skip(et, depth + 1)
        else:
            raise ProtocolError("unknown binary type %d" % ftype)

    STRUCT, STRING, BOOL, STOP = T_STRUCT, T_STRING, T_BOOL, T_STOP

    def is_bool(self, ftype):
        return ftype == T_BOOL


class CompactDecoder:
    def __init__(self, r):
        self.r = r
        self.last_fid = [0]
        self.pending_bool = None

    def varint(self):
        shift = result = 0
        while True:
            b = self.r.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 63:
                raise ProtocolError("varint too long")

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def message_begin(self):
        pid = self.r.byte()
        if pid != COMPACT_PROTOCOL_ID:
            raise ProtocolError("bad compact protocol id %#x" % pid)
        vt = self.r.byte()
        if vt & 0x1F != COMPACT_VERSION:
            raise ProtocolError("bad compact protocol version %d" % (vt & 0x1F))
        mtype = (vt >> 5) & 0x07
        seqid = self.varint()
        name = self.r.read(self.varint()).decode("utf-8", "replace")
        return name, mtype, seqid

    def field_begin(self):
        b = self.r.byte()
        ftype = b & 0x0F
        if ftype == C_STOP:
            return C_STOP, 0
        delta = b >> 4
        fid = self.last_fid[-1] + delta if delta else self.zigzag()
        self.last_fid[-1] = fid
        if ftype in (C_TRUE, C_FALSE):
            self.pending_bool = ftype == C_TRUE
        return ftype, fid

    def read_bool(self, ftype):
        if ftype in (C_TRUE, C_FALSE):
            return self.pending_bool
        return self.r.byte() == C_TRUE

    def read_string(self, ftype):
        return self.r.read(self.varint())

    def skip(self, ftype, depth=0, in_container=False):
        if depth > 64:
            raise ProtocolError("nesting too deep")
        if ftype in (C_TRUE, C_FALSE):
            if in_container:            # bools inside containers take one byte
                self.r.read(1)
        elif ftype == C_BYTE:
            self.r.read(1)
        elif ftype in (C_I16, C_I32, C_I64):
            self.varint()
        elif ftype == C_DOUBLE:
            self.r.read(8)
        elif ftype == C_BINARY:
            self.r.read(self.varint())
        elif ftype == C_STRUCT:
            self.last_fid.append(0)
            while True:
                t, _ = self.field_begin()
                if t == C_STOP:
                    break
                self.skip(t, depth + 1)
            self.last_fid.pop()
        elif ftype in (C_LIST, C_SET):
            h = self.r.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            for _ in range(n):
                self.skip(et, depth + 1, True)
        elif ftype == C_MAP:
            n = self.varint()
            if n:
                kv = self.r.byte()
                for _ in range(n):
                    self.skip(kv >> 4, depth + 1, True)
                    self.skip(kv & 0x0F, depth + 1, True)
        else:
            raise ProtocolError("unknown compact type %d" % ftype)

    STRUCT, STRING, STOP = C_STRUCT, C_BINARY, C_STOP

    def is_bool(self, ftype):
        return ftype in (C_TRUE, C_FALSE)


def read_string_fields(dec):
    """Reads a struct's fields, returning {id: str} for string fields (exception messages)."""
    out = {}
    if isinstance(dec, CompactDecoder):
        dec.last_fid.append(0)
    while True:
        ftype, fid = dec.field_begin()
        if ftype == dec.STOP:
            break
        if ftype == dec.STRING:
            out[fid] = dec.read_string(ftype).decode("utf-8", "replace")
        else:
            dec.skip(ftype, 1)
    if isinstance(dec, CompactDecoder):
        dec.last_fid.pop()
    return out


def decode_reply(dec, method, seqid):
    """Returns the bool result of the call or raises ProtocolError with the reason."""
    name, mtype, rseq = dec.message_begin()
    if mtype == EXCEPTION:
        # TApplicationException {1: string message, 2: i32 type}
        fields = read_string_fields(dec)
        raise ProtocolError("TApplicationException: %s" % fields.get(1, "?"))
    if mtype != REPLY:
        raise ProtocolError("unexpected message type %d" % mtype)
    if name != method:
        raise ProtocolError("reply for %r, expected %r" % (name, method))
    if rseq != seqid:
        raise ProtocolError("reply seqid %d, expected %d" % (rseq, seqid))
    success = None
    error = None
    while True:
        ftype, fid = dec.field_begin()
        if ftype == dec.STOP:
            break
        if fid == 0 and dec.is_bool(ftype):
            success = dec.read_bool(ftype)
        elif fid == 1 and ftype == dec.STRUCT:
            # TIOError / IOError {1: string message, 2: bool canRetry}
            error = read_string_fields(dec).get(1, "(no message)")
        else:
            dec.skip(ftype)
    if error is not None:
        raise ProtocolError("IOError: %s" % (error.splitlines() or ["(empty message)"])[0])
    if success is None:
        raise ProtocolError("reply has no success field")
    return success


# --------------------------------------------------------------------------- probe

def encode_call(method, call_args, compact):
    """A call message with a fresh sequence id: (seqid, bytes)."""
    seqid = int(time.time() * 1000) & 0x7FFFFFFF
    if compact:
        return seqid, encode_compact_call(method, seqid, call_args)
    return seqid, encode_binary_call(method, seqid, call_args)


def probe(host, port, framed, compact, timeout, call):
    """Sends call = (method, args) and returns the bool it answers."""
    method, call_args = call
    seqid, payload = encode_call(method, call_args, compact)
    if framed:
        payload = struct.pack(">i", len(payload)) + payload
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(payload)
        reader = Reader(sock=sock)
        if framed:
            size = reader.unpack(">i")
            if size <= 0 or size > 16 * 1024 * 1024:
                raise ProtocolError("bad frame size %d (server not framed?)" % size)
            reader = Reader(data=reader.read(size))
        dec = CompactDecoder(reader) if compact else BinaryDecoder(reader)
        return decode_reply(dec, method, seqid)


def default_cafile():
    """$HBASE_ORM_DATA/tls/ca.pem, the data dir as hbase.sh resolves it."""
    data = os.environ.get("HBASE_ORM_DATA") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".hbase-local")
    return os.path.join(os.path.abspath(data), "tls", "ca.pem")


def http_error_text(body, limit=200):
    """The reason in a gateway's error page, on one line. Jetty answers an error in the first
    type the request accepts of text/html, text/plain and application/json (with none of them
    acceptable: no body at all). The text/plain page has a line "MESSAGE: <exception>"."""
    text = body.decode("utf-8", "replace")
    m = re.search(r"^MESSAGE: (.*)$", text, re.M)
    if m:
        text = m.group(1)
    else:
        text = re.sub(r"<[^>]*>", " ", text)
    text = " ".join(text.split()) or "(no body)"
    return text[:limit] + ("..." if len(text) > limit else "")


def probe_http(host, port, tls, cafile, timeout, call, compact=False, doas=None, path="/"):
    """POSTs call = (method, args) to an HTTP(S) gateway and returns the bool it answers."""
    method, call_args = call
    seqid, payload = encode_call(method, call_args, compact)
    if tls:
        if not os.path.isfile(cafile):
            raise ProtocolError("CA certificate %s not found (hbase-local/hbase.sh up makes it)"
                                % cafile)
        # verifies the chain against cafile and the certificate's names against host
        ctx = ssl.create_default_context(cafile=cafile)
        conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    # text/plain: the error pages come as text (with only x-thrift accepted they are empty)
    headers = {"Content-Type": "application/x-thrift",
               "Accept": "application/x-thrift, text/plain;q=0.5"}
    if doas is not None:
        headers["doAs"] = doas
    try:
        conn.request("POST", path, body=payload, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
    except http.client.RemoteDisconnected:
        raise ProtocolError("connection closed without an HTTP reply (not an HTTP gateway?)")
    except http.client.BadStatusLine as e:
        raise ProtocolError("not an HTTP reply: %r (an HTTPS port? a TCP gateway?)"
                            % (e.line if hasattr(e, "line") else str(e))[:40])
    finally:
        conn.close()
    if resp.status != 200:
        raise ProtocolError("HTTP %d %s: %s" % (resp.status, resp.reason, http_error_text(body)))
    reader = Reader(data=body)
    dec = CompactDecoder(reader) if compact else BinaryDecoder(reader)
    return decode_reply(dec, method, seqid)


# --------------------------------------------------------------------------- HBase RPC probe

# A master or region server is asked one question over HBase's own RPC (protobuf, RPC.proto):
#   preamble "HBas" + version 0 + auth SIMPLE (0x50), then u32 length + ConnectionHeader
#   {1: UserInformation{1: effective_user}, 2: service_name}; the server answers nothing to it.
#   A call: u32 total length, varint-delimited RequestHeader {1: call_id, 3: method_name,
#   4: request_param = true}, varint-delimited request (both requests here are empty messages).
#   The reply: u32 total length, varint-delimited ResponseHeader {1: call_id, 2: ExceptionResponse
#   {1: exception_class_name}}, then (without exception) the varint-delimited response.
RPC_CALLS = {
    # kind: (service, method)
    "regionserver": ("AdminService", "GetServerInfo"),
    "master": ("MasterService", "IsMasterRunning"),
    # the region server serves hbase:meta (asked by the encoded name of its one region)
    "meta": ("AdminService", "GetRegionInfo"),
}

# hbase:meta's one region, by its encoded name (the same in 2.x and 3.x)
META_ENCODED_REGION_NAME = b"1588230740"


def pb_key(field, wire):
    return varint((field << 3) | wire)


def pb_bytes(field, data):
    return pb_key(field, 2) + varint(len(data)) + data


def pb_uint(field, n):
    return pb_key(field, 0) + varint(n)


def pb_fields(data):
    """Decodes one protobuf message into {field: [values]} (ints, or bytes for wire type 2)."""
    out = {}
    r = Reader(data=data)
    dec = CompactDecoder(r)                 # for its varint reader
    while r.pos < len(data):
        key = dec.varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value = dec.varint()
        elif wire == 1:
            value = r.read(8)
        elif wire == 2:
            value = r.read(dec.varint())
        elif wire == 5:
            value = r.read(4)
        else:
            raise ProtocolError("unsupported protobuf wire type %d" % wire)
        out.setdefault(field, []).append(value)
    return out


def pb_delimited(r):
    """Reads one varint-delimited message from a Reader over a buffer."""
    return r.read(CompactDecoder(r).varint())


def rpc_probe(host, port, kind, timeout):
    """Returns a short description of the server's answer or raises ProtocolError."""
    service, method = RPC_CALLS[kind]
    header = pb_bytes(1, pb_bytes(1, b"hbase-orm-ping")) + pb_bytes(2, service.encode())
    preamble = b"HBas\x00\x50" + struct.pack(">I", len(header)) + header
    call_id = 1
    req_header = pb_uint(1, call_id) + pb_bytes(3, method.encode()) + pb_uint(4, 1)
    if kind == "meta":
        # GetRegionInfoRequest{region: RegionSpecifier{type: ENCODED_REGION_NAME (2), value}}
        param = pb_bytes(1, pb_uint(1, 2) + pb_bytes(2, META_ENCODED_REGION_NAME))
    else:
        param = b""                                             # an empty request message
    body = varint(len(req_header)) + req_header + varint(len(param)) + param
    payload = preamble + struct.pack(">I", len(body)) + body
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(payload)
        reader = Reader(sock=sock)
        size = reader.unpack(">I")
        if size <= 0 or size > 16 * 1024 * 1024:
            raise ProtocolError("bad reply size %d (not an HBase RPC server?)" % size)
        r = Reader(data=reader.read(size))
    resp_header = pb_fields(pb_delimited(r))
    if resp_header.get(1, [None])[0] != call_id:
        raise ProtocolError("reply to another call id %r" % resp_header.get(1))
    if 2 in resp_header:
        exc = pb_fields(resp_header[2][0])
        name = exc.get(1, [b"?"])[0].decode("utf-8", "replace")
        raise ProtocolError("%s.%s: %s" % (service, method, name))
    resp = pb_fields(pb_delimited(r))
    if kind == "meta":
        # GetRegionInfoResponse{region_info: RegionInfo{table_name: TableName{namespace, qualifier}}}
        info = pb_fields(resp.get(1, [b""])[0])
        table = pb_fields(info.get(2, [b""])[0])
        name = b":".join([table.get(1, [b"?"])[0], table.get(2, [b"?"])[0]])
        return "serves %s" % name.decode("utf-8", "replace")
    if kind == "regionserver":
        info = pb_fields(resp.get(1, [b""])[0])
        sn = pb_fields(info.get(1, [b""])[0])
        host_name = sn.get(1, [b"?"])[0].decode("utf-8", "replace")
        return "%s,%s,%s" % (host_name, sn.get(2, ["?"])[0], sn.get(3, ["?"])[0])
    running = resp.get(1, [0])[0]
    if not running:
        raise ProtocolError("IsMasterRunning = false")
    return "master running"


def main(argv):
    ap = argparse.ArgumentParser(
        description="Check HBase Thrift gateways with a real call (Thrift2: tableExists, "
                    "Thrift1: isTableEnabled).",
        epilog="Without -p, checks the four TCP gateways: 127.0.0.1:$HBASE_ORM_THRIFT_PORT (9090, Thrift2 buffered+binary), "
               "127.0.0.1:$HBASE_ORM_THRIFT_FRAMED_PORT (9091, Thrift2 framed+compact) and "
               "127.0.0.1:$HBASE_ORM_THRIFT1_PORT (9092, Thrift1 buffered+binary) and "
               "127.0.0.1:$HBASE_ORM_THRIFT_SHORT_PORT (9093, a second Thrift2 buffered+binary). "
               "The HTTP(S) gateways of hbase.sh's standalone mode are checked one port at a "
               "time: -p 9094 --http, -p 9095 --https, -p 9096 --http --thrift1, "
               "-p 9097 --https --thrift1.")
    ap.add_argument("-H", "--host", default="127.0.0.1")
    ap.add_argument("-p", "--port", type=int, action="append")
    ap.add_argument("-f", "--framed", action="store_true", help="framed transport")
    ap.add_argument("-c", "--compact", action="store_true", help="compact protocol")
    ap.add_argument("--thrift1", action="store_true",
                    help="Thrift1 gateway (service Hbase) instead of Thrift2 (THBaseService)")
    ap.add_argument("--http", action="store_true",
                    help="Thrift over HTTP: the call is POSTed as application/x-thrift")
    ap.add_argument("--https", action="store_true",
                    help="Thrift over HTTPS, the certificate verified against --cafile")
    ap.add_argument("--cafile", default=None,
                    help="CA certificate(s) (PEM) for --https (default: "
                         "$HBASE_ORM_DATA/tls/ca.pem, else <repo>/.hbase-local/tls/ca.pem)")
    ap.add_argument("--doas", metavar="USER", help="send the HTTP header doAs: USER")
    ap.add_argument("--path", default="/", help="HTTP request path (default /)")
    ap.add_argument("--rpc", choices=sorted(RPC_CALLS),
                    help="ask a master or region server over HBase's RPC instead of a gateway "
                         "(needs -p; meta: the region server serves hbase:meta)")
    ap.add_argument("-t", "--timeout", type=float, default=5.0)
    ap.add_argument("--table", default="hbase:namespace",
                    help="NS:NAME (default hbase:namespace; hbase:meta is answered without "
                         "asking the cluster)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)

    if args.rpc:
        if not args.port:
            ap.error("--rpc needs -p PORT")
        ok = True
        for port in args.port:
            where = "%s:%d (%s, HBase RPC)" % (args.host, port, args.rpc)
            start = time.monotonic()
            try:
                answer = rpc_probe(args.host, port, args.rpc, args.timeout)
                msg = "ok    %s %s in %.0f ms" % (where, answer, (time.monotonic() - start) * 1000)
            except (OSError, ProtocolError, struct.error, IndexError) as e:
                ok = False
                msg = "FAIL  %s %s" % (where, e if str(e) else type(e).__name__)
            if not args.quiet:
                print(msg, flush=True)
        return 0 if ok else 1

    if args.http and args.https:
        ap.error("--http and --https exclude each other")
    over_http = args.http or args.https
    if over_http and args.framed:
        ap.error("-f/--framed does not apply over HTTP")
    if not over_http and (args.doas is not None or args.cafile or args.path != "/"):
        ap.error("--doas, --cafile and --path need --http or --https")
    if over_http and not args.port:
        ap.error("--http/--https need -p PORT")
    cafile = args.cafile or default_cafile()

    if ":" in args.table:
        ns, qualifier = args.table.split(":", 1)
    else:
        ns, qualifier = "default", args.table
    ns, qualifier = ns.encode(), qualifier.encode()

    if args.port:
        targets = [(p, args.framed, args.compact, args.thrift1) for p in args.port]
    else:
        try:
            targets = [
                (int(os.environ.get("HBASE_ORM_THRIFT_PORT", "9090")), False, False, False),
                (int(os.environ.get("HBASE_ORM_THRIFT_FRAMED_PORT", "9091")), True, True, False),
                (int(os.environ.get("HBASE_ORM_THRIFT1_PORT", "9092")), False, False, True),
                (int(os.environ.get("HBASE_ORM_THRIFT_SHORT_PORT", "9093")), False, False, False),
            ]
        except ValueError as e:
            ap.error("bad port in the environment: %s" % e)

    ok = True
    for port, framed, compact, thrift1 in targets:
        if over_http:
            transport = "HTTPS" if args.https else "HTTP"
        else:
            transport = "framed" if framed else "buffered"
        mode = "%s %s/%s" % ("Thrift1" if thrift1 else "Thrift2", transport,
                             "compact" if compact else "binary")
        if args.doas is not None:
            mode += ", doAs %s" % args.doas
        where = "%s:%d (%s)" % (args.host, port, mode)
        call = (thrift1_is_table_enabled if thrift1 else thrift2_table_exists)(ns, qualifier)
        what = "%s(%s)" % (call[0], args.table)
        start = time.monotonic()
        try:
            if over_http:
                answer = probe_http(args.host, port, args.https, cafile, args.timeout, call,
                                    compact=compact, doas=args.doas, path=args.path)
            else:
                answer = probe(args.host, port, framed, compact, args.timeout, call)
            ms = (time.monotonic() - start) * 1000
            if answer:
                msg = "ok    %s %s = true in %.0f ms" % (where, what, ms)
            else:
                ok = False
                msg = "FAIL  %s %s = false" % (where, what)
        except (OSError, ProtocolError, struct.error, http.client.HTTPException) as e:
            ok = False
            msg = "FAIL  %s %s" % (where, e if str(e) else type(e).__name__)
        if not args.quiet:
            print(msg, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
