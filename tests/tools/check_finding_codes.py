#!/usr/bin/env python3
"""Every finding code a rule records (finding_begin with a literal code) is
in the registry, and every code the registry lists is recorded by some rule:
no finding outside the registry, no registry entry nothing can fire.

The registry is read from `etprof analyze --list-finding-codes`; the recorded
codes from src/analysis/findings/rules_*.c. Every finding_begin call must name
its code as a literal, so a new rule cannot slip past.

usage: check_finding_codes.py ETPROF SOURCE_ROOT
"""
import glob
import os
import re
import subprocess
import sys


def main():
    etprof, root = sys.argv[1], sys.argv[2]
    out = subprocess.run([etprof, "analyze", "--list-finding-codes"], check=True,
                         capture_output=True, text=True).stdout
    table = out.split("## Thresholds")[0]
    registry = set(re.findall(r"^\| `([a-z0-9_.]+)` \|", table, re.M))
    if not registry:
        sys.exit("no finding codes listed by --list-finding-codes")
    recorded, bad = set(), []
    for path in sorted(glob.glob(os.path.join(root, "src/analysis/findings/rules_*.c"))):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"finding_begin\(([^;]*?)\);", text, re.S):
            lit = re.search(r'"([^"]+)"', m.group(1))
            if not lit:
                bad.append(f"{os.path.relpath(path, root)}: finding_begin without a literal code")
            else:
                recorded.add(lit.group(1))
    errors = bad
    errors += [f"recorded but not in the registry: {c}" for c in sorted(recorded - registry)]
    errors += [f"in the registry but recorded by no rule: {c}" for c in sorted(registry - recorded)]
    if errors:
        print("\n".join(errors))
        return 1
    print(f"{len(registry)} finding codes, each recorded by a rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
