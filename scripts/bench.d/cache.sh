#!/usr/bin/env bash
# The HTTP cache (--cache) against nginx on 127.0.0.1: a fresh hit and a 304 revalidation of a
# small response, each beside swurl's own uncached GET (whole process, taking turns); a 100 MB
# body served from the cache to a file; `swurl cache list` over 10,000 entries.
# Env: SWURL, OUT (scratch dir), CACHE_RUNS.
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
RUNS=${CACHE_RUNS:-40}
dir="$OUT/nginx-cache"
mkdir -p "$dir/www/fresh" "$dir/www/revalidate" "$dir/tmp" "$dir/logs"
# Cache and output in memory when there is a tmpfs: the disk's writeback is not the cache's speed.
root=/dev/shm
[ -d "$root" ] && [ -w "$root" ] || root=$dir
scratch=$(mktemp -d "$root/swurl-cache-bench-XXXXXX")
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$scratch"' EXIT
echo "hello from nginx" > "$dir/www/fresh/small.txt"
echo "hello from nginx" > "$dir/www/revalidate/small.txt"
head -c 100000000 /dev/urandom > "$dir/www/fresh/100m.bin"
nport=$(free_port)
start_nginx "$dir" cache 256 "    access_log off;
    server { listen 127.0.0.1:$nport; root $dir/www;
      location /fresh/ { add_header Cache-Control \"max-age=3600\"; }
      location /revalidate/ { add_header Cache-Control \"no-cache\"; } }"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$nport/fresh/small.txt" && break; sleep 0.1; done
base="http://127.0.0.1:$nport"

"$SWURL" --cache="$scratch/c" "$base/fresh/small.txt" >/dev/null
"$SWURL" --cache="$scratch/c" "$base/revalidate/small.txt" >/dev/null
hit=$("$SWURL" --cache="$scratch/c" --timing=json "$base/fresh/small.txt" 2>&1 >/dev/null | grep -o '"cache":"[^"]*"')
reval=$("$SWURL" --cache="$scratch/c" --timing=json "$base/revalidate/small.txt" 2>&1 >/dev/null | grep -o '"cache":"[^"]*"')
echo "== small GET from the cache vs swurl's own uncached GET (whole process, $RUNS runs each taking turns; $hit / $reval)"
python3 scripts/bench-turns.py "$RUNS" 5 0 \
  "fresh hit=$SWURL --cache=$scratch/c $base/fresh/small.txt" \
  "304 revalidation=$SWURL --cache=$scratch/c $base/revalidate/small.txt" \
  "curl=curl -s $base/fresh/small.txt" \
  "swurl uncached=$SWURL $base/fresh/small.txt"

echo "== 100 MB body from a fresh cache entry to a file (5 runs)"
"$SWURL" -q --cache="$scratch/c" -d -o "$scratch/100m.out" "$base/fresh/100m.bin"
cmp -s "$scratch/100m.out" "$dir/www/fresh/100m.bin" || { echo "the download differs from the file" >&2; exit 1; }
best=""
for _ in 1 2 3 4 5; do
  rm -f "$scratch/100m.out"
  s=$(date +%s.%N)
  "$SWURL" -q --cache="$scratch/c" -d -o "$scratch/100m.out" "$base/fresh/100m.bin"
  e=$(date +%s.%N)
  cmp -s "$scratch/100m.out" "$dir/www/fresh/100m.bin" || { echo "the cached body differs" >&2; exit 1; }
  best=$(python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(t if not b or t<float(b) else b)" "$s" "$e" "$best")
done
python3 -c "import sys; t=float(sys.argv[1]); print(f'  swurl: best {t*1000:.1f} ms, {100/t/1000:.2f} GB/s (whole process)')" "$best"

echo "== swurl cache list over 10,000 entries (10 runs)"
for i in $(seq 10000); do echo "$base/fresh/small.txt?i=$i"; done > "$scratch/urls"
"$SWURL" --cache="$scratch/list" batch "$scratch/urls" -q --parallel 16 >/dev/null
n=$("$SWURL" cache list --cache="$scratch/list" | wc -l)
[ "$n" = 10000 ] || { echo "the cache holds $n entries, not 10000" >&2; exit 1; }
python3 scripts/bench-turns.py 10 2 0 "swurl cache list=$SWURL cache list --cache=$scratch/list" \
  "swurl cache list --json=$SWURL cache list --json --cache=$scratch/list"
