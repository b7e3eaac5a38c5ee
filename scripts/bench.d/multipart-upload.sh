#!/usr/bin/env bash
# 1 GiB multipart upload (a sparse file) to a local sink: wall time and peak RSS, swurl vs curl -F.
set -euo pipefail
: "${SWURL:?}" "${OUT:?}"
big="$OUT/upload-1g.img"
truncate -s 1G "$big"
sinkport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$sinkport" > /dev/null 2>&1 <<'PY' &
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_POST(self):
        left = int(self.headers.get('Content-Length') or 0); n = 0
        while left:
            d = self.rfile.read(min(left, 1 << 20))
            if not d: break
            left -= len(d); n += len(d)
        body = str(n).encode()
        self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
PY
echo $! > "$OUT/sink.pid"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$sinkport/" -d x && break; sleep 0.1; done

echo "== 1 GiB multipart upload (wall time, peak RSS)"
run() { # name, command...
  local name=$1; shift
  local walls="" rss=0
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$@" > "$OUT/resp.txt"
    read -r wall kb < "$OUT/time.txt"
    walls="$walls $wall"; [ "$kb" -gt "$rss" ] && rss=$kb
  done
  echo "$name $(python3 -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" $walls) $rss" >> "$OUT/upload.txt"
}
: > "$OUT/upload.txt"
run swurl "$SWURL" --multipart POST "http://127.0.0.1:$sinkport/up" name=big "file@$big"
run curl curl -s -F name=big -F "file=@$big" -H 'Expect:' "http://127.0.0.1:$sinkport/up"
python3 - "$OUT/upload.txt" <<'PY'
import sys
rows = {l.split()[0]: (float(l.split()[1]), int(l.split()[2])) for l in open(sys.argv[1])}
cw = rows['curl'][0]
for name, (wall, kb) in rows.items():
    mbps = 1024 / wall if wall else 0
    print(f"  {name:7s} median of 3 {wall:6.2f} s  {mbps:7.0f} MiB/s  throughput ratio to curl {cw / wall:5.2f}x  peak RSS {kb / 1024:5.1f} MB")
PY
kill "$(cat "$OUT/sink.pid")" 2>/dev/null || true
rm -f "$big"
