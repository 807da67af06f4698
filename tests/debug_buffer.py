#!/usr/bin/python3
"""The debug buffer of an ETDump (`analyze --debug-buffer`, or the one a --log
carries): every logged tensor's bytes [offset, offset + nbytes) checked inside
it, the buffer recorded as a bundle input and reported; and requirement 3's
ETDump-from-log path (analyze --log L --pte P without --etdump; checked
against --etdump when both are given).

Expected values come from flatc's own decoding of the dumps (`flatc --json`),
with element sizes from c10's ScalarType, never from etprof's output.

usage: debug_buffer.py ETPROF FIXTURES_DIR SCHEMA_DIR
"""
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist  # noqa: E402

ETPROF, FIX, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
SCH = os.path.join(os.path.dirname(SCHEMA), "json")
R = os.path.join(FIX, "real-runs")
DBG = os.path.join(R, "et_bundled_program_debug_intermediate")
TMP = tempfile.mkdtemp(prefix="etprof-debugbuf-")
# c10::elementSize by schemas/flatbuffers/scalar_type.fbs name
ELEM = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2, "FLOAT": 4, "DOUBLE": 8,
        "BOOL": 1, "QINT8": 1, "QUINT8": 1, "QINT32": 4, "BFLOAT16": 2, "QUINT4X2": 1, "QUINT2X4": 1,
        "BITS16": 2, "FLOAT8E5M2": 1, "FLOAT8E4M3FN": 1, "FLOAT8E5M2FNUZ": 1, "FLOAT8E4M3FNUZ": 1,
        "UINT16": 2, "UINT32": 4, "UINT64": 8}


CHECKS = Checklist(ETPROF, TMP)
expect, run, write = CHECKS.expect, CHECKS.run, CHECKS.write


def flatc_json(etdp):
    """The dump as flatc decodes it (defaults omitted: offset 0 is absent)."""
    subprocess.run(["flatc", "--json", "--strict-json", "--size-prefixed", "--raw-binary", "-o", TMP,
                    os.path.join(SCHEMA, "etdump.fbs"), "--", etdp], check=True)
    with open(os.path.join(TMP, os.path.splitext(os.path.basename(etdp))[0] + ".json")) as f:
        return json.load(f)


def tensors(doc):
    """(run, event, tensor index, offset, nbytes) of every logged tensor with bytes, and the
    number of debug events and of empty tensors."""
    out, events, empty = [], 0, 0
    for r, rd in enumerate(doc.get("run_data", [])):
        for j, ev in enumerate(rd.get("events") or []):
            de = ev.get("debug_event")
            if de is None:
                continue
            events += 1
            entry = de.get("debug_entry") or {}
            ts = [entry["tensor"]] if "tensor" in entry else (entry.get("tensor_list") or {}).get("tensors", [])
            for k, t in enumerate(ts):
                off = t.get("offset", 0)
                if off == -1:
                    empty += 1
                    continue
                n = ELEM[t.get("scalar_type", "BYTE")]
                for s in t.get("sizes", []):
                    n *= s
                out.append((r, j, k, off, n))
    return out, events, empty


def analyze(*args):
    rc, out, err = run("analyze", "--json", *args)
    return rc, (json.loads(out) if rc == 0 else None), err


def one_line(err):
    return err.count("\n") == 1 and err.startswith("etprof: ")


# ---- the real intermediate-output run and its buffer ---------------------------------
buf = open(DBG + ".debug.bin", "rb").read()
ts, nev, nempty = tensors(flatc_json(DBG + ".etdp"))
end = max(o + n for _, _, _, o, n in ts)
rc, doc, err = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin")
db = doc["debug_buffer"] if doc else None
expect(rc == 0 and db and db["tensors_checked"] == len(ts) == 4 and db["debug_events"] == nev and
       db["empty_tensors"] == nempty and db["bytes_referenced"] == end and db["size_bytes"] == len(buf),
       "real buffer: %d tensors of %d debug events inside its %d bytes (up to byte %d) %s" %
       (len(ts), nev, len(buf), end, err.strip()[:200]))
