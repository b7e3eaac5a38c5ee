#!/usr/bin/env python3
"""Runs a cache-tests selection (JSON from select.mjs) against `swurl --cache`.

The origin is the suite's server re-told (server/handle-test.mjs): each test's requests are
configured under a fresh UUID; a request is answered from the configuration its `Req-Num` header
names, with `Server-Request-Count`, `Server-Now` and `Request-Numbers`, dates given as offsets
turned into HTTP dates, a `999` where a conditional request was expected and not sent, and
every request recorded. The client is one `swurl --cache=DIR --print=hb` per request, a fresh
cache directory per test, the 3 s pause after `pause_after`; each response and finally the
origin's record are judged as the suite's client/test.mjs judges them (failures of checks a
request marks as setup are `setup`, as the suite counts them). Loopback only (127.0.0.1).

Usage: run.py SWURL SUITE.json OUT.json [TEST-ID,...]
"""
import collections, email.utils, json, shutil, subprocess, sys, tempfile, threading, time, uuid as uuidlib
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DATE_HEADERS = {'date', 'expires', 'last-modified', 'if-modified-since', 'if-unmodified-since'}
LOCATION_HEADERS = {'location', 'content-location'}
NO_BODY = {204, 304}
PAUSE = 3
configs, records, lock = {}, {}, threading.Lock()


def http_date(now_ms, delta, rfc850=False):
    t = (now_ms + delta * 1000) / 1000
    if rfc850:
        return time.strftime('%A, %d-%b-%y %H:%M:%S GMT', time.gmtime(t))
    return email.utils.formatdate(t, usegmt=True)


def fixup(header, server_now, base_url, cfg):
    """header-fixup.mjs: integer dates are offsets from the server's now; magic locations."""
    name = header[0].lower()
    if name in DATE_HEADERS and isinstance(header[1], int) and not isinstance(header[1], bool):
        header[1] = http_date(server_now, header[1], name in cfg.get('rfc850date', []))
    if name in LOCATION_HEADERS and cfg.get('magic_locations'):
        header[1] = f'{base_url}/{header[1]}' if header[1] else base_url
    return header


def first_header(headers, name):
    return next((h[1] for h in headers or [] if h[0].lower() == name.lower()), None)


class Origin(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *a):
        pass

    def handle_one_request(self):
        # Any method token (M-SEARCH) reaches the one handler.
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline:
                self.close_connection = True
                return
            if self.parse_request():
                self.answer()
                self.wfile.flush()
        except (TimeoutError, ConnectionError):
            self.close_connection = True

    def answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        if length:
            self.rfile.read(length)
        segments = self.path.split('?')[0].split('/')
        uid = segments[2] if len(segments) > 2 else ''
        with lock:
            requests = configs.get(uid)
            record = records.setdefault(uid, [])
        if requests is None:
            return self.send(409, [], b'no configuration')
        server_num = len(record) + 1
        try:
            client_num = int(self.headers.get('req-num'))
        except (TypeError, ValueError):
            client_num = None
        num = client_num or server_num
        if num > len(requests):
            return self.send(409, [], b'no configuration for this request')
        cfg = requests[num - 1]
        previous = requests[num - 2] if num >= 2 else {}
        if 'response_pause' in cfg:
            time.sleep(cfg['response_pause'])
        now = int(time.time() * 1000)
        status = cfg.get('response_status', [200, 'OK'])
        if cfg.get('expected_type', '').endswith('validated'):
            # The previous configuration's headers were fixed up in place when it was answered.
            lm = first_header(previous.get('response_headers'), 'Last-Modified')
            if lm and self.headers.get('if-modified-since') == lm:
                status = [304, 'Not Modified']
            etag = first_header(previous.get('response_headers'), 'ETag')
            if etag and self.headers.get('if-none-match') == etag:
                status = [304, 'Not Modified']
            if status[0] != 304:
                status = [999, '304 Not Generated']
        out = [('Server-Base-Url', self.path), ('Server-Request-Count', str(server_num)),
               ('Client-Request-Count', str(client_num)), ('Server-Now', str(now))]
        saved = collections.OrderedDict()
        for header in cfg.get('response_headers', []):
            fixup(header, now, self.path, cfg)
            out.append((header[0], str(header[1])))
            if len(header) < 3 or header[2] is True:
                saved.setdefault(header[0], []).append(str(header[1]))
        if not any(k.lower() == 'content-type' for k, _ in out):
            out.append(('Content-Type', 'text/plain'))
        with lock:
            record.append({'request_num': client_num, 'request_method': self.command,
                           'request_headers': {k.lower(): v for k, v in self.headers.items()},
                           'response_headers': [[k, ', '.join(v)] for k, v in saved.items()]})
            out.append(('Request-Numbers', ' '.join(str(r['request_num']) for r in record)))
        if not any(k.lower() == 'date' for k, _ in out):
            out.append(('Date', email.utils.formatdate(now / 1000, usegmt=True)))
        body = b'' if status[0] in NO_BODY else (cfg.get('response_body') or uid).encode()
        self.send(status[0], out, body, status[1])

    def send(self, code, headers, body, phrase='Conflict'):
        self.send_response_only(code, phrase)
        names = {k.lower() for k, _ in headers}
        for k, v in headers:
            self.send_header(k, v)
        if 'transfer-encoding' in names:
            # A configured Transfer-Encoding: the body runs to the close, as node sends it.
            self.send_header('Connection', 'close')
            self.close_connection = True
        elif code not in NO_BODY and 'content-length' not in names:
            self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if code not in NO_BODY and self.command != 'HEAD':
            self.wfile.write(body)


