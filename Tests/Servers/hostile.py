#!/usr/bin/env python3
"""A raw-socket server (no HTTP library) that breaks HTTP on purpose, one behaviour per path
(Tests/Support/HostileServer.swift lists them).

Usage: hostile.py PORT [BOMBS_DIR]    (BOMBS_DIR defaults to Tests/Fixtures/bombs)
PORT 0 picks a free port; the port listened on is printed on the first line.
"""
import socket, struct, sys, threading, time, zlib, urllib.parse

import os
port = int(sys.argv[1])
bombs = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Fixtures', 'bombs')

def deflate_zeros(total_mb, wrap):
    # After a full flush the compressor starts over, so one flushed megabyte repeats exactly.
    c = zlib.compressobj(9, zlib.DEFLATED, wrap)
    head = c.compress(b'\0' * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    c2 = zlib.compressobj(9, zlib.DEFLATED, -15)
    c2.compress(b'\0' * (1 << 20)); block = c2.flush(zlib.Z_FULL_FLUSH)
    c3 = zlib.compressobj(9, zlib.DEFLATED, -15)
    last = c3.compress(b'') + c3.flush(zlib.Z_FINISH)
    body = head + block * (total_mb - 1) + last
    if wrap == 31:
        crc = 0
        mb = b'\0' * (1 << 20)
        for _ in range(total_mb): crc = zlib.crc32(mb, crc)
        body += struct.pack('<II', crc, (total_mb << 20) & 0xffffffff)
    elif wrap == 15:
        a = 1
        mb = b'\0' * (1 << 20)
        for _ in range(total_mb): a = zlib.adler32(mb, a)
        body += struct.pack('>I', a)
    return body

# The bombs are made when first asked for, not at start: the checksums run over a gigabyte of
# zeros (about 0.7 s of CPU), and most tests that start this server ask for no bomb.
bomb_lock = threading.Lock()
bomb_bodies = {}

def bomb(kind):
    with bomb_lock:
        if kind not in bomb_bodies:
            if kind == 'gzip': bomb_bodies[kind] = deflate_zeros(1024, 31)
            elif kind == 'deflate': bomb_bodies[kind] = deflate_zeros(1024, 15)
            elif kind == 'gzip-gzip':
                # 8 GiB of zeros, gzip-coded twice (some 30 KB: one piece of libcurl's decodes to
                # gigabytes). The inner trailer is zeros, not checked: the test stops it long before.
                mb = b'\0' * (1 << 20)
                c1 = zlib.compressobj(9, zlib.DEFLATED, 31); head = c1.compress(mb) + c1.flush(zlib.Z_FULL_FLUSH)
                c2 = zlib.compressobj(9, zlib.DEFLATED, -15); c2.compress(mb); block = c2.flush(zlib.Z_FULL_FLUSH)
                c3 = zlib.compressobj(9, zlib.DEFLATED, -15); last = c3.compress(b'') + c3.flush(zlib.Z_FINISH)
                outer = zlib.compressobj(9, zlib.DEFLATED, 31)
                bomb_bodies[kind] = (outer.compress(head) + b''.join(outer.compress(block) for _ in range(8191))
                                     + outer.compress(last + bytes(8)) + outer.flush())
            else: bomb_bodies[kind] = open(bombs + {'br': '/zeros-1G.br', 'zstd': '/zeros-1G.zst'}[kind], 'rb').read()
        return bomb_bodies[kind]

def bplist(objects):
    out = bytearray(b'bplist00'); offs = []
    for o in objects: offs.append(len(out)); out += o
    table = len(out)
    for o in offs: out += bytes([o])
    out += bytes(6) + bytes([1, 1]) + struct.pack('>QQQ', len(objects), 0, table)
    return bytes(out)

PLIST_BOMB = bplist([bytes([0xA2, i + 1, i + 1]) for i in range(24)] + [b'\x51x'])
PLIST_CYCLE = bplist([bytes([0xA1, 0])])
LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">' +
          b''.join(b'<!ENTITY lol%d "%s">' % (i, (b'&lol%d;' % (i - 1) if i > 1 else b'&lol;') * 10) for i in range(1, 10)) +
          b']>\n<lolz>&lol9;</lolz>\n')
