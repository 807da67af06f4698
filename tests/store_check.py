#!/usr/bin/python3
"""The run-history store (`etprof db`, etprof/store.h), one scenario per
call, the same scenarios against SQLite and PostgreSQL:

  ingest      bundles found under directories, verified, refused by name
              (tampered, unpublished), idempotent, --jobs, --json, runs
              listings and filters, ETPROF_DB
  content     what is stored is what the bundles say (metrics, entities,
              per-execution values, inputs, issues, device figures, NX groups)
  series      points, groups, order (time, numeric label), samples, filters
  export      every run with its metrics, in order, across query chunks
  concurrent  four processes ingesting at once lose and duplicate nothing
  kill        SIGKILL inside a transaction leaves the database consistent,
              and a re-run completes it
  hostile     quotes, semicolons, 10 kB and non-UTF-8 labels and paths stored
              and read back exactly
  secrets     a password in a target never printed, logged or written
  failures    unreachable server, missing or read-only database: one line,
              exit 1, nothing half-written
  migrate     an older schema migrated by ingest, a newer one refused
  gc          --keep-last per series group, --keep-days, rows go with runs
  analyze     analyze/run -o DIR --db, --label, --labels-from-ci
  cli         verbs, help and usage errors

usage: store_check.py CASE sqlite|postgresql WORKDIR
Environment: ETPROF, ETP_STORE_PROBE (tests/support/store_probe.c),
ETP_PG_DIR (the cluster tests/tools/pg_cluster.sh started), ETP_FIXTURES.
"""
import base64
import csv
import hashlib
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checklist import Checklist  # noqa: E402

CASE, ENGINE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ETPROF = os.environ["ETPROF"]
PROBE = os.environ["ETP_STORE_PROBE"]
PG_DIR = os.environ.get("ETP_PG_DIR", "")
PG_CLUSTER = os.path.join(HERE, "tools", "pg_cluster.sh")
PSQL = os.path.join(os.environ.get("ETP_PG_BIN", "/usr/lib/postgresql/15/bin"), "psql")
FIX = os.environ.get("ETP_FIXTURES", "")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
ck = Checklist(ETPROF, WORK)
expect = ck.expect


