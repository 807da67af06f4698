#!/usr/bin/python3
"""`etprof trace` execution selection, the size guard and the progress line.

On generated runs (`etprof gen etdump`):
  - --executions A-B, --executions N and --first N write valid JSON whose
    executions are exactly the selected ones, each event for event as in the
    whole trace (tids aside), with the load block kept and the selection in
    otherData;
  - malformed or reversed ranges exit 2, a range past the last execution
    exits 1 saying how many there are, and neither writes a file;
  - a run whose trace would pass 200 MB is refused without --force (exit 1,
    the estimated size in the message, nothing written) and written with it;
    the estimate is within 5% of the bytes written;
  - stderr stays empty when it is not a terminal (no progress), and under a
    pseudo-terminal a long trace shows "writing trace... N%" and clears it;
    --quiet shows nothing.

usage: trace_select.py ETPROF
"""
import atexit
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile

ETPROF = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="etprof-trace-select-")
atexit.register(shutil.rmtree, TMP, True)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)
    else:
        print("ok   " + what)


def run(*args):
    return subprocess.run([ETPROF] + list(args), capture_output=True, text=True)


def path(name):
    return os.path.join(TMP, name)


def gen(name, executions, instructions, with_pte):
    extra = ["--pte", path(name + ".pte"), "--etrecord", path(name + ".etrecord")] if with_pte else []
    r = run("gen", "etdump", "-o", path(name + ".etdp"), "--executions", str(executions),
            "--instructions", str(instructions), "--delegate-every", "10", "--seed", "3", *extra)
    if r.returncode:
        sys.exit("gen failed: " + r.stderr)


def trace(out, *args):
    return run("trace", path("mid.etdp"), "--pte", path("mid.pte"), "--etrecord",
               path("mid.etrecord"), "-o", out, *args)


def slices_by_run(doc):
    """Per RunData index: its X/i events without the tid (renumbered by a selection)."""
    runs = {}
    for e in doc["traceEvents"]:
        if e["ph"] in ("X", "i"):
            e = dict(e)
            e.pop("tid")
            runs.setdefault(e["args"]["run"], []).append(e)
    return runs


