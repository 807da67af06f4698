"""findings_check.py - what the findings tests share: running `etprof analyze
--json` and reading its findings. Standard library only."""
import json
import math
import os
import subprocess
import sys

ETPROF = os.environ.get("ETPROF", "etprof")
FIXTURES = os.environ.get("ETP_FIXTURES", "")
GUARD = 300


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def skip_without_fixtures(fixtures):
    if not fixtures or not os.path.isdir(fixtures):
        print("SKIP: %s is absent; this test reads real files there" % (fixtures or "../shared/fixtures"))
        sys.exit(77)


def analyze(etprof, args):
    """`etprof analyze ARGS --json`: (exit status, parsed JSON or None, stderr)."""
    r = subprocess.run([etprof, "analyze"] + list(args) + ["--json"], capture_output=True, text=True,
                       timeout=GUARD)
    doc = json.loads(r.stdout) if r.returncode == 0 else None
    return r.returncode, doc, r.stderr.strip()


def analyze_ok(etprof, args, what):
    rc, doc, err = analyze(etprof, args)
    if rc != 0:
        fail("%s: etprof analyze exited %d: %s" % (what, rc, err))
    return doc


def findings(doc, status=None, code=None):
    return [f for f in doc.get("findings", [])
            if (status is None or f["status"] == status) and (code is None or f["code"] == code)]


def fired_codes(doc):
    """The codes that fired, sorted, one per finding (a code may repeat)."""
    return sorted(f["code"] for f in findings(doc, "fired"))


def numbers(f):
    """Every number a finding states: evidence values, entity values and
    shares, and the numbers of its rule-specific details."""
    out = [v["value"] for v in f["details"].get("evidence", []) if isinstance(v.get("value"), (int, float))]
    for e in f.get("affected_entities", []):
        out += [e[k] for k in ("value", "share_pct") if isinstance(e.get(k), (int, float))]

    def walk(x):
        if isinstance(x, bool):
            return
        if isinstance(x, (int, float)):
            out.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(f["details"].get("specific"))
    return out


def states(f, value, rel=1e-3, abs_tol=0.0):
    """The finding states @p value (within @p rel relative or @p abs_tol)."""
    return any(math.isclose(v, value, rel_tol=rel, abs_tol=abs_tol) for v in numbers(f))


def entity_ids(f):
    return [e["id"] for e in f.get("affected_entities", [])]


def describe(f):
    return "%s [%s] %s; entities %s; numbers %s" % (f["code"], f["status"], f["message"], entity_ids(f),
                                                   numbers(f))
