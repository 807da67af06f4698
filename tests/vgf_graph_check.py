#!/usr/bin/python3
"""`etprof graph` of VGF models against Arm's adapters' expected documents.

usage:
  vgf_graph_check.py vgf ETPROF CASE_DIR
      `ETPROF graph CASE_DIR/input.vgf` must equal CASE_DIR/expected.json
      (the VGF adapter's output): every graph, node for node, in order.
  vgf_graph_check.py pte ETPROF CASE_DIR
      `ETPROF graph CASE_DIR/input.pte`: each graph of the expected
      `delegates` collection (CASE_DIR/expected_delegates.json) must be in
      the output under its id (the delegate-call node's), node for node, and
      the delegate-call node must list it in subgraphIds.

Node lists are compared as the pte-adapter's tests compare them: parsed JSON,
null-valued keys dropped, list order significant, every attribute (loc
included). Exit 0 on success, 1 on a mismatch, 77 when a fixture is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

from json_diff import first_difference


def normalise(x):
    if isinstance(x, dict):
        return {k: normalise(v) for k, v in x.items() if v is not None}
    if isinstance(x, list):
        return [normalise(v) for v in x]
    return x


def first_diff(a, b, path="$"):
    return first_difference(a, b, path, key_order=False)


def run_graph(etprof, src, tmp):
    out = os.path.join(tmp, "graph.json")
    r = subprocess.run([etprof, "graph", src, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: etprof graph %s exited %d: %s" % (src, r.returncode, r.stderr.strip()))
        return None
    with open(out) as f:
        return json.load(f)


def case_vgf(etprof, case):
    src, exp_path = os.path.join(case, "input.vgf"), os.path.join(case, "expected.json")
    for p in (src, exp_path):
        if not os.path.exists(p):
            print("SKIP: %s is absent" % p)
            return 77
    with open(exp_path) as f:
        exp = normalise(json.load(f))
    with tempfile.TemporaryDirectory() as tmp:
        got = run_graph(etprof, src, tmp)
    if got is None:
        return 1
    d = first_diff(normalise(got), exp)
    if d:
        print("FAIL:", d)
        return 1
    print("OK: %s equals %s (%d nodes)" % (src, exp_path,
                                          sum(len(g["nodes"]) for g in exp["graphs"])))
    return 0


def case_pte(etprof, case):
    src = os.path.join(case, "input.pte")
    exp_path = os.path.join(case, "expected_delegates.json")
    for p in (src, exp_path):
        if not os.path.exists(p):
            print("SKIP: %s is absent" % p)
            return 77
    with open(exp_path) as f:
        exp = normalise(json.load(f))
    with tempfile.TemporaryDirectory() as tmp:
        got = run_graph(etprof, src, tmp)
    if got is None:
        return 1
    graphs = {g["id"]: normalise(g) for g in got["graphs"]}
    nodes = {n["id"]: n for g in got["graphs"] for n in g["nodes"]}
    problems = []
    for eg in exp["graphs"]:
        g = graphs.get(eg["id"])
        if g is None:
            problems.append("no graph %s in the output" % eg["id"])
            continue
        d = first_diff(g["nodes"], eg["nodes"], "$.%s.nodes" % eg["id"])
        if d:
            problems.append(d)
        call = nodes.get(eg["id"])
        if not call or call.get("subgraphIds") != [eg["id"]]:
            problems.append("node %s does not link to its delegate graph" % eg["id"])
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print("OK: %s: delegates %s match %s" % (src, [g["id"] for g in exp["graphs"]], exp_path))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "vgf":
        return case_vgf(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "pte":
        return case_pte(argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
