#!/usr/bin/env python3
"""A CONNECT proxy for the tests: it logs each request head it receives (CONNECT lines and
their headers) to LOG, then tunnels the bytes to 127.0.0.1:PORT-of-the-target both ways.
Anything but CONNECT gets 405. A CONNECT to the host steer.test is answered
`307 Temporary Redirect` with `Location: https://localhost:PORT/steered` (a hostile proxy's
answer; no tunnel); one to the host auth.test is answered `407 Proxy Authentication Required`
with `Proxy-Authenticate: Basic realm="proxy"`, whatever credentials came. Any request (CONNECT
or not) naming the host garbage.test is answered with bytes that are no HTTP, one naming
close.test with nothing (the connection closed). A client that speaks SOCKS5 instead (no authentication, a
CONNECT by address or name) is logged as `SOCKS5 HOST:PORT` and tunnelled the same way. Only
loopback targets are reached.

Usage: connect_proxy.py PORT LOG
PORT 0 picks a free port; the port listened on is printed on the first line.
"""
import select, socket, sys, threading

port, log_path = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()

def relay(a, b):
    try:
        while True:
            ready, _, _ = select.select([a, b], [], [], 30)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        a.close()
        b.close()

def recv_exactly(conn, n):
    data = b""
    while len(data) < n:
        more = conn.recv(n - len(data))
        if not more:
            raise OSError("closed")
        data += more
    return data

def socks5(conn):
    _, count = recv_exactly(conn, 2)
    recv_exactly(conn, count)
    conn.sendall(b"\x05\x00")
    _, command, _, kind = recv_exactly(conn, 4)
    if kind == 1:
        host = socket.inet_ntoa(recv_exactly(conn, 4))
    elif kind == 3:
        host = recv_exactly(conn, recv_exactly(conn, 1)[0]).decode("latin-1")
    else:
        host = socket.inet_ntop(socket.AF_INET6, recv_exactly(conn, 16))
    target_port = int.from_bytes(recv_exactly(conn, 2), "big")
    with lock, open(log_path, "ab") as log:
        log.write(b"SOCKS5 %s:%d\r\n\r\n" % (host.encode("latin-1"), target_port))
    if command != 1:
        conn.sendall(b"\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00")
        conn.close()
        return
    upstream = socket.create_connection(("127.0.0.1", target_port))
    conn.sendall(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
    relay(conn, upstream)

def handle(conn):
    if conn.recv(1, socket.MSG_PEEK) == b"\x05":
        try:
            socks5(conn)
        except OSError:
            conn.close()
        return
    head = b""
    while b"\r\n\r\n" not in head:
        more = conn.recv(4096)
        if not more:
            conn.close()
            return
        head += more
    head, rest = head.split(b"\r\n\r\n", 1)
    with lock, open(log_path, "ab") as log:
        log.write(head + b"\r\n\r\n")
    words = head.split(b"\r\n", 1)[0].split()
    # A broken proxy, for any request to these hosts: bytes that are no HTTP, or nothing at all.
    target = words[1] if len(words) > 1 else b""
    if b"garbage.test" in target or b"close.test" in target:
        if b"garbage.test" in target:
            conn.sendall(b"garbage, no HTTP\r\n\r\n")
        conn.close()
        return
    if len(words) < 2 or words[0] != b"CONNECT":
        conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    target_port = int(words[1].rsplit(b":", 1)[1])
    if words[1].rsplit(b":", 1)[0] == b"steer.test":
        conn.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: https://localhost:%d/steered\r\n"
                     b"Content-Length: 0\r\nConnection: close\r\n\r\n" % target_port)
        conn.close()
        return
    if words[1].rsplit(b":", 1)[0] == b"auth.test":
        conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\n"
                     b"Content-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    upstream = socket.create_connection(("127.0.0.1", target_port))
    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    if rest:
        upstream.sendall(rest)
    relay(conn, upstream)

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(64)
print(server.getsockname()[1], flush=True)
while True:
    client, _ = server.accept()
    threading.Thread(target=handle, args=(client,), daemon=True).start()
