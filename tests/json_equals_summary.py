#!/usr/bin/env python3
"""`etprof analyze --json` carries everything summary.json has, so the two
cannot drift apart again (issue 30): on every kind of run -- ETDump and
program only, with an ETRecord (or an ETRecord alone), with runner and
device logs and a debug buffer, Ethos-U (the Arm U85 console log carrying
its ETDump, and EthosUBackend events on the real Ethos-U program), and VGF
programs with VGF_NEURAL_STATISTICS (settings stated, assumed, given on the
command line, and the coverage-gap capture) -- this runs

    etprof analyze ARGS --json             (the whole analysis on stdout)
    etprof analyze ARGS -o DIR             (DIR/summary.json)
    etprof analyze ARGS -o DIR2 --json     (prints DIR2/summary.json)

and checks that every member of summary.json is in the analysis document
under the same name with the same value, except "schema" (etprof.summary
against etprof.analysis); that the analysis document adds exactly the
members ANALYSIS_ONLY names; that summary.json holds no bundle-only member
(BUNDLE_ONLY is empty: a bundle's artifact references, run id and times are
in result_manifest.json and run_metadata.json, never in summary.json); that
-o DIR --json prints summary.json's bytes; and that both documents satisfy
their schemas, whose definitions of the shared members are the same.

usage: json_equals_summary.py ETPROF FIXTURES SOURCE_DIR
Exit 77 (skipped) only when FIXTURES (../shared/fixtures) is absent.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ETPROF, FIX, SRC = sys.argv[1:4]
if not os.path.isdir(FIX):
    print("SKIP: %s (../shared/fixtures) is absent: no real run to analyse" % FIX)
    sys.exit(77)

# What the documents may differ by (docs/result-bundle.md, "summary.json and analyze --json").
ANALYSIS_ONLY = {"inputs", "executions", "figures", "entities"}
BUNDLE_ONLY = set()  # members summary.json has and --json has not: none
SCHEMAS = {"etprof.analysis": "analysis.v1.schema.json", "etprof.summary": "summary.v1.schema.json"}

R = os.path.join(FIX, "real-runs")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(args, what):
    p = subprocess.run([ETPROF] + args, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: etprof %s exited %d: %s" % (what, " ".join(args), p.returncode, p.stderr.strip()[-400:]))
        return None
    return p


def first_difference(a, b, path="$"):
    """The first path where @a and @b differ, with both values, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return "%s.%s: %s against %s" % (path, k, "absent" if k not in a else "present",
                                                 "absent" if k not in b else "present")
            d = first_difference(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d items against %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if a != b or type(a) is not type(b):
        return "%s: %s against %s" % (path, json.dumps(a)[:200], json.dumps(b)[:200])
    return None


try:
    import jsonschema
except ImportError:
    jsonschema = None
    fail("the python3 jsonschema module is missing (apt install python3-jsonschema)")


def load_schema(name):
    with open(os.path.join(SRC, "schemas", "json", name)) as f:
        return json.load(f)


def validate(doc, what):
    if not jsonschema:
        return
    name = SCHEMAS.get(doc.get("schema"))
    if not name:
        fail("%s: unknown schema %r" % (what, doc.get("schema")))
        return
    for e in list(jsonschema.Draft202012Validator(load_schema(name)).iter_errors(doc))[:5]:
        fail("%s fails %s at %s: %s" % (what, name, list(e.absolute_path), e.message[:200]))


def resolved(node, schema, depth=0):
    """@node with every local $ref replaced by what it names (recursively)."""
    if depth > 40:
        return node
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/"):
                target = schema
                for part in v[2:].split("/"):
                    target = target[part]
                out["$ref:" + v] = resolved(target, schema, depth + 1)
            else:
                out[k] = resolved(v, schema, depth + 1)
        return out
    if isinstance(node, list):
        return [resolved(v, schema, depth + 1) for v in node]
    return node


def check_schemas():
    """The analysis schema defines every member of summary.json, as the summary schema does."""
    a, s = load_schema("analysis.v1.schema.json"), load_schema("summary.v1.schema.json")
    for k, v in s["properties"].items():
        if k == "schema" or k in BUNDLE_ONLY:
            continue
        if k not in a["properties"]:
            fail("analysis.v1.schema.json does not define summary.json's member %s" % k)
            continue
        d = first_difference(resolved(a["properties"][k], a), resolved(v, s), k)
        if d:
            fail("the schemas define %s differently: analysis against summary at %s" % (k, d))
    for k in s["required"]:
        if k not in a["required"] and k not in BUNDLE_ONLY:
            fail("analysis.v1.schema.json does not require summary.json's required member %s" % k)


def compare(case, args, work, expect):
    """One kind of run: --json, -o DIR and -o DIR --json, compared."""
    p = run(["analyze"] + args + ["--json"], case)
    out = os.path.join(work, case)
    q = run(["analyze"] + args + ["-o", out, "--quiet", "--no-model-explorer"], case)
    out2 = out + "-json"
    r = run(["analyze"] + args + ["-o", out2, "--json", "--no-model-explorer"], case)
    if not (p and q and r):
        return
    doc = json.loads(p.stdout)
    with open(os.path.join(out, "summary.json")) as f:
        text = f.read()
    summ = json.loads(text)
    with open(os.path.join(out2, "summary.json")) as f:
        if r.stdout != f.read():
            fail("%s: -o DIR --json does not print DIR/summary.json" % case)
    if r.stdout != text:
        d = first_difference(json.loads(r.stdout), summ)
        fail("%s: two publications of the same run wrote different summary.json: %s" % (case, d))
    validate(doc, case + " analyze --json")
    validate(summ, case + " summary.json")
    if doc.get("schema") != "etprof.analysis" or summ.get("schema") != "etprof.summary":
        fail("%s: schemas %r and %r" % (case, doc.get("schema"), summ.get("schema")))
    extra, missing = set(doc) - set(summ), set(summ) - set(doc)
    if extra != ANALYSIS_ONLY:
        fail("%s: --json's members beyond summary.json are %s, documented: %s" % (case, sorted(extra), sorted(ANALYSIS_ONLY)))
    if missing != BUNDLE_ONLY:
        fail("%s: summary.json members missing from --json: %s" % (case, sorted(missing - BUNDLE_ONLY)))
    same = [k for k in summ if k != "schema" and k not in BUNDLE_ONLY]
    for k in same:
        d = first_difference(doc.get(k), summ[k], k)
        if d:
            fail("%s: --json and summary.json differ at %s" % (case, d))
    # The run is of the kind it is meant to be.
    for what, ok in expect(doc, summ):
        if not ok:
            fail("%s: not the run meant: %s" % (case, what))
    kinds = [k for k in ("vgf_cycles", "npu", "debug_buffer") if summ.get(k) is not None]
    kinds += ["device figures"] if logged(summ) else []
    kinds += ["runner log"] if summ["units"]["tick_unit"]["evidence"] else []
    kinds += ["etrecord"] if doc.get("inputs", {}).get("etrecord") else []
    print("ok   %-22s %d shared members equal (%s), --json adds %s" % (
        case, len(same), ", ".join(kinds) or "plain", ", ".join(sorted(extra))))


def logged(summ):
    return bool((summ.get("device") or {}).get("figures"))


def pe(c, i, s, e, name):
    return {"profile_event": {"chain_index": c, "instruction_id": i, "start_time": s, "end_time": e, "name": name}}


def ethosu_etdump(work):
    """EthosUBackend events for the real Ethos-U program (instruction 1 its DelegateCall), by flatc."""
    runs = [{"name": "Default", "events": [pe(-1, 0, 0, 500, "Program::load_method")]}]
    for k in range(4):
        t = 100000 * (k + 1)
        q, npu, cp = 300 + 10 * k, 2000 + 100 * k, 150 + 5 * k
        ex0 = t + q + 30
        length = 35 + cp + npu
        runs.append({"name": "Execute", "events": [
            pe(0, 0, t, t + q, "OPERATOR_CALL"), pe(0, 0, t + 5, t + q - 5, "native_call_quantize_per_tensor.out"),
            pe(0, 1, ex0 + 5, ex0 + 5 + cp, "+EthosUBackend::execute()handles.input.memcpy()"),
            pe(0, 1, ex0 + 10 + cp, ex0 + 10 + cp + npu, "+EthosUBackend::execute()NPU"),
            pe(0, 1, ex0, ex0 + length, "EthosUBackend::execute()"),
            pe(0, 1, ex0 - 20, ex0 + length + 15, "DELEGATE_CALL"),
            pe(-1, 0, t - 50, ex0 + length + 400, "Method::execute")]})
    base = os.path.join(work, "ethosu")
    with open(base + ".json", "w") as f:
        json.dump({"version": 0, "run_data": runs}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", work,
                    os.path.join(SRC, "schemas", "flatbuffers", "etdump.fbs"), base + ".json"], check=True)
    return base + ".etdp"