class Failed(Exception):
    def __init__(self, setup, message):
        super().__init__(message)
        self.setup = setup


def check(setup, condition, message):
    if not condition:
        raise Failed(setup, message)


def is_setup(cfg, member):
    return cfg.get('setup') is True or member in cfg.get('setup_tests', [])


class Response:
    def __init__(self, output):
        head, sep, self.body = output.partition(b'\r\n\r\n')
        if not sep:
            head, _, self.body = output.partition(b'\n\n')
        lines = head.decode('utf-8', 'replace').replace('\r\n', '\n').split('\n')
        self.status = int(lines[0].split()[1])
        self.fields = [(k.strip().lower(), v.strip()) for k, _, v in (line.partition(':') for line in lines[1:])]

    def has(self, name):
        return any(k == name.lower() for k, _ in self.fields)

    def get(self, name):
        values = [v for k, v in self.fields if k == name.lower()]
        return ', '.join(values) if values else None


def swurl_args(swurl, cache, url, cfg, index):
    args = [swurl, f'--cache={cache}', '--print=hb', '--pretty=none']
    if cfg.get('request_method'):
        args.append(cfg['request_method'])
    args.append(url)
    for k, v in list(cfg.get('request_headers', [])) + [['Test-ID', cfg['id']], ['Req-Num', str(index + 1)]]:
        args.append(f'{k}:{v}')
    if 'request_body' in cfg:
        args.append(f'--raw={cfg["request_body"]}')
    return args


