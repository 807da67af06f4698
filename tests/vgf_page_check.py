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
  - a screenshot of the opened graph (kept in WORKDIR) holds a drawing.
The etprof binary is $ETPROF; fixtures under $ETP_FIXTURES. Exit 77 when the
fixture or chromium is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import views_check  # noqa: E402  (png_info, chromium_binary)

ETPROF = os.environ.get("ETPROF", "etprof")
FIXTURES = os.environ.get("ETP_FIXTURES", "")
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema")
GUARD = 600  # seconds: against a hung child, not a timing assertion


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def pe(name, instr, start, end, chain=0):
    return {"profile_event": {"name": name, "chain_index": chain, "instruction_id": instr,
                              "start_time": start, "end_time": end}}


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
    src = os.path.join(work, "run.json")
    with open(src, "w") as f:
        json.dump({"run_data": runs}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", work,
                    os.path.join(SCHEMA, "etdump.fbs"), src], check=True)
    return os.path.join(work, "run.etdp")


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
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--window-size=1600,1200", "--virtual-time-budget=10000"]

    def dom(frag):
        with tempfile.TemporaryDirectory() as prof:
            p = subprocess.run(base + ["--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0",
                                       "--dump-dom", url + frag],
                               capture_output=True, timeout=GUARD)
        text, log = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
        for line in log.splitlines():
            if "Uncaught" in line or "ERROR:CONSOLE" in line or ":CONSOLE(" in line:
                fail("console message with %s: %s" % (frag, line))
        if 'data-etprof-ready="1"' not in text:
            fail("%s: the page did not reach its ready state" % frag)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
