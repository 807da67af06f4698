#!/usr/bin/env python3
"""history_check.py - scenario tests of the run history's outputs (etprof/history_io.h),
on histories built in memory by tests/support/history_demo.c.

  history_check.py outputs DEMO WORKDIR       runs, trends, verdicts: schemas, columns, rules, bytes
  history_check.py exports DEMO WORKDIR       csv, jsonl, pytorch-v3: schemas and the label mapping
  history_check.py hostile DEMO WORKDIR       quotes, <script>, ;, non-UTF-8 bytes, 10 kB: read back
  history_check.py chromium DEMO WORKDIR      the trend page in headless Chromium (exit 77 if absent)
  history_check.py chromium-big DEMO WORKDIR  100,000 points: size and drawing time

The demo history: 3 devices x 2 metrics x 40 hourly points; pixel7's method_execute.avg
steps up 25% four runs before the end, galaxy-s24's memory.planned creeps 1% a run over the
last 20 runs, rpi5 is flat. The JSON Schemas are schemas/json/history_runs.v1, trend.v1,
regressions.v1, exports/history_export.v1 and exports/pytorch_v3 ($ETP_SOURCE_DIR). Screenshots stay in WORKDIR. Standard library plus
python3-jsonschema (Debian).
"""
import base64
import codecs
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import views_check  # noqa: E402  (headless Chromium helpers and the PNG reader)

