#!/usr/bin/env bash
# A 1 GiB download from nginx (sendfile, 127.0.0.1) to a file (swurl --download vs curl -o),
# then to stdout -> /dev/null (swurl vs curl).
# Throughput as a ratio to curl, and peak RSS from /usr/bin/time. Env: SWURL, OUT (scratch dir).
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
N=${DOWNLOAD_RUNS:-6}
dir="$OUT/nginx-download"
mkdir -p "$dir/www" "$dir/tmp" "$dir/logs"
# The downloads land in memory (tmpfs) when there is one: on this VM, writeback to the disk
# swings a 1 GiB file-write by 2x between runs and would measure the disk, not the client.
dl_root=/dev/shm
[ -d "$dl_root" ] && [ -w "$dl_root" ] || dl_root=$dir
dl=$(mktemp -d "$dl_root/swurl-bench-XXXXXX")
# Stop this row's nginx and free the tmpfs on any exit, also when the row runs on its own.
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dl"' EXIT
ln -sfn "$dl" "$dir/dl"
truncate -s 1G "$dir/www/1g.bin"   # sparse: the page cache serves it, the disk is not the bottleneck
nport=$(free_port)
start_nginx "$dir" download 64 "    access_log off;
    sendfile on;
    server { listen 127.0.0.1:$nport; root $dir/www; }"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$nport/" && break; sleep 0.1; done
url="http://127.0.0.1:$nport/1g.bin"

# One timed run; leaves "seconds peak_rss_kb" in $dir/time.txt.
run() {
  rm -f "$dl/"*
  sleep 0.5
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" "$@" >/dev/null 2>"$dir/stderr.txt" || { cat "$dir/stderr.txt" >&2; exit 1; }
  [ "$(stat -c %s "$dl/1g.bin")" = 1073741824 ] || { echo "incomplete download: $*" >&2; exit 1; }
}

echo "== 1 GiB download to a file (nginx, $N runs each, taking turns to go first)"
code=$(curl -s -o /dev/null -w "%{http_code}" -r 0-0 "$url"); [ "$code" = 206 ] || { echo "nginx answers $code" >&2; exit 1; }
s_times=(); c_times=(); s_rss=0; c_rss=0
swurl_run() {
  run "$SWURL" -q -d -o "$dl/1g.bin" "$url"; read -r t m < "$dir/time.txt"
  s_times+=("$t"); if [ "$m" -gt "$s_rss" ]; then s_rss=$m; fi
}
curl_run() {
  run curl -s -o "$dl/1g.bin" "$url"; read -r t m < "$dir/time.txt"
  c_times+=("$t"); if [ "$m" -gt "$c_rss" ]; then c_rss=$m; fi
}
# The run right after a 1 GiB file was deleted pays for the freed pages: take turns going first.
for i in $(seq "$N"); do
  if [ $((i % 2)) = 1 ]; then swurl_run; curl_run; else curl_run; swurl_run; fi
done
report() { # target, swurl RSS, curl RSS, swurl times, curl times
python3 - "$@" <<'PY'
import statistics, sys
target = sys.argv[1]
s_rss, c_rss = int(sys.argv[2]), int(sys.argv[3])
s = statistics.median(map(float, sys.argv[4].split())); c = statistics.median(map(float, sys.argv[5].split()))
gib = 1.0
print(f"  swurl   median {s:6.2f} s  {gib/s*1024:7.0f} MiB/s  peak RSS {s_rss/1024:5.1f} MB")
print(f"  curl    median {c:6.2f} s  {gib/c*1024:7.0f} MiB/s  peak RSS {c_rss/1024:5.1f} MB")
print(f"  throughput ratio swurl/curl {c/s:5.2f}x (target >= {target}); swurl RSS target < 30 MB")
PY
}
report 0.95x "$s_rss" "$c_rss" "${s_times[*]}" "${c_times[*]}"

# The same file to stdout, which goes to /dev/null: the receive path alone (libcurl's buffer
# size, callbacks, write(2) calls), no file system.
M=${STDOUT_RUNS:-10}
echo "== 1 GiB download to stdout -> /dev/null (nginx, $M runs each, taking turns to go first)"
stdout_run() { # times-array-name rss-var-name command...
  local -n times=$1 peak=$2; shift 2
  /usr/bin/time -f '%e %M' -o "$dir/time.txt" "$@" >/dev/null 2>"$dir/stderr.txt" || { cat "$dir/stderr.txt" >&2; exit 1; }
  read -r t m < "$dir/time.txt"
  times+=("$t"); if [ "$m" -gt "$peak" ]; then peak=$m; fi
}
so_s=(); so_c=(); so_s_rss=0; so_c_rss=0
for i in $(seq "$M"); do
  if [ $((i % 2)) = 1 ]; then
    stdout_run so_s so_s_rss "$SWURL" -q "$url"; stdout_run so_c so_c_rss curl -s "$url"
  else
    stdout_run so_c so_c_rss curl -s "$url"; stdout_run so_s so_s_rss "$SWURL" -q "$url"
  fi
done
kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
report 1.0x "$so_s_rss" "$so_c_rss" "${so_s[*]}" "${so_c[*]}"
