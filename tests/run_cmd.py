#!/usr/bin/python3
"""`etprof run` with a fake runner (support/fake_runner.py) that prints the
portable runner's lines and writes a real fixture ETDump: success, --repeat,
a runner that fails, crashes, hangs (--timeout kills its process group),
never writes its ETDump, or only announces it; and a fake adb (the host's RSS
is adb's: unavailable unless the device ran `time -v`).

usage: run_cmd.py ETPROF FIXTURES_DIR
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ETPROF, FIX = sys.argv[1], sys.argv[2]
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "support", "fake_runner.py")
ADD = os.path.join(FIX, "real-runs", "et_add_x10")
TMP = tempfile.mkdtemp(prefix="etprof-run-test-")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(args, env=None, cwd=TMP):
    t0 = time.monotonic()
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.monotonic() - t0


def runner(*extra, etdump="d.etdp"):
    a = [FAKE, "--model_path", ADD + ".pte", "--fake_etdump", ADD + ".etdp", "--num_executions", "10"]
    if etdump:
        a += ["--etdump_path", etdump]
    return a + list(extra)


def summary(d):
    return json.load(open(os.path.join(TMP, d, "summary.json")))


rc, out, err, _ = run(["run", "-o", "ok", "--top", "3", "--"] + runner())
expect(rc == 0 and os.path.isdir(os.path.join(TMP, "ok")), "a successful run publishes a bundle (%s)" % err.strip()[-200:].replace("\n", " | "))
expect("Iteration 10 of 10" in err and "Output 0:" in out, "the runner's output is shown live (its stdout and stderr)")
if rc == 0:
    s = summary("ok")
    f = {x["name"]: x for x in s["device"]["figures"]}
    expect(f["process.wall"]["n"] == 1 and f["process.wall"]["unit"] == "s" and f["process.wall"]["source"] == "etprof run (wait4)",
           "process wall time measured by wait4")
    expect(s["memory"]["peak_rss"]["source"] == "etprof run (wait4)" and s["memory"]["peak_rss"]["value"] > 1000,
           "peak RSS of the local child from wait4 (KiB)")
    expect(s["method"]["basis"] == "reported by the runner log", "the runner's output is the analysis' runner log")
    kept = open(os.path.join(TMP, "ok", "logs", "runner.log")).read()
    expect("Model executed successfully 10 time(s)" in kept and "Output 0:" in kept, "the captured output is in the bundle (logs/runner.log)")
    rc2, out2, err2, _ = run(["verify", "ok"])
    expect(rc2 == 0, "the bundle verifies")
    man = json.load(open(os.path.join(TMP, "ok", "result_manifest.json")))
    roles = [i["role"] for i in man["provenance"]["inputs"]]
    expect(roles[:2] == ["etdump", "pte"] and "log" in roles and "device_log" in roles, "inputs recorded: %s" % roles)

rc, out, err, _ = run(["run", "-o", "rep", "--quiet", "--repeat", "3", "--"] + runner())
f = {x["name"]: x for x in summary("rep")["device"]["figures"]} if rc == 0 else {}
expect(rc == 0 and f["process.wall"]["n"] == 3 and f["process.peak_rss"]["n"] == 3 and
       f["process.wall"]["min"] <= f["process.wall"]["p50"] <= f["process.wall"]["max"],
       "--repeat 3: process latency and RSS over 3 runs")

# The runner's --debug_output_path: taken as the debug buffer when the run wrote it.
DBG = os.path.join(FIX, "real-runs", "et_bundled_program_debug_intermediate")
dbg_runner = [FAKE, "--model_path", DBG + ".bpte", "--fake_etdump", DBG + ".etdp", "--num_executions", "1",
              "--etdump_path", "dbg.etdp", "--debug_output_path", "dbg.bin", "--fake_debug", DBG + ".debug.bin"]
rc, out, err, _ = run(["run", "-o", "dbg", "--quiet", "--"] + dbg_runner)
if rc == 0:
    s = summary("dbg")
    man = json.load(open(os.path.join(TMP, "dbg", "result_manifest.json")))
    ins = {i["role"]: i for i in man["provenance"]["inputs"]}
    with open(DBG + ".debug.bin", "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    expect(s.get("debug_buffer") and s["debug_buffer"]["tensors_checked"] > 0 and
           ins.get("debug_buffer", {}).get("sha256") == want,
           "the runner's --debug_output_path is the debug buffer: checked and hashed into the bundle (%s)" %
           s.get("debug_buffer"))
else:
    expect(False, "run with --debug_output_path publishes (%s)" % err.strip()[-300:].replace("\n", " | "))
os.unlink(os.path.join(TMP, "dbg.bin"))
with open(os.path.join(TMP, "dbg.bin"), "wb") as f:
    f.write(b"\0" * 8)
os.utime(os.path.join(TMP, "dbg.bin"), (1, 1))  # an earlier run's file: not this run's
rc, out, err, _ = run(["run", "-o", "dbg_stale", "--quiet", "--"] + dbg_runner[:-2])
expect(rc == 0 and summary("dbg_stale").get("debug_buffer") is None,
       "a debug output the run did not write is not taken (%s)" % err.strip()[-200:])

# stdout and stderr at once: the kept log has whole lines, so the method is still read.
rc, out, err, _ = run(["run", "-o", "inter", "--quiet", "--"] + runner("--fake_mode", "interleave"))
kept = open(os.path.join(TMP, "inter", "logs", "runner.log")).read() if rc == 0 else ""
expect(rc == 0 and "Using method forward\n" in kept and "Loading the inputs\n" in kept,
       "a stderr line cut by a stdout line is kept whole in logs/runner.log (%s)" % err.strip()[-200:])

rc, out, err, _ = run(["run", "-o", "wr", "--quiet", "--"] + runner(etdump=None))
expect(rc == 0 and os.path.exists(os.path.join(TMP, "model.etdump")), "the ETDump found from the \"ETDump written\" line")

for mode, msg in [("fail", "exited with status 3"), ("crash", "killed by signal 11"), ("noetdump", "did not write its ETDump")]:
    rc, out, err, _ = run(["run", "-o", "bad_" + mode, "--quiet", "--"] + runner("--fake_mode", mode))
    expect(rc == 1 and msg in err and "last lines" in err and "Model executed successfully" in err and
           not os.path.exists(os.path.join(TMP, "bad_" + mode)), "a runner that %s: exit 1, its last lines, no bundle" % mode)
# A dump left by an earlier run is not taken for this one's.
shutil.copyfile(ADD + ".etdp", os.path.join(TMP, "stale.etdp"))
rc, out, err, _ = run(["run", "-o", "stale", "--quiet", "--"] + runner("--fake_mode", "noetdump", etdump="stale.etdp"))
expect(rc == 1 and not os.path.exists(os.path.join(TMP, "stale")), "a stale ETDump from an earlier run is refused")
pidfile = os.path.join(TMP, "hang.pids")
rc, out, err, el = run(["run", "-o", "hang", "--quiet", "--timeout", "1", "--"] + runner("--fake_mode", "hang"),
                       env={"FAKE_PID_FILE": pidfile})
pgid, child = (int(x) for x in open(pidfile).read().split())
time.sleep(0.2)


def alive(pid):
    """Running (a killed, unreaped orphan is a zombie: dead)."""
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


leftover = alive(pgid) or alive(child)
expect(rc == 1 and "timed out after 1 s" in err and el < 10 and not os.path.exists(os.path.join(TMP, "hang")),
       "--timeout 1: exit 1 after %.1f s, no bundle" % el)
expect(not leftover, "the timed-out runner's process group is gone (its child too)")
rc, out, err, _ = run(["run", "-o", "x", "--", FAKE, "--etdump_path", "d.etdp"])
expect(rc == 2, "no --model_path and no --pte: usage error")
rc, out, err, _ = run(["run", "--", FAKE])
expect(rc == 2, "no -o: usage error")

# adb: the host's wait4 measures adb.
bindir = os.path.join(TMP, "bin")
os.makedirs(bindir)
os.symlink(os.path.join(HERE, "support", "fake_adb.py"), os.path.join(bindir, "adb"))
adb = os.path.join(bindir, "adb")
device = os.path.join(TMP, "device")  # the fake device's storage (adb pull copies from it)
os.makedirs(device)
cmd = "%s --model_path /data/local/tmp/m.pte --etdump_path %s/dev.etdp --fake_etdump %s.etdp --num_executions 10" % (FAKE, device, ADD)
rc, out, err, _ = run(["run", "-o", "adb", "--quiet", "--pte", ADD + ".pte", "--", adb, "-s", "emu", "shell", cmd])
s = summary("adb") if rc == 0 else None
if rc == 0:
    meta = json.load(open(os.path.join(TMP, "adb", "run_metadata.json")))
    dumps = [i["path"] for i in meta["inputs"] if i["role"] == "etdump"]
    expect(dumps == ["dev.etdp"] and os.path.isfile(os.path.join(TMP, "dev.etdp")),
           "over adb the ETDump is pulled into the working directory and recorded there (%s)" % dumps)
expect(s and s["memory"]["peak_rss"]["value"] is None and "adb" in s["memory"]["peak_rss"]["reason"] and
       any(i["code"] == "memory.peak_rss_unavailable" for i in s["issues"]) and
       "process.peak_rss" not in {x["name"] for x in s["device"]["figures"]} and
       not any(i["code"] == "runner_log.other_etdump" for i in s["issues"]),
       "over adb without a device-side time -v: peak RSS unavailable, never the host's (%s)" % err.strip()[-200:])
rc, out, err, _ = run(["run", "-o", "adb2", "--quiet", "--pte", ADD + ".pte", "--", adb, "shell", cmd], env={"FAKE_ADB_TIME_V": "43600"})
s = summary("adb2") if rc == 0 else None
expect(s and s["memory"]["peak_rss"]["value"] == 43600 and s["memory"]["peak_rss"]["source"] == "GNU time -v",
       "over adb with the device's time -v: its peak RSS (43600 KiB)")
rc, out, err, _ = run(["run", "-o", "adb3", "--quiet", "--", adb, "shell", cmd])
expect(rc == 2 and "--pte" in err, "over adb --pte is required")
rc, out, err, _ = run(["run", "-o", "adb4", "--quiet", "--companion-model", ADD + ".pte", "--", adb, "shell", cmd])
expect(rc == 0 and summary("adb4")["method"]["name"] == s["method"]["name"],
       "over adb --companion-model names the host's program as --pte does (%s)" % err.strip()[-200:])
shutil.rmtree(TMP, ignore_errors=True)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
