#!/usr/bin/env python3
"""The same scripted cache cases through swurl --cache and through Python's requests with the
CacheControl library (pinned in Tests/requirements.txt), against cache_origin.py on 127.0.0.1;
prints which cases each client answered from its cache (docs/cache.md has the table).

Each case is a list of steps; the last step is judged by what the origin received for it:
`cache` (no request arrived), `304` (a conditional request arrived: the stored body was
revalidated) or `network` (a plain request arrived).

Usage: cache_compare.py SWURL [--json] [--swurl-only]
  --json        one JSON object {case: {client: outcome}} instead of the Markdown table
  --swurl-only  only swurl's column (CacheTests runs this, without importing CacheControl)
"""
import json, os, select, subprocess, sys, tempfile, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
Q = lambda s: urllib.parse.quote(s, safe='')

# (name, [(method, path, headers)]): the origin scripts each response from its query string.
CASES = [
    ('max-age=60', [('GET', '/a?cc=' + Q('max-age=60'), {})] * 2),
    ('Expires 60 s after Date', [('GET', '/b?exp=60', {})] * 2),
    ('Last-Modified 10 h ago, no explicit freshness (heuristic)', [('GET', '/c?lm=-36000', {})] * 2),
    ('ETag, no-cache', [('GET', '/d?cc=no-cache&etag=' + Q('"v1"'), {})] * 2),
    ('ETag, max-age=0', [('GET', '/e?cc=' + Q('max-age=0') + '&etag=' + Q('"v1"'), {})] * 2),
    ('no-store', [('GET', '/f?cc=no-store', {})] * 2),
    ('no-cache, no validator', [('GET', '/g?cc=no-cache', {})] * 2),
    ('Vary: Accept-Language, same value', [('GET', '/h?cc=' + Q('max-age=60') + '&vary=Accept-Language',
                                            {'Accept-Language': 'en'})] * 2),
    ('Vary: Accept-Language, other value', [('GET', '/i?cc=' + Q('max-age=60') + '&vary=Accept-Language', {'Accept-Language': 'en'}),
                                            ('GET', '/i?cc=' + Q('max-age=60') + '&vary=Accept-Language', {'Accept-Language': 'fr'})]),
    ('POST to the URL between two GETs', [('GET', '/j?cc=' + Q('max-age=60'), {}), ('POST', '/j?cc=' + Q('max-age=60'), {}),
                                          ('GET', '/j?cc=' + Q('max-age=60'), {})]),
    ('request Cache-Control: no-cache', [('GET', '/k?cc=' + Q('max-age=60'), {}),
                                         ('GET', '/k?cc=' + Q('max-age=60'), {'Cache-Control': 'no-cache'})]),
    ('status 404, max-age=60', [('GET', '/l?status=404&cc=' + Q('max-age=60'), {})] * 2),
]


def requests_for(log, path):
    """The origin's logged requests for `path` (without its query)."""
    out = []
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                r = json.loads(line)
                if r['path'].split('?')[0] == path:
                    out.append(r)
    return out


def judge(log, path, before):
    after = requests_for(log, path)
    if len(after) == before:
        return 'cache'
    last = {k.lower(): v for k, v in after[-1]['headers'].items()}
    return '304' if 'if-none-match' in last or 'if-modified-since' in last else 'network'


def run_swurl(swurl, base, steps, cache_dir, log):
    """Judges the last step as judge() does; a step served from the cache must also exit and
    print exactly as the last step of that path that reached the origin did, else 'error'."""
    fetched = {}
    for i, (method, path, headers) in enumerate(steps):
        key = path.split('?')[0]
        before = len(requests_for(log, key))
        args = [swurl, '--print=b', '--cache=' + cache_dir]
        if method != 'GET':
            args.append(method)
        args.append(base + path)
        args += ['%s:%s' % kv for kv in headers.items()]
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        verdict = judge(log, key, before)
        if verdict == 'cache' and fetched.get(key) != (r.returncode, r.stdout):
            return 'error (exit %d, %d bytes: not what the network gave)' % (r.returncode, len(r.stdout))
        if verdict != 'cache' and method == 'GET':
            fetched[key] = (r.returncode, r.stdout)
    return verdict


def run_cachecontrol(session, base, steps, log):
    for method, path, headers in steps:
        before = len(requests_for(log, path.split('?')[0]))
        session.request(method, base + path, headers=headers).content
    return judge(log, path.split('?')[0], before)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) != 1:
        sys.exit(__doc__)
    swurl = args[0]
    swurl_only = '--swurl-only' in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'origin.log')
        # The origin binds port 0 itself and prints the port it got once it listens (no other
        # test's server can take a port between choosing and binding it).
        origin = subprocess.Popen([sys.executable, os.path.join(HERE, 'cache_origin.py'), '0', log],
                                  stdout=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([origin.stdout], [], [], 60)
            line = origin.stdout.readline() if ready else ''
            if not line.strip().isdigit():
                sys.exit('cache_origin.py did not announce its port: %r' % line)
            base = 'http://127.0.0.1:%d' % int(line)
            results = {}
            if not swurl_only:
                import requests
                from cachecontrol import CacheControl
            for n, (name, steps) in enumerate(CASES):
                # Each case with its own, empty caches; CacheControl's requests under /cc paths.
                row = {'swurl': run_swurl(swurl, base, steps, os.path.join(tmp, 'swurl-%d' % n), log)}
                if not swurl_only:
                    prefixed = [(m, '/cc' + p, h) for m, p, h in steps]
                    row['CacheControl'] = run_cachecontrol(CacheControl(requests.Session()), base, prefixed, log)
                results[name] = row
        finally:
            origin.terminate()
            origin.wait()
    if '--json' in sys.argv:
        print(json.dumps(results, indent=1))
        return
    clients = ['swurl'] if swurl_only else ['swurl', 'CacheControl']
    print('| case | ' + ' | '.join(clients) + ' |')
    print('|---|' + '---|' * len(clients))
    for name, row in results.items():
        print('| %s | %s |' % (name, ' | '.join(row[c] for c in clients)))


if __name__ == '__main__':
    main()
