#!/usr/bin/python3
"""Scenario test of `etprof gen`: generated files are valid and as designed.

Checks, on files generated into a temporary directory:
  - flatc (the independent oracle) decodes every generated ETDump and .pte,
    and `etprof dump --json` equals flatc's decode (flatc_compare.diff);
  - the demo triple matches its documented design: instruction kinds and
    operators, the Vulkan delegate, ETDump event order and nesting, and the
    ETRecord's entries and maps read with Python's zipfile + json;
  - `gen etdump` with --pte/--etrecord: sizes, event counts, the ETDump's
    instruction ids and kernel names agree with the program, every ETRecord
    handle resolves to a node;
  - same arguments give identical bytes; usage errors exit 2.

usage: gen_check.py ETPROF SCHEMA_DIR
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flatc_compare  # noqa: E402

ETPROF = SCHEMA = None
FAILURES = []
COUNT = [0]


def check(cond, msg):
    COUNT[0] += 1
    if not cond:
        FAILURES.append(msg)
        print("FAIL " + msg)
    return cond


def run(*args, expect=0):
    p = subprocess.run([ETPROF] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == expect, "etprof %s: exit %d (expected %d): %s"
          % (" ".join(args), p.returncode, expect, p.stderr.decode().strip()))
    return p


def flatc_json(path, tmp):
    """Decode with flatc and also require etprof's decode to be identical."""
    schema, extra, _ = flatc_compare.kind_of(path)
    out = os.path.join(tmp, "flatc")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"]
                   + extra + ["-o", out, os.path.join(SCHEMA, schema), "--", path], check=True)
    ref_path = os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".json")
    with open(ref_path) as fh:
        ref = json.load(fh)
    os.remove(ref_path)
    mine = json.loads(run("dump", "--json", "--compact", path).stdout)
    d = flatc_compare.diff(mine, ref)
    check(d is None, "%s: etprof and flatc disagree: %s" % (path, d))
    return ref


def events_of(block):
    return [e["profile_event"] for e in block["events"]]


def check_nesting(path, etdump, prog_plan):
    """Completion order, children inside parents, ids, names vs the program."""
    instrs = prog_plan["chains"][0]["instructions"]
    ops = prog_plan["operators"]
    blocks = etdump["run_data"]
    check(blocks[0]["name"] == "Default", path + ": first block is not Default")
    ev = events_of(blocks[0])
    check([e.get("name") for e in ev] == ["Method::init", "Program::load_method"],
          path + ": Default block events")
    check(ev[1]["start_time"] <= ev[0]["start_time"] and ev[0]["end_time"] <= ev[1]["end_time"],
          path + ": Method::init not inside Program::load_method")
    prev_end = ev[1]["end_time"]
    for b in blocks[1:]:
        check(b["name"] == "Execute", path + ": block name " + b["name"])
        ev = events_of(b)
        last = ev[-1]
        check(last.get("name") == "Method::execute" and last["chain_index"] == -1
              and last["instruction_id"] == 0, path + ": Method::execute not last / ids")
        check(last["start_time"] > prev_end, path + ": blocks not in time order")
        prev_end = last["end_time"]
        k = 0
        cursor = last["start_time"]
        for i, ins in enumerate(instrs):
            args = ins["instr_args"]
            if ins["instr_args_type"] == "KernelCall":
                nat, op = ev[k], ev[k + 1]
                k += 2
                o = ops[args["op_index"]]
                want = "native_call_%s.%s" % (o["name"].split("::")[-1], o["overload"])
                if not (check(nat.get("name") == want and op.get("name") == "OPERATOR_CALL",
                              "%s: instr %d events %s/%s, want %s" % (path, i, nat.get("name"),
                                                                      op.get("name"), want))):
                    return
                check(op["start_time"] < nat["start_time"] <= nat["end_time"] < op["end_time"],
                      "%s: instr %d native call not nested" % (path, i))
                children = [nat]
            else:
                children = []
                while ev[k].get("name") is None:
                    children.append(ev[k])
                    k += 1
                op = ev[k]
                k += 1
                check(op.get("name") == "DELEGATE_CALL" and children,
                      "%s: instr %d: delegate events then DELEGATE_CALL" % (path, i))
                for c in children:
                    check(c["delegate_debug_metadata"] == [], path + ": metadata not empty")
                    check((c["delegate_debug_id_int"] >= 0) != ("delegate_debug_id_str" in c),
                          path + ": exactly one delegate id")
                    check(op["start_time"] < c["start_time"] <= c["end_time"] < op["end_time"],
                          "%s: instr %d delegate event not nested" % (path, i))
            for e in children + [op]:
                check(e["chain_index"] == 0 and e["instruction_id"] == i,
                      "%s: instr %d ids %d/%d" % (path, i, e["chain_index"], e["instruction_id"]))
            check(op["start_time"] >= cursor, "%s: instr %d starts before the previous" % (path, i))
            cursor = op["end_time"]
        check(k == len(ev) - 1, "%s: %d events, %d expected" % (path, len(ev), k + 1))
        check(cursor < last["end_time"], path + ": instructions outside Method::execute")


