#!/usr/bin/python3
"""Device logs (specs/runner-logs.md): every format and version generated
here with its values computed here, the fixture Arm console log with its real
ETDump, hostile logs, and the Ethos-U split of delegate calls on an ETDump
built with flatc for the real Ethos-U program.

usage: device_logs.py ETPROF FIXTURES_DIR SCHEMA_DIR
"""
import base64
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import gen_device_logs as G  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist  # noqa: E402

ETPROF, FIX, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
R = os.path.join(FIX, "real-runs")
ARM_LOG = os.path.join(FIX, "device-logs", "arm_serial_kws_u85.log")
KWS = os.path.join(R, "cm_et_arduino_kws_x10")
ADD = os.path.join(R, "et_add_x10")
TMP = tempfile.mkdtemp(prefix="etprof-devlogs-")
CHECKS = Checklist(ETPROF, TMP)
expect, run, write = CHECKS.expect, CHECKS.run, CHECKS.write


def analyze_json(*logs, etdump=ADD + ".etdp", pte=ADD + ".pte", extra=()):
    args = ["analyze", "--json", "--pte", pte] + (["--etdump", etdump] if etdump else [])
    for lg in logs:
        args += ["--log", lg]
    rc, out, err = run(*(args + list(extra)))
    return rc, (json.loads(out) if rc == 0 else None), err


def figs(doc):
    return {f["name"]: f for f in doc["device"]["figures"]}


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(b))


def check_expected(doc, exp, what):
    f = figs(doc)
    ok = True
    for name, v in exp.items():
        if name not in f:
            ok = False
            print("     missing figure", name)
            continue
        if isinstance(v, tuple):
            total, n = v
            ok &= close(f[name]["total"], total) and f[name]["n"] == n and close(f[name]["avg"], total / n) \
                and f[name]["per_inference"]
        else:
            ok &= close(f[name]["avg"], v)
        if not ok:
            print("     ", name, f.get(name), v)
    ok &= all(x["unit"] and x["source"] and x["log"] for x in f.values())
    expect(ok, what)


# ---- the fixture console log: perf report, PMU counters, carried ETDump ----------
rc, out, err = run("extract", ARM_LOG, "-o", os.path.join(TMP, "x"))
with open(os.path.join(TMP, "x", "etdump.bin"), "rb") as a, open(KWS + ".etdp", "rb") as b:
    expect(rc == 0 and a.read() == b.read(), "extract: the fixture log's ETDump is real-runs/cm_et_arduino_kws_x10.etdp")
# Parse the log here, independently of etprof.
text = open(ARM_LOG, "rb").read().decode()
vals = {}
for line in text.replace("\r", "").split("\n"):
    msg = line.split("] ", 1)[-1]
    if ":" in msg:
        k, v = msg.split(":", 1)
        vals[k.strip()] = v.strip()
