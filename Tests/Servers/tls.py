#!/usr/bin/env python3
"""A TLS server that logs, per connection, whether the handshake completed and how many
application bytes arrived (Tests/Support/TLSTestServer.swift).

Usage: tls.py PORT CHAIN KEY LOG [CLIENT_CA [REDIRECT [MAX_TLS [garbage|reset|hangup]]]]
PORT 0 picks a free port; the port listened on is printed on the first line.
(an optional argument given as '' is not used)

CHAIN is the PEM the server sends (leaf first), KEY its key. LOG gets one line per connection:
`ok|failed BYTES ERROR`. CLIENT_CA requires a client certificate under that CA; REDIRECT answers
every request but one for its own path with a 302 to that URL (a path alone: on this server); MAX_TLS 1.2 caps the version;
`garbage` answers with plain bytes that are not a TLS record; `reset` sends a 200's head and 1000
of its 100000 bytes, then resets the connection; `hangup` closes each connection at once,
answering nothing. Otherwise the answer is 200 ok.
"""
import os, socket, ssl, sys
args = sys.argv[1:] + [''] * (8 - len(sys.argv[1:]))
garbage = args[7] == 'garbage'
reset = args[7] == 'reset'
hangup = args[7] == 'hangup'
port, chain, key, log, client_ca, redirect, max_tls = int(args[0]), args[1], args[2], args[3], args[4], args[5], args[6]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(chain, key)
ctx.set_alpn_protocols(['http/1.1'])
if max_tls == '1.2':
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
elif max_tls == '1.1':
    # A legacy server: TLS 1.1 only, with a suite OpenSSL 3 keeps at security level 0.
    import warnings
    warnings.simplefilter('ignore', DeprecationWarning)
    ctx.set_ciphers('AES128-SHA:@SECLEVEL=0')
    ctx.minimum_version = ssl.TLSVersion.TLSv1_1
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1
if client_ca:
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(client_ca)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', port)); s.listen(16)
port = s.getsockname()[1]
print(port, flush=True)
# A REDIRECT that is a path goes to this server itself, at the port it got.
if redirect.startswith('/'):
    redirect = 'https://127.0.0.1:%d%s' % (port, redirect)
def record(ok, n, err):
    with open(log, 'a') as f:
        f.write('%s %d %s\n' % ('ok' if ok else 'failed', n, err.replace('\n', ' ')))
while True:
    raw, _ = s.accept()
    if hangup:
        # Reads the ClientHello and closes, saying nothing (read first: a close with it unread
        # would be a reset instead, as it was when the hello came before the close).
        try:
            raw.settimeout(3)
            raw.recv(65536)
        except Exception:
            pass
        raw.close(); continue
    raw.settimeout(3)
    try:
        # A connection closed without a byte (a port probe) is not a client: not logged.
        if not raw.recv(1, socket.MSG_PEEK):
            raw.close(); continue
    except Exception:
        raw.close(); continue
    try:
        c = ctx.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
    except Exception as e:
        raw.close(); continue
    try:
        c.do_handshake()
    except Exception as e:
        # The handshake failed: count whatever still arrives (it must be nothing).
        n = 0
        try:
            raw.settimeout(0.3)
            while True:
                d = raw.recv(65536)
                if not d: break
                n += 0  # raw TLS records after a failed handshake are not application data
        except Exception:
            pass
        record(False, 0, type(e).__name__ + ': ' + str(e))
        c.close(); continue
    data = b''
    try:
        while b'\r\n\r\n' not in data:
            d = c.recv(65536)
            if not d: break
            data += d
    except Exception as e:
        record(True, len(data), type(e).__name__ + ': ' + str(e))
        c.close(); continue
    record(True, len(data), '')
    if data and garbage:
        try:
            os.write(c.fileno(), b'HTTP/1.1 200 OK\r\n\x00\xff garbage, not a TLS record\r\n' * 64)
        except Exception:
            pass
        c.close(); continue
    if data and reset:
        try:
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n' + b'x' * 1000)
            import struct, time
            time.sleep(0.1)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        except Exception:
            pass
        c.close(); continue
    if data:
        try:
            target = redirect.split('://', 1)[-1].partition('/')[2]
            if redirect and not data.startswith(('GET /' + target + ' ').encode()):
                c.sendall(('HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' % redirect).encode())
            else:
                c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok')
            c.unwrap()
        except Exception:
            pass
    c.close()
