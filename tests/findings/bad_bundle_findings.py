#!/usr/bin/env python3
"""A published bundle whose summary.json holds malformed findings (a status
that is neither fired nor withheld, a finding without a code, a finding that
is not an object, findings that are not an array) is refused by
`etprof diff` with exit 1 and one line naming the file and the finding; the
manifest is re-sealed so only the findings are wrong. Needs no fixtures: it
publishes the built-in demo.

usage: bad_bundle_findings.py ETPROF WORKDIR
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def main(argv):
    etprof, work = argv[1], argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    demo, good = os.path.join(work, "demo"), os.path.join(work, "good")
    for args in ([etprof, "gen", "demo", "-o", demo],
                 [etprof, "analyze", os.path.join(demo, "model.etrecord"), "--etdump", os.path.join(demo, "run.etdp"),
                  "--pte", os.path.join(demo, "model.pte"), "-q", "-o", good]):
        if run(args).returncode:
            print("FAIL: %s" % " ".join(args))
            return 1
    cases = {
        "status": (lambda s: s["findings"][0].__setitem__("status", "bogus"), 'findings[0]: "status"'),
        "no_code": (lambda s: s["findings"][0].pop("code"), 'findings[0]: no "code"'),
        "not_object": (lambda s: s["findings"].__setitem__(0, 7), "findings[0]: not an object"),
        "not_array": (lambda s: s.__setitem__("findings", {"a": 1}), "findings"),
    }
    failed = 0
    for name, (mutate, want) in cases.items():
        bad = os.path.join(work, name)
        shutil.copytree(good, bad)
        path = os.path.join(bad, "summary.json")
        with open(path) as f:
            summary = json.load(f)
        if not summary.get("findings"):
            print("FAIL: the demo's summary has no findings to corrupt")
            return 1
        mutate(summary)
        data = json.dumps(summary, indent=2).encode()
        with open(path, "wb") as f:
            f.write(data)
        mpath = os.path.join(bad, "result_manifest.json")
        with open(mpath) as f:
            manifest = json.load(f)
        for a in manifest["artifacts"]:
            if a["path"] == "summary.json":
                a["size_bytes"], a["sha256"] = len(data), hashlib.sha256(data).hexdigest()
        with open(mpath, "w") as f:
            json.dump(manifest, f, indent=2)
        r = run([etprof, "diff", bad, good])
        lines = r.stderr.strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or "summary.json" not in lines[0] or want not in lines[0]:
            print("FAIL: %s: exit %d, stderr %r (want exit 1 and one line with %r)" % (name, r.returncode,
                                                                                      r.stderr, want))
            failed += 1
    if failed:
        return 1
    print("OK: %d malformed findings refused with one line each" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