cycles = int(vals["Inference runtime"].split()[0])
ninf = int(vals["NPU Inferences"])
rc, doc, err = analyze_json(ARM_LOG, etdump=None, pte=KWS + ".pte")
expect(rc == 0, "analyze --log CONSOLE --pte P without --etdump uses the log's ETDump (%s)" % err.strip())
if doc:
    f = figs(doc)
    expect(doc["units"]["source"] == "cycles" and doc["units"]["target"] == "cycles",
           "an Arm runner's dump is read in CPU cycles (no --source-unit given)")
    expect(doc["device"]["etdump_tick_unit_evidence"]["unit"] == "cycles" and
           any(i["code"] == "device_log.tick_unit_cycles" for i in doc["issues"]),
           "the tick-unit evidence is recorded (figure and info issue)")
    me = next(x for x in doc["figures"] if x["name"] == "method_execute")
    expect(close(me["avg"] * 10, cycles) and f["arm.inference_cycles"]["total"] == cycles and f["arm.inference_cycles"]["n"] == ninf,
           "perf report total (%d CPU cycles) = the ETDump's Method::execute sum; no cycles_differ" % cycles)
    expect(not any(i["code"] == "device_log.cycles_differ" for i in doc["issues"]), "no device_log.cycles_differ")
    names = vals["Ethos-U PMU Events"].strip("[]").split(", ")
    ok = all(f["arm.pmu." + n]["total"] == int(vals["ethosu_pmu_cntr%d" % i].split()[0]) for i, n in enumerate(names))
    expect(ok and len(names) == 7, "PMU counters named by the Ethos-U85 event list")
    m = doc["memory"]
    expect(m["method_allocator"]["used"] == 1406800 and m["method_allocator"]["size"] == 62914560
           and m["program"]["size"] == os.path.getsize(KWS + ".pte") and m["planned_arena"]["source"] == "program"
           and m["peak_rss"]["value"] is None, "memory: allocator used/size, program size, no RSS")
    expect(abs(f["arm.npu_ratio"]["avg"] - float(vals["Inference NPU ratio"].split()[0])) < 1e-9, "NPU ratio")
    # The log sets up a 95,232-byte planned buffer; the program plans 16,000 (its portable run's log agrees
    # with the program): the contradiction is reported once.
    pd = [i for i in doc["issues"] if i["code"] == "memory.planned_differs"]
    expect(len(pd) == 1 and "95232" in pd[0]["message"] and "16000" in pd[0]["message"] and doc["validity"] == "degraded",
           "the console's planned buffer against the program's plan: one memory.planned_differs")
rc, doc, err = analyze_json(ARM_LOG, etdump=KWS + ".etdp", pte=KWS + ".pte")
expect(rc == 0, "--etdump equal to the carried dump is accepted")
rc, doc, err = analyze_json(ARM_LOG, etdump=ADD + ".etdp", pte=KWS + ".pte")
expect(rc == 1 and "differs from --etdump" in err, "--etdump other than the carried dump is an error: " + err.strip())
rc, doc, err = analyze_json(ARM_LOG, etdump=None, pte=KWS + ".pte", extra=["--cpu-hz", "100e6"])
if doc:
    f = figs(doc)
    expect(doc["units"]["target"] == "ms" and close(f["arm.inference_time"]["avg"], cycles / ninf / 100e6 * 1e3),
           "--cpu-hz converts cycles to ms (ETDump and perf report)")
else:
    expect(False, "--cpu-hz with a carried dump: " + err)

# ---- generated logs of every format and version ------------------------------------
rng = random.Random(7)
etd = open(ADD + ".etdp", "rb").read()
for version in [(1, 0), (1, 2), (1, 3), (1, 4), (1, 5)]:
    for form in ("new", "old"):
        iters = [round(rng.uniform(0.01, 0.2), 6) for _ in range(10)]
        dev = [(4096, 1)] if version >= (1, 4) else []
        p = write("portable_%d%d_%s.log" % (version + (form,)), G.portable(version, iters, [48], dev, form, rng))
        rc, doc, err = analyze_json(p)
        ok = rc == 0
        if ok:
            it = next(x for x in doc["figures"] if x["name"] == "runner_iteration")
            pm = next(x for x in doc["figures"] if x["name"] == "runner_planned_memory")
            ok = pm["avg"] == 48 and doc["memory"]["planned_arena"]["total"] == 48
            if version >= (1, 3):
                ok &= it["events"] == 10 and close(it["avg"], sum(iters) / 10)
            if dev:
                ok &= doc["memory"]["planned_arena"]["device_total"] == 4096
            ok &= not any(i["code"] == "memory.planned_differs" for i in doc["issues"])
        expect(ok, "portable runner %d.%d (%s prefix): iterations, planned buffers%s" %
               (version + (form, " + device buffer" if dev else "")))
for toybox in (False, True):
    for wall in (0.45, 62.5, 3723.25):
        txt, exp = G.gnu_time(rng.uniform(0, 3), rng.uniform(0, 1), wall, rng.randint(1000, 900000), toybox=toybox)
        p = write("time.log", txt)
        rc, doc, err = analyze_json(p)
        if rc:
            expect(False, "time -v: " + err)
            continue
        check_expected(doc, exp, "%s time -v, wall %s: user/sys/wall/peak RSS" % ("toybox" if toybox else "GNU", wall))
        expect(doc["memory"]["peak_rss"]["value"] == exp["gnu_time.peak_rss"] and
               doc["memory"]["peak_rss"]["source"] == "GNU time -v", "  peak RSS in the memory summary")