def read_etrecord(path):
    z = zipfile.ZipFile(path)
    for i in z.infolist():
        check(i.compress_type == zipfile.ZIP_STORED, "%s: %s not STORED" % (path, i.filename))
    return z


def check_graph(path, prog, method):
    """One-key unions, connectivity, tensor_values for every output."""
    g = prog["graph_module"]["graph"]
    check(prog["schema_version"] == {"major": 5, "minor": 4}, path + ": schema_version")
    known = set(a["as_tensor"]["name"] for a in g["inputs"])
    for n in g["nodes"]:
        check(n["target"].startswith("executorch.exir.dialects.edge.ops."), n["target"])
        for a in n["inputs"]:
            check(len(a["arg"]) == 1, "%s: %s arg not a one-key union" % (path, n["name"]))
            t = a["arg"].get("as_tensor")
            if t:
                check(t["name"] in known, "%s/%s: %s uses unknown tensor %s"
                      % (path, method, n["name"], t["name"]))
        for o in n["outputs"]:
            check(len(o) == 1, path + ": output not a one-key union")
            names = [o["as_tensor"]["name"]] if "as_tensor" in o else \
                [t["name"] for t in o["as_tensors"]]
            for nm in names:
                check(nm in g["tensor_values"], "%s: no tensor_values for %s" % (path, nm))
                known.add(nm)
        md = n["metadata"]
        check("model.py" in md["stack_trace"] and "in %s" % method in md["stack_trace"],
              path + ": stack_trace")
        check(md["nn_module_stack"].startswith("L__self__,,"), path + ": nn_module_stack")
        check(md["source_fn_stack"].count(",") == 1, path + ": source_fn_stack")
    check(g["outputs"][0]["as_tensor"]["name"] in known, path + ": graph output unknown")
    return g


