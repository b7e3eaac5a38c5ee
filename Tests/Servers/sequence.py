#!/usr/bin/env python3
"""Answers the Nth request with the Nth scripted reply, byte for byte, then closes the connection
(Tests/Support/SequenceServer.swift). After the last reply it repeats the last one.

Usage: sequence.py PORT PLAN LOG
PORT 0 picks a free port; the port listened on is printed on the first line.

PLAN is a JSON list of {"head": BASE64, "body": BASE64, "hold": SECONDS}; every request head is
appended to LOG as a JSON string.
"""
import base64, json, socket, sys, time
plan = json.load(open(sys.argv[2])); log = sys.argv[3]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(8)
print(s.getsockname()[1], flush=True)
n = 0
while True:
    c, _ = s.accept()
    c.settimeout(5)
    data = b''
    try:
        while b'\r\n\r\n' not in data:
            d = c.recv(65536)
            if not d: break
            data += d
    except Exception:
        pass
    if b'\r\n\r\n' not in data:
        c.close(); continue
    with open(log, 'a') as f:
        f.write(json.dumps(data.split(b'\r\n\r\n')[0].decode('latin-1')) + '\n')
    r = plan[min(n, len(plan) - 1)]; n += 1
    try:
        c.sendall(base64.b64decode(r['head']) + base64.b64decode(r['body']))
        if r['hold']: time.sleep(r['hold'])
        c.shutdown(socket.SHUT_RDWR)
    except Exception:
        pass
    c.close()