txt, exp = G.gnu_time(0.1, 0.1, 1, 2000, exit_status=1)
rc, doc, err = analyze_json(write("time_fail.log", txt))
expect(rc == 0 and any(i["code"] == "device_log.exit_status" for i in doc["issues"]), "time -v exit status 1 is an issue")
for version, npu in (("1.0", "U85_10"), ("1.1+", "U85"), ("1.1+", "U55")):
    for prefix in (True, False):
        pmu = [rng.randint(0, 10 ** 9) for _ in range(7)]
        txt, exp = G.arm_runner(version, 10, rng.randint(10 ** 6, 10 ** 9), 0.3, pmu, npu, prefix)
        rc, doc, err = analyze_json(write("arm.log", txt), etdump=KWS + ".etdp", pte=KWS + ".pte")
        if rc:
            expect(False, "Arm runner %s %s: %s" % (version, npu, err))
            continue
        check_expected(doc, exp, "Arm runner %s, Ethos-%s, %s: cycles, ratios, PMU counters" %
                       (version, npu, "prefixed" if prefix else "bare messages"))
        expect(doc["memory"]["method_allocator"]["planned"] == 16000 and
               not any(i["code"] == "memory.planned_differs" for i in doc["issues"])
               if prefix else True, "  allocator statistics; planned buffer agrees with the program")
txt, exp = G.arm_runner("1.1+", 10, 10 ** 6, 0.3, [1] * 7, ratios=False)
rc, doc, err = analyze_json(write("arm_noratio.log", txt), etdump=KWS + ".etdp", pte=KWS + ".pte")
expect(rc == 0 and "arm.npu_ratio" not in figs(doc), "'?.??' ratios are left out, not read as 0")
# 1.0 printed cycles with %d: a count past 2^31 reads back as the unsigned value.
txt = "I [executorch:arm_perf_monitor.cpp:185 StopMeasurements()] NPU Inferences : 2\n" \
      "I [executorch:arm_perf_monitor.cpp:185 StopMeasurements()] ethos-u : cycle_cnt : %d cycles (1.0 per inference)\n" % (3000000000 - 2 ** 32)
rc, doc, err = analyze_json(write("arm10wrap.log", txt))
expect(rc == 0 and figs(doc)["arm.ethosu_operator_cycles"]["total"] == 3000000000, "1.0's %d-printed cycle count unwrapped")
rv = [round(rng.uniform(5, 20), 3) for _ in range(10)]
rc, doc, err = analyze_json(write("rtt.log", G.rtt(rv) + "junk line\n" + G.rtt([], "")))
f = figs(doc) if doc else {}
srt = sorted(rv)
expect(rc == 0 and f["rtt.inference"]["n"] == 10 and close(f["rtt.inference"]["avg"], sum(rv) / 10) and
       close(f["rtt.inference"]["p50"], (srt[4] + srt[5]) / 2) and f["rtt.inference"]["min"] == srt[0] and
       f["rtt.inference"]["max"] == srt[-1], "RTT Inference lines: count, avg, p50, min, max")
vv = [round(rng.uniform(1e5, 1e7), 3) for _ in range(5)]
rc, doc, err = analyze_json(write("vgf.log", G.vgf(vv)))
expect(rc == 0 and close(figs(doc)["vgf.device_time"]["avg"], sum(vv) / 5 / 1e6), "VGF device time (ms)")
# Several logs at once: runner output, a separate time -v file, a console capture.
tv, texp = G.gnu_time(0.5, 0.1, 1.0, 43600)
rc, doc, err = analyze_json(write("a_runner.log", G.portable((1, 5), [0.1] * 10, [48])), write("a_time.log", tv),
                            write("a_rtt.log", G.rtt([1.0] * 10)))
expect(rc == 0 and "gnu_time.peak_rss" in figs(doc) and "rtt.inference" in figs(doc) and
       doc["method"]["basis"] == "reported by the runner log", "three --log files at once")
