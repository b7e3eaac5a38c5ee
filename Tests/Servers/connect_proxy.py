#!/usr/bin/env python3
"""A CONNECT proxy for the tests: it logs each request head it receives (CONNECT lines and
their headers) to LOG, then tunnels the bytes to 127.0.0.1:PORT-of-the-target both ways.
Anything but CONNECT gets 405. Only loopback targets are reached.

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

def handle(conn):
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
    if len(words) < 2 or words[0] != b"CONNECT":
        conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        return
    target_port = int(words[1].rsplit(b":", 1)[1])
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
