#!/usr/bin/env python3
"""Writes the hand-made seed inputs into Fuzz/corpus/<target>/ (run once; the files are committed).
Decoder targets read byte 0 as flags (media type, --stream, --sort-keys, --plist-as json) and
byte 1 as the chunking seed; json-formatter and terminal-sanitizer read byte 0 as the chunking seed."""
import os, struct, sys
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')

def put(target, name, data):
    d = os.path.join(root, target); os.makedirs(d, exist_ok=True)
    if isinstance(data, str): data = data.encode('utf-8', 'surrogateescape')
    open(os.path.join(d, name), 'wb').write(data)

def bplist(objects, top=0):
    """objects: list of bytes (already encoded object bodies); 1-byte refs and offsets <64K."""
    out = bytearray(b'bplist00'); offs = []
    for o in objects: offs.append(len(out)); out += o
    table = len(out); size = 2 if table > 255 else 1
    for o in offs: out += o.to_bytes(size, 'big')
    out += bytes(6) + bytes([size, 1]) + struct.pack('>QQQ', len(objects), top, table)
    return bytes(out)

def arr(refs): return bytes([0xA0 | len(refs)]) + bytes(refs)

# A shared-reference bomb: each level an array holding the next level twice.
levels = 18
bomb = bplist([arr([i + 1, i + 1]) for i in range(levels)] + [b'\x51x'])
cycle = bplist([arr([0])])
cycle2 = bplist([arr([1]), arr([0])])
simple = bplist([bytes([0xD1, 1, 2]), b'\x53key', b'\x10\x07'])
date_bp = bplist([b'\x33' + struct.pack('>d', -55_000_000_000.0)])
xml_plist = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0"><dict><key>a</key><integer>007</integer><key>d</key><date>0276-01-02T00:00:00Z</date><key>x</key><array><real>1.5</real><true/><data>AAEC</data><string>&lt;&#x1b;[31m</string></array></dict></plist>\n'
laughs = '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n<lolz>&lol3;</lolz>\n'
many_attrs = '<a ' + ' '.join('a%d="%d"' % (i, i) for i in range(3000)) + '/>'
dup_attrs = '<a x="1" y="2" x="3"/>'
deep_xml = '<a>' * 2000 + 'x' + '</a>' * 2000
xml_misc = '<?xml version="1.0"?><!-- c --><r xmlns:p="u"><p:e a=\'1\'>t&amp;&#65;&#x42;<![CDATA[<raw>]]></p:e><?pi x?></r>'
xssi = ")]}',\n" + ' ' * 24 + '{"a": [1, 2.5e10, "x\\u00e9\\ud83d\\ude00", true, null, {}]}'
deep_json = '[' * 5000 + ']' * 5000
deep_obj = '{"a":' * 3000 + '1' + '}' * 3000
json_misc = '{"k\\"ey": "\\u001b[31mred\\u0000", "n": -0.0e-7, "big": 123456789012345678901234567890, "s": "\u202e"}'
ndjson = '{"a":1}\n{"b":2}\n[3]\n'
png = b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xff\xff\xff\xff\xff\xff\xff\x08\x06\x00\x00\x00' + b'\x00' * 4
gif = b'GIF89a\xff\xff\xff\xff\x00\x00\x00;'
jpeg = b'\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xc0\x00\x11\x08\xff\xff\xff\xff\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xff\xd9'
webp = b'RIFF\x24\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff'
bmp = b'BM' + b'\x00' * 12 + struct.pack('<Iii', 40, -2147483648, -2147483648) + b'\x01\x00\x18\x00' + b'\x00' * 24
ico = b'\x00\x00\x01\x00\x01\x00\x00\x00\x00\x00\x01\x00\x20\x00' + b'\x00' * 8

put('json-parser', 'xssi', xssi); put('json-parser', 'deep-array', deep_json); put('json-parser', 'deep-object', deep_obj)
put('json-parser', 'misc', json_misc); put('json-parser', 'numbers', '[0, -1, 1e400, 1E-400, 0.000001, 18446744073709551616, ' + '9' * 2000 + ']')
put('json-parser', 'bad', '{"a":1,}'); put('json-parser', 'surrogate', '["\\ud800", "\\udc00\\ud800"]')
for name, body in [('xssi', xssi), ('deep-array', deep_json), ('deep-object', deep_obj), ('misc', json_misc), ('ndjson', ndjson), ('unclosed', '{"a": [1, 2'), ('bad', '{"a" 1}')]:
    put('json-formatter', name + '-1', b'\x01' + body.encode())
    put('json-formatter', name + '-7', b'\x07' + body.encode())
