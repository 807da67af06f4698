#!/usr/bin/env python3
"""The VGF delegate in a published bundle and on its page (headless Chromium).

  vgf_page_check.py WORKDIR

Runs `etprof analyze` on the real VGF-delegated MobileNetV2 program
(../shared/fixtures/pte-adapter/mobilenet_v2_vgf/input.pte) with a small
ETDump written here with flatc (3 executions: quantize, the delegate call,
dequantize), then checks:
  - the bundle's graph.json carries the delegate's TOSA graph under the
    delegate-call node's id (189 nodes, as expected_delegates.json);
  - the page: #node=forward_0_1 shows the "Open the VGF graph" button in the
    details panel; #vgf=forward_0_1&vgfnode=1 opens the graph with every
    node inside the drawing and the Transpose op's details (SPIR-V result id
    %18385 and tensor<1x224x224x3xi8>, both read off the bytes in
    shared/specs/vgf.md 3.6); no console message, the ready marker set;
  - a screenshot of the opened graph (kept in WORKDIR) holds a drawing;
  - the "VGF NX cycles" section of a generated VGF-statistics run (etprof gen
    vgf-stats): every segment / cascade / chain row's figures and share of its
    parent equal tests/nx_stats_oracle.py's own decode, the notes say cycles
    and group measurement, #nx=<chain> opens the path to it, the VGF graph
    colours exactly the nodes the debug database links (with their chain's
    cycles in the panel); no console message; a screenshot of the section.
The etprof binary is $ETPROF; fixtures under $ETP_FIXTURES. Exit 77 when the
fixture or chromium is absent.
"""
import html
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etdump_build  # noqa: E402
import views_check  # noqa: E402  (png_info, chromium_binary, page_dom)
from etdump_build import SCHEMA, pe  # noqa: E402
from views_check import ETPROF, FIXTURES, HANG_GUARD as GUARD, fail  # noqa: E402


def etdump(work):
    runs = [{"name": "Default", "events": [pe("Method::init", 0, 10, 20, -1),
                                           pe("Program::load_method", 0, 5, 25, -1)]}]
    t = 1000
    for r in range(3):
        d = 100 * r
        runs.append({"name": "Execute", "events": [
            pe("native_call_quantize_per_tensor.out", 0, t + 1, t + 50),
            pe("OPERATOR_CALL", 0, t, t + 60),
            pe("DELEGATE_CALL", 1, t + 70, t + 5000 + d),
            pe("native_call_dequantize_per_tensor.out", 2, t + 5201 + d, t + 5240 + d),
            pe("OPERATOR_CALL", 2, t + 5200 + d, t + 5250 + d),
            pe("Method::execute", 0, t - 5, t + 5300 + d, -1)]})
        t += 10000
    return etdump_build.write(work, "run", runs)


