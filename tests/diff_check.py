#!/usr/bin/env python3
"""diff_check.py - scenario tests of `etprof diff` (ctest diff.*).

  diff_check.py CASE WORKDIR

CASE:
  real      portable et_add_x10 against XNNPACK xnn_np_add_x10: as bundles, --detailed bundles and
            ETDumps; level op_type, every number recomputed from the bundles' own files
  same      a run against itself (bundle and ETDump): level instruction, deltas 0, ratios 1,
            nothing significant, the gate passes; the same program run twice (et_add x1, x10)
  tamper    a modified copy of a bundle is refused (exit 1, the file named, no output published)
  slowdown  generated pairs with a known injected slowdown (etprof gen etdump --slowdown): the slowed
            instruction's ratio and interval (the bootstrap re-implemented here), the gate's exit 3
  mismatch  different methods, cycles against time, converted units, a diff bundle as a side
  bundle    -o DIR: manifest written last and verified, schemas, determinism, CSV = JSON
  chromium  diff.html in headless Chromium: bars drawn to scale, a screenshot with ink (exit 77
            without chromium)
  findings  findings that appeared, disappeared and were kept (fragmented delegation against none):
            bundle and ETDump sides, a run against itself, terminal, --json, diff_summary.json, diff.html

Expected values are computed here from the inputs (summary.json, operators.csv,
detailed/executions.csv, flatc's decode of the ETDumps) with numpy, never copied from the output.
$ETPROF is the binary, $ETP_FIXTURES the shared fixtures (exit 77 when the folder is absent).
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ETPROF = os.environ.get("ETPROF", "etprof")
FIXTURES = os.environ.get("ETP_FIXTURES", "")
SOURCE = os.environ.get("ETP_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(FIXTURES, "real-runs")
HANG_GUARD = 600  # seconds: a guard against a hung child, not a timing assertion
SEED = 0x6574707266646966
M64 = (1 << 64) - 1


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need_fixtures():
    if not os.path.isdir(FIXTURES):
        print("SKIP: %s is absent; this test reads real runs there" % FIXTURES)
        sys.exit(77)


def run(args, rc=0):
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=HANG_GUARD)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if rc is not None and p.returncode != rc:
        fail("etprof %s exited %d, expected %d\n%s%s" % (" ".join(args), p.returncode, rc, out, err))
    return p.returncode, out, err


def diff_json(args, rc=0):
    _, out, _ = run(["diff", "--json"] + args, rc)
    return json.loads(out)


def analyze(etdump, pte, out, extra=()):
    if os.path.exists(out):
        shutil.rmtree(out)
    run(["analyze", "--etdump", etdump, "--pte", pte, "-o", out, "--quiet",
         "--model-explorer", "none"] + list(extra))
    return out


def close(a, b, rel=1e-9, what=""):
    if a is None or b is None:
        if a is not b:
            fail("%s: %r != %r" % (what, a, b))
        return
    if abs(a - b) > rel * max(abs(a), abs(b)) + 1e-15:
        fail("%s: %r != %r" % (what, a, b))


def rows_by(d):
    return {(r["kind"], r["key"]): r for r in d["rows"]}


def metrics(bundle):
    with open(os.path.join(bundle, "summary.json")) as f:
        return {m["name"]: m for m in json.load(f)["metrics"]}


def operators(bundle):
    with open(os.path.join(bundle, "operators.csv"), newline="") as f:
        return list(csv.DictReader(f))


def samples(bundle, unit="ms"):
    """detailed/executions.csv: entity id -> per-execution values (execution order)."""
    out = {}
    with open(os.path.join(bundle, "detailed", "executions.csv"), newline="") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["entity_id"], []).append((int(r["execution"]), float(r["value_" + unit])))
    return {k: [v for _, v in sorted(x)] for k, x in out.items()}


def method_execute_ms(etdump):
    """Per-execution Method::execute (ms, ns ticks) from flatc's decode of the ETDump."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary",
                        "--size-prefixed", "-o", tmp, os.path.join(SOURCE, "schemas", "flatbuffers", "etdump.fbs"),
                        "--", etdump], check=True, timeout=HANG_GUARD)
        name = os.path.splitext(os.path.basename(etdump))[0] + ".json"
        with open(os.path.join(tmp, name)) as f:
            d = json.load(f)
    out = []
    for block in d["run_data"]:
        if block.get("name") != "Execute":
            continue
        for ev in block.get("events", []):
            pe = ev.get("profile_event")
            if pe and pe.get("name") == "Method::execute":
                out.append((int(pe["end_time"]) - int(pe["start_time"])) / 1e6)
    return out


# ---- the bootstrap, re-implemented from its description in etprof/diff.h ----

