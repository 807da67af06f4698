#!/usr/bin/env python3
"""diff_numerics.py - scenario tests of `etprof diff --numerics` (ctest diff_numerics.*).

  diff_numerics.py CASE WORKDIR

CASE:
  same      the intermediate-output run against itself: every pair SNR +inf and MSE 0, no
            divergence, exit 0, --fail-if-snr-below 40 exits 0; JSON, CSV and text agree
  inner     instruction 1's output perturbed in a copy of the debug buffer: the first divergence is
            forward_0_1/0, no earlier pair diverges, the figures are numpy's, the gate exits 3
            after writing its output
  output    the program output only perturbed: the first divergence is output/0
  bad       a truncated debug buffer (one line naming the file and the offset, exit 1); a bundle
            side with --numerics (exit 2); numerics options without --numerics (exit 2)
  bundle    -o DIR --numerics: numerics.csv and model_explorer/numerics_overlay.json in the
            manifest (verified), diff_summary.json's "numerics", the overlay keyed by node id
  chromium  the diff page's numerics table in headless Chromium from file://, no console
            message (exit 77 without chromium)

The run is ../shared/fixtures/real-runs/et_bundled_program_debug_intermediate.{etdp,bpte,debug.bin}
(exit 77 when the folder is absent). Expected values come from flatc's decode of the ETDump (the
tensors' offsets, shapes and types) and the buffers' bytes, computed with numpy, never copied from
etprof's output.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np

ETPROF = os.environ.get("ETPROF", "etprof")
FIXTURES = os.environ.get("ETP_FIXTURES", "")
SOURCE = os.environ.get("ETP_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(FIXTURES, "real-runs", "et_bundled_program_debug_intermediate")
SCHEMA = os.path.join(SOURCE, "schemas", "flatbuffers", "etdump.fbs")
HANG_GUARD = 600  # seconds: a guard against a hung child, not a timing assertion
DTYPES = {"INT": np.int32, "LONG": np.int64, "FLOAT": np.float32, "DOUBLE": np.float64, "CHAR": np.int8,
          "BYTE": np.uint8, "SHORT": np.int16, "BOOL": np.bool_}
FAILURES = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def fatal(msg):
    print("FAIL " + msg)
    sys.exit(1)


def run(args):
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_GUARD)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def flatc_tensors(work):
    """Every logged tensor of the ETDump in event order: (key, dtype, sizes, offset), keyed as
    etprof keys them (instruction id and position; output index)."""
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--size-prefixed", "--raw-binary",
                    "-o", work, SCHEMA, "--", RUN + ".etdp"], check=True, timeout=HANG_GUARD)
    with open(os.path.join(work, os.path.basename(RUN) + ".json")) as f:
        doc = json.load(f)
    out, per_instr, outputs = [], {}, 0
    for rd in doc["run_data"]:
        for ev in rd.get("events") or []:
            de = ev.get("debug_event")
            if not de:
                continue
            entry = de["debug_entry"]
            t = entry["tensor"]
            if (entry.get("output") or {}).get("bool_val"):
                key = "output/%d" % outputs
                outputs += 1
            else:
                i = de["instruction_id"]
                key = "forward_%d_%d/%d" % (de["chain_index"], i, per_instr.get(i, 0))
                per_instr[i] = per_instr.get(i, 0) + 1
            out.append((key, t["scalar_type"], t["sizes"], t["offset"]))
    return out


def values(buf, t):
    _, dtype, sizes, off = t
    dt = np.dtype(DTYPES[dtype]).newbyteorder("<")
    n = int(np.prod(sizes))
    return np.frombuffer(buf, dtype=dt, count=n, offset=off).astype(np.float64)


def figures(ref, got):
    err = got - ref
    se = float(np.sum(err * err))
    sr = float(np.sum(ref * ref))
    snr = float("inf") if se == 0 else 10 * np.log10(sr / se)
    return {"mse": float(np.mean(err * err)), "mae": float(np.mean(np.abs(err))),
            "max_abs_err": float(np.max(np.abs(err))), "snr_db": snr}


def snr_of(p):
    v = p["snr_db"]
    return float(v) if isinstance(v, str) else v


def close(a, b):
    return (a == b) or (np.isfinite(a) and np.isfinite(b) and abs(a - b) <= 1e-12 * max(1.0, abs(b)))


def diff_args(new_buffer=None, extra=()):
    args = ["diff", RUN + ".etdp", RUN + ".etdp", "--base-pte", RUN + ".bpte", "--new-pte", RUN + ".bpte",
            "--numerics", "--base-debug-buffer", RUN + ".debug.bin",
            "--new-debug-buffer", new_buffer or RUN + ".debug.bin"]
    return args + list(extra)


def numerics_json(new_buffer=None, extra=(), rc_want=0):
    rc, out, err = run(diff_args(new_buffer, ["--json"] + list(extra)))
    if rc != rc_want:
        fatal("etprof diff --numerics --json exited %d, expected %d\n%s" % (rc, rc_want, err))
    return json.loads(out)["numerics"]


def perturbed(work, key, deltas):
    """A copy of the debug buffer with DELTAS added to tensor KEY's values (at flatc's offset)."""
    ts = {t[0]: t for t in flatc_tensors(work)}
    buf = bytearray(open(RUN + ".debug.bin", "rb").read())
    t = ts[key]
    dt = np.dtype(DTYPES[t[1]]).newbyteorder("<")
    n = int(np.prod(t[2]))
    v = np.frombuffer(bytes(buf), dtype=dt, count=n, offset=t[3]).copy()
    v += np.array(deltas, dtype=dt)
    buf[t[3]:t[3] + v.nbytes] = v.tobytes()
    path = os.path.join(work, "perturbed-%s.bin" % key.replace("/", "_"))
    with open(path, "wb") as f:
        f.write(bytes(buf))
    return path, ts


def check_divergence(work, key, deltas, what):
    path, ts = perturbed(work, key, deltas)
    base_buf, new_buf = open(RUN + ".debug.bin", "rb").read(), open(path, "rb").read()
    order = [k for k, _, _, _ in flatc_tensors(work)]
    nd = numerics_json(path)
    pairs = {p["key"]: p for p in nd["pairs"]}
    expect(sorted(pairs) == sorted(order) and nd["unmatched"] == {"base": 0, "new": 0},
           "%s: every logged value paired (%d), none unmatched" % (what, len(pairs)))
    fd = nd["first_divergence"]
    expect(fd is not None and fd["key"] == key, "%s: first divergence %s (expected %s)" %
           (what, fd and fd["key"], key))
    earlier = order[:order.index(key)]
    expect(all(not pairs[k]["diverged"] and pairs[k]["mse"] == 0 for k in earlier),
           "%s: no pair before it diverges (%s match)" % (what, ", ".join(earlier) or "none"))
    # Every pair's figures against numpy's from the two buffers.
    bad = []
    for k, p in pairs.items():
        want = figures(values(base_buf, ts[k]), values(new_buf, ts[k]))
        for f, v in want.items():
            got = snr_of(p) if f == "snr_db" else p[f]
            if not close(got, v):
                bad.append("%s %s %r != %r" % (k, f, got, v))
    expect(not bad, "%s: MSE, MAE, max abs error and SNR of every pair are numpy's %s" % (what, bad[:3]))
    ref, got = values(base_buf, ts[key]), values(new_buf, ts[key])
    cos = float(np.dot(ref, got) / np.sqrt(np.dot(ref, ref) * np.dot(got, got)))
    expect(close(pairs[key]["cosine"], cos), "%s: cosine %r = numpy's %r" % (what, pairs[key]["cosine"], cos))
    expect(pairs[key]["mismatches"] == int(np.sum(ref != got)),
           "%s: %d elements outside the tolerance (integers compared exactly)" % (what, pairs[key]["mismatches"]))
    expect(nd["largest"] and nd["largest"]["key"] == key, "%s: the largest error is %s" % (what, key))
    rc, out, err = run(diff_args(path, ["--json", "--fail-if-snr-below", "40"]))
    ok = rc == 3
    try:
        ok = ok and json.loads(out)["numerics"]["first_divergence"]["key"] == key
    except ValueError:
        ok = False
    expect(ok, "%s: --fail-if-snr-below 40 exits 3 (got %d) after writing its JSON" % (what, rc))
    rc, out, err = run(diff_args(path))
    line = next((ln for ln in out.splitlines() if ln.startswith("first divergence")), "")
    expect(rc == 0 and key in line and next((ln for ln in out.splitlines() if ln.startswith("largest error")), ""),
           "%s: the text names the first divergence and the largest error: %r" % (what, line))
    return nd


def case_same(work):
    ts = flatc_tensors(work)
    nd = numerics_json()
    pairs = nd["pairs"]
    expect(len(pairs) == len(ts) == 4 and [p["key"] for p in pairs] == [t[0] for t in ts],
           "%d pairs in the base run's event order %s" % (len(pairs), [p["key"] for p in pairs]))
    expect(all(p["snr_db"] == "inf" and p["mse"] == 0 and p["max_abs_err"] == 0 and not p["diverged"]
               for p in pairs), "every pair: SNR +inf, MSE 0, max abs error 0")
    expect(nd["level"] == "key" and all(p["level"] == ("output_index" if p["origin"] == "program_output" else "key")
                                        for p in pairs), "matched by key (same program), outputs by index")
    expect(nd["first_divergence"] is None and nd["largest"] is None and nd["counts"]["diverged"] == 0,
           "no divergence, no largest error")
    rc, out, err = run(diff_args(None, ["--fail-if-snr-below", "40"]))
    expect(rc == 0 and "no divergence" in out, "--fail-if-snr-below 40 exits 0 (got %d)" % rc)
    rc, out, err = run(diff_args(None, ["--csv"]))
    rows = list(csv.DictReader(io.StringIO(out)))
    expect(rc == 0 and [r["key"] for r in rows] == [p["key"] for p in pairs] and
           all(r["snr_db"] == "inf" and float(r["mse"]) == 0 for r in rows),
           "--csv: one row per pair with a header, SNR inf")
    # The debug buffer found beside the ETDump (NAME.debug.bin) when not given.
    rc, out, err = run(["diff", RUN + ".etdp", RUN + ".etdp", "--numerics", "--json", "--quiet"])
    expect(rc == 0 and len(json.loads(out)["numerics"]["pairs"]) == 4, "NAME.debug.bin beside the ETDump is found")


def case_inner(work):
    check_divergence(work, "forward_0_1/0", [0, 1, 0, 3], "instruction 1 perturbed")


def case_output(work):
    nd = check_divergence(work, "output/0", [5, 0, 0, 0], "output perturbed")
    expect(all(not p["diverged"] for p in nd["pairs"] if p["key"] != "output/0"),
           "output perturbed: only output/0 diverges")


def case_bad(work):
    ts = flatc_tensors(work)
    buf = open(RUN + ".debug.bin", "rb").read()
    inner = [t for t in ts if t[0] == "forward_0_1/0"][0]
    cut = os.path.join(work, "truncated.bin")
    with open(cut, "wb") as f:
        f.write(buf[:inner[3] + 8])  # instruction 1's tensor cut in half
    rc, out, err = run(diff_args(cut))
    lines = err.strip().splitlines()
    last = lines[-1] if lines else ""
    expect(rc == 1 and len([ln for ln in lines if "error" in ln or "outside" in ln]) == 1 and cut in last and
           str(inner[3]) in last, "truncated buffer: exit 1 (got %d), one line naming %s and offset %d: %r" %
           (rc, cut, inner[3], last))
    bundle = os.path.join(work, "bundle")
    if os.path.exists(bundle):
        shutil.rmtree(bundle)
    rc, out, err = run(["analyze", "--etdump", RUN + ".etdp", "--pte", RUN + ".bpte", "-o", bundle, "--quiet",
                        "--model-explorer", "none"])
    if rc:
        fatal("analyze -o failed: %s" % err)
    rc, out, err = run(["diff", bundle, RUN + ".etdp", "--numerics", "--new-debug-buffer", RUN + ".debug.bin"])
    expect(rc == 2 and "--numerics needs the runs' ETDumps and debug buffers" in err,
           "a bundle side with --numerics: exit 2 (got %d) %r" % (rc, err.strip()[:160]))
    rc, out, err = run(["diff", RUN + ".etdp", RUN + ".etdp", "--base-debug-buffer", RUN + ".debug.bin"])
    expect(rc == 2, "--base-debug-buffer without --numerics: exit 2 (got %d)" % rc)
    rc, out, err = run(diff_args(None, ["--fail-if-snr-below", "x"]))
    expect(rc == 2, "--fail-if-snr-below x: exit 2 (got %d)" % rc)


def publish(work, name, new_buffer):
    o = os.path.join(work, name)
    if os.path.exists(o):
        shutil.rmtree(o)
    rc, out, err = run(diff_args(new_buffer, ["-o", o, "--quiet"]))
    if rc:
        fatal("diff -o failed (%d): %s" % (rc, err))
    return o


def case_bundle(work):
    path, _ = perturbed(work, "forward_0_1/0", [0, 1, 0, 3])
    o = publish(work, "numerics-bundle", path)
    rc, out, err = run(["verify", o])
    expect(rc == 0, "the diff bundle verifies (%s)" % err.strip()[:200])
    with open(os.path.join(o, "result_manifest.json")) as f:
        man = json.load(f)
    arts = {a["path"] for a in man.get("artifacts", [])}
    expect({"numerics.csv", "model_explorer/numerics_overlay.json"} <= arts,
           "manifest lists numerics.csv and model_explorer/numerics_overlay.json")
    with open(os.path.join(o, "diff_summary.json")) as f:
        summary = json.load(f)
    nd = summary.get("numerics") or {}
    import jsonschema
    with open(os.path.join(SOURCE, "schemas", "json", "diff.v1.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(str(e.message) for e in jsonschema.Draft202012Validator(schema).iter_errors(summary))
    expect(not errors and nd, "diff_summary.json with numerics validates against diff.v1.schema.json %s" % errors[:3])
    with open(os.path.join(o, "numerics.csv")) as f:
        rows = list(csv.DictReader(f))
    expect([r["key"] for r in rows] == [p["key"] for p in nd.get("pairs", [])] and
           [r["first_divergence"] for r in rows].count("true") == 1 and
           next(r for r in rows if r["first_divergence"] == "true")["key"] == "forward_0_1/0",
           "numerics.csv: the pairs of diff_summary.json, forward_0_1/0 the first divergence")
    with open(os.path.join(o, "model_explorer", "numerics_overlay.json")) as f:
        ov = json.load(f)
    res = (ov.get("forward") or {}).get("results", {})
    want = figures(np.array([2, 2, 2, 2.0]), np.array([2, 3, 2, 5.0]))["snr_db"]
    expect(set(res) == {"forward_0_0", "forward_0_1", "forward_0_2"} and
           abs(res["forward_0_1"]["value"] - want) < 1e-9 and res["forward_0_0"]["value"] == 200,
           "overlay keyed by the base program's node ids, forward_0_1 at %.3f dB, exact ones at the 200 dB cap"
           % want)
    expect(res.get("forward_0_1", {}).get("bgColor", "").lower() != res.get("forward_0_0", {}).get("bgColor", "").lower(),
           "overlay: the diverged node is coloured apart from the exact ones")
    rc, out, err = run(["diff", RUN + ".etdp", RUN + ".etdp", "-o", os.path.join(work, "plain"), "--quiet", "--force"])
    man2 = json.load(open(os.path.join(work, "plain", "result_manifest.json")))
    expect(rc == 0 and "numerics.csv" not in {a["path"] for a in man2.get("artifacts", [])},
           "without --numerics no numerics.csv")


def case_chromium(work):
    sys.path.insert(0, os.path.join(SOURCE, "tests"))
    import views_check  # chromium_binary, page_dom, selftest_of
    exe = views_check.chromium_binary()
    if not exe:
        print("SKIP: chromium is not installed (apt-get install chromium fonts-dejavu-core)")
        sys.exit(77)
    path, _ = perturbed(work, "forward_0_1/0", [0, 1, 0, 3])
    o = publish(work, "page", path)
    page = os.path.join(o, "diff.html")
    html = open(page).read()
    for bad in ("http://", "https://", "<link", "src=\""):
        expect(bad not in html, "the page is standalone (no %r)" % bad)
    dom = views_check.page_dom(exe, "file://" + os.path.abspath(page), "diff.html", os.path.join(work, "console.log"))
    st = views_check.selftest_of(dom)
    expect(not st["errors"], "no script error %r" % st["errors"])
    rows = st.get("numerics", [])
    expect([r["key"] for r in rows] == ["forward_0_0/0", "forward_0_1/0", "forward_0_2/0", "output/0"],
           "the numerics table's rows, in base order: %r" % [r["key"] for r in rows])
    first = [r["key"] for r in rows if r["first"]]
    expect(first == ["forward_0_1/0"] and [r["key"] for r in rows if r["diverged"]] == ["forward_0_1/0"],
           "the first divergence row is marked (%r)" % first)
    expect(all(r["height"] > 0 for r in rows) and rows and rows[0]["snr"] == "+inf",
           "rows drawn, SNR +inf shown as such")


CASES = {"same": case_same, "inner": case_inner, "output": case_output, "bad": case_bad,
         "bundle": case_bundle, "chromium": case_chromium}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        print(__doc__)
        sys.exit(2)
    if not os.path.isdir(FIXTURES):
        print("SKIP: %s is absent; this test reads real runs there" % FIXTURES)
        sys.exit(77)
    work = sys.argv[2]
    os.makedirs(work, exist_ok=True)
    CASES[sys.argv[1]](work)
    print("%d failure(s)" % len(FAILURES))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
