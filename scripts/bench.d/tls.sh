#!/usr/bin/env bash
# TLS GET of a small file from nginx on 127.0.0.1 (certificate from a private CA made here),
# whole process, swurl vs curl side by side: with --cacert (+ pin), and with the default store
# (the system CAs plus the private CA; curl parses its bundle, swurl searches a hashed directory).
# Env: SWURL, OUT (scratch dir).
set -euo pipefail
. "$(dirname "$0")/../nginx.bash"
SWURL=${SWURL:-.build/release/swurl}
OUT=${OUT:-$(mktemp -d)}
RUNS=${TLS_RUNS:-30}
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
echo "== small GET, -o /dev/null (nginx, plain http, whole process, $RUNS runs each)"
hyperfine -N -w 5 -r "$RUNS" --export-json "$dir/plain.json" \
  -n swurl "$SWURL -q $plain -o /dev/null" -n curl "curl -s $plain -o /dev/null" >/dev/null 2>&1
rss() { /usr/bin/time -f '%M' -o "$dir/rss.txt" "$@" >/dev/null 2>&1; cat "$dir/rss.txt"; }
python3 - "$dir/plain.json" "$(rss "$SWURL" -q "$plain" -o /dev/null)" "$(rss curl -s "$plain" -o /dev/null)" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
s, c = r["swurl"], r["curl"]
for name, x, kb in [("swurl", s, sys.argv[2]), ("curl", c, sys.argv[3])]:
    print(f"  {name:7s} median {x['median']*1000:6.2f} ms  user {x['user']*1000:5.2f} ms  sys {x['system']*1000:5.2f} ms  peak RSS {int(kb)/1024:5.1f} MB")
print(f"  ratio swurl/curl: wall {s['median']/c['median']:5.2f}x, cpu {(s['user']+s['system'])/(c['user']+c['system']):5.2f}x (target <= 1.05x)")
PY

echo "== TLS GET, small file (nginx, whole process, $RUNS runs each)"
hyperfine -N -w 3 -r "$RUNS" --export-json "$dir/tls.json" \
  -n "swurl --cacert" "$SWURL -q --cacert $dir/ca.pem $url" \
  -n "curl --cacert" "curl -s --cacert $dir/ca.pem $url" \
  -n "swurl --cacert +pin" "$SWURL -q --cacert $dir/ca.pem --pin-pubkey $pin $url" \
  -n "curl --cacert +pin" "curl -s --cacert $dir/ca.pem --pinnedpubkey $pin $url" \
  -n "swurl default store" "${sw_default[*]} -q $url" \
  -n "curl default store" "${curl_default[*]} -s $url" \
  -n "swurl default +pin" "${sw_default[*]} -q --pin-pubkey $pin $url" \
  -n "curl default +pin" "${curl_default[*]} -s --pinnedpubkey $pin $url" >/dev/null 2>&1
s_rss=$(rss "$SWURL" -q --cacert "$dir/ca.pem" "$url"); c_rss=$(rss curl -s --cacert "$dir/ca.pem" "$url")
kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
python3 - "$dir/tls.json" "$s_rss" "$c_rss" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
print(f"  peak RSS with --cacert: swurl {int(sys.argv[2])/1024:5.1f} MB, curl {int(sys.argv[3])/1024:5.1f} MB")
for case in ["--cacert", "--cacert +pin", "default store", "default +pin"]:
    s, c = r["swurl " + case], r["curl " + case]
    print(f"  {case:14s} swurl median {s['median']*1000:6.2f} ms   curl {c['median']*1000:6.2f} ms"
          f"   ratio swurl/curl {s['median']/c['median']:5.2f}x (target <= 1.0x)")
PY