def demo_checks(tmp, flaws):
    """The demo (VALID: an event per delegated operator, a connected chain,
    every handle resolved) or, with flaws, its variant that shows the
    warnings (gen demo --flaws)."""
    d = os.path.join(tmp, "demo-flaws" if flaws else "demo")
    run("gen", "demo", "-o", d, *(["--flaws"] if flaws else []))
    check(sorted(os.listdir(d)) == ["model.etrecord", "model.pte", "run.etdp"],
          "demo dir holds exactly the triple: %s" % os.listdir(d))
    pte = os.path.join(d, "model.pte")
    with open(pte, "rb") as f:
        raw = f.read()
    check(raw[4:8] == b"ET12" and raw[8:12] == b"eh00", "demo pte: ET12 + eh00 header")
    prog = flatc_json(pte, tmp)
    plans = {p["name"]: p for p in prog["execution_plan"]}
    check(sorted(plans) == ["forward", "preprocess"], "demo methods %s" % list(plans))
    fwd = plans["forward"]
    want = [("KernelCall", "aten::convolution"), ("KernelCall", "aten::relu"),
            ("KernelCall", "aten::max_pool2d_with_indices"), ("DelegateCall", "VulkanBackend"),
            ("KernelCall", "aten::addmm"), ("KernelCall", "aten::relu"),
            ("KernelCall", "aten::addmm"), ("KernelCall", "aten::_softmax")]
    if not flaws:  # the flatten is a view instruction fed by the delegate
        want.insert(4, ("KernelCall", "executorch_prim::et_view"))
    got = []
    for ins in fwd["chains"][0]["instructions"]:
        a = ins["instr_args"]
        if ins["instr_args_type"] == "KernelCall":
            o = fwd["operators"][a["op_index"]]
            check(o["overload"] == ("default" if o["name"].startswith("executorch_prim::")
                                    else "out"), "overload " + o["overload"])
            got.append(("KernelCall", o["name"]))
        else:
            got.append((ins["instr_args_type"], fwd["delegates"][a["delegate_index"]]["id"]))
    check(got == want, "demo forward chain: %s" % got)
    dg = fwd["delegates"][0]
    check(dg["processed"]["location"] == "SEGMENT" and dg["processed"]["index"] >= 1
          and len(dg["compile_specs"]) >= 1, "demo delegate in a segment with compile specs")
    seg = prog["segments"][dg["processed"]["index"]]
    check(seg["size"] > 0, "delegate segment empty")
    pre = plans["preprocess"]
    check([pre["operators"][i["instr_args"]["op_index"]]["name"]
           for i in pre["chains"][0]["instructions"]] == ["aten::sub", "aten::div"],
          "demo preprocess chain")

    etd = os.path.join(d, "run.etdp")
    dump = flatc_json(etd, tmp)
    check(len(dump["run_data"]) == 6, "demo: 1 + 5 blocks")
    check_nesting(etd, dump, fwd)
    dev = [e for e in events_of(dump["run_data"][1]) if e.get("name") is None]
    check([e["delegate_debug_id_int"] for e in dev] == ([0, 1] if flaws else [0, 1, 2]),
          "demo delegate ids %s" % [e["delegate_debug_id_int"] for e in dev])
    if not flaws:
        # connected: the view reads the delegate's output value
        ins = fwd["chains"][0]["instructions"]
        dout = ins[3]["instr_args"]["args"][-1]
        check(dout in ins[4]["instr_args"]["args"], "demo: the delegate's output feeds the view")

    z = read_etrecord(os.path.join(d, "model.etrecord"))
    names = z.namelist()
    sides = ["", "_state_dict", "_constants", "_example_inputs"]
    want_names = (["ETRECORD_V0"]
                  + ["edge_dialect_exported_program/forward" + s for s in sides]
                  + ["edge_dialect_exported_program/preprocess" + s for s in sides]
                  + ["debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map",
                     "export_graph_id"])
    check(names == want_names, "demo etrecord entries: %s" % names)
    check(z.getinfo("ETRECORD_V0").file_size == 0, "ETRECORD_V0 not empty")
    for s in sides[1:]:
        blob = z.read("edge_dialect_exported_program/forward" + s)
        check(zipfile.is_zipfile(io.BytesIO(blob)), "side blob %s is not a zip" % s)
    dhm = json.loads(z.read("debug_handle_map"))
    want_dhm = ({"0": 1, "1": 2, "2": 3, "3": [4, 5, 6], "4": 7, "5": 8, "6": 9, "7": 12}
                if flaws else
                {"0": 1, "1": 2, "2": 3, "3": [4, 5, 6], "4": 10, "5": 7, "6": 8, "7": 9, "8": 11})
    check(dhm == {"forward": want_dhm, "preprocess": {"0": 1, "1": 2}},
          "debug_handle_map: %s" % dhm)
    dm = json.loads(z.read("delegate_map"))
    want_dm = {"0": [4], "1": [5, 6]} if flaws else {"0": [4], "1": [5], "2": [6]}
    check(dm["forward"] == {"3": {"name": "VulkanBackend", "delegate_map": want_dm}}
          and dm.get("preprocess", {}) == {}, "delegate_map: %s" % dm)
    nm = json.loads(z.read("instruction_id_to_num_outs_map"))
    check(nm["forward"] == {"3": 1} and nm.get("preprocess", {}) == {},
          "instruction_id_to_num_outs_map: %s" % nm)
    check(isinstance(json.loads(z.read("export_graph_id")), int), "export_graph_id not an int")

    prog_f = json.loads(z.read("edge_dialect_exported_program/forward"))
    g = check_graph("demo forward", prog_f, "forward")
    by_handle = {}
    for n in g["nodes"]:
        by_handle.setdefault(int(n["metadata"]["debug_handle"]), []).append(n)
    if flaws:
        check(sorted(n["target"].split(".")[-2] for n in by_handle.get(7, []))
              == ["addmm", "permute_copy"], "handle 7: permute_copy + addmm")
        check(12 not in by_handle, "handle 12 must be unresolved")
    else:
        check([n["target"].split(".")[-2] for n in by_handle.get(7, [])] == ["addmm"],
              "handle 7: addmm alone")
        check([n["target"].split(".")[-2] for n in by_handle.get(12, [])] == ["permute_copy"],
              "handle 12: the folded permute_copy")
        # every instruction's handles name a node
        for ins, hs in want_dhm.items():
            for hh in (hs if isinstance(hs, list) else [hs]):
                check(hh in by_handle, "instruction %s: handle %d names no node" % (ins, hh))
    check([n["target"].split(".")[-2] for h in (4, 5, 6) for n in by_handle.get(h, [])]
          == ["convolution", "relu", "max_pool2d_with_indices"], "handles 4-6: conv2/relu2/pool2")
    chain = [n["target"].split(".")[-2] for n in g["nodes"] if n["target"].split(".")[-2]
             != "view_copy"]
    check(chain == ["convolution", "relu", "max_pool2d_with_indices", "convolution", "relu",
                    "max_pool2d_with_indices", "permute_copy", "addmm", "relu", "addmm",
                    "_softmax"], "demo graph chain: %s" % chain)
    check("L__self___conv1,conv1,torch.nn.modules.conv.Conv2d"
          in g["nodes"][0]["metadata"]["nn_module_stack"], "conv1 nn_module_stack")
    check_graph("demo preprocess",
                json.loads(z.read("edge_dialect_exported_program/preprocess")), "preprocess")

    if flaws:
        return
    # determinism of the whole triple
    d2 = os.path.join(tmp, "demo2")
    run("gen", "demo", "-o", d2)
    for f in ("model.pte", "model.etrecord", "run.etdp"):
        with open(os.path.join(d, f), "rb") as a, open(os.path.join(d2, f), "rb") as b:
            check(a.read() == b.read(), "demo %s differs between two runs" % f)
    d3 = os.path.join(tmp, "demo3")
    run("gen", "demo", "-o", d3, "--executions", "2", "--seed", "7")
    with open(os.path.join(d, "run.etdp"), "rb") as a, \
            open(os.path.join(d3, "run.etdp"), "rb") as b:
        check(a.read() != b.read(), "demo seed/executions do not change the ETDump")


