#!/usr/bin/python3
"""A stand-in for ExecuTorch's executor_runner, for `etprof run` tests.

It prints the portable runner's 1.5 lines (the fixture run's iteration times),
copies a real fixture ETDump to --etdump_path (default model.etdump), and can
misbehave (or interleave: a stderr line cut by a stdout line): --fake_mode fail (exit 3), crash (SIGSEGV), hang (sleeps, with a
child in its process group), noetdump (never writes it), written (no
--etdump_path given to etprof: announces the file with the "ETDump written"
line only). --fake_etdump SRC names the dump to copy; --fake_debug SRC, the
debug buffer to copy to --debug_output_path (as ExecuTorch's example runner
writes the intermediate outputs' bytes).
"""
import os
import shutil
import signal
import subprocess
import sys
import time

args = sys.argv[1:]


def flag(name, default=None):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


mode = flag("--fake_mode", "ok")
model = flag("--model_path", "model.pte")
etdump = flag("--etdump_path", "model.etdump")
src = flag("--fake_etdump")
n = int(flag("--num_executions", "3"))
p = "I 00:00:00.%06d executorch:executor_runner.cpp:%d] %s"
print(p % (100, 302, "Model file %s is loaded." % model), file=sys.stderr)
if mode == "interleave":
    # A line of stderr cut by a line of stdout, as two streams written at once can be.
    sys.stderr.write(p % (110, 320, "Using method "))
    sys.stderr.flush()
    time.sleep(0.05)
    sys.stdout.write("Loading the inputs\n")
    sys.stdout.flush()
    time.sleep(0.05)
    sys.stderr.write("forward\n")
else:
    print(p % (110, 320, "Using method forward"), file=sys.stderr)
print(p % (120, 556, "Setting up CPU planned buffer 0, size 48."), file=sys.stderr)
print(p % (130, 600, "Model loaded in 0.250000 ms."), file=sys.stderr)
sys.stderr.flush()
for i in range(n):
    print(p % (200 + i, 700, "Iteration %d of %d: %.6f ms" % (i + 1, n, 0.01 * (i + 1))), file=sys.stderr)
print(p % (300, 720, "Model executed successfully %d time(s) in %.6f ms." % (n, 0.01 * n * (n + 1) / 2)),
      file=sys.stderr)
print("1 outputs: ")
print("Output 0: tensor(sizes=[1], [2.])")
sys.stdout.flush()
if mode == "fail":
    print(p % (400, 800, "Execution of method forward failed with status 0x12"), file=sys.stderr)
    sys.exit(3)
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "hang":
    child = subprocess.Popen(["sleep", "300"])  # in our process group: --timeout must kill it too
    if os.environ.get("FAKE_PID_FILE"):
        with open(os.environ["FAKE_PID_FILE"], "w") as f:
            f.write("%d %d\n" % (os.getpgrp(), child.pid))
    time.sleep(300)
if mode != "noetdump":
    shutil.copyfile(src, etdump)
    if flag("--fake_debug") and flag("--debug_output_path"):
        shutil.copyfile(flag("--fake_debug"), flag("--debug_output_path"))
    print(p % (500, 900, "ETDump written to file '%s'." % etdump), file=sys.stderr)
sys.exit(0)
