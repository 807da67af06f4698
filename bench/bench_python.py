#!/usr/bin/env python3
"""Benchmark: etprof.analyze() (Python over libetprof.so) against the CLI on
the 70 MB reference run. Not a test: numbers are printed, never asserted.

usage: bench/bench_python.py [BUILD_DIR] [--keep DIR] [--runs N]

Generates the run (`etprof gen etdump --executions 50 --instructions 10000
--delegate-every 10 --seed 1` with its program and ETRecord), then, runs
alternating so that the machine's load falls on both alike:
  cli      `etprof analyze ETRECORD --etdump --pte --quiet`, process start to
           exit (so an upper bound of the CLI's in-process time: it includes
           exec and loading, and the CLI does not free at exit)
  py-fresh etprof.analyze() timed inside a fresh python3 process (its first
           analysis: the heap is new, as the CLI's is), hash_program=False
           as the CLI without -o
  py-warm  etprof.analyze() repeated in one process (best of the runs)
plus peak RSS of each process, and the cost of reading results afterwards
(.operators, .to_dataframe(), .to_dict())."""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

FRESH = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import etprof
d = sys.argv[2]
t = time.perf_counter()
a = etprof.analyze(f"{d}/big.etdp", pte=f"{d}/big.pte", etrecord=f"{d}/big.etrecord",
                   hash_program=sys.argv[3] == "1")
t1 = time.perf_counter()
print(f"{(t1 - t) * 1e3:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
"""

WARM = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import etprof
d, runs = sys.argv[2], int(sys.argv[3])
def one(**kw):
    t = time.perf_counter()
    a = etprof.analyze(f"{d}/big.etdp", pte=f"{d}/big.pte", etrecord=f"{d}/big.etrecord", **kw)
    t1 = time.perf_counter()
    return a, (t1 - t) * 1e3
times = []
for _ in range(runs):
    a, ms = one(hash_program=False)
    times.append(ms)
    a.close()
hashed = []
for _ in range(3):
    a, ms = one()
    hashed.append(ms)
    if len(hashed) < 3:
        a.close()
t = time.perf_counter(); ops = a.operators; t_ops = time.perf_counter() - t
t = time.perf_counter(); df = a.to_dataframe(); t_df = time.perf_counter() - t
t = time.perf_counter(); s = a.to_dict(); t_sum = time.perf_counter() - t
print("py-warm   best %7.1f ms  median %7.1f ms  (hash_program=True: best %.1f ms)"
      % (min(times), sorted(times)[len(times) // 2], min(hashed)))
print("reading   .operators %.1f ms (%d entities), .to_dataframe() %.1f ms, .to_dict() %.1f ms"
      % (t_ops * 1e3, len(ops), t_df * 1e3, t_sum * 1e3))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--keep", help="generate into (or reuse) this directory")
    ap.add_argument("--runs", type=int, default=7)
    o = ap.parse_args()
    cli = os.path.join(o.build, "etprof")
    lib = os.path.join(o.build, "libetprof.so.0")
    env = dict(os.environ, ETPROF_LIBRARY=lib)
    tmp = None
    d = o.keep
    if not d:
        tmp = tempfile.TemporaryDirectory(prefix="etprof-pybench-")
        d = tmp.name
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "big.etrecord")):
        subprocess.run([cli, "gen", "etdump", "-o", f"{d}/big.etdp", "--executions", "50",
                        "--instructions", "10000", "--delegate-every", "10", "--seed", "1",
                        "--pte", f"{d}/big.pte", "--etrecord", f"{d}/big.etrecord"],
                       check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(f"{d}/big.etdp")
    print(f"run: {size / 1e6:.1f} MB ETDump, program {os.path.getsize(f'{d}/big.pte') / 1e6:.1f} MB,"
          f" ETRecord {os.path.getsize(f'{d}/big.etrecord') / 1e6:.1f} MB; library {lib}")
    cli_ms, py_ms, py_rss = [], [], []
    cli_rss = 0
    for _ in range(o.runs):
        t = time.perf_counter()
        subprocess.run([cli, "analyze", f"{d}/big.etrecord", "--etdump", f"{d}/big.etdp",
                        "--pte", f"{d}/big.pte", "--quiet"], check=True)
        cli_ms.append((time.perf_counter() - t) * 1e3)
        cli_rss = max(cli_rss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        out = subprocess.run([PY, "-c", FRESH, os.path.join(ROOT, "python"), d, "0"], env=env,
                             check=True, capture_output=True, text=True).stdout.split()
        py_ms.append(float(out[0]))
        py_rss.append(int(out[1]))

    def line(label, xs):
        return f"{label:9s} best {min(xs):7.1f} ms  median {statistics.median(xs):7.1f} ms"

    print(line("cli", cli_ms) + f"  peak RSS {cli_rss / 1024:.0f} MB  (process start to exit)")
    print(line("py-fresh", py_ms) + f"  peak RSS {max(py_rss) / 1024:.0f} MB  (the python process)")
    print(f"ratio     py-fresh / cli: best {min(py_ms) / min(cli_ms):.2f}x, "
          f"median {statistics.median(py_ms) / statistics.median(cli_ms):.2f}x")
    sys.stdout.flush()
    subprocess.run([PY, "-c", WARM, os.path.join(ROOT, "python"), d, str(o.runs)], env=env,
                   check=True)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
