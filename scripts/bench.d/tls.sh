#!/usr/bin/env bash
# TLS GET of a small file from nginx on 127.0.0.1 (certificate from a private CA made here),
# whole process, swurl vs curl side by side: with --cacert (+ pin), and with the default store
# (the system CAs plus the private CA; curl parses its bundle, swurl searches a hashed directory).
# Env: SWURL, OUT (scratch dir).
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
RUNS=${TLS_RUNS:-50}   # start-up rows differ by a few percent; 50 turns keep the median steady
dir="$OUT/nginx-tls"
mkdir -p "$dir/www" "$dir/tmp" "$dir/logs" "$dir/store"
trap 'kill "$(cat "$dir/nginx.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
echo ok > "$dir/www/small.txt"

# A private CA and a leaf for 127.0.0.1 (EC P-256, as the tests use).
(
  cd "$dir"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
  openssl req -x509 -new -key ca.key -subj "/CN=swurl bench CA" -days 30 -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out leaf.key 2>/dev/null
  openssl req -new -key leaf.key -subj "/CN=localhost" -out leaf.csr 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > leaf.ext
  openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile leaf.ext -out leaf.pem 2>/dev/null
)
pin="sha256//$(openssl x509 -in "$dir/leaf.pem" -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)"

# The "default store" with the private CA in it, both ways: a hashed directory (the system's
# certificates linked, plus the CA, c_rehash'ed) for swurl, and the system bundle plus the CA
# for curl, which is what curl parses on every run by default.
system_dir=/etc/ssl/certs
system_bundle=/etc/ssl/certs/ca-certificates.crt
for f in "$system_dir"/*.pem; do [ -e "$f" ] && ln -sf "$f" "$dir/store/"; done
cp "$dir/ca.pem" "$dir/store/swurl-bench-ca.pem"
openssl rehash "$dir/store" 2>/dev/null
cat "$system_bundle" "$dir/ca.pem" > "$dir/bundle.pem" 2>/dev/null || cp "$dir/ca.pem" "$dir/bundle.pem"

nport=$(free_port)
hport=$(free_port)
start_nginx "$dir" tls 64 "    access_log off;
    server {
        listen 127.0.0.1:$nport ssl;
        root $dir/www;
        ssl_certificate $dir/leaf.pem;
        ssl_certificate_key $dir/leaf.key;
    }
    server {
        listen 127.0.0.1:$hport;
        root $dir/www;
    }"
url="https://127.0.0.1:$nport/small.txt"
for _ in $(seq 50); do curl -s -o /dev/null --cacert "$dir/ca.pem" "$url" && break; sleep 0.1; done

# Every command must succeed before it is timed (a failed handshake would be fast).
# swurl's default store is pointed at the hashed directory (SSL_CERT_FILE at the CA alone, so no
# bundle is read); curl's at the bundle (CURL_CA_BUNDLE, as curl(1) documents).
sw_default=(env -u CURL_CA_BUNDLE SSL_CERT_DIR="$dir/store" SSL_CERT_FILE="$dir/ca.pem" "$SWURL")
curl_default=(env -u SSL_CERT_DIR -u SSL_CERT_FILE CURL_CA_BUNDLE="$dir/bundle.pem" curl)
for cmd in "$SWURL -q --cacert $dir/ca.pem $url" "curl -s --cacert $dir/ca.pem $url" \
           "$SWURL -q --cacert $dir/ca.pem --pin-pubkey $pin $url" "curl -s --cacert $dir/ca.pem --pinnedpubkey $pin $url" \
           "${sw_default[*]} -q $url" "${curl_default[*]} -s $url" \
           "${sw_default[*]} -q --pin-pubkey $pin $url" "${curl_default[*]} -s --pinnedpubkey $pin $url"; do
  [ "$($cmd)" = ok ] || { echo "tls row: '$cmd' did not fetch the file" >&2; exit 1; }
done

plain="http://127.0.0.1:$hport/small.txt"
[ "$("$SWURL" -q "$plain")" = ok ] || { echo "small GET row: swurl did not fetch $plain" >&2; exit 1; }
echo "== small GET, -o /dev/null (nginx, plain http, whole process, $RUNS runs each taking turns)"
# "swurl, again" is the same command a second time: how far two entries of one binary land apart
# in this run is the noise that the ratio to curl has to be read against.
python3 scripts/bench-turns.py "$RUNS" 5 0 "swurl=$SWURL -q $plain -o /dev/null" "swurl, again=$SWURL -q $plain -o /dev/null" \
  "curl=curl -s $plain -o /dev/null"
rss() { /usr/bin/time -f '%M' -o "$dir/rss.txt" "$@" >/dev/null 2>&1; cat "$dir/rss.txt"; }
echo "  peak RSS: swurl $(( $(rss "$SWURL" -q "$plain" -o /dev/null) / 1024 )) MB, curl $(( $(rss curl -s "$plain" -o /dev/null) / 1024 )) MB (target: wall and cpu <= 1.05x)"

echo "== TLS GET, small file (nginx, whole process, $RUNS runs each taking turns; target <= 1.0x)"
python3 scripts/bench-turns.py "$RUNS" 3 0 "swurl --cacert=$SWURL -q --cacert $dir/ca.pem $url" \
  "swurl --cacert, again=$SWURL -q --cacert $dir/ca.pem $url" \
  "curl --cacert=curl -s --cacert $dir/ca.pem $url"
python3 scripts/bench-turns.py "$RUNS" 3 0 "swurl --cacert +pin=$SWURL -q --cacert $dir/ca.pem --pin-pubkey $pin $url" \
  "curl --cacert +pin=curl -s --cacert $dir/ca.pem --pinnedpubkey $pin $url"
python3 scripts/bench-turns.py "$RUNS" 3 0 "swurl default store=${sw_default[*]} -q $url" \
  "curl default store=${curl_default[*]} -s $url"
python3 scripts/bench-turns.py "$RUNS" 3 0 "swurl default +pin=${sw_default[*]} -q --pin-pubkey $pin $url" \
  "curl default +pin=${curl_default[*]} -s --pinnedpubkey $pin $url"
s_rss=$(rss "$SWURL" -q --cacert "$dir/ca.pem" "$url"); c_rss=$(rss curl -s --cacert "$dir/ca.pem" "$url")
kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
echo "  peak RSS with --cacert: swurl $((s_rss / 1024)) MB, curl $((c_rss / 1024)) MB"