def fnv1a(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h ^= b
        h = (h * 0x100000001b3) & M64
    return h


def bootstrap(base, new, kind, key, stat="avg", resamples=2000, confidence=0.95, seed=SEED):
    state = seed ^ fnv1a("%s:%s" % (kind, key))

    def draw():
        nonlocal state
        state = (state + 0x9e3779b97f4a7c15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
        return z ^ (z >> 31)

    def statistic(v):
        if stat == "avg":
            s = 0.0
            for x in v:
                s += x
            return s / len(v)
        return float(np.median(np.array(v)))

    ratios = []
    for _ in range(resamples):
        b = [base[((draw() >> 11) * len(base)) >> 53] for _ in range(len(base))]
        n = [new[((draw() >> 11) * len(new)) >> 53] for _ in range(len(new))]
        ratios.append(statistic(n) / statistic(b))
    lo, hi = np.percentile(np.array(ratios), [50 * (1 - confidence), 50 * (1 + confidence)])
    return float(lo), float(hi)


def check_interval(row, base, new, stat="avg"):
    lo, hi = bootstrap(base, new, row["kind"], row["key"], stat)
    if not row["interval"]:
        fail("%s: no interval, expected [%r, %r]" % (row["key"], lo, hi))
    close(row["interval"]["low"], lo, 1e-12, row["key"] + " interval low")
    close(row["interval"]["high"], hi, 1e-12, row["key"] + " interval high")
    if row["significant"] != (lo > 1 or hi < 1):
        fail("%s: significant=%r for [%r, %r]" % (row["key"], row["significant"], lo, hi))


def check_schema(doc):
    import jsonschema
    with open(os.path.join(SOURCE, "schemas", "json", "diff.v1.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=str)
    if errors:
        fail("the diff JSON fails its schema at %s: %s" % (list(errors[0].absolute_path), errors[0].message))


def check_model_rows(d, b_bundle, n_bundle):
    """Every model row against summary.json's metrics of both bundles."""
    mb, mn = metrics(b_bundle), metrics(n_bundle)
    rows = rows_by(d)
    names = [k[:-4] for k in mb if k.endswith(".avg")] + [k[:-4] for k in mn if k.endswith(".avg")]
    for name in names:
        r = rows.get(("model", name))
        if not r:
            fail("no model row " + name)
        b, n = mb.get(name + ".avg"), mn.get(name + ".avg")
        bv = b["value"] if b and "value" in b else None
        nv = n["value"] if n and "value" in n else None
        close(r["base"]["value"] if r["base"] and r["base"]["available"] else None, bv, 1e-12, name + " base")
        close(r["new"]["value"] if r["new"] and r["new"]["available"] else None, nv, 1e-12, name + " new")
        if bv is not None and nv is not None:
            close(r["delta"], nv - bv, 1e-9, name + " delta")
            close(r["ratio"], nv / bv if bv > 0 else None, 1e-12, name + " ratio")
            ex_b, ex_n = mb["method_execute.avg"]["value"], mn["method_execute.avg"]["value"]
            if r["basis"] == "per execution" and r["unit"] == d["unit"]:
                close(r["base"]["share_of_execute"], bv / ex_b, 1e-12, name + " base share")
                close(r["new"]["share_of_execute"], nv / ex_n, 1e-12, name + " new share")
        elif r["matched"] and (bv is None) != (nv is None):
            if r["delta"] is not None:
                fail(name + ": a delta without both values")


def op_type_groups(bundle):
    """(BACKEND/)OP_TYPE -> summed mean of the bundle's instructions."""
    g = {}
    for r in operators(bundle):
        if r["kind"] != "instruction" or not r["avg_ms"]:
            continue
        op, be = r["op_type"], r["backend"]
        key = "%s/%s" % (be, op) if be and be != op else op
        g[key] = g.get(key, 0.0) + float(r["avg_ms"])
    return g


# ---- cases -------------------------------------------------------------------

def case_real(work):
    need_fixtures()
    pa, xn = os.path.join(REAL, "et_add_x10"), os.path.join(REAL, "xnn_np_add_x10")
    bp = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "portable"))
    bx = analyze(xn + ".etdp", xn + ".pte", os.path.join(work, "xnnpack"))
    dp = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "portable-d"), ["--detailed"])
    dx = analyze(xn + ".etdp", xn + ".pte", os.path.join(work, "xnnpack-d"), ["--detailed"])
    d = diff_json([bp, bx])
    check_schema(d)
    if d["level"] != "op_type":
        fail("portable vs XNNPACK: level %s, expected op_type (different programs, no ETRecord)" % d["level"])
    check_model_rows(d, bp, bx)
    rows = rows_by(d)
    # Per operator type and backend: aten::add.out only in base, XnnpackBackend only in new.
    gb, gn = op_type_groups(bp), op_type_groups(bx)
    for key in set(gb) | set(gn):
        r = rows.get(("op_type", key))
        if not r:
            fail("no op_type row " + key)
        if r["matched"] != (key in gb and key in gn):
            fail("op_type %s: matched=%r" % (key, r["matched"]))
        if key in gb:
            close(r["base"]["value"], gb[key], 1e-12, key + " base")
        if key in gn:
            close(r["new"]["value"], gn[key], 1e-12, key + " new")
    if any(k[0] in ("instruction", "operator", "delegate_event") for k in rows):
        fail("entity rows matched across different programs")
    if ("model", "delegate_time:XnnpackBackend") not in rows or rows[("model", "delegate_time:XnnpackBackend")]["matched"]:
        fail("delegate_time:XnnpackBackend should be a new-only model row")
    # Without samples there is no interval, and the gate needs --no-significance.
    if any(r["interval"] for r in d["rows"]):
        fail("an interval without per-execution samples")
    # --detailed bundles carry each execution's figures (detailed/figures.csv): its
    # Method::execute values are flatc's, and the intervals those of the ETDumps below.
    for bundle, run_ in ((dp, pa), (dx, xn)):
        with open(os.path.join(bundle, "detailed", "figures.csv"), newline="") as f:
            got = [float(r["value_ms"]) for r in csv.DictReader(f) if r["figure"] == "method_execute"]
        want = method_execute_ms(run_ + ".etdp")
        if len(got) != len(want) or any(abs(g - w) > 1e-15 for g, w in zip(got, want)):
            fail("%s/detailed/figures.csv method_execute %r, flatc %r" % (bundle, got, want))
    dd = diff_json([dp, dx])
    # ETDumps analysed in memory: the same figures, and intervals on the model rows.
    de = diff_json([pa + ".etdp", xn + ".etdp"])
    if de["level"] != "op_type":
        fail("ETDump sides: level %s" % de["level"])
    re_ = rows_by(de)
    for k, r in rows_by(d).items():
        if k not in re_:
            fail("ETDump diff lacks row %r" % (k,))
        for side in ("base", "new"):
            if r[side] and r[side]["available"]:
                close(re_[k][side]["value"], r[side]["value"], 1e-12, "%r %s etdump vs bundle" % (k, side))
    ex = re_[("model", "method_execute")]
    check_interval(ex, method_execute_ms(pa + ".etdp"), method_execute_ms(xn + ".etdp"))
    for k, r in rows_by(dd).items():
        if r["interval"] != re_[k]["interval"]:
            fail("%r: interval from --detailed bundles %r, from the ETDumps %r" % (k, r["interval"], re_[k]["interval"]))
    # The portable run's first execution is 80x its others: on means the change is not
    # significant; on medians XNNPACK is significantly slower for this one-op model.
    if ex["significant"]:
        fail("portable vs XNNPACK means: expected not significant, got %r" % ex["interval"])
    dm = diff_json(["--stat", "p50", pa + ".etdp", xn + ".etdp"])
    exm = rows_by(dm)[("model", "method_execute")]
    bm, nm = method_execute_ms(pa + ".etdp"), method_execute_ms(xn + ".etdp")
    close(exm["base"]["value"], float(np.median(bm)), 1e-12, "median base")
    close(exm["new"]["value"], float(np.median(nm)), 1e-12, "median new")
    check_interval(exm, bm, nm, "p50")
    # Terminal table: the level and the refusal-free comparison are said out loud.
    _, out, _ = run(["diff", bp, bx, "--top", "5"])
    if "matched at level: op_type" not in out or "aten::add.out" not in out or "XnnpackBackend" not in out:
        fail("terminal table lacks the level or the rows:\n" + out)
    print("ok: portable vs XNNPACK at op_type level; method_execute ratio %.3f (means, %s), %.3f (medians, %s)"
          % (ex["ratio"], ex["interval"], exm["ratio"], exm["interval"]))