def run_test(swurl, base, test):
    uid = str(uuidlib.uuid4())
    requests = test['requests']
    for r in requests:
        r['id'] = test['id']
    with lock:
        configs[uid] = requests
    cache = tempfile.mkdtemp(prefix='swurl-conformance-')
    responses, runs = [], []
    try:
        for i, cfg in enumerate(requests):
            url = f'{base}/test/{uid}' + (f'/{cfg["filename"]}' if 'filename' in cfg else '') \
                + (f'?{cfg["query_arg"]}' if 'query_arg' in cfg else '')
            args = swurl_args(swurl, cache, url, cfg, i)
            p = subprocess.run(args, capture_output=True, timeout=120)
            runs.append({'args': args[1:], 'exit': p.returncode, 'stderr': p.stderr.decode('utf-8', 'replace')[-500:],
                         'stdout': p.stdout.decode('utf-8', 'replace')[:2000]})
            try:
                response = Response(p.stdout)
            except (IndexError, ValueError):
                raise Failed(False, f'Request {i + 1}: no response (exit {p.returncode}): '
                                    + p.stderr.decode('utf-8', 'replace').strip()[-200:])
            responses.append(response)
            check_response(requests, i, response, uid)
            if cfg.get('pause_after'):
                time.sleep(PAUSE)
        with lock:
            record = list(records.get(uid, []))
        check_origin_record(requests, responses, record)
        return test['id'], 'pass', '', runs
    except Failed as f:
        return test['id'], 'setup' if f.setup else 'fail', str(f), runs
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def check_response(requests, i, r, uid):
    n, cfg = i + 1, requests[i]
    try:
        served_num = int(r.get('Server-Request-Count'))
    except (TypeError, ValueError):
        served_num = None
    numbers = (r.get('Request-Numbers') or '').split()
    check(True, len(numbers) == len(set(numbers)), 'retry')
    if 'expected_type' in cfg:
        setup = is_setup(cfg, 'expected_type')
        if cfg['expected_type'] == 'cached' and not (r.status == 304 and served_num is None):
            check(setup, served_num is not None and served_num < n, f'Response {n} does not come from cache')
        if cfg['expected_type'] == 'not_cached':
            check(setup, served_num == n, f'Response {n} comes from cache')
    if 'expected_status' in cfg:
        if cfg['expected_status'] is not None:
            check(is_setup(cfg, 'expected_status'), r.status == cfg['expected_status'],
                  f'Response {n} status is {r.status}, not {cfg["expected_status"]}')
    elif 'response_status' in cfg:
        check(True, r.status == cfg['response_status'][0], f'Response {n} status is {r.status}, not {cfg["response_status"][0]}')
    elif r.status == 999:
        check(is_setup(cfg, 'expected_type'), False, f'Request {n} should have been conditional, but it was not.')
    else:
        check(True, r.status == 200, f'Response {n} status is {r.status}, not 200')
    setup = is_setup(cfg, 'expected_response_headers')
    for h in cfg.get('expected_response_headers', []):
        if isinstance(h, str):
            check(setup, r.has(h), f'Response {n} {h} header not present.')
        elif len(h) > 2:
            check(setup, r.has(h[0]), f'Response {n} {h[0]} header not present.')
            value = r.get(h[0])
            try:
                bigger = int(value) > h[2]
            except (TypeError, ValueError):
                bigger = False
            check(setup, bigger, f'Response {n} header {h[0]} is {value}, should be bigger than {h[2]}')
        else:
            expected = h[1]
            if h[0].lower() in DATE_HEADERS and isinstance(expected, int):
                expected = http_date(int(r.get('Server-Now') or 0), expected, h[0].lower() in cfg.get('rfc850date', []))
            check(setup, r.get(h[0]) == expected, f'Response {n} header {h[0]} is "{r.get(h[0])}", not "{expected}"')
    setup = is_setup(cfg, 'expected_response_headers_missing')
    for h in cfg.get('expected_response_headers_missing', []):
        # A [name, value] pair is checked by the suite against response.headers[name], which a
        # fetch() Headers object never has: it never fails there, nor here.
        if isinstance(h, str):
            check(setup, not r.has(h), f'Response {n} includes unexpected header {h}: "{r.get(h)}"')
    if cfg.get('check_body') is False:
        return
    body = r.body.decode('utf-8', 'replace')
    if 'expected_response_text' in cfg:
        if cfg['expected_response_text'] is not None:
            check(is_setup(cfg, 'expected_response_text'), body == cfg['expected_response_text'],
                  f'Response body is "{body[:80]}", not "{cfg["expected_response_text"]}"')
    elif cfg.get('response_body') is not None:
        check(True, body == cfg['response_body'], f'Response body is "{body[:80]}", not "{cfg["response_body"]}"')
    elif r.status not in NO_BODY and cfg.get('request_method') != 'HEAD':
        check(True, body == uid, f'Response body is "{body[:80]}", not "{uid}"')