rc, doc, err = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte")
expect(rc == 0 and doc["debug_buffer"] is None, "no buffer given: debug_buffer null")
exact = write("exact.bin", buf[:end])
rc, doc, err = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", exact)
expect(rc == 0 and doc["debug_buffer"]["tensors_checked"] == 4, "a buffer ending at the last tensor's end is enough")
# Hostile: cut one byte short of the last tensor, and before the first one.
last = max(ts, key=lambda t: t[3] + t[4])
short = write("short.bin", buf[:end - 1])
rc, doc, err = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", short)
expect(rc == 1 and one_line(err) and "run %d event %d" % last[:2] in err and "offset %d" % last[3] in err and
       short in err and "%d-byte" % (end - 1) in err,
       "debug buffer too short: exit 1, one line naming run/event/offset (%s)" % err.strip())
first = min(ts, key=lambda t: t[3])
rc, _, err = run("analyze", "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer",
                 write("tiny.bin", buf[:first[3]]), "-o", os.path.join(TMP, "never"))
expect(rc == 1 and "run %d event %d" % first[:2] in err and not os.path.exists(os.path.join(TMP, "never")),
       "a buffer ending before the first tensor: exit 1, no bundle")
rc, _, err = run("analyze", "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", write("empty.bin", b""))
expect(rc == 1 and one_line(err), "an empty buffer: exit 1")
rc, _, err = run("analyze", "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", DBG + ".etdp")
expect(rc == 1 and one_line(err) and "is an ETDump, not a debug buffer" in err, "an ETDump given as the buffer: exit 1")
rc, _, err = run("analyze", "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", os.path.join(TMP, "nope"))
expect(rc == 1 and one_line(err) and "nope" in err, "a missing buffer file: exit 1 naming it")
rc, _, err = run("analyze", "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer")
expect(rc == 2, "--debug-buffer without a file: usage error")

# ---- generated dumps: tensor lists, empty tensors, hostile metadata ---------------------


def dump(name, tensors_json):
    ev = [{"debug_event": {"chain_index": 0, "instruction_id": 0, "debug_entry": v}} for v in tensors_json]
    ev += [{"profile_event": {"chain_index": -1, "instruction_id": 0, "start_time": 0, "end_time": 100,
                              "name": "Method::execute"}}]
    src = write(name + ".json", json.dumps({"run_data": [{"name": "Execute", "events": ev}]}))
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", TMP, os.path.join(SCHEMA, "etdump.fbs"), src], check=True)
    return os.path.join(TMP, name + ".etdp")


PTE = os.path.join(R, "et_add_x10.pte")
lst = dump("list", [{"val": "TensorList", "tensor_list": {"tensors": [
    {"scalar_type": "FLOAT", "sizes": [3, 5], "offset": 64},
    {"scalar_type": "LONG", "sizes": [7], "offset": 128},
    {"scalar_type": "HALF", "sizes": [4], "offset": -1}]}},
    {"val": "Tensor", "tensor": {"scalar_type": "BOOL", "sizes": [], "offset": 300}},
    {"val": "Int", "int_value": {"int_val": 3}}])
ts2, nev2, nempty2 = tensors(flatc_json(lst))
end2 = max(o + n for _, _, _, o, n in ts2)  # FLOAT 3x5 at 64: 124; LONG 7 at 128: 184; BOOL scalar at 300: 301
rc, doc, err = analyze("--etdump", lst, "--pte", PTE, "--debug-buffer", write("list.bin", bytes(end2)))
db = doc["debug_buffer"] if doc else {}
expect(rc == 0 and db.get("tensors_checked") == len(ts2) == 3 and db.get("empty_tensors") == nempty2 == 1 and
       db.get("debug_events") == nev2 == 3 and db.get("bytes_referenced") == end2 == 301,
       "tensor list + scalar tensor + empty tensor + int value: 3 checked, 1 empty, up to byte 301 %s" % err.strip()[:200])
