#!/usr/bin/env python3
"""Architecture check: layers only look down, and no two files call each other.

usage: check_architecture.py SOURCE_DIR OBJECT_DIR [OBJECT_DIR ...]

1. Includes: a file in src/<layer>/ (or a public header in include/etprof/,
   whose layer is listed below) may include only headers of its own layer or
   a lower one: util < formats < analysis < store < outputs < cli (gen, the input
   generators, sits beside outputs and may use every layer below cli).
2. Folders: inside a layer, code sits in the folders declared in FOLDERS
   below (or the layer's own top, for what the whole layer shares), and the
   folders of a layer include each other's headers without a circle: each
   folder can be read knowing only those below it.
3. Calls: from the libraries' object files (nm, every *.o under the object
   directories, e.g. build/CMakeFiles/etprof.dir), file A depends on file B
   when A uses a symbol B defines. The file graph must have no cycle: a
   circle of calls means the split between the files is not a real one.
Prints one line per violation and a summary; exit 1 on any violation."""
import os, re, subprocess, sys
from collections import defaultdict

RANK = {"util": 0, "formats": 1, "analysis": 2, "store": 2.5, "outputs": 3, "gen": 3, "cli": 4}
# Public headers and the layer each belongs to.
PUBLIC = {
    "error.h": "util", "blob.h": "util", "exit_status.h": "util",
    "etdump.h": "formats", "program.h": "formats", "etrecord.h": "formats",
    "detect.h": "formats", "runner_log.h": "formats", "device_log.h": "formats", "device_report.h": "analysis", "vgf.h": "formats", "units.h": "util",
    "inspect.h": "analysis", "analysis.h": "analysis", "stats.h": "analysis",
    "issues.h": "analysis", "findings.h": "analysis", "source_graph.h": "analysis", "inputs.h": "analysis",
    "columns.h": "analysis", "history.h": "analysis", "diff.h": "analysis", "json.h": "outputs", "dump.h": "outputs", "abi.h": "outputs",
    "bundle.h": "outputs", "bundle_read.h": "formats", "mexplorer.h": "outputs", "me_links.h": "outputs", "report.h": "outputs",
    "trace.h": "outputs", "publish.h": "outputs", "diff_io.h": "outputs", "history_io.h": "outputs",
    "gen.h": "gen", "store.h": "store",
    "nx_record.h": "formats", "nx_stats.h": "analysis", "gen_nx_stats.h": "gen",
    "tensor.h": "analysis", "tensors.h": "analysis", "tensor_columns.h": "analysis",
    "numeric_diff.h": "analysis",
}
# The folders of each layer (a new one is declared here, with the README's map).
FOLDERS = {
    "util": [],
    "formats": ["flatbuffers", "etdump", "program", "etrecord", "vgf", "nx", "logs", "bundle"],
    "analysis": ["inspect", "attribution", "nx", "diff", "history", "findings", "numerics"],
    "store": [],
    "outputs": ["bundle", "report", "mexplorer", "diff", "dump", "trace", "history", "assets", "tensors"],
    "gen": [],
    "cli": [],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    parts = path.split(os.sep)
    if parts[0] == "include":
        return PUBLIC.get(parts[-1])
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def check_includes(root, bad):
    for top in ("src", "include"):
        for d, _, fs in os.walk(os.path.join(root, top)):
            for f in fs:
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                me = layer_of(rel)
                if rel.startswith("include") and me is None:
                    bad.append(f"public header with no layer in check_architecture.py: {rel}")
                    continue
                if me not in RANK:
                    continue
                for target in INCLUDE.findall(open(os.path.join(d, f), errors="replace").read()):
                    if target.startswith("etprof/"):
                        dep = PUBLIC.get(target.split("/")[-1])
                        if dep is None:
                            bad.append(f"{rel}: includes {target}, a public header with no layer")
                            continue
                    elif "/" in target:
                        dep = target.split("/")[0]
                    else:
                        continue
                    if dep in RANK and RANK[dep] > RANK[me]:
                        bad.append(f"upward include: {rel} ({me}) includes {target} ({dep})")


def circles(graph):
    """The strongly connected components of more than one vertex (Tarjan)."""
    index, low, on, stack, n, found = {}, {}, set(), [], [0], []
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def folder_of(rel):
    """'analysis/diff' for src/analysis/diff/x.c, 'analysis/(top)' for src/analysis/x.c."""
    parts = rel.split(os.sep)
    return parts[1] + "/" + (parts[2] if len(parts) > 3 else "(top)")


def check_folders(root, bad):
    graph = defaultdict(set)
    for d, _, fs in os.walk(os.path.join(root, "src")):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), root)
            parts = rel.split(os.sep)
            if len(parts) < 3 or parts[1] not in FOLDERS:
                continue
            if len(parts) > 4 or (len(parts) == 4 and parts[2] not in FOLDERS[parts[1]]):
                bad.append(f"undeclared folder: {rel} (declare it in FOLDERS and the README's map)")
            if not f.endswith((".c", ".h")):
                continue
            me = folder_of(rel)
            for target in INCLUDE.findall(open(os.path.join(d, f), errors="replace").read()):
                tp = target.split("/")
                if target.startswith("etprof/") or len(tp) < 2 or tp[0] != parts[1]:
                    continue
                dep = tp[0] + "/" + (tp[1] if len(tp) > 2 else "(top)")
                if dep != me:
                    graph[me].add(dep)
    for comp in circles(graph):
        bad.append("circle of folders: " + " <-> ".join(comp))


def check_calls(root, dirs, bad):
    defined, used = {}, defaultdict(set)
    seen = set()
    objects = []
    for top in dirs:
        for d, _, fs in os.walk(top):
            objects += [os.path.join(d, f) for f in fs if f.endswith(".o")]
    if not objects:
        bad.append("no object files under " + " ".join(dirs))
        return 0
    for obj in sorted(objects):
        member = re.sub(r"^.*?/src/", "src/", obj)
        # A build directory keeps the objects of files since moved or deleted:
        # only objects whose source still exists describe the tree.
        if not os.path.exists(os.path.join(root, member[:-2])):
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            # "0000000000000000 T name" or "                 U name"
            m = re.match(r"^\s*(?:[0-9a-fA-F]+)?\s+(\S)\s+(\S+)$", line)
            if not m:
                continue
            kind, sym = m.groups()
            seen.add(member)
            if kind == "U":
                used[member].add(sym)
            elif kind in "TDBRC" and kind.isupper():
                if sym in defined and defined[sym] != member:
                    bad.append(f"symbol {sym} defined in {defined[sym]} and {member}")
                defined[sym] = member
    graph = defaultdict(set)
    for member, syms in used.items():
        for s in syms:
            d = defined.get(s)
            if d and d != member:
                graph[member].add(d)
    for comp in circles(graph):
        bad.append("circle of calls: " + " <-> ".join(c[:-2] if c.endswith(".o") else c for c in comp))
    return len(seen)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    bad = []
    check_includes(sys.argv[1], bad)
    check_folders(sys.argv[1], bad)
    files = check_calls(sys.argv[1], sys.argv[2:], bad)
    for b in bad:
        print(b)
    print(f"architecture: {len(bad)} violation(s) over {files} object files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
