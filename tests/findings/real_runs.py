#!/usr/bin/python3
"""No false alarms on real runs: `etprof analyze --json` on every real run of
the fixtures (each with its program and runner log; the Cortex-M one with
its ETRecord too), the device console log and the built-in demo, and the
findings that fire compared with a checked-in list.

  real_runs.py ETPROF EXPECTED.json WORKDIR [--print]

EXPECTED.json maps each input's name to the sorted codes that must fire
(one entry per finding; the "why" beside each says which numbers make it
true). Any difference fails, naming the input, the codes and the messages.
--print writes the current findings and the figures they rest on instead
of checking (to review, never to copy into the expectations unread).
Exit 77 when ../shared/fixtures is absent.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import findings_check as fc  # noqa: E402
from findings_check import fail  # noqa: E402

REAL = ("et_add_x1", "et_add_x10", "np_dtypes_x10", "np_multi_forward_x10", "np_const_methods_get_tensor_x3",
        "xnn_np_add_x10", "cm_et_arduino_kws_x10", "et_bundled_program_debug_intermediate")


def inputs(etprof, fixtures, work):
    """(name, analyze arguments) of every real input."""
    rr = os.path.join(fixtures, "real-runs")
    out = []
    for name in REAL:
        base = os.path.join(rr, name)
        program = base + (".bpte" if os.path.exists(base + ".bpte") else ".pte")
        args = ["--etdump", base + ".etdp", "--pte", program, "--log", base + ".log"]
        if os.path.exists(base + ".etrecord"):
            args += ["--etrecord", base + ".etrecord"]
        if os.path.exists(base + ".debug.bin"):
            args += ["--debug-buffer", base + ".debug.bin"]
        out.append((name, args))
    out.append(("device-logs/arm_serial_kws_u85",
                ["--log", os.path.join(fixtures, "device-logs", "arm_serial_kws_u85.log"),
                 "--pte", os.path.join(rr, "cm_et_arduino_kws_x10.pte")]))
    demo = os.path.join(work, "demo")
    r = subprocess.run([etprof, "gen", "demo", "-o", demo], capture_output=True, text=True, timeout=fc.GUARD)
    if r.returncode:
        fail("etprof gen demo exited %d: %s" % (r.returncode, r.stderr.strip()))
    out.append(("demo", [os.path.join(demo, "model.etrecord"), "--etdump", os.path.join(demo, "run.etdp"),
                         "--pte", os.path.join(demo, "model.pte"), "--source-unit", "ns"]))
    return out


def figures(doc):
    """The figures findings read, as name -> (avg, unit), with shares of
    Method::execute where they mean something."""
    fig = {f["name"]: f for f in doc["figures"]}
    ex = fig.get("method_execute", {}).get("avg")
    lines = []
    for name in ("method_execute", "operator_calls_total", "delegate_calls_total", "native_kernels_total",
                 "dispatch_overhead_total", "framework_overhead"):
        f = fig.get(name)
        if not f:
            continue
        share = " (%.1f%%)" % (100 * f["avg"] / ex) if ex and f.get("avg") is not None else ""
        lines.append("%s %s %s%s%s" % (name, f.get("avg"), f.get("unit"), share,
                                       " unavailable: " + f["reason"] if f.get("reason") else ""))
    cs = doc.get("warmup", {}).get("cold_start") or {}
    if cs:
        lines.append("first/rest %s" % cs.get("first_over_rest_avg"))
    f = fig.get("method_execute")
    if f and f.get("avg"):
        lines.append("execute min %s p50 %s max %s over %s" % (f["min"], f["p50"], f["max"], f["samples"]))
    return lines


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--print"):
        print(__doc__)
        return 2
    etprof, expected_path, work = argv[1], argv[2], argv[3]
    fc.skip_without_fixtures(fc.FIXTURES)
    os.makedirs(work, exist_ok=True)
    with open(expected_path) as f:
        expected = json.load(f)["fired"]
    problems, seen = [], set()
    for name, args in inputs(etprof, fc.FIXTURES, work):
        doc = fc.analyze_ok(etprof, args, name)
        got = fc.fired_codes(doc)
        if len(argv) == 5:
            print("== %s: fired %s" % (name, got))
            for line in figures(doc):
                print("   " + line)
            for f in doc["findings"]:
                print("   " + fc.describe(f))
            continue
        seen.add(name)
        if name not in expected:
            problems.append("%s: no expectation (fired %s)" % (name, got))
            continue
        want = sorted(e["code"] for e in expected[name])
        if got != want:
            problems.append("%s: fired %s, expected %s\n    %s" % (
                name, got, want, "\n    ".join(fc.describe(f) for f in doc["findings"])))
    if len(argv) == 5:
        return 0
    stale = sorted(set(expected) - seen)
    if stale:
        problems.append("expectations for inputs not analysed: %s" % stale)
    if problems:
        fail("findings on real runs differ from %s:\n  %s" % (expected_path, "\n  ".join(problems)))
    print("OK: %d real inputs, the findings expected and no other" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
