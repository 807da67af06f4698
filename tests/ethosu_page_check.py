#!/usr/bin/env python3
"""The Ethos-U split on the report page (headless Chromium).

  ethosu_page_check.py WORKDIR

Runs `etprof analyze` on the real Ethos-U-delegated MobileNetV2 program
(../shared/fixtures/pte-adapter/mobilenet_v2_ethosu/input.pte) with ETDumps
written here with flatc: 4 executions of quantize, the delegate call with
its EthosUBackend events (execute(), input copy, NPU), dequantize; one
where the NPU is the larger cost of the call and one where the CPU side is.
Checks, against the event times chosen here:
  - index.html has the "Ethos-U delegate calls" table: execute avg, NPU %,
    input copy %, rest % of forward_0_1 (exact values in data-v) and the
    verdict; a dump without EthosUBackend events has no such table;
  - in Chromium: the page reaches its ready state with no console message
    and no script error, shows 5 sortable tables, #node=forward_0_1 opens the
    details panel with the split and the verdict, #exercise drives every
    control without error.
The etprof binary is $ETPROF; fixtures under $ETP_FIXTURES. Exit 77 when the
fixture or chromium is absent.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etdump_build  # noqa: E402
import views_check  # noqa: E402  (chromium_binary, page_dom, selftest_of)
from etdump_build import pe  # noqa: E402
from views_check import ETPROF, FIXTURES, HANG_GUARD as GUARD, fail  # noqa: E402


def etdump(work, name, npu, copy, gap, ethosu=True):
    """4 executions; per execution k the NPU run takes npu + 10k ticks, the
    input copy copy + k, and execute() 10 + copy + npu + gap (+11k). Returns
    the path and the per-execution lists (execute, npu, copy)."""
    runs = [{"name": "Default", "events": [pe("Program::load_method", 0, 5, 25, -1)]}]
    ex, nn, cc = [], [], []
    for k in range(4):
        t = 100000 * (k + 1)
        n, c = npu + 10 * k, copy + k
        length = 10 + c + n + gap
        x0 = t + 400
        ev = [pe("OPERATOR_CALL", 0, t, t + 300), pe("native_call_quantize_per_tensor.out", 0, t + 5, t + 295),
              pe("DELEGATE_CALL", 1, x0 - 20, x0 + length + 15)]
        if ethosu:
            ev += [pe("+EthosUBackend::execute()handles.input.memcpy()", 1, x0 + 5, x0 + 5 + c),
                   pe("+EthosUBackend::execute()NPU", 1, x0 + 10 + c, x0 + 10 + c + n),
                   pe("EthosUBackend::execute()", 1, x0, x0 + length)]
        ev += [pe("OPERATOR_CALL", 2, x0 + length + 30, x0 + length + 200),
               pe("Method::execute", 0, t - 50, x0 + length + 300, -1)]
        runs.append({"name": "Execute", "events": ev})
        ex.append(length)
        nn.append(n)
        cc.append(c)
    return etdump_build.write(work, name, runs), ex, nn, cc


def publish(dump, pte, out):
    r = subprocess.run([ETPROF, "analyze", "--etdump", dump, "--pte", pte, "--source-unit", "cycles", "--unit",
                        "cycles", "-o", out, "--force", "--quiet"], capture_output=True, text=True, timeout=GUARD)
    if r.returncode != 0:
        fail("etprof analyze exited %d: %s" % (r.returncode, r.stderr))
    with open(os.path.join(out, "model_explorer", "index.html")) as f:
        return f.read()


def npu_row(html):
    """The cells (data-v or text) of forward_0_1's row in the Ethos-U table."""
    at = html.find('id="t-npu"')
    if at < 0:
        return None
    sec = html[at:html.index("</section>", at)]
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", sec):
        cells = re.findall(r'<td(?: data-v="([^"]*)")?[^>]*>(.*?)</td>', tr)
        if any("forward_0_1" in t for _, t in cells):
            return [v if v else re.sub("<[^>]+>", "", t) for v, t in cells]
    return []


def close(a, b):
    return abs(float(a) - b) <= 1e-9 * max(1.0, abs(b))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    pte = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
    if not os.path.exists(pte):
        print("SKIP: %s is absent" % pte)
        return 77
    # The NPU as the larger cost, then the CPU side (a long rest of the call).
    cases = (("npu", 2000, 150, 25, "the NPU is the larger cost of the call"),
             ("cpu", 400, 300, 500, "the CPU side (copies and the rest of the call) is the larger cost"))
    pages = {}
    for name, npu, copy, gap, verdict in cases:
        dump, ex, nn, cc = etdump(work, name, npu, copy, gap)
        html = publish(dump, pte, os.path.join(work, "bundle-" + name))
        row = npu_row(html)
        x, n, c = sum(ex) / 4, sum(nn) / 4, sum(cc) / 4
        # delegate call, instruction, calls/execution, execute avg, share of Method::execute, NPU %,
        # input copy %, rest %, verdict
        if not row or len(row) != 9 or row[1] != "forward_0_1" or not close(row[2], 1) or not close(row[3], x) \
                or not close(row[5], 100 * n / x) or not close(row[6], 100 * c / x) \
                or not close(row[7], 100 * (x - n - c) / x) or row[8] != verdict:
            fail("%s: the Ethos-U table row %r; expected execute %g, NPU %g%%, input copy %g%%, rest %g%%, %r" %
                 (name, row, x, 100 * n / x, 100 * c / x, 100 * (x - n - c) / x, verdict))
        pages[name] = (os.path.join(work, "bundle-" + name), verdict)
    plain, _, _, _ = etdump(work, "plain", 2000, 150, 25, ethosu=False)
    if npu_row(publish(plain, pte, os.path.join(work, "bundle-plain"))) is not None:
        fail("a dump without EthosUBackend events has an Ethos-U table")

    exe = views_check.chromium_binary()
    if not exe:
        print("SKIP: chromium is not installed (the page's HTML was checked)")
        return 77
    def dom(bundle, frag):
        url = "file://" + os.path.abspath(os.path.join(bundle, "model_explorer", "index.html"))
        text = views_check.page_dom(exe, url + frag, "with '%s'" % frag)
        st = views_check.selftest_of(text)
        if st["errors"]:
            fail("%s: script errors %r" % (frag, st["errors"]))
        return text, st

    for name, (bundle, verdict) in pages.items():
        text, st = dom(bundle, "")
        if st["tables"] != 5 or "Ethos-U delegate calls" not in text:
            fail("%s: %d sortable tables (the Ethos-U one among them expected: 5)" % (name, st["tables"]))
        text, st = dom(bundle, "#node=forward_0_1")
        panel = text[text.find('id="panel"'):] if 'id="panel"' in text else text
        panel = re.sub("<[^>]+>", " ", panel)
        for want in ("Ethos-U delegate call (per execution)", "execute() avg (cycles)", "NPU",
                     "input copy (CPU)", "rest of the call (CPU)", verdict):
            if want not in panel:
                fail("%s: the details panel of forward_0_1 lacks %r" % (name, want))
        text, st = dom(bundle, "#exercise")
        ex = st["exercised"]
        if not ex or not ex["selected"] or not ex["sorted"]:
            fail("%s: exercise incomplete: %r" % (name, ex))
    print("ok: the Ethos-U table and details panel on the page (NPU-bound and CPU-bound dumps), no console "
          "message, every control exercised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
