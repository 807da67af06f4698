#!/usr/bin/python3
"""Checks for `etprof graph` (Model Explorer graph of a program).

usage:
  me_graph_check.py compare GOT.json EXPECTED.json
      Structural comparison following shared/specs/model-explorer.md 3.8:
      both sides normalised (null-valued keys dropped, missing list fields
      read as [], graphSorting ignored), list order significant. Every graph
      of EXPECTED must appear in GOT, in the same order, and be equal.
      GOT must also be self-consistent (see invariants()).
  me_graph_check.py exact GOT.json EXPECTED.json
      Byte equality, ignoring one trailing newline.
  me_graph_check.py fixture ETPROF CASE_DIR
      Runs `ETPROF graph CASE_DIR/input.pte`, then `compare` against
      CASE_DIR/expected_main.json; and with --no-delegate-graphs, `exact`.
  me_graph_check.py oracle ETPROF FILE.pte...
      Rebuilds each program's graph here, in Python, from the raw FlatBuffer
      bytes (an independent reader and independent string formatting:
      Python's own str()/repr()), and compares it with `ETPROF graph FILE`.

Exit 0 on success, 1 on a mismatch, 77 when an input file is missing
because ../shared/fixtures is absent.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from json_diff import first_difference

LIST_FIELDS = ("subgraphIds", "attrs", "incomingEdges", "inputsMetadata", "outputsMetadata")


def normalise(x):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if v is None or k == "graphSorting":
                continue
            out[k] = normalise(v)
        if "id" in out and "label" in out and "namespace" in out:  # a node
            for k in LIST_FIELDS:
                out.setdefault(k, [])
        return out
    if isinstance(x, list):
        return [normalise(v) for v in x]
    return x


def first_diff(a, b, path="$"):
    return first_difference(a, b, path, key_order=False)


def invariants(col):
    """Self-consistency of a collection written by etprof."""
    problems = []
    graph_ids = [g["id"] for g in col["graphs"]]
    if len(set(graph_ids)) != len(graph_ids):
        problems.append("duplicate graph ids")
    for g in col["graphs"]:
        ids = [n["id"] for n in g["nodes"]]
        known = set(ids)
        vgf = any(i.startswith("mrt_") for i in ids)
        # Only the adapter's empty-chain quirk may repeat GraphOutputs.
        dups = {i for i in ids if ids.count(i) > 1} - {"GraphOutputs"}
        if dups:
            problems.append("%s: duplicate node ids %s" % (g["id"], sorted(dups)[:5]))
        for n in g["nodes"]:
            for k in ("id", "label", "namespace"):
                if not isinstance(n.get(k), str):
                    problems.append("%s/%s: %s is not a string" % (g["id"], n.get("id"), k))
            for s in n.get("subgraphIds") or []:
                if s not in graph_ids:
                    problems.append("%s/%s: subgraph %s does not exist" % (g["id"], n["id"], s))
            for e in n.get("incomingEdges") or []:
                # A VGF graph's constant operands point at numbered nodes the
                # adapter never emits (shared/specs/vgf.md 4.2).
                if vgf and e["sourceNodeId"].isdigit():
                    continue
                if e["sourceNodeId"] not in known:
                    problems.append("%s/%s: edge from unknown node %s"
                                    % (g["id"], n["id"], e["sourceNodeId"]))
            for a in n.get("attrs") or []:
                if not isinstance(a["value"], str):
                    problems.append("%s/%s: attr %s is not a string" % (g["id"], n["id"], a["key"]))
    return problems


def cmd_compare(got_path, exp_path):
    for p in (got_path, exp_path):
        if not os.path.exists(p):
            print("SKIP: %s is absent" % p)
            return 77
    with open(got_path) as f:
        got = json.load(f)
    with open(exp_path) as f:
        exp = json.load(f)
    problems = invariants(got)
    g, e = normalise(got), normalise(exp)
    if g.get("label") != e.get("label"):
        problems.append("label %r != %r" % (g.get("label"), e.get("label")))
    n = len(e["graphs"])
    if len(g["graphs"]) < n:
        problems.append("%d graphs, expected at least %d" % (len(g["graphs"]), n))
    else:
        d = first_diff(g["graphs"][:n], e["graphs"], "$.graphs")
        if d:
            problems.append(d)
    for p in problems:
        print("FAIL:", p)
    if not problems:
        nodes = sum(len(x["nodes"]) for x in e["graphs"])
        print("OK: %s matches %s (%d graphs, %d nodes)" % (got_path, exp_path, n, nodes))
    return 1 if problems else 0


def cmd_exact(got_path, exp_path):
    for p in (got_path, exp_path):
        if not os.path.exists(p):
            print("SKIP: %s is absent" % p)
            return 77
    with open(got_path, "rb") as f:
        got = f.read()
    with open(exp_path, "rb") as f:
        exp = f.read()
    if got.rstrip(b"\n") == exp.rstrip(b"\n"):
        print("OK: %s is byte-identical to %s" % (got_path, exp_path))
        return 0
    print("FAIL: %s differs from %s" % (got_path, exp_path))
    return 1


# ---- an independent reader of the program FlatBuffer ----------------------

class Table:
    def __init__(self, buf, pos):
        self.b = buf
        self.pos = pos
        vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vt = vt
        self.vtlen = struct.unpack_from("<H", buf, vt)[0]

    def _off(self, slot):
        o = 4 + 2 * slot
        if o + 2 > self.vtlen:
            return 0
        return struct.unpack_from("<H", self.b, self.vt + o)[0]

    def scalar(self, slot, fmt, default=0):
        o = self._off(slot)
        return struct.unpack_from("<" + fmt, self.b, self.pos + o)[0] if o else default

    def _ref(self, slot):
        o = self._off(slot)
        if not o:
            return None
        p = self.pos + o
        return p + struct.unpack_from("<I", self.b, p)[0]

    def table(self, slot):
        p = self._ref(slot)
        return Table(self.b, p) if p is not None else None

    def string(self, slot):
        p = self._ref(slot)
        if p is None:
            return None
        n = struct.unpack_from("<I", self.b, p)[0]
        return self.b[p + 4:p + 4 + n]

    def vector(self, slot, fmt):
        """Scalars as a list, or None when the vector is absent."""
        p = self._ref(slot)
        if p is None:
            return None
        n = struct.unpack_from("<I", self.b, p)[0]
        return list(struct.unpack_from("<%d%s" % (n, fmt), self.b, p + 4))

    def tables(self, slot):
        p = self._ref(slot)
        if p is None:
            return None
        n = struct.unpack_from("<I", self.b, p)[0]
        out = []
        for i in range(n):
            q = p + 4 + 4 * i
            out.append(Table(self.b, q + struct.unpack_from("<I", self.b, q)[0]))
        return out


def root(buf):
    return Table(buf, struct.unpack_from("<I", buf, 0)[0])


# ---- the adapter's rules, restated in Python (spec section 3) --------------

INSTR_NAMES = {0: "NONE", 1: "KernelCall", 2: "DelegateCall", 3: "MoveCall",
               4: "JumpFalseCall", 5: "FreeCall"}


def pystr(v):
    """str() as the adapter applies it to object-API values."""
    if v is None:
        return "None"
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    if isinstance(v, list):
        return "[" + ", ".join(str(x) for x in v) + "]"
    return str(v)


def evalue_fields(ev):
    """[(key, value)] of the union value, or None when there is no value."""
    t = ev.scalar(0, "B")
    val = ev.table(1)
    if val is None or not 1 <= t <= 11:
        return None
    if t == 1:
        f = []
    elif t == 2:
        f = [("intVal", val.scalar(0, "q"))]
    elif t == 3:
        f = [("boolVal", bool(val.scalar(0, "B")))]
    elif t == 4:
        f = [("doubleVal", repr(val.scalar(0, "d", 0.0)))]
    elif t == 5:
        f = [("scalarType", val.scalar(0, "b")), ("storageOffset", val.scalar(1, "i")),
             ("sizes", val.vector(2, "i")), ("dimOrder", val.vector(3, "B")),
             ("requiresGrad", bool(val.scalar(4, "B"))), ("dataBufferIdx", val.scalar(5, "I")),
             ("allocationInfo", "AllocationDetailsT" if val.table(6) else None),
             ("layout", val.scalar(7, "b")), ("shapeDynamism", val.scalar(8, "b")),
             ("extraTensorInfo", "ExtraTensorInfoT" if val.table(9) else None)]
    elif t == 6:
        f = [("stringVal", val.string(0))]
    elif t == 7:
        f = [("items", val.vector(0, "q"))]
    elif t == 8:
        items = val.vector(0, "d")
        f = [("items", None if items is None else "[" + ", ".join(repr(x) for x in items) + "]")]
    elif t == 9:
        items = val.vector(0, "B")
        f = [("items", None if items is None else [bool(x) for x in items])]
    else:
        f = [("items", val.vector(0, "i"))]
    return [(k, pystr(v)) for k, v in f]


def oracle_graphs(buf, label):
    prog = root(buf)
    plans = prog.tables(1) or []
    graphs, delegate_graphs = [], []
    for pi, plan in enumerate(plans):
        name = plan.string(0)
        gid = pystr(name) if name is not None else "ExecutionPlan_%d" % pi
        values = plan.tables(2) or []
        operators = plan.tables(6) or []
        delegates = plan.tables(7) or []

        def meta(idx):
            attrs = [{"key": "EValue Index", "value": str(idx)}]
            if 0 <= idx < len(values):
                f = evalue_fields(values[idx])
                for k, v in f or []:
                    attrs.append({"key": k, "value": v})
                attrs.append({"key": "valType", "value": str(values[idx].scalar(0, "B"))})
            return {"id": str(idx), "attrs": attrs}

        def candidate(idx):
            ev = values[idx]
            t, val = ev.scalar(0, "B"), ev.table(1)
            if val is None:
                return False
            if t == 5:
                return val.scalar(5, "I") == 0
            return t in (10, 11)

        def node(nid, label_, ns, **kw):
            n = {"id": nid, "label": label_, "namespace": ns, "subgraphIds": [], "attrs": [],
                 "incomingEdges": [], "outputsMetadata": [], "inputsMetadata": []}
            n.update(kw)
            return n

        def edge(src, port):
            return {"sourceNodeId": src, "sourceNodeOutputId": str(port),
                    "targetNodeInputId": str(port)}

        producers = {}
        inputs = plan.vector(3, "i") or []
        for idx in inputs:
            producers[idx] = "GraphInputs"
        nodes = [node("GraphInputs", "Graph Inputs", "GraphInputs",
                      outputsMetadata=[meta(i) for i in inputs])]
        chains = plan.tables(5) or []
        for ci, ch in enumerate(chains):
            if not (ch.tables(2) or []):
                cid = "Chain_%d" % ci
                nodes.append(node(cid, gid, gid, incomingEdges=[edge("GraphInputs", 0)],
                                  attrs=[{"key": "Chain Index", "value": str(ci)},
                                         {"key": "Instructions", "value": "0"}]))
                nodes.append(node("GraphOutputs", "Graph Outputs", "GraphOutputs",
                                  incomingEdges=[edge(cid, 0)]))
        for ci, ch in enumerate(chains):
            for ii, ins in enumerate(ch.tables(2) or []):
                nid = "%s_%d_%d" % (gid, ci, ii)
                t = ins.scalar(0, "B")
                a = ins.table(1)
                label_ = INSTR_NAMES.get(t, str(t))
                attrs = [{"key": "Instruction Type", "value": label_}]
                raw = []
                linked = False
                if a is not None:
                    if t in (1, 2):
                        index, args = a.scalar(0, "i"), a.vector(1, "i")
                        fields = [("opIndex" if t == 1 else "delegateIndex", index),
                                  ("args", args)]
                        raw = args or []
                        if t == 1 and 0 <= index < len(operators):
                            label_ = pystr(operators[index].string(0) or b"")
                        if t == 2 and 0 <= index < len(delegates):
                            d = delegates[index]
                            label_ = pystr(d.string(0) or b"")
                            linked = (d.table(1) is not None
                                      and label_ in ("VgfBackend", "EthosUBackend"))
                    elif t == 3:
                        fields = [("moveFrom", a.scalar(0, "i")), ("moveTo", a.scalar(1, "i"))]
                        raw = [v for _, v in fields]
                    elif t == 4:
                        fields = [("condValueIndex", a.scalar(0, "i")),
                                  ("destinationInstruction", a.scalar(1, "i"))]
                        raw = [fields[0][1]]
                    elif t == 5:
                        fields = [("valueIndex", a.scalar(0, "i"))]
                        raw = [fields[0][1]]
                    else:
                        fields = []
                    attrs += [{"key": k, "value": pystr(v)} for k, v in fields]
                attrs.append({"key": "instrArgsType", "value": str(t)})
                idxs = [i for i in raw if 0 <= i < len(values)]
                edges, ins_meta, outs_meta, seen = [], [], [], set()
                for i in idxs:
                    if not candidate(i) or i in producers:
                        if i in producers:
                            edges.append(edge(producers[i], i))
                        ins_meta.append(meta(i))
                for i in idxs:
                    if candidate(i) and i not in producers and i not in seen:
                        outs_meta.append(meta(i))
                        producers[i] = nid
                        seen.add(i)
                nodes.append(node(nid, label_, gid, attrs=attrs, incomingEdges=edges,
                                  outputsMetadata=outs_meta, inputsMetadata=ins_meta,
                                  subgraphIds=[nid] if linked else []))
                if linked:
                    delegate_graphs.append(nid)
        outputs = plan.vector(4, "i") or []
        nodes.append(node("GraphOutputs", "Graph Outputs", "GraphOutputs",
                          incomingEdges=[edge(producers[i], i) for i in outputs if i in producers],
                          inputsMetadata=[meta(i) for i in outputs]))
        graphs.append({"id": gid, "nodes": nodes})
    if not graphs:
        graphs.append({"id": "ExecutionPlan_0", "nodes": []})
    return {"label": label, "graphs": graphs}, delegate_graphs


def cmd_oracle(etprof, files):
    failures = 0
    for path in files:
        if not os.path.exists(path):
            print("SKIP: %s is absent" % path)
            return 77
        with open(path, "rb") as f:
            buf = f.read()
        expected, delegate_ids = oracle_graphs(buf, os.path.basename(path))
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "graph.json")
            r = subprocess.run([etprof, "graph", path, "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: %s: etprof graph exited %d: %s" % (path, r.returncode, r.stderr))
                failures += 1
                continue
            with open(out) as f:
                got = json.load(f)
        problems = invariants(got)
        g = normalise(got)
        n = len(expected["graphs"])
        d = first_diff({"label": g["label"], "graphs": g["graphs"][:n]}, expected)
        if d:
            problems.append(d)
        extra = [x["id"] for x in g["graphs"][n:]]
        if extra != delegate_ids:
            problems.append("delegate graphs %s, expected %s" % (extra, delegate_ids))
        for p in problems:
            print("FAIL: %s: %s" % (path, p))
        if problems:
            failures += 1
        else:
            print("OK: %s (%d graphs, %d nodes)" % (
                path, n, sum(len(x["nodes"]) for x in expected["graphs"])))
    return 1 if failures else 0


def cmd_fixture(etprof, case_dir):
    pte = os.path.join(case_dir, "input.pte")
    exp = os.path.join(case_dir, "expected_main.json")
    for p in (pte, exp):
        if not os.path.exists(p):
            print("SKIP: %s is absent" % p)
            return 77
    with tempfile.TemporaryDirectory() as tmp:
        full, main_only = os.path.join(tmp, "graph.json"), os.path.join(tmp, "main.json")
        for args in ([pte, "-o", full], [pte, "-o", main_only, "--no-delegate-graphs"]):
            r = subprocess.run([etprof, "graph"] + args, capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: etprof graph %s exited %d: %s" % (" ".join(args), r.returncode,
                                                                r.stderr))
                return 1
        rc = cmd_compare(full, exp)
        return rc or cmd_exact(main_only, exp)


def main(argv):
    if len(argv) == 4 and argv[1] == "fixture":
        return cmd_fixture(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "compare":
        return cmd_compare(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "exact":
        return cmd_exact(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "oracle":
        return cmd_oracle(argv[2], argv[3:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