def case_same(work):
    need_fixtures()
    kws = os.path.join(REAL, "cm_et_arduino_kws_x10")
    a = os.path.join(work, "kws")
    if os.path.exists(a):
        shutil.rmtree(a)
    run(["analyze", kws + ".etrecord", "--etdump", kws + ".etdp", "--pte", kws + ".pte", "-o", a,
         "--quiet", "--detailed", "--model-explorer", "none"])
    for args in ([a, a], [kws + ".etdp", kws + ".etdp", "--base-etrecord", kws + ".etrecord",
                          "--new-etrecord", kws + ".etrecord"]):
        d = diff_json(args + ["--fail-if-slower", "0"])
        check_schema(d)
        if d["level"] != "instruction":
            fail("same run: level %s" % d["level"])
        kinds = {r["kind"] for r in d["rows"]}
        if not {"model", "instruction", "operator"} <= kinds:
            fail("same run: row kinds %r" % kinds)
        for r in d["rows"]:
            if not r["matched"]:
                fail("same run: %s unmatched" % r["key"])
            if r["delta"] not in (None, 0.0):
                fail("same run: %s delta %r" % (r["key"], r["delta"]))
            if r["ratio"] is not None and r["ratio"] != 1.0:
                fail("same run: %s ratio %r" % (r["key"], r["ratio"]))
            if r["significant"]:
                fail("same run: %s significant" % r["key"])
        if d["gate"]["failed"]:
            fail("same run fails the gate: %r" % d["gate"])
        shared = [r for r in d["rows"] if r["base"] and r["base"]["shared"]]
        if not shared:
            fail("the KWS run has a handle shared by two nodes; no shared row marked")
    # Entity intervals from the detailed bundle equal the bootstrap of its samples.
    sm = samples(a)
    rows = rows_by(diff_json([a, a]))
    checked = 0
    for (kind, key), r in rows.items():
        if kind != "model" and key in sm and len(sm[key]) > 1 and min(sm[key]) > 0 and checked < 4:
            check_interval(r, sm[key], sm[key])
            checked += 1
    if not checked:
        fail("no entity interval checked")
    # The same program run twice (1 and 10 executions): matched per instruction, the numbers
    # those of the two bundles, and one execution is no sample set: no interval, said so.
    x1, x10 = os.path.join(REAL, "et_add_x1"), os.path.join(REAL, "et_add_x10")
    b1 = analyze(x1 + ".etdp", x1 + ".pte", os.path.join(work, "x1"), ["--detailed"])
    b10 = analyze(x10 + ".etdp", x10 + ".pte", os.path.join(work, "x10"), ["--detailed"])
    d = diff_json([b1, b10])
    if d["level"] != "instruction" or d["base"]["executions"] != 1 or d["new"]["executions"] != 10:
        fail("et_add x1 vs x10: level %s, executions %r/%r" % (d["level"], d["base"]["executions"],
                                                              d["new"]["executions"]))
    check_model_rows(d, b1, b10)
    r = rows_by(d)[("instruction", "forward_0_0")]
    o1, o10 = operators(b1)[0], operators(b10)[0]
    close(r["base"]["value"], float(o1["avg_ms"]), 1e-12, "x1 forward_0_0")
    close(r["new"]["value"], float(o10["avg_ms"]), 1e-12, "x10 forward_0_0")
    if r["interval"] or "samples" not in (r["note"] or ""):
        fail("one execution against ten: %r %r" % (r["interval"], r["note"]))
    print("ok: a run against itself: every delta 0, nothing significant, %d intervals re-computed; "
          "et_add x1 vs x10 matched per instruction (ratio %.3f, no interval: 1 execution)" % (checked, r["ratio"]))


