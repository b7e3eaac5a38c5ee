#!/usr/bin/env bash
# What --har, --report and --junit cost a batch: 1000 small GETs from nginx on 127.0.0.1, swurl
# batch --parallel 16 without them, with --har (and --har --har-bodies), with --report and
# --junit, and with all three together (the target: at most 1.10x the plain batch's wall
# time), taking turns, once replacing the last run's files and once writing new ones (ext4
# makes replacing a file cost more: it writes the new one out and drops the old one's pages at
# the rename; on a file system mounted with `discard`, it also waits for the disk to discard
# the old one's blocks: so both, here and on a fresh default ext4); then 100,000 lines with
# --har and with all three for the peak RSS (the entries, test cases and rows are streamed, so
# it must stay flat).
# Env: SWURL, OUT (scratch dir), HAR_RUNS.
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
RUNS=${HAR_RUNS:-15}
dir="$OUT/nginx-har"
mkdir -p "$dir/www"
mnt="$dir/ext4"
shm="$dir/tmpfs"
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true; mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; mountpoint -q "$shm" 2>/dev/null && umount "$shm"; rm -f "$dir/ext4.img"' EXIT
echo "hello from nginx" > "$dir/www/small.txt"
nport=$(free_port)
start_nginx "$dir" har 512 "    access_log off;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$nport; root $dir/www; }"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$nport/small.txt" && break; sleep 0.1; done

url="http://127.0.0.1:$nport/small.txt"
for i in $(seq 1000); do echo "$url"; done > "$dir/urls"
mkdir -p "$dir/new"
echo "== 1000 small GETs, 16 at once, with and without --har, --report, --junit ($RUNS runs each, taking turns)"
python3 scripts/bench-turns.py "$RUNS" 2 1000 \
  "--har --har-bodies=$SWURL batch $dir/urls -q --parallel 16 --har $dir/b.har --har-bodies" \
  "--har=$SWURL batch $dir/urls -q --parallel 16 --har $dir/a.har" \
  "--report --junit=$SWURL batch $dir/urls -q --parallel 16 --report $dir/r.html --junit $dir/j.xml" \
  "all three=$SWURL batch $dir/urls -q --parallel 16 --har $dir/t.har --report $dir/t.html --junit $dir/t.xml" \
  "all three, new files=$SWURL batch $dir/urls -q --parallel 16 --har $dir/new/{turn}.har --report $dir/new/{turn}.html --junit $dir/new/{turn}.xml" \
  "plain=$SWURL batch $dir/urls -q --parallel 16"
echo "  HAR of 1000 lines: $(stat -c %s "$dir/a.har") bytes"
rm -rf "$dir/new"

# Replacing a file costs what the file system makes freeing the old one's blocks cost, and
# creating one what finding a free inode costs. The same two cases on an ext4 as Debian
# installs it (mkfs.ext4's defaults: a journal; no `discard` mount option), in an image on a
# loop device, beside whatever file system $OUT is on (the machine this was measured on has a
# root file system without a journal, mounted with `discard`: every freed block waits for the
# disk, and new files skip recently freed inodes; docs/performance.md, "Ninth round"). The
# image holds every turn's new files (about 2 MB a turn). And on a tmpfs, where writing a file
# costs only its pages in memory: what is left there is swurl's own work, the file systems'
# rows add what each charges for the same bytes.
echo "== the same, all three outputs, on $(findmnt -n -r -o FSTYPE,OPTIONS -T "$dir" 2>/dev/null || echo '?'), on a fresh default ext4 and on a tmpfs"
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null && command -v findmnt >/dev/null; then
  truncate -s "$(( (RUNS + 2) * 4 + 256 ))M" "$dir/ext4.img"
  mkfs.ext4 -q -F "$dir/ext4.img"
  mkdir -p "$mnt"
  mount -o loop "$dir/ext4.img" "$mnt"
  mkdir -p "$shm"
  mount -t tmpfs -o size=$(( (RUNS + 2) * 4 + 64 ))M swurl-bench "$shm"
  mkdir -p "$mnt/new" "$dir/new" "$shm/new"
  python3 scripts/bench-turns.py --pairs "$RUNS" 2 1000 \
    "here, replacing=$SWURL batch $dir/urls -q --parallel 16 --har $dir/t.har --report $dir/t.html --junit $dir/t.xml" \
    "plain 1=$SWURL batch $dir/urls -q --parallel 16" \
    "here, new files=$SWURL batch $dir/urls -q --parallel 16 --har $dir/new/{turn}.har --report $dir/new/{turn}.html --junit $dir/new/{turn}.xml" \
    "plain 2=$SWURL batch $dir/urls -q --parallel 16" \
    "ext4, replacing=$SWURL batch $dir/urls -q --parallel 16 --har $mnt/t.har --report $mnt/t.html --junit $mnt/t.xml" \
    "plain 3=$SWURL batch $dir/urls -q --parallel 16" \
    "ext4, new files=$SWURL batch $dir/urls -q --parallel 16 --har $mnt/new/{turn}.har --report $mnt/new/{turn}.html --junit $mnt/new/{turn}.xml" \
    "plain 4=$SWURL batch $dir/urls -q --parallel 16" \
    "tmpfs, replacing=$SWURL batch $dir/urls -q --parallel 16 --har $shm/t.har --report $shm/t.html --junit $shm/t.xml" \
    "plain 5=$SWURL batch $dir/urls -q --parallel 16" \
    "tmpfs, new files=$SWURL batch $dir/urls -q --parallel 16 --har $shm/new/{turn}.har --report $shm/new/{turn}.html --junit $shm/new/{turn}.xml" \
    "plain 6=$SWURL batch $dir/urls -q --parallel 16"
  umount "$mnt" "$shm"
  rm -f "$dir/ext4.img"
  rm -rf "$dir/new"
else
  echo "  (skipped: making and mounting an ext4 image and a tmpfs needs root, mkfs.ext4 and findmnt)"
fi

echo "== 100,000 lines, swurl batch --parallel 16, peak RSS"
for i in $(seq 100); do cat "$dir/urls"; done > "$dir/urls100k"
for extra in "" "--har $dir/c.har" "--har $dir/d.har --report $dir/d.html --junit $dir/d.xml"; do
  rss=$( { /usr/bin/time -f '%M' "$SWURL" batch "$dir/urls100k" -q --parallel 16 $extra >/dev/null; } 2>&1 | tail -1)
  echo "  swurl batch ${extra:-(plain)}: peak RSS ${rss} KiB"
done
echo "  HAR of 100,000 lines: $(stat -c %s "$dir/c.har") bytes"