def main():
    check_schemas()
    work = tempfile.mkdtemp(prefix="etprof-json-summary-")
    try:
        demo = os.path.join(work, "demo")
        run(["gen", "demo", "-o", demo, "--flaws"], "gen demo")
        vgf_pte = os.path.join(FIX, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
        vgf = os.path.join(work, "vgf")
        run(["gen", "vgf-stats", "--pte", vgf_pte, "-o", vgf, "--executions", "3"], "gen vgf-stats")
        eu_etdp = ethosu_etdump(work)
        eu_pte = os.path.join(FIX, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
        kws = os.path.join(R, "cm_et_arduino_kws_x10")
        bp = os.path.join(R, "et_bundled_program_debug_intermediate")

        def has(key, test=lambda v: v is not None):
            return lambda d, s: [(key, test(s.get(key)))]

        def device(d, s):
            return [("device figures from the log", logged(s))]

        def runner(d, s):
            return [("the runner log's figures", any(m["name"].startswith("runner_iteration.") for m in s["metrics"])),
                    ("its wall times as tick-unit evidence", s["units"]["tick_unit"]["evidence"] is not None)]

        def etrecord(d, s):
            return [("an ETRecord among the inputs", d["inputs"]["etrecord"] is not None)]

        def plain(d, s):
            return [("no ETRecord", d["inputs"]["etrecord"] is None), ("no device figure", not logged(s)),
                    ("no vgf_cycles", "vgf_cycles" not in s)]

        def both(*fs):
            return lambda d, s: [x for f in fs for x in f(d, s)]

        def vgf_fallback(d, s):
            return [("vgf_cycles", "vgf_cycles" in s),
                    ("decoder_fallback_fields", bool(s.get("vgf_cycles", {}).get("decoder", {}).get("decoder_fallback_fields")))]

        cases = [
            # ETDump and program only
            ("plain_add", [os.path.join(R, "et_add_x10.etdp"), os.path.join(R, "et_add_x10.pte")], plain),
            ("plain_xnnpack", [os.path.join(R, "xnn_np_add_x10.etdp"), os.path.join(R, "xnn_np_add_x10.pte")], plain),
            ("plain_method", [os.path.join(R, "np_multi_forward_x10.etdp"), os.path.join(R, "np_multi_forward_x10.pte"),
                              "--method", "forward", "--skip-executions", "2", "--rank-by", "p50"], plain),
            # with an ETRecord (or alone)
            ("etrecord_kws", [kws + ".etdp", kws + ".pte", kws + ".etrecord"], etrecord),
            ("etrecord_demo_flaws", [os.path.join(demo, "model.etrecord"), "--etdump", os.path.join(demo, "run.etdp"),
                                     "--pte", os.path.join(demo, "model.pte")],
             both(etrecord, lambda d, s: [("issues", bool(s["issues"]))])),
            ("etrecord_only", [os.path.join(demo, "model.etrecord"), "--etdump", os.path.join(demo, "run.etdp")],
             both(etrecord, lambda d, s: [("no program", d["inputs"]["program"] is None)])),
            # with logs
            ("runner_log", [os.path.join(R, "et_add_x10.etdp"), os.path.join(R, "et_add_x10.pte"),
                            "--log", os.path.join(R, "et_add_x10.log")], runner),
            ("log_debug_buffer", ["--etdump", bp + ".etdp", "--pte", bp + ".bpte", "--log", bp + ".log",
                                  "--debug-buffer", bp + ".debug.bin"], has("debug_buffer")),
            ("log_kws_etrecord", [kws + ".etdp", kws + ".pte", kws + ".etrecord", "--log", kws + ".log"],
             both(etrecord, runner)),
            # Ethos-U
            ("ethosu_u85_log", ["--pte", kws + ".pte", "--etrecord", kws + ".etrecord",
                                "--log", os.path.join(FIX, "device-logs", "arm_serial_kws_u85.log")], device),
            ("ethosu_npu_events", ["--etdump", eu_etdp, "--pte", eu_pte, "--source-unit", "cycles",
                                   "--cpu-hz", "1000000000"],
             both(has("npu"), lambda d, s: [("units.cpu_hz", "cpu_hz" in s["units"])])),
            # VGF with NX statistics
            ("vgf_g2_mode1_v2", ["--pte", vgf_pte, "--etdump", os.path.join(vgf, "g2_mode1_v2.etdp"),
                                 os.path.join(vgf, "vgf_stats.etrecord")], both(has("vgf_cycles"), etrecord)),
            ("vgf_v1_assumed", ["--pte", vgf_pte, "--etdump", os.path.join(vgf, "g2_mode1_v1.etdp")], vgf_fallback),
            ("vgf_v1_given", ["--pte", vgf_pte, "--etdump", os.path.join(vgf, "g1_mode0_v1.etdp"),
                              "--nx-statistics-mode", "0", "--nx-profiling-device", "Mali-G1"], has("vgf_cycles")),
            ("vgf_coverage_gap", ["--pte", os.path.join(vgf, "coverage_gap.pte"),
                                  "--etdump", os.path.join(vgf, "coverage_gap.etdp")], has("vgf_cycles")),
        ]
        for case, args, expect in cases:
            compare(case, args, work, expect)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