def case_tamper(work):
    need_fixtures()
    pa = os.path.join(REAL, "et_add_x10")
    a = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "a"))
    t = os.path.join(work, "tampered")
    if os.path.exists(t):
        shutil.rmtree(t)
    shutil.copytree(a, t)
    with open(os.path.join(t, "operators.csv"), "r+b") as f:
        data = f.read().replace(b"0.0035182", b"0.0015182")
        f.seek(0)
        f.write(data)
    out_dir = os.path.join(work, "out")
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    for args in ([a, t], [t, a]):
        rc, out, err = run(["diff", "-o", out_dir] + args, rc=1)
        if "operators.csv" not in err or "sha256" not in err:
            fail("tampered bundle: the message does not name the file and the digest:\n" + err)
        if os.path.exists(out_dir):
            fail("a refused diff published " + out_dir)
    # A copy left as it was is accepted: the check is on content, not on the directory.
    c = os.path.join(work, "copy")
    if os.path.exists(c):
        shutil.rmtree(c)
    shutil.copytree(a, c)
    d = diff_json([a, c])
    if d["level"] != "instruction":
        fail("an unmodified copy: level %s" % d["level"])
    # A directory that is not a bundle, and a manifest removed.
    os.unlink(os.path.join(t, "result_manifest.json"))
    run(["diff", a, t], rc=1)
    print("ok: a tampered copy is refused (%s)" % err.strip().splitlines()[-1])


def gen(work, name, extra, pte=True):
    path = os.path.join(work, name + ".etdp")
    args = ["gen", "etdump", "-o", path, "--instructions", "40", "--executions", "20", "--seed", "5"]
    if pte:
        args += ["--pte", os.path.join(work, "model.pte"), "--etrecord", os.path.join(work, "model.etrecord")]
    run(args + extra)
    return path


