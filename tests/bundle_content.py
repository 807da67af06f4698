"""Result bundle content: every JSON artifact against its schema, cross-file
consistency, operators.csv as RFC 4180, golden files, determinism, failed
analyses, tampering.

usage: bundle_content.py MODE ETPROF SOURCE_DIR FIXTURES WORKDIR
  MODE  schemas      the schema files themselves (valid draft 2020-12, ids,
                     copies in sync, reject what the contract forbids)
        demo         bundles of `etprof gen demo` (csv and json, --detailed),
                     `analyze --json`, `inspect --json`: schemas + consistency
        golden       demo summary.json and operators.csv byte-equal to
                     tests/golden/demo/
        determinism  two analyses of the same inputs: identical artifacts
        failure      a truncated ETDump or a program that does not match:
                     exit 1, no new directory, and an older bundle left
                     unchanged and valid
        tamper       one flipped byte in any artifact: verify exits 1 naming it
        real         the same checks as demo on the real runs in FIXTURES
                     (exit 77 only when FIXTURES is absent)
        update-golden  rewrite tests/golden/demo/ from the current build

Needs the jsonschema module (Debian python3-jsonschema); without it every
mode fails.
"""
import copy
import csv
import decimal
import glob
import io
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("FAIL: the python3 jsonschema module is missing (apt install python3-jsonschema)")
    sys.exit(1)