rc, _, err = analyze("--etdump", lst, "--pte", PTE, "--debug-buffer", write("list_short.bin", bytes(183)))
expect(rc == 1 and "run 0 event 0: tensor 1 at offset 128" in err, "a tensor list's second tensor past the end: named by index")
for name, t, msg in (("unknown", {"scalar_type": 40, "sizes": [2], "offset": 0}, "unknown scalar type"),
                     ("negative", {"scalar_type": "INT", "sizes": [2, -3], "offset": 0}, "negative size"),
                     ("huge", {"scalar_type": "DOUBLE", "sizes": [1 << 31, 1 << 31, 1 << 31], "offset": 0}, "2^63"),
                     ("negoff", {"scalar_type": "INT", "sizes": [1], "offset": -8}, "offset -8"),
                     ("wrap", {"scalar_type": "BYTE", "sizes": [16], "offset": (1 << 63) - 8}, "lies outside")):
    p = dump(name, [{"val": "Tensor", "tensor": t}])
    rc, _, err = analyze("--etdump", p, "--pte", PTE, "--debug-buffer", write(name + ".bin", bytes(4096)))
    expect(rc == 1 and one_line(err) and msg in err and p in err, "hostile tensor (%s): exit 1, %s" % (name, err.strip()[:160]))

# ---- a log carrying the ETDump and the debug buffer -------------------------------------
etd = open(DBG + ".etdp", "rb").read()


def carried(name, dump_bytes, buf_bytes):
    block = "#[RUN THIS]\n"
    if buf_bytes is not None:
        block += 'echo "%s" | base64 -d >debug_buffer.bin\n' % base64.b64encode(buf_bytes).decode()
    if dump_bytes is not None:
        block += 'echo "%s" | base64 -d >etdump.bin\n' % base64.b64encode(dump_bytes).decode()
    return write(name, open(DBG + ".log").read() + block + "#[END]\n")


cap = carried("cap.log", etd, buf)
rc, doc, err = analyze("--log", cap, "--pte", DBG + ".bpte")
expect(rc == 0 and doc["debug_buffer"]["tensors_checked"] == 4 and "carried by " + cap in doc["debug_buffer"]["name"],
       "--log carrying ETDump and buffer, no --etdump/--debug-buffer: both used (%s)" % err.strip()[:200])
out_dir = os.path.join(TMP, "bundle")
rc, out, err = run("analyze", "--log", cap, "--pte", DBG + ".bpte", "-o", out_dir)
expect(rc == 0 and "Debug buffer: 262,144 B" in out and "4 tensors of 4 debug events lie inside it" in out,
       "terminal: the Debug buffer line")
rc2, _, _ = run("verify", out_dir)
man = json.load(open(os.path.join(out_dir, "result_manifest.json")))
ins = {i["role"]: i for i in man["provenance"]["inputs"]}
dbi = ins.get("debug_buffer", {})
expect(rc2 == 0 and dbi.get("name") == "debug_buffer.bin" and dbi.get("sha256") == hashlib.sha256(buf).hexdigest() and
       dbi.get("size_bytes") == len(buf) and ins["etdump"]["sha256"] == hashlib.sha256(etd).hexdigest(),
       "the carried buffer is a hashed input of the bundle (debug_buffer.bin), the bundle verifies")
meta = json.load(open(os.path.join(out_dir, "run_metadata.json")))
md = [i for i in meta["inputs"] if i["role"] == "debug_buffer"]
expect(len(md) == 1 and md[0]["describes"]["tensors_checked"] == 4 and md[0]["describes"]["bytes_referenced"] == end,
       "run_metadata: the buffer's entry says 4 tensors were checked")
summ = json.load(open(os.path.join(out_dir, "summary.json")))
expect(summ["debug_buffer"]["tensors_checked"] == 4, "summary.json: debug_buffer.tensors_checked")
try:
    import jsonschema
except ImportError:
    jsonschema = None