def case_slowdown(work):
    os.makedirs(work, exist_ok=True)
    base = gen(work, "base", [])
    slow = gen(work, "slow", ["--slowdown", "7:1.6"], pte=False)
    pte = os.path.join(work, "model.pte")
    common = ["--base-pte", pte, "--new-pte", pte]
    d = diff_json([base, slow] + common + ["--fail-if-slower", "10", "--metric", "forward_0_7"], rc=3)
    check_schema(d)
    if d["level"] != "instruction":
        fail("same program: level %s" % d["level"])
    bb = analyze(base, pte, os.path.join(work, "b"), ["--detailed"])
    bs = analyze(slow, pte, os.path.join(work, "s"), ["--detailed"])
    ob, os_ = {r["entity_id"]: r for r in operators(bb)}, {r["entity_id"]: r for r in operators(bs)}
    rows = rows_by(d)
    changed = []
    for key in ob:
        r = rows[(ob[key]["kind"], key)] if (ob[key]["kind"], key) in rows else None
        if r is None or not ob[key]["avg_ms"]:
            continue
        vb, vn = float(ob[key]["avg_ms"]), float(os_[key]["avg_ms"])
        close(r["base"]["value"], vb, 1e-12, key + " base")
        close(r["new"]["value"], vn, 1e-12, key + " new")
        close(r["delta"], vn - vb, 1e-9, key + " delta")
        if vn != vb:
            changed.append(key)
    # Only instruction 7 (and what contains it: nothing else at this level) changed.
    if changed != ["forward_0_7"]:
        fail("rows that changed: %r, expected only forward_0_7" % changed)
    r7 = rows[("instruction", "forward_0_7")]
    sb, ss = samples(bb), samples(bs)
    check_interval(r7, sb["forward_0_7"], ss["forward_0_7"])
    # The kernel took 1.6x; OPERATOR_CALL adds a fixed dispatch around it, so the instruction's
    # ratio is below 1.6 by exactly the dispatch share.
    kb, ks = float(ob["forward_0_7"]["kernel_avg_ms"]), float(os_["forward_0_7"]["kernel_avg_ms"])
    if abs(ks / kb - 1.6) > 0.01:
        fail("the generator's kernel slowdown is %.4f, not 1.6" % (ks / kb))
    if not (1.1 < r7["ratio"] < 1.6 and r7["significant"] and r7["interval"]["low"] > 1):
        fail("forward_0_7: ratio %r interval %r" % (r7["ratio"], r7["interval"]))
    if not d["gate"]["failed"] or d["gate"]["exit_status"] != 3:
        fail("gate on forward_0_7 did not fail: %r" % d["gate"])
    # Method::execute grows by the same absolute amount; its interval from flatc's decode.
    ex = rows[("model", "method_execute")]
    close(ex["delta"], r7["delta"], 1e-6, "method_execute delta = forward_0_7 delta")
    check_interval(ex, method_execute_ms(base), method_execute_ms(slow))
    # The gate on Method::execute: a 0.5% change within a 1% threshold passes; at 0% it is
    # slower, and failing it needs the interval above 1.
    run(["diff", base, slow, "--quiet", "--fail-if-slower", "1"] + common, rc=0)
    g0 = diff_json([base, slow, "--fail-if-slower", "0"] + common, rc=None)["gate"]
    want = 3 if ex["interval"]["low"] > 1 else 0
    if g0["exit_status"] != want:
        fail("gate at 0%%: %r with interval %r" % (g0, ex["interval"]))
    # Bundles without samples: no interval, the gate passes unless --no-significance.
    nb = analyze(base, pte, os.path.join(work, "nb"))
    ns = analyze(slow, pte, os.path.join(work, "ns"))
    run(["diff", nb, ns, "--quiet", "--fail-if-slower", "10", "--metric", "forward_0_7"], rc=0)
    run(["diff", nb, ns, "--quiet", "--fail-if-slower", "10", "--metric", "forward_0_7",
         "--no-significance"], rc=3)
    # The operators table read through the column table: JSON bundles (operators.json, whose
    # additivity sits in "timing") diff exactly as CSV bundles do, additivity included.
    jb = analyze(base, pte, os.path.join(work, "jb"), ["--format", "json"])
    js = analyze(slow, pte, os.path.join(work, "js"), ["--format", "json"])
    dc, dj = diff_json([nb, ns]), diff_json([jb, js])
    for side in ("base", "new"):
        dc[side]["label"] = dj[side]["label"] = None
    if dc != dj:
        fail("operators.json bundles diff otherwise than operators.csv bundles")
    if not any(r["base"] and r["base"].get("additive") for r in dj["rows"] if r["kind"] == "instruction"):
        fail("no additive instruction read from operators.json")
    # The improvement direction: NEW faster never fails the gate.
    run(["diff", slow, base, "--quiet", "--fail-if-slower", "0", "--metric", "forward_0_7"] +
        ["--base-pte", pte, "--new-pte", pte], rc=0)
    # Ranking: the slowed instruction leads by |change|, and by ratio.
    _, out, _ = run(["diff", base, slow, "--top", "1"] + common)
    lines = [l for l in out.splitlines() if l.strip().startswith("instruction ")]
    if len(lines) != 1 or "forward_0_7" not in lines[0]:
        fail("--top 1 does not show forward_0_7 first:\n" + out)
    print("ok: injected 1.6x kernel slowdown: forward_0_7 ratio %.4f %s, gate exit 3"
          % (r7["ratio"], r7["interval"]))