def synth_checks(tmp, backend):
    base = os.path.join(tmp, "synth_" + backend)
    args = ["gen", "etdump", "-o", base + ".etdp", "--executions", "3", "--instructions", "60",
            "--delegate-every", "7", "--seed", "42", "--backend", backend,
            "--pte", base + ".pte", "--etrecord", base + ".etrecord"]
    run(*args)
    prog = flatc_json(base + ".pte", tmp)
    plan = prog["execution_plan"][0]
    instrs = plan["chains"][0]["instructions"]
    check(len(instrs) == 60, "synth: 60 instructions")
    kinds = [i["instr_args_type"] for i in instrs]
    check(all((k == "DelegateCall") == ((i + 1) % 7 == 0) for i, k in enumerate(kinds)),
          "synth: every 7th instruction is a DelegateCall")
    ids = set(d["id"] for d in plan["delegates"])
    check(ids == {"XnnpackBackend" if backend == "xnnpack" else "VulkanBackend"},
          "synth delegates %s" % ids)
    for o in plan["operators"]:
        check(o["name"].startswith("aten::") and o["overload"] == "out", "operator %s" % o)
    nvals = len(plan["values"])
    for i in instrs:
        check(all(0 <= a < nvals for a in i["instr_args"]["args"]), "arg out of range")
    dump = flatc_json(base + ".etdp", tmp)
    check(len(dump["run_data"]) == 4, "synth: 1 + 3 blocks")
    check_nesting(base + ".etdp", dump, plan)
    dev = [e for e in events_of(dump["run_data"][1]) if e.get("name") is None]
    if backend == "xnnpack":
        check(all(e["delegate_debug_id_int"] == -1 and " #" in e["delegate_debug_id_str"]
                  and (e["end_time"] - e["start_time"]) % 1000 == 0 for e in dev),
              "xnnpack: string ids, whole microseconds")
    else:
        check(all("delegate_debug_id_str" not in e and e["delegate_debug_id_int"] >= 0
                  for e in dev), "vulkan: int ids")

    z = read_etrecord(base + ".etrecord")
    g = check_graph(base, json.loads(z.read("edge_dialect_exported_program/forward")), "forward")
    handles = set(int(n["metadata"]["debug_handle"]) for n in g["nodes"])
    dhm = json.loads(z.read("debug_handle_map"))["forward"]
    check(sorted(dhm, key=int) == [str(i) for i in range(60)], "synth: a handle per instruction")
    for k, v in dhm.items():
        vs = v if isinstance(v, list) else [v]
        check(isinstance(v, list) == (kinds[int(k)] == "DelegateCall"), "handle kind " + k)
        check(all(h in handles for h in vs), "synth: handle %s of instr %s has no node" % (v, k))
    dm = json.loads(z.read("delegate_map"))["forward"]
    check(sorted(dm, key=int) == [str(i) for i, k in enumerate(kinds) if k == "DelegateCall"],
          "synth delegate_map keys")
    for k, v in dm.items():
        if backend == "xnnpack":
            check(v["delegate_map"] == {}, "xnnpack delegate_map must be empty")
        else:
            check(set(v["delegate_map"]) and all(set(h) <= set(dhm[k]) for h in
                                                   v["delegate_map"].values()),
                  "vulkan delegate_map handles")

    # the ETDump does not depend on which companion files are written
    run(*(args[:3] + [base + "_alone.etdp"] + args[4:14]))
    with open(base + ".etdp", "rb") as a, open(base + "_alone.etdp", "rb") as b:
        check(a.read() == b.read(), "synth: ETDump differs without --pte/--etrecord")

    # determinism and seed sensitivity
    run(*(args[:3] + [base + "_again.etdp"] + args[4:14]
          + ["--pte", base + "_again.pte", "--etrecord", base + "_again.etrecord"]))
    for ext in (".etdp", ".pte", ".etrecord"):
        with open(base + ext, "rb") as a, open(base + "_again" + ext, "rb") as b:
            check(a.read() == b.read(), "synth: same arguments, different %s bytes" % ext)
    run(*(args[:3] + [base + "_seed.etdp"] + args[4:11] + ["43"] + args[12:14]))
    with open(base + ".etdp", "rb") as a, open(base + "_seed.etdp", "rb") as b:
        check(a.read() != b.read(), "synth: seed ignored")


def usage_checks(tmp):
    run("gen", expect=2)
    run("gen", "nonsense", expect=2)
    run("gen", "etdump", expect=2)
    run("gen", "etdump", "-o", os.path.join(tmp, "x.etdp"), "--instructions", "0", expect=2)
    run("gen", "etdump", "-o", os.path.join(tmp, "x.etdp"), "--executions", "-3", expect=2)
    run("gen", "etdump", "-o", os.path.join(tmp, "x.etdp"), "--backend", "tpu", expect=2)
    run("gen", "demo", expect=2)
    run("gen", "etdump", "-o", os.path.join(tmp, "no", "such", "dir.etdp"), expect=1)
    check(run("gen", "--help").stdout.startswith(b"usage: etprof gen"), "gen --help")


def main():
    global ETPROF, SCHEMA
    ETPROF, SCHEMA = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        demo_checks(tmp, flaws=False)
        demo_checks(tmp, flaws=True)
        synth_checks(tmp, "xnnpack")
        synth_checks(tmp, "vulkan")
        usage_checks(tmp)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("ok (%d checks)" % COUNT[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
