#!/usr/bin/python3
"""`etprof graph` on a synthetic program that exercises what the real
fixtures do not: every EValue kind (doubles that need Python's repr layout,
strings, all list kinds, absent vectors and tables, values without a table),
every instruction kind, arguments outside the value table, out-variant
arguments listed twice, empty chains (the adapter's duplicate GraphOutputs),
an unnamed plan, a missing operator, delegates with and without a processed
blob, and a plan input/output index outside the value table.

The program is written as JSON, turned into a .pte by flatc with etprof's
schema, and checked by me_graph_check.py's independent Python oracle.

usage: me_synthetic.py ETPROF SCHEMA_DIR
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def tensor(st, sizes, buf=0, alloc=True, extra=False, dim_order=True, **kw):
    t = {"scalar_type": st, "sizes": sizes, "data_buffer_idx": buf}
    if dim_order:
        t["dim_order"] = list(range(len(sizes)))
    if alloc:
        t["allocation_info"] = {"memory_id": 1, "memory_offset_low": 0}
    if extra:
        t["extra_tensor_info"] = {"fully_qualified_name": "w"}
    t.update(kw)
    return {"val_type": "Tensor", "val": t}


def random_doubles():
    """Doubles over the whole range (subnormals to near overflow), to check
    that the C side prints them exactly as Python's repr()."""
    rnd = random.Random(20261130)
    out = [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993.0,
           0.1 + 0.2, 1e15, 1e16, 0.0001, 0.00001, 123.456]
    for _ in range(400):
        out.append(rnd.uniform(-1, 1) * 10.0 ** rnd.randint(-320, 300))
    for _ in range(100):
        out.append(float(rnd.randint(-10**6, 10**6)) / 8)
    return out


def kernel(op, args):
    return {"instr_args_type": "KernelCall", "instr_args": {"op_index": op, "args": args}}