def case_mismatch(work):
    need_fixtures()
    mf = os.path.join(REAL, "np_multi_forward_x10")
    cm = os.path.join(REAL, "np_const_methods_get_tensor_x3")
    pa = os.path.join(REAL, "et_add_x10")
    a = analyze(mf + ".etdp", mf + ".pte", os.path.join(work, "forward"))
    b = analyze(cm + ".etdp", cm + ".pte", os.path.join(work, "other"), ["--method", "get_tensor"])
    _, _, err = run(["diff", a, b], rc=1)
    if "different methods" not in err:
        fail("different methods not refused with the reason:\n" + err)
    d = diff_json([a, b, "--any-method"])
    if not any(w["code"] == "identity.method_differs" for w in d["warnings"]):
        fail("--any-method without the warning")
    # Cycles against time: refused; converted with --cpu-hz: compared with a warning.
    cyc = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "cycles"),
                  ["--source-unit", "cycles", "--unit", "cycles"])
    ns = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "ns"), ["--source-unit", "ns"])
    _, _, err = run(["diff", ns, cyc], rc=1)
    if "cycles" not in err or "--cpu-hz" not in err:
        fail("cycles vs ms not refused with the reason:\n" + err)
    hz = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "hz"),
                 ["--source-unit", "cycles", "--cpu-hz", "1e9"])
    d = diff_json([ns, hz])
    codes = {w["code"] for w in d["warnings"]}
    if "units.ticks_differ" not in codes:
        fail("cycles converted at 1 GHz vs ns: no warning (%r)" % codes)
    # 1 GHz cycles are nanoseconds: the same numbers.
    ex = rows_by(d)[("model", "method_execute")]
    close(ex["ratio"], 1.0, 1e-12, "1 GHz cycles vs ns")
    # ms against us: converted (with a warning), the numbers in the base unit.
    us = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "us"), ["--source-unit", "ns", "--unit", "us"])
    d = diff_json([ns, us])
    if "units.converted" not in {w["code"] for w in d["warnings"]}:
        fail("ms vs us without the conversion warning")
    mu = metrics(us)["method_execute.avg"]["value"]
    close(rows_by(d)[("model", "method_execute")]["new"]["value"], mu / 1000.0, 1e-12, "us -> ms")
    # Assumed against given tick units: compared, with the warning.
    assumed = analyze(pa + ".etdp", pa + ".pte", os.path.join(work, "assumed"))
    d = diff_json([assumed, ns])
    if "units.evidence_differs" not in {w["code"] for w in d["warnings"]}:
        fail("assumed vs given tick units without the warning")
    # A diff bundle is not a run.
    dd = os.path.join(work, "diffbundle")
    run(["diff", ns, ns, "-o", dd, "--quiet", "--force"])
    _, _, err = run(["diff", dd, ns], rc=1)
    if "profile" not in err:
        fail("a diff bundle as a side:\n" + err)
    # Usage errors exit 2.
    run(["diff", ns], rc=2)
    run(["diff", ns, ns, "--json", "--csv"], rc=2)
    run(["diff", ns, ns, "--fail-if-slower", "-3"], rc=2)
    run(["diff", ns, ns, "--fail-if-slower", "5", "--metric", "no_such_row"], rc=1)
    print("ok: refusals (methods, cycles vs time, diff bundle) and honest conversions (1 GHz, us, assumed)")


def case_bundle(work):
    need_fixtures()
    pa, xn = os.path.join(REAL, "et_add_x10"), os.path.join(REAL, "xnn_np_add_x10")
    outs = []
    for i in range(2):
        o = os.path.join(work, "d%d" % i)
        if os.path.exists(o):
            shutil.rmtree(o)
        run(["diff", pa + ".etdp", xn + ".etdp", "-o", o, "--quiet", "--fail-if-slower", "5"])
        run(["verify", "--strict", o])
        outs.append(o)
    with open(os.path.join(outs[0], "result_manifest.json")) as f:
        man = json.load(f)
    if man["bundle_type"] != "diff":
        fail("bundle_type %r" % man["bundle_type"])
    paths = [x["path"] for x in man["artifacts"]]
    if paths != ["diff.html", "diff_rows.csv", "diff_summary.json"]:
        fail("artifacts %r" % paths)
    if man["comparability"]["level"] != "op_type":
        fail("comparability %r" % man["comparability"])
    subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "bundle_schema.py"),
                    os.path.join(SOURCE, "schemas", "json", "result_manifest.v1.schema.json"), outs[0]],
                   check=True, timeout=HANG_GUARD, stdout=subprocess.DEVNULL)
    for p in paths:  # deterministic: the same inputs, the same bytes
        with open(os.path.join(outs[0], p), "rb") as f1, open(os.path.join(outs[1], p), "rb") as f2:
            if f1.read() != f2.read():
                fail("%s differs between two runs" % p)
    with open(os.path.join(outs[0], "diff_summary.json")) as f:
        doc = json.load(f)
    check_schema(doc)
    if "gate" not in doc or doc["gate"]["metric"] != "method_execute":
        fail("diff_summary.json lacks the gate")
    stdout_json = diff_json([pa + ".etdp", xn + ".etdp", "--fail-if-slower", "5"])
    if stdout_json != doc:
        fail("--json differs from diff_summary.json")
    with open(os.path.join(outs[0], "diff_rows.csv"), newline="") as f:
        text = f.read()
    if "\r\n" not in text:
        fail("diff_rows.csv: records not CRLF-terminated")
    rows = list(csv.DictReader(io.StringIO(text)))
    if len(rows) != len(doc["rows"]):
        fail("CSV has %d rows, JSON %d" % (len(rows), len(doc["rows"])))
    for c, j in zip(rows, doc["rows"]):
        if c["key"] != j["key"] or c["kind"] != j["kind"]:
            fail("CSV row %r vs JSON %r" % (c["key"], j["key"]))
        for col, val in (("delta", j["delta"]), ("ratio", j["ratio"])):
            close(float(c[col]) if c[col] else None, val, 1e-15, "csv %s %s" % (j["key"], col))
    # A directory that is not a bundle is not replaced; a refused comparison creates nothing.
    other = os.path.join(work, "other")
    os.makedirs(other, exist_ok=True)
    with open(os.path.join(other, "keep.txt"), "w") as f:
        f.write("mine\n")
    run(["diff", pa + ".etdp", xn + ".etdp", "-o", other], rc=1)
    if os.listdir(other) != ["keep.txt"]:
        fail("a non-bundle directory was touched")
    print("ok: diff bundle verified (--strict), deterministic, schema-valid, CSV = JSON")