SRC = os.environ.get("ETP_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HANG_GUARD = 600
BIG_BUDGET_MS = int(os.environ.get("ETP_HISTORY_PAINT_BUDGET_MS", "5000"))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def demo(exe, what, work, *args):
    """Bytes of `history_demo WHAT` (written to a file in WORK)."""
    out = os.path.join(work, what + "".join(a.replace("-", "_") for a in args))
    p = subprocess.run([exe, what, out] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=HANG_GUARD)
    if p.returncode != 0:
        fail("history_demo %s exited %d: %s" % (what, p.returncode, p.stderr.decode(errors="replace")))
    with open(out, "rb") as f:
        return f.read()


def validator(name):
    import jsonschema
    with open(os.path.join(SRC, "schemas", "json", name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(v, doc, what):
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s does not match its schema: %s at %s" % (what, errors[0].message[:300], list(errors[0].path)))


def stray_bytes(err):
    """JSON's rule for bytes that are not UTF-8: the character of the same value."""
    return ("".join(chr(b) for b in err.object[err.start:err.end]), err.end)


codecs.register_error("etp_stray", stray_bytes)


def as_json_text(b):
    """How the page shows label bytes: stray bytes as the character of the same value."""
    return b.decode("utf-8", "etp_stray")


def as_json_value(b):
    """How JSON documents carry label bytes (as run_metadata.json does): a
    string when they are UTF-8, else {"base64": ...}, exact either way."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(b).decode()}


def csv_rows(b):
    """CSV rows as lists of byte strings (latin-1 keeps every byte as one character)."""
    rows = list(csv.reader(io.StringIO(b.decode("latin-1"), newline="")))
    return [[c.encode("latin-1") for c in r] for r in rows]


# ---- outputs ----------------------------------------------------------------------------

def outputs(exe, work):
    docs = {}
    for what, schema in (("runs-json", "history_runs"), ("trend-json", "trend"), ("regressions-json", "regressions")):
        v = validator(schema + ".v1.schema.json")
        b = demo(exe, what, work, "--executions", "4")
        if b != demo(exe, what, work, "--executions", "4"):
            fail(what + ": two writes of the same history differ")
        docs[what] = json.loads(b)
        validate(v, docs[what], what)
    runs, trend, reg = docs["runs-json"]["runs"], docs["trend-json"]["series"], docs["regressions-json"]
    if len(runs) != 120 or len(trend) != 6 or any(len(s["points"]) != 40 for s in trend):
        fail("expected 120 runs and 6 series of 40 points, got %d runs, %d series" % (len(runs), len(trend)))
    # The rules on the demo history: the step and the creep are found where they
    # are, nothing else is.
    verdicts = {(s["group"]["device"], s["metric"]): s["regression"] for s in reg["series"]}
    step = verdicts[("pixel7", "method_execute.avg")]
    creep = verdicts[("galaxy-s24", "memory.planned")]
    if step["verdict"] != "regression" or step["change"]["index"] != 36 or not 20 < step["change_pct"] < 30:
        fail("the 25%% step at point 36 is not reported as such: %r" % step)
    if step["ratio_interval"] is None or step["ratio_interval"][0] <= 1:
        fail("the step's executions give no interval above 1: %r" % step["ratio_interval"])
    if creep["verdict"] != "regression" or creep["change"]["index"] < 30:
        fail("the creep is not reported: %r" % creep)
    others = [k for k, r in verdicts.items() if r["verdict"] != "ok" and k not in
              (("pixel7", "method_execute.avg"), ("galaxy-s24", "memory.planned"))]
    if others or reg["counts"] != {"regression": 2, "suspicious": 0, "insufficient_data": 0, "ok": 4}:
        fail("unexpected verdicts: %r, counts %r" % (others, reg["counts"]))
    if step["change"]["run_id"] != trend[0]["points"][36]["run_id"]:
        fail("the change point names another run")
    # The same verdicts in the trend's "regression" members.
    for s in trend:
        if s["regression"] != verdicts[(s["group"]["device"], s["metric"])]:
            fail("trend and regressions disagree on %s" % s["series"])
    # Text: one line per series, regressions first, and the counts.
    text = demo(exe, "regressions-text", work, "--executions", "4").decode()
    lines = text.splitlines()
    if len(lines) != 7 or not lines[0].startswith("regression") or not lines[1].startswith("regression") \
            or "2 regression, 0 suspicious, 0 insufficient_data, 4 ok" not in lines[-1]:
        fail("regressions text:\n" + text)
    if "since run 37" not in text:
        fail("the text does not name the run where the step began:\n" + text)
    # CSV: the header is the fields' names; one row per point / run; the values
    # are the JSON's.
    tcsv = csv_rows(demo(exe, "trend-csv", work, "--executions", "4"))
    head = [h.decode() for h in tcsv[0]]
    if head[:5] != ["series", "metric", "entity", "unit", "lower_is_better"] or len(tcsv) != 1 + 240:
        fail("trend CSV: header %r, %d rows" % (head, len(tcsv)))
    row = dict(zip(head, (c.decode() for c in tcsv[1 + 36])))
    p36 = trend[0]["points"][36]
    if row["run_id"] != p36["run_id"] or float(row["value"]) != p36["value"] or \
            row["label_commit"] != p36["labels"]["commit"] or json.loads(row["labels"]) != p36["labels"]:
        fail("trend CSV row 36 differs from the JSON: %r" % row)
    rcsv = csv_rows(demo(exe, "runs-csv", work, "--executions", "4"))
    rhead = [h.decode() for h in rcsv[0]]
    if len(rcsv) != 121 or [k for k in rhead if not k.startswith("label_")] != list(runs[0].keys()):
        fail("runs CSV header %r against the JSON's %r" % (rhead, list(runs[0].keys())))
    rt = demo(exe, "runs-text", work, "--executions", "4").decode()
    if len(rt.splitlines()) != 122 or "120 runs" not in rt:
        fail("runs text: %d lines" % len(rt.splitlines()))
    print("ok: runs, trend and verdicts (json, csv, text) match their schemas and each other; "
          "step at %d (%+.1f%%, interval %r), creep at %d (%+.1f%%)" %
          (step["change"]["index"], step["change_pct"], step["ratio_interval"], creep["change"]["index"],
           creep["change_pct"]))


# ---- exports ----------------------------------------------------------------------------

def exports(exe, work):
    row_v, v3 = validator("exports/history_export.v1.schema.json"), validator("exports/pytorch_v3.schema.json")
    columns = json.load(open(os.path.join(SRC, "schemas", "json", "exports", "history_export.v1.schema.json")))["required"]
    c = demo(exe, "csv", work, "--executions", "3")
    j = demo(exe, "jsonl", work, "--executions", "3")
    p = demo(exe, "pytorch-v3", work, "--executions", "3")
    for name, b in (("csv", c), ("jsonl", j), ("pytorch-v3", p)):
        if b != demo(exe, name, work, "--executions", "3"):
            fail(name + ": two exports of the same history differ")
    rows = csv_rows(c)
    head = [h.decode() for h in rows[0]]
    if head != columns:
        fail("CSV columns %r are not the documented %r" % (head, columns))
    lines = j.decode().splitlines()
    if len(lines) != 240 or len(rows) != 241:
        fail("expected 240 metric rows: %d JSON lines, %d CSV rows" % (len(lines), len(rows) - 1))
    for n, (line, row) in enumerate(zip(lines, rows[1:])):
        rec = json.loads(line)
        validate(row_v, rec, "jsonl line %d" % (n + 1))
        if list(rec.keys()) != columns:
            fail("jsonl line %d: keys in another order" % (n + 1))
        cells = dict(zip(head, (x.decode() for x in row)))
        for k, val in rec.items():
            cell = cells[k]
            same = (cell == "" if val is None else
                    json.loads(cell) == val if isinstance(val, (dict, list)) else
                    cell == ("true" if val else "false") if isinstance(val, bool) else
                    float(cell) == val if isinstance(val, (int, float)) else cell == val)
            if not same:
                fail("line %d: %s is %r in JSON Lines, %r in CSV" % (n + 1, k, val, cell))
    recs = [json.loads(x) for x in p.decode().splitlines()]
    if len(recs) != 240:
        fail("pytorch-v3: %d records, expected 240" % len(recs))
    for n, (rec, line) in enumerate(zip(recs, lines)):
        validate(v3, rec, "pytorch-v3 record %d" % (n + 1))
        row = json.loads(line)
        want = {
            "timestamp": row["published_ms"] // 1000, "head_sha": row["labels"]["commit"],
            "head_branch": row["labels"]["branch"], "name": "etprof",
        }
        for k, val in want.items():
            if rec[k] != val:
                fail("pytorch-v3 record %d: %s is %r, expected %r" % (n + 1, k, rec[k], val))
        if rec["runners"][0]["name"] != row["label_device"] or rec["runners"][0]["type"] != row["label_device"] \
                or rec["model"]["name"] != row["label_model"]:
            fail("pytorch-v3 record %d: device or model not mapped" % (n + 1))
        m = rec["metric"]
        values = row["execution_values"] if row["sample_count"] else [row["value"]]
        if m["name"] != "%s(%s)" % (row["metric"], row["unit"]) or m["benchmark_values"] != values or \
                float(m["extra_info"]["value"]) != row["value"] or m["extra_info"]["unit"] != row["unit"]:
            fail("pytorch-v3 record %d: metric %r against %r" % (n + 1, m, row))
        if json.loads(rec["benchmark"]["extra_info"]["labels"]) != row["labels"] or \
                rec["benchmark"]["extra_info"]["run_id"] != row["run_id"]:
            fail("pytorch-v3 record %d: run identity or labels lost" % (n + 1))
    print("ok: csv (%d bytes), jsonl (%d bytes) and pytorch-v3 (%d bytes, %d records) agree with each "
          "other and their schemas" % (len(c), len(j), len(p), len(recs)))


# ---- hostile labels ---------------------------------------------------------------------

BIG = bytes(b"ab\"<>;'&\\"[i % 9] for i in range(10240))
HOSTILE = {
    "a_big": BIG,
    "b_quote": b"it's \"quoted\"; DROP TABLE runs; --",
    "c_script": b"</script><script>alert(1)</script><b>x</b>&amp;",
    "d_bytes": b"caf\xe9 \xff\xfe \xc3\xa9t\xc3\xa9",
}


def hostile(exe, work):
    # JSON documents: every label comes back (stray bytes by JSON's rule).
    for what in ("runs-json", "trend-json", "regressions-json", "jsonl"):
        b = demo(exe, what, work, "--hostile")
        docs = [json.loads(x) for x in b.decode().splitlines()] if what == "jsonl" else [json.loads(b)]
        seen = 0
        stack = list(docs)
        while stack:
            o = stack.pop()
            if isinstance(o, dict):
                if "labels" in o and isinstance(o["labels"], dict) and "a_big" in o["labels"]:
                    for k, raw in HOSTILE.items():
                        if o["labels"][k] != as_json_value(raw):
                            fail("%s: label %s read back as %r" % (what, k, o["labels"][k][:80]))
                    seen += 1
                stack.extend(o.values())
            elif isinstance(o, list):
                stack.extend(o)
        if not seen:
            fail("%s: no labels found" % what)
    # CSV: the bytes themselves.
    for what in ("csv", "trend-csv", "runs-csv"):
        rows = csv_rows(demo(exe, what, work, "--hostile"))
        head = [h.decode() for h in rows[0]]
        for r in rows[1:]:
            labels = json.loads(r[head.index("labels")])
            for k, raw in HOSTILE.items():
                if labels[k] != as_json_value(raw):
                    fail("%s: label %s lost in the labels column" % (what, k))
    # pytorch-v3: the labels map keeps them too; the record still matches the schema.
    v3 = validator("exports/pytorch_v3.schema.json")
    for line in demo(exe, "pytorch-v3", work, "--hostile").decode().splitlines():
        rec = json.loads(line)
        validate(v3, rec, "pytorch-v3 with hostile labels")
        labels = json.loads(rec["benchmark"]["extra_info"]["labels"])
        if labels["d_bytes"] != as_json_value(HOSTILE["d_bytes"]) or labels["a_big"] != as_json_value(BIG):
            fail("pytorch-v3: hostile labels changed")
    # Text: no control or stray byte reaches the terminal.
    for what in ("runs-text", "regressions-text"):
        t = demo(exe, what, work, "--hostile")
        t.decode("utf-8")  # well-formed
        if what == "runs-text" and (b"caf\\xe9 \\xff\\xfe \xc3\xa9t\xc3\xa9" not in t):
            fail("runs text does not show the stray bytes as \\xNN")
        if any(ch < 0x20 and ch not in (0x0a,) for ch in t):
            fail(what + ": a control byte reaches the terminal")
    # The page: the data is in the page as JSON the script reads; nothing in it
    # can end the script element.
    page = demo(exe, "page", work, "--hostile")
    low = page.lower()
    if low.count(b"<script") != 2 or low.count(b"</script") != 2:
        fail("the page has %d script elements: a label escaped its string" % low.count(b"<script"))
    start = page.index(b'id="etp-data">') + len(b'id="etp-data">')
    data = json.loads(page[start:page.index(b"</script>", start)])
    s0 = data["series"][0]
    for k, raw in HOSTILE.items():
        if s0["fixed_labels"].get(k) != as_json_text(raw):
            fail("page data: label %s changed" % k)
    if data["title"] != "trend </title><script>alert(1)</script>":
        fail("page title changed: %r" % data["title"])
    print("ok: hostile labels (10 kB, quotes, ;, <script>, non-UTF-8) read back exactly from JSON, JSON "
          "Lines, CSV, pytorch-v3 and the page; text shows stray bytes as \\xNN")
    return page


# ---- the page in Chromium --------------------------------------------------------------------

def chromium_exe():
    exe = views_check.chromium_binary()
    if not exe:
        print("SKIP: chromium is not installed (apt-get install chromium fonts-dejavu-core, as the "
              "README's setup does)")
        sys.exit(77)
    return exe


def selftest(exe, url, what, work):
    dom = views_check.page_dom(exe, url, what, os.path.join(work, "console.log"))
    st = views_check.selftest_of(dom)
    if st["errors"]:
        fail("script errors %s: %r" % (what, st["errors"]))
    return st, dom


def screenshot(exe, url, png):
    if os.path.exists(png):
        os.unlink(png)
    with tempfile.TemporaryDirectory() as prof:
        subprocess.run(views_check.chromium_args(exe) + ["--user-data-dir=" + prof, "--virtual-time-budget=10000",
                                                         "--screenshot=" + png, url],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_GUARD)
    if not os.path.exists(png):
        fail("no screenshot written for " + url)
    # The charts are drawn in the top-left 1000 x 700 px of the window.
    (w, h, colours, _), (_, _, acolours, ink) = views_check.png_info(png, None, (20, 100, 1000, 700))
    if (w, h) != (1600, 1200) or colours < 30 or acolours < 20 or ink < 0.05:
        fail("%s: %dx%d with %d colours, %d in the chart area covering %.1f%%: not a drawing" %
             (png, w, h, colours, acolours, 100 * ink))
    print("screenshot %s: %dx%d, %d colours; chart area: %d colours, %.1f%% ink; %d bytes" %
          (png, w, h, colours, acolours, 100 * ink, os.path.getsize(png)))


def chromium(exe, work):
    browser = chromium_exe()
    page = os.path.join(work, "trend.html")
    with open(page, "wb") as f:
        f.write(demo(exe, "page", work, "--executions", "4"))
    url = "file://" + os.path.abspath(page)
    if os.path.exists(os.path.join(work, "console.log")):
        os.unlink(os.path.join(work, "console.log"))
    st, dom = selftest(browser, url, "loading the page", work)
    s = st["stats"]
    if (s["charts"], s["series"], s["points"], s["circles"], s["vertices"], s["marks"]) != (2, 6, 240, 240, 240, 2):
        fail("drawn: %r, expected 2 charts, 6 series, 240 points each drawn as a dot and a vertex, 2 marks" % s)
    if dom.count('class="pt"') != 240 or dom.count('class="ring regression"') != 2:
        fail("the DOM holds %d point dots and %d regression rings" %
             (dom.count('class="pt"'), dom.count('class="ring regression"')))
    ex = selftest(browser, url + "#exercise", "hovering points", work)[0]["exercised"]
    tips = ex["tips"]
    if len(tips) != 2 or not all(t["shown"] for t in tips):
        fail("hover shows no tooltip: %r" % tips)
    first, marked = tips[0]["text"], tips[1]["text"]
    for want in ("run run-1-0 (#1)", " ms ", "commit ", "2025-01-01T00:00:00.000Z", "device=pixel7", "seq=0"):
        if want not in first:
            fail("the tooltip of the first point lacks %r:\n%s" % (want, first))
    if "regression begins here" not in marked or "run-1-36" not in marked:
        fail("the change point's tooltip:\n" + marked)
    screenshot(browser, url, os.path.join(work, "trend.png"))
    hostile_page = os.path.join(work, "hostile.html")
    with open(hostile_page, "wb") as f:
        f.write(demo(exe, "page", work, "--hostile"))
    st, dom = selftest(browser, "file://" + os.path.abspath(hostile_page) + "#exercise", "with hostile labels", work)
    if "<b>x</b>" in dom or dom.count("<script") != 2 or st["stats"]["points"] != 240:
        fail("hostile labels changed the page: %d scripts, %d points" % (dom.count("<script"), st["stats"]["points"]))
    if "</script><script>alert(1)</script>" not in st["exercised"]["tips"][0]["text"]:
        fail("the hostile label is not shown as text in the tooltip")
    print("ok: trend page in chromium: %r, script %s ms, drawn at %s ms; hover shows the run, value, commit "
          "and labels; hostile labels stay text" % (s, st["ms"]["script"], st["ms"]["drawn"]))


def chromium_big(exe, work):
    browser = chromium_exe()
    page = os.path.join(work, "trend-100k.html")
    with open(page, "wb") as f:
        f.write(demo(exe, "page", work, "--devices", "50", "--points", "1000"))
    url = "file://" + os.path.abspath(page)
    st, _ = selftest(browser, url, "loading the 100,000-point page", work)
    for _ in range(2):
        if st["ms"]["paint"] is not None:
            break
        st, _ = selftest(browser, url, "loading the 100,000-point page (again: dumped before its first frame)", work)
    s = st["stats"]
    if (s["points"], s["vertices"], s["series"], s["charts"]) != (100000, 100000, 100, 2):
        fail("drawn: %r, expected 100,000 points in 100 series on 2 charts" % s)
    paint = st["ms"]["paint"]
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    budget = BIG_BUDGET_MS * max(1.0, load)
    if paint is None or (BIG_BUDGET_MS and paint > budget):
        fail("first paint of 100,000 points after %s ms, over %d ms (load average %.1f)" %
             (paint, budget, os.getloadavg()[0]))
    screenshot(browser, url, os.path.join(work, "trend-100k.png"))
    print("ok: 100,000 points: page %d bytes, script %s ms, drawn %s ms and first paint %s ms after "
          "navigation start (load average %.1f on %d cores)" %
          (os.path.getsize(page), st["ms"]["script"], st["ms"]["drawn"], paint, os.getloadavg()[0],
           os.cpu_count() or 1))


def main():
    modes = {"outputs": outputs, "exports": exports, "hostile": hostile, "chromium": chromium,
             "chromium-big": chromium_big}
    if len(sys.argv) != 4 or sys.argv[1] not in modes:
        print(__doc__)
        return 2
    what, exe, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    modes[what](exe, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
