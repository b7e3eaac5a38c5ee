#!/usr/bin/env python3
"""Serves the files of ROOT with the Content-Type and status the request asks for
(Tests/Support/FixtureServer.swift).

Usage: fixture.py PORT ROOT
PORT 0 picks a free port; the port listened on is printed on the first line.

GET /NAME?type=image/png&status=404; gzip=1 sends the file gzip-encoded, header=Name:%20value
adds a header field, truncate=N announces the whole file but sends N bytes and closes; chunk=N sends
it in N-byte pieces 50 ms apart. HEAD gets
the head only.
"""
import gzip, http.server, os, sys, time, urllib.parse
root = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def answer(self, body_too):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        try:
            body = open(os.path.join(root, u.path.lstrip('/')), 'rb').read()
        except OSError:
            body = b''
        status = int(q.get('status', ['200'])[0])
        self.send_response(status)
        if 'type' in q:
            self.send_header('Content-Type', q['type'][0])
        if 'gzip' in q:
            body = gzip.compress(body)
            self.send_header('Content-Encoding', 'gzip')
        for h in q.get('header', []):
            name, _, value = h.partition(':')
            self.send_header(name, value.strip())
        if status not in (204, 304):
            self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if body_too and status not in (204, 304):
            if 'truncate' in q:
                self.wfile.write(body[:int(q['truncate'][0])])
                self.wfile.flush()
                self.close_connection = True
                return
            if 'chunk' in q:
                # In pieces of N bytes, 50 ms apart: what a stream (-S) sees as separate chunks.
                n = int(q['chunk'][0])
                for i in range(0, len(body), n):
                    self.wfile.write(body[i:i + n]); self.wfile.flush(); time.sleep(0.05)
                return
            self.wfile.write(body)
    def do_GET(self): self.answer(True)
    def do_HEAD(self): self.answer(False)
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
