#!/usr/bin/python3
"""Check `etprof trace` on real ETDumps against an independent decode.

For each ETDUMP[:PROGRAM] argument: run `etprof trace`, parse the output as
JSON (numbers as exact decimals) and compare it with flatc's decode of the
ETDump (and of the program) done here:
  - every ProfileEvent appears as exactly one "X" event of its run, with its
    raw ticks; on the host clock ts/dur are exactly ticks / 1000 (ns -> us);
  - on every track, X events are emitted in viewer order (start, then longer
    first) and nest: two intervals are either disjoint or one contains the
    other; native_call_* sits directly inside the OPERATOR_CALL of its
    instruction and host-clock delegate events inside their DELEGATE_CALL,
    which sit inside Method::execute;
  - with a program: OPERATOR_CALL slices carry the operator's name from the
    .pte (name.overload) and DELEGATE_CALL slices the backend id, of the
    method named by their process;
  - every pid/tid has its process_name/thread_name metadata;
  - a second run gives byte-identical output.

usage: trace_check.py ETPROF SCHEMA_DIR ETDUMP[:PROGRAM]...
"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

ETPROF, SCHEMA = sys.argv[1], sys.argv[2]
CASES = sys.argv[3:]
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)
    else:
        print("ok   " + what)


def flatc_json(tmp, schema, path, extra):
    out = os.path.join(tmp, "flatc")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"] + extra
                   + ["-o", out, os.path.join(SCHEMA, schema), "--", path], check=True)
    with open(os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


def decode_program(tmp, path):
    with open(path, "rb") as f:
        head = f.read(8)
    if head[4:8] == b"BP08":
        bp = flatc_json(tmp, "bundled_program.fbs", path, [])
        inner = os.path.join(tmp, "inner_program.pte")
        with open(inner, "wb") as f:
            f.write(bytes(bp["program"]))
        path = inner
    return flatc_json(tmp, "program.fbs", path, [])


def op_name(op):
    return op["name"] + ("." + op["overload"] if op.get("overload") else "")


def check_case(tmp, dump, program):
    tag = os.path.basename(dump) + (" + " + os.path.basename(program) if program else "")
    ref = flatc_json(tmp, "etdump.fbs", dump, ["--size-prefixed"])
    plans = {p["name"]: p for p in decode_program(tmp, program)["execution_plan"]} if program else {}
    out = os.path.join(tmp, "trace.json")
    args = [ETPROF, "trace", dump, "-o", out] + (["--pte", program] if program else [])
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    expect(p.returncode == 0 and p.stderr == "", "%s: exit 0, nothing on stderr (%s)" % (tag, p.stderr.strip()))
    if p.returncode:
        return
    with open(out, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw, parse_float=Decimal)
    except ValueError as e:
        expect(False, "%s: valid JSON (%s)" % (tag, e))
        return
    expect(isinstance(doc.get("traceEvents"), list) and "displayTimeUnit" not in doc,
           "%s: {traceEvents: [...]} without displayTimeUnit" % tag)
    evs = doc["traceEvents"]
    other = doc.get("otherData", {})

    # Metadata for every pid and tid.
    pnames = {e["pid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
              if e["ph"] == "M" and e["name"] == "thread_name"}
    xs = [e for e in evs if e["ph"] == "X"]
    expect(all(e["pid"] in pnames and (e["pid"], e["tid"]) in tnames for e in evs if e["ph"] in "Xi"),
           "%s: every event's process and thread are named" % tag)

    # 1. One X event per ProfileEvent, per run, with its raw ticks.
    want, total = [], 0
    for ri, run in enumerate(ref["run_data"]):
        for ev in run.get("events") or []:
            pe = ev.get("profile_event")
            if pe:
                want.append((ri, pe.get("name"), pe["chain_index"], pe["instruction_id"],
                             pe["start_time"], pe["end_time"]))
    got = [(e["args"]["run"], e["args"]["event"], e["args"].get("chain", -1),
            e["args"].get("instruction", 0), e["args"]["start_ticks"], e["args"]["end_ticks"]) for e in xs]
    expect(sorted(want, key=repr) == sorted(got, key=repr) and other.get("profile_events") == len(want)
           and other.get("dropped_events") == 0,
           "%s: %d ProfileEvents -> %d X events, same runs/names/ids/ticks" % (tag, len(want), len(xs)))
    host = [e for e in xs if "time_base" not in e["args"]]
    exact = all(e["ts"] == Decimal(e["args"]["start_ticks"]) / 1000
                and e["dur"] == Decimal(e["args"]["end_ticks"] - e["args"]["start_ticks"]) / 1000
                for e in host)
    expect(exact, "%s: host-clock ts/dur are exactly ticks/1000 us" % tag)

    # 2. Viewer order and nesting on every track.
    tracks = {}
    for e in xs:
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    order_ok = nest_ok = parent_ok = True
    for key, lst in tracks.items():
        keys = [(e["ts"], -e["dur"]) for e in lst]
        if keys != sorted(keys):
            order_ok = False
        stack = []
        for e in lst:
            end = e["ts"] + e["dur"]
            while stack and stack[-1][0] <= e["ts"]:
                stack.pop()
            if stack and end > stack[-1][0]:
                nest_ok = False
            parent = stack[-1][1] if stack else None
            a = e["args"]
            if a["event"] and a["event"].startswith("native_call_"):
                if not (parent and parent["args"]["event"] == "OPERATOR_CALL"
                        and parent["args"]["chain"] == a["chain"]
                        and parent["args"]["instruction"] == a["instruction"]):
                    parent_ok = False
            if a["event"] is None and "time_base" not in a and "overlap" not in a:
                if not (parent and parent["args"]["event"] == "DELEGATE_CALL"
                        and parent["args"]["chain"] == a["chain"]
                        and parent["args"]["instruction"] == a["instruction"]):
                    parent_ok = False
            if a["event"] in ("OPERATOR_CALL", "DELEGATE_CALL"):
                if not (parent and parent["args"]["event"] == "Method::execute"):
                    parent_ok = False
            stack.append((end, e))
    expect(order_ok, "%s: each track is emitted by start, longer first" % tag)
    expect(nest_ok, "%s: on each track intervals are disjoint or contained" % tag)
    expect(parent_ok, "%s: native_call_* inside its OPERATOR_CALL, delegate events inside their "
                      "DELEGATE_CALL, calls inside Method::execute" % tag)

    # 3. Names from the program.
    if program:
        named, total = 0, 0
        bad = []
        for e in xs:
            a = e["args"]
            if a["event"] not in ("OPERATOR_CALL", "DELEGATE_CALL"):
                continue
            total += 1
            methods = [m.strip() for m in pnames[e["pid"]].split("|")]
            ok = False
            for m in methods:
                pl = plans.get(m)
                if not pl:
                    continue
                ins = pl["chains"][a["chain"]]["instructions"][a["instruction"]]
                if a["event"] == "OPERATOR_CALL" and ins["instr_args_type"] == "KernelCall":
                    ok = e["name"] == op_name(pl["operators"][ins["instr_args"]["op_index"]])
                elif a["event"] == "DELEGATE_CALL" and ins["instr_args_type"] == "DelegateCall":
                    ok = e["name"] == pl["delegates"][ins["instr_args"]["delegate_index"]]["id"]
                if not ok:
                    break
            if ok:
                named += 1
            else:
                bad.append(e["name"])
        expect(named == total, "%s: %d of %d call slices named from the .pte (%s)"
               % (tag, named, total, ", ".join(bad[:3])))

    # 4. Determinism.
    out2 = os.path.join(tmp, "trace2.json")
    subprocess.run(args[:4] + [out2] + args[5:], check=True)
    with open(out2, "rb") as f:
        expect(f.read() == raw, "%s: a second run is byte-identical" % tag)


def main():
    present = [c for c in CASES if os.path.exists(c.split(":")[0])]
    if not present:
        print("SKIP: fixtures not found (../shared absent)")
        return 77
    with tempfile.TemporaryDirectory(prefix="etprof-trace-") as tmp:
        for c in present:
            dump, _, program = c.partition(":")
            check_case(tmp, dump, program or None)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
