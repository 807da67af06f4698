#!/usr/bin/env python3
"""The findings on the report page, in headless Chromium.

  findings_page_check.py WORKDIR

Publishes the analysis of a generated run whose delegation is fragmented (300
instructions, a DelegateCall every 10th, with its program and ETRecord), so
that findings fire, then checks:
  - the page's "etp-findings" data block is summary.json's "findings" (one
    JSON form for both);
  - in Chromium (ready state, no console message, no script error): the
    Findings panel lists every finding, a withheld one says so;
  - #finding=K clicks the K-th finding as a user would: exactly the table rows
    whose data-id is an affected entity id get highlighted, and exactly the
    drawn nodes of those entities (a delegate call also for its delegate
    events), counted here from the page's own data;
  - #exercise clicks every finding twice: the second click clears it;
  - screenshots with and without the click: both hold a drawing, and only the
    clicked one shows the selected finding's highlight colour.
The etprof binary is $ETPROF. Exit 77 when chromium is absent.
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import views_check  # noqa: E402  (chromium_binary, chromium_args, page_dom, selftest_of, png_info)
from views_check import ETPROF, HANG_GUARD, fail  # noqa: E402

SELECTED_BG = b"\xff\xe3\xc2"  # report.css: #findings-list li.on (and tr.fnd)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=HANG_GUARD)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def block(page, block_id):
    """The JSON value of the page's data block BLOCK_ID."""
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % block_id, page, re.S)
    if not m:
        fail("the page has no %s block" % block_id)
    return json.loads(m.group(1))


def expected_nodes(page, ids):
    """Drawn nodes a finding naming IDS highlights: a node whose id or whose
    entity's id is one of them, or a delegate call with such a delegate event."""
    data, ents = block(page, "etp-data"), block(page, "etp-ents")
    n = 0
    for view in data["views"]:
        for node in view["nodes"]:
            e = ents[node["e"]]["id"] if "e" in node else None
            dev = [ents[k]["id"] for k in node.get("dev", [])]
            n += node["id"] in ids or e in ids or any(d in ids for d in dev)
    return n


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    d = os.path.join(work, "in")
    os.makedirs(d, exist_ok=True)
    run([ETPROF, "gen", "etdump", "--instructions", "300", "--delegate-every", "10", "--backend", "vulkan",
         "--pte", os.path.join(d, "model.pte"), "--etrecord", os.path.join(d, "model.etrecord"),
         "-o", os.path.join(d, "run.etdp")])
    bundle = os.path.join(work, "bundle")
    run([ETPROF, "analyze", os.path.join(d, "model.etrecord"), "--etdump", os.path.join(d, "run.etdp"),
         "--pte", os.path.join(d, "model.pte"), "-o", bundle, "--force", "--quiet"])
    with open(os.path.join(bundle, "summary.json")) as f:
        findings = json.load(f)["findings"]
    index = os.path.join(bundle, "model_explorer", "index.html")
    with open(index) as f:
        page = f.read()
    if block(page, "etp-findings") != findings:
        fail("the page's findings differ from summary.json's")
    rows = [html.unescape(r) for r in re.findall(r'<tr data-id="([^"]*)"', page)]
    # The finding to click: the first whose entities have table rows.
    pick = next((k for k, f in enumerate(findings)
                 if any(e["id"] in rows for e in f["affected_entities"])), None)
    if pick is None:
        fail("no finding names an entity of the page's tables: %r" % [f["code"] for f in findings])
    ids = {e["id"] for e in findings[pick]["affected_entities"]}
    want_rows = [r for r in rows if r in ids]
    want_nodes = expected_nodes(page, ids)

    exe = views_check.chromium_binary()
    if not exe:
        print("SKIP: chromium is not installed (the page's data was checked)")
        return 77
    url = "file://" + os.path.abspath(index)

    def load(frag):
        dom = views_check.page_dom(exe, url + frag, "with '%s'" % frag, os.path.join(work, "console.log"))
        st = views_check.selftest_of(dom)
        if st["errors"]:
            fail("%s: script errors %r" % (frag, st["errors"]))
        return dom, st

    dom, st = load("")
    if st["findings"]["listed"] != len(findings) or st["findings"]["on"] != -1:
        fail("the panel lists %r; %d findings expected, none selected" % (st["findings"], len(findings)))
    panel = re.sub("<[^>]+>", " ", dom[dom.index('id="findings"'):dom.index("</section>", dom.index('id="findings"'))])
    for f in findings:
        if f["code"] not in panel or html.escape(f["message"], quote=False) not in panel:
            fail("the panel lacks %s: %s" % (f["code"], f["message"]))
        if f["status"] == "withheld" and "withheld: " + html.escape(f["message"], quote=False) not in panel:
            fail("withheld %s is not shown as withheld" % f["code"])
        for v in f["details"]["evidence"]:
            if v["name"] not in panel:
                fail("%s: evidence %s not shown" % (f["code"], v["name"]))

    dom, st = load("#finding=%d" % pick)
    last = st["findings"]["last"]
    if st["findings"]["on"] != pick or last["rows"] != want_rows or last["nodes"] != want_nodes:
        fail("clicking %s highlighted %r; expected rows %r and %d nodes" %
             (findings[pick]["code"], last, want_rows, want_nodes))
    lit = [html.unescape(r) for r in re.findall(r'<tr data-id="([^"]*)" class="[^"]*\bfnd\b', dom)]
    if lit != want_rows:
        fail("rows marked in the DOM %r, expected %r" % (lit, want_rows))
    drawn = len(re.findall(r'<g [^>]*class="n [^"]*\bfnd\b', dom))
    if want_nodes and not drawn:
        fail("no drawn node carries the highlight")

    _, st = load("#exercise")
    if st["exercised"]["findings"] != len(findings) or st["findings"]["on"] != -1:
        fail("a second click does not clear every finding: %r" % st["exercised"])

    shots = {}
    for name, frag in (("plain", ""), ("clicked", "#finding=%d" % pick)):
        png = os.path.join(work, "findings-%s.png" % name)
        if os.path.exists(png):
            os.unlink(png)
        with tempfile.TemporaryDirectory() as prof:
            subprocess.run(views_check.chromium_args(exe) + ["--user-data-dir=" + prof, "--virtual-time-budget=10000",
                                                             "--screenshot=" + png, url + frag],
                           capture_output=True, timeout=HANG_GUARD)
        if not os.path.exists(png):
            fail("no screenshot written for " + frag)
        counts = []
        (w, h, colours, _), = views_check.png_info(png, None, counts=counts)
        if (w, h) != (1600, 1200) or colours < 50:
            fail("%s: %dx%d with %d colours: not a drawing" % (png, w, h, colours))
        shots[name] = counts[0].get(SELECTED_BG, 0)
    if shots["plain"] or not shots["clicked"]:
        fail("the selected finding's colour: %d samples before the click, %d after" % (shots["plain"], shots["clicked"]))
    print("ok: %d findings on the page; clicking %s highlighted %d rows and %d nodes, a second click "
          "clears it; screenshots in %s" % (len(findings), findings[pick]["code"], len(want_rows), want_nodes, work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