if jsonschema:
    for art, sch in (("summary.json", "summary.v1"), ("run_metadata.json", "run_metadata.v1")):
        d = json.load(open(os.path.join(out_dir, art)))
        errs = list(jsonschema.Draft202012Validator(json.load(open(os.path.join(SCH, sch + ".schema.json")))).iter_errors(d))
        expect(not errs, "%s validates against %s %s" % (art, sch, [e.message[:80] for e in errs[:2]]))
    # (without the runner log: analysis.v1's figure definition does not take the
    # runner-reported figures of a log without iteration lines, a separate matter)
    rc, doc, err = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin")
    errs = list(jsonschema.Draft202012Validator(json.load(open(os.path.join(SCH, "analysis.v1.schema.json")))).iter_errors(doc))
    expect(not errs, "analyze --json with debug_buffer validates against analysis.v1")
    defs = [json.load(open(os.path.join(SCH, n + ".schema.json")))["$defs"]["debug_buffer"] for n in ("summary.v1", "analysis.v1")]
    expect(defs[0] == defs[1], "the debug_buffer definitions of summary.v1 and analysis.v1 are the same")
# Both given: the same bytes pass, other bytes fail naming both.
rc, doc, err = analyze("--log", cap, "--pte", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin")
expect(rc == 0 and doc["debug_buffer"]["name"] == DBG + ".debug.bin", "--debug-buffer equal to the carried one: accepted")
rc, _, err = run("analyze", "--log", cap, "--pte", DBG + ".bpte", "--debug-buffer", exact)
expect(rc == 1 and one_line(err) and cap in err and exact in err and "differs from --debug-buffer" in err,
       "--debug-buffer other than the carried one: exit 1 naming both (%s)" % err.strip())
# A carried buffer cut short fails the check, naming the log.
cshort = carried("cap_short.log", etd, buf[:end - 1])
rc, _, err = run("analyze", "--log", cshort, "--pte", DBG + ".bpte")
expect(rc == 1 and one_line(err) and "carried by " + cshort in err and "offset %d" % last[3] in err,
       "a carried buffer too short: exit 1 naming the log (%s)" % err.strip()[:200])
# Two logs with different buffers.
other = carried("cap_other.log", None, buf[:end])
rc, _, err = run("analyze", "--log", cap, "--log", other, "--pte", DBG + ".bpte")
expect(rc == 1 and one_line(err) and "carry different debug buffers" in err, "two logs, two different buffers: exit 1")
# A log with only a buffer, the ETDump given: used.
rc, doc, err = analyze("--log", other, "--etdump", DBG + ".etdp", "--pte", DBG + ".bpte")
expect(rc == 0 and doc["debug_buffer"]["size_bytes"] == end, "a log carrying only the buffer, --etdump given: its buffer is checked")

# ---- requirement 3: the ETDump from the log ---------------------------------------------
rc, doc_log, err = analyze("--log", cap, "--pte", DBG + ".bpte")
rc2, doc_file, err2 = analyze("--etdump", DBG + ".etdp", "--pte", DBG + ".bpte", "--log", DBG + ".log")
ok = rc == 0 and rc2 == 0
if ok:
    a = {f["name"]: f.get("avg") for f in doc_log["figures"]}
    b = {f["name"]: f.get("avg") for f in doc_file["figures"]}
    ok = a == b and [e["id"] for e in doc_log["entities"]] == [e["id"] for e in doc_file["entities"]]
expect(ok, "analyze --log L --pte P (ETDump from the log) gives the figures and entities of --etdump")
rc, _, err = run("analyze", "--log", cap, "--pte", DBG + ".bpte", "--etdump", os.path.join(R, "et_add_x10.etdp"))
expect(rc == 1 and one_line(err) and "differs from --etdump" in err, "--etdump other than the carried one: exit 1")
rc, doc, err = analyze("--log", cap, "--pte", DBG + ".bpte", "--etdump", DBG + ".etdp")
expect(rc == 0, "--etdump equal to the carried one: accepted")

CHECKS.finish()
