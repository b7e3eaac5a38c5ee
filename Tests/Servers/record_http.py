"""An HTTP/1.1 server that records every request it receives, byte for byte, and answers at once.

    python3 record_http.py PORT LOG

Each request is appended to LOG as one JSON line {"raw": BASE64} (request line, header lines and
the body as it came, chunked framing included). Requests to /redirect?to=URL get a 302 to URL;
/status/N answers N; /http10 answers in HTTP/1.0 with `Connection: keep-alive`; /set-cookie?N=V
sets the cookie N=V; /latin1 is text in ISO-8859-1 (`café`), /gzip gzip-coded text; anything else
200 with a small JSON body. Keep-alive is honoured, so a client's connection reuse is never
slowed by a server waiting for the connection to close.
Bound to 127.0.0.1 only. PORT 0 picks a free port; the chosen port is printed on the first line.
"""
import base64, gzip, json, socket, sys, threading, urllib.parse


def read_request(f):
    """The raw bytes of one request from the buffered socket file, or None at the end."""
    line = f.readline(1 << 20)
    while line in (b"\r\n", b"\n"):
        line = f.readline(1 << 20)
    if not line:
        return None
    raw = line
    headers = {}
    while True:
        h = f.readline(1 << 20)
        if not h:
            return raw
        raw += h
        if h in (b"\r\n", b"\n"):
            break
        name, _, value = h.partition(b":")
        headers[name.strip().lower()] = value.strip()
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        while True:
            size_line = f.readline(1 << 20)
            raw += size_line
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:
                    trailer = f.readline(1 << 20)
                    raw += trailer
                    if trailer in (b"\r\n", b"\n", b""):
                        break
                break
            raw += f.read(size + 2)
    elif b"content-length" in headers:
        raw += f.read(int(headers[b"content-length"]))
    return raw


def answer(raw):
    target = raw.split(b"\r\n", 1)[0].split(b" ")
    path = target[1].decode("latin-1") if len(target) > 1 else "/"
    url = urllib.parse.urlsplit(path)
    query = urllib.parse.parse_qs(url.query)
    if url.path == "/redirect" and "to" in query:
        return b"HTTP/1.1 302 Found\r\nLocation: " + query["to"][0].encode("latin-1") + b"\r\nContent-Length: 0\r\n\r\n"
    if url.path == "/http10":
        return b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nok\n"
    if url.path == "/latin1":
        return b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Length: 5\r\n\r\ncaf\xe9!"
    if url.path == "/gzip":
        coded = gzip.compress(b"hello text " * 5)
        return (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: "
                + str(len(coded)).encode() + b"\r\n\r\n" + coded)
    if url.path == "/set-cookie":
        cookies = b"".join(b"Set-Cookie: " + k.encode("latin-1") + b"=" + v[0].encode("latin-1") + b"; Path=/\r\n"
                           for k, v in query.items())
        return b"HTTP/1.1 200 OK\r\n" + cookies + b"Content-Length: 0\r\n\r\n"
    if url.path.startswith("/status/"):
        code = url.path[len("/status/"):]
        return b"HTTP/1.1 " + code.encode() + b" Status\r\nContent-Length: 0\r\n\r\n"
    body = b'{"ok": true}'
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def serve(conn, log, lock):
    f = conn.makefile("rb")
    try:
        while True:
            raw = read_request(f)
            if raw is None:
                break
            with lock:
                with open(log, "a") as out:
                    out.write(json.dumps({"raw": base64.b64encode(raw).decode()}) + "\n")
            head = raw.split(b"\r\n\r\n", 1)[0].lower()
            if b"expect: 100-continue" in head:
                pass  # the body was read already: curl sends it after a short wait
            conn.sendall(answer(raw))
            if b"\r\nconnection: close" in head:
                break
    except (ConnectionError, ValueError):
        pass
    finally:
        conn.close()


def main():
    port, log = int(sys.argv[1]), sys.argv[2]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    print(s.getsockname()[1], flush=True)
    lock = threading.Lock()
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, log, lock), daemon=True).start()


if __name__ == "__main__":
    main()