def case_chromium(work):
    need_fixtures()
    exe = next((shutil.which(c) for c in ("chromium", "/usr/bin/chromium", "chromium-browser")
                if shutil.which(c)), None)
    if not exe:
        print("SKIP: chromium is not installed (apt-get install chromium fonts-dejavu-core)")
        sys.exit(77)
    kws = os.path.join(REAL, "cm_et_arduino_kws_x10")
    os.makedirs(work, exist_ok=True)
    pte = os.path.join(work, "model.pte")
    base = gen(work, "base", [])
    slow = gen(work, "slow", ["--slowdown", "3:2.5"], pte=False)
    o = os.path.join(work, "page")
    if os.path.exists(o):
        shutil.rmtree(o)
    run(["diff", base, slow, "--base-pte", pte, "--new-pte", pte, "-o", o, "--quiet", "--top", "12"])
    page = os.path.join(o, "diff.html")
    with open(page) as f:
        html = f.read()
    for bad in ("http://", "https://", "<link", "src=\""):
        if bad in html:
            fail("the page is not standalone: it contains %r" % bad)
    url = "file://" + os.path.abspath(page)
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--window-size=1400,1000"]
    st = None
    for attempt in range(3):  # a DOM dumped before the script ran is taken again
        with tempfile.TemporaryDirectory() as prof:
            p = subprocess.run(args + ["--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0",
                                       "--virtual-time-budget=5000", "--dump-dom", url],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_GUARD)
        dom, log = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
        if p.returncode != 0:
            fail("chromium exited %d\n%s" % (p.returncode, log[-2000:]))
        for line in log.splitlines():
            if "Uncaught" in line or "ERROR:CONSOLE" in line or ":CONSOLE(" in line:
                fail("console message: " + line)
        if 'data-etprof-ready="1"' in dom:
            start = dom.find('id="etp-selftest"')
            text = dom[dom.index(">", start) + 1:dom.index("</pre>", start)]
            st = json.loads(text.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                            .replace("&amp;", "&"))
            break
    if st is None:
        fail("the page never reached its ready state")
    if st["errors"]:
        fail("script errors: %r" % st["errors"])
    sections = {r["section"] for r in st["rows"]}
    if sections != {"model", "backend", "rows"}:
        fail("sections drawn: %r" % sections)
    top = [r for r in st["rows"] if r["section"] == "rows"]
    if len(top) != 12 or top[0]["key"] != "forward_0_3":
        fail("top rows: %d, first %r (expected forward_0_3, the slowed one)" %
             (len(top), top[0]["key"] if top else None))
    # Bars to scale: within a table sharing one unit, width / value is one constant.
    for sec in sections:
        rs = [r for r in st["rows"] if r["section"] == sec and r["base"] and r["new"] and r["wb"] and r["wn"]
              and r["key"] not in ("program_load_method", "method_init")]
        for r in rs:
            if abs(r["wb"] / r["wn"] - r["base"] / r["new"]) > 0.03 * (r["base"] / r["new"]) + 2.0 / r["wn"]:
                fail("%s %s: bars %.1f/%.1f px for values %r/%r" % (sec, r["key"], r["wb"], r["wn"], r["base"], r["new"]))
    png = os.path.join(work, "diff.png")
    if os.path.exists(png):
        os.unlink(png)
    with tempfile.TemporaryDirectory() as prof:
        subprocess.run(args + ["--user-data-dir=" + prof, "--virtual-time-budget=5000",
                               "--screenshot=" + png, url],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_GUARD)
    if not os.path.exists(png):
        fail("no screenshot written")
    sys.path.insert(0, os.path.join(SOURCE, "tests"))
    from views_check import png_info  # the PNG reader of the views test
    (w, h, colours, ink), = png_info(png, None)
    if (w, h) != (1400, 1000) or colours < 8 or ink < 0.02:
        fail("screenshot %dx%d, %d colours, %.1f%% ink: not a drawn page" % (w, h, colours, 100 * ink))
    print("ok: diff.html in chromium: %d rows measured, bars to scale; screenshot %s (%d colours, %.1f%% ink)"
          % (len(st["rows"]), png, colours, 100 * ink))
    del kws