rc, doc, err = analyze_json(write("hwm.log", "Name:\texecutor_runner\nVmPeak:\t  99999 kB\nVmHWM:\t   43600 kB\n"))
expect(rc == 0 and doc["memory"]["peak_rss"]["value"] == 43600 and doc["memory"]["peak_rss"]["source"] == "/proc status VmHWM",
       "a /proc/<pid>/status dump's VmHWM is a device-side peak RSS")
rc, doc, err = analyze_json(write("b1.log", tv), write("b2.log", G.gnu_time(0.5, 0.1, 1.0, 50000)[0]))
expect(rc == 0 and any(i["code"] == "device_log.contradiction" for i in doc["issues"]), "two logs with different peak RSS: an issue")

# ---- carried ETDumps: bare body, truncation, bad base64, two dumps ----------------------
b64 = base64.b64encode(etd).decode()
bare = "00> writing etdump.bin\n" + "".join("00> " + b64[i:i + 76] + "\n" for i in range(0, len(b64), 76)) + "00> end of etdump.bin\n"
bare = "writing etdump.bin\n" + "".join(b64[i:i + 76] + "\n" for i in range(0, len(b64), 76)) + "end of etdump.bin\n"
rc, out, err = run("extract", write("bare.log", bare), "-o", os.path.join(TMP, "bare"))
expect(rc == 0 and open(os.path.join(TMP, "bare", "etdump.bin"), "rb").read() == etd, "a bare base64 body between lines naming etdump.bin")
block = G.arm_runner("1.1+", 10, 10 ** 6, 0.3, [1] * 7, carried=etd)[0]
rc, out, err = run("extract", write("blk.log", block), "-o", os.path.join(TMP, "blk"))
expect(rc == 0 and open(os.path.join(TMP, "blk", "etdump.bin"), "rb").read() == etd, "generated #[RUN THIS] block")
echo = 'echo "%s" | base64 -d >etdump.bin' % b64
dbg = 'echo "%s" | base64 -d >debug_buffer.bin' % base64.b64encode(b"\x01\x02\x03").decode()
cases = [
    ("cut_end", "[base64] buffer size: %d\n#[RUN THIS]\n%s\n" % (len(b64), echo), "no #[END]"),
    ("cut_quote", "#[RUN THIS]\necho \"%s\n#[END]\n" % b64[:1000], "closing quote"),
    ("short", "[base64] buffer size: %d\n#[RUN THIS]\necho \"%s\" | base64 -d >etdump.bin\n#[END]\n" % (len(b64), b64[:-4]), "announced"),
    ("badchar", "#[RUN THIS]\necho \"%s\" | base64 -d >etdump.bin\n#[END]\n" % (b64[:100] + "*" + b64[101:]), "bad character"),
    ("notmul4", "#[RUN THIS]\necho \"%s\" | base64 -d >etdump.bin\n#[END]\n" % b64[:-1], "multiple of 4"),
    ("noncanon", "#[RUN THIS]\necho \"QR==\" | base64 -d >etdump.bin\n#[END]\n", "bad character"),
    ("two", "#[RUN THIS]\n%s\n#[END]\n#[RUN THIS]\necho \"%s\" | base64 -d >etdump.bin\n#[END]\n" % (echo, base64.b64encode(etd[:-8]).decode()), "second, different"),
    ("bare_cut", "etdump.bin follows\n" + b64[:76] + "\n" + b64[76:152] + "\n", "cut short"),
    ("announced_only", "[base64] buffer size: 100\n", "never follows"),
    ("empty", "", "empty log"),
    ("nul", "Inference: 1.0 ms\n\0\n", "NUL byte"),
]
for name, body, msg in cases:
    p = write("bad_" + name + ".log", body)
    rc, out, err = run("extract", p, "-o", os.path.join(TMP, "bad"))
    rc2, _, err2 = run("analyze", "--pte", ADD + ".pte", "--log", p)
    expect(rc == 1 and rc2 == 1 and msg in err and err.count("\n") == 1 and p in err,
           "hostile %s: one-line error naming the file (%s)" % (name, err.strip()[:110]))
