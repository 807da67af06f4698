#!/usr/bin/python3
"""The report page says what the terminal says: its header figures are the
CLI's (same labels, same scaled digits, runner figures included), its tab
badges count instructions and operators (not the inputs/outputs
pseudo-nodes), and a view whose nodes all have one value colours them from 0
(the only node, 92% of execute, is drawn as the costly one, not green).

usage: page_figures.py ETPROF FIXTURES_DIR
"""
import json
import os
import re
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


def page_data(page):
    tag = '<script type="application/json" id="etp-data">'
    i = page.index(tag) + len(tag)
    return json.loads(page[i:page.index("</script>", i)])


with tempfile.TemporaryDirectory() as tmp:
    for name in ["et_add_x10", "cm_et_arduino_kws_x10"]:
        p = os.path.join(R, name)
        files = [p + ".etdp", p + ".pte", p + ".log"] + ([p + ".etrecord"] if os.path.exists(p + ".etrecord") else [])
        out = os.path.join(tmp, name)
        rc = subprocess.run([ETPROF, "analyze", *files, "-o", out, "--quiet"]).returncode
        text = subprocess.run([ETPROF, "analyze", *files], stdout=subprocess.PIPE, text=True).stdout
        page = open(os.path.join(out, "model_explorer", "index.html"), encoding="utf-8").read()
        header = page[page.index("<header>"):page.index("</header>")]
        chips = re.findall(r'<span class="fig">([^<]+) <b>([^<]+)</b> (\S+) avg <small>\(p50 ([^,]+), n=(\d+)\)', header)
        # The terminal rows: label, then avg p50 min max under per-column unit headers.
        lines = text.splitlines()
        cli = {}
        units = None
        for ln in lines:
            m = re.match(r"^\S.*?\s+avg (\S+)\s+p50 (\S+)\s+min (\S+)\s+max (\S+)$", ln)
            if m:
                units = m.groups()
                continue
            m = re.match(r"^  (\S.*?)\s{2,}(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+n=(\d+)", ln)
            if m and units:
                cli[m.group(1)] = (m.group(2), units[0], m.group(3), m.group(6))
        # The page's chips for the runner carry "runner " before the CLI's row label.
        ok = rc == 0 and len(chips) >= 4
        for label, avg, unit, p50, n in chips:
            key = label[len("runner "):] if label.startswith("runner ") else label
            row = cli.get(key)
            same = False
            # The chip scales avg and p50 together, the table each column: compare in ms.
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
            if row is not None:
                # Both print three decimals, each in its own unit: equal to the coarser one's rounding.
                tol = 5e-4 * max(scale[unit], scale[row[1]]) * 1.0001
                same = abs(float(avg.replace(",", "")) * scale[unit] - float(row[0].replace(",", "")) * scale[row[1]]) <= tol and row[3] == n
            ok &= same
            if not same:
                print("  chip %r %s %s vs terminal %r" % (label, avg, unit, row))
        expect(ok and any(c[0] == "native kernels" for c in chips) and any(c[0].startswith("runner ") for c in chips),
               "%s: header figures are the terminal's (%d chips, runner figures included)" % (name, len(chips)))
        d = page_data(page)
        badges = [int(b) for b in re.findall(r'role="tab" data-view="\d+"[^>]*>[^<]*<small>(\d+)</small>', page)]
        views = d["views"]
        real = [sum(1 for c in v["k"] if v["kinds"][int(c)] not in ("in", "out")) for v in views]
        prog = json.loads(subprocess.run([ETPROF, "dump", "--json", p + ".pte"], stdout=subprocess.PIPE).stdout)
        n_instr = len(prog["execution_plan"][0]["chains"][0]["instructions"])
        expect(badges == real and badges[0] == n_instr,
               "%s: tab badges %s count instructions (%d) and operators, not pseudo-nodes" % (name, badges, n_instr))
        if name == "et_add_x10":
            v = views[0]
            M = v["metrics"][0]
            idx = [i for i, n in enumerate(v["nodes"]) if M["v"][i] is not None]
            colours = {M["bg"][6 * i:6 * i + 6] for i in idx}
            expect(len(idx) == 1 and colours == {"d73027"} and M["min"] == 0,
                   "et_add_x10: the only timed node is drawn at the top of a scale from 0 (%s)" % colours)

    # The executions table reads the analysis' own per-execution figures: on a VGF capture,
    # whose VGF call time the analysis keeps apart, its columns are detailed/figures.csv's values
    # execution by execution (framework overhead included, not Method::execute minus the rest).
    V = os.path.join(FIX, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    gvs, vb = os.path.join(tmp, "gvs"), os.path.join(tmp, "vgf")
    rc = subprocess.run([ETPROF, "gen", "vgf-stats", "--pte", V, "-o", gvs], stdout=subprocess.DEVNULL).returncode
    rc |= subprocess.run([ETPROF, "analyze", os.path.join(gvs, "g1_mode0_v2.etdp"), V, "-o", vb, "--detailed",
                          "--quiet"]).returncode
    per_exec = {}
    with open(os.path.join(vb, "detailed", "figures.csv"), encoding="utf-8") as f:
        for row in list(f)[1:]:
            fig, execution, _, value = row.strip().split(",")
            per_exec.setdefault(fig, {})[int(execution)] = value
    page = open(os.path.join(vb, "model_explorer", "index.html"), encoding="utf-8").read()
    table = page[page.index('id="t-exec"'):]
    table = table[table.index("<tbody>"):table.index("</tbody>")]
    rows = [re.findall(r'<td data-v="([^"]*)"', r) for r in table.split("<tr>")[1:]]
    cols = ["method_execute", "instructions_total", "delegate_calls_total", "operator_calls_total",
            "framework_overhead"]
    # (a dash where the execution had no such events: figures.csv holds a total of 0 there)
    same = rc == 0 and rows and all(r[2] and r[6] for r in rows) and all(
        r[2 + k] in ("", per_exec.get(c, {}).get(int(r[0]))) for r in rows for k, c in enumerate(cols))
    expect(same and float(rows[0][6]) < 0.01 * float(rows[0][2]),
           "VGF capture: the executions table is figures.csv's, framework overhead %s ms of %s ms (VGF calls kept apart)"
           % (rows[0][6] if rows else "?", rows[0][2] if rows else "?"))

sys.exit(1 if failures else 0)
