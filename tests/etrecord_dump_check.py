#!/usr/bin/env python3
"""`etprof dump` of ETRecords, checked against an independent reading.

For each ETRecord given: the outline exits 0; `--json` exits 0, parses, is
byte-identical across runs and equal to `--compact`; and its contents agree
with what Python's own zipfile + json read from the same archive (entry list,
nodes per program with targets and debug handles, the maps). Exit 77 (skip)
only when the fixtures folder is absent.
"""
import json
import os
import subprocess
import sys
import zipfile

RESERVED_MAPS = ("debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def norm_handles(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def check(etprof, path):
    rc, out, err = run([etprof, "dump", path])
    if rc != 0 or not out.startswith(b"ETRecord "):
        fail(f"{path}: outline rc={rc} stderr={err!r}")
    rc, js, err = run([etprof, "dump", "--json", path])
    if rc != 0:
        fail(f"{path}: --json rc={rc} stderr={err!r}")
    doc = json.loads(js)
    rc2, js2, _ = run([etprof, "dump", "--json", path])
    if rc2 != 0 or js2 != js:
        fail(f"{path}: --json output differs between runs")
    rc3, compact, _ = run([etprof, "dump", "--json", "--compact", path])
    if rc3 != 0 or json.loads(compact) != doc:
        fail(f"{path}: --compact differs from the pretty document")

    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        if [e["name"] for e in doc["entries"]] != [i.filename for i in infos]:
            fail(f"{path}: entry list differs")
        for e, i in zip(doc["entries"], infos):
            if e["size"] != i.file_size or e["compressed_size"] != i.compress_size:
                fail(f"{path}: sizes of {i.filename} differ")
        by_entry = {p["entry"]: p for p in doc["programs"]}
        for e in doc["entries"]:
            if e["role"] not in ("edge_program", "exported_program", "graph_map_program"):
                continue
            ref = json.loads(z.read(e["name"]))
            nodes = ref["graph_module"]["graph"]["nodes"]
            mine = by_entry[e["name"]]["nodes"]
            if len(nodes) != len(mine):
                fail(f"{path}: {e['name']}: {len(mine)} nodes, python reads {len(nodes)}")
            for a, b in zip(nodes, mine):
                if a["target"] != b["target"]:
                    fail(f"{path}: target {a['target']} != {b['target']}")
                if "name" in a and a["name"] != b["name"]:
                    fail(f"{path}: node name {a['name']} != {b['name']}")
                md = a.get("metadata") or {}
                h = int(md["debug_handle"]) if md.get("debug_handle") is not None else None
                if h != b["debug_handle"]:
                    fail(f"{path}: {b['name']}: handle {b['debug_handle']}, python {h}")
                if md.get("stack_trace") != b["stack_trace"]:
                    fail(f"{path}: {b['name']}: stack trace differs")
                if md.get("nn_module_stack") != b["nn_module_stack"]:
                    fail(f"{path}: {b['name']}: nn_module_stack differs")
        names = set(i.filename for i in infos)
        for m in RESERVED_MAPS:
            if m not in names:
                if doc[m] is not None:
                    fail(f"{path}: absent {m} is not null")
                continue
            ref = json.loads(z.read(m))
            if m == "debug_handle_map":
                ref = {k: {i: norm_handles(v) for i, v in mv.items()} for k, mv in ref.items()}
            elif m == "delegate_map":
                ref = {k: {i: {"name": v.get("name"),
                               "delegate_map": {d: norm_handles(h)
                                                for d, h in (v.get("delegate_map") or {}).items()}}
                           for i, v in mv.items()} for k, mv in ref.items()}
            if doc[m] != ref:
                fail(f"{path}: {m} differs: {doc[m]} vs {ref}")
        if "export_graph_id" in names:
            if doc["export_graph_id"] != json.loads(z.read("export_graph_id")):
                fail(f"{path}: export_graph_id differs")
    print(f"ok {path}: {len(doc['programs'])} programs, layout {doc['layout']!r}")


def main():
    etprof, fixtures = sys.argv[1], sys.argv[2]
    if not os.path.isdir(fixtures):
        print(f"SKIP: {fixtures} is absent; this test reads real ETRecords there")
        return 77
    for rel in sys.argv[3:]:
        check(etprof, os.path.join(fixtures, rel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