# The same dump twice is fine; a debug buffer comes out beside it.
rc, out, err = run("extract", write("twice.log", "#[RUN THIS]\n%s\n%s\n#[END]\n#[RUN THIS]\n%s\n#[END]\n" % (dbg, echo, echo)),
                   "-o", os.path.join(TMP, "twice"))
expect(rc == 0 and open(os.path.join(TMP, "twice", "debug_buffer.bin"), "rb").read() == b"\x01\x02\x03",
       "the same dump twice is one dump; the debug buffer is extracted too")
# CRLF, interleaved streams, a huge line, other noise.
noisy = G.portable((1, 5), [0.1] * 10, [48]).replace("\n", "\r\n")
lines = noisy.split("\r\n")
inter = "\r\n".join(lines[:5] + ["#[RUN THIS]", echo, lines[5], "#[END]"] + lines[6:])
rc, doc, err = analyze_json(write("inter.log", inter), etdump=None)
expect(rc == 0 and next(x for x in doc["figures"] if x["name"] == "runner_iteration")["events"] == 10,
       "CRLF and a runner line interleaved in the #[RUN THIS] block: parsed")
rc, doc, err = analyze_json(write("huge_rtt.log", G.rtt([1.0] * 3) + "x" * (3 << 20) + "\n" + G.rtt([2.0])))
expect(rc == 0 and figs(doc)["rtt.inference"]["n"] == 4, "a 3 MiB noise line in a console capture is skipped")
rc, doc, err = analyze_json(write("huge_runner.log", inter + "x" * (3 << 20) + "\n"), etdump=None)
expect(rc == 1 and "line 21" in err and err.count("\n") == 1, "a 3 MiB line in a runner log: one-line error naming it")
rc, out, err = run("extract", write("none.log", "hello\n"), "-o", os.path.join(TMP, "none"))
expect(rc == 1 and "carries no base64" in err, "extract of a log without a dump: exit 1")

