#!/usr/bin/python3
"""The tensors a run logged (`etprof tensors`, analyze's debug_buffer.values
and detailed/tensors.csv): every value read from the debug buffer, its
statistics recomputed here with numpy from the buffer at the offsets flatc's
own decoding of the ETDump gives (never from etprof's output); the bundled
program's ten test cases run through ExecuTorch's example_runner and checked
(match), and a copy whose expected output has one element changed (mismatch
naming that element); hand-built float dumps with NaN, Inf, Half and int8
values; malformed buffers and events refused with one line.

usage: tensors_check.py ETPROF FIXTURES_DIR SCHEMA_DIR TOOLS_DIR
"""
import csv
import io
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist  # noqa: E402
import etdump_build  # noqa: E402

ETPROF, FIX, SCHEMA, TOOLS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
R = os.path.join(FIX, "real-runs")
DBG = os.path.join(R, "et_bundled_program_debug_intermediate")
EXAMPLE_RUNNER = os.path.join(TOOLS, "executorch", "example_runner")
TMP = tempfile.mkdtemp(prefix="etprof-tensors-")
CHECKS = Checklist(ETPROF, TMP)
expect, run, write = CHECKS.expect, CHECKS.run, CHECKS.write

# numpy dtype by the schema's ScalarType name
NP = {"BYTE": "<u1", "CHAR": "<i1", "SHORT": "<i2", "INT": "<i4", "LONG": "<i8", "HALF": "<f2",
      "FLOAT": "<f4", "DOUBLE": "<f8", "BOOL": "?", "UINT16": "<u2", "UINT32": "<u4", "UINT64": "<u8"}


