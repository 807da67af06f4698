#!/usr/bin/python3
"""Independent recomputation of `etprof analyze` on the real runs.

flatc decodes the ETDump and the program (a .bpte's embedded program is cut
out and decoded separately); Python names every instruction from the program
JSON, sums each instruction's OPERATOR_CALL / DELEGATE_CALL time per
execution and summarises with numpy. With an ETRecord (read with zipfile and
json), operator timings follow the debug handles: each node gets the
per-execution sum of every instruction whose handles reach it. The result must
equal etprof's instruction and operator entities.

usage: analyze_oracle.py ETPROF SCHEMA_DIR RUN_PREFIX[:PROGRAM_EXT[:METHOD]]...
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

ETPROF, SCHEMA = sys.argv[1], sys.argv[2]


def flatc(schema, path, tmp, prefixed):
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"]
                   + (["--size-prefixed"] if prefixed else [])
                   + ["-o", tmp, os.path.join(SCHEMA, schema), "--", path], check=True)
    with open(os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


def program_json(path, tmp):
    with open(path, "rb") as f:
        data = f.read()
    if data[4:8] == b"BP08":
        bp = flatc("bundled_program.fbs", path, tmp, False)
        inner = os.path.join(tmp, "embedded.pte")
        with open(inner, "wb") as f:
            f.write(bytes(bp["program"]))
        return flatc("program.fbs", inner, tmp, False)
    return flatc("program.fbs", path, tmp, False)


def names(plan):
    out = []
    for ins in plan["chains"][0]["instructions"]:
        k = ins["instr_args_type"]
        if k == "KernelCall":
            op = plan["operators"][ins["instr_args"]["op_index"]]
            out.append((k, op["name"] + ("." + op["overload"] if op.get("overload") else "")))
        elif k == "DelegateCall":
            out.append((k, plan["delegates"][ins["instr_args"]["delegate_index"]]["id"]))
        else:
            out.append((k, k))
    return out


def stats(vals, div):
    a = np.array(vals, dtype=np.float64) / div
    return {"avg": float(np.mean(a)), "p50": float(np.percentile(a, 50)), "min": float(a.min()),
            "max": float(a.max())}


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def check(spec, tmp):
    parts = spec.split(":")
    prefix = parts[0]
    ext = parts[1] if len(parts) > 1 and parts[1] else "pte"
    method = parts[2] if len(parts) > 2 else None
    dump = flatc("etdump.fbs", prefix + ".etdp", tmp, True)
    prog = program_json(prefix + "." + ext, tmp)
    plans = prog["execution_plan"]
    plan = next(p for p in plans if p["name"] == method) if method else plans[0]
    instr_names = names(plan)
    rec = prefix + ".etrecord"
    cmd = [ETPROF, "analyze", "--json", "--source-unit", "ns", "--etdump", prefix + ".etdp",
           "--pte", prefix + "." + ext]
    if os.path.exists(rec):
        cmd.insert(2, rec)
    if method:
        cmd += ["--method", method]
    mine = json.loads(subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout)
    ents = {e["id"]: e for e in mine["entities"]}
    # Per-execution sums per instruction.
    execs = [r for r in dump["run_data"] if r.get("name") == "Execute"]
    per = {}
    for x, run in enumerate(execs):
        for ev in run.get("events", []):
            p = ev.get("profile_event")
            if not p or p["chain_index"] < 0 or p.get("name") not in ("OPERATOR_CALL", "DELEGATE_CALL"):
                continue
            per.setdefault(p["instruction_id"], {}).setdefault(x, 0)
            per[p["instruction_id"]][x] += p["end_time"] - p["start_time"]
    if mine["executions"]["count"] != len(execs):
        return "executions %d != %d" % (mine["executions"]["count"], len(execs))
    div = 1e6  # ns -> ms
    for i, (kind, name) in enumerate(instr_names):
        e = ents.get("%s_0_%d" % (plan["name"], i))
        if e is None or e["op_type"] != name or e["instruction_kind"] != kind:
            return "instruction %d: %r, expected %s %s" % (i, e and e["op_type"], kind, name)
        if i not in per:
            if e["timing"] is not None:
                return "instruction %d has timing but no events" % i
            continue
        ref = stats(list(per[i].values()), div)
        for k, v in ref.items():
            if not close(e["timing"][k], v):
                return "instruction %d %s: %r != %r" % (i, k, e["timing"][k], v)
    if os.path.exists(rec):
        with zipfile.ZipFile(rec) as z:
            hmap = json.loads(z.read("debug_handle_map"))[plan["name"]]
            ep = json.loads(z.read("edge_dialect_exported_program/" + plan["name"]))
        nodes = {}
        for n in ep["graph_module"]["graph"]["nodes"]:
            h = n.get("metadata", {}).get("debug_handle")
            if h is not None:
                nodes.setdefault(int(h), []).append(n["name"])
        node_sum = {}
        for instr, hs in hmap.items():
            hs = hs if isinstance(hs, list) else [hs]
            targets = sorted({n for h in hs for n in nodes.get(h, [])})
            for n in targets:
                for x, v in per.get(int(instr), {}).items():
                    node_sum.setdefault(n, {}).setdefault(x, 0)
                    node_sum[n][x] += v
        for n, sums in node_sum.items():
            e = ents.get(n)
            if e is None or e["kind"] != "operator" or e["timing"] is None:
                return "operator %s missing" % n
            ref = stats(list(sums.values()), div)
            for k, v in ref.items():
                if not close(e["timing"][k], v):
                    return "operator %s %s: %r != %r" % (n, k, e["timing"][k], v)
    return None


def main():
    specs = sys.argv[3:]
    if not any(os.path.exists(s.split(":")[0] + ".etdp") for s in specs):
        print("SKIP: fixtures not found (../shared absent)")
        return 77
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in specs:
            err = check(s, tmp)
            print(("FAIL %s: %s" % (s, err)) if err else ("ok   %s" % s))
            bad += err is not None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