def expected_findings(base, new):
    """What `etprof diff` must say about two runs' findings (each side's
    summary.json "findings"), worked out here: per code, appeared (new only),
    disappeared (base only) or kept; per side the count, "fired" when one
    fired, the first message; the entities either side names, in the base
    side's order then the new side's others, with the sides naming them."""
    codes = []
    for side in (base, new):
        for f in side:
            if f["code"] not in codes:
                codes.append(f["code"])
    out = []
    for code in codes:
        sides = [[f for f in s if f["code"] == code] for s in (base, new)]
        flags, order = {}, []
        for k, fs in enumerate(sides):
            for f in fs:
                for e in f["affected_entities"]:
                    if e["id"] not in flags:
                        flags[e["id"]] = [False, False]
                        order.append(e["id"])
                    flags[e["id"]][k] = True
        out.append({
            "change": "appeared" if not sides[0] else "disappeared" if not sides[1] else "kept",
            "code": code, "severity": (sides[1] or sides[0])[0]["severity"],
            "base": None if not sides[0] else {
                "count": len(sides[0]), "message": sides[0][0]["message"],
                "status": "fired" if any(f["status"] == "fired" for f in sides[0]) else "withheld"},
            "new": None if not sides[1] else {
                "count": len(sides[1]), "message": sides[1][0]["message"],
                "status": "fired" if any(f["status"] == "fired" for f in sides[1]) else "withheld"},
            "entities": [{"id": i, "base": flags[i][0], "new": flags[i][1]} for i in order]})
    rank = {"appeared": 0, "disappeared": 1, "kept": 2}
    return sorted(out, key=lambda r: (rank[r["change"]], r["code"]))


def case_findings(work):
    """Findings that appear, disappear and are kept between a run whose
    delegation is fragmented and a run of the same model with no delegate."""
    os.makedirs(work, exist_ok=True)
    sides = {}
    for name, every in (("base", "10"), ("new", "0")):
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        pte, etr, etd = (os.path.join(d, n) for n in ("model.pte", "model.etrecord", "run.etdp"))
        run(["gen", "etdump", "--instructions", "300", "--delegate-every", every, "--backend", "vulkan",
             "--pte", pte, "--etrecord", etr, "-o", etd])
        out = os.path.join(d, "bundle")
        run(["analyze", etr, "--etdump", etd, "--pte", pte, "-o", out, "--force", "--quiet"])
        with open(os.path.join(out, "summary.json")) as f:
            found = json.load(f)["findings"]
        sides[name] = (out, etd, pte, etr, found)
    b, n = sides["base"], sides["new"]
    want = expected_findings(b[4], n[4])
    changes = {c: sum(r["change"] == c for r in want) for c in ("appeared", "disappeared", "kept")}
    if not changes["appeared"] or not changes["disappeared"] or not changes["kept"]:
        fail("the pair does not show every change: %r" % [(r["change"], r["code"]) for r in want])
    doc = diff_json([b[0], n[0]])
    check_schema(doc)
    if doc["findings"] != want:
        fail("bundle sides: findings %r, expected %r" % (doc["findings"], want))
    # ETDumps analysed in memory, with the same inputs: the same findings.
    mem = diff_json([b[1], n[1], "--base-pte", b[2], "--new-pte", n[2], "--base-etrecord", b[3],
                     "--new-etrecord", n[3]])
    if mem["findings"] != want:
        fail("ETDump sides: findings %r, expected %r" % (mem["findings"], want))
    same = diff_json([b[0], b[0]])["findings"]
    if same != expected_findings(b[4], b[4]) or any(r["change"] != "kept" for r in same):
        fail("a run against itself: %r" % same)
    text = run(["diff", b[0], n[0]])[1]
    head = "Findings: %d appeared, %d disappeared, %d kept" % (
        changes["appeared"], changes["disappeared"], changes["kept"])
    if head not in text:
        fail("the terminal lacks %r" % head)
    for r in want:
        if not any(line.split()[:2] == [r["change"], r["code"]] for line in text.splitlines()):
            fail("the terminal lacks the %s line of %s" % (r["change"], r["code"]))
    o = os.path.join(work, "diff")
    if os.path.exists(o):
        shutil.rmtree(o)
    run(["diff", b[0], n[0], "-o", o, "--quiet"])
    run(["verify", "--strict", o])
    with open(os.path.join(o, "diff_summary.json")) as f:
        if json.load(f)["findings"] != want:
            fail("diff_summary.json's findings differ from --json's")
    with open(os.path.join(o, "diff.html")) as f:
        page = f.read()
    for r in want:
        if '<tr class="f-%s" data-code="%s">' % (r["change"], r["code"]) not in page:
            fail("diff.html lacks the %s row of %s" % (r["change"], r["code"]))
    print("ok: findings %s between bundles, ETDumps, on the terminal, in diff_summary.json and diff.html"
          % ", ".join("%d %s" % (v, k) for k, v in changes.items()))


CASES = {"real": case_real, "same": case_same, "tamper": case_tamper, "slowdown": case_slowdown,
         "mismatch": case_mismatch, "bundle": case_bundle, "chromium": case_chromium,
         "findings": case_findings}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        print(__doc__)
        return 2
    os.makedirs(sys.argv[2], exist_ok=True)
    CASES[sys.argv[1]](sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
