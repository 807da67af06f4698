#!/usr/bin/python3
"""profile_maker.py - ETDumps with chosen event durations for a real program,
and small programs of a chosen instruction list, for the findings tests.

Both are written as JSON in the published schemas (schemas/flatbuffers/) and
encoded by flatc (Debian flatbuffers-compiler), an encoder independent of
etprof. The instruction list of a program comes from `etprof dump --json`
(which decodes as flatc does).

An ETDump holds one Default block (Program::load_method, Method::init) and N
Execute blocks. In each execution the instructions run one after another in
chain order: a KernelCall is an OPERATOR_CALL with a native_call_<name>
event inside it (the kernel, leaving 1/200 of the call as dispatch), a
DelegateCall a DELEGATE_CALL, optionally with EthosUBackend events inside
(execute(), the input copy, the NPU). Method::execute encloses them all; the
time it has beyond the instructions comes first (framework time).

usage (the library is what the tests use; the command is for trying it):
  profile_maker.py ETPROF PROGRAM OUT.etdp --execute TICKS [--op INDEX=TICKS]...
                   [--executions N] [--method NAME]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import etdump_build  # noqa: E402  (one profile event as the schema writes it)

SCHEMA = etdump_build.SCHEMA


def flatc_encode(work, stem, doc, schema, size_prefixed=False, ext=".bin"):
    """WORK/STEM.json -> WORK/STEM+EXT through flatc; the binary's path."""
    src = os.path.join(work, stem + ".json")
    with open(src, "w") as f:
        json.dump(doc, f)
    # flatc names its output after the schema's file_extension (or .bin): a
    # directory of its own finds it whatever the name.
    tmp = tempfile.mkdtemp(prefix=stem + ".", dir=work)
    try:
        args = ["flatc", "-b", "-o", tmp] + (["--size-prefixed"] if size_prefixed else [])
        subprocess.run(args + [os.path.join(SCHEMA, schema), src], check=True)
        built = os.listdir(tmp)
        if len(built) != 1:
            raise RuntimeError("flatc wrote %r for %s" % (built, src))
        out = os.path.join(work, stem + ext)
        os.replace(os.path.join(tmp, built[0]), out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _dump_json(etprof, path):
    r = subprocess.run([etprof, "dump", "--json", path], capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise RuntimeError("etprof dump --json %s: %s" % (path, r.stderr.strip()))
    return json.loads(r.stdout)


def instructions(etprof, program, method=None):
    """The method's instructions, in chain order: dicts of chain, index, kind
    ("KernelCall", "DelegateCall", ...), name (operator name with overload,
    or the delegate's backend id) and id (the analysis' entity id)."""
    doc = _dump_json(etprof, program)
    if "program" in doc and "execution_plan" not in doc:
        # A bundled program carries the program's bytes: decode those.
        with tempfile.NamedTemporaryFile(suffix=".pte") as inner:
            inner.write(bytes(doc["program"]))
            inner.flush()
            doc = _dump_json(etprof, inner.name)
    plans = doc["execution_plan"]
    plan = plans[0] if method is None else next(p for p in plans if p.get("name") == method)
    ops, dels = plan.get("operators", []), plan.get("delegates", [])
    out = []
    for c, chain in enumerate(plan.get("chains", [])):
        for i, ins in enumerate(chain.get("instructions", [])):
            kind, args = ins.get("instr_args_type"), ins.get("instr_args", {})
            name = None
            if kind == "KernelCall":
                op = ops[args.get("op_index", 0)]
                name = op["name"] + ("." + op["overload"] if op.get("overload") else "")
            elif kind == "DelegateCall":
                name = dels[args.get("delegate_index", 0)]["id"]
            out.append({"chain": c, "index": i, "kind": kind, "name": name,
                        "id": "%s_%d_%d" % (plan.get("name", ""), c, i)})
    return out


def _pe(name, chain, instr, start, end):
    return etdump_build.pe(name, instr, start, end, chain)


def kernel_short_name(name):
    """native_call_<short> as ETDumpGen names a kernel: the operator name
    without namespace ("cortex_m::quantize_per_tensor.out" ->
    "quantize_per_tensor.out")."""
    return name.split("::")[-1]


def execution_events(instrs, times, execute, t0, ethosu=None, skip=()):
    """The events of one execution starting at tick t0. times: {instruction
    index: ticks} (instructions not in it do not run); execute: the
    Method::execute ticks (at least their sum); ethosu: {index: (npu, copy)}
    adds EthosUBackend events inside that delegate call; skip: indices left
    out of this execution. Returns (events, end tick)."""
    busy = sum(t for i, t in times.items() if i not in skip)
    if execute < busy:
        raise ValueError("Method::execute %d is shorter than its instructions (%d)" % (execute, busy))
    ev = []
    s = t0 + (execute - busy)
    for ins in instrs:
        i = ins["index"]
        if i not in times or i in skip:
            continue
        d = times[i]
        if ins["kind"] == "KernelCall":
            ev.append(_pe("native_call_" + kernel_short_name(ins["name"]), ins["chain"], i, s + d // 400,
                          s + d - d // 400))
            ev.append(_pe("OPERATOR_CALL", ins["chain"], i, s, s + d))
        elif ins["kind"] == "DelegateCall":
            if ethosu and i in ethosu:
                npu, copy = ethosu[i]
                x0, x1 = s + d // 100, s + d - d // 100
                ev.append(_pe("+EthosUBackend::execute()handles.input.memcpy()", ins["chain"], i, x0, x0 + copy))
                ev.append(_pe("+EthosUBackend::execute()NPU", ins["chain"], i, x0 + copy, x0 + copy + npu))
                ev.append(_pe("EthosUBackend::execute()", ins["chain"], i, x0, x1))
            ev.append(_pe("DELEGATE_CALL", ins["chain"], i, s, s + d))
        s += d
    ev.append(_pe("Method::execute", -1, 0, t0, t0 + execute))
    return ev, t0 + execute


def write_etdump(work, stem, instrs, runs, ethosu=None):
    """WORK/STEM.etdp: a load block and one Execute block per element of
    runs, each a dict {"times": {index: ticks}, "execute": ticks, "skip": set}.
    Returns its path."""
    blocks = [{"name": "Default", "events": [_pe("Method::init", -1, 0, 1100, 1900),
                                             _pe("Program::load_method", -1, 0, 1000, 2000)]}]
    t = 10000
    for run in runs:
        ev, end = execution_events(instrs, run["times"], run["execute"], t, ethosu, run.get("skip", ()))
        blocks.append({"name": "Execute", "events": ev})
        t = end + 10000
    return flatc_encode(work, stem, {"run_data": blocks}, "etdump.fbs", size_prefixed=True, ext=".etdp")


def varied(base, n, spread_ppm=(0, 3000, -2000, 1000, -1500, 2500, -500, 1500, -2500, 500)):
    """n per-execution copies of {index: ticks} (and an execute total), each
    scaled by a small fixed factor (within 0.3%): warm, steady runs."""
    out = []
    for k in range(n):
        f = 1.0 + spread_ppm[k % len(spread_ppm)] / 1e6
        out.append({"times": {i: max(1, round(t * f)) for i, t in base["times"].items()},
                    "execute": round(base["execute"] * f)})
        busy = sum(out[-1]["times"].values())
        out[-1]["execute"] = max(out[-1]["execute"], busy)
    return out


def write_program(work, stem, steps, method="forward"):
    """WORK/STEM.pte: one method whose chain runs steps in order; a step is
    ("kernel", "ns::op", "overload") or ("delegate", "BackendId"). Each
    instruction reads the previous one's output tensor and writes its own.
    Returns its path."""
    ops, dels, instrs = [], [], []
    values = [{"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [1, 8], "dim_order": [0, 1],
                                             "allocation_info": {"memory_id": 1, "memory_offset_low": 0}}}]
    for n, step in enumerate(steps):
        values.append({"val_type": "Tensor",
                       "val": {"scalar_type": "FLOAT", "sizes": [1, 8], "dim_order": [0, 1],
                               "allocation_info": {"memory_id": 1, "memory_offset_low": 32 * ((n + 1) % 2)}}})
        a, b = n, n + 1
        if step[0] == "kernel":
            key = {"name": step[1], "overload": step[2]}
            if key not in ops:
                ops.append(key)
            instrs.append({"instr_args_type": "KernelCall",
                           "instr_args": {"op_index": ops.index(key), "args": [a, b, b]}})
        else:
            dels.append({"id": step[1], "processed": {"location": "INLINE", "index": 0}})
            instrs.append({"instr_args_type": "DelegateCall",
                           "instr_args": {"delegate_index": len(dels) - 1, "args": [a, b]}})
    plan = {"name": method, "values": values, "inputs": [0], "outputs": [len(steps)],
            "chains": [{"inputs": [0], "outputs": [len(steps)], "instructions": instrs}],
            "operators": ops, "delegates": dels, "non_const_buffer_sizes": [0, 64]}
    doc = {"version": 0, "execution_plan": [plan], "backend_delegate_data": [{"data": [0]}]}
    return flatc_encode(work, stem, doc, "program.fbs", ext=".pte")


def main(argv):
    ap = argparse.ArgumentParser(description="an ETDump with chosen durations for a program")
    ap.add_argument("etprof")
    ap.add_argument("program")
    ap.add_argument("out")
    ap.add_argument("--execute", type=int, required=True)
    ap.add_argument("--op", action="append", default=[], help="INDEX=TICKS")
    ap.add_argument("--executions", type=int, default=5)
    ap.add_argument("--method")
    a = ap.parse_args(argv[1:])
    instrs = instructions(a.etprof, a.program, a.method)
    times = {int(k): int(v) for k, v in (s.split("=", 1) for s in a.op)}
    work, stem = os.path.dirname(os.path.abspath(a.out)), os.path.splitext(os.path.basename(a.out))[0]
    path = write_etdump(work, stem, instrs, varied({"times": times, "execute": a.execute}, a.executions))
    print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
