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
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            if abs(float(a) - float(b)) <= 0.5e-12 + 1e-15 * abs(float(b)):
                return None
        return "%s: %r != %r" % (path, a, b)
    if type(a) is not type(b):
        return "%s: type %s != %s" % (path, type(a).__name__, type(b).__name__)
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return "%s: keys %s != %s" % (path, list(a.keys()), list(b.keys()))
        for k in a:
            d = diff(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: length %d != %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (path, a, b)


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