def run(*args, env=None, cwd=None):
    """etprof ARGS: (status, stdout bytes, stderr text)."""
    p = subprocess.run([ETPROF] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **(env or {})), cwd=cwd)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def probe(target, *args):
    p = subprocess.run([PROBE, target] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if args and args[0] == "series":
        # A long history is read in two halves at once (SQLite); forced on
        # this short one, the answer must be byte for byte the same.
        env = dict(os.environ, ETPROF_SERIES_SPLIT_MIN="2")
        q = subprocess.run([PROBE, target] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env)
        expect(q.returncode == p.returncode and q.stdout == p.stdout,
               "series %s read in two halves: the same answer" % " ".join(args[1:]))
    if p.returncode:
        return None, p.stderr.decode(errors="replace")
    return json.loads(p.stdout), ""


# ---- targets ------------------------------------------------------------------

def new_target(name):
    """A fresh, empty database of this engine."""
    if ENGINE == "sqlite":
        return os.path.join(WORK, name + ".db")
    if not os.path.exists(os.path.join(PG_DIR, "url")):
        print("FAIL the PostgreSQL test cluster is not running (store.pg.start failed or did not run)")
        sys.exit(1)
    p = subprocess.run(["bash", PG_CLUSTER, "createdb", PG_DIR, "etp_%s_%s" % (CASE, name)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return p.stdout.decode().strip()


def sql(target, query):
    """Rows of QUERY (a constant of this test) as lists of text."""
    if ENGINE == "sqlite":
        con = sqlite3.connect(target)
        con.text_factory = bytes
        try:
            rows = con.execute(query).fetchall()
            con.commit()
        finally:
            con.close()
        return [[c.decode(errors="replace") if isinstance(c, bytes) else "" if c is None else str(c)
                 for c in r] for r in rows]
    # bytea as its bytes where printable (the checks compare ASCII text)
    p = subprocess.run([PSQL, "-X", "-A", "-t", "-q", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                        "-d", target, "-c", "SET bytea_output = escape", "-c", query],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        raise RuntimeError(p.stderr.decode())
    return [line.split("\x1f") for line in p.stdout.decode(errors="replace").splitlines() if line]


def count(target, table, where=""):
    return int(sql(target, "SELECT count(*) FROM %s %s" % (table, where))[0][0])


# ---- bundles --------------------------------------------------------------------

INPUTS = {}


def demo(seed):
    if seed not in INPUTS:
        os.makedirs(os.path.join(WORK, "inputs"), exist_ok=True)
        d = os.path.join(WORK, "inputs", "demo%d" % seed)
        rc, _, err = run("gen", "demo", "-o", d, "--seed", str(seed))
        assert rc == 0, err
        INPUTS[seed] = d
    return INPUTS[seed]


def publish(name, seed=1, labels=(), detailed=False, extra=(), parent="b"):
    """analyze the demo of SEED -o WORK/PARENT/NAME with --label K=V; its path."""
    d = demo(seed)
    out = os.path.join(WORK, parent, name) if isinstance(name, str) else os.path.join(
        WORK.encode(), parent.encode(), name)
    args = ["analyze", d + "/model.etrecord", "--etdump", d + "/run.etdp", "--pte", d + "/model.pte",
            "--source-unit", "ns", "-o", out, "--quiet", "--parents"]
    for k, v in labels:
        args += ["--label", k + "=" + v] if isinstance(v, str) else [b"--label", k.encode() + b"=" + v]
    if detailed:
        args.append("--detailed")
    args += list(extra)
    rc, _, err = run(*args)
    assert rc == 0, err
    return out


def variant(src, dst, published_ms=None):
    """A copy of bundle SRC with another run id (and publication time): a
    distinct bundle (its manifest digest differs) that still verifies."""
    shutil.copytree(src, dst)
    m = os.path.join(dst, "result_manifest.json")
    j = json.load(open(m))
    j["run_id"] = str(uuid.uuid4())
    if published_ms is not None:
        t = time.gmtime(published_ms // 1000)
        j["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%S", t) + ".%03dZ" % (published_ms % 1000)
    with open(m, "w") as f:
        json.dump(j, f, indent=2)
    return dst


def manifest_sha(b):
    return hashlib.sha256(open(os.path.join(b, "result_manifest.json"), "rb").read()).hexdigest()


def summary(b):
    return json.load(open(os.path.join(b, "summary.json")))


def table(b, name="operators.csv"):
    with open(os.path.join(b, name), newline="") as f:
        return list(csv.DictReader(f))


def ingest(target, *paths, extra=()):
    return run("db", "ingest", "--db", target, *paths, *extra)


def runs_json(target, *extra):
    rc, out, err = run("db", "runs", "--db", target, "--json", *extra)
    return json.loads(out)["runs"] if rc == 0 else None


def one_line(err):
    return err.count("\n") == 1 and err.startswith("etprof: ")


def label_value(v):
    """A label value of the JSON listings: text, or {"base64": ...} bytes."""
    return base64.b64decode(v["base64"]) if isinstance(v, dict) else v.encode()


# ---- the scenarios ------------------------------------------------------------------

def case_ingest():
    T = new_target("h")
    a = publish("a", 1, [("device", "pixel7"), ("seq", "1")], detailed=True, parent="tree")
    b = publish("b", 1, [("device", "pixel7"), ("seq", "2")], parent="tree")
    c = publish("c", 2, [("device", "rpi5"), ("seq", "1")], parent="tree/more")
    d = os.path.join(WORK, "tree", "d")
    shutil.copytree(a, d)
    with open(os.path.join(d, "operators.csv"), "r+b") as f:
        f.seek(40)
        x = f.read(1)
        f.seek(40)
        f.write(b"7" if x != b"7" else b"8")
    e = os.path.join(WORK, "tree", "e")
    shutil.copytree(b, e)
    os.rename(os.path.join(e, "result_manifest.json"), os.path.join(e, ".result_manifest.json.tmp"))
    os.makedirs(os.path.join(WORK, "tree", "not-a-bundle", "empty"))
    tree = os.path.join(WORK, "tree")
    rc, out, err = ingest(T, tree)
    lines = err.splitlines()
    expect(rc == 1 and len(lines) == 2 and lines[0].startswith("etprof: %s: refused: " % d) and
           "does not verify" in lines[0] and lines[1].startswith("etprof: %s: refused: not published" % e),
           "a tampered and an unpublished bundle are refused by name (exit 1): %s" % lines)
    expect(b"3 added, 0 already stored, 2 refused" in out, "the others still go in: %s" % out.decode().strip().splitlines()[-1:])
    expect(count(T, "runs") == 3, "three runs stored")
    before, _ = probe(T, "export")
    rc, out, err = ingest(T, tree)
    expect(rc == 1 and b"0 added, 3 already stored, 2 refused" in out, "a second ingest changes nothing and says so")
    rc, out, err = ingest(T, a, b, c)
    expect(rc == 0 and out.count(b"already stored, nothing changed") == 3, "the good ones alone: exit 0, all present")
    after, _ = probe(T, "export")
    expect(before == after and before is not None, "stored content unchanged by the second ingest")
    # --jobs: the same runs, the same content.
    T2 = new_target("jobs")
    rc, out, err = run("db", "ingest", "--db", T2, a, b, c, "--jobs", "3", "--json")
    j = json.loads(out) if rc == 0 else {}
    expect(rc == 0 and [x["status"] for x in j.get("bundles", [])] == ["added"] * 3 and j["added"] == 3,
           "--jobs 3 --json: three bundles added, in the order given")
    e2, _ = probe(T2, "export")
    strip = lambda ex: [{k: v for k, v in r.items() if k != "run"} for r in ex or []]
    expect(strip(e2) == strip(sorted(after, key=lambda r: r["published_ms"])), "--jobs stores the same content")
    expect({x["manifest_sha256"] for x in j.get("bundles", [])} == {manifest_sha(x) for x in (a, b, c)},
           "runs are identified by the SHA-256 of result_manifest.json")
    # Listings and filters.
    rs = runs_json(T)
    expect(rs is not None and [r["published_ms"] for r in rs] == sorted(r["published_ms"] for r in rs),
           "db runs lists oldest first")
    expect(len(runs_json(T, "--where", "device=pixel7")) == 2, "--where device=pixel7: two runs")
    expect(len(runs_json(T, "--where", "device=pixel7", "--where", "seq=2")) == 1, "two --where: both hold")
    expect(len(runs_json(T, "--where", "method=forward")) == 3, "--where on the run's own field (method)")
    prog = hashlib.sha256(open(demo(2) + "/model.pte", "rb").read()).hexdigest()
    expect(len(runs_json(T, "--where", "program=" + prog)) == 1, "--where program=SHA256")
    expect(len(runs_json(T, "--since", "1h")) == 3 and runs_json(T, "--since", "2999-01-01") == [],
           "--since as a duration and as a date")
    r0 = runs_json(T, "--where", "seq=2")[0]
    expect(r0["labels"] == {"device": "pixel7", "seq": "2"} and r0["validity"] == "valid" and
           r0["time_unit"] == "ms" and r0["executions"] == 5 and r0["bundle"] == b and not r0["detailed"],
           "a run's fields and labels")
    rc, out, err = run("db", "runs", "--csv", env={"ETPROF_DB": T})
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    expect(rc == 0 and len(rows) == 3 and rows[0]["label_device"] in ("pixel7", "rpi5") and
           json.loads(rows[0]["labels"])["device"] == rows[0]["label_device"],
           "ETPROF_DB stands for --db; --csv has the conventional label columns and every label in `labels`")
    rc, out, err = run("db", "runs", "--db", T)
    expect(rc == 0 and out.count(b"\n") == 5 and b"device=rpi5" in out and out.endswith(b"3 runs\n"),
           "the table for people")
    # An extra --label for this ingest only: the bundle is unchanged.
    T3 = new_target("extra")
    before = open(os.path.join(c, "run_metadata.json"), "rb").read()
    rc, out, err = ingest(T3, c, extra=["--label", "device=rpi5-b", "--label", "lab=3"])
    r = runs_json(T3)
    expect(rc == 0 and r[0]["labels"] == {"device": "rpi5-b", "lab": "3", "seq": "1"} and
           open(os.path.join(c, "run_metadata.json"), "rb").read() == before,
           "db ingest --label adds and overrides labels; the bundle is not changed")


def case_content():
    T = new_target("h")
    b = publish("det", 1, [("device", "pixel7")], detailed=True)
    rc, out, err = ingest(T, b)
    expect(rc == 0, "ingest (%s)" % err.strip())
    ex, _ = probe(T, "export")
    s = summary(b)
    want = sorted(({"name": m["name"], "value": m["value"], "unit": m["unit"],
                    "aggregation": m["aggregation"], "additive": m["additive"], "samples": m["samples"]}
                   for m in s["metrics"] if m.get("availability") != "unavailable"), key=lambda m: m["name"])
    got = [{k: v for k, v in m.items() if k != "execution_values"} for m in ex[0]["metrics"]]
    expect(got == want, "every summary.json metric stored exactly (value, unit, aggregation, additivity, samples)")
    fig = {}
    for row in table(b, "detailed/figures.csv"):
        fig.setdefault(row["figure"], []).append(float(row["value_ms"]))
    vals = {m["name"]: m.get("execution_values") for m in ex[0]["metrics"]}
    expect(vals["method_execute.avg"] == fig["method_execute"] and vals["method_execute.max"] == fig["method_execute"]
           and vals["delegate_time:VulkanBackend.p50"] == fig["delegate_time:VulkanBackend"],
           "per-execution values of the model figures (--detailed) stored exactly")
    ops = table(b)
    for stat in ("avg", "p10", "p50", "p90", "min", "max", "kernel_avg", "dispatch_avg"):
        col = stat + "_ms"
        ok = True
        for row in ops:
            if not row[col] or row["kind"].startswith("nx_"):
                continue
            ser, err = probe(T, "series", "--entity", row["entity_id"], "--stat", stat, "--group-by", "method")
            pts = [p for x in ser["series"] for p in x["points"]] if ser else []
            ok &= len(pts) == 1 and pts[0]["value"] == float(row[col]) and pts[0]["samples"] == int(row["executions"])
            if stat != "avg":
                break  # one entity is enough for the other statistics
        expect(ok, "entity %s as operators.csv has it" % stat)
    n_entities = sum(1 for r in ops if not r["kind"].startswith("nx_"))
    m = json.load(open(os.path.join(b, "result_manifest.json")))
    expect(count(T, "entities") == n_entities and count(T, "inputs") == len(m["provenance"]["inputs"]) and
           count(T, "issues") == len(m["issues"]) and count(T, "labels") == 1 and
           count(T, "metrics") == len(s["metrics"]) and count(T, "figure_samples") == len(fig),
           "one row per entity, input, issue, label, metric and figure")
    kinds = sql(T, "SELECT key, kind, name, op_type, backend FROM entity_keys ORDER BY key")
    expect(sorted([r["entity_id"], r["kind"], r["name"], r["op_type"], r["backend"]] for r in ops) == sorted(kinds),
           "entity keys: id, kind, name, type and backend as operators.csv")
    if not os.path.isdir(os.path.join(FIX, "real-runs")):
        print("note: ../shared/fixtures absent: device figures and NX groups not checked")
        return
    # Device and runner figures, NX groups: real fixtures.
    R = os.path.join(FIX, "real-runs")
    K = os.path.join(R, "cm_et_arduino_kws_x10")
    dev = os.path.join(WORK, "b", "devlog")
    rc, _, err = run("analyze", "--log", os.path.join(FIX, "device-logs", "arm_serial_kws_u85.log"),
                     "--pte", K + ".pte", "--etrecord", K + ".etrecord", "-o", dev, "--quiet")
    V = os.path.join(FIX, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    gvs = os.path.join(WORK, "gvs")
    rc2, _, _ = run("gen", "vgf-stats", "--pte", V, "-o", gvs)
    vgf = os.path.join(WORK, "b", "vgf")
    rc3, _, err3 = run("analyze", os.path.join(gvs, "g1_mode0_v2.etdp"), V, "-o", vgf, "--quiet")
    expect(rc == rc2 == rc3 == 0, "fixture bundles published (%s %s)" % (err.strip(), err3.strip()))
    rc, out, err = ingest(T, dev, vgf)
    expect(rc == 0, "device-log and VGF bundles stored (%s)" % err.strip())
    figs = summary(dev)["device"]["figures"]
    got = sql(T, "SELECT d.name, d.unit, d.source, d.n, d.avg FROM device_figures d JOIN runs r ON r.id = d.run "
                 "WHERE r.run_id = '%s' ORDER BY d.name" % json.load(open(dev + "/result_manifest.json"))["run_id"])
    want = sorted([f["name"], f["unit"], f["source"], str(f["n"]), f["avg"]] for f in figs)
    expect(len(figs) > 5 and [g[:4] for g in got] == [w[:4] for w in want] and
           all(float(g[4]) == w[4] for g, w in zip(got, want)), "device and runner figures stored (%d)" % len(figs))
    nx = [r for r in table(vgf) if r["kind"].startswith("nx_")]
    got = sql(T, "SELECT n.group_id, n.kind, n.executions, n.total_cycles_avg, n.stripes FROM nx_groups n "
                 "JOIN runs r ON r.id = n.run WHERE r.run_id = '%s' ORDER BY n.group_id"
              % json.load(open(vgf + "/result_manifest.json"))["run_id"])
    want = sorted([r["entity_id"], r["kind"], r["nx_executions"], r["nx_total_cycles_avg"], r["nx_stripes"]] for r in nx)
    expect(len(nx) > 0 and [g[:3] for g in got] == [w[:3] for w in want] and
           all(float(g[3]) == float(w[3]) and int(g[4]) == int(w[4]) for g, w in zip(got, want)),
           "VGF NX groups stored (%d), apart from the entities" % len(nx))


def case_series():
    T = new_target("h")
    # Published out of seq order: ordering by seq must sort them.
    plan = [(1, "pixel7", 3, True), (1, "pixel7", 1, False), (1, "rpi5", 2, True), (2, "pixel7", 2, False),
            (1, "pixel7", 2, True), (1, "rpi5", 1, False)]
    bundles = []
    for i, (seed, dev, seq, det) in enumerate(plan):
        bundles.append(publish("s%d" % i, seed, [("device", dev), ("seq", str(seq))], detailed=det))
        time.sleep(0.01)
    rc, _, err = ingest(T, *bundles)
    expect(rc == 0, "ingest (%s)" % err.strip())
    ser, err = probe(T, "series", "--metric", "method_execute", "--stat", "avg")
    expect(ser is not None and len(ser["series"]) == 3, "default groups: program x method x device (3 here)")
    by_id = {json.load(open(b + "/result_manifest.json"))["run_id"]: b for b in bundles}
    ok = True
    for s in ser["series"]:
        ok &= s["unit"] == "ms" and s["metric"] == "method_execute.avg" and s["lower_is_better"]
        ok &= list(s["group"]) == ["program", "method", "device"]
        ok &= [p["published_ms"] for p in s["points"]] == sorted(p["published_ms"] for p in s["points"])
        for p in s["points"]:
            b = by_id[p["run_id"]]
            m = {x["name"]: x for x in summary(b)["metrics"]}["method_execute.avg"]
            ok &= p["value"] == m["value"] and p["samples"] == m["samples"] and p["order"] == p["published_ms"]
            ok &= p["labels"]["device"] == s["group"]["device"]
    expect(ok, "each point: its run, labels and value; in publication order")
    keys = [s["key"] for s in ser["series"]]
    expect(keys == sorted(keys) and all(k.startswith("program=") and "|method=forward|device=" in k and
                                        k.endswith("|unit=ms") for k in keys), "series keys: %s" % keys[:1])
    det = {json.load(open(b + "/result_manifest.json"))["run_id"]: d for b, (_, _, _, d) in zip(bundles, plan)}
    ok = True
    for s in ser["series"]:
        for p in s["points"]:
            if det[p["run_id"]]:
                want = [float(r["value_ms"]) for r in table(by_id[p["run_id"]], "detailed/figures.csv")
                        if r["figure"] == "method_execute"]
                ok &= p.get("execution_values") == want
            else:
                ok &= "execution_values" not in p
    expect(ok, "per-execution values on the points of --detailed runs only")
    ser2, _ = probe(T, "series", "--metric", "method_execute.avg", "--no-samples")
    expect(all("execution_values" not in p for s in ser2["series"] for p in s["points"]) and
           len(ser2["series"]) == 3, "--metric NAME.stat; no samples when not wanted")
    ser3, _ = probe(T, "series", "--metric", "method_execute.avg", "--group-by", "device", "--order-by", "seq")
    expect([s["key"] for s in ser3["series"]] == ["device=pixel7|unit=ms", "device=rpi5|unit=ms"] and
           [p["order"] for p in ser3["series"][0]["points"]] == [1, 2, 2, 3] and
           [p["order"] for p in ser3["series"][1]["points"]] == [1, 2],
           "--group-by device --order-by seq (ties by run id)")
    ser4, _ = probe(T, "series", "--metric", "method_execute.avg", "--where", "device=rpi5")
    expect(len(ser4["series"]) == 1 and len(ser4["series"][0]["points"]) == 2, "--where keeps one device")
    late = sorted(p["published_ms"] for s in ser["series"] for p in s["points"])[3]
    ser5, _ = probe(T, "series", "--metric", "method_execute.avg", "--since-ms", str(late))
    expect(sum(len(s["points"]) for s in ser5["series"]) == 3, "since: the last three runs")
    ser6, _ = probe(T, "series", "--entity", "forward_0_3", "--stat", "p50", "--group-by", "program")
    ok = len(ser6["series"]) == 2 and all(s["entity"] == "forward_0_3" and s["metric"] == "p50" for s in ser6["series"])
    for s in ser6["series"]:
        for p in s["points"]:
            row = [r for r in table(by_id[p["run_id"]]) if r["entity_id"] == "forward_0_3"][0]
            ok &= p["value"] == float(row["p50_ms"])
    expect(ok, "an entity's series (forward_0_3 p50) per program")
    # An invalid run is left out unless asked for.
    rid = ser["series"][0]["points"][0]["run_id"]
    make_invalid(T, rid)
    n_all = sum(len(s["points"]) for s in ser["series"])
    a, _ = probe(T, "series", "--metric", "method_execute.avg")
    b_, _ = probe(T, "series", "--metric", "method_execute.avg", "--include-invalid")
    expect(sum(len(s["points"]) for s in a["series"]) == n_all - 1 and
           sum(len(s["points"]) for s in b_["series"]) == n_all, "invalid runs only with include_invalid")
    none, _ = probe(T, "series", "--metric", "no_such_metric.avg")
    bad, err = probe(T, "series", "--metric", "method_execute", "--stat", "p99")
    expect(none == {"series": []} and bad is None and "p99" in err, "an unknown metric: no series; an unknown stat: an error")


def case_export():
    T = new_target("h")
    b = publish("x", 1, [("device", "pixel7")], detailed=True, extra=["--model-explorer", "none"])
    base = int(time.time() * 1000) - 10**7
    copies = [variant(b, os.path.join(WORK, "v", "c%03d" % i), base + (300 - i) * 1000) for i in range(300)]
    rc, out, err = ingest(T, os.path.join(WORK, "v"), extra=["--quiet"])
    expect(rc == 0 and count(T, "runs") == 300, "300 distinct bundles stored (%s)" % err.strip())
    ex, err = probe(T, "export")
    expect(ex is not None and len(ex) == 300, "export: every run (%s)" % err.strip())
    want = sorted((m["name"], m["value"]) for m in summary(b)["metrics"])
    ok = [r["published_ms"] for r in ex] == sorted(r["published_ms"] for r in ex)
    ok &= all(sorted((m["name"], m["value"]) for m in r["metrics"]) == want for r in ex)
    ok &= all([m["name"] for m in r["metrics"]] == sorted(m["name"] for m in r["metrics"]) for r in ex)
    ok &= all(len({m["name"]: m for m in r["metrics"]}["method_execute.p50"]["execution_values"]) == 5 for r in ex)
    expect(ok, "in publication order, each with every metric (sorted) and its per-execution values, "
               "across query chunks")
    ex2, _ = probe(T, "export", "--since-ms", str(base + 200 * 1000))
    expect(len(ex2) == 101, "export with a filter")


def copies_of(b, n, dirname):
    return [variant(b, os.path.join(WORK, dirname, "c%03d" % i)) for i in range(n)]


def make_invalid(T, rid):
    """Mark run RID invalid as a bundle of validity "invalid" would be stored:
    its runs row and the run_heads row its series_runs row names."""
    sql(T, "UPDATE runs SET validity = 'invalid' WHERE run_id = '%s'" % rid)
    sql(T, "INSERT INTO run_heads (program_sha256, etrecord_sha256, method, time_unit, validity, tool_version) "
           "SELECT program_sha256, etrecord_sha256, method, time_unit, validity, tool_version FROM runs "
           "WHERE run_id = '%s'" % rid)
    sql(T, "UPDATE series_runs SET head = (SELECT max(id) FROM run_heads) "
           "WHERE run = (SELECT id FROM runs WHERE run_id = '%s')" % rid)


RUN_TABLES = ("metrics", "entities", "labels", "inputs", "issues", "figure_samples", "series_runs")


def consistent(T, per_run_metrics, per_run_entities):
    """Every stored run has all its rows (all or nothing)."""
    bad = sql(T, "SELECT r.id, (SELECT count(*) FROM metrics m WHERE m.run = r.id), "
                 "(SELECT count(*) FROM entities e WHERE e.run = r.id), "
                 "(SELECT count(*) FROM series_runs k WHERE k.run = r.id) FROM runs r")
    ok = all(int(m) == per_run_metrics and int(e) == per_run_entities and int(k) == 1 for _, m, e, k in bad)
    orphans = sum(count(T, t, "WHERE run NOT IN (SELECT id FROM runs)") for t in RUN_TABLES)
    if ENGINE == "sqlite":
        con = sqlite3.connect(T)
        ok &= con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ok &= con.execute("PRAGMA foreign_key_check").fetchall() == []
        con.close()
    return ok and orphans == 0


def case_concurrent():
    b = publish("x", 1, [("device", "pixel7")], extra=["--model-explorer", "none"])
    bundles = copies_of(b, 40, "v")
    n_metrics = len(summary(b)["metrics"])
    n_entities = sum(1 for r in table(b) if not r["kind"].startswith("nx_"))
    for fresh in (True, False):
        T = new_target("h%d" % fresh)
        if not fresh:
            run("db", "migrate", "--db", T)
        procs = []
        for k in range(4):
            order = bundles[k * 10:] + bundles[:k * 10]  # every bundle by every process, in another order
            procs.append(subprocess.Popen([ETPROF, "db", "ingest", "--db", T, "--quiet"] + order,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        results = [(p.wait(), p.stderr.read().decode()) for p in procs]
        expect(all(rc == 0 for rc, _ in results),
               "four processes ingesting at once%s: all exit 0 (%s)" % (" into an empty database" if fresh else "",
                                                                       [e.strip()[:200] for _, e in results if e]))
        shas = [r[0] for r in sql(T, "SELECT manifest_sha256 FROM runs")]
        expect(len(shas) == 40 and set(shas) == {manifest_sha(x) for x in bundles},
               "nothing lost, nothing duplicated (40 runs, one per manifest)")
        expect(consistent(T, n_metrics, n_entities), "every run complete, no orphan rows")
        expect(int(sql(T, "SELECT max(version) FROM schema_version")[0][0]) == 3 and
               count(T, "schema_version") == 3, "the schema migrated once")


def case_kill():
    T = new_target("h")
    b = publish("x", 1, [("device", "pixel7")], extra=["--model-explorer", "none"])
    bundles = copies_of(b, 8, "v")
    n_metrics = len(summary(b)["metrics"])
    n_entities = sum(1 for r in table(b) if not r["kind"].startswith("nx_"))
    for round_ in range(3):
        p = subprocess.Popen([ETPROF, "db", "ingest", "--db", T, "--quiet"] + bundles,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, ETPROF_TEST_INGEST_SLOW_MS="1500"))
        start = count(T, "runs") if round_ else 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not os.path.exists(T) if ENGINE == "sqlite" else False):
            time.sleep(0.05)
        while time.monotonic() < deadline:
            try:
                if count(T, "runs") >= start + 2:
                    break
            except Exception:
                pass
            time.sleep(0.05)
        time.sleep(0.3)  # inside the next bundle's transaction (it waits 1.5 s before COMMIT)
        stored = count(T, "runs")
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        time.sleep(0.1)
        after = count(T, "runs")
        expect(after == stored and stored < 8, "SIGKILL inside a transaction (round %d): the runs committed "
                                                 "before it, and nothing of the one it was writing (%d)" % (round_ + 1, after))
        expect(consistent(T, n_metrics, n_entities), "the database is consistent after the kill")
    rc, out, err = ingest(T, *bundles)
    expect(rc == 0 and count(T, "runs") == 8 and consistent(T, n_metrics, n_entities),
           "a re-run completes it: 8 runs, each whole (%s)" % err.strip())


HOSTILE = [("quote", "it's a \"quoted\" value"), ("semi", "x'); DROP TABLE runs; --"),
           ("big", "0123456789" * 1024 + ";'\"\\"), ("uni", "caf\u00e9 \u2713"), ("ctl", "tab\there\nnewline")]
RAW = [("bytes", b"\xff\xfe\x80 not utf-8 \xc3"), ("mixed", b"ok;\xe9'--")]


def case_hostile():
    T = new_target("h")
    # Labels through the bundle (analyze --label) ...
    name = b"bundle '\";DROP TABLE runs;--\xff"
    b1 = publish(name, 1, [(k, v) for k, v in HOSTILE] + [(k, v) for k, v in RAW])
    m = json.load(open(os.path.join(b1, b"run_metadata.json")))
    expect(m["labels"]["bytes"] == {"base64": base64.b64encode(RAW[0][1]).decode()} and
           m["labels"]["semi"] == HOSTILE[1][1], "run_metadata.json: text labels as strings, other bytes as base64")
    import jsonschema
    schema = json.load(open(os.path.join(os.environ["ETP_SOURCE_DIR"], "schemas", "json",
                                         "run_metadata.v1.schema.json")))
    v = jsonschema.Draft202012Validator(schema)
    bad = [dict(m, labels=dict(m["labels"], method="x")), dict(m, labels={"k": {"base64": "no!"}}),
           dict(m, labels={"9k": "x"}), dict(m, labels={"k": 3})]
    expect(not list(v.iter_errors(m)) and all(list(v.iter_errors(x)) for x in bad),
           "run_metadata.json with labels satisfies its schema, which refuses reserved keys, bad base64, "
           "bad keys and non-string values")
    # ... and through ingest (--label).
    b2 = publish("plain", 2, [("device", "d")])
    extra = []
    for k, v in HOSTILE + RAW:
        extra += [b"--label", (k + "2=").encode() + (v.encode() if isinstance(v, str) else v)]
    p = subprocess.run([ETPROF, "db", "ingest", "--db", T, b1, b2] + extra, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    expect(p.returncode == 0, "hostile labels and paths stored (%s)" % p.stderr.decode(errors="replace").strip())
    want = {k: (v.encode() if isinstance(v, str) else v) for k, v in HOSTILE + RAW}
    rs = runs_json(T)
    got = {r["run_id"]: {k: label_value(v) for k, v in r["labels"].items()} for r in rs}
    r1 = [r for r in rs if r["run_id"] == m["run_id"]][0]
    ok = {k: got[m["run_id"]][k] for k in want} == want and {k: got[m["run_id"]][k + "2"] for k in want} == want
    r2 = [r for r in rs if r["run_id"] != m["run_id"]][0]
    ok &= {k: got[r2["run_id"]][k + "2"] for k in want} == want
    expect(ok, "db runs --json: every label read back exactly")
    expect(label_value(r1["bundle"]) == os.path.realpath(b1), "a bundle path that is not UTF-8 read back exactly")
    rc, out, err = run("db", "runs", "--db", T, "--csv")
    rows = list(csv.DictReader(io.StringIO(out.decode("utf-8", "surrogateescape"), newline="")))
    ok = rc == 0 and len(rows) == 2
    for r in rows:
        labels = json.loads(r["labels"])
        for k, v in want.items():
            ok &= label_value(labels[k if r["run_id"] == m["run_id"] else k + "2"]) == v
    expect(ok, "db runs --csv: every label exactly (the labels column, JSON with base64 for other bytes)")
    ok = True
    for k, v in want.items():
        p = subprocess.run([ETPROF, "db", "runs", "--db", T, "--json", b"--where", (k + "=").encode() + v],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok &= p.returncode == 0 and [r["run_id"] for r in json.loads(p.stdout)["runs"]] == [m["run_id"]]
    expect(ok, "--where with each hostile value selects exactly its run")
    expect(count(T, "runs") == 2 and count(T, "labels") == 2 * len(want) + 1 + len(want),
           "nothing else touched: the tables are whole")
    rc, out, err = run("db", "runs", "--db", T)
    expect(rc == 0 and b"bytes=\\xff\\xfe\\x80" in out, "the table for people shows stray bytes as \\xNN")
    for args, what in [(["--label", "bad key=1"], "may only hold"), (["--label", "method=x"], "field of the run"),
                       (["--label", "k=" + "x" * 70000], "longer than 65536"), (["--label", "novalue"], "KEY=VALUE")]:
        rc, out, err = run("db", "ingest", "--db", T, b2, *args)
        expect(rc == 2 and one_line(err) and what in err, "refused label %s: exit 2, one line" % args[1][:20])


def pg_url_with_password(url, secret):
    """URL with user information postgres:SECRET (trust authentication ignores it)."""
    return url.replace("postgresql://postgres@", "postgresql://postgres:%s@" % secret)


def case_secrets():
    secret = "S3cr%40t-pw"  # percent-encoded '@'
    raw = "S3cr@t-pw"
    if ENGINE == "postgresql":
        good = pg_url_with_password(new_target("h"), secret)
    else:
        good = os.path.join(WORK, "h.db")
    bad = "postgresql://postgres:%s@/nodb?host=%s&port=1" % (secret, os.path.join(WORK, "no-socket-here"))
    outputs = []
    b = publish("x", 1, [("device", "pixel7")])
    # analyze -o DIR --db: the command line in run_metadata.json is redacted.
    for target in (good, bad):
        out_dir = os.path.join(WORK, "b", "an%d" % len(outputs))
        d = demo(1)
        rc, out, err = run("analyze", d + "/model.etrecord", "--etdump", d + "/run.etdp", "--pte",
                           d + "/model.pte", "-o", out_dir, "--db", target)
        outputs.append((rc, out, err))
        files = b"".join(open(os.path.join(r, f), "rb").read() for r, _, fs in os.walk(out_dir) for f in fs)
        expect(secret.encode() not in files and raw.encode() not in files and b"***" in
               open(os.path.join(out_dir, "run_metadata.json"), "rb").read() or target == good and ENGINE == "sqlite",
               "analyze --db %s: no password in the bundle" % ("(reachable)" if target == good else "(unreachable)"))
    for args in (["db", "ingest", "--db", good, b], ["db", "runs", "--db", good, "--json"], ["db", "info", "--db", good],
                 ["db", "ingest", "--db", bad, b], ["db", "runs", "--db", bad], ["db", "migrate", "--db", bad],
                 ["db", "gc", "--db", bad, "--keep-last", "1"]):
        outputs.append(run(*args))
    # The environment variable's value is no different.
    outputs.append(run("db", "runs", "--json", env={"ETPROF_DB": bad}))
    text = b"".join(o[1] + o[2].encode() for o in outputs)
    expect(secret.encode() not in text and raw.encode() not in text, "no output carries the password")
    expect(b"postgresql://postgres:***@/nodb" in text, "messages show the target with *** for the password")
    expect(all(one_line(o[2]) for o in outputs[-5:]), "each failure is one line")
    if ENGINE == "postgresql":
        dump = "".join(str(r) for t in ("runs", "labels", "inputs", "issues") for r in sql(good, "SELECT * FROM %s" % t))
        expect(secret not in dump and raw not in dump, "nothing stored carries the password")
        q = good.replace("postgres:%s@" % secret, "postgres@") + "&password=" + raw.replace("@", "%40")
        rc, out, err = run("db", "info", "--db", q.replace("/etp_", "/nodb_"))
        expect(rc == 1 and one_line(err) and raw.replace("@", "%40") not in err and "password=***" in err,
               "a password= parameter is redacted too")


def case_failures():
    b = publish("x", 1, [("device", "pixel7")])
    if ENGINE == "postgresql":
        unreachable = "postgresql://postgres@/etp?host=%s&port=1" % os.path.join(WORK, "nowhere")
    else:
        unreachable = os.path.join(WORK, "no", "such", "dir", "h.db")
    for args in (["db", "ingest", "--db", unreachable, b], ["db", "runs", "--db", unreachable],
                 ["db", "migrate", "--db", unreachable], ["db", "gc", "--db", unreachable, "--keep-days", "1"]):
        rc, out, err = run(*args)
        expect(rc == 1 and one_line(err) and out == b"", "%s on an unreachable database: one line, exit 1 (%s)"
               % (args[1], err.strip()[:120]))
    missing = os.path.join(WORK, "missing.db")
    if ENGINE == "sqlite":
        rc, out, err = run("db", "runs", "--db", missing)
        expect(rc == 1 and one_line(err) and "no such database" in err and not os.path.exists(missing),
               "db runs on a missing file: one line, and no file made")
        notdb = ck.write("notdb.db", "this is not a database\n" * 100)
        rc, out, err = ingest(notdb, b)
        expect(rc == 1 and one_line(err) and open(notdb).read() == "this is not a database\n" * 100,
               "a file that is not a database: one line, untouched (%s)" % err.strip()[:100])
    # analyze --db with a database that fails: exit 1, the bundle stays published.
    d = demo(1)
    out_dir = os.path.join(WORK, "b", "kept")
    rc, out, err = run("analyze", d + "/model.etrecord", "--etdump", d + "/run.etdp", "--pte", d + "/model.pte",
                       "-o", out_dir, "--db", unreachable, "--quiet")
    expect(rc == 1 and one_line(err) and "the bundle stays published" in err and run("verify", out_dir)[0] == 0,
           "analyze -o DIR --db (unreachable): exit 1, says so; the bundle verifies")
    # A read-only database: refused before anything is written.
    T = new_target("ro")
    rc, _, err = ingest(T, b, variant(b, os.path.join(WORK, "b", "x2")))
    expect(rc == 0, "two runs of one series stored")
    b2 = publish("y", 2, [("device", "rpi5")])
    if ENGINE == "sqlite":
        # As root, the check runs as nobody, who must reach the binary, the
        # bundle and the database: the clone may sit in a private directory
        # (mktemp -d), so they are copied to a world-readable one.
        as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        etprof, stage = ETPROF, WORK
        if as_user:
            stage = tempfile.mkdtemp(prefix="etprof-ro-")
            os.chmod(stage, 0o755)
            etprof = shutil.copy2(ETPROF, os.path.join(stage, "etprof"))
            b2 = shutil.copytree(b2, os.path.join(stage, "bundle"))
        ro_dir = os.path.join(stage, "ro")
        os.makedirs(ro_dir)
        # A WAL database on read-only storage needs its -shm file: read-only
        # media hold databases in rollback mode.
        con = sqlite3.connect(T)
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()
        shutil.move(T, os.path.join(ro_dir, "h.db"))
        T = os.path.join(ro_dir, "h.db")
        os.chmod(T, 0o444)
        os.chmod(ro_dir, 0o555)
        os.chmod(WORK, 0o755)
        before = hashlib.sha256(open(T, "rb").read()).hexdigest()
        p = subprocess.run(as_user + [etprof, "db", "ingest", "--db", T, b2], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        err = p.stderr.decode()
        expect(p.returncode == 1 and one_line(err) and "read-only" in err and
               hashlib.sha256(open(T, "rb").read()).hexdigest() == before,
               "a read-only SQLite file: one line, exit 1, unchanged (%s)" % err.strip()[:120])
        p = subprocess.run(as_user + [etprof, "db", "runs", "--db", T], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        expect(p.returncode == 0 and p.stdout.count(b"\n") == 4, "a read-only database can still be read")
        os.chmod(ro_dir, 0o755)
        if stage != WORK:
            shutil.rmtree(stage)
    else:
        db = T.split("/")[3].split("?")[0]
        sql(T, "ALTER DATABASE %s SET default_transaction_read_only = on" % db)
        n = {t: count(T, t) for t in ("runs", "metrics", "labels", "entity_keys")}
        for args in (["db", "ingest", "--db", T, b2], ["db", "gc", "--db", T, "--keep-last", "1"]):
            rc, out, err = run(*args)
            expect(rc == 1 and one_line(err) and "read-only" in err,
                   "%s into a read-only database: one line, exit 1 (%s)" % (args[1], err.strip()[:120]))
        expect({t: count(T, t) for t in n} == n, "nothing half-written")


def set_version(T, v):
    sql(T, "INSERT INTO schema_version (version, migrated_ms, tool_version) VALUES (%d, 0, 'test')" % v)


def case_migrate():
    b = publish("x", 1, [("device", "pixel7")])
    T = new_target("old")
    rc, out, err = run("db", "migrate", "--db", T, "--to", "1")
    expect(rc == 0 and b"schema version 0 -> 1" in out, "db migrate --to 1 (%s)" % err.strip())
    rc, out, err = run("db", "runs", "--db", T)
    expect(rc == 1 and one_line(err) and "schema version 1 is older" in err and "etprof db migrate" in err,
           "reading an older schema: one line saying to migrate")
    rc, out, err = ingest(T, b)
    rc2, out2, _ = run("db", "info", "--db", T, "--json")
    expect(rc == 0 and rc2 == 0 and json.loads(out2)["schema_version"] == 3 and json.loads(out2)["runs"] == 1,
           "ingest migrates an older database (1 -> 3) and stores")
    rc, out, err = run("db", "migrate", "--db", T)
    expect(rc == 0 and b"schema version 3, nothing to do" in out, "db migrate on a current schema: nothing to do")
    set_version(T, 99)
    for args in (["db", "ingest", "--db", T, b], ["db", "runs", "--db", T], ["db", "migrate", "--db", T]):
        rc, out, err = run(*args)
        expect(rc == 1 and one_line(err) and "schema version 99 is newer than this etprof's (3)" in err,
               "%s refuses a newer database in one line naming both versions" % args[1])
    expect(count(T, "runs") == 1, "the newer database untouched")
    T2 = new_target("race")
    procs = [subprocess.Popen([ETPROF, "db", "migrate", "--db", T2], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(4)]
    rcs = [p.wait() for p in procs]
    expect(rcs == [0] * 4 and count(T2, "schema_version") == 3, "four migrations at once: each step applied once")
    rc, out, err = run("db", "migrate", "--db", new_target("bad"), "--to", "7")
    expect(rc == 2 and one_line(err), "--to beyond this etprof's version: usage error")
    # Version 3 adds series_runs and run_heads beside runs: a version-2 store
    # (the same store without them) gets a row for each of its runs.
    T3 = new_target("v2")
    base = int(time.time() * 1000) - 10**6
    copies = [variant(b, os.path.join(WORK, "m", "%s-%d" % (dev, i)), base + i * 1000)
              for i in range(3) for dev in ("pixel7", "rpi5")]
    for dev in ("pixel7", "rpi5"):
        ingest(T3, *[c for c in copies if "/%s-" % dev in c], extra=["--label", "device=" + dev, "--label", "seq=4"])
    queries = (["--metric", "method_execute.avg"], ["--metric", "method_execute.avg", "--where", "device=rpi5"],
               ["--entity", "forward_0_3", "--stat", "p50", "--group-by", "device", "--order-by", "seq"])
    before = [probe(T3, "series", *q)[0] for q in queries]
    sql(T3, "DROP TABLE series_runs")
    sql(T3, "DROP TABLE run_heads")
    sql(T3, "DELETE FROM schema_version WHERE version = 3")
    rc, out, err = run("db", "migrate", "--db", T3)
    expect(rc == 0 and b"schema version 2 -> 3" in out and count(T3, "series_runs") == 6 and
           count(T3, "run_heads") == 1, "2 -> 3: a series_runs row for each of the six runs, one head (%s)" % err.strip())
    after = [probe(T3, "series", *q)[0] for q in queries]
    expect(before == after and sum(len(s["points"]) for s in after[0]["series"]) == 6,
           "the series of a migrated store are those it had")


def case_gc():
    T = new_target("h")
    b = publish("x", 1, [("device", "pixel7")], detailed=True, extra=["--model-explorer", "none"])
    now = int(time.time() * 1000)
    bundles = []
    for dev in ("pixel7", "rpi5", "s24"):
        for i in range(4):
            bundles.append(variant(b, os.path.join(WORK, "v", "%s-%d" % (dev, i)), now - (10 - i) * 1000))
    extra = []
    procs = []
    for dev in ("pixel7", "rpi5", "s24"):
        rc, out, err = ingest(T, *[x for x in bundles if "/%s-" % dev in x], extra=["--label", "device=" + dev])
        procs.append(rc)
    expect(procs == [0, 0, 0] and count(T, "runs") == 12, "12 runs: 3 devices x 4")
    n_metrics, n_labels = count(T, "metrics"), count(T, "labels")
    rc, out, err = run("db", "gc", "--db", T, "--keep-last", "2", "--dry-run")
    expect(rc == 0 and b"6 run(s) would go, 6 kept" in out and count(T, "runs") == 12, "--dry-run counts, changes nothing")
    rc, out, err = run("db", "gc", "--db", T, "--keep-last", "2")
    expect(rc == 0 and b"6 run(s) removed, 6 kept" in out, "--keep-last 2: six runs removed (%s)" % out)
    left = runs_json(T)
    ok = len(left) == 6
    for dev in ("pixel7", "rpi5", "s24"):
        mine = sorted(r["published_ms"] for r in left if r["labels"]["device"] == dev)
        ok &= mine == [now - 8000, now - 7000]
    expect(ok, "the newest two of each device remain")
    orphans = sum(count(T, t, "WHERE run NOT IN (SELECT id FROM runs)") for t in RUN_TABLES)
    expect(orphans == 0 and count(T, "metrics") == n_metrics // 2 and count(T, "labels") == n_labels // 2,
           "every row of a removed run went with it")
    old = [r[0] for r in sql(T, "SELECT id FROM runs ORDER BY id")][:2]
    sql(T, "UPDATE runs SET published_ms = published_ms - 864000000 WHERE id IN (%s)" % ",".join(old))
    rc, out, err = run("db", "gc", "--db", T, "--keep-days", "5")
    expect(rc == 0 and b"2 run(s) removed, 4 kept" in out and count(T, "runs") == 4, "--keep-days 5: the two aged runs go")
    rc, out, err = run("db", "gc", "--db", T)
    expect(rc == 2 and one_line(err), "gc without a rule: usage error")


def case_analyze():
    T = new_target("h")
    os.makedirs(os.path.join(WORK, "b"))
    d = demo(1)
    base = ["analyze", d + "/model.etrecord", "--etdump", d + "/run.etdp", "--pte", d + "/model.pte"]
    out_dir = os.path.join(WORK, "b", "a")
    rc, out, err = run(*base, "-o", out_dir, "--db", T, "--label", "device=pixel7", "--label", "seq=7")
    expect(rc == 0 and b"Stored " in out and count(T, "runs") == 1, "analyze -o DIR --db: published, then stored")
    rc, out, err = run(*base, "-o", out_dir, "--db", T, "--quiet")
    r = runs_json(T)
    expect(rc == 0 and len(r) == 2 and r[0]["labels"] == {"device": "pixel7", "seq": "7"} and r[1]["labels"] == {},
           "a re-publication is a new run; labels only where given")
    m = json.load(open(os.path.join(out_dir, "run_metadata.json")))
    expect("labels" not in m, "no --label: run_metadata.json has no labels member")
    ci = {"GITHUB_ACTIONS": "true", "GITHUB_SHA": "abc123", "GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "42",
          "GITHUB_JOB": "bench", "GITHUB_WORKFLOW": "perf", "GITHUB_REPOSITORY": "o/r"}
    # The variables --labels-from-ci reads, emptied (the tests may run in a CI).
    clean = {k: "" for k in ("GITHUB_ACTIONS", "GITHUB_SHA", "GITHUB_HEAD_REF", "GITHUB_REF_NAME",
                             "GITHUB_RUN_ID", "GITHUB_JOB", "GITHUB_WORKFLOW", "GITHUB_REPOSITORY",
                             "GITHUB_RUN_ATTEMPT", "GITLAB_CI", "CI_COMMIT_SHA", "CI_COMMIT_REF_NAME",
                             "CI_PIPELINE_ID", "CI_JOB_NAME", "CI_JOB_ID", "CI_PROJECT_PATH", "JENKINS_URL",
                             "GIT_COMMIT", "BRANCH_NAME", "GIT_BRANCH", "BUILD_NUMBER", "JOB_NAME", "GIT_URL")}
    rc, out, err = run(*base, "-o", os.path.join(WORK, "b", "ci"), "--labels-from-ci", "--label", "job=override",
                       "--quiet", env=dict(clean, **ci))
    m = json.load(open(os.path.join(WORK, "b", "ci", "run_metadata.json"))) if rc == 0 else {}
    expect(m.get("labels") == {"ci": "github", "commit": "abc123", "branch": "main", "build": "42", "job": "override",
                               "workflow": "perf", "repo": "o/r"}, "--labels-from-ci (GitHub Actions); --label wins")
    gl = {"GITLAB_CI": "true", "CI_COMMIT_SHA": "def", "CI_COMMIT_REF_NAME": "dev", "CI_PIPELINE_ID": "9",
          "CI_JOB_NAME": "perf", "CI_JOB_ID": "77", "GITHUB_ACTIONS": ""}
    rc, out, err = run(*base, "-o", os.path.join(WORK, "b", "gl"), "--labels-from-ci", "--quiet", env=dict(clean, **gl))
    m = json.load(open(os.path.join(WORK, "b", "gl", "run_metadata.json"))) if rc == 0 else {}
    expect(m.get("labels", {}).get("ci") == "gitlab" and m["labels"]["branch"] == "dev" and m["labels"]["job_id"] == "77",
           "--labels-from-ci (GitLab CI)")
    jk = {"JENKINS_URL": "http://j", "GIT_COMMIT": "fed", "BRANCH_NAME": "rel", "BUILD_NUMBER": "5", "JOB_NAME": "p",
          "GITHUB_ACTIONS": "", "GITLAB_CI": ""}
    rc, out, err = run(*base, "-o", os.path.join(WORK, "b", "jk"), "--labels-from-ci", "--quiet", env=dict(clean, **jk))
    m = json.load(open(os.path.join(WORK, "b", "jk", "run_metadata.json"))) if rc == 0 else {}
    expect(m.get("labels") == {"ci": "jenkins", "commit": "fed", "branch": "rel", "build": "5", "job": "p"},
           "--labels-from-ci (Jenkins)")
    rc, out, err = run(*base, "-o", os.path.join(WORK, "b", "none"), "--labels-from-ci",
                       env=dict(clean, GITHUB_ACTIONS=""))
    expect(rc == 2 and one_line(err) and not os.path.exists(os.path.join(WORK, "b", "none")),
           "--labels-from-ci outside CI: usage error, nothing published")
    rc, out, err = run(*base, "--db", T)
    expect(rc == 2 and one_line(err), "--db without -o: usage error")
    rc, _, _ = run("verify", os.path.join(WORK, "b", "ci"))
    expect(rc == 0, "a labelled bundle verifies")
    fake = os.path.join(HERE, "support", "fake_runner.py")
    add = os.path.join(FIX, "real-runs", "et_add_x10")
    if os.path.exists(add + ".etdp"):
        rc, out, err = run("run", "-o", os.path.join(WORK, "b", "run"), "--db", T, "--label", "device=host",
                           "--quiet", "--", fake, "--model_path", add + ".pte", "--fake_etdump", add + ".etdp",
                           "--num_executions", "10", "--etdump_path", "d.etdp", cwd=WORK)
        r = runs_json(T, "--where", "device=host")
        expect(rc == 0 and len(r) == 1 and r[0]["executions"] == 10, "etprof run ... --db --label: stored (%s)"
               % err.strip()[-200:])


def case_cli():
    rc, out, err = run("db")
    expect(rc == 2 and "usage: etprof db" in err, "etprof db alone: usage, exit 2")
    a, b = run("help", "db"), run("db", "--help")
    expect(a[0] == b[0] == 0 and a[1] == b[1] and a[1].startswith(b"usage: etprof db"), "etprof help db == etprof db --help")
    rc, out, err = run("db", "nosuch")
    expect(rc == 2 and one_line(err) and "nosuch" in err, "an unknown verb: one line, exit 2")
    env = {"ETPROF_DB": ""}
    for verb in ("ingest", "runs", "migrate", "gc", "info"):
        rc, out, err = run("db", verb, "--help")
        expect(rc == 0 and out.startswith(("usage: etprof db " + verb).encode()), "db %s --help" % verb)
        rc, out, err = run("db", verb, "--no-such-option")
        expect(rc == 2 and one_line(err) and "--no-such-option" in err, "db %s: an unknown option, exit 2" % verb)
        rc, out, err = run("db", verb, *(["x"] if verb == "ingest" else ["--keep-last", "1"] if verb == "gc" else []),
                           env=env)
        expect(rc == 2 and one_line(err) and "ETPROF_DB" in err, "db %s without a database: usage error" % verb)
    T = new_target("h")
    for args in (["runs", "--since", "yesterday"], ["runs", "--where", "novalue"], ["ingest", "--jobs", "0", "x"],
                 ["runs", "--json", "--csv"], ["gc", "--keep-last", "0"]):
        rc, out, err = run("db", *args[:1], "--db", T, *args[1:])
        expect(rc == 2 and one_line(err), "db %s: usage error, one line" % " ".join(args))
    rc, out, err = run("db", "ingest", "--db", T, os.path.join(WORK, "nothing-here"))
    expect(rc == 1 and "refused" in err, "a path that does not exist is refused by name")


def fleet(name, *args):
    """etprof gen fleet -o WORK/NAME ARGS: its directory and fleet.json."""
    out = os.path.join(WORK, name)
    rc, _, err = run("gen", "fleet", "-o", out, *args)
    assert rc == 0, err
    return out, json.load(open(os.path.join(out, "fleet.json")))


def db_json(*args):
    rc, out, err = run("db", *args)
    return (json.loads(out) if rc == 0 else None), rc, err


def case_verbs():
    """trend, regressions and export on the command line, over a fleet with one
    known regression: found where it was injected, nowhere else."""
    T = new_target("h")
    F, info = fleet("fleet", "--runs", "16", "--devices", "2", "--models", "1", "--noise", "1",
                    "--inject", "pixel7@11:1.3")
    devices = [d["name"] for d in info["devices"]]
    rc, out, err = ingest(T, F, extra=["--jobs", "2", "--quiet"])
    expect(rc == 0 and count(T, "runs") == 32, "the fleet stored: 2 devices x 16 runs (%s)" % err.strip())
    bundles = {r["run_id"]: r["bundle"] for r in runs_json(T)}
    # trend: every point is its bundle's summary metric, oldest first.
    tr, rc, err = db_json("trend", "--db", T, "--json")
    ok = tr is not None and len(tr["series"]) == 2
    for s in (tr or {}).get("series", []):
        ok &= s["metric"] == "method_execute.avg" and s["unit"] == "ms" and len(s["points"]) == 16
        ok &= [p["published_ms"] for p in s["points"]] == sorted(p["published_ms"] for p in s["points"])
        for p in s["points"]:
            m = {x["name"]: x for x in summary(bundles[p["run_id"]])["metrics"]}["method_execute.avg"]
            ok &= p["value"] == m["value"] and p["labels"]["device"] == s["group"]["device"]
    expect(ok, "db trend --json: a series per device, each point its bundle's method_execute.avg")
    tr2, rc, err = db_json("trend", "--db", T, "--json", "--group-by", "device", "--order-by", "seq",
                           "--where", "device=" + devices[1])
    expect(tr2 is not None and len(tr2["series"]) == 1 and
           [p["order"] for p in tr2["series"][0]["points"]] == list(range(16)),
           "--group-by device --order-by seq --where device=...: one series, seq 0..15")
    rc, out, err = run("db", "trend", "--db", T, "--csv")
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    expect(rc == 0 and len(rows) == 32 and {r["label_device"] for r in rows} == set(devices),
           "db trend --csv: a row per point")
    # regressions: the injected series, from the injected run, and no other.
    rg, rc, err = db_json("regressions", "--db", T, "--json")
    verdicts = {s["group"]["device"]: s["regression"] if "regression" in s else s for s in (rg or {}).get("series", [])}
    hit = [d for d, v in verdicts.items() if v["verdict"] == "regression"]
    first = info["injections"][0]["affected"][0]
    ok = rg is not None and hit == [first["device"]]
    if ok:
        v = verdicts[first["device"]]
        ok &= v["change"]["run_id"] == first["first_run"]["run_id"] and 25 < v["change_pct"] < 35
    expect(ok, "db regressions: the injected +30%% on %s from seq %s, nothing else (%s)" %
           (first["device"], first["first_run"]["seq"], {d: v["verdict"] for d, v in verdicts.items()}))
    rc, out, err = run("db", "regressions", "--db", T, "--fail-on", "regression")
    expect(rc == 3 and b"regression" in out and "--fail-on" in err, "--fail-on regression: exit 3")
    other = [d for d in devices if d != first["device"]][0]
    rc, out, err = run("db", "regressions", "--db", T, "--fail-on", "regression", "--where", "device=" + other)
    expect(rc == 0, "--fail-on regression on the clean device: exit 0")
    rc, out, err = run("db", "regressions", "--db", T, "--window", "0")
    expect(rc == 2 and one_line(err), "an impossible window: usage, one line (%s)" % err.strip())
    # exports: every run's metrics, as the bundles state them.
    for fmt in ("csv", "jsonl", "pytorch-v3"):
        path = os.path.join(WORK, "export." + fmt)
        rc, out, err = run("db", "export", "--db", T, "--format", fmt, "-o", path)
        data = open(path, "rb").read() if rc == 0 else b""
        if fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(data.decode(), newline="")))
        else:
            rows = [json.loads(x) for x in data.decode().splitlines()]
        n_metrics = sum(1 for m in summary(next(iter(bundles.values())))["metrics"] if m["value"] is not None)
        expect(rc == 0 and len(rows) == 32 * n_metrics, "db export --format %s: a row per run and metric (%d)" %
               (fmt, len(rows)))
        if fmt != "csv":
            import history_check  # the documented schemas, checked with python3-jsonschema
            v = history_check.validator("exports/pytorch_v3.schema.json" if fmt == "pytorch-v3"
                                        else "exports/history_export.v1.schema.json")
            bad = [e.message for r in rows for e in v.iter_errors(r)]
            expect(not bad, "db export --format %s: every record valid against its schema %s" % (fmt, bad[:1]))
    rc, out, err = run("db", "export", "--db", T, "--format", "xml")
    expect(rc == 2 and one_line(err), "an unknown export format: usage")
    if ENGINE == "sqlite":
        import history_check  # the trend page's checks in headless Chromium
        page = os.path.join(WORK, "trend.html")
        rc, out, err = run("db", "trend", "--db", T, "--order-by", "seq", "-o", page)
        expect(rc == 0 and os.path.getsize(page) > 0, "db trend -o: the page")
        browser = history_check.views_check.chromium_binary()
        if browser:
            st, dom = history_check.selftest(browser, "file://" + page, "the store's trend page", WORK)
            s = st["stats"]
            expect((s["charts"], s["series"], s["points"], s["marks"]) == (1, 2, 32, 1),
                   "the page draws 1 chart, 2 series, 32 points, 1 regression mark: %r" % s)
            history_check.screenshot(browser, "file://" + page, os.path.join(WORK, "trend.png"))
        else:
            expect(False, "chromium is installed (the README's setup installs it)")


CASES = {n[5:]: f for n, f in list(globals().items()) if n.startswith("case_")}
if CASE not in CASES or ENGINE not in ("sqlite", "postgresql"):
    print(__doc__)
    sys.exit(2)
CASES[CASE]()
ck.finish()
