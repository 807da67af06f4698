#!/usr/bin/python3
"""Oracle test for `etprof inspect`: an independent recomputation.

The ETDump is decoded by flatc (not etprof), runs are grouped the way the
Python Inspector groups them (run name, bundled input index, ordered distinct
event signatures) but every sample is kept, and statistics come from numpy
(np.mean, np.percentile with its default linear method). The result must equal
`etprof inspect --json --raw` for every block and event.

usage: inspect_oracle.py ETPROF SCHEMA_DIR FILE.etdp[:PROGRAM[:METHOD]] ...
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

FACTOR = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}


def flatc_decode(schema_dir, path, tmp):
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary",
                    "--size-prefixed", "-o", tmp, os.path.join(schema_dir, "etdump.fbs"), "--", path],
                   check=True)
    out = os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".json")
    with open(out) as f:
        return json.load(f)


def duration(pe):
    s, e = pe["start_time"], pe["end_time"]
    if e >= s:
        return e - s
    assert s < 2**32 and e < 2**32
    return 2**32 - s + e


def signature(pe):
    return (pe.get("name"), pe["chain_index"], pe["instruction_id"],
            pe["delegate_debug_id_int"], pe.get("delegate_debug_id_str"))


def recompute(doc, source="ns", target="ms"):
    div = FACTOR[source] / FACTOR[target]
    groups = []  # [key, runs, {sig: [samples]}]
    for ri, run in enumerate(doc.get("run_data", [])):
        if "events" not in run:
            continue
        order, samples = [], {}
        for ev in run["events"]:
            pe = ev.get("profile_event")
            if pe is None:
                continue
            sig = signature(pe)
            if sig not in samples:
                order.append(sig)
                samples[sig] = []
            samples[sig].append(duration(pe))
        key = (run.get("name"), run["bundled_input_index"], tuple(order))
        for g in groups:
            if g[0] == key:
                g[1].append(ri)
                for s in order:
                    g[2][s].extend(samples[s])
                break
        else:
            groups.append([key, [ri], {s: list(samples[s]) for s in order}])
    blocks = []
    for key, runs, rows in groups:
        evs = []
        for sig in key[2]:
            raw = np.array(rows[sig], dtype=np.float64) / div
            evs.append({"sig": sig, "n": len(raw), "avg": float(np.mean(raw)),
                        "p10": float(np.percentile(raw, 10)), "p50": float(np.percentile(raw, 50)),
                        "p90": float(np.percentile(raw, 90)), "min": float(raw.min()),
                        "max": float(raw.max()), "raw": [float(x) for x in raw]})
        blocks.append({"name": key[0], "runs": runs, "events": evs})
    return blocks


def close(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def check(etprof, schema_dir, spec, tmp):
    parts = spec.split(":")
    path = parts[0]
    cmd = [etprof, "inspect", "--json", "--raw", path]
    if len(parts) > 1 and parts[1]:
        cmd += ["--pte", parts[1]]
    if len(parts) > 2 and parts[2]:
        cmd += ["--method", parts[2]]
    mine = json.loads(subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout)
    ref = recompute(flatc_decode(schema_dir, path, tmp))
    if len(mine["blocks"]) != len(ref):
        return "block count %d != %d" % (len(mine["blocks"]), len(ref))
    for bi, (mb, rb) in enumerate(zip(mine["blocks"], ref)):
        if mb["name"] != rb["name"] or mb["runs"] != rb["runs"]:
            return "block %d: name/runs differ" % bi
        if len(mb["events"]) != len(rb["events"]):
            return "block %d: %d events != %d" % (bi, len(mb["events"]), len(rb["events"]))
        for me, re in zip(mb["events"], rb["events"]):
            name, chain, instr, did_int, did_str = re["sig"]
            if me["event_name"] != name or me["chain_index"] != chain or me["instruction_id"] != instr:
                return "block %d: event %r != %r" % (bi, me["event_name"], re["sig"])
            if me["n"] != re["n"]:
                return "block %d %s: n %d != %d" % (bi, name, me["n"], re["n"])
            for k in ("avg", "p10", "p50", "p90", "min", "max"):
                if not close(me[k], re[k]):
                    return "block %d %s@%d: %s %r != %r" % (bi, name, instr, k, me[k], re[k])
            if len(me["raw"]) != len(re["raw"]) or not all(close(a, b) for a, b in zip(me["raw"], re["raw"])):
                return "block %d %s@%d: raw samples differ" % (bi, name, instr)
    return None


def main():
    etprof, schema_dir, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not any(os.path.exists(s.split(":")[0]) for s in specs):
        print("SKIP: fixtures not found (../shared absent)")
        return 77
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            err = check(etprof, schema_dir, spec, tmp)
            print(("FAIL %s: %s" % (spec, err)) if err else ("ok   %s" % spec))
            bad += err is not None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
