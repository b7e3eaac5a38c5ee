#!/usr/bin/env python3
"""Records the exact bytes a client sent, then answers 200 OK (Tests/Support/CaptureServer.swift).

Usage: capture.py PORT PATH [CHAIN KEY CLIENT_CA UNIX_SOCKET]
PORT 0 picks a free port; the port listened on is printed on the first line.
(positional: an argument left out, or given as '', is not used)

Listens on 127.0.0.1:PORT, and on UNIX_SOCKET too when given. Each connection is read until it
holds a whole HTTP/1.x request (by Content-Length or chunked framing), or else until the client
stops sending for half a second (HTTP/2, a body held back for 100-continue); the bytes go to PATH
(the last request) and PATH.all (every request). Connections are served one at a time, in the
order they came: `GET /.capture-sync` is answered and not recorded, so once its answer arrived,
every connection made before it was recorded (CaptureServer.sync()). With
CHAIN and KEY the TCP port speaks TLS; with CLIENT_CA it requires a client certificate under that
CA. PATH.peer gets the client certificate's subject, PATH.tls the TLS version and cipher,
PATH.errors the failed handshakes.
"""
import os, select, socket, ssl, sys
args = sys.argv[1:] + [''] * (6 - len(sys.argv[1:]))
port, path, chain, key, client_ca, unix = int(args[0]), args[1], args[2], args[3], args[4], args[5]


def complete(data):
    """Whether data holds a whole HTTP/1.x request: its head and all of its body."""
    head, sep, body = data.partition(b'\r\n\r\n')
    if not sep:
        return False
    lines = head.split(b'\r\n')
    if not lines[0].endswith((b' HTTP/1.1', b' HTTP/1.0')):
        return False
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(b':')
        fields[name.strip().lower()] = value.strip().lower()
    if b'100-continue' in fields.get(b'expect', b''):
        return False  # the body may come after a wait: read until the client stops
    if b'chunked' in fields.get(b'transfer-encoding', b''):
        while True:
            size_line, sep, rest = body.partition(b'\r\n')
            if not sep:
                return False
            try:
                size = int(size_line.split(b';')[0].strip(), 16)
            except ValueError:
                return False
            if size == 0:
                return rest.startswith(b'\r\n') or b'\r\n\r\n' in rest
            if len(rest) < size + 2:
                return False
            body = rest[size + 2:]
    try:
        return len(body) >= int(fields.get(b'content-length', b'0'))
    except ValueError:
        return False


ctx = None
if chain:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(chain, key)
    ctx.set_alpn_protocols(['http/1.1'])
    if client_ca:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(client_ca)
listeners = []
if unix:
    u = socket.socket(socket.AF_UNIX); u.bind(unix); u.listen(4); listeners.append(u)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', port)); s.listen(4); listeners.append(s)
print(s.getsockname()[1], flush=True)
while True:
    ready, _, _ = select.select(listeners, [], [])
    c, _ = ready[0].accept()
    peer, session = '', ''
    if ctx is not None and ready[0] is s:
        c.settimeout(5)
        try:
            # A connection closed without a byte (a port probe): no handshake to try.
            if not c.recv(1, socket.MSG_PEEK):
                c.close(); continue
            c = ctx.wrap_socket(c, server_side=True)
            session = '%s %s' % (c.version(), c.cipher()[0])
            cert = c.getpeercert()
            if cert:
                peer = ','.join('%s=%s' % kv for rdn in cert.get('subject', ()) for kv in rdn)
        except Exception as e:
            open(path + '.errors', 'a').write(type(e).__name__ + ': ' + str(e) + '\n')
            c.close(); continue
    c.settimeout(0.5)
    data = b''
    try:
        while True:
            d = c.recv(65536)
            if not d: break
            data += d
            if complete(data): break
    except Exception:
        pass
    if not data:
        c.close(); continue
    if data.startswith(b'GET /.capture-sync '):
        try:
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nsync')
        except Exception:
            pass
        c.close(); continue
    open(path + '.peer', 'w').write(peer)
    open(path + '.tls', 'w').write(session)
    open(path, 'wb').write(data)
    open(path + '.all', 'ab').write(data)
    try:
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok')
        if ctx is not None and ready[0] is s:
            c.unwrap()
    except Exception:
        pass
    c.close()
