#!/usr/bin/env python3
"""A threaded HTTP/1.0 server with behaviours httpbin lacks, logging every request as a JSON line
(Tests/Support/ScriptedServer.swift lists the paths: /file, /flaky, /redirect, /slow, /echo, ...).

Usage: scripted.py PORT LOG [--unix SOCKET_PATH]
PORT 0 picks a free port; the port listened on is printed on the first line.
"""
import json, os, socket, socketserver, sys, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler

port = int(sys.argv[1]); log_path = sys.argv[2]
unix_path = sys.argv[sys.argv.index('--unix') + 1] if '--unix' in sys.argv else None
lock = threading.Lock()
counters = {}

def file_bytes(size, seed):
    out = bytearray(size)
    x = (seed * 2654435761 + 12345) & 0xffffffff
    for i in range(size):
        x = (x * 1103515245 + 12345) & 0xffffffff
        out[i] = (x >> 16) & 0xff
    return bytes(out)

def once(key):
    with lock:
        n = counters.get(key, 0)
        counters[key] = n + 1
        return n

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a): pass

    def record(self, body_len):
        entry = {'method': self.command, 'path': self.path, 'headers': {k: v for k, v in self.headers.items()},
                 'body_len': body_len}
        with lock:
            with open(log_path, 'a') as f:
                f.write(json.dumps(entry) + '\n')

    def send(self, status, body=b'', headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_chunked(self):
        """A chunked body, read to its end (answering before it, the server raced the client's
        sending: a `Send failure: Broken pipe` instead of the client's own verdict)."""
        body = b''
        while True:
            size = int((self.rfile.readline(1 << 16).split(b';')[0].strip() or b'0'), 16)
            if size == 0:
                while self.rfile.readline(1 << 16) not in (b'\r\n', b'\n', b''):
                    pass
                return body
            body += self.rfile.read(size)
            self.rfile.readline(1 << 16)

    def handle_any(self):
        length = int(self.headers.get('Content-Length') or 0)
        if 'chunked' in (self.headers.get('Transfer-Encoding') or '').lower():
            body = self.read_chunked()
        else:
            body = self.rfile.read(length) if length else b''
        self.record(len(body))
        if self.path.startswith('http://') or self.path.startswith('https://'):
            return self.send(200, b'proxied', [('Content-Type', 'text/plain')])
        u = urllib.parse.urlsplit(self.path)
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(u.query).items()}
        if u.path == '/file':
            if 'hold' in q:
                # `hold=PATH`: says the request came (PATH.got), then answers once PATH exists.
                open(q['hold'] + '.got', 'w').close()
                end = time.time() + 30
                while not os.path.exists(q['hold']) and time.time() < end:
                    time.sleep(0.02)
            size = int(q.get('size', '1000'))
            # `later=N`: once the cut happened (for key X), the file is another version of N bytes.
            if 'later' in q and counters.get('cut-' + q.get('key', ''), 0) > 0:
                size = int(q['later'])
            data = file_bytes(size, int(q.get('seed', '1')))
            headers = [('Content-Type', 'application/octet-stream'), ('Accept-Ranges', 'bytes')]
            if 'name' in q:
                headers.append(('Content-Disposition', 'attachment; filename="%s"' % q['name']))
            if 'etag' in q:
                headers.append(('ETag', q['etag']))
            rng = self.headers.get('Range')
            status = 200
            start = 0
            if rng and rng.startswith('bytes=') and q.get('ignore_range') != '1':
                start = int(rng[6:].split('-')[0])
                if start >= len(data):
                    return self.send(416, b'', [('Content-Range', 'bytes */%d' % len(data))])
                status = 206
                headers.append(('Content-Range', 'bytes %d-%d/%d' % (start, len(data) - 1, len(data))))
            part = data[start:]
            if 'midhold' in q:
                # `midhold=PATH`: the head and half the body, then PATH.got, the rest once PATH exists.
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header('Content-Length', str(len(part)))
                self.end_headers()
                self.wfile.write(part[:len(part) // 2])
                self.wfile.flush()
                open(q['midhold'] + '.got', 'w').close()
                end = time.time() + 30
                while not os.path.exists(q['midhold']) and time.time() < end:
                    time.sleep(0.02)
                self.wfile.write(part[len(part) // 2:])
                return
            if 'cut' in q and once('cut-' + q.get('key', '')) == 0:
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header('Content-Length', str(len(part)))
                self.end_headers()
                self.wfile.write(part[:int(q['cut'])])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            return self.send(status, part, headers)
        if u.path == '/flaky':
            n = once('flaky-' + q.get('key', ''))
            if n < int(q.get('fails', '2')):
                if 'grow' in q:
                    # The file the client sends grows between its attempts.
                    with open(q['grow'], 'ab') as f: f.write(b' and more')
                headers = [('Retry-After', q['ra'])] if 'ra' in q else []
                return self.send(int(q.get('status', '503')), b'try later', headers)
            return self.send(200, b'ok', [('Content-Type', 'text/plain')])
        if u.path == '/redirect':
            headers = [('Location', q['to'])] + ([('Set-Cookie', q['cookie'])] if 'cookie' in q else [])
            return self.send(int(q.get('code', '302')), q.get('body', '').encode(), headers)
        if u.path == '/slow':
            size = int(q.get('size', '100000'))
            self.send_response(200)
            self.send_header('Content-Length', str(size))
            self.send_header('Content-Type', 'application/octet-stream')
            self.end_headers()
            for i in range(0, size, 1000):
                try:
                    self.wfile.write(b'x' * min(1000, size - i)); self.wfile.flush()
                except Exception:
                    return
                time.sleep(0.05)
            return
        if u.path == '/many-headers':
            return self.send(200, b'ok', [('X-H%d' % i, 'v') for i in range(int(q.get('n', '10')))])
        return self.send(200, b'ok', [('Content-Type', 'text/plain')])

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any

class TCP(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

if unix_path:
    class Unix(socketserver.ThreadingUnixStreamServer):
        daemon_threads = True
    class UnixHandler(Handler):
        def address_string(self): return 'unix'
    if os.path.exists(unix_path): os.unlink(unix_path)
    threading.Thread(target=Unix(unix_path, UnixHandler).serve_forever, daemon=True).start()
srv = TCP(('127.0.0.1', port), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
