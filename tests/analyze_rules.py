#!/usr/bin/python3
"""Every attribution rule of `etprof analyze`, each on inputs built for it.

Programs and ETDumps are written as JSON and encoded by flatc (the
independent FlatBuffers implementation) with the schemas in schemas/flatbuffers/;
ETRecords are zip files written by Python's zipfile, in the current layout.
Each check would fail if its rule were broken.

usage: analyze_rules.py ETPROF SCHEMA_DIR
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

ETPROF, SCHEMA = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="etprof-rules-")
atexit.register(shutil.rmtree, TMP, True)
failures = []
counter = [0]


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def flatc(schema, doc, ext, size_prefixed=False):
    counter[0] += 1
    base = os.path.join(TMP, "f%d" % counter[0])
    with open(base + ".json", "w") as f:
        json.dump(doc, f)
    args = ["flatc", "-b"] + (["--size-prefixed"] if size_prefixed else []) + \
        ["-o", TMP, os.path.join(SCHEMA, schema), base + ".json"]
    subprocess.run(args, check=True)
    os.rename(base + ".bin" if os.path.exists(base + ".bin") else base + "." + ext, base + "." + ext)
    return base + "." + ext


def program(methods):
    """methods: {name: [("k", "aten::add", "out") | ("d", "VulkanBackend") | ("m",)]}"""
    plans = []
    for name, instrs in methods.items():
        ops, dels, out = [], [], []
        for ins in instrs:
            if ins[0] == "k":
                key = {"name": ins[1], "overload": ins[2]}
                if key not in ops:
                    ops.append(key)
                out.append({"instr_args_type": "KernelCall",
                            "instr_args": {"op_index": ops.index(key), "args": []}})
            elif ins[0] == "d":
                dels.append({"id": ins[1]})
                out.append({"instr_args_type": "DelegateCall",
                            "instr_args": {"delegate_index": len(dels) - 1, "args": []}})
            else:
                out.append({"instr_args_type": "MoveCall", "instr_args": {"move_from": 0, "move_to": 1}})
        plans.append({"name": name, "chains": [{"instructions": out}], "operators": ops,
                      "delegates": dels})
    path = flatc("program.fbs", {"execution_plan": plans}, "pte")
    with open(path, "rb") as f:
        head = f.read(8)
    assert head[4:8] == b"ET12"
    return path


def pe(name, instr, start, end, chain=0, did=None):
    d = {"chain_index": chain, "instruction_id": instr, "start_time": start, "end_time": end}
    if name is not None:
        d["name"] = name
    if isinstance(did, int):
        d["delegate_debug_id_int"] = did
        d["delegate_debug_metadata"] = []
    elif isinstance(did, str):
        d["delegate_debug_id_str"] = did
        d["delegate_debug_metadata"] = []
    return {"profile_event": d}


def etdump(executions, load=True):
    """executions: list of lists of events (Method::execute added around them)."""
    runs = []
    if load:
        runs.append({"name": "Default", "events": [pe("Method::init", 0, 10, 20, chain=-1),
                                                    pe("Program::load_method", 0, 5, 25, chain=-1)]})
    t = 1000
    for evs in executions:
        end = max([e["profile_event"]["end_time"] for e in evs] + [t + 1])
        runs.append({"name": "Execute", "events": evs + [pe("Method::execute", 0, t, end + 7, chain=-1)]})
        t = end + 100
    return flatc("etdump.fbs", {"run_data": runs}, "etdp", size_prefixed=True)


def kernel(instr, start, op_ns, kernel_ns, name):
    """native_call (child) then OPERATOR_CALL, like the runtime."""
    return [pe("native_call_" + name, instr, start + 1, start + 1 + kernel_ns),
            pe("OPERATOR_CALL", instr, start, start + op_ns)]


def etrecord(nodes, handle_map, delegate_map=None, method="forward", extra_methods=()):
    """nodes: list of (name, op, handle or None)."""
    jnodes = []
    for name, op, h in nodes:
        md = {"stack_trace": "  File \"m.py\", line 1, in forward\n    x = %s(x)\n" % name,
              "nn_module_stack": "L__self__,,M;L__self___%s,%s,torch.nn.Module" % (name, name)}
        if h is not None:
            md["debug_handle"] = str(h)
        jnodes.append({"name": name, "target": "executorch.exir.dialects.edge.ops." + op,
                       "inputs": [], "outputs": [{"as_tensor": {"name": name}}], "metadata": md})
    ep = {"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": jnodes, "tensor_values": {}}},
          "schema_version": {"major": 5, "minor": 4}}
    counter[0] += 1
    path = os.path.join(TMP, "r%d.etrecord" % counter[0])
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ETRECORD_V0", b"")
        for m in (method,) + tuple(extra_methods):
            z.writestr("edge_dialect_exported_program/" + m, json.dumps(ep))
        dm = {method: {str(k): v for k, v in handle_map.items()}}
        z.writestr("debug_handle_map", json.dumps(dm))
        z.writestr("delegate_map", json.dumps({method: delegate_map or {}}))
    return path


def analyze(*args):
    p = subprocess.run([ETPROF, "analyze", "--json", "--unit", "ns", "--source-unit", "ns"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    doc = json.loads(p.stdout) if p.returncode == 0 else None
    return p.returncode, doc, p.stderr


def ent(doc, eid):
    for e in doc["entities"]:
        if e["id"] == eid:
            return e
    return None


def fig(doc, name):
    for f in doc["figures"]:
        if f["name"] == name:
            return f
    return None


def codes(doc):
    return {i["code"] for i in doc["issues"]}


# ---------------------------------------------------------------------------
# Rule 1: events of one entity are summed within each execution first; stats
# are over executions; `events` counts event records, `executions` executions.
pte1 = program({"forward": [("k", "aten::add", "out"), ("k", "aten::mul", "out")]})
ex1 = [kernel(0, 1000, 100, 90, "add.out") + kernel(1, 1200, 50, 40, "mul.out"),
       kernel(0, 2000, 300, 280, "add.out") + kernel(1, 2400, 70, 60, "mul.out"),
       kernel(0, 3000, 200, 190, "add.out") + kernel(1, 3300, 60, 50, "mul.out")]
dump1 = etdump(ex1)
rec1 = etrecord([("fused", "aten.add.default", 1)], {0: 1, 1: 1})  # both instructions -> one node
rc, doc, err = analyze(rec1, "--etdump", dump1, "--pte", pte1)
e = ent(doc, "fused") if doc else None
t = e["timing"] if e else {}
expect(rc == 0 and t.get("executions") == 3 and t.get("events") == 6,
       "rule 1: 3 executions, 6 contributing events")
expect(t.get("avg") == (150 + 370 + 260) / 3 and t.get("p50") == 260 and t.get("min") == 150
       and t.get("max") == 370, "rule 1: stats over per-execution sums (150, 370, 260)")
expect(t.get("additive") is True and t.get("shared") is False,
       "rule 1: independent events of one operator stay additive")

# Rule 2: an event mapped to several operators gives each the full timing,
# marked shared/non-additive, with the co-attributed list; never divided.
rec2 = etrecord([("pad", "aten.pad.default", 5), ("pool", "aten.avg_pool2d.default", 5),
                 ("lin", "aten.linear.default", 6)], {0: 5, 1: [6, 7]})
rc, doc, err = analyze(rec2, "--etdump", dump1, "--pte", pte1)
pad, pool, lin = (ent(doc, n) if doc else None for n in ("pad", "pool", "lin"))
expect(rc == 0 and pad["timing"]["avg"] == 200 and pool["timing"]["avg"] == 200,
       "rule 2: both operators of a shared handle keep the full 200 ns (not 100)")
expect(pad["timing"]["shared"] and not pad["timing"]["additive"]
       and pad["timing"]["co_attributed"] == ["pool"] and pool["timing"]["co_attributed"] == ["pad"],
       "rule 2: shared, non-additive, co-attributed with each other")
expect(lin["timing"]["avg"] == 60 and not lin["timing"]["additive"] and not lin["timing"]["shared"]
       and lin.get("unresolved_debug_handles") == [7],
       "rule 2: operator with an unresolved co-handle keeps the timing, non-additive")
expect(doc["runtime_unresolved_debug_handles"] == [7]
       and {"attribution.shared_timing", "attribution.unresolved_handles"} <= codes(doc),
       "rule 2: unresolved handle listed, both issues recorded")

# Rule 3: detailed delegate events take precedence over the enclosing
# DELEGATE_CALL; the interval is only the fallback, never split or added.
pte3 = program({"forward": [("k", "aten::add", "out"), ("d", "VulkanBackend")]})
ex3 = []
for i, (a, b) in enumerate([(30, 50), (40, 60)]):
    base = 1000 + i * 1000
    ex3.append(kernel(0, base, 100, 90, "add.out") +
               [pe(None, 1, base + 200, base + 200 + a, did=0),
                pe(None, 1, base + 250, base + 250 + b, did=1),
                pe("DELEGATE_CALL", 1, base + 190, base + 400)])
dump3 = etdump(ex3)
rec3 = etrecord([("add", "aten.add.default", 1), ("conv", "aten.convolution.default", 2),
                 ("relu", "aten.relu.default", 3), ("pool", "aten.max_pool2d.default", 4)],
                {0: 1, 1: [2, 3, 4]},
                {"1": {"name": "VulkanBackend", "delegate_map": {"0": [2], "1": [3]}}})
rc, doc, err = analyze(rec3, "--etdump", dump3, "--pte", pte3)
conv, relu, pool = (ent(doc, n) if doc else None for n in ("conv", "relu", "pool"))
expect(rc == 0 and conv["timing"]["avg"] == 35 and conv["timing"]["source"] == "delegate_events"
       and conv["timing"]["additive"], "rule 3: detailed event id 0 -> conv (35 ns), not the call's 210")
expect(relu["timing"]["avg"] == 55, "rule 3: detailed event id 1 -> relu (55 ns)")
expect(pool["timing"]["avg"] == 210 and pool["timing"]["source"] == "delegate_call_fallback"
       and not pool["timing"]["additive"],
       "rule 3: operator without detail gets the whole 210 ns interval, non-additive")
expect("delegate.detail_excludes_overhead" in codes(doc), "rule 3: detail-excludes-overhead noted")
# No detail at all (an empty inner map, as XNNPACK writes): the interval is shared.
rec3b = etrecord([("add", "aten.add.default", 1), ("conv", "aten.convolution.default", 2),
                  ("relu", "aten.relu.default", 3)], {0: 1, 1: [2, 3]},
                 {"1": {"name": "VulkanBackend", "delegate_map": {}}})
rc, doc, err = analyze(rec3b, "--etdump", dump3, "--pte", pte3)
conv, relu = (ent(doc, n) if doc else None for n in ("conv", "relu"))
expect(rc == 0 and conv["timing"]["avg"] == 210 and relu["timing"]["avg"] == 210
       and conv["timing"]["shared"] and not relu["timing"]["additive"]
       and "delegate.unmapped_events" in codes(doc),
       "rule 3: without a delegate map the interval is shared by all delegate operators")

# Rule 4: OPERATOR_CALL is the instruction's time, native_call its kernel
# time, the difference dispatch; nothing counted twice.
rc, doc, err = analyze("--etdump", dump1, "--pte", pte1)
i0 = ent(doc, "forward_0_0")
expect(rc == 0 and i0["timing"]["avg"] == 200 and i0["kernel"]["avg"] == 186.66666666666666
       and abs(i0["dispatch_overhead"]["avg"] - 13.333333333333334) < 1e-9,
       "rule 4: instruction 200 ns, kernel 186.67 ns, dispatch 13.33 ns")
tot = fig(doc, "instructions_total")
expect(("availability" not in tot) and tot["avg"] == (150 + 370 + 260) / 3,
       "rule 4: instruction total sums OPERATOR_CALL only (kernel time not added on top)")
expect(fig(doc, "native_kernels_total")["avg"] == (130 + 340 + 240) / 3
       and fig(doc, "dispatch_overhead_total")["avg"] == (20 + 30 + 20) / 3,
       "rule 4: native kernel and dispatch totals")

# Rule 5: sums across entities only when they cover the same executions.
ex5 = [kernel(0, 1000, 100, 90, "add.out") + kernel(1, 1200, 50, 40, "mul.out"),
       kernel(0, 2000, 300, 280, "add.out")]  # instruction 1 missing in execution 2
dump5 = etdump(ex5)
rc, doc, err = analyze("--etdump", dump5, "--pte", pte1)
expect(rc == 0 and not ("availability" not in fig(doc, "instructions_total"))
       and "different executions" in fig(doc, "instructions_total")["reason"]
       and "coverage.executions_differ" in codes(doc),
       "rule 5: total unavailable with a warning when coverage differs")
i1 = ent(doc, "forward_0_1")
expect(i1["timing"]["executions"] == 1 and i1["timing"]["avg"] == 50 and ("availability" not in fig(doc, "method_execute")),
       "rule 5: individual values remain (instruction 1: 1 execution, 50 ns)")

# Rule 6: model figures, each with unit and additivity.
rc, doc, err = analyze("--etdump", dump3, "--pte", pte3)
me, dt = fig(doc, "method_execute"), fig(doc, "delegate_time:VulkanBackend")
expect(rc == 0 and me["unit"] == "ns" and me["additive"] is False and dt["additive"] is True
       and dt["avg"] == 210 and fig(doc, "program_load_method")["avg"] == 20
       and ("availability" not in fig(doc, "framework_overhead")),
       "rule 6: execute (non-additive), delegate time per backend (additive), load, framework overhead")
parts = sum(fig(doc, n)["avg"] for n in ("delegate_time:VulkanBackend", "native_kernels_total",
                                         "dispatch_overhead_total", "other_calls_total", "framework_overhead"))
expect(abs(parts - me["avg"]) < 1e-9, "rule 6: additive figures add up to Method::execute")

# Rule 7: units.
p = subprocess.run([ETPROF, "analyze", "--json", "--etdump", dump1, "--pte", pte1],
                   stdout=subprocess.PIPE, text=True)
d7 = json.loads(p.stdout)
expect("units.assumed" in codes(d7) and d7["units"]["target"] == "ms"
       and ent(d7, "forward_0_0")["timing"]["avg"] == 0.0002, "rule 7: ns assumed (and said), ms by default")
p = subprocess.run([ETPROF, "analyze", "--json", "--etdump", dump1, "--pte", pte1, "--source-unit", "cycles",
                    "--unit", "cycles"], stdout=subprocess.PIPE, text=True)
d7 = json.loads(p.stdout)
expect(ent(d7, "forward_0_0")["timing"]["avg"] == 200 and "units.assumed" not in codes(d7),
       "rule 7: cycles kept as cycles")
p = subprocess.run([ETPROF, "analyze", "--json", "--etdump", dump1, "--pte", pte1, "--source-unit", "cycles",
                    "--cpu-hz", "2e9", "--unit", "us"], stdout=subprocess.PIPE, text=True)
expect(ent(json.loads(p.stdout), "forward_0_0")["timing"]["avg"] == 0.1, "rule 7: --cpu-hz converts cycles")
p = subprocess.run([ETPROF, "analyze", "--etdump", dump1, "--pte", pte1, "--source-unit", "cycles"],
                   stderr=subprocess.PIPE, text=True)
expect(p.returncode == 2, "rule 7: cycles -> ms without a clock rate is refused")

# Rule 8: method selection.
pte8 = program({"alpha": [("k", "aten::add", "out"), ("k", "aten::mul", "out")],
                "beta": [("k", "aten::sub", "out"), ("k", "aten::div", "out")]})
ex8 = [[pe("OPERATOR_CALL", 0, 1000, 1100), pe("OPERATOR_CALL", 1, 1200, 1300)]]
dump8 = etdump(ex8)
rc, doc, err = analyze("--etdump", dump8, "--pte", pte8)
expect(rc == 1 and "alpha" in err and "beta" in err and "--method" in err,
       "rule 8: ambiguous method is an error listing the candidates")
rc, doc, err = analyze("--etdump", dump8, "--pte", pte8, "--method", "beta")
expect(rc == 0 and doc["method"]["name"] == "beta" and ent(doc, "beta_0_0")["op_type"] == "aten::sub.out",
       "rule 8: --method overrides")
ex8b = [kernel(0, 1000, 100, 90, "sub.out") + kernel(1, 1200, 50, 40, "div.out")]
rc, doc, err = analyze("--etdump", etdump(ex8b), "--pte", pte8)
expect(rc == 0 and doc["method"]["name"] == "beta" and doc["method"]["basis"] == "inferred from the program",
       "rule 8: inferred from native_call names")
rc, doc, err = analyze(rec1, "--etdump", dump1)
expect(rc == 0 and doc["method"]["name"] == "forward", "rule 8: automatic with the ETRecord's only method")
rc, doc, err = analyze("--etdump", dump1, "--pte", pte1, "--method", "nope")
expect(rc == 2 and "nope" in err, "rule 8: unknown --method is a usage error")

# Rule 9: consistency between the files is checked, never silently wrong.
rc, doc, err = analyze("--etdump", dump1, "--pte", pte3)  # native_call_mul at a DelegateCall
expect(rc == 1 and dump1 in err and pte3 in err and "DelegateCall" in err,
       "rule 9: ETDump vs .pte kind mismatch names both files")
bad_dump = etdump([kernel(0, 1000, 10, 9, "add.out") + kernel(7, 1100, 10, 9, "add.out")])
rc, doc, err = analyze("--etdump", bad_dump, "--pte", pte1)
expect(rc == 1 and "instruction 7 does not exist" in err, "rule 9: instruction that does not exist")
pte9 = program({"forward": [("k", "aten::sub", "out"), ("k", "aten::mul", "out")]})
rc, doc, err = analyze("--etdump", dump1, "--pte", pte9)
expect(rc == 1 and "native_call_add.out" in err and "aten::sub.out" in err,
       "rule 9: native_call name disagrees with the program's operator")
rec9 = etrecord([("add", "aten.add.default", 1)], {0: 1, 1: 2},
                {"0": {"name": "VulkanBackend", "delegate_map": {}}})
rc, doc, err = analyze(rec9, "--etdump", dump1, "--pte", pte1)
expect(rc == 1 and "delegate_map" in err and "KernelCall" in err,
       "rule 9: ETRecord delegate map naming a KernelCall is a mismatch")
rec9b = etrecord([("add", "aten.add.default", 1)], {0: 1}, method="other")
rc, doc, err = analyze(rec9b, "--etdump", dump1, "--pte", pte1)
expect(rc == 1 and "no debug handle map for method forward" in err, "rule 9: missing method mapping")

# Rule 10: issues carry stable codes and severities; validity follows.
rc, doc, err = analyze(rec1, "--etdump", dump1, "--pte", pte1)
expect(rc == 0 and doc["validity"] == "valid" and doc["issues"] == [],
       "rule 10: clean inputs with a given unit are valid")
rc, doc, err = analyze(rec2, "--etdump", dump1, "--pte", pte1)
expect(doc["validity"] == "degraded" and all(i["severity"] in ("info", "warning", "error") and i["code"]
                                             for i in doc["issues"]),
       "rule 10: warnings make the result degraded")
listing = subprocess.run([ETPROF, "analyze", "--list-issue-codes"], stdout=subprocess.PIPE, text=True).stdout
expect(all(("`%s`" % i["code"]) in listing for i in doc["issues"]), "rule 10: every emitted code is registered")

sys.exit(1 if failures else 0)