def flatc_json(path, schema, size_prefixed):
    args = ["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary", "-o", TMP]
    if size_prefixed:
        args.append("--size-prefixed")
    subprocess.run(args + [os.path.join(SCHEMA, schema), "--", path], check=True)
    with open(os.path.join(TMP, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


def logged(doc):
    """(run, event, dtype name, sizes, offset, is_output) of every logged tensor, from flatc."""
    out = []
    for r, rd in enumerate(doc.get("run_data", [])):
        for j, ev in enumerate(rd.get("events") or []):
            de = ev.get("debug_event")
            if not de:
                continue
            v = de["debug_entry"]
            t = v.get("tensor")
            if t is None:
                continue
            out.append((r, j, t["scalar_type"], t["sizes"], t["offset"], bool(v.get("output", {}).get("bool_val"))))
    return out


def stats(a):
    """numpy's figures over the finite elements, and the counts (as etprof defines them)."""
    f = a.astype(np.float64).ravel()
    fin = f[np.isfinite(f)]
    d = {"count": f.size, "finite": fin.size, "nan": int(np.isnan(f).sum()),
         "pos_inf": int(np.isposinf(f).sum()), "neg_inf": int(np.isneginf(f).sum()),
         "zero": int((fin == 0).sum())}
    if fin.size:
        d.update(min=fin.min(), max=fin.max(), mean=fin.mean(), std=fin.std(), max_abs=np.abs(fin).max())
    return d


def close(a, b):
    return a == b or abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def check_stats(label, row, want):
    bad = [k for k in ("count", "finite", "nan", "pos_inf", "neg_inf", "zero") if row[k] != want[k]]
    for k in ("min", "max", "mean", "std", "max_abs"):
        if k in want:
            if row[k] is None or not close(float(row[k]), float(want[k])):
                bad.append(k)
        elif row[k] is not None:
            bad.append(k)
    expect(not bad, f"{label}: statistics equal numpy's (differ: {bad})")


def tensors_json(*args):
    rc, out, err = run("tensors", *args, "--json", "--values", "1000000")
    if rc:
        return rc, None, err
    return rc, json.loads(out), err


# 1. The real intermediate-output run: every value against numpy at flatc's offsets.
buf = open(DBG + ".debug.bin", "rb").read()
want = logged(flatc_json(DBG + ".etdp", "etdump.fbs", True))
rc, doc, err = tensors_json(DBG + ".etdp", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin")
expect(rc == 0 and doc, f"tensors on the real intermediate-output run exits 0 ({err.strip()})")
rows = doc["tensors"] if doc else []
expect(len(rows) == len(want) == 4, f"4 logged tensors, as flatc decodes ({len(rows)}, {len(want)})")
for row, (r, j, st, sizes, off, is_out) in zip(rows, want):
    a = np.frombuffer(buf, NP[st], int(np.prod(sizes)), off).reshape(sizes)
    expect((row["run"], row["event"], row["buffer_offset"], row["dtype"]) == (r, j, off, st),
           f"{row['key']}: run {r} event {j} offset {off} {st} as flatc says")
    expect(row["shape"] == "[" + ",".join(map(str, sizes)) + "]", f"{row['key']}: shape {sizes}")
    expect(row["values"] == a.ravel().tolist(), f"{row['key']}: values equal numpy's read of the buffer")
    expect((row["origin"] == "program_output") == is_out, f"{row['key']}: origin {row['origin']}")
    check_stats(row["key"], row, stats(a))
keys = [r["key"] for r in rows]
expect(keys == ["forward_0_0/0", "forward_0_1/0", "forward_0_2/0", "output/0"], f"keys {keys}")
# The program's values: mul.out's out argument is value 4, add.out's 5 and 7 (the method output).
expect([r["value_index"] for r in rows] == [4, 5, 7, 7], f"program value indices {[r['value_index'] for r in rows]}")
expect(all(r["execution"] == 0 for r in rows), "every value belongs to execution 0")
cols = [c["name"] for c in doc["columns"]] if doc else []
units = {c["name"]: c["unit"] for c in doc["columns"]} if doc else {}
expect(units.get("mean") == "value" and units.get("numel") == "elements" and units.get("nbytes") == "bytes",
       "every statistic states its unit")
expect(all(not c["additive"] for c in doc["columns"] if c["unit"] == "value"),
       "no value statistic is marked additive")

# CSV: the same columns and cells; analyze --detailed writes the same table.
rc, csv_out, err = run("tensors", DBG + ".etdp", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin", "--csv")
table = list(csv.DictReader(io.StringIO(csv_out)))
expect(rc == 0 and list(table[0].keys()) == cols and len(table) == 4, "--csv has the JSON's columns, a row each")
out = os.path.join(TMP, "bundle")
rc, _, err = run("analyze", DBG + ".etdp", DBG + ".bpte", "--log", DBG + ".log", "--debug-buffer",
                 DBG + ".debug.bin", "-o", out, "--detailed", "--quiet")
expect(rc == 0, f"analyze --detailed with the debug buffer exits 0 ({err.strip()})")
detailed = open(os.path.join(out, "detailed", "tensors.csv"), newline="").read() if rc == 0 else ""
expect(detailed.replace("\r\n", "\n") == csv_out.replace("\r\n", "\n"),
       "detailed/tensors.csv is `etprof tensors --csv`")
summary = json.load(open(os.path.join(out, "summary.json"))) if rc == 0 else {}
vals = (summary.get("debug_buffer") or {}).get("values") or {}
expect(vals.get("logged") == 4 and vals.get("program_outputs") == 1 and vals.get("bytes_read") == 64,
       f"summary.json debug_buffer.values counts {vals}")
bc = (summary.get("debug_buffer") or {}).get("bundled_check") or {}
expect(bc.get("compared") is True and bc.get("testset") == 0 and bc.get("outputs_mismatched") == 0,
       "the log's example_runner (default --testset_idx 0) names the test case: outputs match")
codes = [i["code"] for i in summary.get("issues", [])]
expect("tensors.bundled_match" in codes, "issue tensors.bundled_match")
rc, _, err = run("verify", out)
expect(rc == 0, "the bundle verifies")
# Without a log or --testset the test case is unknown: said, not guessed.
rc, doc, _ = tensors_json(DBG + ".etdp", DBG + ".bpte", "--debug-buffer", DBG + ".debug.bin")
expect(doc and doc["bundled_check"]["compared"] is False and "--testset" in doc["bundled_check"]["reason"],
       "no test case known: not compared, the reason names --testset")

# 2. The bundled program's ten test cases through ExecuTorch's example_runner.
bp = flatc_json(DBG + ".bpte", "bundled_program.fbs", False)
cases = bp["method_test_suites"][0]["test_cases"]
expect(len(cases) == 10, f"the bundled program has 10 test cases ({len(cases)})")
have_runner = os.access(EXAMPLE_RUNNER, os.X_OK)
expect(have_runner, "example_runner is in ../shared/tools")
work = os.path.join(TMP, "cases")
os.makedirs(work)
bpte = os.path.join(work, "m.bpte")
shutil.copy(DBG + ".bpte", bpte)
for i in range(len(cases)):
    etdp, dbin = os.path.join(work, f"c{i}.etdp"), os.path.join(work, f"c{i}.bin")
    p = subprocess.run([EXAMPLE_RUNNER, "--bundled_program_path", bpte, "--etdump_path", etdp, "--dump_outputs",
                        "--debug_output_path", dbin, "--testset_idx", str(i)], capture_output=True, cwd=work)
    if p.returncode:
        expect(False, f"example_runner test case {i} ran ({p.stderr[-200:]})")
        continue
    rc, doc, err = tensors_json(etdp, bpte, "--debug-buffer", dbin, "--testset", str(i))
    exp = cases[i]["expected_outputs"][0]["val"]
    ebytes = bytes(exp["data"])
    got = doc["tensors"][-1] if doc else {}
    ok = (rc == 0 and doc["bundled_check"]["compared"] and doc["bundled_check"]["outputs_mismatched"] == 0
          and got.get("values") == np.frombuffer(ebytes, NP[exp["scalar_type"]]).tolist())
    expect(ok, f"test case {i}: the logged output equals the expected output, and etprof says it matches")

# A copy whose expected output of test case 4 differs in element 2: the mismatch names it.
raw = bytearray(open(DBG + ".bpte", "rb").read())
exp4 = bytes(cases[4]["expected_outputs"][0]["val"]["data"])
pos = [k for k in range(len(raw) - len(exp4) + 1) if raw[k:k + len(exp4)] == exp4]
# every case holds the same bytes: find the one of case 4 by order of appearance of expected outputs
all_exp = [bytes(c["expected_outputs"][0]["val"]["data"]) for c in cases]
expect(len(pos) >= 1, "the expected output's bytes are found in the .bpte")
# flatc's JSON keeps order: patch the occurrence that is case 4's expected output (inputs are zeros,
# outputs twos here, so the twos' occurrences are the ten expected outputs in file order or reverse)
twos = [k for k in pos]
bad = os.path.join(work, "bad.bpte")
target = None
for cand in twos:
    trial = bytearray(raw)
    struct.pack_into("<i", trial, cand + 8, 7)
    open(bad, "wb").write(trial)
    j = flatc_json(bad, "bundled_program.fbs", False)
    changed = [n for n, c in enumerate(j["method_test_suites"][0]["test_cases"])
               if bytes(c["expected_outputs"][0]["val"]["data"]) != all_exp[n]]
    if changed == [4]:
        target = cand
        break
expect(target is not None, "a copy with test case 4's expected element 2 changed to 7 (checked by flatc)")
etdp4, dbin4 = os.path.join(work, "c4.etdp"), os.path.join(work, "c4.bin")
rc, out_text, err = run("tensors", etdp4, bad, "--debug-buffer", dbin4, "--testset", "4")
expect(rc == 1 and "DIFFER" in out_text and "element 2" in out_text and "expected 7" in out_text
       and "got 2" in out_text, f"mismatch: exit 1, names element 2, expected 7, got 2 ({out_text.strip()[-160:]})")
badout = os.path.join(TMP, "badbundle")
rc, _, err = run("analyze", etdp4, "--pte", bad, "--debug-buffer", dbin4, "--testset", "4", "-o", badout,
                 "--quiet", "--source-unit", "ns")
s4 = json.load(open(os.path.join(badout, "summary.json"))) if rc == 0 else {}
mm = [i for i in s4.get("issues", []) if i["code"] == "tensors.bundled_mismatch"]
expect(mm and s4.get("validity") == "invalid" and "element 2: expected 7, got 2" in mm[0]["message"],
       "analyze: tensors.bundled_mismatch (error, invalid) naming the worst element")
rc, _, _ = run("analyze", etdp4, "--pte", bad, "--debug-buffer", dbin4, "--testset", "4", "--quiet",
               "--source-unit", "ns", "--fail-on", "error")
expect(rc == 3, f"analyze --fail-on error gates a mismatch (exit {rc})")
rc, out_text, _ = run("tensors", etdp4, bad, "--debug-buffer", dbin4, "--testset", "4", "--atol", "5")
expect(rc == 1 and "DIFFER" in out_text,
       "--atol 5 does not excuse an INT difference: non-floating outputs are compared exactly, as ExecuTorch does")
rc, _, err = run("tensors", etdp4, bad, "--debug-buffer", dbin4, "--testset", "10")
expect(rc == 2 and "10 test cases" in err, f"--testset 10 of 10 cases: usage error naming the count ({err.strip()})")

# 3. Hand-built float dumps: NaN, +-Inf, Half, int8; numpy's figures.
rng = np.random.default_rng(7)
f32 = (rng.standard_normal(3001) * 3 + 1e4).astype("<f4")
f32[[5, 77, 3000]] = [np.nan, np.inf, -np.inf]
f16 = rng.standard_normal(257).astype("<f2")
f16[9] = np.nan
i8 = rng.integers(-128, 128, 4096).astype("<i1")
allnan = np.full(8, np.nan, "<f4")
blob = bytearray()
tens = []
for name, a in (("FLOAT", f32), ("HALF", f16), ("CHAR", i8), ("FLOAT", allnan)):
    off = (len(blob) + 63) // 64 * 64
    blob += b"\0" * (off - len(blob)) + a.tobytes()
    tens.append((name, list(a.shape), off, a))
ev = []
for k, (name, shape, off, _) in enumerate(tens):
    ev.append({"debug_event": {"chain_index": 0, "instruction_id": min(k, 2),
                               "debug_entry": {"val": "Tensor", "tensor": {"scalar_type": name, "sizes": shape,
                                                                           "strides": [1], "offset": off}}}})
ev += [etdump_build.pe("OPERATOR_CALL", k, 100 + 10 * k, 105 + 10 * k) for k in range(3)]
ev.append(etdump_build.pe("Method::execute", -1, 90, 200, chain=-1))
synth = etdump_build.write(TMP, "floats", [{"name": "Execute", "events": ev}])
sbuf = write("floats.bin", bytes(blob))
rc, doc, err = tensors_json(synth, DBG + ".bpte", "--debug-buffer", sbuf, "--method", "forward")
expect(rc == 0 and doc, f"tensors on a hand-built float dump exits 0 ({err.strip()})")
for row, (name, shape, off, a) in zip(doc["tensors"] if doc else [], tens):
    check_stats(f"{name}{shape} at {off}", row, stats(a))
    got = [float("nan") if v == "NaN" else float("inf") if v == "Infinity" else float("-inf")
           if v == "-Infinity" else v for v in row["values"]]
    expect(np.array_equal(np.array(got, dtype=np.float64), a.astype(np.float64), equal_nan=True),
           f"{name}{shape}: values equal numpy's (NaN and Inf spelt as strings)")
    expect(row["value_index"] is None, f"{name}: a float value is not the program's INT value: no value index")

# A run whose output has another shape than the expected one fails the test (not an input error).
oev = [{"debug_event": {"chain_index": 18446744073709551615, "instruction_id": 0, "debug_entry": {
    "val": "Tensor", "output": {"bool_val": True},
    "tensor": {"scalar_type": "INT", "sizes": [4], "strides": [1], "offset": 0}}}}]
oev += [etdump_build.pe("OPERATOR_CALL", k, 100 + 10 * k, 105 + 10 * k) for k in range(3)]
oev.append(etdump_build.pe("Method::execute", -1, 90, 200, chain=-1))
od = etdump_build.write(TMP, "reshaped", [{"name": "Execute", "events": oev}])
rc, out_text, err = run("tensors", od, DBG + ".bpte", "--debug-buffer", write("reshaped.bin", struct.pack("<4i", 2, 2, 2, 2)),
                        "--testset", "0")
expect(rc == 1 and "shapes differ: reference [2,2], compared [4]" in out_text,
       f"an output of another shape: a mismatch saying so, exit 1 ({out_text.strip()[-140:]} {err.strip()})")

# 3b. Quantized values: the Cortex-M keyword-spotting program quantizes its input (instruction 0,
# cortex_m::quantize_per_tensor) and dequantizes instruction 14's output (instruction 15): their
# int8 tensors get the scale and zero point of those calls' constant arguments (read here from
# flatc's decode of the program, not from etprof).
KWS = os.path.join(R, "cm_et_arduino_kws_x10.pte")
kp = flatc_json(KWS, "program.fbs", False)
kv = kp["execution_plan"][0]["values"]
kins = kp["execution_plan"][0]["chains"][0]["instructions"]


def kargs(i):
    return kins[i]["instr_args"]["args"]


q_out = kargs(0)[-1]
q_scale, q_zp = kv[kargs(0)[1]]["val"]["double_val"], kv[kargs(0)[2]]["val"]["int_val"]
d_in = kargs(15)[0]
d_scale, d_zp = kv[kargs(15)[1]]["val"]["double_val"], kv[kargs(15)[2]]["val"]["int_val"]
qa = rng.integers(-128, 128, int(np.prod(kv[q_out]["val"]["sizes"]))).astype("<i1")
qb = rng.integers(-128, 128, int(np.prod(kv[d_in]["val"]["sizes"]))).astype("<i1")
qblob = qa.tobytes() + b"\0" * ((-len(qa)) % 64) + qb.tobytes()
qev = [{"debug_event": {"chain_index": 0, "instruction_id": 0, "debug_entry": {"val": "Tensor", "tensor": {
           "scalar_type": "CHAR", "sizes": kv[q_out]["val"]["sizes"], "strides": [490, 490, 10, 1], "offset": 0}}}},
       {"debug_event": {"chain_index": 0, "instruction_id": 14, "debug_entry": {"val": "Tensor", "tensor": {
           "scalar_type": "CHAR", "sizes": kv[d_in]["val"]["sizes"], "strides": [12, 1],
           "offset": len(qa) + (-len(qa)) % 64}}}}]
qev += [etdump_build.pe("OPERATOR_CALL", k, 100 + 10 * k, 105 + 10 * k) for k in range(16)]
qev.append(etdump_build.pe("Method::execute", -1, 90, 400, chain=-1))
qd = etdump_build.write(TMP, "kws_quant", [{"name": "Execute", "events": qev}])
rc, doc, err = tensors_json(qd, KWS, "--debug-buffer", write("kws_quant.bin", qblob))
qrows = doc["tensors"] if doc else []
expect(rc == 0 and len(qrows) == 2, f"tensors on a Cortex-M program's int8 values ({err.strip()})")
if len(qrows) == 2:
    # (flatc prints doubles to 12 significant digits: compared to that)
    expect((qrows[0]["value_index"], qrows[0]["quant_zero_point"]) == (q_out, q_zp)
           and math.isclose(qrows[0]["quant_scale"], q_scale, rel_tol=1e-11),
           f"quantize_per_tensor's output: value {q_out}, scale {q_scale}, zero point {q_zp}")
    expect((qrows[1]["value_index"], qrows[1]["quant_zero_point"]) == (d_in, d_zp)
           and math.isclose(qrows[1]["quant_scale"], d_scale, rel_tol=1e-11),
           f"dequantize_per_tensor's input: value {d_in}, scale {d_scale}, zero point {d_zp}")
    check_stats("int8 stored values", qrows[0], stats(qa))
    expect(qrows[0]["dim_order"] == "[0,1,2,3]" and qrows[0]["strides"] == "[490,490,10,1]",
           "strides recorded, the dim order they imply")

# 4. Malformed: a buffer cut short, an event past the buffer, no buffer at all.
short = write("short.bin", buf[:200])
rc, _, err = run("tensors", DBG + ".etdp", DBG + ".bpte", "--debug-buffer", short)
expect(rc == 1 and err.count("\n") == 1 and "offset 240" in err and "short.bin" in err,
       f"a buffer cut short: one line naming the buffer and the offset, exit 1 ({err.strip()})")
rc, _, err = run("tensors", DBG + ".etdp", DBG + ".bpte")
expect(rc == 2 and "--debug-buffer" in err, "no debug buffer: usage error naming --debug-buffer")
sys.exit(CHECKS.finish())
