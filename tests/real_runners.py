#!/usr/bin/python3
"""`etprof run` and `analyze --log` with ExecuTorch's own runners from
../shared/tools/executorch/ (executor_runner with logging, the same runner
built with logging compiled out, devtools' example_runner) on the real
programs of ../shared/fixtures/real-runs.

Each published bundle must verify (`etprof verify`), name no temporary path,
call the capture logs/runner.log, record the run command as typed, and its
Method::execute figures must equal a recomputation from flatc's decode of
the ETDump the runner wrote. Failures (a runner that aborts, a timeout) exit
1 with the runner's last lines and publish nothing.

usage: real_runners.py ETPROF SHARED_DIR SCHEMA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ETPROF, SHARED, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
TOOLS = os.path.join(SHARED, "tools", "executorch")
FIX = os.path.join(SHARED, "fixtures", "real-runs")
if not os.path.isdir(TOOLS) or not os.path.isdir(FIX):
    print("SKIP: ../shared/tools/executorch or ../shared/fixtures is absent")
    sys.exit(77)
EXECUTOR = os.path.join(TOOLS, "executor_runner")
NOLOG = os.path.join(TOOLS, "executor_runner.release-nolog")
EXAMPLE = os.path.join(TOOLS, "example_runner")
TMP = tempfile.mkdtemp(prefix="etprof-real-runners-")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def etprof(args, cwd=TMP):
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def fix(name):
    return os.path.join(FIX, name)


def method_execute_ms(etdump):
    """avg/min/max of Method::execute per Execute block, in ms, from flatc."""
    out = tempfile.mkdtemp(dir=TMP)
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary", "--size-prefixed",
                    "-o", out, os.path.join(SCHEMA, "etdump.fbs"), "--", etdump], check=True)
    name = os.path.splitext(os.path.basename(etdump))[0] + ".json"
    with open(os.path.join(out, name)) as f:
        dump = json.load(f)
    vals = []
    for run in dump["run_data"]:
        for ev in run.get("events", []):
            p = ev.get("profile_event")
            if p and p.get("name") == "Method::execute":
                vals.append((p["end_time"] - p["start_time"]) / 1e6)
    return vals


def metric(summary, name):
    for m in summary["metrics"]:
        if m["name"] == name:
            return m["value"]
    return None


def close(a, b):
    return a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))


def check_bundle(label, d, etdump, method_runs=None):
    """What every bundle of `run` must satisfy."""
    rc, out, err = etprof(["verify", d])
    expect(rc == 0, "%s: the bundle verifies (%s)" % (label, (out + err).strip()[-200:]))
    leaked = []
    for root, _, files in os.walk(os.path.join(TMP, d)):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                if b"/etprof-run-" in fh.read():
                    leaked.append(f)
    expect(not leaked, "%s: no temporary path recorded (%s)" % (label, leaked))
    with open(os.path.join(TMP, d, "summary.json")) as f:
        s = json.load(f)
    with open(os.path.join(TMP, d, "run_metadata.json")) as f:
        meta = json.load(f)
    logs = [i for i in meta["inputs"] if i["role"] == "log"]
    expect(len(logs) == 1 and logs[0]["path"] == "logs/runner.log",
           "%s: the runner log is recorded as logs/runner.log (%s)" % (label, [i.get("path") for i in logs]))
    expect(os.path.isfile(os.path.join(TMP, d, "logs", "runner.log")), "%s: logs/runner.log is in the bundle" % label)
    expect(meta["command_line"].startswith("etprof run "), "%s: the run command is recorded (%s)"
           % (label, meta["command_line"][:60]))
    vals = method_execute_ms(os.path.join(TMP, etdump))
    if method_runs is not None:
        expect(len(vals) == method_runs, "%s: %d Method::execute events in the ETDump (%d)"
               % (label, method_runs, len(vals)))
    if vals:
        avg = sum(vals) / len(vals)
        expect(close(metric(s, "method_execute.avg"), avg) and close(metric(s, "method_execute.min"), min(vals))
               and close(metric(s, "method_execute.max"), max(vals)),
               "%s: Method::execute avg/min/max = flatc recomputation (%r vs %r)"
               % (label, metric(s, "method_execute.avg"), avg))
    return s, meta


def codes(s):
    return {i["code"] for i in s["issues"]}


def figures(s):
    return {f["name"]: f for f in s["device"]["figures"]}


# 1. Portable and XNNPACK programs through executor_runner with logging.
for name, n in (("et_add_x10", 10), ("xnn_np_add_x10", 10), ("np_dtypes_x10", 4)):
    d = "b_" + name
    rc, out, err = etprof(["run", "-o", d, "--", EXECUTOR, "--model_path", fix(name + ".pte"),
                           "--etdump_path", name + ".etdp", "--num_executions", str(n)])
    expect(rc == 0, "%s: executor_runner run publishes (rc %d, %s)" % (name, rc, err.strip()[-200:]))
    if rc == 0:
        s, meta = check_bundle(name, d, name + ".etdp", n)
        expect(meta["runner"]["kind"] == "executor_runner" and meta["runner"]["num_executions"] == str(n),
               "%s: runner recorded as executor_runner, %d executions" % (name, n))
        expect("units.confirmed" in codes(s), "%s: the runner's iteration times confirm the ns ticks" % name)
        expect("Reported by the runner (runner.log)" in out, "%s: the terminal names the capture" % name)

# 2. A multi-method program with --method_name (passed on as --method), and
#    a program of constant methods run on a non-forward method.
for name, method in (("np_multi_forward_x10", "forward"), ("np_const_methods_get_tensor_x3", "get_tensor")):
    d = "m_" + name
    rc, out, err = etprof(["run", "-o", d, "--", EXECUTOR, "--model_path", fix(name + ".pte"),
                           "--method_name", method, "--etdump_path", name + ".etdp", "--num_executions", "3"])
    expect(rc == 0, "%s: --method_name %s publishes (%s)" % (name, method, err.strip()[-200:]))
    if rc == 0:
        s, meta = check_bundle(name, d, name + ".etdp")
        expect(s["method"]["name"] == method, "%s: the analysis is of method %s (%s)" % (name, method, s["method"]))
        expect(meta["runner"]["method_name"] == method, "%s: method_name recorded" % name)

# 3. A bundled program through executor_runner: its BundleIO check is read.
BPTE = fix("et_bundled_program_debug_intermediate.bpte")
rc, out, err = etprof(["run", "-o", "bp_exec", "--", EXECUTOR, "--model_path", BPTE, "--etdump_path", "bp.etdp"])
expect(rc == 0, "bundled program through executor_runner publishes (%s)" % err.strip()[-200:])
if rc == 0:
    s, meta = check_bundle("bpte/executor_runner", "bp_exec", "bp.etdp", 1)
    log = [i for i in meta["inputs"] if i["role"] == "log"][0]["describes"]
    expect(log.get("bundled_program_check", {}).get("test_cases_passed") == 1,
           "bpte/executor_runner: the BundleIO test case is counted as passed (%s)" % log.get("bundled_program_check"))
    expect("bundled program check" in out and "1 passed" in out, "bpte/executor_runner: the terminal shows the check")

# 4. example_runner: bundled program, test case, outputs dumped into the
#    ETDump and the debug buffer, no --pte.
rc, out, err = etprof(["run", "-o", "bp_example", "--", EXAMPLE, "--bundled_program_path", BPTE,
                       "--etdump_path", "ex.etdp", "--dump_outputs", "--debug_output_path", "ex.debug.bin",
                       "--testset_idx", "0", "--output_verification"])
expect(rc == 0, "example_runner with --dump_outputs publishes without --pte (%s)" % err.strip()[-300:])
if rc == 0:
    s, meta = check_bundle("example_runner", "bp_example", "ex.etdp", 1)
    r = meta["runner"]
    expect(r["kind"] == "example_runner" and r["program_file_from"] == "--bundled_program_path"
           and r["testset_idx"] == "0" and r["debug_output"] == "ex.debug.bin",
           "example_runner: kind, program flag, test case and debug output recorded (%s)" % r)
    dbg = [i for i in meta["inputs"] if i["role"] == "debug_buffer"]
    expect(len(dbg) == 1 and dbg[0]["describes"]["tensors_checked"] >= 1,
           "example_runner: the debug buffer is an input and its output tensor is checked (%s)"
           % (dbg and dbg[0]["describes"]))
    pte = [i for i in meta["inputs"] if i["role"] == "pte"]
    expect(len(pte) == 1 and pte[0]["describes"]["bundled_program"] is True,
           "example_runner: the bundled program is the program input")
    log = [i for i in meta["inputs"] if i["role"] == "log"][0]["describes"]
    expect(log.get("bundled_program_check", {}).get("verified") is True,
           "example_runner: --output_verification's success is recorded")

# 4b. example_runner with its defaults (model_bundled.bpte, etdump.etdp) in
#     the working directory.
work = os.path.join(TMP, "defaults")
os.mkdir(work)
shutil.copy(BPTE, os.path.join(work, "model_bundled.bpte"))
rc, out, err = etprof(["run", "-o", "bundle", "--", EXAMPLE], cwd=work)
expect(rc == 0 and os.path.isfile(os.path.join(work, "etdump.etdp")),
       "example_runner with no flags: its default program and ETDump are used (%s)" % err.strip()[-200:])
if rc == 0:
    with open(os.path.join(work, "bundle", "run_metadata.json")) as f:
        r = json.load(f)["runner"]
    expect(r["program_file_from"] == "default" and r["etdump_from"] == "the runner's default --etdump_path",
           "example_runner defaults recorded as defaults (%s)" % r)
rc, out, err = etprof(["run", "-o", "nothing", "--", EXAMPLE], cwd=os.path.join(TMP))
expect(rc == 2 and "model_bundled.bpte" in err and "--bundled_program_path" in err,
       "example_runner without its default program here: usage error naming the flag (%d, %s)" % (rc, err.strip()))

# 5. The runner built without logging: only its outputs are printed.
rc, out, err = etprof(["run", "-o", "nolog", "--", NOLOG, "--model_path", fix("xnn_np_add_x10.pte"),
                       "--etdump_path", "nolog.etdp", "--num_executions", "20"])
expect(rc == 0, "no-log runner: run publishes (rc %d, %s)" % (rc, err.strip()[-200:]))
if rc == 0:
    s, meta = check_bundle("no-log", "nolog", "nolog.etdp", 20)
    expect("runner_log.outputs_only" in codes(s), "no-log: info issue runner_log.outputs_only")
    log = [i for i in meta["inputs"] if i["role"] == "log"][0]["describes"]
    expect(log["outputs_printed"] == 1 and log["output_lines"][0].startswith("OutputX 0: tensor("),
           "no-log: its printed output is kept (%s)" % log.get("output_lines"))
    expect(figures(s)["process.wall"]["n"] == 1, "no-log: wait4's figures are there")
    header = [ln for ln in out.splitlines() if "avg" in ln and "p50" in ln]
    expect(all(len({u for u in ln.split() if u in ("ns", "us", "ms", "s")}) <= 1 for ln in header),
           "no-log: each table header names one unit (%s)" % header)
# analyze --log of that output is accepted the same way; other text is refused.
cap = os.path.join(TMP, "nolog.out")
with open(cap, "wb") as f:
    subprocess.run([NOLOG, "--model_path", fix("et_add_x10.pte"), "--etdump_path", os.path.join(TMP, "n2.etdp"),
                    "--num_executions", "2"], stdout=f, check=True)
rc, out, err = etprof(["analyze", "--etdump", "n2.etdp", "--pte", fix("et_add_x10.pte"), "--log", cap])
expect(rc == 0 and "runner_log.outputs_only" in out, "analyze --log of a no-log runner's output is accepted (%d %s)"
       % (rc, err.strip()))
readme = os.path.join(TOOLS, "README.md")
rc, out, err = etprof(["analyze", "--etdump", "n2.etdp", "--pte", fix("et_add_x10.pte"), "--log", readme])
expect(rc == 1 and "not a runner log" in err, "a README as --log is still refused (%d %s)" % (rc, err.strip()))
junk = os.path.join(TMP, "junk.log")
with open(junk, "wb") as f:
    f.write(bytes((i * 37 + 11) % 251 + 1 for i in range(4096)))
rc, out, err = etprof(["analyze", "--etdump", "n2.etdp", "--pte", fix("et_add_x10.pte"), "--log", junk])
expect(rc == 1 and err.count("\n") == 1, "random bytes as --log are refused in one line (%d %s)" % (rc, err.strip()))

# A debug buffer given positionally: the message names --debug-buffer.
dbg = fix("et_bundled_program_debug_intermediate.debug.bin")
rc, out, err = etprof(["analyze", fix("et_bundled_program_debug_intermediate.etdp"), BPTE, dbg])
expect(rc == 1 and err.count("\n") == 1 and "--debug-buffer" in err and dbg in err,
       "a positional debug buffer: one line naming the file and --debug-buffer (%d %s)" % (rc, err.strip()))
rc, out, err = etprof(["analyze", fix("et_bundled_program_debug_intermediate.etdp"), BPTE, "--debug-buffer", dbg])
expect(rc == 0, "the same file with --debug-buffer is accepted (%s)" % err.strip())
rc, out, err = etprof(["analyze", "n2.etdp", fix("et_add_x10.pte"), junk])
expect(rc == 1 and err.count("\n") == 1 and "--debug-buffer" in err,
       "positional random bytes: one line naming --debug-buffer (%d %s)" % (rc, err.strip()))

# 6. --repeat 3: wait4 over three runs, the last run analysed.
rc, out, err = etprof(["run", "-o", "rep", "--repeat", "3", "--", EXECUTOR, "--model_path", fix("et_add_x10.pte"),
                       "--etdump_path", "rep.etdp", "--num_executions", "5"])
expect(rc == 0, "--repeat 3 publishes (%s)" % err.strip()[-200:])
if rc == 0:
    s, meta = check_bundle("repeat", "rep", "rep.etdp", 5)
    expect(figures(s)["process.wall"]["n"] == 3 and meta["runner"]["repeat"] == 3,
           "--repeat 3: process.wall over 3 runs (%s)" % figures(s)["process.wall"])

# 7. Wrappers in front: /usr/bin/time -v, taskset, nice. GNU time's block
#    and etprof's own wait4 both count.
if os.path.exists("/usr/bin/time"):
    rc, out, err = etprof(["run", "-o", "wrapped", "--", "/usr/bin/time", "-v", "taskset", "-c", "0", "nice", "-n",
                           "1", EXECUTOR, "--model_path", fix("et_add_x10.pte"), "--etdump_path", "w.etdp",
                           "--num_executions", "4"])
    expect(rc == 0, "time -v taskset nice executor_runner publishes (%s)" % err.strip()[-200:])
    if rc == 0:
        s, meta = check_bundle("wrapped", "wrapped", "w.etdp", 4)
        f = figures(s)
        expect(meta["runner"]["wrappers"] == ["time", "taskset", "nice"] and meta["runner"]["kind"] == "executor_runner",
               "wrappers seen through (%s)" % meta["runner"]["wrappers"])
        expect("gnu_time.peak_rss" in f and "process.peak_rss" in f,
               "GNU time's figures and wait4's are both reported (%s)" % sorted(f))
else:
    print("note: /usr/bin/time is not installed; the time -v case is not run")

# 8. A runner that aborts (a program that needs an operator this build
#    lacks: Cortex-M kernels): exit 1, its last lines, no bundle.
rc, out, err = etprof(["run", "-o", "aborted", "--", EXECUTOR, "--model_path", fix("cm_et_arduino_kws_x10.pte"),
                       "--etdump_path", "ab.etdp"])
expect(rc == 1 and "killed by signal" in err and "last lines" in err and "Missing operator" in err,
       "an aborting runner: exit 1 with its last lines (%d, %s)" % (rc, err.strip()[-300:]))
expect(not os.path.exists(os.path.join(TMP, "aborted")), "an aborting runner: no bundle")

# 9. A timeout: its process group is killed, exit 1, no bundle.
rc, out, err = etprof(["run", "-o", "slow", "--timeout", "1", "--", EXECUTOR, "--model_path", fix("et_add_x10.pte"),
                       "--etdump_path", "slow.etdp", "--num_executions", "100000000"])
expect(rc == 1 and "timed out" in err, "a timeout: exit 1 (%d, %s)" % (rc, err.strip()[-200:]))
expect(not os.path.exists(os.path.join(TMP, "slow")), "a timeout: no bundle")

# 10. The README's `run` example, as written, with a real runner.
readme_md = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
with open(readme_md) as f:
    lines = [ln for ln in f.read().splitlines() if ln.startswith("./build/etprof run ")]
expect(len(lines) == 1 and "../shared/tools/executorch/executor_runner" in lines[0],
       "the README has one `etprof run` example with a real runner")
if lines:
    words = lines[0].split(" && ")[0].split()
    words = [ETPROF if w == "./build/etprof" else w.replace("../shared", SHARED) for w in words]
    p = subprocess.run(words, cwd=TMP, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    d = words[words.index("-o") + 1]
    expect(p.returncode == 0, "the README's run example publishes (%s)" % p.stderr.decode()[-200:])
    if p.returncode == 0:
        check_bundle("README example", d, words[words.index("--etdump_path") + 1], 20)

shutil.rmtree(TMP, ignore_errors=True)
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all real-runner checks passed")
