#!/usr/bin/env bash
# Pretty-printing a 100 MB JSON body with colours into a file: swurl (streaming formatter) beside
# `jq .` and `jq -C .` (reading the same file from disk, so jq pays no network) and HTTPie when installed.
# Wall time and peak RSS (/usr/bin/time -f %M), as ratios to swurl. Env: SWURL, OUT (from scripts/bench).
# JSON_MB changes the size. HTTPie needs minutes and gigabytes for 100 MB, so it formats a
# HTTPIE_MB (default 10) MB body instead and its ratio compares throughput (MB/s); HTTPIE_TIMEOUT
# (default 300 s) caps it.
set -euo pipefail
MB=${JSON_MB:-100}
HTTPIE=${HTTPIE:-.build/httpie/bin/http}
dir="$OUT/json-format"
mkdir -p "$dir"
HTTPIE_MB=${HTTPIE_MB:-10}
python3 "$(dirname "$0")/json-gen.py" "$dir/big.json" "$MB"
[ -x "$HTTPIE" ] && python3 "$(dirname "$0")/json-gen.py" "$dir/small.json" "$HTTPIE_MB"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >/dev/null 2>&1 &
echo $! > "$OUT/json-http.pid"
url="http://127.0.0.1:$port/big.json"
for _ in $(seq 100); do curl -s -o /dev/null "$url" && break; sleep 0.1; done

measure() {  # name, command...; prints "seconds kilobytes": the median of 3 runs (1 for slow tools), the largest RSS
  local name=$1; shift
  local runs=3; [ "$name" = httpie ] && runs=1
  local times="" rss=0
  for _ in $(seq $runs); do
    /usr/bin/time -o "$dir/time" -f "%e %M" "$@" > "$dir/$name.out" 2>/dev/null || true
    local t; t=$(tail -1 "$dir/time")
    times="$times ${t%% *}"; [ "${t##* }" -gt "$rss" ] && rss=${t##* }
  done
  echo "$(python3 -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" $times) $rss"
}

echo "== pretty-print a ${MB} MB JSON body with colours into a file"
declare -A result
result[swurl]=$(measure swurl "$SWURL" --pretty=all "$url")
# The floor under swurl's time: writing the same output bytes to a file with nothing else to do
# (dd from the page cache, the background writer's 256 KiB blocks), median of 3.
out_mb=$(( $(stat -c %s "$dir/swurl.out") / 1000000 ))
floor=$(measure floor dd if="$dir/swurl.out" of="$dir/floor.copy" bs=256K)
rm -f "$dir/floor.copy" "$dir/floor.out"
if command -v jq >/dev/null; then
  result[jq]=$(measure jq jq . "$dir/big.json")
  result[jq-C]=$(measure jq-C jq -C . "$dir/big.json")
fi
if [ -x "$HTTPIE" ]; then
  mkdir -p "$dir/httpie"; echo '{"disable_update_warnings": true}' > "$dir/httpie/config.json"
  result[httpie]=$(HTTPIE_CONFIG_DIR="$dir/httpie" measure httpie timeout "${HTTPIE_TIMEOUT:-300}" "$HTTPIE" --ignore-stdin --pretty=all --print=b "${url%big.json}small.json")
fi
read -r sw_t sw_m <<< "${result[swurl]}"
for name in swurl jq jq-C httpie; do
  [ -n "${result[$name]:-}" ] || continue
  read -r t m <<< "${result[$name]}"
  size=$MB; note=""
  if [ "$name" = httpie ]; then
    size=$HTTPIE_MB; note="  (${HTTPIE_MB} MB body; time ratio by MB/s)"
    if awk -v a="$t" -v b="${HTTPIE_TIMEOUT:-300}" 'BEGIN{exit !(a>=b)}'; then note="$note (killed at the timeout)"; fi
  fi
  awk -v n="$name" -v t="$t" -v m="$m" -v st="$sw_t" -v sm="$sw_m" -v mb="$size" -v smb="$MB" -v note="$note" 'BEGIN{
    printf "  %-7s %7.2f s  %8.1f MB RSS  %7.1f MB/s   time %6.1fx swurl   RSS %6.1fx swurl%s\n", n, t, m/1024, mb/t, (smb/st)/(mb/t), m/sm, note }'
done
if [ -n "${result[jq]:-}" ]; then
  awk -v st="$sw_t" -v sm="$sw_m" -v jt="${result[jq]%% *}" 'BEGIN{
    printf "  target: swurl >= 50x faster than jq . (now %.1fx), < 20 MB RSS (now %.1f MB)\n", jt/st, sm/1024 }'
fi
echo "  floor: writing swurl's ${out_mb} MB of output alone takes ${floor%% *} s (dd, 256 KiB blocks, median of 3)"