# ---- Ethos-U events in the ETDump: NPU vs input copy vs the rest ---------------------------
EU = os.path.join(FIX, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
# operators.csv's columns before the Ethos-U ones (docs/result-bundle.md): their positions stay.
OPS_CSV_HEAD = ("entity_id,kind,name,op_type,backend,chain,instruction,instruction_kind,debug_handles,timing_source,"
                "executions,events,avg_cycles,p10_cycles,p50_cycles,p90_cycles,min_cycles,max_cycles,additive,shared,"
                "co_attributed,unresolved_debug_handles,kernel_avg_cycles,dispatch_avg_cycles,module_path").split(",")


def pe(c, i, s, e, name):
    return {"profile_event": {"chain_index": c, "instruction_id": i, "start_time": s, "end_time": e, "name": name}}


for old in (False, True):
    runs = [{"name": "Default", "events": [pe(-1, 0, 0, 500, "Program::load_method")]}]
    npus, copies, outs, rests, outside = [], [], [], [], []
    for k in range(4):
        t = 100000 * (k + 1)
        q, npu, cp, oc, gap = 300 + 10 * k, 2000 + 100 * k, 150 + 5 * k, 40 if old else 0, 25
        ex0 = t + q + 30
        ev = [pe(0, 0, t, t + q, "OPERATOR_CALL"), pe(0, 0, t + 5, t + q - 5, "native_call_quantize_per_tensor.out"),
              pe(0, 1, ex0 + 5, ex0 + 5 + cp, "+EthosUBackend::execute()handles.input.memcpy()"),
              pe(0, 1, ex0 + 10 + cp, ex0 + 10 + cp + npu, "+EthosUBackend::execute()NPU")]
        if old:
            ev.append(pe(0, 1, ex0 + 12 + cp + npu, ex0 + 12 + cp + npu + oc, "+EthosUBackend::execute()handles.output.memcpy()"))
            ev.append(pe(-1, 0, 0, 1, "+EthosUBackend::execute()processed_data"))
        length = 10 + cp + npu + gap + oc
        ev += [pe(0, 1, ex0, ex0 + length, "EthosUBackend::execute()"), pe(0, 1, ex0 - 20, ex0 + length + 15, "DELEGATE_CALL")]
        end = ex0 + length + 400
        ev.append(pe(-1, 0, t - 50, end, "Method::execute"))
        runs.append({"name": "Execute", "events": ev})
        npus.append(npu)
        copies.append(cp)
        outs.append(oc)
        rests.append(length - npu - cp - oc)
        outside.append((end - (t - 50)) - length)
    base = os.path.join(TMP, "eu%d" % old)
    with open(base + ".json", "w") as f:
        json.dump({"version": 0, "run_data": runs}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", TMP, os.path.join(SCHEMA, "etdump.fbs"), base + ".json"], check=True)
    rc, doc, err = analyze_json(etdump=base + ".etdp", pte=EU, extra=["--source-unit", "cycles", "--unit", "cycles"])
    n = doc["npu"] if doc else None
    ok = rc == 0 and n and n["calls"] == 4 and n["executions"] == 4 and close(n["npu_avg"], sum(npus) / 4) and \
        close(n["input_copy_avg"], sum(copies) / 4) and close(n["rest_avg"], sum(rests) / 4) and \
        close(n["cpu_outside_delegate_avg"], sum(outside) / 4)
    if old:
        ok = ok and close(n["output_copy_avg"], sum(outs) / 4)
    ok = ok and len(n["by_instruction"]) == 1 and n["by_instruction"][0]["instruction"] == "forward_0_1" and \
        close(n["by_instruction"][0]["npu_avg"], sum(npus) / 4)
    expect(ok, "Ethos-U %s names: NPU %g, input copy %g, rest %g per execution" %
           ("1.0" if old else "current", sum(npus) / 4, sum(copies) / 4, sum(rests) / 4))
    # The operators table: npu_* members of the DelegateCall instruction only.
    if doc:
        ents = {e["id"]: e for e in doc["entities"]}
        call = ents.get("forward_0_1", {})
        execs = [n + c + o + r for n, c, o, r in zip(npus, copies, outs, rests)]
        ok = close(call.get("npu_execute_avg", -1), sum(execs) / 4) and close(call.get("npu_avg", -1), sum(npus) / 4) \
            and close(call.get("npu_input_copy_avg", -1), sum(copies) / 4) and close(call.get("npu_rest_avg", -1), sum(rests) / 4)
        ok = ok and (close(call.get("npu_output_copy_avg", -1), sum(outs) / 4) if old else "npu_output_copy_avg" not in call)
        ok = ok and not any(k.startswith("npu_") for i, e in ents.items() if i != "forward_0_1" for k in e)
        expect(ok, "  operators: forward_0_1's npu_execute/npu/input_copy/%srest averages, no npu_* elsewhere" %
               ("output_copy/" if old else ""))
    bdir = os.path.join(TMP, "eu_ops%d" % old)
    rc, _, err = run("analyze", "--etdump", base + ".etdp", "--pte", EU, "--source-unit", "cycles", "--unit", "cycles",
                     "-o", bdir, "--quiet", "--model-explorer", "none")
    rows = open(os.path.join(bdir, "operators.csv"), newline="").read().split("\r\n") if rc == 0 else [""]
    head = rows[0].split(",")
    npu_cols = ["npu_execute_avg_cycles", "npu_avg_cycles", "npu_input_copy_avg_cycles",
                "npu_output_copy_avg_cycles", "npu_rest_avg_cycles"]
    cells = {r.split(",")[0]: r.split(",") for r in rows[1:] if r}
    row = dict(zip(head, cells.get("forward_0_1", [])))
    ok = rc == 0 and head[:25] == OPS_CSV_HEAD and head[25:30] == npu_cols and close(float(row["npu_avg_cycles"]), sum(npus) / 4) \
        and close(float(row["npu_rest_avg_cycles"]), sum(rests) / 4) and (row["npu_output_copy_avg_cycles"] != "") == old \
        and all(dict(zip(head, c))["npu_execute_avg_cycles"] == "" for i, c in cells.items() if i != "forward_0_1")
    expect(ok, "  operators.csv: the npu_* columns appended after the 25 existing ones, filled for forward_0_1 only")
    rc, out, err = run("analyze", "--etdump", base + ".etdp", "--pte", EU, "--source-unit", "cycles", "--unit", "cycles")
    expect(rc == 0 and "Ethos-U delegate calls" in out and "the largest cost is the NPU" in out and
           "-> NPU %.0f%%" % (100.0 * sum(npus) / (sum(npus) + sum(copies) + sum(outs) + sum(rests))) in out,
           "  the terminal summary and its operators table answer NPU vs CPU")

# ---- the new members against their schemas, in a published bundle -------------------------
try:
    import jsonschema
except ImportError:
    jsonschema = None
SCH = os.path.join(os.path.dirname(SCHEMA), "json")
out_dir = os.path.join(TMP, "bundle")
tv = write("bundle_time.log", G.gnu_time(0.5, 0.1, 1.0, 43600)[0])
rc, out, err = run("analyze", "--etdump", os.path.join(TMP, "eu1.etdp"), "--pte", EU, "--source-unit", "cycles",
                   "--unit", "cycles", "--log", tv, "--log", write("bundle_runner.log", G.portable((1, 5), [0.1] * 4, [752640])),
                   "-o", out_dir, "--detailed")
expect(rc == 0 and "Memory: 752,640 B planned arena" in out and "peak RSS 44.6 MB (43,600 KiB, GNU time -v)" in out,
       "publish with logs: the Memory: line (%s)" % err.strip()[:200])
rc2, _, _ = run("verify", out_dir)
expect(rc2 == 0, "the bundle with device logs verifies")
man = json.load(open(os.path.join(out_dir, "result_manifest.json")))
roles = [i["role"] for i in man["provenance"]["inputs"]]
expect(roles.count("device_log") == 1 and roles.count("log") == 1, "both logs recorded as inputs: %s" % roles)
defs = [json.load(open(os.path.join(SCH, n + ".schema.json")))["$defs"] for n in ("summary.v1", "analysis.v1", "memory.v1")]
expect(all(defs[0][k] == defs[1][k] for k in ("memory", "npu", "device")) and defs[0]["memory"] == defs[2]["memory"],
       "the memory, npu and device definitions are the same in summary.v1, analysis.v1 and memory.v1")
if jsonschema:
    for art, sch in (("summary.json", "summary.v1"), ("detailed/memory.json", "memory.v1")):
        doc = json.load(open(os.path.join(out_dir, art)))
        errs = list(jsonschema.Draft202012Validator(json.load(open(os.path.join(SCH, sch + ".schema.json")))).iter_errors(doc))
        expect(not errs and doc.get("memory") and (art != "summary.json" or (doc["npu"] and doc["device"]["figures"])),
               "%s (memory, npu, device) validates against %s %s" % (art, sch, [e.message[:80] for e in errs[:2]]))
    jdir = os.path.join(TMP, "eu_json")
    rc, _, err = run("analyze", "--etdump", os.path.join(TMP, "eu1.etdp"), "--pte", EU, "--source-unit", "cycles",
                     "--unit", "cycles", "-o", jdir, "--format", "json", "--quiet", "--model-explorer", "none")
    doc = json.load(open(os.path.join(jdir, "operators.json"))) if rc == 0 else {}
    errs = list(jsonschema.Draft202012Validator(json.load(open(os.path.join(SCH, "operators.v1.schema.json")))).iter_errors(doc))
    expect(rc == 0 and not errs and any("npu_avg" in e for e in doc["entities"]),
           "operators.json with npu_* members validates against operators.v1 %s" % [e.message[:80] for e in errs[:2]])
    rc, doc, err = analyze_json(tv, etdump=os.path.join(TMP, "eu1.etdp"), pte=EU, extra=["--source-unit", "cycles", "--unit", "cycles"])
    errs = list(jsonschema.Draft202012Validator(json.load(open(os.path.join(SCH, "analysis.v1.schema.json")))).iter_errors(doc))
    expect(not errs, "analyze --json with device members validates against analysis.v1")

CHECKS.finish()
