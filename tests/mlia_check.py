#!/usr/bin/python3
"""mlia-output.json in every bundle: valid against MLIA's output schema
1.1.0 with its target schema 1.0.0 (../shared/fixtures/mlia-schema, the
target registered under its $id), on every real run, the Arm console log,
the demo and a VGF run with NX statistics, at every Model Explorer level;
its numbers equal summary.json's (inference_time = Method::execute in ms,
inferences_per_second = 1000 / it, peak_activation_memory = the planned
arena), its entities' parents and children point at entities it lists, the
findings are its advice, and it differs between two publications of the same
inputs in run_id and timestamp only.

usage: mlia_check.py ETPROF FIXTURES_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

ETPROF, FIX = sys.argv[1], sys.argv[2]
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
SCHEMAS = os.path.join(FIX, "mlia-schema")
R = os.path.join(FIX, "real-runs")
TMP = tempfile.mkdtemp(prefix="etprof-mlia-")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def load(path):
    with open(path) as f:
        return json.load(f)


OUTPUT = load(os.path.join(SCHEMAS, "mlia-output-schema-1.1.0.json"))
TARGET = load(os.path.join(SCHEMAS, "mlia-target-schema-1.0.0.json"))
# The target schema is referred to by its $id (python3-jsonschema 4.10 of
# Debian 12: a RefResolver store; newer ones would use a referencing registry).
resolver = jsonschema.RefResolver.from_schema(OUTPUT, store={TARGET["$id"]: TARGET, OUTPUT["$id"]: OUTPUT})
validator = jsonschema.Draft202012Validator(OUTPUT, resolver=resolver,
                                            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def etprof(args):
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=TMP)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def metric(doc, name):
    for m in doc["results"][0]["metrics"]:
        if m["name"] == name:
            return m
    return None


def summary_metric(s, name):
    for m in s["metrics"]:
        if m["name"] == name:
            return m
    return None


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def check(label, d):
    path = os.path.join(TMP, d, "mlia-output.json")
    if not os.path.exists(path):
        expect(False, "%s: mlia-output.json is written" % label)
        return
    doc, s = load(path), load(os.path.join(TMP, d, "summary.json"))
    man = load(os.path.join(TMP, d, "result_manifest.json"))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    expect(not errors, "%s: valid against MLIA 1.1.0 (%s)" % (
        label, "; ".join("%s: %s" % ("/".join(map(str, e.path)), e.message[:120]) for e in errors[:3])))
    expect(any(a["path"] == "mlia-output.json" for a in man["artifacts"]), "%s: an artifact of the manifest" % label)
    expect(doc["run_id"] == man["run_id"] and doc["timestamp"] == man["timestamp"],
           "%s: run_id and timestamp are the bundle's" % label)
    res = doc["results"][0]
    expect(res["kind"] == "performance" and res["mode"] == "measured" and res["producer"] == "etprof",
           "%s: a measured performance result by etprof" % label)
    want_status = {"valid": "ok", "degraded": "partial", "invalid": "failed"}[s["validity"]]
    expect(res["status"] == want_status, "%s: status %s follows validity %s" % (label, res["status"], s["validity"]))
    # The numbers, against summary.json.
    avg = summary_metric(s, "method_execute.avg")
    it = metric(doc, "inference_time")
    if avg and avg["unit"] in ("ns", "us", "ms", "s"):
        ms = avg["value"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[avg["unit"]]
        expect(it and "value" in it and close(it["value"], ms) and it["unit"] == "ms" and it["samples"] == avg["samples"],
               "%s: inference_time = Method::execute (%r ms vs %r)" % (label, it and it.get("value"), ms))
        ips = metric(doc, "inferences_per_second")
        expect(ips and close(ips["value"], 1000.0 / ms), "%s: inferences_per_second = 1000 / inference_time" % label)
    else:
        expect(it and it.get("availability") == "unavailable" and it["reason"],
               "%s: inference_time unavailable with a reason (ticks %s)" % (label, avg and avg["unit"]))
    names = [m["name"] for m in res["metrics"]]
    for std in ("inference_time", "inferences_per_second", "accelerator_operator_percentage", "cpu_utilization",
                "target_utilization", "model_weight_memory", "peak_activation_memory", "average_memory"):
        expect(std in names, "%s: standard metric %s present (a value or unavailable)" % (label, std))
    mem = s.get("memory") or {}
    planned = (mem.get("planned_arena") or {}).get("total")
    pam = metric(doc, "peak_activation_memory")
    if planned:
        expect(pam.get("value") == planned, "%s: peak_activation_memory = summary's planned arena (%r vs %r)"
               % (label, pam.get("value"), planned))
    else:
        expect(pam.get("availability") == "unavailable", "%s: no planned arena: peak_activation_memory unavailable"
               % label)
    # Entities: ids unique, parents and children listed.
    ents = res["entities"]
    ids = [e["id"] for e in ents]
    expect(len(ids) == len(set(ids)), "%s: entity ids unique" % label)
    known = set(ids)
    dangling = [(e["id"], p) for e in ents for p in e["attributes"]["parent_ids"] + e["attributes"]["child_ids"]
                if p not in known]
    expect(not dangling, "%s: parents and children are listed entities (%s)" % (label, dangling[:3]))
    placements = {e["placement"] for e in ents}
    expect(placements <= {"CPU", "NPU", "NX", "GPU", "DSP", "Unknown"}, "%s: placements %s" % (label, placements))
    # Breakdowns: every timed entity of summary's table? At least the instructions timed.
    bds = {b["id"]: b for b in res["breakdowns"]}
    expect(all(i in known for i in bds), "%s: every breakdown is of a listed entity" % label)
    # Findings as advice.
    fired = [f for f in s.get("findings", []) if f.get("status") == "fired"]
    expect(len(res.get("advice", [])) == len(fired), "%s: %d fired findings = %d advice"
           % (label, len(fired), len(res.get("advice", []))))
    ex = doc["extensions"]["executorch"]
    expect(ex["method"] == s["method"]["name"], "%s: extensions.executorch.method" % label)
    pte = [i for i in man["provenance"]["inputs"] if i["role"] == "pte"]
    if pte:
        expect(ex["companion_model"]["sha256"] == pte[0]["sha256"] and doc["model"]["hash"] == pte[0]["sha256"],
               "%s: companion_model and model.hash are the program's SHA-256" % label)
    return doc


def publish(label, args, d, extra=()):
    rc, out, err = etprof(["analyze"] + args + ["-o", d, "--quiet"] + list(extra))
    expect(rc == 0, "%s: published (%s)" % (label, err.strip()[-200:]))
    if rc == 0:
        return check(label, d)


runs = sorted(n[:-5] for n in os.listdir(R) if n.endswith(".etdp"))
for name in runs:
    prog = os.path.join(R, name + (".bpte" if os.path.exists(os.path.join(R, name + ".bpte")) else ".pte"))
    args = ["--etdump", os.path.join(R, name + ".etdp"), "--pte", prog, "--log", os.path.join(R, name + ".log")]
    if os.path.exists(os.path.join(R, name + ".etrecord")):
        args.append(os.path.join(R, name + ".etrecord"))
    if "get_tensor" in name:
        args += ["--method", "get_tensor"]
    publish(name, args, name)
publish("arm console (cycles)", ["--pte", os.path.join(R, "cm_et_arduino_kws_x10.pte"), "--log",
                                 os.path.join(FIX, "device-logs", "arm_serial_kws_u85.log")], "arm")
publish("arm console at 1 GHz", ["--pte", os.path.join(R, "cm_et_arduino_kws_x10.pte"), "--log",
                                 os.path.join(FIX, "device-logs", "arm_serial_kws_u85.log"), "--cpu-hz", "1e9"],
        "arm_hz")
etprof(["gen", "demo", "-o", "demo"])
d1 = publish("demo", ["demo/model.etrecord", "--etdump", "demo/run.etdp", "--pte", "demo/model.pte",
                      "--source-unit", "ns"], "demo1")
for level in ("overlays", "none"):
    publish("demo --model-explorer " + level, ["demo/model.etrecord", "--etdump", "demo/run.etdp", "--pte",
                                               "demo/model.pte", "--source-unit", "ns"], "demo_" + level,
            ["--model-explorer", level])
d2 = publish("demo again", ["demo/model.etrecord", "--etdump", "demo/run.etdp", "--pte", "demo/model.pte",
                            "--source-unit", "ns"], "demo2")
if d1 and d2:
    strip = lambda d: {k: v for k, v in d.items() if k not in ("run_id", "timestamp", "context")}
    ctx = lambda d: {k: v for k, v in d["context"].items() if k != "notes"}
    expect(strip(d1) == strip(d2) and ctx(d1) == ctx(d2),
           "two publications of the same inputs differ in run_id and timestamp only (and the command in notes)")
vgf_pte = os.path.join(FIX, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
if os.path.exists(vgf_pte):
    etprof(["gen", "vgf-stats", "--pte", vgf_pte, "-o", "vgf", "--executions", "3"])
    doc = publish("vgf nx", ["--pte", vgf_pte, "--etdump", "vgf/g2_mode1_v2.etdp", "vgf/vgf_stats.etrecord"], "vgf_bundle")
    if doc:
        res = doc["results"][0]
        nx = [e for e in res["entities"] if e["placement"] == "NX" and e["scope"] == "operator_chain"]
        kinds = {e["attributes"]["kind"] for e in nx}
        expect({"nx_segment", "nx_chain"} <= kinds, "vgf: NX segments and chains are entities (%s)" % kinds)
        chains = [e for e in nx if e["attributes"]["kind"] == "nx_chain"]
        expect(chains and chains[0]["id"].startswith("chain/segment_") and chains[0]["attributes"]["parent_ids"],
               "vgf: chain ids such as chain/segment_0/N with a parent (%s)" % (chains and chains[0]["id"]))
        expect(any(b["scope"] == "operator_chain" and b["metrics"][0]["unit"] == "cycles" for b in res["breakdowns"]),
               "vgf: NX cycles breakdowns")
        expect(doc["extensions"]["executorch"]["companion_model"]["associations"] is not None,
               "vgf: the companion program's VGF associations are counted")
        expect(metric(doc, "total_cycles") is not None, "vgf: the model's NX total_cycles")

shutil.rmtree(TMP, ignore_errors=True)
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all mlia-output.json checks passed")
