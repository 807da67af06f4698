#!/usr/bin/env python3
"""`etprof gen fleet`: a labelled history of published bundles with known
injected regressions (tests/fleet.cmake).

  fleet_check.py WORKDIR

Checks: every bundle verifies and carries its labels and fixed identity; two
generations into different directories are byte-identical; fleet.json names
the programs by digest and each injection's series and first run; the store
ingests the whole fleet, lists it by label, and its series (the store's own
grouping) are fleet.json's, with the injected step where fleet.json says and
nowhere else; usage errors exit 2; `etprof db regressions` finds exactly the
injected series, each from its first slowed run.

Environment: ETPROF (the binary), ETP_STORE_PROBE (tests/support/store_probe).
"""
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys

ETPROF = os.environ["ETPROF"]
PROBE = os.environ["ETP_STORE_PROBE"]
ARGS = ["--runs", "12", "--devices", "2", "--models", "2", "--noise", "1", "--seed", "7",
        "--detailed", "--inject", "cnn-small/pixel7@8:1.3"]
LABELS = ("backend", "branch", "commit", "device", "fleet", "model", "seq")


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        sys.exit(f"FAIL: {' '.join(args)}: exit {p.returncode}, wanted {expect}\n"
                 f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


def tree(root):
    """Every file under root (relative path -> bytes) and every directory."""
    files, dirs = {}, set()
    for d, subdirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs.add(rel)
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                files[os.path.normpath(os.path.join(rel, n))] = f.read()
    return files, dirs


def bundles(root, fleet):
    for m in fleet["models"]:
        for d in fleet["devices"]:
            for r in range(fleet["runs"]):
                yield m, d, r, os.path.join(root, m["name"], d["name"], f"run-{r}")


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    a, b = os.path.join(work, "a"), os.path.join(work, "b")

    # ---- generation, twice: the same bytes wherever it is written ----
    out = run([ETPROF, "gen", "fleet", "-o", a, *ARGS]).stdout
    check(out.count("\n") == 1 and "2 models x 2 devices x 12 runs = 48 bundles" in out,
          f"one-line summary: {out!r}")
    run([ETPROF, "gen", "fleet", "-o", b, "--jobs", "1", "--quiet", *ARGS])
    fa, da = tree(a)
    fb, db = tree(b)
    check(da == db and fa.keys() == fb.keys(), "the two fleets have different files")
    diff = [p for p in fa if fa[p] != fb[p]]
    check(not diff, f"the two fleets differ in {diff[:5]}")
    check(not any(p.startswith("etdumps") for p in fa), "the run ETDumps were not removed")

    with open(os.path.join(a, "fleet.json")) as f:
        fleet = json.load(f)
    check(fleet["schema"] == "etprof.fleet" and fleet["bundles"] == 48, "fleet.json header")
    check([m["name"] for m in fleet["models"]] == ["cnn-small", "cnn-vulkan"], "model names")
    check([d["name"] for d in fleet["devices"]] == ["pixel7", "galaxy-s24"], "device names")
    for m in fleet["models"]:
        digest = hashlib.sha256(fa[m["program"]]).hexdigest()
        check(m["program_sha256"] == digest, f"{m['name']}: program digest")
    check(len({m["program_sha256"] for m in fleet["models"]}) == 2, "models share a program")
    injected = {}
    for inj in fleet["injections"]:
        check(inj["spec"] == "cnn-small/pixel7@8:1.3" and inj["factor"] == 1.3, "injection")
        check(len(inj["affected"]) == 1, f"one series affected: {inj['affected']}")
        hit = inj["affected"][0]
        check(hit["model"] == "cnn-small" and hit["device"] == "pixel7" and
              hit["first_run"]["seq"] == 8, f"affected series: {hit}")
        injected[hit["key"]] = hit["first_run"]

    # ---- every bundle: verified, labelled, its identity fixed ----
    sha = {m["name"]: m["program_sha256"] for m in fleet["models"]}
    run_ids = set()
    for m, d, r, path in bundles(a, fleet):
        run([ETPROF, "verify", path])
        with open(os.path.join(path, "run_metadata.json")) as f:
            meta = json.load(f)
        labels = meta["labels"]
        check(tuple(sorted(labels)) == LABELS, f"{path}: labels {sorted(labels)}")
        check(labels["device"] == d["name"] and labels["model"] == m["name"] and
              labels["seq"] == str(r) and labels["branch"] == "main" and labels["fleet"] == "1" and
              labels["backend"] == m["backend"], f"{path}: labels {labels}")
        check(len(labels["commit"]) == 40 and int(labels["commit"], 16) >= 0, "commit")
        check(meta["timestamp"].startswith(f"2026-01-01T{r:02d}:"), f"{path}: {meta['timestamp']}")
        run_ids.add(meta["run_id"])
        pte = [i for i in meta["inputs"] if i["role"] == "pte"]
        check(pte and pte[0]["sha256"] == sha[m["name"]], f"{path}: program input")
        check(os.path.isdir(os.path.join(path, "detailed")), f"{path}: --detailed")
    check(len(run_ids) == 48, "run ids are not distinct")
    first = next(iter(injected.values()))
    with open(os.path.join(a, first["bundle"], "run_metadata.json")) as f:
        meta = json.load(f)
    check(meta["run_id"] == first["run_id"] and meta["timestamp"] == first["published"] and
          meta["labels"]["commit"] == first["commit"], "fleet.json's first run is not the bundle's")

    # ---- the store: ingest, list by label, series as fleet.json says ----
    db = os.path.join(work, "fleet.sqlite")
    out = run([ETPROF, "db", "ingest", "--db", db, a]).stdout
    check("48 added, 0 already stored, 0 refused" in out, f"ingest: {out[-300:]}")
    runs = json.loads(run([ETPROF, "db", "runs", "--db", db, "--where", "device=pixel7",
                           "--json"]).stdout)["runs"]
    check(len(runs) == 24 and all(x["labels"]["device"] == "pixel7" for x in runs),
          f"db runs --where device=pixel7: {len(runs)} runs")
    check(all(x["detailed"] for x in runs), "detailed runs stored without samples")
    series = json.loads(run([PROBE, db, "series", "--metric", "method_execute.avg",
                             "--order-by", "seq"]).stdout)
    series = series.get("series", series) if isinstance(series, dict) else series
    keys = {s["key"] for s in series}
    check(keys == {s["key"] for s in fleet["series"]},
          f"the store's series are not fleet.json's:\n{sorted(keys)}\n"
          f"{sorted(s['key'] for s in fleet['series'])}")
    for s in series:
        values = [p["value"] for p in s["points"]]
        check(len(values) == 12, f"{s['key']}: {len(values)} points")
        at = injected[s["key"]]["seq"] if s["key"] in injected else 8
        step = statistics.median(values[at:]) / statistics.median(values[:at])
        want = 1.3 if s["key"] in injected else 1.0
        check(abs(step - want) < 0.06, f"{s['key']}: step {step:.3f}, injected {want}")

    # ---- the regression verb: the injected series, and no other ----
    regressions = [ETPROF, "db", "regressions", "--db", db, "--metric", "method_execute.avg", "--json"]
    text = run(regressions).stdout
    rep = json.loads(text)
    # Read in two halves at once (forced on this short history): the same verdicts.
    os.environ["ETPROF_SERIES_SPLIT_MIN"] = "2"
    split = run(regressions).stdout
    del os.environ["ETPROF_SERIES_SPLIT_MIN"]
    check(split == text, "db regressions over a history read in two halves: the same answer")
    found = {s["series"] for s in rep["series"] if s["regression"]["verdict"] == "regression"}
    check(found == set(injected), f"db regressions found {sorted(found)}, injected {sorted(injected)}")
    for s in rep["series"]:
        if s["series"] in injected:
            change = s["regression"]["change"]
            check(change is not None and change["labels"]["seq"] == str(injected[s["series"]]["seq"]),
                  f"{s['series']}: the change begins at seq {injected[s['series']]['seq']}, "
                  f"not {change and change['labels']['seq']}")

    # ---- usage ----
    for bad in (["--inject", "pixel7"], ["--inject", "nosuch@1:1.2"], ["--inject", "pixel7@12:1.2"],
                ["--inject", "pixel7@1:0"], ["--inject", "x/pixel7@1:2"], ["--noise", "99"],
                ["--runs", "0"], ["--devices", "49"], ["--jobs", "9"], ["--model-explorer", "x"]):
        p = run([ETPROF, "gen", "fleet", "-o", os.path.join(work, "u"), "--runs", "12", *bad],
                expect=2)
        check(p.stderr.count("\n") == 1 and not os.path.exists(os.path.join(work, "u")),
              f"{bad}: {p.stderr!r}")
    p = run([ETPROF, "gen", "fleet", "-o", a, "--runs", "1"], expect=1)
    check("not empty" in p.stderr, f"non-empty DIR: {p.stderr!r}")
    print("fleet: ok")


if __name__ == "__main__":
    main()