for name, body in [('array', '{"a":[1,2.5,"x",true,{"b":"c"}]}'), ('ints', '[18446744073709551615, -9223372036854775808, 9223372036854775807, 0, -0]'),
                   ('reals', '[1.0, 1e308, -2.5e-300, 0.1]'), ('strings', '["<&>", "\\u0000", "\\u001b", "\u00e9\U0001F600", ""]'), ('empty', '[[], {}, {"": ""}]'), ('dup', '{"a":1,"a":2}')]:
    put('plist-roundtrip', name, body)
put('plist-reader', 'bomb-shared', bomb); put('plist-reader', 'cycle', cycle); put('plist-reader', 'cycle2', cycle2)
put('plist-reader', 'simple', simple); put('plist-reader', 'old-date', date_bp); put('plist-reader', 'xml', xml_plist)
put('plist-reader', 'truncated', simple[:-5]); put('plist-reader', 'xml-deep', '<plist><array>' + '<array>' * 3000 + '</array>' * 3000 + '</array></plist>')
put('xml-tokenizer', 'laughs', laughs); put('xml-tokenizer', 'many-attributes', many_attrs); put('xml-tokenizer', 'duplicate-attributes', dup_attrs)
put('xml-tokenizer', 'deep', deep_xml); put('xml-tokenizer', 'misc', xml_misc); put('xml-tokenizer', 'unclosed', '<a><b></a>')
# The streaming formatter's limits and look-ahead: nesting one level past 10,000, mixed content,
# a fault after formatted items, a BOM and markup cut where chunks may split it.
deep_past = '<a>' * 10001 + '</a>' * 10001
xml_mixed = '<doc><p>Why <em>this</em>  works</p><q><r/> <!-- c --> </q><s>t</s><u></u></doc>'
xml_late_fault = '<list>' + ''.join('<i n="%d">v%d</i>' % (k, k) for k in range(200)) + '<x></y> tail'
xml_bom_split = '\ufeff<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "x">]><r a="&e;"><![CDATA[]]]]><!----></r>'
put('xml-tokenizer', 'deep-past-limit', deep_past); put('xml-tokenizer', 'mixed', xml_mixed)
for name, data in [('png', png), ('gif', gif), ('jpeg', jpeg), ('webp', webp), ('bmp', bmp), ('ico', ico), ('short-png', png[:20])]:
    put('image-headers', name, data)
    put('decoder-image', name, b'\x04\x03' + data)
for name, v in [('dot-space-bashrc', 'attachment; filename=". .bashrc"'), ('ext-gitconfig', "attachment; filename*=UTF-8''.%20.gitconfig"),
                ('dot-dotdot', 'attachment; filename=". .."'), ('spaced-dots', 'attachment; filename=" . . "'),
                ('rlo', 'attachment; filename="invoice\u202egpj.exe"'), ('traversal', 'attachment; filename="../../etc/passwd"'),
                ('both', "attachment; filename=\"a.txt\"; filename*=iso-8859-1'en'%A3%20rates.txt"), ('backslash', 'attachment; filename="..\\\\..\\\\x"'),
                ('nul', 'attachment; filename="a\x00b\x1b[31m"'), ('long', 'attachment; filename="' + 'x' * 300 + '.txt"')]:
    put('download-name', name, v)
put('netrc', 'crlf', 'machine example.com\r\nlogin user\r\npassword pw\r\n')
put('netrc', 'default', 'default login anon password x\nmachine example.com login "q u" password "a\\"b"\n')
put('netrc', 'macdef', 'macdef init\ncd /\n\nmachine example.com login u password p\n')
put('netrc', 'cr-only', 'machine example.com\rlogin u\rpassword p\r')
for name, v in [('ok', 'bytes 0-99/100'), ('star', 'bytes */100'), ('unknown-total', 'bytes 5-9/*'), ('huge', 'bytes 9223372036854775807-9223372036854775807/9223372036854775807'),
                ('overflow', 'bytes 0-99999999999999999999/1'), ('negative', 'bytes -5-3/10'), ('reversed', 'bytes 9-5/10')]:
    put('content-range', name, v)
