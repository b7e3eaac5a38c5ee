#!/usr/bin/env python3
"""A cookie conformance server: answers with the Set-Cookie headers a case file scripts, follows
a chain of redirects through the case's steps, and logs the Cookie header it receives as a JSON
line (Tests/Support/CookieServer.swift describes the paths; CookieConformanceTests holds the cases).

Every path is accepted, so the path a cookie is set from or sent to is the case's to choose:
- `?case=ID&step=N` answers with step N's Set-Cookie headers (the case file's strings in UTF-8,
  each `\\xNN` written as the byte NN), and with `&to=URL` a 302 to URL.
- `?to=URL` alone is a 302 to URL with no cookies (a redirect from another host).
- anything else answers `ok`; every request is logged: method, Host, path and query, and the
  Cookie header as received (its bytes as UTF-8, invalid bytes as \\xNN), or null without one.

Usage: cookies.py PORT LOG CASES_JSON
PORT 0 picks a free port; the port listened on is printed on the first line.
CASES_JSON: {"ID": [[set-cookie, ...], ...], ...} (the steps of each case).
"""
import json, re, socketserver, sys, threading, urllib.parse
from http.server import BaseHTTPRequestHandler

port = int(sys.argv[1]); log_path = sys.argv[2]
with open(sys.argv[3], encoding='utf-8') as f:
    cases = json.load(f)
lock = threading.Lock()

def raw(line):
    """A case's header value as bytes: UTF-8, with each `\\xNN` the byte NN (for bytes that are
    not UTF-8, which JSON strings cannot hold)."""
    return re.sub(rb'\\x([0-9a-fA-F]{2})', lambda m: bytes([int(m.group(1), 16)]), line.encode('utf-8'))

class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'
    def log_message(self, *a): pass

    def handle_any(self):
        length = int(self.headers.get('Content-Length') or 0)
        if length:
            self.rfile.read(length)
        u = urllib.parse.urlsplit(self.path)
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(u.query).items()}
        # http.server decodes header bytes as Latin-1: undo that to see the bytes sent.
        cookies = self.headers.get_all('Cookie')
        cookie = None
        if cookies:
            cookie = '; '.join(cookies).encode('latin-1', 'replace').decode('utf-8', 'backslashreplace')
        entry = {'method': self.command, 'host': self.headers.get('Host'), 'path': u.path,
                 'query': q, 'cookie': cookie}
        with lock:
            with open(log_path, 'a') as f:
                f.write(json.dumps(entry) + '\n')
        lines = []
        if 'case' in q and 'step' in q:
            steps = cases.get(q['case'], [])
            n = int(q['step'])
            if 0 <= n < len(steps):
                lines = steps[n]
        status = b'302 Found' if 'to' in q else b'200 OK'
        head = b'HTTP/1.0 ' + status + b'\r\n'
        for line in lines:
            head += b'Set-Cookie: ' + raw(line) + b'\r\n'
        if 'to' in q:
            head += b'Location: ' + q['to'].encode('utf-8') + b'\r\n'
        head += b'Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok'
        self.wfile.write(head)

    do_GET = do_POST = do_HEAD = handle_any

class TCP(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

srv = TCP(('127.0.0.1', port), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