def page_state(text, attr):
    at = text.find(attr + '="')
    if at < 0:
        fail("no %s on the page" % attr)
    raw = text[at + len(attr) + 2:text.index('"', at + len(attr) + 2)]
    return json.loads(raw.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def nx_rows(text):
    """The NX tree's rows as drawn: id -> (class, [data-v of its numeric cells])."""
    rows = {}
    for m in re.finditer(r'<tr class="(nx-[a-z]+)[^"]*" data-nx-id="([^"]+)"[^>]*>(.*?)</tr>', text, re.S):
        vals = re.findall(r'<td class="num[^"]*" data-v="([^"]*)"', m.group(3))
        rows[html.unescape(m.group(2))] = (m.group(1), vals, m.group(0))
    return rows


def nx_page(work, pte, base):
    """The "VGF NX cycles" section of a generated VGF-statistics run (etprof gen
    vgf-stats, Mali-G1 mode 0, 3 executions): every group's figures equal the
    oracle's (nx_stats_oracle.oracle(): flatc + its own decode), the notes say
    cycles / group measurement, the deep link opens the path to a chain; the
    VGF graph colours exactly the TOSA nodes the debug database links, each
    with its chain; no console message; a screenshot of the section."""
    import nx_stats_oracle as vo
    vo.SCHEMA_DIR = SCHEMA
    gen = os.path.join(work, "gen")
    subprocess.run(["rm", "-rf", gen])
    r = subprocess.run([ETPROF, "gen", "vgf-stats", "--pte", pte, "-o", gen, "--executions", "3"],
                       capture_output=True, text=True, timeout=GUARD)
    if r.returncode:
        fail("gen vgf-stats: " + r.stderr)
    etdp = os.path.join(gen, "g1_mode0_v2.etdp")
    out = os.path.join(work, "bundle_nx")
    r = subprocess.run([ETPROF, "analyze", "--etdump", etdp, "--pte", pte, "-o", out, "--force", "--quiet"],
                       capture_output=True, text=True, timeout=GUARD)
    if r.returncode:
        fail("etprof analyze (VGF statistics) exited %d: %s" % (r.returncode, r.stderr))
    with tempfile.TemporaryDirectory() as tmp:
        execs = vo.oracle(etdp, "Mali-G1", 0, tmp)
        dump = json.load(open(subprocess.run(
            ["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o", tmp,
             os.path.join(SCHEMA, "etdump.fbs"), "--", etdp], check=True) and os.path.join(tmp, "g1_mode0_v2.json")))
    # The debug database of the (single) segment: TOSA op -> SPIR-V id, chain -> TOSA ops.
    import base64
    ddb = None
    for rd in dump["run_data"]:
        for e in rd.get("events", []):
            pe_ = e.get("profile_event", {})
            if pe_.get("delegate_debug_id_str") == "VGF_NEURAL_STATISTICS":
                w = json.loads(bytes(pe_["delegate_debug_metadata"]).decode())
                ddb = base64.b64decode(w["segments"][0]["debug_database"]["data"])
                break
        if ddb:
            break
    sid_of = vo.linked_spirv_ids(ddb)
    tosa_of = vo.chain_tosa_ops(ddb)
    chain_of_sid = {}
    for ch, ops in tosa_of.items():
        for t in ops:
            if t in sid_of:
                chain_of_sid.setdefault(sid_of[t], "chain/segment_0/" + ch)
    ids = set().union(*[set(e) for e in execs])
    want = {}
    for k in ids:
        if k.startswith("stripe/"):
            continue
        per = [ex[k] for ex in execs if k in ex]
        tot = [p[0] for p in per]
        want[k] = {"avg": sum(tot) / len(tot), "op": sum(p[1] for p in per) / len(per), "min": min(tot),
                   "med": statistics.median(tot), "max": max(tot), "n": len(per)}
    parent = {k: v["parent"] for k, v in vo.STRUCTURE.items()}
    for k in want:
        if k.startswith("segment/"):
            parent[k] = "model"  # the oracle's "model" sums every stripe of every segment
    chains = sorted(k for k in want if k.startswith("chain/") and "chain_" not in k)
    pick = chains[1]
    url = "file://" + os.path.abspath(os.path.join(out, "model_explorer", "index.html"))
    tall = [a if not a.startswith("--window-size") else "--window-size=1600,5200" for a in base]
    with tempfile.TemporaryDirectory() as prof:
        p = subprocess.run(tall + ["--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0",
                                   "--dump-dom", url + "#nx=" + pick], capture_output=True, timeout=GUARD)
    text, log = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    for line in log.splitlines():
        if "Uncaught" in line or "ERROR:CONSOLE" in line or ":CONSOLE(" in line:
            fail("NX page: console message: " + line)
    if 'data-etprof-ready="1"' not in text:
        fail("NX page: not ready")
    st = page_state(text, "data-etprof-nx")
    rows = nx_rows(text)
    if st["errors"] or set(rows) != set(want) or st["rows"] != len(rows):
        fail("NX tree: state %r; rows only on the page %s, only in the oracle %s" % (
            st, sorted(set(rows) - set(want))[:3], sorted(set(want) - set(rows))[:3]))
    checked = 0
    for k, v in want.items():
        cls, vals, _ = rows[k]
        if cls != "nx-" + k.split("/")[0]:
            fail("NX row %s drawn as %s" % (k, cls))
        got = dict(zip(("avg", "op", "min", "med", "max", "n"), (float(x) for x in vals[:6])))
        for name, x in v.items():
            if abs(got[name] - x) > 1e-6 * max(1.0, abs(x)):
                fail("NX row %s %s: page %s, oracle %s" % (k, name, got[name], x))
        checked += 1
        if k == "model":
            if vals[6] != "":
                fail("NX model row: a share of parent %r" % vals[6])
            continue
        pk = parent[k]
        pv = want[pk]
        share = vals[6]
        if pv["n"] == v["n"] and pv["avg"] > 0:
            if abs(float(share) - round(100 * v["avg"] / pv["avg"], 1)) > 1e-9:
                fail("NX row %s: share of parent %s, oracle %.1f" % (k, share, 100 * v["avg"] / pv["avg"]))
        elif share != "":
            fail("NX row %s: a share %s of a parent measured in other executions" % (k, share))
    sec = text[text.find('id="t-nx"'):]
    for words in ("VGF NX cycles", "cycles</b>", "not elapsed time", "group measurement",
                  "not the cost of any operator"):
        if words not in sec:
            fail("NX section lacks %r" % words)
    if "nx-model-note" in sec:
        fail("NX section: the model summary is said unavailable although coverage agrees")
    # Deep link: the chain selected, its cascade opened (the default shows the model,
    # segments and cascades).
    n_open = sum(1 for k in want if k.split("/")[0] in ("model", "segment", "cascade"))
    n_open += sum(1 for k in want if k.startswith("chain/") and parent[k] == parent[pick])
    if st["selected"] != pick or st["visible"] != n_open or 'class="nx-chain sel"' not in rows[pick][2]:
        fail("NX deep link #nx=%s: %r, expected %d rows shown" % (pick, st, n_open))
    # The VGF graph: the nodes the debug database links carry their chain.
    raw = open(os.path.join(out, "model_explorer", "index.html"), encoding="utf-8").read()
    blk = raw[raw.index('id="etp-vgf">') + len('id="etp-vgf">'):]
    g = json.loads(blk[:blk.index("</script>")].replace("\\u003c", "<"))["graphs"][0]
    linked = [n for n in g["nodes"] if n.get("sid") in chain_of_sid]
    for n in g["nodes"]:
        if n.get("nx") != chain_of_sid.get(n.get("sid")):
            fail("VGF node %s (%%%s): chain %r, the debug database says %r" % (
                n["id"], n.get("sid"), n.get("nx"), chain_of_sid.get(n.get("sid"))))
    with tempfile.TemporaryDirectory() as prof:
        p = subprocess.run(base + ["--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0", "--dump-dom",
                                   url + "#vgf=forward_0_1&vgfnode=" + linked[0]["id"]],
                           capture_output=True, timeout=GUARD)
    text = p.stdout.decode(errors="replace")
    for line in p.stderr.decode(errors="replace").splitlines():
        if "Uncaught" in line or "ERROR:CONSOLE" in line or ":CONSOLE(" in line:
            fail("VGF graph with NX cycles: console message: " + line)
    vst = page_state(text, "data-etprof-vgf")
    side = text[text.find('id="etp-vgf-view"'):]
    ch = chain_of_sid[linked[0]["sid"]]
    mean = "{:,}".format(int(round(want[ch]["avg"])))
    if vst["errors"] or vst.get("nx_nodes") != len(linked) or ch not in side or mean not in side \
            or "Group measurement" not in side or "etp-vgf-nx-key" not in side:
        fail("VGF graph with NX cycles: state %r, %d linked nodes; panel lacks %s / %s / the note" % (
            vst, len(linked), ch, mean))
    png = os.path.join(work, "nx-tree.png")
    if os.path.exists(png):
        os.unlink(png)
    with tempfile.TemporaryDirectory() as prof:
        subprocess.run(tall + ["--user-data-dir=" + prof, "--screenshot=" + png, url + "#nx=" + pick],
                       capture_output=True, timeout=GUARD)
    if not os.path.exists(png):
        fail("no screenshot of the NX tree written")
    (w, h, colours, _), (_, _, acolours, ink) = views_check.png_info(png, None, st["area"])
    if (w, h) != (1600, 5200) or colours < 50 or acolours < 30 or ink < 0.03:
        fail("%s: %dx%d, %d colours, %d in the NX section %r covering %.1f%%: not drawn"
             % (png, w, h, colours, acolours, st["area"], 100 * ink))
    print("ok: VGF NX cycles on the page: %d rows equal the oracle, %d VGF nodes coloured by their chain; "
          "screenshot %s (%d colours, %.1f%% ink in the section)" % (checked, len(linked), png, acolours, 100 * ink))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    pte = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    if not os.path.exists(pte):
        print("SKIP: %s is absent" % pte)
        return 77
    exe = views_check.chromium_binary()
    if not exe:
        print("SKIP: chromium is not installed")
        return 77
    out = os.path.join(work, "bundle")
    r = subprocess.run([ETPROF, "analyze", "--etdump", etdump(work), "--pte", pte, "-o", out,
                        "--force", "--quiet"], capture_output=True, text=True, timeout=GUARD)
    if r.returncode not in (0,):
        fail("etprof analyze exited %d: %s" % (r.returncode, r.stderr))
    with open(os.path.join(out, "model_explorer", "graph.json")) as f:
        graphs = {g["id"]: g for g in json.load(f)["graphs"]}
    if "forward_0_1" not in graphs or len(graphs["forward_0_1"]["nodes"]) != 189:
        fail("graph.json: no 189-node VGF graph forward_0_1 (%r)" %
             {k: len(g["nodes"]) for k, g in graphs.items()})
    call = [n for n in graphs["forward"]["nodes"] if n["id"] == "forward_0_1"]
    if not call or call[0]["subgraphIds"] != ["forward_0_1"]:
        fail("graph.json: the delegate call does not link to its VGF graph")
    url = "file://" + os.path.abspath(os.path.join(out, "model_explorer", "index.html"))
    base = views_check.chromium_args(exe) + ["--virtual-time-budget=10000"]

    def dom(frag):
        text = views_check.page_dom(exe, url + frag, "with '%s'" % frag)
        at = text.find('data-etprof-vgf="')
        if at < 0:
            fail("%s: no VGF state on the page" % frag)
        raw = text[at + len('data-etprof-vgf="'):text.index('"', at + len('data-etprof-vgf="'))]
        state = json.loads(raw.replace("&quot;", '"').replace("&amp;", "&")
                           .replace("&lt;", "<").replace("&gt;", ">"))
        if state["errors"]:
            fail("%s: VGF script errors %r" % (frag, state["errors"]))
        return text, state

    text, st = dom("#node=forward_0_1")
    if st.get("button") != "forward_0_1" or "Open the VGF graph (184 TOSA ops)" not in text:
        fail("the delegate node's panel has no button to open its VGF graph: %r" % st)
    text, st = dom("#vgf=forward_0_1&vgfnode=1")
    if st["opened"] != "forward_0_1" or st["nodes"] != 189 or st["placed"] != 189 \
            or st["selected"] != "1":
        fail("opened VGF graph: %r" % st)
    side = text[text.find('id="etp-vgf-view"'):]
    for want in ("TRANSPOSE", "%18385", "!spirv.arm.tensor&lt;1x224x224x3xi8&gt;",
                 "!spirv.arm.tensor&lt;1x3x224x224xi8&gt;", "[0, 2, 3, 1]"):
        if want not in side:
            fail("the Transpose node's details lack %r" % want)
    png = os.path.join(work, "vgf-graph.png")
    if os.path.exists(png):
        os.unlink(png)
    with tempfile.TemporaryDirectory() as prof:
        subprocess.run(base + ["--user-data-dir=" + prof, "--screenshot=" + png,
                               url + "#vgf=forward_0_1&vgfnode=11"],
                       capture_output=True, timeout=GUARD)
    if not os.path.exists(png):
        fail("no screenshot written")
    # The graph's drawing: the overlay's left part, below its title bar.
    (w, h, colours, _), (_, _, acolours, ink) = views_check.png_info(png, None, (30, 70, 1180, 1100))
    if (w, h) != (1600, 1200) or colours < 50 or acolours < 30 or ink < 0.03:
        fail("%s: %dx%d, %d colours, %d in the drawing covering %.1f%%: not a drawing"
             % (png, w, h, colours, acolours, 100 * ink))
    print("ok: VGF graph in the bundle and on the page; screenshot %s (%d colours, %.1f%% ink)"
          % (png, acolours, 100 * ink))
    nx_page(work, pte, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
