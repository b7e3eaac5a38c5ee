#!/usr/bin/env python3
"""Reads each request body as it streams in (Content-Length or chunked), hashes it without keeping
it and answers JSON: method, path, headers, length, sha256, and for a Content-Length body the
number of reads it came in and the largest (`reads`, `largest`: how it was paced)
(Tests/Support/SinkServer.swift).

Usage: sink.py PORT [SAVE_DIR]    (with SAVE_DIR the last body is also saved as SAVE_DIR/body.bin)
PORT 0 picks a free port; the port listened on is printed on the first line.
"""
import hashlib, json, sys, os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
SAVE = sys.argv[2] if len(sys.argv) > 2 else ''
class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def handle_any(self):
        h = hashlib.sha256(); n = 0; reads = 0; largest = 0
        out = open(os.path.join(SAVE, 'body.bin'), 'wb') if SAVE else None
        def eat(data):
            nonlocal n
            h.update(data); n += len(data)
            if out: out.write(data)
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            while True:
                size = int(self.rfile.readline().split(b';')[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b'\r\n', b'\n', b''): pass
                    break
                left = size
                while left:
                    d = self.rfile.read(min(left, 1 << 20)); left -= len(d); eat(d)
                self.rfile.readline()
        else:
            left = int(self.headers.get('Content-Length') or 0)
            while left:
                # As it arrives: at most one read(2) of the socket's a call.
                d = self.rfile.read1(min(left, 1 << 20))
                if not d: break
                left -= len(d); eat(d)
                reads += 1; largest = max(largest, len(d))
        if out: out.close()
        body = json.dumps({'method': self.command, 'path': self.path, 'length': n,
                           'sha256': h.hexdigest(), 'reads': reads, 'largest': largest,
                           'headers': dict(self.headers.items())}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any
srv = ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