def program():
    values = [
        tensor("FLOAT", [1, 3]),                                   # 0 input
        tensor("FLOAT", [1, 3]),                                   # 1 out
        tensor("CHAR", [3], buf=2, alloc=False, extra=True),       # 2 constant
        {"val_type": "Double", "val": {"double_val": 1e-05}},      # 3
        {"val_type": "Double", "val": {"double_val": 1e16}},       # 4
        {"val_type": "Double", "val": {"double_val": 0.1}},        # 5
        {"val_type": "Double", "val": {"double_val": -0.0}},       # 6
        {"val_type": "Double", "val": {"double_val": 123456789.0}},  # 7
        {"val_type": "Int", "val": {"int_val": -9223372036854775808}},  # 8
        {"val_type": "Bool", "val": {"bool_val": True}},           # 9
        {"val_type": "String", "val": {"string_val": "caf\u00e9 \"q\""}},  # 10
        {"val_type": "IntList", "val": {"items": [1, -2, 3]}},     # 11
        {"val_type": "DoubleList", "val": {"items": [0.5, 2.0, 1e-07, 3e20]}},  # 12
        {"val_type": "BoolList", "val": {"items": [True, False]}},  # 13
        {"val_type": "TensorList", "val": {"items": [0, 1]}},      # 14 (candidate)
        {"val_type": "OptionalTensorList", "val": {"items": [-1, 1]}},  # 15
        {"val_type": "Null", "val": {}},                           # 16
        {"val_type": "IntList", "val": {}},                        # 17 absent items
        {"val_type": "String", "val": {}},                         # 18 absent string
        {},                                                        # 19 no value at all
        tensor("INT", [], dim_order=False, requires_grad=True,
               storage_offset=4, layout=1, shape_dynamism="DYNAMIC_BOUND"),  # 20
        tensor("FLOAT", [2]),                                      # 21 produced by a move
        {"val_type": "DoubleList", "val": {"items": random_doubles()}},  # 22
    ]
    chain0 = [
        kernel(0, [0, 2, 3, 4, 5, 6, 7, 8, 1, 1]),   # out-variant: 1 listed twice
        kernel(1, [1, 9, 10, 11, 12, 13, 99, -1, 14, 22]),  # 99, -1: outside the table
        kernel(7, [14, 15, 16, 17, 18, 19, 20]),     # op 7 does not exist
        {"instr_args_type": "MoveCall", "instr_args": {"move_from": 1, "move_to": 21}},
        {"instr_args_type": "JumpFalseCall",
         "instr_args": {"cond_value_index": 9, "destination_instruction": 7}},
        {"instr_args_type": "FreeCall", "instr_args": {"value_index": 14}},
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0, "args": [21, 20]}},
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 1, "args": [20]}},
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 2, "args": [1]}},
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 5, "args": [1]}},
        {"instr_args_type": "KernelCall"},           # no argument table
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0}},  # no args
    ]
    plan = {
        "name": "forward",
        "values": values,
        "inputs": [0, 77],
        "outputs": [21, 1, 77, 5, 400],
        "chains": [{"instructions": []}, {"instructions": chain0}, {}],
        "operators": [{"name": "aten::add", "overload": "out"}, {"name": "my::op"}],
        "delegates": [
            {"id": "VgfBackend", "processed": {"location": "INLINE", "index": 0}},
            {"id": "EthosUBackend", "processed": {"location": "SEGMENT", "index": 0}},
            {"id": "XnnpackBackend", "processed": {"location": "INLINE", "index": 0}},
            {"id": "VgfBackend"},                   # no processed blob: no subgraph
        ],
    }
    unnamed = {"values": [tensor("FLOAT", [1])], "inputs": [0], "outputs": [0],
               "chains": [{"instructions": []}]}
    second = {"name": "other", "values": [tensor("LONG", [2]), tensor("LONG", [2])],
              "inputs": [0], "outputs": [1],
              "chains": [{"instructions": [
                  kernel(0, [0, 1]),
                  {"instr_args_type": "DelegateCall",
                   "instr_args": {"delegate_index": 0, "args": [1]}}]}],
              "operators": [{"name": "aten::neg"}],
              "delegates": [{"id": "EthosUBackend", "processed": {"location": "INLINE"}}]}
    return {"version": 0, "execution_plan": [plan, unnamed, second],
            "backend_delegate_data": [{"data": [1, 2, 3]}]}


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    etprof, schema = argv[1], argv[2]
    if not shutil.which("flatc"):
        print("FAIL: flatc (Debian flatbuffers-compiler) is not installed")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "synthetic.json")
        with open(src, "w") as f:
            json.dump(program(), f)
        subprocess.run(["flatc", "-b", "-o", tmp, os.path.join(schema, "program.fbs"), src],
                       check=True)
        # flatc names the binary after the schema's file_extension (or .bin).
        built = [n for n in os.listdir(tmp) if n.startswith("synthetic.") and n != "synthetic.json"]
        pte = os.path.join(tmp, "input.pte")
        shutil.move(os.path.join(tmp, built[0]), pte)
        r = subprocess.run([sys.executable, os.path.join(HERE, "me_graph_check.py"), "oracle",
                            etprof, pte])
        if r.returncode:
            return r.returncode
        # Same bytes twice: deterministic output.
        outs = []
        for i in range(2):
            out = os.path.join(tmp, "g%d.json" % i)
            subprocess.run([etprof, "graph", pte, "-o", out, "--compact"], check=True)
            with open(out, "rb") as f:
                outs.append(f.read())
        if outs[0] != outs[1]:
            print("FAIL: two runs wrote different bytes")
            return 1
        # One method only.
        out = os.path.join(tmp, "other.json")
        subprocess.run([etprof, "graph", pte, "-o", out, "--method", "other"], check=True)
        with open(out) as f:
            got = json.load(f)
        ids = [g["id"] for g in got["graphs"]]
        if ids != ["other", "other_0_1"]:
            print("FAIL: --method other gave graphs %s" % ids)
            return 1
        print("OK: synthetic program: oracle match, deterministic, --method")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
