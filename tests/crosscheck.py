#!/usr/bin/python3
"""`etprof analyze`: cross-checks between the inputs, tick-unit evidence,
warm-up skipping, cold start, ranking and the CI gate, on the real runs and on
crafted cases.

Expected numbers come from flatc's decode of the ETDumps and the program
(Method::execute per execution, which instructions have events, debug events)
and from a regular-expression reading of the runner logs, summarised with
numpy; never from etprof's own output.

usage: crosscheck.py ETPROF SCHEMA_DIR FIXTURES_DIR
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

ETPROF, SCHEMA, FIX = sys.argv[1], sys.argv[2], sys.argv[3]
R = os.path.join(FIX, "real-runs")
if not os.path.isdir(R):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(*args, stdin=None):
    p = subprocess.run([ETPROF] + list(args), input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def analyze_json(*args, stdin=None):
    rc, out, err = run("analyze", "--json", *args, stdin=stdin)
    return rc, (json.loads(out) if rc in (0, 3) and out else None), err


def codes(doc):
    return {i["code"]: i for i in doc["issues"]} if doc else {}


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1e-300, abs(b))


def flatc(schema, path, tmp, prefixed):
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"]
                   + (["--size-prefixed"] if prefixed else [])
                   + ["-o", tmp, os.path.join(SCHEMA, schema), "--", path], check=True)
    with open(os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


def execute_ticks(dump):
    """Method::execute duration of each Execute block, in ticks."""
    out = []
    for run_ in dump["run_data"]:
        if run_.get("name") != "Execute":
            continue
        t = [ev["profile_event"]["end_time"] - ev["profile_event"]["start_time"]
             for ev in run_.get("events", []) or []
             if ev.get("profile_event") and ev["profile_event"].get("name") == "Method::execute"]
        out.append(sum(t) if t else None)
    return out


def log_iterations(path):
    return [float(m) for m in re.findall(r"Iteration \d+ of \d+: ([0-9.]+) ms", open(path).read())]


RUNS = [("et_add_x1", "pte"), ("et_add_x10", "pte"), ("np_dtypes_x10", "pte"),
        ("np_multi_forward_x10", "pte"), ("np_const_methods_get_tensor_x3", "pte"),
        ("xnn_np_add_x10", "pte"), ("cm_et_arduino_kws_x10", "pte"),
        ("et_bundled_program_debug_intermediate", "bpte")]
# What else is wrong with each real run (nothing, for most).
EXPECTED = {"np_const_methods_get_tensor_x3": ("degraded", {"etdump.method_level_only"}),
            "et_bundled_program_debug_intermediate": ("degraded",
                                                     {"etdump.intermediate_outputs", "units.assumed"})}

with tempfile.TemporaryDirectory() as tmp:
    # 1. Every real run with its own log: the log's wall times confirm ns
    # ticks, so nothing but what is really wrong lowers the validity.
    for name, ext in RUNS:
        p = os.path.join(R, name)
        rc, doc, err = analyze_json("--etdump", p + ".etdp", "--pte", p + "." + ext, "--log", p + ".log")
        if rc != 0:
            expect(False, "%s: analyze exits 0 (%s)" % (name, err.strip()))
            continue
        want_validity, want_warn = EXPECTED.get(name, ("valid", set()))
        c = codes(doc)
        bad = {k for k, v in c.items() if v["severity"] != "info"}
        expect(doc["validity"] == want_validity and bad == want_warn,
               "%s with its log: %s, warnings %s" % (name, want_validity, sorted(want_warn) or "none"))
        iters = log_iterations(p + ".log")
        dump = flatc("etdump.fbs", p + ".etdp", tmp, True)
        ticks = [t for t in execute_ticks(dump) if t is not None]
        tu = doc["units"]["tick_unit"]
        if iters:
            wall = float(np.mean(iters))
            tick_avg = float(np.mean(ticks))
            ev = tu["evidence"]
            expect(tu["check"] == "confirmed" and "units.confirmed" in c and "units.assumed" not in c
                   and close(ev["wall_ms_per_iteration"], wall) and close(ev["execute_ticks_per_execution"], tick_avg)
                   and close(ev["wall_over_execute"], wall / (tick_avg / 1e6)) and ev["iterations"] == len(iters),
                   "%s: ns confirmed by %d iterations (wall/execute = %.3f)" % (name, len(iters), wall / (tick_avg / 1e6)))
        else:
            expect(tu["check"] == "untested" and tu["evidence"] is None, "%s: no iteration times, unit untested" % name)
        # Cold start: the first execution against the rest.
        cs = doc["warmup"]["cold_start"]
        if len(ticks) >= 2:
            first, rest = ticks[0] / 1e6, np.array(ticks[1:], dtype=np.float64) / 1e6
            expect(close(cs["first"], first) and close(cs["rest_avg"], float(np.mean(rest)))
                   and close(cs["rest_p50"], float(np.percentile(rest, 50)))
                   and close(cs["first_over_rest_avg"], first / float(np.mean(rest)))
                   and cs["rest_executions"] == len(ticks) - 1,
                   "%s: cold start %.6f ms against %.6f ms" % (name, first, float(np.mean(rest))))
        else:
            expect(cs.get("availability") == "unavailable", "%s: one execution, no cold start" % name)
        if len(iters) >= 2:
            expect(close(cs["runner_log"]["first"], iters[0]) and close(cs["runner_log"]["rest_avg"], float(np.mean(iters[1:]))),
                   "%s: the runner's first iteration against the rest" % name)

    add = os.path.join(R, "et_add_x10")
    kws = os.path.join(R, "cm_et_arduino_kws_x10")

    # 2. Without a log the unit is only assumed (degraded).
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte")
    expect(rc == 0 and doc["validity"] == "degraded" and "units.assumed" in codes(doc),
           "without a log, ns ticks are assumed (degraded)")

    # 3. Tick hypotheses against the log's wall times.
    base = ["--etdump", add + ".etdp", "--pte", add + ".pte", "--log", add + ".log"]
    rc, doc, _ = analyze_json(*base, "--source-unit", "us")
    c = codes(doc)
    expect(rc == 0 and doc["validity"] == "invalid" and "units.contradicted" in c
           and "fits ticks in ns" in c["units.contradicted"]["message"] and "et_add_x10.log" in c["units.contradicted"]["message"],
           "--source-unit us on an ns run is contradicted, naming the log and the unit that fits")
    rc, doc, _ = analyze_json(*base, "--source-unit", "cycles", "--unit", "cycles")
    c = codes(doc)
    ticks = [t for t in execute_ticks(flatc("etdump.fbs", add + ".etdp", tmp, True)) if t is not None]
    mhz = float(np.mean(ticks)) / (float(np.mean(log_iterations(add + ".log"))) / 1e3) / 1e6
    expect(rc == 0 and doc["validity"] != "valid" and "units.unchecked" in c
           and ("%.4g MHz" % mhz) in c["units.unchecked"]["message"],
           "--source-unit cycles without --cpu-hz is not VALID; the implied clock (%.4g MHz) is named" % mhz)
    rc, doc, _ = analyze_json(*base, "--source-unit", "cycles", "--cpu-hz", "1e9")
    expect(rc == 0 and doc["validity"] == "valid" and doc["units"]["tick_unit"]["check"] == "confirmed",
           "cycles at 1 GHz (= ns) are confirmed")
    rc, doc, _ = analyze_json(*base, "--source-unit", "cycles", "--cpu-hz", "48e6")
    expect(rc == 0 and "units.contradicted" in codes(doc), "cycles at 48 MHz are contradicted")
    rc, doc, _ = analyze_json(*base, "--source-unit", "ns")
    expect(rc == 0 and doc["validity"] == "valid" and doc["units"]["tick_unit"]["check"] == "confirmed",
           "an explicit --source-unit ns is confirmed")

    # 3b. A runner before 1.3 prints only the total: it bounds the executions
    # from below (it may include work between them).
    text = open(add + ".log").read()
    old_log = os.path.join(tmp, "total_only.log")
    with open(old_log, "w") as f:
        f.write(re.sub(r"(?m)^.*Iteration \d+ of.*\n", "", text))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", old_log)
    ev = doc["units"]["tick_unit"]["evidence"] if doc else None
    total = float(re.search(r"successfully 10 time\(s\) in ([0-9.]+) ms", text).group(1))
    expect(rc == 0 and doc["validity"] == "valid" and doc["units"]["tick_unit"]["check"] == "confirmed"
           and close(ev["wall_ms_per_iteration"], total / 10) and ev["source"] == "runner log (total)",
           "a log with only the total (%.6f ms / 10) confirms ns" % total)
    slow = os.path.join(tmp, "slow_total.log")
    with open(slow, "w") as f:
        f.write(re.sub(r"(?m)^.*Iteration \d+ of.*\n", "", text).replace("in %s ms" % ("%.6f" % total), "in %.6f ms" % (total * 1000)))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", slow)
    expect(rc == 0 and doc["validity"] == "degraded" and "units.assumed" in codes(doc)
           and doc["units"]["tick_unit"]["check"] == "untested",
           "a total 1000x Method::execute fits ns and us alike: the unit stays assumed (degraded)")
    slow_it = os.path.join(tmp, "slow_iter.log")
    with open(slow_it, "w") as f:
        f.write(re.sub(r"Iteration (\d+) of 10: ([0-9.]+) ms", lambda m: "Iteration %s of 10: %.6f ms" % (m.group(1), float(m.group(2)) * 1000), text))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", slow_it)
    c = codes(doc)
    expect(rc == 0 and doc["validity"] == "invalid" and "units.contradicted" in c and "fits ticks in us" in c["units.contradicted"]["message"],
           "iterations 1000x Method::execute contradict the assumed ns and name us")

    # 4. A log from another run: wall time far shorter than Method::execute.
    rc, doc, _ = analyze_json("--etdump", kws + ".etdp", "--pte", kws + ".pte", "--log", add + ".log")
    c = codes(doc)
    expect(rc == 0 and doc["validity"] == "invalid" and "runner_log.wall_shorter_than_execute" in c
           and "runner_log.other_etdump" in c and "runner_log.not_this_model" in c,
           "another run's log: wall time shorter than execute (error), other ETDump, unrelated model name")

    # 5. A program that is not the one that ran: instruction 1 never ran.
    dt = os.path.join(R, "np_dtypes_x10")
    prog = flatc("program.fbs", dt + ".pte", tmp, False)
    n_instr = len(prog["execution_plan"][0]["chains"][0]["instructions"])
    dump = flatc("etdump.fbs", add + ".etdp", tmp, True)
    ran = {ev["profile_event"]["instruction_id"] for r in dump["run_data"] if r.get("name") == "Execute"
           for ev in r.get("events", []) or [] if ev.get("profile_event") and ev["profile_event"]["chain_index"] >= 0}
    never = n_instr - len(ran & set(range(n_instr)))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", dt + ".pte", "--log", add + ".log")
    c = codes(doc)
    expect(rc == 0 and doc["validity"] == "invalid" and "coverage.instructions_never_ran" in c
           and c["coverage.instructions_never_ran"]["message"].startswith("%d of the %d instructions" % (never, n_instr))
           and "runner_log.not_this_model" in c,
           "a wrong --pte: %d of %d instructions never ran (error), and the log's model is not it" % (never, n_instr))

    # 6. The runner ran another method than the one analysed.
    mf = os.path.join(R, "np_multi_forward_x10")
    rc, doc, _ = analyze_json("--etdump", mf + ".etdp", "--pte", mf + ".pte", "--log", mf + ".log", "--method", "forward")
    expect(rc == 0 and "runner_log.method_differs" in codes(doc) and doc["validity"] == "invalid",
           "--method forward against a log that ran 'double' is an error")

    # 7. Intermediate outputs inflate the timings.
    bp = os.path.join(R, "et_bundled_program_debug_intermediate")
    dump = flatc("etdump.fbs", bp + ".etdp", tmp, True)
    dbg = [ev["debug_event"] for r in dump["run_data"] if r.get("name") == "Execute"
           for ev in r.get("events", []) or [] if ev.get("debug_event")]
    inter = sum(1 for d in dbg if not ((d.get("debug_entry") or {}).get("output") or {}).get("bool_val"))
    rc, doc, _ = analyze_json("--etdump", bp + ".etdp", "--pte", bp + ".bpte")
    c = codes(doc)
    expect(rc == 0 and "etdump.intermediate_outputs" in c
           and (" %d intermediate output" % inter) in c["etdump.intermediate_outputs"]["message"],
           "a run that dumped %d intermediate outputs is warned about" % inter)

    # 8. Crafted logs.
    text = open(add + ".log").read()

    def crafted(name, body):
        path = os.path.join(tmp, name)
        with open(path, "w" if isinstance(body, str) else "wb") as f:
            f.write(body)
        return path

    other = crafted("renamed.log", text.replace("et_add.pte", "mobilenet.pte"))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", other)
    expect(rc == 0 and "runner_log.not_this_model" in codes(doc) and doc["validity"] == "degraded",
           "a log that loaded an unrelated model file: warning")
    fewer = crafted("fewer.log", re.sub(r"(?m)^.*Iteration (?:9|10) of 10.*\n", "", text).replace("10 time(s)", "8 time(s)"))
    rc, doc, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", fewer)
    expect(rc == 0 and "runner_log.count_differs" in codes(doc), "a log with 8 iterations for 10 executions")
    rng = random.Random(7)
    for label, body in [("README.md", open(os.path.join(FIX, "README.md")).read()), ("empty", ""),
                        ("random text", "".join(rng.choice("abcdefghij klm\n:]0123") for _ in range(20000))),
                        ("random bytes", bytes(rng.randrange(256) for _ in range(20000)))]:
        path = crafted("hostile.log", body)
        rc, out, err = run("analyze", "--etdump", add + ".etdp", "--pte", add + ".pte", "--log", path)
        expect(rc == 1 and err.count("\n") == 1 and "hostile.log" in err and not out,
               "--log %s: exit 1, one line naming the file (%s)" % (label, err.strip()[:90]))
    rc, out, err = run("analyze", "--etdump", add + ".etdp", "--pte", add + ".pte", "--log", crafted("e.log", ""))
    expect("not a runner log" in err, "an empty log is 'not a runner log'")

    # 9. --log - reads standard input: the same analysis as the file.
    rc1, d1, _ = analyze_json(*base)
    rc2, d2, _ = analyze_json("--etdump", add + ".etdp", "--pte", add + ".pte", "--log", "-", stdin=text.encode())
    f1 = next(f for f in d1["figures"] if f["name"] == "runner_iteration")
    f2 = next(f for f in d2["figures"] if f["name"] == "runner_iteration")
    expect(rc1 == rc2 == 0 and f1["avg"] == f2["avg"] and d1["validity"] == d2["validity"] == "valid",
           "--log - reads the log from standard input")

    # 10. -o - is refused.
    rc, out, err = run("analyze", "--etdump", add + ".etdp", "--pte", add + ".pte", "-o", "-")
    expect(rc == 2 and err.count("\n") == 1 and "-o" in err, "-o - is refused with one line (exit 2)")

    # 11. --skip-executions N: the first N executions leave every statistic.
    ticks = execute_ticks(flatc("etdump.fbs", add + ".etdp", tmp, True))
    rc, doc, _ = analyze_json(*base, "--skip-executions", "3")
    me = next(f for f in doc["figures"] if f["name"] == "method_execute")
    rest = np.array(ticks[3:], dtype=np.float64) / 1e6
    expect(rc == 0 and doc["executions"]["count"] == 7 and doc["warmup"]["skipped_executions"] == 3
           and doc["warmup"]["method_executions"] == 10 and close(me["avg"], float(np.mean(rest)))
           and close(me["max"], float(rest.max())) and close(doc["warmup"]["cold_start"]["first"], ticks[0] / 1e6),
           "--skip-executions 3: 7 executions, Method::execute over the last 7, cold start still from the first")
    rc, out, err = run("analyze", *base, "--skip-executions", "10")
    expect(rc == 2 and err.count("\n") == 1, "--skip-executions 10 of 10 is a usage error")
    rc, out, err = run("analyze", *base, "--skip-executions", "x")
    expect(rc == 2, "--skip-executions x is a usage error")
    outdir = os.path.join(tmp, "bundle")
    rc, out, err = run("analyze", *base, "--skip-executions", "2", "-o", outdir, "--quiet")
    meta = json.load(open(os.path.join(outdir, "run_metadata.json")))
    summ = json.load(open(os.path.join(outdir, "summary.json")))
    expect(rc == 0 and meta["options"]["skip_executions"] == 2 and summ["warmup"]["skipped_executions"] == 2
           and summ["headline"]["executions"]["value"] == 8,
           "the skip is recorded in run_metadata.json options and summary.json warmup")

    # 12. --rank-by orders the top lists by that statistic.
    for key in ("avg", "p50", "max"):
        out_k = os.path.join(tmp, "rank_" + key)
        rc, _, err = run("analyze", kws + ".etrecord", "--etdump", kws + ".etdp", "--pte", kws + ".pte",
                         "--rank-by", key, "-o", out_k, "--quiet")
        rc2, full, _ = analyze_json(kws + ".etrecord", "--etdump", kws + ".etdp", "--pte", kws + ".pte")
        ops = [e for e in full["entities"] if e["kind"] == "operator" and e["timing"]]
        want = [e["id"] for e in sorted(ops, key=lambda e: (-e["timing"][key], -e["timing"]["avg"], e["id"]))][:10]
        got = [t["id"] for t in json.load(open(os.path.join(out_k, "summary.json")))["headline"]["top_operators"]]
        expect(rc == 0 and got == want and json.load(open(os.path.join(out_k, "summary.json")))["warmup"]["rank_by"] == key,
               "--rank-by %s orders summary.json's top operators by %s" % (key, key))
    rc, _, err = run("analyze", *base, "--rank-by", "min")
    expect(rc == 2 and err.count("\n") == 1, "--rank-by min is a usage error")

    # 13. --fail-on: a distinct exit status (3) below the threshold, output still written.
    plain = ["--etdump", add + ".etdp", "--pte", add + ".pte"]           # degraded (assumed unit)
    rc, out, err = run("analyze", *plain, "--fail-on", "warning")
    expect(rc == 3 and "DEGRADED" in out and "--fail-on warning" in err, "degraded result, --fail-on warning: exit 3")
    rc, out, err = run("analyze", *plain, "--fail-on", "error")
    expect(rc == 0, "degraded result, --fail-on error: exit 0")
    rc, out, err = run("analyze", *base, "--fail-on", "warning")
    expect(rc == 0, "valid result, --fail-on warning: exit 0")
    rc, out, err = run("analyze", *base, "--source-unit", "us", "--fail-on", "error", "--json")
    expect(rc == 3 and json.loads(out)["validity"] == "invalid", "invalid result, --fail-on error: exit 3, JSON written")
    rc, out, err = run("analyze", *plain, "--fail-on", "info")
    expect(rc == 2, "--fail-on info is a usage error")
    rc, out, err = run("analyze", "--help")
    expect("--fail-on" in out and "3 the result is below" in out, "--help documents --fail-on and exit status 3")

sys.exit(1 if failures else 0)
