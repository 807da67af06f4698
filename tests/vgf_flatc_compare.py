#!/usr/bin/python3
"""Oracle test: the FlatBuffers sections in `etprof dump --json` of a VGF
(standalone .vgf, or the VGF delegates of a .pte via --extract) must equal
flatc's decode of the same section bytes with schemas/flatbuffers/vgf.fbs.

This script finds the sections itself (its own reading of the 128-byte
header and, for a .pte, of the program's inline delegate data), cuts each
one out to a file and runs `flatc --json --strict-json --defaults-json
--raw-binary --root-type T`. It also checks the header fields and the raw
constant records against its own reading of the bytes.

usage: vgf_flatc_compare.py ETPROF SCHEMA_DIR FILE.vgf...
Exit 0 when every file matches; 77 when a fixture is absent.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from json_diff import first_difference

ROOTS = [("modules", "ModuleTable"), ("model_sequence", "ModelSequenceTable"),
         ("resources", "ModelResourceTable"), ("constants", "ConstantSection")]


def diff(a, b, path="$"):
    return first_difference(a, b, path)


def flatc(schema, root, data, tmp):
    src = os.path.join(tmp, root + ".bin")
    with open(src, "wb") as f:
        f.write(data)
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary",
                    "--root-type", root, "-o", tmp, schema, "--", src], check=True)
    with open(os.path.join(tmp, root + ".json")) as f:
        return json.load(f)


def extract_from_pte(path, tmp):
    """The VGF of a .pte's inline delegate data: the bytes of a FlatBuffers
    [ubyte] vector that begin with "VGF1", whose u32 length precedes them."""
    with open(path, "rb") as f:
        pte = f.read()
    at = pte.find(b"VGF1")
    while at >= 4:
        n = struct.unpack_from("<I", pte, at - 4)[0]
        if at + n <= len(pte) and n >= 128:
            out = os.path.join(tmp, os.path.basename(path) + ".vgf")
            with open(out, "wb") as f:
                f.write(pte[at:at + n])
            return out
        at = pte.find(b"VGF1", at + 1)
    return None


def check(etprof, schema, path, tmp):
    if path.endswith(".pte"):
        path = extract_from_pte(path, tmp)
        if not path:
            return ["no inline VGF found"]
    with open(path, "rb") as f:
        blob = f.read()
    out = subprocess.run([etprof, "dump", "--json", "--compact", path], capture_output=True)
    if out.returncode:
        return ["etprof failed: %s" % out.stderr.decode().strip()]
    got = json.loads(out.stdout)
    problems = []
    secs = [struct.unpack_from("<QQ", blob, 16 + 16 * k) for k in range(4)]
    version = "%d.%d.%d" % (blob[8], blob[9], blob[10])
    if got["header"]["version"] != version:
        problems.append("version %s != %s" % (got["header"]["version"], version))
    for k, (key, root) in enumerate(ROOTS):
        off, size = secs[k]
        if got["header"][key] != {"offset": off, "size": size}:
            problems.append("section %s: %r != %r" % (key, got["header"][key], (off, size)))
        data = blob[off:off + size]
        if key == "constants":
            if data[:8] == b"CONST00\0":
                n = struct.unpack_from("<Q", data, 8)[0]
                base = off + 16 + 24 * n
                recs = []
                for i in range(n):
                    mrt, sp, sz, o = struct.unpack_from("<IiQQ", data, 16 + 24 * i)
                    recs.append({"mrt_index": mrt, "sparsity_dimension": sp, "size": sz,
                                 "offset": base + o})
                d = diff(got["constants"]["records"], recs, "$.constants.records")
                if got["constants"]["layout"] != "CONST00":
                    problems.append("constants layout %r" % got["constants"]["layout"])
            else:
                d = diff(got["constants"]["table"], flatc(schema, root, data, tmp),
                         "$.constants.table")
        else:
            d = diff(got[key], flatc(schema, root, data, tmp), "$." + key)
        if d:
            problems.append(d)
    return problems


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    etprof, schema_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    schema = os.path.join(schema_dir, "vgf.fbs")
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        print("SKIP: fixtures absent: %s" % ", ".join(missing))
        return 77
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            problems = check(etprof, schema, f, tmp)
            for p in problems:
                print("FAIL: %s: %s" % (f, p))
            if not problems:
                print("OK: %s" % f)
            bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