MODE, ETPROF, SRC, FIXTURES, WORK = sys.argv[1:6]
SCHEMA_DIR = os.path.join(SRC, "schemas", "json")
GOLDEN_DIR = os.path.join(SRC, "tests", "golden", "demo")
REAL = os.path.join(FIXTURES, "real-runs")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def run(args, cwd=None):
    p = subprocess.run([ETPROF] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run_ok(args, cwd=None):
    rc, out, err = run(args, cwd)
    if rc != 0:
        raise SystemExit(f"FAIL: etprof {' '.join(args)} exited {rc}\n{out}\n{err}")
    return out


def no_dup_keys(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key {k!r}")
        seen[k] = v
    return seen


def load_json_text(text):
    # Decimal keeps 1.0 apart from 1, so "integer" in a schema means an
    # integer literal; duplicate keys are an error.
    return json.loads(text, parse_float=decimal.Decimal, object_pairs_hook=no_dup_keys)


def load_json(path):
    with open(path, "rb") as f:
        return load_json_text(f.read().decode("utf-8"))


# ---- schemas ----------------------------------------------------------------

def load_schemas():
    """schema id (e.g. "etprof.summary") -> (file name, schema)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        sid = s["properties"]["schema"]["const"]
        ver = s["properties"]["schema_version"]["const"]
        name = os.path.basename(path)
        stem = sid.split(".", 1)[1].replace("-", "_")
        check(name == f"{stem}.v{ver}.schema.json", f"{name}: file name does not match {sid} v{ver}")
        check(s["$id"] == f"urn:etprof:schema:{sid.split('.', 1)[1]}:v{ver}", f"{name}: $id {s['$id']}")
        check(s.get("$schema") == "https://json-schema.org/draft/2020-12/schema", f"{name}: not draft 2020-12")
        check(sid not in out, f"two schema files claim {sid}")
        out[sid] = (name, s)
    return out


SCHEMAS = load_schemas()
EXPECTED_IDS = {"etprof.result-manifest", "etprof.summary", "etprof.operators", "etprof.run-metadata",
                "etprof.delegates", "etprof.unresolved-handles", "etprof.analysis", "etprof.inspect",
                "etprof.me-mapping", "etprof.diff", "etprof.memory", "etprof.nx-hierarchy",
                "etprof.history-runs", "etprof.trend", "etprof.regressions"}
if set(SCHEMAS) != EXPECTED_IDS:
    fail(f"schema files: have {sorted(SCHEMAS)}, want {sorted(EXPECTED_IDS)}")
VALIDATORS = {sid: jsonschema.Draft202012Validator(s) for sid, (_, s) in SCHEMAS.items()}


def validate(doc, what, sid=None):
    sid = sid or doc.get("schema")
    if not check(sid in VALIDATORS, f"{what}: no schema file for {sid!r}"):
        return False
    errors = sorted(VALIDATORS[sid].iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:10]:
        fail(f"{what}: fails {SCHEMAS[sid][0]} at {list(e.absolute_path)}: {e.message[:300]}")
    return not errors


def mode_schemas():
    # The copies inside analysis.v1 must equal their originals.
    a = SCHEMAS["etprof.analysis"][1]["$defs"]
    o = SCHEMAS["etprof.operators"][1]["$defs"]
    s = SCHEMAS["etprof.summary"][1]["$defs"]
    for k in ("unit", "handles", "stats", "timing", "series", "entity"):
        check(a.get(k) == o.get(k), f"analysis.v1 $defs/{k} differs from operators.v1's")
    check(a.get("issue") == s.get("issue"), "analysis.v1 $defs/issue differs from summary.v1's")
    for sid, (name, sch) in SCHEMAS.items():
        check(sch.get("additionalProperties") is True, f"{name}: the root must stay open")

    # What the contract forbids must be rejected.
    ok_metric = {"name": "m.avg", "value": 1.5, "unit": "ms", "aggregation": "mean over executions",
                 "additive": True, "samples": 3}
    na_metric = {"name": "m.avg", "unit": "ms", "availability": "unavailable", "reason": "no events"}
    stats = {"avg": ok_metric, "p50": ok_metric, "min": ok_metric, "max": na_metric}
    summary = {
        "schema": "etprof.summary", "schema_version": 1, "validity": "degraded",
        "method": {"name": "forward", "basis": "given"},
        "units": {"time": "ms", "etdump_ticks": "ns", "etdump_ticks_assumed": True},
        "headline": {"executions": {"name": "executions", "value": 3.0, "unit": "count",
                                    "aggregation": "count", "additive": False, "samples": 3},
                     "method_execute": stats, "delegate_time": [dict(stats, backend="XnnpackBackend")],
                     "native_kernels": stats, "framework_overhead": stats,
                     "top_operators": [{"rank": 1, "id": "a", "kind": "operator", "op_type": None,
                                        "unit": "ms", "avg": 1.0, "share_of_execute_pct": None,
                                        "executions": 3, "additive": False, "shared": True,
                                        "co_attributed": ["b"]}]},
        "metrics": [ok_metric, na_metric],
        "runtime_unresolved_debug_handles": [4, 9],
        "issues": [{"code": "units.assumed", "severity": "warning", "message": "m", "context": {}}],
        "future_member": {"readers": "ignore it"},
    }
    check(validate(copy.deepcopy(summary), "hand-made summary"), "the hand-made summary must validate")

    def mut(f):
        d = copy.deepcopy(summary)
        f(d)
        return d

    rejects = {
        "metric with value and availability": lambda d: d["metrics"].append(dict(ok_metric, availability="unavailable")),
        "unavailable metric with a value": lambda d: d["metrics"].append(dict(na_metric, value=0)),
        "unavailable metric without reason": lambda d: d["metrics"].append({k: v for k, v in na_metric.items() if k != "reason"}),
        "availability other than unavailable": lambda d: d["metrics"].append(dict(na_metric, availability="partial")),
        "metric without unit": lambda d: d["metrics"].append({k: v for k, v in ok_metric.items() if k != "unit"}),
        "metric without additive": lambda d: d["metrics"].append({k: v for k, v in ok_metric.items() if k != "additive"}),
        "value as string": lambda d: d["metrics"].append(dict(ok_metric, value="1.5")),
        "fractional samples": lambda d: d["metrics"].append(dict(ok_metric, samples=decimal.Decimal("3.0"))),
        "validity unknown": lambda d: d.__setitem__("validity", "ok"),
        "severity unknown": lambda d: d["issues"].append({"code": "a.b", "severity": "fatal", "message": "m", "context": {}}),
        "issue code not dotted": lambda d: d["issues"].append({"code": "units", "severity": "info", "message": "m", "context": {}}),
        "issue without context": lambda d: d["issues"].append({"code": "a.b", "severity": "info", "message": "m"}),
        "no headline": lambda d: d.pop("headline"),
        "headline without method_execute": lambda d: d["headline"].pop("method_execute"),
        "headline stat missing p50": lambda d: d["headline"]["native_kernels"].pop("p50"),
        "delegate time without backend": lambda d: d["headline"]["delegate_time"][0].pop("backend"),
        "top entry kind unknown": lambda d: d["headline"]["top_operators"][0].__setitem__("kind", "node"),
        "time unit unknown": lambda d: d["units"].__setitem__("time", "sec"),
        "schema_version 2": lambda d: d.__setitem__("schema_version", 2),
        "schema_version 1.0": lambda d: d.__setitem__("schema_version", decimal.Decimal("1.0")),
        "no issues": lambda d: d.pop("issues"),
    }
    for what, f in rejects.items():
        d = mut(f)
        check(any(True for _ in VALIDATORS["etprof.summary"].iter_errors(d)),
              f"summary schema accepts: {what}")

    entity = {"id": "forward_0_0", "kind": "instruction", "name": "aten::add.out", "op_type": "aten::add.out",
              "backend": None, "chain": 0, "instruction": 0, "instruction_kind": "KernelCall",
              "debug_handles": [1], "timing": None}
    ops = {"schema": "etprof.operators", "schema_version": 1, "unit": "ms", "method": "forward",
           "executions": 2, "entities": [entity]}
    check(validate(copy.deepcopy(ops), "hand-made operators"), "the hand-made operators must validate")
    op_rejects = {
        "instruction without chain": lambda d: d["entities"][0].pop("chain"),
        "kind unknown": lambda d: d["entities"][0].__setitem__("kind", "node"),
        "operator without module fields": lambda d: d["entities"][0].__setitem__("kind", "operator"),
        "timing without additive": lambda d: d["entities"][0].__setitem__("timing", {
            "source": "operator_call", "unit": "ms", "executions": 1, "events": 1, "avg": 1, "p10": 1,
            "p50": 1, "p90": 1, "min": 1, "max": 1, "shared": False, "co_attributed": []}),
        "timing source unknown": lambda d: d["entities"][0].__setitem__("timing", {
            "source": "guess", "unit": "ms", "executions": 1, "events": 1, "avg": 1, "p10": 1,
            "p50": 1, "p90": 1, "min": 1, "max": 1, "additive": True, "shared": False, "co_attributed": []}),
        "kernel without dispatch": lambda d: d["entities"][0].__setitem__("kernel", {
            "unit": "ms", "executions": 1, "avg": 1, "p10": 1, "p50": 1, "p90": 1, "min": 1, "max": 1}),
    }
    for what, f in op_rejects.items():
        d = copy.deepcopy(ops)
        f(d)
        check(any(True for _ in VALIDATORS["etprof.operators"].iter_errors(d)),
              f"operators schema accepts: {what}")


# ---- bundles ----------------------------------------------------------------

def derive_validity(issues):
    sev = {i["severity"] for i in issues}
    return "invalid" if "error" in sev else "degraded" if "warning" in sev else "valid"


def check_csv_text(raw, what):
    """RFC 4180: CRLF records, minimal quoting; returns the parsed rows."""
    text = raw.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    if not check(len(rows) >= 1, f"{what}: no header"):
        return rows
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            fail(f"{what}: record {i} has {len(r)} fields, header has {width}")
            break
    # Written back with CRLF and minimal quoting, the rows must give the same
    # bytes: every record ends in CRLF, quotes only where a field needs them.
    again = io.StringIO(newline="")
    csv.writer(again, lineterminator="\r\n").writerows(rows)
    check(again.getvalue() == text, f"{what}: not canonical RFC 4180 (CRLF records, minimal quoting)")
    return rows


def check_bundle(d, label, expect_detailed=True):
    """Validate every artifact of bundle @p d; returns {path: parsed}."""
    rc, out, err = run(["verify", "--strict", d])
    check(rc == 0, f"{label}: etprof verify --strict exited {rc}: {err.strip()}")
    manifest = load_json(os.path.join(d, "result_manifest.json"))
    validate(manifest, f"{label}/result_manifest.json")
    parsed = {}
    for art in manifest["artifacts"]:
        p = art["path"]
        full = os.path.join(d, p)
        with open(full, "rb") as f:
            raw = f.read()
        if p.endswith(".json"):
            try:
                doc = load_json_text(raw.decode("utf-8"))
            except ValueError as e:
                fail(f"{label}/{p}: not JSON: {e}")
                continue
            parsed[p] = doc
            sid = art.get("schema")
            if sid:
                check(isinstance(doc, dict) and doc.get("schema") == sid and
                      doc.get("schema_version") == art.get("schema_version"),
                      f"{label}/{p}: declared {sid} v{art.get('schema_version')}, file says "
                      f"{doc.get('schema') if isinstance(doc, dict) else '?'} v"
                      f"{doc.get('schema_version') if isinstance(doc, dict) else '?'}")
                validate(doc, f"{label}/{p}", sid)
            elif isinstance(doc, dict) and str(doc.get("schema", "")).startswith("etprof."):
                fail(f"{label}/{p}: says schema {doc['schema']} but the manifest declares none")
        elif p.endswith(".csv"):
            parsed[p] = check_csv_text(raw, f"{label}/{p}")
    core = {"summary.json", "run_metadata.json"}
    for c in core:
        check(c in parsed, f"{label}: no {c}")
    check(("operators.csv" in parsed) != ("operators.json" in parsed),
          f"{label}: exactly one of operators.csv / operators.json")
    if expect_detailed:
        for c in ("detailed/delegates.json", "detailed/unresolved_handles.json", "detailed/executions.csv"):
            check(c in parsed, f"{label}: no {c}")
    roles = {a["path"]: a.get("role") for a in manifest["artifacts"]}
    for c in core | {"operators.csv", "operators.json"}:
        if c in roles:
            check(roles[c] == "core", f"{label}: {c} role {roles[c]}")
    consistency(label, manifest, parsed)
    return manifest, parsed


def metric_list(summary):
    return {m["name"]: m for m in summary["metrics"]}


def consistency(label, manifest, parsed):
    s = parsed.get("summary.json")
    rm = parsed.get("run_metadata.json")
    if not s or not rm:
        return
    check(s["validity"] == derive_validity(s["issues"]),
          f"{label}: summary validity {s['validity']} but issues imply {derive_validity(s['issues'])}")
    check(manifest["validity"] == s["validity"], f"{label}: manifest and summary validity differ")
    key = lambda i: (i["code"], i["severity"], i["message"])
    check(sorted(map(key, manifest["issues"])) == sorted(map(key, s["issues"])),
          f"{label}: manifest and summary issues differ")
    check(rm["run_id"] == manifest["run_id"] and rm["timestamp"] == manifest["timestamp"],
          f"{label}: run_metadata and manifest identity differ")
    prov = {i["role"]: i["sha256"] for i in manifest["provenance"]["inputs"]}
    meta = {i["role"]: i["sha256"] for i in rm["inputs"]}
    check(prov == meta, f"{label}: input digests differ between manifest and run_metadata")
    check(rm["options"] == manifest["provenance"].get("options"), f"{label}: options differ")
    # Headline metric objects are the same objects as in "metrics".
    ms = metric_list(s)
    h = s["headline"]
    heads = [h["executions"]]
    for k in ("method_execute", "native_kernels", "framework_overhead"):
        heads += [h[k][st] for st in ("avg", "p50", "min", "max")]
    for dt in h["delegate_time"]:
        heads += [dt[st] for st in ("avg", "p50", "min", "max")]
        check(dt["avg"]["name"] == f"delegate_time:{dt['backend']}.avg", f"{label}: delegate_time name")
    for m in heads:
        check(ms.get(m["name"]) == m, f"{label}: headline metric {m['name']} differs from metrics")
    check(len(ms) == len(s["metrics"]), f"{label}: duplicate metric names")
    unit = s["units"]["time"]
    for m in s["metrics"]:
        if m["name"] != "executions":
            check(m["unit"] == unit, f"{label}: metric {m['name']} unit {m['unit']} != {unit}")
        if "value" in m and m["name"].rsplit(".", 1)[-1] in ("p50", "min", "max"):
            check(m["additive"] is False, f"{label}: {m['name']} marked additive")
    check(h["executions"]["value"] == h["executions"]["samples"], f"{label}: executions metric")
    top = h["top_operators"]
    check([t["rank"] for t in top] == list(range(1, len(top) + 1)), f"{label}: top ranks")
    check(all(top[i]["avg"] >= top[i + 1]["avg"] for i in range(len(top) - 1)), f"{label}: top not sorted")
    if "detailed/unresolved_handles.json" in parsed:
        check(parsed["detailed/unresolved_handles.json"]["runtime_unresolved_debug_handles"] ==
              s["runtime_unresolved_debug_handles"], f"{label}: unresolved handles differ")
    ents = None
    if "operators.json" in parsed:
        o = parsed["operators.json"]
        ents = o["entities"]
        check(o["unit"] == unit, f"{label}: operators.json unit")
        check(o["method"] == s["method"]["name"], f"{label}: operators.json method")
        check(o["executions"] == h["executions"]["samples"], f"{label}: operators.json executions")
        ids = [e["id"] for e in ents]
        check(len(set(ids)) == len(ids), f"{label}: duplicate entity ids")
        for e in ents:
            t = e["timing"]
            if t:
                check(t["unit"] == unit, f"{label}: {e['id']} unit")
                check(t["min"] <= t["p50"] <= t["max"] and t["min"] <= t["avg"] <= t["max"],
                      f"{label}: {e['id']} statistics out of order")
                check(t["executions"] <= o["executions"], f"{label}: {e['id']} executions")
                check(set(t["co_attributed"]) <= set(ids), f"{label}: {e['id']} co_attributed unknown id")
        for t in top:
            check(t["id"] in ids, f"{label}: top operator {t['id']} not an entity")
    if "operators.csv" in parsed:
        rows = parsed["operators.csv"]
        head = rows[0]
        for st in ("avg", "p50", "min", "max"):
            check(f"{st}_{unit}" in head, f"{label}: operators.csv header lacks {st}_{unit}")
        for col in ("entity_id", "kind", "name", "op_type", "backend", "debug_handles", "executions",
                    "events", "additive", "shared", "co_attributed"):
            check(col in head, f"{label}: operators.csv header lacks {col}")
        ids = [r[0] for r in rows[1:]]
        check(len(set(ids)) == len(ids), f"{label}: operators.csv duplicate ids")
        for t in top:
            check(t["id"] in ids, f"{label}: top operator {t['id']} not a row of operators.csv")


def csv_matches_json(label, csv_rows, ents, unit):
    """operators.csv and operators.json of the same inputs: one row per entity, same values."""
    head = csv_rows[0]
    rows = [dict(zip(head, r)) for r in csv_rows[1:]]
    if not check(len(rows) == len(ents), f"{label}: operators.csv has {len(rows)} rows, "
                                          f"operators.json {len(ents)} entities"):
        return
    num = lambda v: repr(float(v))
    for r, e in zip(rows, ents):
        eid = e["id"]
        check(r["entity_id"] == eid, f"{label}: row order {r['entity_id']} vs {eid}")
        check(r["kind"] == e["kind"], f"{label}: {eid} kind")
        if e["kind"].startswith("nx_"):
            # A VGF NX cycle group (operators.json "nx_groups"): cycles in nx_*, no time.
            check(e["timing"] is None and r["executions"] == "" and r[f"avg_{unit}"] == "",
                  f"{label}: NX group {eid} has a time")
            for k, v in e["nx"].items():
                text = r.get("nx_" + k)
                if text == "" and e["kind"] == "nx_segment" and k in ("filled_in", "covers", "spirv_ids", "source_operators"):
                    continue  # chains and cascades only in the table; the JSON group is whole
                want = ("true" if v else "false") if isinstance(v, bool) else \
                    " ".join(str(x) for x in v) if isinstance(v, list) else "" if v is None else v
                ok = num(text) == num(want) if isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool) \
                    else text == want
                check(ok, f"{label}: {eid} nx_{k} {text!r} vs {want!r}")
            continue
        check(r["name"] == (e["name"] or ""), f"{label}: {eid} name")
        check(r["op_type"] == (e["op_type"] or ""), f"{label}: {eid} op_type")
        check(r["backend"] == (e["backend"] or ""), f"{label}: {eid} backend")
        check(r["debug_handles"] == " ".join(str(h) for h in e["debug_handles"]), f"{label}: {eid} handles")
        t = e["timing"]
        if t:
            check(int(r["executions"]) == t["executions"] and int(r["events"]) == t["events"],
                  f"{label}: {eid} counts")
            for st in ("avg", "p10", "p50", "p90", "min", "max"):
                check(num(r[f"{st}_{unit}"]) == num(t[st]), f"{label}: {eid} {st} {r[f'{st}_{unit}']} vs {t[st]}")
            check(r["additive"] == ("true" if t["additive"] else "false"), f"{label}: {eid} additive")
            check(r["shared"] == ("true" if t["shared"] else "false"), f"{label}: {eid} shared")
            check(r["co_attributed"] == " ".join(t["co_attributed"]), f"{label}: {eid} co_attributed")
            check(r["timing_source"] == t["source"], f"{label}: {eid} timing source")
        else:
            check(r["executions"] == "0" and r[f"avg_{unit}"] == "" and r["additive"] == "",
                  f"{label}: untimed {eid} has numbers")


def analyze_pair(label, inputs, out_base, method=None):
    """csv+detailed and json+detailed bundles of the same inputs; checks both."""
    extra = ["--method", method] if method else []
    a = out_base + "-csv"
    j = out_base + "-json"
    for d in (a, j):
        shutil.rmtree(d, ignore_errors=True)
    run_ok(["analyze"] + inputs + extra + ["-o", a, "--detailed", "--quiet"])
    run_ok(["analyze"] + inputs + extra + ["-o", j, "--format", "json", "--detailed", "--quiet"])
    ma, pa = check_bundle(a, f"{label} csv")
    mj, pj = check_bundle(j, f"{label} json")
    if "operators.csv" in pa and "operators.json" in pj:
        csv_matches_json(label, pa["operators.csv"],
                         pj["operators.json"]["entities"] + pj["operators.json"].get("nx_groups", []),
                         pj["summary.json"]["units"]["time"])
    # The two formats differ only in the operators artifact and the options.
    for p in ("summary.json", "detailed/delegates.json", "detailed/unresolved_handles.json"):
        check(pa.get(p) == pj.get(p), f"{label}: {p} differs between csv and json bundles")
    # `analyze --json` (no -o) and `inspect --json`.
    an = load_json_text(run_ok(["analyze"] + inputs + extra + ["--json"]))
    if validate(an, f"{label} analyze --json"):
        check(an["validity"] == pa["summary.json"]["validity"], f"{label}: analysis validity")
        check(an["entities"] == pj["operators.json"]["entities"], f"{label}: analysis entities differ "
                                                                  "from operators.json")
        for f in an["figures"]:
            if f.get("availability") == "unavailable":
                m = metric_list(pa["summary.json"]).get(f["name"] + ".avg")
                check(m is not None and m.get("availability") == "unavailable",
                      f"{label}: figure {f['name']} unavailable but the summary has a value")
    etdump = inputs[inputs.index("--etdump") + 1]
    pte = inputs[inputs.index("--pte") + 1] if "--pte" in inputs else None
    insp = ["inspect", etdump] + (["--pte", pte] + extra if pte else []) + ["--json"]
    validate(load_json_text(run_ok(insp)), f"{label} inspect --json")
    validate(load_json_text(run_ok(insp + ["--raw"])), f"{label} inspect --json --raw")
    validate(load_json_text(run_ok(["inspect", etdump, "--json"])), f"{label} inspect --json (no program)")
    return a, j


def demo_inputs(d):
    return [f"{d}/model.etrecord", "--etdump", f"{d}/run.etdp", "--pte", f"{d}/model.pte"]


def make_demo(flaws=False):
    d = os.path.join(WORK, "demo-flaws" if flaws else "demo")
    shutil.rmtree(d, ignore_errors=True)
    run_ok(["gen", "demo", "-o", d] + (["--flaws"] if flaws else []))
    return d


def mode_demo():
    d = make_demo()
    a, _ = analyze_pair("demo", demo_inputs(d), os.path.join(WORK, "demo-bundle"))
    s = load_json(os.path.join(a, "summary.json"))
    check(s["headline"]["delegate_time"] and s["headline"]["delegate_time"][0]["backend"] == "VulkanBackend",
          "demo: headline lacks VulkanBackend delegate time")
    # The demo is what a user sees first: nothing shared or unresolved, and
    # with its ticks declared the result is valid.
    check(not s["runtime_unresolved_debug_handles"], "demo: unresolved handles")
    check(not any(t["shared"] for t in s["headline"]["top_operators"]), "demo: a shared top operator")
    an = load_json_text(run_ok(["analyze"] + demo_inputs(d) + ["--source-unit", "ns", "--json"]))
    check(an["validity"] == "valid", "demo with --source-unit ns: %s, issues %s"
          % (an["validity"], [i["code"] for i in an["issues"]]))
    # Its --flaws variant is designed to exercise these; the bundle shows them.
    df = make_demo(flaws=True)
    af, _ = analyze_pair("demo --flaws", demo_inputs(df), os.path.join(WORK, "demo-flaws-bundle"))
    sf = load_json(os.path.join(af, "summary.json"))
    check(sf["runtime_unresolved_debug_handles"], "demo --flaws: no unresolved handles")
    check(any(t["shared"] for t in sf["headline"]["top_operators"]), "demo --flaws: no shared top operator")
    # The ETRecord alone, and the program alone, are analyses too.
    analyze_pair("demo etrecord only", [f"{d}/model.etrecord", "--etdump", f"{d}/run.etdp"],
                 os.path.join(WORK, "demo-etr"), method="forward")
    analyze_pair("demo pte only", ["--etdump", f"{d}/run.etdp", "--pte", f"{d}/model.pte"],
                 os.path.join(WORK, "demo-pte"))
    # XNNPACK-style string delegate ids ("Convolution (NHWC, F32) GEMM #3") put
    # commas, spaces and quotes-worthy text into entity ids: CSV quoting.
    g = os.path.join(WORK, "gen-xnn")
    shutil.rmtree(g, ignore_errors=True)
    os.makedirs(g)
    run_ok(["gen", "etdump", "-o", f"{g}/run.etdp", "--pte", f"{g}/model.pte", "--etrecord",
            f"{g}/model.etrecord", "--instructions", "40", "--executions", "3"])
    a, _ = analyze_pair("gen xnnpack", [f"{g}/model.etrecord", "--etdump", f"{g}/run.etdp", "--pte",
                                        f"{g}/model.pte"], os.path.join(WORK, "gen-xnn-bundle"))
    with open(os.path.join(a, "operators.csv"), "rb") as f:
        check(b'",delegate_event,' in f.read(), "gen xnnpack: expected quoted delegate entity ids")


def mode_real():
    if not os.path.isdir(FIXTURES):
        print(f"SKIP: {FIXTURES} is absent")
        sys.exit(77)
    kws = f"{REAL}/cm_et_arduino_kws_x10"
    analyze_pair("cm_et_arduino_kws_x10",
                 [f"{kws}.etrecord", "--etdump", f"{kws}.etdp", "--pte", f"{kws}.pte"],
                 os.path.join(WORK, "kws"))
    for n in ("xnn_np_add_x10", "et_add_x10", "et_add_x1"):
        analyze_pair(n, ["--etdump", f"{REAL}/{n}.etdp", "--pte", f"{REAL}/{n}.pte"], os.path.join(WORK, n))
    # A method-level-only run: its instruction figures are unavailable metrics.
    n = "np_const_methods_get_tensor_x3"
    a, _ = analyze_pair(n, ["--etdump", f"{REAL}/{n}.etdp", "--pte", f"{REAL}/{n}.pte"],
                        os.path.join(WORK, n), method="forward")
    s = load_json(os.path.join(a, "summary.json"))
    check(any(m.get("availability") == "unavailable" for m in s["metrics"]),
          f"{n}: expected unavailable metrics")
    # More shapes: several methods, a bundled program; inspect-only ETDumps.
    analyze_pair("np_multi_forward_x10", ["--etdump", f"{REAL}/np_multi_forward_x10.etdp", "--pte",
                                          f"{REAL}/np_multi_forward_x10.pte"], os.path.join(WORK, "multi"))
    bp = f"{REAL}/et_bundled_program_debug_intermediate"
    analyze_pair("bundled program", ["--etdump", f"{bp}.etdp", "--pte", f"{bp}.bpte"], os.path.join(WORK, "bpte"))
    for e in ("executorch/tutorial.etdp", "executorch/synthetic_multi_run.etdp"):
        validate(load_json_text(run_ok(["inspect", os.path.join(FIXTURES, e), "--json", "--raw"])),
                 f"inspect --json --raw {e}")
    # VGF NX cycles (generated for the real VGF program): the NX rows after the entities in
    # operators.csv equal operators.json's nx_groups, which the schema validates.
    vpte = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    vgen = os.path.join(WORK, "vgf-gen")
    shutil.rmtree(vgen, ignore_errors=True)
    run_ok(["gen", "vgf-stats", "--pte", vpte, "-o", vgen, "--executions", "2"])
    a, _ = analyze_pair("vgf stats", ["--etdump", f"{vgen}/g2_mode1_v2.etdp", "--pte", vpte],
                        os.path.join(WORK, "vgf"))
    groups = load_json(os.path.join(WORK, "vgf-json", "operators.json")).get("nx_groups", [])
    check(len(groups) > 0 and {g["kind"] for g in groups} == {"nx_segment", "nx_cascade", "nx_chain"},
          "vgf stats: operators.json has no nx_groups of every kind")
    shutil.rmtree(vgen, ignore_errors=True)
    x = load_json(os.path.join(WORK, "xnn_np_add_x10-csv", "summary.json"))
    check([d["backend"] for d in x["headline"]["delegate_time"]] == ["XnnpackBackend"],
          "xnn_np_add_x10: headline delegate time should be XnnpackBackend")


# ---- golden -----------------------------------------------------------------

GOLDEN_FILES = ("summary.json", "operators.csv")


def golden_bundle():
    d = make_demo()
    out = os.path.join(WORK, "golden-bundle")
    shutil.rmtree(out, ignore_errors=True)
    run_ok(["analyze"] + demo_inputs(d) + ["-o", out, "--quiet"])
    return out


def mode_golden():
    out = golden_bundle()
    for name in GOLDEN_FILES:
        with open(os.path.join(out, name), "rb") as f:
            got = f.read()
        with open(os.path.join(GOLDEN_DIR, name), "rb") as f:
            want = f.read()
        if got != want:
            fail(f"{name} differs from tests/golden/demo/{name} (if the change is intended, "
                 f"regenerate: see tests/golden/README.md)")
            import difflib
            diff = difflib.unified_diff(want.decode().splitlines(), got.decode().splitlines(),
                                        "golden", "now", lineterm="", n=1)
            print("\n".join(list(diff)[:40]))


def mode_update_golden():
    out = golden_bundle()
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    for name in GOLDEN_FILES:
        shutil.copyfile(os.path.join(out, name), os.path.join(GOLDEN_DIR, name))
        print("wrote", os.path.join(GOLDEN_DIR, name))


# ---- determinism --------------------------------------------------------------

def tree(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            full = os.path.join(root, f)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, d)] = fh.read()
    return out


def same_analysis_twice(label, args, out):
    shutil.rmtree(out, ignore_errors=True)
    run_ok(args + ["-o", out, "--quiet"])
    first = tree(out)
    run_ok(args + ["-o", out, "--quiet"])  # the same command line, the same directory
    second = tree(out)
    check(sorted(first) == sorted(second), f"{label}: file sets differ: {sorted(set(first) ^ set(second))}")
    for p in sorted(set(first) & set(second)):
        a, b = first[p], second[p]
        if p in ("run_metadata.json", "mlia-output.json"):
            # MLIA's schema requires the run's id and time: the bundle's own.
            ja, jb = load_json_text(a.decode()), load_json_text(b.decode())
            check(ja["run_id"] != jb["run_id"], f"{label}: the run id did not change in {p}")
            for j in (ja, jb):
                del j["run_id"], j["timestamp"]
            check(ja == jb, f"{label}: {p} differs beyond run_id/timestamp")
        elif p == "result_manifest.json":
            ja, jb = load_json_text(a.decode()), load_json_text(b.decode())
            for j in (ja, jb):
                del j["run_id"], j["timestamp"]
                for art in j["artifacts"]:
                    if art["path"] in ("run_metadata.json", "mlia-output.json"):
                        del art["sha256"], art["size_bytes"]
            check(ja == jb, f"{label}: result_manifest.json differs beyond run_id/timestamp/run_metadata and mlia-output digests")
        else:
            check(a == b, f"{label}: {p} is not byte-identical across two analyses")
    rc, _, err = run(["verify", "--strict", out])
    check(rc == 0, f"{label}: second bundle does not verify: {err.strip()}")


def mode_determinism():
    d = make_demo()
    same_analysis_twice("demo csv", ["analyze"] + demo_inputs(d) + ["--detailed"], os.path.join(WORK, "det-csv"))
    same_analysis_twice("demo json", ["analyze"] + demo_inputs(d) + ["--detailed", "--format", "json"],
                        os.path.join(WORK, "det-json"))
    # Independent generation: gen demo is seeded, so a second demo gives the same bundle.
    d2 = os.path.join(WORK, "demo2")
    shutil.rmtree(d2, ignore_errors=True)
    run_ok(["gen", "demo", "-o", d2])
    check(tree(d) == tree(d2), "gen demo is not deterministic")
    kws = f"{REAL}/cm_et_arduino_kws_x10"
    if os.path.isdir(FIXTURES):
        same_analysis_twice("kws", ["analyze", f"{kws}.etrecord", "--etdump", f"{kws}.etdp", "--pte",
                                    f"{kws}.pte", "--detailed"], os.path.join(WORK, "det-kws"))


# ---- failures -------------------------------------------------------------------

def expect_failed_analysis(label, args, out, old_bundle=None):
    shutil.rmtree(out, ignore_errors=True)
    if old_bundle:
        shutil.copytree(old_bundle, out)
        check(os.path.exists(os.path.join(out, "result_manifest.json")), f"{label}: setup")
    before = tree(out) if old_bundle else None
    rc, _, err = run(args + ["-o", out, "--quiet"])
    check(rc == 1, f"{label}: exit {rc}, want 1 ({err.strip()})")
    check(err.startswith("etprof: "), f"{label}: no error message: {err!r}")
    if old_bundle:
        # Publication is atomic: the older bundle is still there, unchanged and valid.
        check(tree(out) == before, f"{label}: the older bundle changed")
        rc, _, _ = run(["verify", out])
        check(rc == 0, f"{label}: the older bundle no longer verifies after a failed analysis")
    else:
        check(not os.path.exists(out), f"{label}: a failed analysis left {out}")


def mode_failure():
    d = make_demo()
    good = os.path.join(WORK, "good")
    shutil.rmtree(good, ignore_errors=True)
    run_ok(["analyze"] + demo_inputs(d) + ["-o", good, "--detailed", "--quiet"])
    trunc = os.path.join(WORK, "truncated.etdp")
    with open(f"{d}/run.etdp", "rb") as f:
        data = f.read()
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    other = os.path.join(WORK, "other")
    shutil.rmtree(other, ignore_errors=True)
    os.makedirs(other)
    run_ok(["gen", "etdump", "-o", f"{other}/run.etdp", "--instructions", "12", "--pte", f"{other}/model.pte"])
    cases = {
        "truncated etdump": ["analyze", f"{d}/model.etrecord", "--etdump", trunc, "--pte", f"{d}/model.pte"],
        "truncated etdump, pte only": ["analyze", "--etdump", trunc, "--pte", f"{d}/model.pte"],
        "pte that does not match": ["analyze", "--etdump", f"{d}/run.etdp", "--pte", f"{other}/model.pte"],
        "pte that does not match the etrecord": ["analyze", f"{d}/model.etrecord", "--etdump", f"{d}/run.etdp",
                                                  "--pte", f"{other}/model.pte"],
    }
    for label, args in cases.items():
        expect_failed_analysis(label, args, os.path.join(WORK, "fail-new"))
        expect_failed_analysis(label + " over a published bundle", args, os.path.join(WORK, "fail-old"),
                               old_bundle=good)


# ---- tamper ---------------------------------------------------------------------

def mode_tamper():
    d = make_demo()
    for fmt in ("csv", "json"):
        src = os.path.join(WORK, f"tamper-src-{fmt}")
        shutil.rmtree(src, ignore_errors=True)
        run_ok(["analyze"] + demo_inputs(d) + ["-o", src, "--detailed", "--format", fmt, "--quiet"])
        manifest = load_json(os.path.join(src, "result_manifest.json"))
        check(len(manifest["artifacts"]) >= 6, f"{fmt}: too few artifacts to tamper with")
        for art in manifest["artifacts"]:
            p = art["path"]
            t = os.path.join(WORK, "tampered")
            shutil.rmtree(t, ignore_errors=True)
            shutil.copytree(src, t)
            full = os.path.join(t, p)
            with open(full, "r+b") as f:
                data = bytearray(f.read())
                if not data:
                    continue
                data[len(data) // 2] ^= 0x01
                f.seek(0)
                f.write(data)
            rc, out, err = run(["verify", t])
            check(rc == 1, f"tamper {fmt} {p}: verify exited {rc}")
            check(f"{t}/{p}" in err and "sha256 mismatch" in err,
                  f"tamper {fmt} {p}: verify does not name it: {err.strip()}")


MODES = {"schemas": mode_schemas, "demo": mode_demo, "golden": mode_golden, "determinism": mode_determinism,
         "failure": mode_failure, "tamper": mode_tamper, "real": mode_real, "update-golden": mode_update_golden}

if MODE not in MODES:
    raise SystemExit(f"unknown mode {MODE}; one of {', '.join(MODES)}")
os.makedirs(WORK, exist_ok=True)
MODES[MODE]()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print(f"{MODE}: ok")