def check_origin_record(requests, responses, record):
    seen = 0
    for i, cfg in enumerate(requests):
        n, r = i + 1, responses[i]
        got = record[seen] if seen < len(record) else None
        setup = is_setup(cfg, 'expected_type')
        expected = cfg.get('expected_type')
        if expected == 'cached':
            continue
        if expected == 'not_cached':
            check(setup, got is not None and got['request_num'] == n,
                  f'Response {n} comes from cache ({got and got["request_num"]} on server)')
        validators = {'etag_validated': ['if-none-match'], 'lm_validated': ['if-modified-since']}.get(expected, [])
        seen += 1
        for v in validators:
            check(setup, got is not None, f"request {n} wasn't sent to server")
            check(setup, v in got['request_headers'], f"request {n} doesn't have {v} header")
        setup_headers = is_setup(cfg, 'expected_request_headers')
        for h in cfg.get('expected_request_headers', []):
            sent = got['request_headers'] if got else {}
            if isinstance(h, str):
                check(setup_headers, h.lower() in sent, f'Request {n} {h} header not present.')
            else:
                check(setup_headers, sent.get(h[0].lower()) == h[1], f'Request {n} header {h[0]} is "{sent.get(h[0].lower())}", not "{h[1]}"')
        setup_missing = is_setup(cfg, 'expected_request_headers_missing')
        for h in cfg.get('expected_request_headers_missing', []):
            sent = got['request_headers'] if got else {}
            if isinstance(h, str):
                check(setup_missing, h.lower() not in sent, f'Request {n} {h} header present.')
            else:
                check(setup_missing, sent.get(h[0].lower()) != h[1], f'Request {n} header {h[0]} is "{h[1]}"')
        for name, value in (got or {}).get('response_headers', []):
            if name.lower() in ('date', 'set-cookie', 'set-cookie2'):
                continue  # the suite's skipResponseHeaders, and what fetch() hides
            check(True, r.get(name) == value, f'Response {n} header {name} is "{r.get(name)}", not "{value}"')
        if 'expected_method' in cfg:
            check(is_setup(cfg, 'expected_method'), got is not None and got['request_method'] == cfg['expected_method'],
                  f'Request {n} had method {got and got["request_method"]}, not {cfg["expected_method"]}')


def main():
    swurl, suite_path, out_path = sys.argv[1:4]
    only = set(filter(None, (sys.argv[4] if len(sys.argv) > 4 else '').split(',')))
    suite = json.load(open(suite_path))
    tests = {t['id']: t for group in suite for t in group['tests']}
    selected = [t for t in tests.values() if t['run'] and (not only or t['id'] in only)]
    server = ThreadingHTTPServer(('127.0.0.1', 0), Origin)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f'http://127.0.0.1:{server.server_address[1]}'
    results = {}
    with ThreadPoolExecutor(8) as pool:
        for tid, result, message, runs in pool.map(lambda t: run_test(swurl, base, t), selected):
            results[tid] = {'kind': tests[tid]['kind'], 'result': result, 'message': message, 'runs': runs}
    for t in tests.values():
        if not t['run']:
            results[t['id']] = {'kind': t['kind'], 'result': 'skipped', 'message': t['skip']}
    json.dump(results, open(out_path, 'w'), indent=1)
    counts = collections.Counter()
    for tid, r in sorted(results.items(), key=lambda x: (x[1]['kind'], x[1]['result'], x[0])):
        counts[(r['result'], r['kind'])] += 1
        failed_deps = [d for d in tests[tid].get('depends_on', []) if results.get(d, {}).get('result') != 'pass']
        note = f' (depends on {", ".join(failed_deps)}, not passed)' if failed_deps and r['result'] in ('fail', 'setup') else ''
        print(f'{r["kind"]:8} {r["result"]:7} {tid}{note} {r["message"]}'.rstrip())
    kinds = ['required', 'optimal', 'check']
    print('\n' + ' ' * 8 + ''.join(f'{k:>10}' for k in kinds))
    for result in ['pass', 'fail', 'setup', 'skipped']:
        print(f'{result:8}' + ''.join(f'{counts[(result, k)]:>10}' for k in kinds))


if __name__ == '__main__':
    main()