for name, v in [('seconds', '120'), ('date', 'Sun, 06 Nov 1994 08:49:37 GMT'), ('huge', '99999999999999999999'), ('negative', '-1'),
                ('future', 'Fri, 31 Dec 9999 23:59:60 GMT'), ('bad-date', 'Sun, 32 Nov 1994 08:49:37 GMT')]:
    put('retry-after', name, v)
for name, v in [('nested', 'a[b][c]=1\na[b][d]=2\na[e][]=3'), ('big-index', 'a[100000]=x\n' * 60), ('append', 'a[][]=x\na[][]=y'),
                ('root-array', '[]=x\n[]=y'), ('unclosed', 'a[=x\na]=y'), ('mixed', 'x:=[1,2]\nh:v\nq==v\nj:={"a":1}\nf=v'),
                ('conflict', 'a=1\na[b]=2'), ('escaped', 'a\\[b\\]=1\n\\=x=y')]:
    put('request-items', name, v)
    put('form-roundtrip', name, v)
put('form-roundtrip', 'specials', 'a&b=c=d\n%41=%\nsp ace=\u00e9\U0001F600\n+=+')
for name, v in [('csi', b'\x01\x1b[31mred\x1b[0m'), ('c1', b'\x03\xc2\x9b2J'), ('raw-csi', b'\x02\x9b2J'), ('cr', b'\x05a\rb\r\nc\r'),
                ('invalid', b'\x04\xff\xfe\xe2\x82'), ('osc', b'\x01\x1b]0;title\x07'), ('nul', b'\x00a\x00b')]:
    put('terminal-sanitizer', name, v)
# Decoders: byte 0 = flags (low 3 bits media type: 0 none, 1 json, 2 xml, 3 plist, 4 png, 5 text, 6 octet-stream, 7 html;
# 0x80 --stream, 0x40 --sort-keys, 0x20 --plist-as json), byte 1 = chunking seed.
for target, kind in [('decoder-json', 1), ('decoder-auto', 0)]:
    for name, body in [('xssi', xssi), ('deep', deep_json), ('misc', json_misc), ('ndjson', ndjson), ('bad', '{"a" 1}')]:
        put(target, name, bytes([kind, 1]) + body.encode())
        put(target, name + '-sorted', bytes([kind | 0x40, 5]) + body.encode())
        put(target, name + '-stream', bytes([kind | 0x80, 3]) + body.encode())
for target, kind in [('decoder-xml', 2), ('decoder-auto', 2)]:
    for name, body in [('laughs', laughs), ('attrs', many_attrs[:20000]), ('deep', deep_xml), ('misc', xml_misc), ('bad', '<a><b></a>')]:
        put(target, 'xml-' + name, bytes([kind, 2]) + body.encode())
    for name, body in [('deep-past-limit', deep_past), ('mixed', xml_mixed), ('late-fault', xml_late_fault), ('bom-split', xml_bom_split)]:
        put(target, 'xml-' + name, bytes([kind, 3]) + body.encode())
for target, kind in [('decoder-plist', 3), ('decoder-auto', 0)]:
    for name, body in [('bomb', bomb), ('cycle', cycle), ('simple', simple), ('old-date', date_bp), ('xml', xml_plist.encode())]:
        put(target, 'plist-' + name, bytes([kind, 1]) + body)
        put(target, 'plist-' + name + '-json', bytes([kind | 0x20, 4]) + body)
for target, kind in [('decoder-text', 5), ('decoder-auto', 6)]:
    put(target, 'text-nul-second-chunk', bytes([kind, 1]) + b'hello world, this is text' + b'\x00binary')
    put(target, 'text-escapes', bytes([kind, 3]) + b'\x1b[31mred\x1b[0m \xc2\x9b \x9b\r\n\xff')
    put(target, 'text-latin1', bytes([kind, 2]) + b'caf\xe9 \xa3')
# url-plain: URLs the plain-URL fast path takes, and near misses that must go to libcurl.
for i, u in enumerate(['http://127.0.0.1:8080/small.txt', 'https://api.example.com/v1/items?x=1&y=%20z', 'http://localhost',
                       'https://example.com:8443', 'http://a-b.c0m/x/y.json?q=a.b/c?d', 'http://10.0.0.255/',
                       'http://example.com/a/../b', 'http://0x7f.0.0.1/', 'http://u:p@example.com/', 'http://example.com:080/x',
                       'http://[::1]:80/', 'http://example.com/%2e/x', 'HTTP://EXAMPLE.COM/']):
    put('url-plain', 'seed-%d' % (i + 1), u)

