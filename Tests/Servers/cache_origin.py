#!/usr/bin/env python3
"""An origin server for the HTTP cache's tests: each response is scripted by its query string,
every request is counted per path and logged as a JSON line (method, path, headers).

Query parameters (all optional):
  status=N      the status (default 200)
  cc=V          Cache-Control: V            etag=V   ETag: V
  cc2=V         Cache-Control: V from the path's second request on (instead of cc's)
  status2=N     the status from the path's second request on (instead of status's)
  lm=S          Last-Modified S seconds from now (negative: in the past); lm=@T the time T (epoch seconds)
  date=S        Date S seconds from now (default 0: now); date=none sends no Date
  exp=S|bad     Expires S seconds from now, or an invalid value
  age=N         Age: N                      vary=V   Vary: V
  loc=URL       Location: URL               cloc=URL Content-Location: URL
  ce=TOKEN      Content-Encoding: TOKEN (the body is sent as is)
  gzip=1        the body gzip-compressed, Content-Encoding: gzip
  h=Name:Value  an extra header (repeatable)
  h304=Name:Value  an extra header on 304 answers only (repeatable; an ETag or Last-Modified
                   replaces etag's or lm's)
  hfull=Name:Value an extra header on answers other than 304 only (repeatable)
  size=N        a deterministic body of N bytes (else: 'PATH #COUNT' and, with vary, the values)
  cut=1         announce more bytes than sent and close (an incomplete body)
  te=TOKEN      Transfer-Encoding: TOKEN, no Content-Length, the body runs to the close
A conditional request (If-None-Match equal to etag, or If-Modified-Since with lm) gets 304.
GET /__count?path=P answers the number of requests P received (not counting /__count itself).

Usage: cache_origin.py PORT LOG
PORT 0 picks a free port; the port listened on is printed on the first line.
"""
import email.utils, gzip, json, socketserver, sys, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler

port = int(sys.argv[1]); log_path = sys.argv[2]
lock = threading.Lock()
counts = {}

def body_bytes(size):
    out = bytearray(size)
    x = 12345
    for i in range(size):
        x = (x * 1103515245 + 12345) & 0xffffffff
        out[i] = (x >> 16) & 0xff
    return bytes(out)

big = {}

class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass

    def handle_any(self):
        length = int(self.headers.get('Content-Length') or 0)
        if length: self.rfile.read(length)
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        one = lambda k, d=None: q.get(k, [d])[0]
        if url.path == '/__count':
            with lock: n = counts.get(one('path'), 0)
            return self.reply(200, str(n).encode(), [('Cache-Control', 'no-store')])
        with lock:
            counts[url.path] = counts.get(url.path, 0) + 1
            n = counts[url.path]
            with open(log_path, 'a') as f:
                f.write(json.dumps({'method': self.command, 'path': self.path,
                                    'headers': {k: v for k, v in self.headers.items()}}) + '\n')
        now = time.time()
        headers = []
        date = one('date', '0')
        if date != 'none': headers.append(('Date', email.utils.formatdate(now + float(date), usegmt=True)))
        cc = one('cc2') if n > 1 and one('cc2') is not None else one('cc')
        if cc is not None: headers.append(('Cache-Control', cc))
        if one('etag') is not None: headers.append(('ETag', one('etag')))
        if one('lm') is not None:
            # `lm=-10`: ten seconds before this answer; `lm=@T`: the time T (seconds since 1970),
            # the same in every answer (a 304 a second later names the same date).
            lm = one('lm')
            headers.append(('Last-Modified', email.utils.formatdate(float(lm[1:]) if lm.startswith('@') else now + float(lm), usegmt=True)))
        if one('exp') is not None:
            e = one('exp')
            headers.append(('Expires', 'bad' if e == 'bad' else email.utils.formatdate(now + float(e), usegmt=True)))
        if one('age') is not None: headers.append(('Age', one('age')))
        if one('vary') is not None: headers.append(('Vary', one('vary')))
        if one('loc') is not None: headers.append(('Location', one('loc')))
        if one('cloc') is not None: headers.append(('Content-Location', one('cloc')))
        for h in q.get('h', []):
            k, _, v = h.partition(':'); headers.append((k, v))
        inm = self.headers.get('If-None-Match'); ims = self.headers.get('If-Modified-Since')
        if self.command in ('GET', 'HEAD') and ((inm is not None and one('etag') is not None and inm == one('etag'))
                                                or (inm is None and ims is not None and one('lm') is not None)):
            for h in q.get('h304', []):
                k, _, v = h.partition(':')
                if k.lower() in ('etag', 'last-modified'): headers = [f for f in headers if f[0].lower() != k.lower()]
                headers.append((k, v))
            return self.reply(304, b'', headers, no_length=True)
        for h in q.get('hfull', []):
            k, _, v = h.partition(':'); headers.append((k, v))
        if one('size') is not None:
            size = int(one('size'))
            with lock:
                if size not in big: big[size] = body_bytes(size)
            body = big[size]
        else:
            body = ('%s #%d' % (url.path, n)).encode()
            if one('vary') is not None:
                for name in one('vary').split(','):
                    body += (' %s=%s' % (name.strip(), self.headers.get(name.strip(), ''))).encode()
        if one('gzip') == '1':
            body = gzip.compress(body); headers.append(('Content-Encoding', 'gzip'))
        elif one('ce') is not None:
            headers.append(('Content-Encoding', one('ce')))
        if one('te') is not None:
            self.send_response_only(int(one('status', '200')))
            for k, v in headers: self.send_header(k, v)
            self.send_header('Transfer-Encoding', one('te'))
            self.end_headers()
            self.wfile.write(body); self.wfile.flush()
            self.close_connection = True
            return
        if one('cut') == '1':
            self.send_response_only(int(one('status', '200')))
            for k, v in headers: self.send_header(k, v)
            self.send_header('Content-Length', str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body); self.wfile.flush()
            self.close_connection = True
            return
        # `fails=K`: the path's first K requests answer 503 (with the same headers: max-age too).
        if one('fails') is not None and n <= int(one('fails')):
            return self.reply(503, b'busy', headers)
        status = one('status2') if n > 1 and one('status2') is not None else one('status', '200')
        self.reply(int(status), body, headers)

    def reply(self, status, body, headers, no_length=False):
        self.send_response_only(status)
        for k, v in headers: self.send_header(k, v)
        if not no_length: self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if self.command != 'HEAD' and body: self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any

class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

srv = Server(('127.0.0.1', port), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
