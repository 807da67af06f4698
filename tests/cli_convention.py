#!/usr/bin/python3
"""One command-line convention across commands: input files positional in
any order (sorted by their bytes) or with their options, wrong-kind files
named for what they are, `etprof help CMD`, one-line usage errors, one exit
status for an unknown method, `-o` alike in graph and trace.

usage: cli_convention.py ETPROF FIXTURES_DIR
"""
import os
import stat
import subprocess
import sys
import tempfile

ETPROF, FIX = sys.argv[1], sys.argv[2]
R = os.path.join(FIX, "real-runs")
if not os.path.isdir(R):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(*args):
    p = subprocess.run([ETPROF] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode()


kws = os.path.join(R, "cm_et_arduino_kws_x10")
D, P, E, L = kws + ".etdp", kws + ".pte", kws + ".etrecord", kws + ".log"

# Positional inputs in any order give the same analysis as the options.
ref = run("analyze", "--json", E, "--etdump", D, "--pte", P, "--log", L)
for order in [(D, P, E, L), (L, E, P, D), (P, L, D, E)]:
    got = run("analyze", "--json", *order)
    expect(got[0] == 0 and got[1] == ref[1], "analyze %s: same JSON as the option form" %
           " ".join(os.path.splitext(os.path.basename(x))[1] for x in order))
got = run("analyze", "--json", "--etrecord", E, D, P)
expect(got[0] == 0 and got[1] == run("analyze", "--json", E, "--etdump", D, "--pte", P)[1], "--etrecord is accepted")
expect(run("inspect", P, D)[1] == run("inspect", D, "--pte", P)[1] and run("inspect", "--etdump", D, P)[0] == 0,
       "inspect: PROGRAM ETDUMP == ETDUMP --pte PROGRAM; --etdump accepted")
with tempfile.TemporaryDirectory() as tmp:
    t1, t2 = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    r1 = run("trace", E, P, D, "-o", t1)
    r2 = run("trace", D, "--pte", P, "--etrecord", E, "-o", t2)
    expect(r1[0] == r2[0] == 0 and open(t1, "rb").read() == open(t2, "rb").read(),
           "trace: ETRECORD PROGRAM ETDUMP == options")
    # graph and trace agree on -o: a file, '-' or nothing for standard output.
    for cmd, inputs in [("graph", [P]), ("trace", [D, P])]:
        f = os.path.join(tmp, cmd + ".json")
        a, b, c = run(cmd, *inputs, "-o", f), run(cmd, *inputs, "-o", "-"), run(cmd, *inputs)
        expect(a[0] == b[0] == c[0] == 0 and open(f, "rb").read() == b[1] == c[1],
               "%s: -o FILE, -o - and no -o write the same bytes" % cmd)
        # -o onto something that is not a regular file (a FIFO here; /dev/null
        # and /dev/stdout alike) writes into it and leaves it what it was:
        # renaming a temporary over it would replace it with a file.
        fifo = os.path.join(tmp, cmd + ".fifo")
        os.mkfifo(fifo)
        # The reader copies into a file: through a pipe to this script, which
        # waits for etprof first, a large output would block both.
        copied = os.path.join(tmp, cmd + ".fifo.out")
        with open(copied, "wb") as sink:
            reader = subprocess.Popen(["cat", fifo], stdout=sink)
            d = run(cmd, *inputs, "-o", fifo)
            try:  # a FIFO replaced by a file would leave the reader waiting
                reader.wait(timeout=20)
            except subprocess.TimeoutExpired:
                reader.kill()
                reader.wait()
        got = open(copied, "rb").read()
        expect(d[0] == 0 and got == b[1] and stat.S_ISFIFO(os.stat(fifo).st_mode),
               "%s: -o FIFO writes the bytes into the FIFO, which stays a FIFO" % cmd)
        # A device that refuses the bytes: one line naming it and the reason, exit 1,
        # and the device still a device.
        if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):
            rc, out, err = run(cmd, *inputs, "-o", "/dev/full")
            expect(rc == 1 and err.count("\n") == 1 and err.startswith("etprof: /dev/full: ")
                   and stat.S_ISCHR(os.stat("/dev/full").st_mode),
                   "%s: -o /dev/full is one line naming it, exit 1; /dev/full stays a device" % cmd)

# Wrong-kind inputs say what the file is (exit 1, one line).
for args, what in [(["analyze", "--etdump", P, "--pte", P], "is a program"),
                   (["analyze", D, "--pte", D], "is an ETDump"),
                   (["inspect", P], "is a program"),
                   (["trace", E], "zip archive"),
                   (["graph", D], "is an ETDump"),
                   (["analyze", D, P, "--etrecord", L], "is a text file")]:
    rc, out, err = run(*args)
    expect(rc == 1 and err.count("\n") == 1 and what in err, "%s: exit 1, '%s'" % (" ".join(a if not a.startswith("/") and not a.startswith(".") else os.path.basename(a) for a in args), what))
rc, out, err = run("analyze", D, os.path.join(R, "et_add_x10.etdp"), P)
expect(rc == 2 and err.count("\n") == 1 and "two ETDumps" in err, "two ETDumps: usage error, one line")

# etprof help CMD is etprof CMD --help.
for cmd in ["dump", "inspect", "analyze", "verify", "graph", "trace", "gen"]:
    a, b = run("help", cmd), run(cmd, "--help")
    expect(a[0] == b[0] == 0 and a[1] == b[1] and a[1].startswith(b"usage: etprof " + cmd.encode()),
           "etprof help %s == etprof %s --help" % (cmd, cmd))
    rc, out, err = run(cmd, "--no-such-option")
    expect(rc == 2 and err.count("\n") == 1 and "--no-such-option" in err, "%s: an unknown option is one line, exit 2" % cmd)
rc, out, err = run("no-such-command")
expect(rc == 2 and err.count("\n") == 1, "an unknown command is one line, exit 2")

# An unknown method: the same status (2, usage) everywhere.
for args in [["analyze", D, P], ["inspect", D, P], ["trace", D, P, "-o", "-"], ["graph", P]]:
    rc, out, err = run(*args, "--method", "nothere")
    expect(rc == 2 and err.count("\n") == 1 and "nothere" in err, "%s --method nothere: exit 2, one line" % args[0])

sys.exit(1 if failures else 0)