def thread_names(doc):
    return [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"]


# ---- selection on a small run: 1 load block (RunData 0) + 5 executions ----
gen("mid", 5, 300, True)
full_path = path("full.json")
r = trace(full_path)
expect(r.returncode == 0 and r.stderr == "", "whole trace written, stderr empty (no progress)")
full = json.load(open(full_path))
full_runs = slices_by_run(full)
expect(sorted(full_runs) == [0, 1, 2, 3, 4, 5], "whole trace: load block and 5 executions")
expect("executions_selected" not in full["otherData"], "no selection, no selection in otherData")

for args, first, last in ((["--executions", "2-4"], 2, 4), (["--executions", "3"], 3, 3),
                          (["--first", "2"], 1, 2), (["--executions", "1-5"], 1, 5)):
    what = " ".join(args)
    out = path("sel.json")
    r = trace(out, *args)
    expect(r.returncode == 0 and r.stderr == "", what + ": exit 0, stderr empty")
    try:
        doc = json.load(open(out))
    except (OSError, ValueError) as e:
        expect(False, what + ": valid JSON (%s)" % e)
        continue
    runs = slices_by_run(doc)
    want = [0] + list(range(first, last + 1))
    expect(sorted(runs) == want, what + ": blocks written are %s (got %s)" % (want, sorted(runs)))
    expect(all(runs[k] == full_runs[k] for k in want),
           what + ": each written execution is event for event the whole trace's")
    expect(thread_names(doc) == ["load_method 1 (RunData 0)"] +
           ["execute %d (RunData %d)" % (k, k) for k in range(first, last + 1)],
           what + ": tracks keep their names in the whole trace")
    od = doc["otherData"]
    expect(od.get("executions_selected") == "%d-%d" % (first, last) and
           od.get("executions_in_etdump") == 5, what + ": otherData records the selection")
    tids = sorted({(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["ph"] == "X"})
    names = {(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["name"] == "thread_name"}
    expect(all(t in names for t in tids), what + ": every track has its thread_name")

# a range that runs past the end is cut at the last execution, with a warning
out = path("past.json")
r = trace(out, "--executions", "4-9")
expect(r.returncode == 0 and "holds 5 executions: wrote 4-5" in r.stderr,
       "--executions 4-9: written, warning says 4-5 (%r)" % r.stderr)
expect(os.path.exists(out) and sorted(slices_by_run(json.load(open(out)))) == [0, 4, 5],
       "--executions 4-9: executions 4 and 5")

# ---- usage errors: exit 2, nothing written ----
for args in (["--executions", "0"], ["--executions", "3-2"], ["--executions", "a"],
             ["--executions", "2-"], ["--executions", "-2"], ["--executions", "1-2-3"],
             ["--executions", "99999999999"], ["--first", "0"], ["--first", "x"],
             ["--first", "-1"], ["--first", "2", "--executions", "1-2"]):
    out = path("bad.json")
    r = trace(out, *args)
    expect(r.returncode == 2 and "see `etprof trace --help`" in r.stderr
           and not os.path.exists(out), "%s: exit 2, nothing written" % " ".join(args))

# ---- a selection of nothing that exists: exit 1, says how many there are ----
for args in (["--executions", "6-9"], ["--executions", "6"]):
    out = path("none.json")
    r = trace(out, *args)
    expect(r.returncode == 1 and "holds 5 executions" in r.stderr and not os.path.exists(out),
           "%s: exit 1, says the ETDump holds 5, nothing written (%r)" % (" ".join(args), r.stderr))

# ---- the 200 MB guard, on a run whose trace is ~210 MB ----
gen("big", 40, 10000, False)
out = path("big.json")
r = run("trace", path("big.etdp"), "-o", out)
m = re.search(r"trace of 40 executions would be ~(\d+) MB; select with --first N or "
              r"--executions A-B, or pass --force", r.stderr)
expect(r.returncode == 1 and m is not None, "big run refused without --force (%r)" % r.stderr)
expect(not os.path.exists(out) and os.listdir(TMP).count("big.json") == 0 and
       not any(f.startswith("big.json") for f in os.listdir(TMP)),
       "big run refused: nothing written, no temporary file left")
# --force writes it; count the bytes from standard output rather than store them
p = subprocess.Popen([ETPROF, "trace", path("big.etdp"), "-o", "-", "--force"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
size = 0
while True:
    chunk = p.stdout.read(1 << 20)
    if not chunk:
        break
    size += len(chunk)
err = p.stderr.read()
expect(p.wait() == 0 and err == b"" and size > 200_000_000, "--force writes it (%d bytes)" % size)
if m:
    est = int(m.group(1)) * 1_000_000
    expect(abs(est - size) <= 0.05 * size, "estimate %d MB within 5%% of %d bytes" % (int(m.group(1)), size))
# a selection is written whatever the size of the whole trace
r = run("trace", path("big.etdp"), "-o", out, "--first", "2")
expect(r.returncode == 0 and r.stderr == "" and os.path.getsize(out) < 20_000_000,
       "big run: --first 2 written without --force")


# ---- progress under a pseudo-terminal ----
def on_pty(args):
    """Run etprof with stdin/stdout/stderr on a pseudo-terminal; (exit code, output)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(ETPROF, [ETPROF] + args)
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), data.decode(errors="replace")


rc, text = on_pty(["trace", path("big.etdp"), "--first", "30", "-o", path("p.json")])
expect(rc == 0 and "etprof: writing trace..." in text and re.search(r"writing trace\.\.\. \d+%", text),
       "terminal: progress shown for a long trace (%r)" % text[:200])
expect(text.endswith("\r\x1b[K"), "terminal: the progress line is cleared at the end (%r)" % text[-40:])
rc, text = on_pty(["trace", path("big.etdp"), "--first", "30", "--quiet", "-o", path("p.json")])
expect(rc == 0 and text == "", "terminal with --quiet: nothing printed (%r)" % text[:200])
rc, text = on_pty(["trace", path("big.etdp"), "-o", path("p2.json")])
expect(rc == 1 and text.startswith("etprof: trace of 40"), "terminal: the size error alone (%r)" % text[:200])
rc, text = on_pty(["trace", path("mid.etdp"), "-o", path("no/such/dir/t.json")])
expect(rc == 1 and re.fullmatch(r"(\r\x1b\[K[^\r]*)*\r\x1b\[Ketprof: [^\r]*no/such/dir[^\r]*\r\n", text)
       is not None, "terminal: an error clears the progress line first (%r)" % text[:200])
rc, text = on_pty(["analyze", "--etdump", path("mid.etdp"), "--pte", path("mid.pte"), "--json"])
body = text.replace("\r\n", "\n")
start = body.find("{")
expect(rc == 0 and "etprof: reading inputs..." in text and start >= 0 and
       body[:start].endswith("\r\x1b[K"),
       "terminal: analyze shows its steps and clears them before its output")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")