PNG = b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x7f\xff\xff\xff\x7f\xff\xff\xff\x08\x06\x00\x00\x00' + b'\x00' * 4

def answer(status, headers, body):
    h = b'HTTP/1.1 ' + status + b'\r\n' + b''.join(k + b': ' + v + b'\r\n' for k, v in headers)
    return h + b'Content-Length: %d\r\nConnection: close\r\n\r\n' % len(body) + body

def handle(conn):
    try:
        data = b''
        while b'\r\n\r\n' not in data:
            more = conn.recv(65536)
            if not more: return
            data += more
        target = data.split(b'\r\n', 1)[0].split(b' ')[1].decode()
        u = urllib.parse.urlsplit(target); q = dict(urllib.parse.parse_qsl(u.query)); p = u.path
        send = conn.sendall
        if p == '/short':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789')
        elif p == '/gz-multi':
            def member(data):
                c = zlib.compressobj(9, zlib.DEFLATED, 31)
                return c.compress(data) + c.flush()
            send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'gzip')], member(b'first\n') + member(b'second\n')))
        elif p == '/gz-stray':
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'gzip')], c.compress(b'first\n') + c.flush() + b'junk'))
        elif p.startswith('/gz-cut'):
            # A JSON document, gzip-coded, cut short at the connection's end (no Content-Length:
            # the end of the connection ends the body); /gz-cut-len names the short length.
            doc = b'[' + b','.join(b'{"i": %d}' % i for i in range(20000)) + b']'
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            z = c.compress(doc) + c.flush()
            z = z[:len(z) // 2]
            length = b'Content-Length: %d\r\n' % len(z) if p == '/gz-cut-len' else b''
            send(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nCache-Control: max-age=600\r\n' + length + b'Connection: close\r\n\r\n' + z)
        elif p == '/raw-held':
            # Raw deflate whose last bytes decode past a 64 KiB output buffer (zlib holds them, the
            # input all read), then an adler32 as some servers append: a whole body.
            doc = b'a' * 65546
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'deflate')],
                        c.compress(doc) + c.flush() + (struct.pack('>I', zlib.adler32(doc)) if 'adler' in q else b'')))
        elif p == '/gz-range':
            # The first 2000 bytes of a gzip body, as a 206.
            doc = b'[' + b','.join(b'{"i": %d}' % i for i in range(20000)) + b']'
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            z = c.compress(doc) + c.flush()
            send(answer(b'206 Partial Content', [(b'Content-Type', b'application/json'), (b'Content-Encoding', b'gzip'),
                                                 (b'Content-Range', b'bytes 0-1999/%d' % len(z))], z[:2000]))
        elif p == '/digest-coded':
            # A Digest challenge whose body names a coding nobody decodes, then a gzip answer.
            if b'\r\nauthorization:' not in data.lower():
                send(answer(b'401 Unauthorized', [(b'WWW-Authenticate', b'Digest realm="r", nonce="abc", qop="auth"'),
                                                  (b'Content-Encoding', b'x-foo')], b'raw 401 body'))
            else:
                c = zlib.compressobj(9, zlib.DEFLATED, 31)
                send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'gzip')], c.compress(b'decoded\n') + c.flush()))
        elif p.startswith('/deflate-'):
            # deflate as RFC 9110 means it (zlib-wrapped), and raw, as some servers send it.
            # ?split=1: the body's first byte alone, the rest a moment later (two pieces).
            c = zlib.compressobj(9, zlib.DEFLATED, 15 if p == '/deflate-zlib' else -15)
            whole = answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'deflate')], c.compress(b'deflated body\n' * 1000) + c.flush())
            if 'split' in q:
                at = whole.index(b'\r\n\r\n') + 5
                send(whole[:at]); time.sleep(0.3); send(whole[at:])
            else:
                send(whole)
        elif p == '/short-json':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a": [1, 2')
        elif p == '/trailer':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n'
                 b'6\r\nhello\n\r\n0\r\nX-T: 1\r\n\r\n')
        elif p == '/png-lie':
            send(answer(b'200 OK', [(b'Content-Type', b'image/png')], b'<Error>AccessDenied</Error>\n'))
        elif p == '/cut-head':
            send(b'HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n')
        elif p == '/nothing-short':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n')
        elif p == '/tiny-chunks':
            # 20,000 chunks of one byte each (`0123456789` over and over), sent in blocks.
            send(b'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n')
            block = b''.join(b'1\r\n%d\r\n' % (i % 10) for i in range(1000))
            for _ in range(20): send(block)
            send(b'0\r\n\r\n')
        elif p == '/bad-chunk':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nbroken\r\n0\r\n\r\n')
        elif p == '/endless':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n')
            while True:
                send(b'6\r\nmore.\n\r\n'); time.sleep(0.2)
        elif p == '/drip':
            send(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n')
            while True:
                send(b'x'); time.sleep(1)
        elif p == '/head-trickle':
            # One header line every 0.4 s for 2 s, then the body: data moving all along.
            send(b'HTTP/1.1 200 OK\r\n')
            for i in range(5):
                time.sleep(0.4); send(b'X-Slow-%d: v\r\n' % i)
            send(b'Content-Length: 2\r\nConnection: close\r\n\r\nok')
        elif p == '/many-headers':
            send(b'HTTP/1.1 200 OK\r\n' + b''.join(b'X-H%d: v\r\n' % i for i in range(100000)) + b'Content-Length: 2\r\n\r\nok')
        elif p == '/early-hints-flood':
            # 6,000 interim heads (about 280 KB) before a small final one.
            send(b''.join(b'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n' for _ in range(6000))
                 + b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
        elif p == '/long-header':
            send(b'HTTP/1.1 200 OK\r\nX-Long: ' + b'a' * (1 << 20) + b'\r\nContent-Length: 2\r\n\r\nok')
        elif p == '/nul-header':
            send(b'HTTP/1.1 200 OK\r\nX-Nul: a\x00b\r\nContent-Length: 2\r\n\r\nok')
        elif p == '/cookie-then-nul':
            send(b'HTTP/1.1 200 OK\r\nSet-Cookie: early=' + q.get('v', '1').encode() + b'; Path=/\r\nX-Nul: a\x00b\r\nContent-Length: 2\r\n\r\nok')
        elif p == '/evil-reason':
            send(answer(b'200 OK\x1b]0;pwned\x07\x1b[31mRED', [(b'Content-Type', b'text/plain')], b'ok\n'))
        elif p == '/markup-reason':
            # Markup, quotes, an XML-invalid control byte and an escape in the reason phrase: a
            # report (HTML, JUnit) that quotes it must neither run it nor become invalid.
            send(answer(b'500 <script>document.documentElement.dataset.pwned="1"</script><img src=x onerror="document.documentElement.dataset.pwned=2"> & \' \x01\x1b[31m', [(b'Content-Type', b'text/plain')], b'no\n'))
        elif p == '/latin1-name':
            # Field values in ISO-8859-1 (HTTP's old charset), not UTF-8.
            send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Disposition', b'attachment; filename="caf\xe9.txt"'),
                                    (b'X-Latin', b'gr\xfc\xdfe')], b'latin\n'))
        elif p == '/long-location':
            # A Location to another scheme, 95,000 bytes long.
            send(answer(b'302 Found', [(b'Location', b'ftp://x/' + b'a' * 95000)], b''))
        elif p == '/long-coding':
            # A Content-Encoding nobody decodes, 95,000 bytes long.
            send(answer(b'200 OK', [(b'Content-Type', b'text/plain'), (b'Content-Encoding', b'x' * 95000)], b'coded\n'))
        elif p == '/evil-location':
            send(answer(b'302 Found', [(b'Location', b'/x\x1b[2J\x1b]0;pwned\x07')], b''))
        elif p.startswith('/bomb/'):
            kind = p[6:]
            body = bomb(kind)
            ctype = q.get('type', 'application/octet-stream').encode()
            coding = b'gzip, gzip' if kind == 'gzip-gzip' else kind.encode()
            send(answer(b'200 OK', [(b'Content-Type', ctype), (b'Content-Encoding', coding)], body))
        elif p == '/deep-json':
            n = int(q.get('n', '1000000'))
            send(answer(b'200 OK', [(b'Content-Type', b'application/json')], b'[' * n + b']' * n))
        elif p == '/big-string':
            n = int(q.get('mb', '100')) << 20
            send(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"' % (n + 2))
            chunk = b'a' * (1 << 20)
            for _ in range(n >> 20): send(chunk)
            send(b'"')
        elif p == '/big-number':
            n = int(q.get('digits', '1000000'))
            send(answer(b'200 OK', [(b'Content-Type', b'application/json')], b'[' + b'7' * n + b']'))
        elif p == '/deep-xml':
            n = int(q.get('n', '2000000'))
            send(answer(b'200 OK', [(b'Content-Type', b'application/xml')], b'<a>' * n + b'</a>' * n))
        elif p == '/flat-xml':
            n = int(q.get('mb', '100'))
            block = b''.join(b'  <item id="%d" kind=\'x\'><name>n%d &amp; m</name><!-- c --></item>\n' % (i, i) for i in range(15000))
            head, tail = b'<?xml version="1.0"?>\n<list>\n', b'</list>\n'
            send(b'HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n' % (len(head) + n * len(block) + len(tail)) + head)
            for _ in range(n): send(block)
            send(tail)
        elif p == '/laughs':
            send(answer(b'200 OK', [(b'Content-Type', b'application/xml')], LAUGHS))
        elif p == '/plist-bomb':
            send(answer(b'200 OK', [(b'Content-Type', b'application/x-bplist')], PLIST_BOMB))
        elif p == '/plist-cycle':
            send(answer(b'200 OK', [(b'Content-Type', b'application/x-bplist')], PLIST_CYCLE))
        elif p == '/huge-png':
            send(answer(b'200 OK', [(b'Content-Type', b'image/png')], PNG))
        elif p == '/http09':
            send(b'just a body, no status line\n')
        elif p == '/http10':
            send(b'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until close\n')
        elif p == '/informational':
            send(b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n' + answer(b'200 OK', [(b'Content-Type', b'text/plain')], b'final\n'))
        elif p == '/204-body':
            send(b'HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\nsneaky\n')
        elif p == '/304-body':
            send(b'HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\nsneaky\n')
        elif p == '/two-codings':
            # gzip, then a coding libcurl cannot decode, named on two field lines.
            z = zlib.compressobj(9, zlib.DEFLATED, 31)
            send(answer(b'200 OK', [(b'Content-Encoding', b'gzip'), (b'Content-Encoding', b'x-foo')],
                        z.compress(b'as sent\n') + z.flush()))
        elif p == '/gzip-stall':
            # A gzip body's head naming 100,000 bytes (sent whatever was asked), then nothing for 10 s.
            send(b'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 100000\r\n\r\n')
            time.sleep(10)
        elif p == '/short-stall':
            # A short body (`text`, of type `type`) under a Content-Length 10 bytes longer, then
            # nothing for 10 s: a body that came, then a stall (Ctrl-C's case).
            text = q.get('text', 'hello').encode()
            send(b'HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n' % (q.get('type', 'text/plain').encode(), len(text) + 10) + text)
            time.sleep(10)
        elif p == '/no-content':
            # A 204 that names a length: it has no body whatever it says.
            send(b'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nConnection: close\r\n\r\n')
        elif p == '/long-reason':
            # A 503 whose reason phrase is 20,000 ESC bytes, to be retried at once.
            send(answer(b'503 ' + b'\x1b' * 20000, [(b'Retry-After', b'0'), (b'Content-Type', b'x/' + b'y' * 20000)], b'hi\n'))
        elif p == '/loop':
            send(answer(b'302 Found', [(b'Location', b'/loop')], b''))
        elif p == '/to':
            targets = {'file': b'file:///etc/passwd', 'ftp': b'ftp://TOKEN@127.0.0.1/x', 'gopher': b'gopher://127.0.0.1/x',
                       'dict': b'dict://127.0.0.1/x', 'data': b'data:,hi'}
            send(answer(b'302 Found', [(b'Location', targets[q.get('scheme', 'file')])], b''))
        else:
            send(answer(b'404 Not Found', [], b'no\n'))
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass
    finally:
        try: conn.close()
        except OSError: pass

srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', port)); srv.listen(64)
print(srv.getsockname()[1], flush=True)
while True:
    c, _ = srv.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