# curl-export: byte 0 the part count (1 + b % 3), then per part a kind byte (bit 0 file, bit 1
# value-less field / stdin file, bit 2 a type of tokens alone, else x/y and tokens, bit 3 an empty
# name stays empty, else it is `n`), then pieces: a length byte (name: % 5, else % 13; the
# type suffix % 4) and that many token indices (FuzzHarness.exportTokens:
# 0 a, 2 =, 3 ;, 4 ',', 5 ", 6 \, 7 @, 11 blank, 13 LF, 14 CR, 15 \x01, 16 DEL, 17 NUL, 19 /,
# 22 headers=@, 26 -, 27 text/plain, 28 x/y, 31 \xE9, 32 \xFF'). A field: name, value; a file:
# name, filename, path, type.
for name, seq in [('plain', [0, 1,0, 1,1,  1, 1,0, 1,0, 2,19,0, 0]),
                  ('type-headers', [5, 1,0, 1,0, 2,0,11, 3,27,3,22]),
                  ('type-comma', [1, 1,0, 1,0, 1,0, 2,4,0]),
                  ('name-equals', [0, 4,0,2,7,3, 1,1]), ('empty-name', [8, 0, 1,1]),
                  ('quotes', [1, 3,0,5,6, 5,5,6,3,4,11, 4,11,5,6,11, 0,  0, 2,5,6, 1,13]),
                  ('controls', [1, 2,0,16, 2,14,13, 2,31,32, 0,  0, 3,15,13,14, 1,0]),
                  ('nul-value', [0, 1,0, 2,0,17]),
                  ('stdin', [3, 1,0, 1,26, 0, 0]),
                  ('dash-path', [1, 1,0, 1,0, 1,26, 0]),
                  ('type-params', [1, 1,0, 1,0, 1,0, 3,3,11,24]),
                  ('blanks', [5, 1,0, 2,11,0, 2,0,11, 2,11,27,  0, 2,11,0, 2,0,11])]:
    put('curl-export', name, bytes([2] + seq))

# body-decoding: byte 0 bits 0-1 the codings (0 gzip, 1 deflate, 2 "gzip, gzip", 3 "deflate,
# x-gzip"), bits 2-7 the chunking seed (0: one-byte pieces); the rest is the body as sent.
import gzip, zlib
text = ('{"n": %d, "s": "' % 7 + 'abc' * 400 + '"}\n').encode()
def raw_deflate(b):
    c = zlib.compressobj(6, zlib.DEFLATED, -15); return c.compress(b) + c.flush()
for name, coding, seed, body in [
        ('gzip', 0, 5, gzip.compress(text, mtime=0)), ('gzip-one-byte-pieces', 0, 0, gzip.compress(text, mtime=0)),
        ('gzip-members', 0, 9, gzip.compress(text, mtime=0) + gzip.compress(b'second', mtime=0)),
        ('gzip-cut', 0, 3, gzip.compress(text, mtime=0)[:-6]), ('gzip-stray', 0, 7, gzip.compress(text, mtime=0) + b'junk'),
        ('gzip-lone-1f', 0, 2, gzip.compress(text, mtime=0) + b'\x1f'), ('gzip-empty', 0, 1, gzip.compress(b'', mtime=0)),
        ('zlib', 1, 4, zlib.compress(text)), ('raw-deflate', 1, 6, raw_deflate(text)),
        ('raw-deflate-one-byte-pieces', 1, 0, raw_deflate(text)),
        ('raw-deflate-adler32', 1, 3, raw_deflate(text) + struct.pack('>I', zlib.adler32(text))),
        ('deflate-gzip-wrapped', 1, 8, gzip.compress(text, mtime=0)), ('gzip-gzip', 2, 11, gzip.compress(gzip.compress(text, mtime=0), mtime=0)),
        ('deflate-xgzip', 3, 13, gzip.compress(zlib.compress(text), mtime=0)), ('zeros', 0, 1, bytes(64))]:
    put('body-decoding', name, bytes([coding | seed << 2]) + body)
# Raw deflate whose first two bytes pass zlib's header check (78 01), so the zlib reading goes on
# past them before it fails: the retry reads every byte seen so far again.
for name, seed in [('raw-passing-zlib-header', 3), ('raw-passing-zlib-header-one-byte-pieces', 0)]:
    put('body-decoding', name, bytes([1 | seed << 2]) + bytes([0x78, 0x01, 0x00, 0xFE, 0xFF, 0x41, 0x03, 0x00]))
