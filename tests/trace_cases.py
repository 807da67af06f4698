#!/usr/bin/python3
"""Scenario tests for `etprof trace` on hand-made ETDumps and bad input.

Each case writes an ETDump as JSON, has flatc (the independent encoder) turn
it into a size-prefixed binary with schemas/flatbuffers/etdump.fbs, runs `etprof trace`
and checks the trace: delegate events on a foreign time base, partial
overlaps, tie order, units, 32-bit wraparound, debug and allocation events,
methods, exit codes and messages.

usage: trace_cases.py ETPROF SCHEMA_DIR FIXTURES_DIR
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

ETPROF, SCHEMA, FIX = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="etprof-trace-cases-")
atexit.register(shutil.rmtree, TMP, True)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)
    else:
        print("ok   " + what)


def pe(name, chain, instr, start, end, **kw):
    d = {"chain_index": chain, "instruction_id": instr, "start_time": start, "end_time": end}
    if name is not None:
        d["name"] = name
    d.update(kw)
    return {"profile_event": d}


def de(chain, instr, output=False):
    entry = {"val": "Int", "int_value": {"int_val": 7}}
    if output:
        entry["output"] = {"bool_val": True}
    return {"debug_event": {"chain_index": chain, "instruction_id": instr, "debug_entry": entry}}


def execute_block(events):
    return {"name": "Execute", "events": events}


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


def trace(path, *extra):
    """Run `etprof trace PATH -o - EXTRA` and return (rc, doc, stderr)."""
    rc, out, err = run("trace", path, "-o", "-", *extra)
    doc = json.loads(out, parse_float=Decimal) if rc == 0 else None
    return rc, doc, err


def slices(doc):
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]


def thread_names(doc):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def by_name(doc, name):
    return [e for e in slices(doc) if e["name"] == name]


# 1. QNN-style delegate events (start 0, end = duration): their own track,
#    laid end to end from the DELEGATE_CALL's start, never at time 0.
qnn = build("qnn", [execute_block([
    pe(None, 0, 0, 0, 500, delegate_debug_id_str="QNN graph"),
    pe(None, 0, 0, 0, 300, delegate_debug_id_str="conv"),
    pe("DELEGATE_CALL", 0, 0, 1000, 2000),
    pe("Method::execute", -1, 0, 900, 2100)])])
rc, doc, err = trace(qnn)
if rc == 0:
    names = thread_names(doc)
    g, c, call = by_name(doc, "QNN graph"), by_name(doc, "conv"), by_name(doc, "DELEGATE_CALL")
    ok = len(g) == 1 and len(c) == 1 and len(call) == 1
    ok = ok and "duration only" in names[(g[0]["pid"], g[0]["tid"])] and g[0]["tid"] == c[0]["tid"]
    ok = ok and g[0]["tid"] != call[0]["tid"]
    ok = ok and g[0]["ts"] == Decimal("1") and g[0]["dur"] == Decimal("0.5")
    ok = ok and c[0]["ts"] == Decimal("1.5") and c[0]["dur"] == Decimal("0.3")
    ok = ok and "start_time is 0" in g[0]["args"]["reason"] and "synthetic" in g[0]["args"]["time_base"]
    ok = ok and doc["otherData"]["duration_only_slices"] == 2
    expect(ok, "start_time 0: duration-only track, end to end from the DELEGATE_CALL start (1, 1.5 us)")
else:
    expect(False, "qnn case runs (%s)" % err.strip())

# 2. A delegate event outside its DELEGATE_CALL: duration only, said why.
outside = build("outside", [execute_block([
    pe(None, 0, 0, 5000, 5100, delegate_debug_id_int=3),
    pe(None, 0, 0, 1100, 1200, delegate_debug_id_int=4),
    pe("DELEGATE_CALL", 0, 0, 1000, 2000),
    pe("Method::execute", -1, 0, 900, 2100)])])
rc, doc, err = trace(outside)
if rc == 0:
    out3, in4, call = by_name(doc, "delegate 3"), by_name(doc, "delegate 4"), by_name(doc, "DELEGATE_CALL")
    expect(len(out3) == 1 and "not inside its DELEGATE_CALL" in out3[0]["args"].get("reason", "")
           and out3[0]["tid"] != call[0]["tid"] and out3[0]["dur"] == Decimal("0.1"),
           "delegate event outside its DELEGATE_CALL goes to the duration-only track")
    expect(len(in4) == 1 and in4[0]["tid"] == call[0]["tid"] and in4[0]["ts"] == Decimal("1.1")
           and "time_base" not in in4[0]["args"],
           "delegate event inside its DELEGATE_CALL stays on the host track at its time")
else:
    expect(False, "outside case runs (%s)" % err.strip())

# 3. No DELEGATE_CALL (method-only profiling): judged against Method::execute.
methodonly = build("methodonly", [execute_block([
    pe(None, 0, 0, 950, 1050, delegate_debug_id_str="in"),
    pe(None, 0, 0, 3000, 3050, delegate_debug_id_str="out"),
    pe("Method::execute", -1, 0, 900, 2100)])])
rc, doc, err = trace(methodonly)
if rc == 0:
    i, o, x = by_name(doc, "in"), by_name(doc, "out"), by_name(doc, "Method::execute")
    expect(i[0]["tid"] == x[0]["tid"] and o[0]["tid"] != x[0]["tid"]
           and "framework event" in o[0]["args"]["reason"],
           "without DELEGATE_CALL, delegate events are checked against Method::execute")
else:
    expect(False, "method-only case runs (%s)" % err.strip())

# 4. Partial overlap: moved to an overlap track; nothing dropped.
overlap = build("overlap", [execute_block([
    pe("native_call_add.out", 0, 0, 150, 250),
    pe("OPERATOR_CALL", 0, 0, 100, 200),
    pe("Method::execute", -1, 0, 50, 300)])])
rc, doc, err = trace(overlap)
if rc == 0:
    names = thread_names(doc)
    k, op = by_name(doc, "native_call_add.out"), by_name(doc, "OPERATOR_CALL")
    expect(k[0]["tid"] != op[0]["tid"] and "overlap 1" in names[(k[0]["pid"], k[0]["tid"])]
           and doc["otherData"]["overlap_slices"] == 1 and doc["otherData"]["dropped_events"] == 0
           and "overlap" in k[0]["args"], "a partially overlapping event moves to an 'overlap 1' track")
else:
    expect(False, "overlap case runs (%s)" % err.strip())

# 5. Equal intervals: the enclosing scope first, whatever the logged order.
ties = build("ties", [execute_block([
    pe("native_call_add.out", 0, 0, 100, 200),
    pe("OPERATOR_CALL", 0, 0, 100, 200),
    pe("Method::execute", -1, 0, 100, 200)])])
rc, doc, err = trace(ties)
order = [e["args"]["event"] for e in slices(doc)] if rc == 0 else []
expect(order == ["Method::execute", "OPERATOR_CALL", "native_call_add.out"],
       "equal ranges: Method::execute, OPERATOR_CALL, native_call (got %s)" % order)

# 6. Units: cycles stay cycles (and say so); ms and us convert exactly.
rep = build("units", [execute_block([pe("OPERATOR_CALL", 0, 0, 1234567, 1234999),
                                     pe("Method::execute", -1, 0, 1234000, 1240000)])])
rc, doc, err = trace(rep, "--source-unit", "cycles")
if rc == 0:
    op = by_name(doc, "OPERATOR_CALL")[0]
    labels = [e["args"]["labels"] for e in doc["traceEvents"] if e["name"] == "process_labels"]
    expect(op["ts"] == 1234567 and op["dur"] == 432 and doc["otherData"]["ts_dur_unit"] == "cycles"
           and "cycles" in doc["otherData"]["note"] and all("cycles" in l for l in labels),
           "cycles: ts/dur are the cycle counts, labelled as cycles")
else:
    expect(False, "cycles case runs (%s)" % err.strip())
rc, doc, err = trace(rep, "--source-unit", "ms")
expect(rc == 0 and by_name(doc, "OPERATOR_CALL")[0]["ts"] == 1234567000
       and by_name(doc, "OPERATOR_CALL")[0]["dur"] == 432000, "ms ticks: ts/dur x1000 us")
rc, doc, err = trace(rep, "--source-unit", "us")
expect(rc == 0 and by_name(doc, "OPERATOR_CALL")[0]["ts"] == 1234567, "us ticks: ts/dur as is")
rc, doc, err = trace(rep)
expect(rc == 0 and by_name(doc, "OPERATOR_CALL")[0]["ts"] == Decimal("1234.567")
       and by_name(doc, "OPERATOR_CALL")[0]["dur"] == Decimal("0.432"), "ns ticks: exact /1000")

# 7. 32-bit wraparound.
wrap = build("wrap", [execute_block([pe("OPERATOR_CALL", 0, 0, 4294967000, 200)])])
rc, doc, err = trace(wrap)
op = by_name(doc, "OPERATOR_CALL")[0] if rc == 0 else {"args": {}}
expect(rc == 0 and op.get("dur") == Decimal("0.496") and op["args"].get("wrapped_32bit") is True
       and doc["otherData"]["wrapped_intervals"] == 1, "32-bit wrap: 496 ticks, flagged")

# 8. Debug events: instants at the end of their instruction; program outputs
#    at the end of Method::execute; no matching instruction: skipped.
dbg = build("debug", [execute_block([
    de(0, 0),
    pe("native_call_add.out", 0, 0, 110, 190),
    pe("OPERATOR_CALL", 0, 0, 100, 200),
    de(0, 5),
    pe("Method::execute", -1, 0, 50, 300),
    de(2**64 - 1, 0, output=True)])])
rc, doc, err = trace(dbg)
if rc == 0:
    inst = [e for e in doc["traceEvents"] if e["ph"] == "i"]
    expect(len(inst) == 2 and inst[0]["ts"] == Decimal("0.2") and inst[0]["name"] == "intermediate output"
           and inst[0]["args"]["value"] == 7 and inst[1]["ts"] == Decimal("0.3")
           and inst[1]["name"] == "program output" and inst[0]["s"] == "t"
           and doc["otherData"]["debug_instants"] == 2 and doc["otherData"]["debug_events_skipped"] == 1,
           "debug: instant at OPERATOR_CALL end, program output at execute end, unmatched one skipped")
else:
    expect(False, "debug case runs (%s)" % err.strip())
rc, doc, err = trace(dbg, "--no-debug-events")
expect(rc == 0 and not [e for e in doc["traceEvents"] if e["ph"] == "i"]
       and doc["otherData"]["debug_events_skipped"] == 3, "--no-debug-events leaves them out")

# 9. Allocation and empty events: counted, never drawn.
alloc = build("alloc", [{"name": "Default", "allocators": [{"name": "a"}],
                         "events": [{"allocation_event": {"allocator_id": 1, "allocation_size": 64}}, {},
                                    pe("Method::init", -1, 0, 1, 2)]}])
rc, doc, err = trace(alloc)
expect(rc == 0 and doc["otherData"]["allocation_events_skipped"] == 1 and doc["otherData"]["empty_events"] == 1
       and not [e for e in doc["traceEvents"] if e["ph"] not in ("M", "X")],
       "allocation and empty events counted in otherData, not drawn")

# 10. Several executions: one track each, numbered per method.
multi = build("multi", [
    {"name": "Default", "events": [pe("Method::init", -1, 0, 1, 2), pe("Program::load_method", -1, 0, 0, 3)]},
    execute_block([pe("Method::execute", -1, 0, 10, 20)]),
    execute_block([pe("Method::execute", -1, 0, 30, 40)])])
rc, doc, err = trace(multi)
names = sorted(thread_names(doc).values()) if rc == 0 else []
expect(names == ["execute 1 (RunData 1)", "execute 2 (RunData 2)", "load_method 1 (RunData 0)"],
       "one track per block: %s" % names)

# 11. Bad input: exit 1 with one line; nothing written, nothing clobbered.
bad = build("badinterval", [execute_block([pe("OPERATOR_CALL", 0, 0, 2**40, 5)])])
target = os.path.join(TMP, "keep.json")
with open(target, "w") as f:
    f.write("previous")
rc, out, err = run("trace", bad, "-o", target)
with open(target) as f:
    kept = f.read()
expect(rc == 1 and "ends before it starts" in err and err.count("\n") == 1 and err.startswith("etprof: ")
       and kept == "previous" and not [n for n in os.listdir(TMP) if n.startswith("keep.json.tmp")],
       "invalid interval: exit 1, one line; the existing output file is untouched")
trunc = os.path.join(TMP, "trunc.etdp")
with open(qnn, "rb") as f:
    data = f.read()
with open(trunc, "wb") as f:
    f.write(data[: len(data) // 2])
fresh = os.path.join(TMP, "fresh.json")
rc, out, err = run("trace", trunc, "-o", fresh)
expect(rc == 1 and err.count("\n") == 1 and err.startswith("etprof: ") and not os.path.exists(fresh),
       "truncated ETDump: exit 1, one line, no output file")
rc, out, err = run("trace", os.path.join(TMP, "missing.etdp"), "-o", fresh)
expect(rc == 1 and err.count("\n") == 1, "missing ETDump: exit 1, one line")
rc, out, err = run("trace", qnn, "-o", os.path.join(TMP, "no/such/dir/t.json"))
expect(rc == 1 and err.count("\n") == 1, "unwritable output: exit 1, one line")
rc, out, err = run("trace", qnn, "--first", "1")
expect(rc == 0 and json.loads(out)["traceEvents"], "without -o the trace goes to standard output (as graph's)")
rc, out, err = run("trace", qnn, "-o", "-", "--method", "forward")
expect(rc == 2, "--method without --pte is a usage error")
rc, out, err = run("trace", qnn, "-o", "-", "--source-unit", "parsecs")
expect(rc == 2, "unknown unit is a usage error")
rc, out, err = run("trace", "--help")
expect(rc == 0 and "duration only" in out, "--help describes the command")

if os.path.isdir(FIX):
    tut = os.path.join(FIX, "executorch/tutorial.etdp")
    add = os.path.join(FIX, "executorch/add.pte")
    rc, out, err = run("trace", tut, "--pte", add, "-o", fresh)
    expect(rc == 1 and tut in err and add in err and err.count("\n") == 1 and not os.path.exists(fresh),
           "ETDump/program mismatch: exit 1, one line naming both files, no output")
    rc, out, err = run("trace", add, "-o", fresh)
    expect(rc == 1 and err.count("\n") == 1 and "is a program" in err and "not an ETDump" in err,
           "a program given as the ETDump: exit 1, one line saying what it is")
    kws = os.path.join(FIX, "real-runs/cm_et_arduino_kws_x10")
    rc, out, err = run("trace", kws + ".etdp", "--pte", kws + ".pte", "--method", "nope", "-o", fresh)
    expect(rc == 2 and "no method named 'nope'" in err and err.count("\n") == 1, "unknown --method: exit 2")
    rc, doc, err = trace(kws + ".etdp", "--pte", kws + ".pte")
    pn = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"] if rc == 0 else []
    ops = {e["name"] for e in slices(doc) if e["args"]["event"] == "OPERATOR_CALL"} if rc == 0 else set()
    expect(pn == ["forward"] and "cortex_m::quantized_linear.out" in ops and len(ops) >= 8
           and len(thread_names(doc)) == 11, "Cortex-M run: process 'forward', 11 tracks, operators named")
    multi = os.path.join(FIX, "real-runs/np_multi_forward_x10")
    rc, doc, err = trace(multi + ".etdp", "--pte", multi + ".pte")
    pn = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"] if rc == 0 else []
    expect(pn == ["double | forward", "(method not identified)"],
           "identical methods share a process named 'double | forward'; the load block is unattributed (%s)"
           % pn)
    rc, doc, err = trace(multi + ".etdp", "--pte", multi + ".pte", "--method", "forward")
    pn = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"] if rc == 0 else []
    expect(pn == ["forward"], "--method forward: one process 'forward'")
    const = os.path.join(FIX, "real-runs/np_const_methods_get_tensor_x3")
    rc, doc, err = trace(const + ".etdp", "--pte", const + ".pte")
    pn = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"] if rc == 0 else []
    expect(pn == ["(method not identified)"], "no instruction events: method not identified")
    rc, doc, err = trace(const + ".etdp", "--pte", const + ".pte", "--method", "get_tensor")
    pn = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"] if rc == 0 else []
    expect(pn == ["get_tensor"], "--method get_tensor names the process")
    syn = os.path.join(FIX, "executorch/synthetic_multi_run.etdp")
    rc, doc, err = trace(syn)
    if rc == 0:
        names = thread_names(doc)
        dl = [e for e in slices(doc) if e["cat"] == "delegate"]
        calls = {e["args"]["run"]: e for e in slices(doc) if e["args"]["event"] == "DELEGATE_CALL"}
        main = [e for e in dl if e["tid"] == calls[e["args"]["run"]]["tid"]]
        inside = all(calls[e["args"]["run"]]["ts"] <= e["ts"] and e["ts"] + e["dur"]
                     <= calls[e["args"]["run"]]["ts"] + calls[e["args"]["run"]]["dur"] for e in dl)
        moved = [e for e in dl if e not in main]
        expect(len(dl) == 9 and inside and len(moved) == 2
               and all("overlap" in names[(e["pid"], e["tid"])] for e in moved)
               and doc["otherData"]["duration_only_slices"] == 0
               and {e["name"] for e in dl} == {"delegate 0", "delegate 1", "fused_op_1_2"}
               and [e for e in dl if e["name"] == "delegate 0"][0]["args"]["delegate_metadata"] == "cycles=123",
               "synthetic_multi_run: 9 delegate events on the host clock inside their DELEGATE_CALL; "
               "the 2 that overlap a sibling by 10 ns go to overlap tracks")
        expect(doc["otherData"]["allocation_events_skipped"] == 1 and doc["otherData"]["debug_instants"] == 6,
               "synthetic_multi_run: 1 allocation skipped, 6 debug instants")
    else:
        expect(False, "synthetic fixture runs (%s)" % err.strip())
else:
    print("SKIP (fixture cases): ../shared/fixtures is absent")

sys.exit(1 if failures else 0)
