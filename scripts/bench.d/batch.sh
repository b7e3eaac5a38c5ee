#!/usr/bin/env bash
# 1000 small GETs from nginx on 127.0.0.1 in one process: swurl batch (libcurl multi) vs
# curl --parallel -K, with 16 at once and with 1 (one keep-alive connection; also against curl -K
# in its sequential mode), all taking turns; then 100,000 lines through swurl batch. Reports
# requests/s, peak RSS and the connections nginx saw; and the same with --report and --junit.
# Env: SWURL, OUT (scratch dir), BATCH_RUNS.
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
RUNS=${BATCH_RUNS:-20}
dir="$OUT/nginx-batch"
mkdir -p "$dir/www" "$dir/tmp" "$dir/logs"
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
echo "hello from nginx" > "$dir/www/small.txt"
nport=$(free_port)
start_nginx "$dir" batch 512 "    log_format conn '\$connection';
    access_log $dir/logs/access.log conn;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$nport; root $dir/www; }"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$nport/small.txt" && break; sleep 0.1; done

url="http://127.0.0.1:$nport/small.txt"
for i in $(seq 1000); do echo "$url"; done > "$dir/urls"
for i in $(seq 1000); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done > "$dir/curl.K"

for p in 16 1; do
  echo "== 1000 small GETs, $p at once (whole process, $RUNS runs each taking turns)"
  if [ "$p" = 1 ]; then
    # --parallel 1 against both of curl's ways to run a -K file one at a time: its sequential mode
    # (the issue's "curl sequential") and its multi interface limited to one transfer.
    python3 scripts/bench-turns.py "$RUNS" 2 1000 \
      "swurl=$SWURL batch $dir/urls -q --parallel 1" \
      "curl --parallel-max 1=curl -s --parallel --parallel-max 1 -K $dir/curl.K" \
      "curl sequential=curl -s -K $dir/curl.K"
  else
    python3 scripts/bench-turns.py "$RUNS" 2 1000 \
      "swurl=$SWURL batch $dir/urls -q --parallel $p" \
      "curl=curl -s --parallel --parallel-max $p -K $dir/curl.K"
  fi
  for tool in swurl curl; do
    : > "$dir/logs/access.log"; kill -USR1 "$(cat "$dir/nginx.pid")"; sleep 0.2
    if [ $tool = swurl ]; then cmd=("$SWURL" batch "$dir/urls" -q --parallel "$p")
    else cmd=(curl -s --parallel --parallel-max "$p" -K "$dir/curl.K"); fi
    rss=$( { /usr/bin/time -f '%M' "${cmd[@]}" >/dev/null; } 2>&1 | tail -1)
    sleep 0.3; kill -USR1 "$(cat "$dir/nginx.pid")"; sleep 0.3
    conns=$(sort -u "$dir/logs/access.log" | grep -c . || true)
    echo "  $tool: peak RSS ${rss} KiB, connections seen by nginx: $conns"
  done
done

# What --report and --junit cost: the same batch with and without them, taking turns.
echo "== 1000 small GETs, 16 at once, with and without --report FILE.html --junit FILE ($RUNS runs each taking turns)"
python3 scripts/bench-turns.py "$RUNS" 2 1000 \
  "swurl --report --junit=$SWURL batch $dir/urls -q --report $dir/report.html --junit $dir/junit.xml" \
  "swurl=$SWURL batch $dir/urls -q"

echo "== 100,000 lines, swurl batch --parallel 16"
for i in $(seq 100); do cat "$dir/urls"; done > "$dir/urls100k"
start=$(date +%s.%N)
rss=$( { /usr/bin/time -f '%M' "$SWURL" batch "$dir/urls100k" -q --parallel 16 >/dev/null; } 2>&1 | tail -1)
end=$(date +%s.%N)
python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); print(f'  swurl: {t:.2f} s, {100000/t:.0f} req/s, peak RSS {sys.argv[3]} KiB')" "$start" "$end" "$rss"
start=$(date +%s.%N)
rss=$( { /usr/bin/time -f '%M' "$SWURL" batch "$dir/urls100k" -q --parallel 16 --report "$dir/report100k.html" --junit "$dir/junit100k.xml" >/dev/null; } 2>&1 | tail -1)
end=$(date +%s.%N)
python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); print(f'  swurl --report --junit: {t:.2f} s, {100000/t:.0f} req/s, peak RSS {sys.argv[3]} KiB')" "$start" "$end" "$rss"
