#!/usr/bin/python3
"""`etprof analyze --log`: the runner's own report, parsed and kept apart.

Every real run's log is parsed by a small independent reader here and by
etprof; the iteration times, load time, planned memory and method must agree,
and the method the runner names must settle an ambiguous program.

usage: runner_log.py ETPROF FIXTURES_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ETPROF, FIX = sys.argv[1], sys.argv[2]
R = os.path.join(FIX, "real-runs")
if not os.path.isdir(R):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def fig(doc, name):
    return next((f for f in doc["figures"] if f["name"] == name), None)


def run(*args):
    p = subprocess.run([ETPROF] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


for name, ext in [("et_add_x10", "pte"), ("cm_et_arduino_kws_x10", "pte"), ("xnn_np_add_x10", "pte"),
                  ("np_dtypes_x10", "pte"), ("np_const_methods_get_tensor_x3", "pte"),
                  ("np_multi_forward_x10", "pte"), ("et_bundled_program_debug_intermediate", "bpte")]:
    text = open(os.path.join(R, name + ".log")).read()
    iters = [float(m) for m in re.findall(r"Iteration \d+ of \d+: ([0-9.]+) ms", text)]
    load = re.findall(r"Model loaded in ([0-9.]+) ms", text)
    method = re.search(r"(?:Using|Running) method (\S+)", text).group(1)
    buffers = re.findall(r"planned buffer \d+, size (\d+)", text)
    planned = sum(int(m) for m in buffers)
    rc, out, err = run("analyze", "--json", "--source-unit", "ns", "--etdump", os.path.join(R, name + ".etdp"),
                       "--pte", os.path.join(R, name + "." + ext), "--log", os.path.join(R, name + ".log"))
    if rc != 0:
        expect(False, "%s: analyze --log exits 0 (%s)" % (name, err.strip()))
        continue
    doc = json.loads(out)
    it = fig(doc, "runner_iteration")
    ok = doc["method"]["name"] == method and doc["method"]["basis"] == "reported by the runner log"
    if iters:
        ok &= ("availability" not in it) and it["events"] == len(iters) and abs(it["avg"] - sum(iters) / len(iters)) < 1e-12 \
            and it["max"] == max(iters) and it["unit"] == "ms" and it["source"] == "runner log"
    else:
        ok &= not ("availability" not in it)
    if load:
        ok &= fig(doc, "runner_load")["avg"] == float(load[0])
    pm = fig(doc, "runner_planned_memory")
    ok &= (("availability" not in pm) and pm["avg"] == planned and pm["unit"] == "bytes") if buffers else not ("availability" not in pm)
    # The fixtures' programs are renamed copies (the log names et_add.pte for
    # et_add_x10.pte): that is recorded as information only.
    ok &= not any(i["code"].startswith("runner_log.") and i["code"] != "runner_log.model_renamed"
                  for i in doc["issues"])
    expect(ok, "%s: method %s, %d iterations, load, %d planned bytes agree" % (name, method, len(iters), planned))

# The runner's word settles the identical-methods case, and a wrong log is caught.
rc, out, err = run("analyze", "--json", "--source-unit", "ns", "--etdump", os.path.join(R, "cm_et_arduino_kws_x10.etdp"),
                   "--pte", os.path.join(R, "cm_et_arduino_kws_x10.pte"), "--log", os.path.join(R, "et_add_x10.log"))
doc = json.loads(out) if rc == 0 else {"issues": []}
codes = {i["code"] for i in doc["issues"]}
expect(rc == 0 and "runner_log.other_etdump" in codes and "runner_log.wall_shorter_than_execute" in codes
       and doc["validity"] == "invalid",
       "a log from another run is reported (its wall time is shorter than Method::execute: invalid)")
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.log")
    with open(bad, "w") as f:
        f.write("I 00:00:00.1 executorch:executor_runner.cpp:1] Using method nothere\n")
    rc, out, err = run("analyze", "--etdump", os.path.join(R, "et_add_x10.etdp"), "--pte",
                       os.path.join(R, "et_add_x10.pte"), "--log", bad)
    expect(rc == 1 and "nothere" in err and err.count("\n") == 1, "a method the program lacks is a mismatch")
    with open(bad, "w") as f:
        f.write("I 00:00:00.1 x.cpp:1] Iteration 1 of 3: abc ms\n")
    rc, out, err = run("analyze", "--etdump", os.path.join(R, "et_add_x10.etdp"), "--pte",
                       os.path.join(R, "et_add_x10.pte"), "--log", bad)
    expect(rc == 1 and "line 1" in err, "an unreadable iteration line is an error naming the line")

sys.exit(1 if failures else 0)
