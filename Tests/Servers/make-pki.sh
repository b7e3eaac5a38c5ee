#!/bin/sh
# Makes the test PKI (all EC P-256) in the current directory: root -> int -> leaf, leaf2,
# wronghost, expired, selfsigned, evilroot -> evil, client (Tests/Support/CertificateFactory.swift
# describes each file). Usage: mkdir pki && cd pki && sh ../Tests/Servers/make-pki.sh
set -e
command -v openssl >/dev/null || { echo "openssl CLI missing: run 'make test'" >&2; exit 1; }
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
pub() { openssl x509 -in "$1.pem" -pubkey -noout > "$1.pub.pem"; }
ca_root() { # name cn
  key "$1"
  openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 3650 -out "$1.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  pub "$1"
}
signed() { # name cn issuer extfile-text
  key "$1"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 825 \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  pub "$1"
}
SERVER='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1'
ca_root root "swurl Test Root"
signed int "swurl Test Intermediate" root 'basicConstraints=critical,CA:TRUE,pathlen:0
keyUsage=critical,keyCertSign,cRLSign'
signed leaf localhost int "$SERVER"
signed leaf2 "second server" int "$SERVER"
signed wronghost wrong.example int 'basicConstraints=CA:FALSE
extendedKeyUsage=serverAuth
subjectAltName=DNS:wrong.example'
signed client "swurl client" int 'basicConstraints=CA:FALSE
extendedKeyUsage=clientAuth'
openssl pkey -in client.key -aes256 -passout pass:secret -out client-enc.key
# Expired: openssl ca sets explicit dates.
key expired
openssl req -new -key expired.key -subj "/CN=localhost" -out expired.csr 2>/dev/null
mkdir -p newcerts && : > index.txt && echo 1000 > serial
cat > ca.cnf <<EOF
[ ca ]
default_ca = here
[ here ]
dir = .
database = index.txt
new_certs_dir = newcerts
serial = serial
default_md = sha256
policy = anything
unique_subject = no
[ anything ]
commonName = supplied
[ server ]
basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
EOF
openssl ca -batch -config ca.cnf -cert int.pem -keyfile int.key -in expired.csr -out expired.pem \
  -startdate 20200101000000Z -enddate 20210101000000Z -extensions server -notext 2>/dev/null
pub expired
# Not yet valid: from 2099 (a machine whose clock is behind sees every certificate so).
key notyet
openssl req -new -key notyet.key -subj "/CN=localhost" -out notyet.csr 2>/dev/null
openssl ca -batch -config ca.cnf -cert int.pem -keyfile int.key -in notyet.csr -out notyet.pem \
  -startdate 20990101000000Z -enddate 21000101000000Z -extensions server -notext 2>/dev/null
pub notyet
# Unrelated self-signed certificate for the right names.
key selfsigned
openssl req -x509 -new -key selfsigned.key -subj "/CN=localhost" -days 365 -out selfsigned.pem \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
pub selfsigned
# Evil: a valid-looking leaf from another root.
ca_root evilroot "Evil Root"
signed evil localhost evilroot "$SERVER"
for n in leaf leaf2 wronghost expired notyet client; do cat "$n.pem" int.pem > "$n-chain.pem"; done
cat evil.pem int.pem > evil-chain.pem
cp selfsigned.pem selfsigned-chain.pem
chmod 600 *.key
