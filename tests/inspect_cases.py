#!/usr/bin/python3
"""Scenario tests for `etprof inspect` on hand-made ETDumps.

Each case writes an ETDump as JSON, has flatc (the independent encoder)
turn it into a size-prefixed binary with schemas/flatbuffers/etdump.fbs, runs etprof and
checks the result: every sample kept, 32-bit wraparound, invalid intervals,
unit rules, program mismatches, exit codes.

usage: inspect_cases.py ETPROF SCHEMA_DIR FIXTURES_DIR
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

ETPROF, SCHEMA, FIX = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="etprof-inspect-")
atexit.register(shutil.rmtree, TMP, True)
failures = []


def pe(name, chain, instr, start, end, **kw):
    d = {"chain_index": chain, "instruction_id": instr, "start_time": start, "end_time": end}
    if name is not None:
        d["name"] = name
    d.update(kw)
    return {"profile_event": d}


def build(name, runs):
    src = os.path.join(TMP, name + ".json")
    with open(src, "w") as f:
        json.dump({"run_data": runs}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", TMP, os.path.join(SCHEMA, "etdump.fbs"), src],
                   check=True)
    return os.path.join(TMP, name + ".etdp")


def run(*args):
    p = subprocess.run([ETPROF] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)
    else:
        print("ok   " + what)


def execute_block(events):
    return {"name": "Execute", "events": events}


# 1. A name repeated at one instruction within one run keeps every sample.
rep = build("repeat", [
    execute_block([pe("native_call_add.out", 0, 0, 100, 110), pe("native_call_add.out", 0, 0, 200, 230),
                   pe("Method::execute", -1, 0, 50, 300)]),
    execute_block([pe("native_call_add.out", 0, 0, 400, 420), pe("native_call_add.out", 0, 0, 500, 540),
                   pe("Method::execute", -1, 0, 350, 600)]),
])
rc, out, err = run("inspect", "--json", "--raw", "--unit", "ns", rep)
doc = json.loads(out) if rc == 0 else {}
ev = doc["blocks"][0]["events"][0] if rc == 0 else {}
expect(rc == 0 and ev.get("n") == 4 and ev.get("raw") == [10.0, 30.0, 20.0, 40.0]
       and ev.get("max_per_run") == 2 and ev.get("avg") == 25.0,
       "repeated event keeps all 4 samples in run order")

# 2. 32-bit wraparound: 2^32 - start + end.
wrap = build("wrap", [execute_block([pe("OPERATOR_CALL", 0, 0, 4294967000, 200)])])
rc, out, err = run("inspect", "--json", "--raw", "--unit", "ns", wrap)
doc = json.loads(out) if rc == 0 else {}
expect(rc == 0 and doc["blocks"][0]["events"][0]["raw"] == [496.0]
       and doc["blocks"][0]["wrapped_intervals"] == 1, "32-bit wrap gives 496 ticks and is counted")

# 3. An interval that ends before it starts beyond 32 bits is an error with an offset.
bad = build("badinterval", [execute_block([pe("OPERATOR_CALL", 0, 0, 2**40, 5)])])
rc, out, err = run("inspect", bad)
expect(rc == 1 and "ends before it starts" in err and "(offset " in err and err.count("\n") == 1,
       "invalid interval: exit 1, one line with offset")

# 4. Units: cycles need cycles (or a clock rate).
rc, out, err = run("inspect", "--source-unit", "cycles", "--unit", "ms", rep)
expect(rc == 2, "cycles -> ms without --cpu-hz is a usage error")
rc, out, err = run("inspect", "--json", "--raw", "--source-unit", "cycles", "--unit", "cycles", rep)
expect(rc == 0 and json.loads(out)["blocks"][0]["events"][0]["raw"] == [10.0, 30.0, 20.0, 40.0],
       "cycles -> cycles keeps tick counts")
rc, out, err = run("inspect", "--json", "--raw", "--source-unit", "cycles", "--cpu-hz", "1e6", "--unit", "ms", rep)
expect(rc == 0 and json.loads(out)["blocks"][0]["events"][0]["raw"] == [0.01, 0.03, 0.02, 0.04],
       "cycles at 1 MHz -> ms")
rc, out, err = run("inspect", "--unit", "parsecs", rep)
expect(rc == 2, "unknown unit is a usage error")

# 5. Allocation and empty events are counted, not fatal.
alloc = build("alloc", [{"name": "Default", "allocators": [{"name": "a"}],
                         "events": [{"allocation_event": {"allocator_id": 1, "allocation_size": 64}}, {},
                                    pe("Method::init", -1, 0, 1, 2)]}])
rc, out, err = run("inspect", "--json", alloc)
blk = json.loads(out)["blocks"][0] if rc == 0 else {}
expect(rc == 0 and blk.get("allocation_events") == 1 and blk.get("allocation_bytes") == 64
       and blk.get("empty_events") == 1, "allocation and empty events counted")

# 6. Large rows (more than 64 samples) use selection, not sorting: same
#    numbers as numpy, including ties.
import random
import numpy as np
rng = random.Random(7)
durs = [rng.choice([rng.randint(1, 10**6), 500, 500]) for _ in range(301)]
many = build("many", [execute_block([pe("OPERATOR_CALL", 0, 0, 1000, 1000 + d)]) for d in durs])
rc, out, err = run("inspect", "--json", "--unit", "ns", many)
ev = json.loads(out)["blocks"][0]["events"][0] if rc == 0 else {}
a = np.array(durs, dtype=np.float64)
expect(rc == 0 and ev.get("n") == 301 and all(
    abs(ev[k] - float(np.percentile(a, q))) <= 1e-9 * max(1.0, abs(float(np.percentile(a, q))))
    for k, q in (("p10", 10), ("p50", 50), ("p90", 90)))
       and ev["min"] == a.min() and ev["max"] == a.max(), "301 samples: percentiles equal numpy's")

if os.path.isdir(FIX):
    tut = os.path.join(FIX, "executorch/tutorial.etdp")
    add = os.path.join(FIX, "executorch/add.pte")
    rc, out, err = run("inspect", tut, "--pte", add)
    expect(rc == 1 and tut in err and add in err and err.count("\n") == 1,
           "ETDump/program mismatch names both files in one line")
    kws = os.path.join(FIX, "real-runs/cm_et_arduino_kws_x10")
    rc, out, err = run("inspect", kws + ".etdp", "--pte", kws + ".pte", "--method", "nope")
    expect(rc == 2 and "no method named 'nope'" in err and "forward" in err, "unknown --method lists methods")
    rc, out, err = run("inspect", "--json", kws + ".etdp", "--pte", kws + ".pte")
    doc = json.loads(out) if rc == 0 else {"blocks": [{}, {}]}
    ops = {(e["instruction_id"], e.get("operator")) for e in doc["blocks"][1].get("events", [])
           if e["event_name"] == "OPERATOR_CALL"}
    expect(rc == 0 and (14, "cortex_m::quantized_linear.out") in ops and len(ops) == 16,
           "real Cortex-M run: 16 instructions named from the .pte")
    multi = os.path.join(FIX, "real-runs/np_multi_forward_x10")
    rc, out, err = run("inspect", "--json", multi + ".etdp", "--pte", multi + ".pte")
    blk = json.loads(out)["blocks"][1] if rc == 0 else {}
    expect(rc == 0 and blk.get("method") == "double" and blk.get("indistinguishable_from") == ["forward"],
           "identical methods are reported as indistinguishable")
    tut_json = json.loads(run("inspect", "--json", tut)[1])
    exe = tut_json["blocks"][1]["summary"]
    expect(exe["method_execute"]["avg"] == 1.898821 and abs(exe["operator_calls"]["avg"] - 1.896076) < 1e-15
           and abs(exe["native_kernels"]["avg"] - 1.889086) < 1e-15
           and abs(exe["dispatch_overhead"]["avg"] - 0.00699) < 1e-15
           and abs(exe["execute_minus_instructions"]["avg"] - 0.002745) < 1e-15,
           "tutorial summary: execute 1.898821, ops 1.896076, kernels 1.889086, dispatch 0.00699, framework 0.002745 ms")
else:
    print("SKIP (fixture cases): ../shared/fixtures is absent")

sys.exit(1 if failures else 0)
