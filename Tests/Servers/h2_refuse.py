#!/usr/bin/env python3
"""An HTTP/2 server over TLS that refuses a stream whose body has not begun to arrive
(BatchTests: a request libcurl sends again must carry its whole body).

Usage: h2_refuse.py PORT CHAIN KEY
PORT 0 picks a free port; the port listened on is printed on the first line.

Once, on the first connection that has two streams open, it waits 0.3 s and resets with
REFUSED_STREAM each stream none of whose DATA came (the other took the connection's 64 KiB
window: the refused one's client has read its body's first block and sent none of it). Every
stream that ends is answered 200 with `received N of CONTENT-LENGTH`, N the DATA bytes that came.
Each refusal is logged on stdout as `refused stream ID`.
"""
import socket, ssl, sys, threading, time
import h2.config, h2.connection, h2.errors, h2.events, h2.stream

# The answer says how many bytes came; h2's own check of them would end the connection instead.
h2.stream.H2Stream._track_content_length = lambda self, length, end_stream: None

port, chain, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(chain, key)
ctx.set_alpn_protocols(['h2'])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(('127.0.0.1', port))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
refusals = [False]
lock = threading.Lock()


def serve(raw):
    try:
        s = ctx.wrap_socket(raw, server_side=True)
    except (OSError, ssl.SSLError):
        return
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    c.initiate_connection()
    s.sendall(c.data_to_send())
    received, heads = {}, {}
    while True:
        try:
            data = s.recv(65536)
        except OSError:
            return
        if not data:
            return
        for event in c.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                heads[event.stream_id] = dict(event.headers)
                received.setdefault(event.stream_id, 0)
            elif isinstance(event, h2.events.DataReceived):
                received[event.stream_id] = received.get(event.stream_id, 0) + len(event.data)
                c.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                length = heads[event.stream_id].get(b'content-length', b'?').decode()
                body = ('received %d of %s\n' % (received[event.stream_id], length)).encode()
                c.send_headers(event.stream_id, [(':status', '200'), ('content-length', str(len(body)))])
                c.send_data(event.stream_id, body, end_stream=True)
        out = c.data_to_send()
        if out:
            s.sendall(out)
        if len(heads) == 2:
            with lock:
                if refusals[0]:
                    continue
                refusals[0] = True
            time.sleep(0.3)
            for stream in list(heads):
                if received.get(stream, 0) == 0:
                    c.reset_stream(stream, h2.errors.ErrorCodes.REFUSED_STREAM)
                    print('refused stream', stream, flush=True)
            s.sendall(c.data_to_send())


while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
