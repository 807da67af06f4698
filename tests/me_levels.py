#!/usr/bin/env python3
"""The levels of --model-explorer on real runs: `files` (graph, overlays,
page), `overlays` (the overlays and mapping, without the per-program
graph.json and index.html), `none` (no model_explorer/), and seed 003's
`--no-model-explorer` as `none`. Each bundle verifies strictly; the
overlays level's files are byte-identical to the same files of the files
level (same inputs), and the options recorded name the level.

usage: me_levels.py ETPROF FIXTURES_DIR WORK_DIR"""
import json, os, shutil, subprocess, sys

ETPROF, FIXTURES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
R = os.path.join(FIXTURES, "real-runs")
if not os.path.isdir(R):
    print(f"SKIP: {R} is absent")
    sys.exit(77)

RUNS = {
    "cm": [f"{R}/cm_et_arduino_kws_x10.etrecord", "--etdump", f"{R}/cm_et_arduino_kws_x10.etdp",
           "--pte", f"{R}/cm_et_arduino_kws_x10.pte"],
    "xnn": ["--etdump", f"{R}/xnn_np_add_x10.etdp", "--pte", f"{R}/xnn_np_add_x10.pte"],
}
PER_PROGRAM = {"model_explorer/graph.json", "model_explorer/index.html"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def publish(args, out, *level):
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([ETPROF, "analyze"] + args + ["-o", out, "--quiet"] + list(level),
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{out}: exit {r.returncode}: {r.stderr}")
    v = subprocess.run([ETPROF, "verify", "--strict", out], capture_output=True, text=True)
    check(v.returncode == 0, f"{out}: verify: {v.stdout}{v.stderr}")
    with open(os.path.join(out, "result_manifest.json")) as f:
        arts = {a["path"] for a in json.load(f)["artifacts"]}
    with open(os.path.join(out, "run_metadata.json")) as f:
        recorded = json.load(f)["options"]["model_explorer"]
    return arts, recorded


def read(d, rel):
    with open(os.path.join(d, rel), "rb") as f:
        return f.read()


os.makedirs(WORK, exist_ok=True)
for name, args in RUNS.items():
    d = {lv: os.path.join(WORK, f"{name}-{lv}") for lv in ("files", "overlays", "none", "no")}
    files, rf = publish(args, d["files"], "--model-explorer", "files")
    over, ro = publish(args, d["overlays"], "--model-explorer", "overlays")
    none, rn = publish(args, d["none"], "--model-explorer", "none")
    no, rno = publish(args, d["no"], "--no-model-explorer")
    me = lambda arts: {a for a in arts if a.startswith("model_explorer/")}
    check(PER_PROGRAM <= me(files), f"{name}: files level lacks {PER_PROGRAM - me(files)}")
    check(me(over) == me(files) - PER_PROGRAM,
          f"{name}: overlays level holds {sorted(me(over))}, want {sorted(me(files) - PER_PROGRAM)}")
    check(any(a.endswith("-avg-ms.json") for a in me(over)), f"{name}: overlays level has no overlay")
    if name == "cm":
        check("model_explorer/mapping.json" in me(over), f"{name}: overlays level lacks the mapping")
    for rel in me(over):
        check(read(d["overlays"], rel) == read(d["files"], rel), f"{name}: {rel} differs between levels")
    check(me(none) == set() and me(no) == set(), f"{name}: none level holds {me(none) | me(no)}")
    check(not os.path.exists(os.path.join(d["none"], "model_explorer")), f"{name}: none made the dir")
    check(none == no, f"{name}: --no-model-explorer differs from none: {none ^ no}")
    check((rf, ro, rn, rno) == ("files", "overlays", "none", "none"),
          f"{name}: recorded levels {(rf, ro, rn, rno)}")
    sizes = {lv: sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)
             for lv, p in d.items() if lv != "no"}
    print(f"{name}: bundle bytes {sizes}")

r = subprocess.run([ETPROF, "analyze"] + RUNS["xnn"] + ["-o", os.path.join(WORK, "bad"),
                    "--model-explorer", "graph"], capture_output=True, text=True)
check(r.returncode == 2 and "files, open, overlays or none" in r.stderr,
      f"--model-explorer graph: exit {r.returncode}: {r.stderr}")
r = subprocess.run([ETPROF, "analyze"] + RUNS["xnn"] + ["--no-model-explorer"],
                   capture_output=True, text=True)
check(r.returncode == 2 and "-o DIR" in r.stderr, f"--no-model-explorer without -o: {r.returncode}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all Model Explorer levels passed")
