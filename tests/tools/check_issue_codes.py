#!/usr/bin/env python3
"""Every issue code etprof emits is in the registry, for the scope that emits
it (an analysis's issues, a diff's warnings), and every code the registry
lists is emitted somewhere by that scope: no code outside the registry, no
registry entry that nothing emits.

The registry is read from `etprof analyze --list-issue-codes` (its first
table holds the analysis's codes, the "etprof diff" section's the diff's);
the emitted codes from the source, at every call that emits one. A call
whose code is not a literal must be a known forwarder (it passes on a code
that a literal call already made), so a new emitter cannot slip past.

usage: check_issue_codes.py ETPROF SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

# The calls that emit a code, the scope they emit for, and where they may be.
EMITTERS = [
    ("etp_issue_add", "analysis", "src/"),
    ("ISSUE", "analysis", "src/analysis/attribution/"),          # device_report.c's etp_issue_add
    ("etp_nx_note_add", "analysis", "src/formats/nx/"),      # notes become analysis issues
    ("warn", "diff", "src/analysis/diff/"),                  # diff_match.c's warnings
]
# Calls whose code is an expression: each forwards a code a literal call made.
FORWARDERS = {
    ("src/analysis/nx/nx_attach.c", "it->code->code"),        # the NX result's issues, copied
    ("src/analysis/nx/nx_analyze.c", "n->items[i].code"),     # the decoder's notes
    ("src/analysis/attribution/device_report.c", "code"),          # the ISSUE macro's body
}
# Registered codes nothing emits yet, each with why it stays listed.
UNEMITTED = {
    "delegate.foreign_time_base": "listed since the first registry; no check detects a delegate "
                                  "event outside its DELEGATE_CALL interval yet",
}
# A literal, or a choice between two: COND ? "a" : "b".
LITERAL = re.compile(r'^(?:[^"?]+\?\s*)?"([^"\\]*)"(?:\s*:\s*"([^"\\]*)")?$')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def registry(etprof):
    text = subprocess.run([etprof, "analyze", "--list-issue-codes"], capture_output=True,
                          text=True, check=True).stdout
    analysis, _, diff = text.partition("\n## ")
    if not diff:
        sys.exit("FAIL: --list-issue-codes has no section of diff warnings")
    rows = re.compile(r"^\| `([^`]+)` \|", re.M)
    return {"analysis": set(rows.findall(analysis)), "diff": set(rows.findall(diff))}


def calls(root):
    """(file, scope, code argument) of every emitting call in src/."""
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            text = COMMENT.sub(" ", open(path, encoding="utf-8", errors="replace").read())
            for name, scope, where in EMITTERS:
                for m in re.finditer(r"(^[ \t]*#[^\n]*)?\b%s\(\s*([^,()]+(?:\([^()]*\))?[^,()]*),\s*"
                                     r"([^,]+?)\s*," % re.escape(name), text, re.M):
                    if m.group(1) or "const " in m.group(3):  # a definition, not a call
                        continue
                    yield rel, name, scope, where, m.group(3)


def main():
    etprof, root = sys.argv[1], sys.argv[2]
    reg = registry(etprof)
    bad, emitted = [], {"analysis": set(), "diff": set()}
    for rel, name, scope, where, arg in calls(root):
        if not rel.startswith(where):
            continue  # another function of that name (warn) elsewhere
        lit = LITERAL.match(arg)
        if not lit:
            if (rel, arg) not in FORWARDERS:
                bad.append(f"{rel}: {name}() with a code that is not a literal: {arg}")
            continue
        for code in filter(None, lit.groups()):
            emitted[scope].add(code)
            if code not in reg[scope]:
                bad.append(f"{rel}: {name}() emits {code}, which the registry does not hold "
                           f"for the {scope}")
    for scope in reg:
        for code in sorted(reg[scope] - emitted[scope] - set(UNEMITTED)):
            bad.append(f"registry: {code} ({scope}) is emitted nowhere")
    for code in sorted(set(UNEMITTED) & (emitted["analysis"] | emitted["diff"])):
        bad.append(f"{code} is emitted now: take it out of UNEMITTED")
    for b in bad:
        print("FAIL " + b)
    n = sum(len(v) for v in emitted.values())
    print(f"issue codes: {n} emitted ({len(emitted['analysis'])} analysis, "
          f"{len(emitted['diff'])} diff), {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
