#!/usr/bin/env python3
"""Checks a HAR file as swurl's tests need: valid against Tests/Fixtures/har-1.2.schema.json
(jsonschema), loaded by a HAR library (haralyzer: the parser, its pages and every entry's
request, response and timings), and each entry's timings adding up to its time.

    har_check.py FILE.har SCHEMA.json

Prints `ok N` (the number of entries) and exits 0, or prints what is wrong and exits 1.
"""
import json
import sys

import jsonschema
from haralyzer import HarEntry, HarParser


def main():
    path, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(document), key=lambda e: list(e.path))
    for error in errors[:10]:
        print("schema: %s at %s" % (error.message, "/".join(str(p) for p in error.path)))
    if errors:
        return 1
    parser = HarParser(document)
    if parser.creator["name"] != "swurl":
        print("haralyzer: creator is %r" % parser.creator)
        return 1
    entries = document["log"]["entries"]
    if entries and not parser.pages:
        print("haralyzer: no page holds the entries")
        return 1
    for i, raw in enumerate(entries):
        entry = HarEntry(raw)
        # Every accessor haralyzer offers parses what it needs.
        _ = (entry.request.method, entry.request.url, entry.request.headers, entry.response.status,
             entry.response.headers, entry.response.mimeType, entry.startTime, entry.time, entry.timings)
        parts = [v for k, v in raw["timings"].items() if k in ("blocked", "dns", "connect", "send", "wait", "receive") and v != -1]
        if abs(sum(parts) - raw["time"]) > 0.0015:
            print("entry %d: timings add up to %.3f, time is %.3f" % (i, sum(parts), raw["time"]))
            return 1
        ssl, connect = raw["timings"].get("ssl", -1), raw["timings"].get("connect", -1)
        if ssl != -1 and ssl > connect:
            print("entry %d: ssl %.3f is longer than connect %.3f, which includes it" % (i, ssl, connect))
            return 1
    print("ok %d" % len(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
