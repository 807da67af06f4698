#!/usr/bin/python3
"""Oracle test: `etprof dump --json FILE` must equal flatc's decode of FILE.

flatc (Debian flatbuffers-compiler) decodes FILE with etprof's restated
schema; both JSON documents are parsed and compared structurally. flatc
prints doubles with 12 fixed decimals, so floating-point leaves are compared
to that precision; everything else (names, enum names, defaults, integers,
nesting, order of array elements) must match exactly.

usage: flatc_compare.py ETPROF SCHEMA_DIR FILE...
Exit 0 when every file matches; a missing fixture directory skips (77).
"""
import json
import os
import subprocess
import sys
import tempfile

from json_diff import first_difference

KINDS = {b"ED00": ("etdump.fbs", ["--size-prefixed"], 8),
         b"ET12": ("program.fbs", [], 4),
         b"BP08": ("bundled_program.fbs", [], 4)}


def kind_of(path):
    with open(path, "rb") as f:
        head = f.read(12)
    if head[8:12] == b"ED00":
        return KINDS[b"ED00"]
    return KINDS.get(head[4:8])


def diff(a, b, path="$"):
    return first_difference(a, b, path, float_digits=12)


def main():
    etprof, schema_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    present = [f for f in files if os.path.exists(f)]
    if not present:
        print("SKIP: fixtures not found (../shared absent): " + " ".join(files))
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in present:
            k = kind_of(f)
            if not k:
                print("FAIL %s: unknown kind" % f)
                failures += 1
                continue
            schema, extra, _ = k
            out = os.path.join(tmp, "flatc")
            os.makedirs(out, exist_ok=True)
            subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"]
                           + extra + ["-o", out, os.path.join(schema_dir, schema), "--", f],
                           check=True)
            ref_path = os.path.join(out, os.path.splitext(os.path.basename(f))[0] + ".json")
            with open(ref_path) as fh:
                ref = json.load(fh)
            os.remove(ref_path)
            mine = subprocess.run([etprof, "dump", "--json", "--compact", f],
                                  check=True, stdout=subprocess.PIPE).stdout
            d = diff(json.loads(mine), ref)
            if d:
                print("FAIL %s: %s" % (f, d))
                failures += 1
            else:
                print("ok   %s" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
