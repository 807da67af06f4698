#!/usr/bin/python3
"""The five runtime profiles of the Model Explorer learning path, rebuilt as
ETDumps for programs etprof can read, and the findings each must give.

  seed_profiles.py ETPROF WORKDIR

Event times come from the profiles' published figures (per execution; five
steady executions within 0.3% of each other), laid on these programs:

  portable   real-runs/et_bundled_program_debug_intermediate.bpte (portable
             aten kernels: mul, add, add). The published run: 9,082 ms,
             no delegate, a repeated aten.addmm as the hotspot. Here the
             repeated aten::add.out carries 7,800 ms (85.9%), mul 1,200 ms.
             -> delegation.none, hotspot.op_type (aten::add.out, both adds).
  xnnpack    a program written here (no real program has XNNPACK calls and
             native kernels): 2 embeddings and an add, 98 XnnpackBackend
             calls, an argmax. Delegate calls 116.7 ms, native 8.5 ms of
             125 ms. -> nothing: the expensive work is inside the delegate.
  fp32       real-runs/cm_et_arduino_kws_x10.pte (no FP32 Ethos-U program
             without delegate exists among the fixtures; this is the
             convolution program that runs on the Cortex-M CPU). 395 M
             cycles, 343 M of them in the two convolution types.
             -> delegation.none, hotspot.op_type for quantized_conv2d
             (52.7%) and quantized_depthwise_conv2d (34.2%).
  int8       pte-adapter/mobilenet_v2_ethosu/input.pte: the delegate call
             96.9 k cycles, quantize_per_tensor 6.47 M, Method::execute
             6.59 M. -> delegation.cpu_side_dominates and
             native_dominates (naming the quantize), boundary_conversions
             (quantize + dequantize next to the call), hotspot.op_type
             (the quantize: 98.2% of execute).
  fragmented a program written here in the shape of the published run (no
             fixture has two Ethos-U calls): quantize, EthosU call (105 k),
             dequantize, dequantize_per_channel (21.6 M), convolution
             (1.67 G), quantize, EthosU call (47 k), dequantize; 1.70 G
             cycles. -> delegation.fragmented (one island: the four native
             instructions between the calls), boundary_conversions,
             native_dominates, cpu_side_dominates, hotspot.op_type
             (aten::convolution.out, 98.2%).

Each profile must fire exactly the codes listed (no other finding fires),
with the entities and numbers stated. Then: coverage that differs (the
quantize missing from one execution of the int8 profile) withholds
native_dominates instead of firing it; `--finding CODE.KEY=VALUE` moves a
threshold (and is echoed as given); unknown codes, keys and bad values exit 2.
Exit 77 when ../shared/fixtures is absent.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import findings_check as fc  # noqa: E402
import profile_maker as pm  # noqa: E402
from findings_check import fail  # noqa: E402

N = 5
CYCLES = ["--source-unit", "cycles", "--unit", "cycles"]
NS = ["--source-unit", "ns"]


def profile(etprof, work, stem, program, times, execute, units, ethosu=None, skip=None):
    """ETDump for @p program with per-instruction @p times; the analysis JSON
    (extra analyze options in @p units), the instruction list and the
    per-execution runs written."""
    instrs = pm.instructions(etprof, program)
    runs = pm.varied({"times": times, "execute": execute}, N)
    if skip:
        runs[skip[0]]["skip"] = {skip[1]}
    dump = pm.write_etdump(work, stem, instrs, runs, ethosu)
    doc = fc.analyze_ok(etprof, ["--etdump", dump, "--pte", program] + units, stem)
    # The dump says what was written: executions, Method::execute, every instruction timed.
    ex = next(f for f in doc["figures"] if f["name"] == "method_execute")
    if ex["samples"] != N or abs(ex["avg"] * scale(doc) - avg_execute(runs)) > 1e-9 * avg_execute(runs):
        fail("%s: Method::execute %r over %r executions; %r ticks over %d were written" %
             (stem, ex["avg"], ex["samples"], avg_execute(runs), N))
    for e in doc["entities"]:
        if e["kind"] == "instruction" and e["instruction"] in times:
            ran = [r["times"][e["instruction"]] for r in runs if e["instruction"] not in r.get("skip", ())]
            t = e.get("timing") or {}
            want = sum(ran) / len(ran)
            if t.get("executions") != len(ran) or abs(t["avg"] * scale(doc) - want) > 1e-6 * want:
                fail("%s: %s timed %r; %d executions averaging %r ticks were written" %
                     (stem, e["id"], t, len(ran), want))
    return doc, instrs, runs, dump


def avg(runs, idx):
    """Average over executions of the sum of instructions @p idx (ticks)."""
    return sum(sum(r["times"][i] for i in idx if i not in r.get("skip", ())) for r in runs) / len(runs)


def avg_execute(runs):
    return sum(r["execute"] for r in runs) / len(runs)


def scale(doc):
    """Ticks per reported unit."""
    return doc["units"]["divisor"]


def expect_codes(name, doc, want):
    got = fc.fired_codes(doc)
    if got != sorted(want):
        fail("%s: fired %s, expected %s\n  %s" % (name, got, sorted(want),
                                                   "\n  ".join(fc.describe(f) for f in doc["findings"])))


def one(name, doc, code, status="fired"):
    fs = fc.findings(doc, status, code)
    if len(fs) != 1:
        fail("%s: %d %s findings with status %s" % (name, len(fs), code, status))
    return fs[0]


def expect_share(name, f, share, what):
    """The finding states @p share (a %) within rounding (0.05 points)."""
    if not fc.states(f, share, rel=0, abs_tol=0.05):
        fail("%s: %s does not state %s = %.3f%%: %s" % (name, f["code"], what, share, fc.describe(f)))


def expect_entities(name, f, ids, first=None):
    """@p f names every id of @p ids; with @p first, that one is the first
    native instruction it names (the delegate calls it may list as the
    other side of the comparison aside)."""
    got = fc.entity_ids(f)
    missing = [i for i in ids if i not in got]
    if missing:
        fail("%s: %s does not name %s: %s" % (name, f["code"], missing, fc.describe(f)))
    native = [e["id"] for e in f["affected_entities"] if e["kind"] == "instruction"]
    if first and (not native or native[0] != first):
        fail("%s: %s names %s first among native instructions, expected %s" % (name, f["code"], native[:1], first))


def hotspot_for(name, doc, instrs, runs, op_type):
    """The hotspot.op_type finding of @p op_type, checked: it names the
    type's instructions (or the type) and states its share of execute."""
    ids = [i["id"] for i in instrs if i["name"] == op_type]
    idx = [i["index"] for i in instrs if i["name"] == op_type]
    share = 100 * avg(runs, idx) / avg_execute(runs)
    for f in fc.findings(doc, "fired", "hotspot.op_type"):
        names = [e["name"] for e in f["affected_entities"]]
        if op_type in names or op_type in f["message"] or any(i in fc.entity_ids(f) for i in ids):
            expect_share(name, f, share, op_type + "'s share of Method::execute")
            return f
    fail("%s: no hotspot.op_type names %s (%.1f%% of execute)" % (name, op_type, share))


def check_portable(etprof, work, fixtures):
    pte = os.path.join(fixtures, "real-runs", "et_bundled_program_debug_intermediate.bpte")
    ms = 1000000
    times = {0: 1200 * ms, 1: 3900 * ms, 2: 3900 * ms}
    doc, instrs, runs, _ = profile(etprof, work, "portable", pte, times, 9082 * ms, NS)
    expect_codes("portable", doc, ["delegation.none", "hotspot.op_type"])
    f = hotspot_for("portable", doc, instrs, runs, "aten::add.out")
    expect_entities("portable", f, ["forward_0_1", "forward_0_2"])
    return doc


def xnnpack_program(work):
    steps = [("kernel", "aten::embedding", "out"), ("kernel", "aten::embedding", "out"),
             ("kernel", "aten::add", "out")]
    steps += [("delegate", "XnnpackBackend")] * 98
    steps += [("kernel", "aten::argmax", "out")]
    return pm.write_program(work, "xnnpack_program", steps)


def check_xnnpack(etprof, work):
    pte = xnnpack_program(work)
    us = 1000
    # 116.7 ms over 98 calls: the first 97 at 1,190 us, the last the rest.
    times = {0: 3000 * us, 1: 1500 * us, 2: 1000 * us, 101: 3000 * us}
    for i in range(3, 101):
        times[i] = 1190 * us if i < 100 else 116700 * us - 97 * 1190 * us
    doc, instrs, runs, _ = profile(etprof, work, "xnnpack", pte, times, 125000 * us, NS)
    expect_codes("xnnpack", doc, [])
    delegated = next(f for f in doc["figures"] if f["name"] == "delegate_calls_total")
    if abs(delegated["avg"] - avg(runs, range(3, 101)) / scale(doc)) > 1e-6 * delegated["avg"]:
        fail("xnnpack: delegate calls %r ms, expected %r" % (delegated["avg"], avg(runs, range(3, 101)) / 1e6))
    return doc


FP32_EXECUTE = 395000000
FP32_TIMES = {0: 3000000, 2: 2000000, 11: 2000000, 12: 1500000, 13: 6000000, 14: 25000000, 15: 500000,
              4: 52000000, 6: 52000000, 8: 52000000, 10: 52000000,
              1: 27000000, 3: 27000000, 5: 27000000, 7: 27000000, 9: 27000000}


def check_fp32(etprof, work, fixtures):
    pte = os.path.join(fixtures, "real-runs", "cm_et_arduino_kws_x10.pte")
    doc, instrs, runs, _ = profile(etprof, work, "fp32", pte, FP32_TIMES, FP32_EXECUTE, CYCLES)
    expect_codes("fp32", doc, ["delegation.none", "hotspot.op_type", "hotspot.op_type"])
    hotspot_for("fp32", doc, instrs, runs, "cortex_m::quantized_conv2d.out")
    hotspot_for("fp32", doc, instrs, runs, "cortex_m::quantized_depthwise_conv2d.out")
    return doc


INT8_TIMES = {0: 6470000, 1: 96900, 2: 12000}
INT8_EXECUTE = 6590000
INT8_NPU = {1: (80000, 6000)}


def check_int8(etprof, work, fixtures):
    pte = os.path.join(fixtures, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
    doc, instrs, runs, _ = profile(etprof, work, "int8", pte, INT8_TIMES, INT8_EXECUTE, CYCLES, INT8_NPU)
    want = ["delegation.boundary_conversions", "delegation.cpu_side_dominates", "delegation.native_dominates",
            "hotspot.op_type"]
    expect_codes("int8", doc, want)
    ex = avg_execute(runs)
    native = avg(runs, (0, 2))
    f = one("int8", doc, "delegation.native_dominates")
    expect_entities("int8", f, ["forward_0_0"], first="forward_0_0")
    expect_share("int8", f, 100 * native / ex, "native kernels' share")
    f = one("int8", doc, "delegation.cpu_side_dominates")
    expect_entities("int8", f, ["forward_0_0"], first="forward_0_0")
    expect_share("int8", f, 100 * avg(runs, (1,)) / native, "delegate time over native time")
    f = one("int8", doc, "delegation.boundary_conversions")
    expect_entities("int8", f, ["forward_0_0", "forward_0_2"], first="forward_0_0")
    expect_share("int8", f, 100 * native / ex, "the conversions' share")
    hotspot_for("int8", doc, instrs, runs, "cortex_m::quantize_per_tensor.out")
    return doc


def fragmented_program(work):
    steps = [("kernel", "cortex_m::quantize_per_tensor", "out"), ("delegate", "EthosUBackend"),
             ("kernel", "cortex_m::dequantize_per_tensor", "out"),
             ("kernel", "quantized_decomposed::dequantize_per_channel", "out"),
             ("kernel", "aten::convolution", "out"), ("kernel", "cortex_m::quantize_per_tensor", "out"),
             ("delegate", "EthosUBackend"), ("kernel", "cortex_m::dequantize_per_tensor", "out")]
    return pm.write_program(work, "fragmented_program", steps)


def check_fragmented(etprof, work):
    pte = fragmented_program(work)
    times = {0: 6470000, 1: 105000, 2: 350000, 3: 21600000, 4: 1670000000, 5: 500000, 6: 47000, 7: 300000}
    npu = {1: (90000, 8000), 6: (40000, 4000)}
    doc, instrs, runs, _ = profile(etprof, work, "fragmented", pte, times, 1700000000, CYCLES, npu)
    want = ["delegation.boundary_conversions", "delegation.cpu_side_dominates", "delegation.fragmented",
            "delegation.native_dominates", "hotspot.op_type"]
    expect_codes("fragmented", doc, want)
    ex = avg_execute(runs)
    island = (2, 3, 4, 5)
    f = one("fragmented", doc, "delegation.fragmented")
    expect_entities("fragmented", f, ["forward_0_4"])
    expect_share("fragmented", f, 100 * avg(runs, island) / ex, "the island's share")
    islands = (f["details"].get("specific") or {}).get("islands")
    want_ids = ["forward_0_%d" % i for i in island]
    if not islands or len(islands) != 1 or islands[0].get("instructions") != want_ids \
            or abs(islands[0].get("share_pct", -1) - 100 * avg(runs, island) / ex) > 0.05:
        fail("fragmented: the islands listed are %r; expected one, %s, %.2f%% of execute" %
             (islands, want_ids, 100 * avg(runs, island) / ex))
    f = one("fragmented", doc, "delegation.boundary_conversions")
    expect_entities("fragmented", f, ["forward_0_0", "forward_0_2", "forward_0_3", "forward_0_5", "forward_0_7"])
    if "forward_0_4" in fc.entity_ids(f):
        fail("fragmented: the convolution is named as a boundary conversion: %s" % fc.describe(f))
    expect_share("fragmented", f, 100 * avg(runs, (0, 2, 3, 5, 7)) / ex, "the conversions' share")
    native = avg(runs, (0, 2, 3, 4, 5, 7))
    f = one("fragmented", doc, "delegation.native_dominates")
    expect_entities("fragmented", f, ["forward_0_4"], first="forward_0_4")
    expect_share("fragmented", f, 100 * native / ex, "native kernels' share")
    f = one("fragmented", doc, "delegation.cpu_side_dominates")
    expect_share("fragmented", f, 100 * avg(runs, (1, 6)) / native, "delegate time over native time")
    hotspot_for("fragmented", doc, instrs, runs, "aten::convolution.out")
    return doc


def check_withheld(etprof, work, fixtures):
    """Coverage that differs withholds what rests on a total.

    int8: the quantize missing from the third execution. The native kernels'
    total covers different executions, so it is not formed: native_dominates,
    cpu_side_dominates and boundary_conversions must be withheld, with the
    reason, not fired. (A hotspot of the quantize alone adds nothing across
    entities and may fire.)
    fp32: one of the four quantized_conv2d instructions missing from one
    execution. Their averages cover different executions, so no total of
    all four is formed: the hotspot may only rest on the three measured in
    every execution (a lower bound, "at least", with the fourth counted as
    not added); the depthwise type, measured in every execution, still
    fires with its 34.2%."""
    pte = os.path.join(fixtures, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
    doc, _, _, _ = profile(etprof, work, "int8_gap", pte, INT8_TIMES, INT8_EXECUTE, CYCLES, INT8_NPU,
                           skip=(2, 0))
    total = next(f for f in doc["figures"] if f["name"] == "operator_calls_total")
    if not total.get("reason"):
        fail("int8_gap: operator_calls_total is formed (%r): the test's premise is wrong" % total)
    for code in ("delegation.native_dominates", "delegation.cpu_side_dominates", "delegation.boundary_conversions"):
        f = one("int8_gap", doc, code, "withheld")
        if not f["message"] or fc.findings(doc, "fired", code):
            fail("int8_gap: %s withheld without a reason, or fired too" % code)
    if fc.findings(doc, "fired", "delegation.none"):
        fail("int8_gap: delegation.none fired on a delegated run")

    pte = os.path.join(fixtures, "real-runs", "cm_et_arduino_kws_x10.pte")
    doc, instrs, runs, _ = profile(etprof, work, "fp32_gap", pte, FP32_TIMES, FP32_EXECUTE, CYCLES, skip=(2, 4))
    conv = "cortex_m::quantized_conv2d.out"
    for f in fc.findings(doc, None, "hotspot.op_type"):
        if conv not in f["message"]:
            continue
        ev = {v["name"]: v["value"] for v in f["details"]["evidence"]}
        if f["status"] == "fired" and (ev.get("not_summed") != 1 or "at least" not in f["message"]):
            fail("fp32_gap: the %s hotspot must add only the three instructions measured in every execution "
                 "(forward_0_4 ran in 4 of 5) and say it is a lower bound: %s" % (conv, fc.describe(f)))
    hotspot_for("fp32_gap", doc, instrs, runs, "cortex_m::quantized_depthwise_conv2d.out")


def check_settings(etprof, work, fixtures):
    pte = os.path.join(fixtures, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
    dump = os.path.join(work, "int8.etdp")
    base = ["--etdump", dump, "--pte", pte] + CYCLES
    # 98.4% native: a 99% threshold keeps native_dominates from firing.
    doc = fc.analyze_ok(etprof, base + ["--finding", "delegation.native_dominates.min_native_share_pct=99"],
                        "int8 --finding")
    if fc.findings(doc, "fired", "delegation.native_dominates"):
        fail("--finding ...min_native_share_pct=99: native_dominates still fired at 98.4%")
    # The bundled program's mul is 13.2%: a 10% hotspot threshold names it too.
    bpte = os.path.join(fixtures, "real-runs", "et_bundled_program_debug_intermediate.bpte")
    args = ["--etdump", os.path.join(work, "portable.etdp"), "--pte", bpte] + NS
    doc = fc.analyze_ok(etprof, args + ["--finding", "hotspot.op_type.min_share_pct=10"], "portable --finding")
    hot = fc.findings(doc, "fired", "hotspot.op_type")
    if len(hot) != 2 or not any("aten::mul.out" in f["message"] or "forward_0_0" in fc.entity_ids(f) for f in hot):
        fail("--finding hotspot.op_type.min_share_pct=10: expected hotspots for add and mul, got %s" %
             [fc.describe(f) for f in hot])
    for f in hot:
        th = [t for t in f["details"]["thresholds"] if t["key"] == "hotspot.op_type.min_share_pct"]
        if len(th) != 1 or th[0]["value"] != 10 or th[0]["given"] is not True or th[0]["default"] != 30:
            fail("--finding: the threshold as used is %r" % th)
    for bad in ("nosuch.code.min_share_pct=1", "hotspot.op_type.no_such_key=1", "hotspot.op_type.min_share_pct=-1",
                "hotspot.op_type.min_share_pct=abc", "hotspot.op_type.min_share_pct", "hotspot.op_type=5"):
        rc, _, err = fc.analyze(etprof, base + ["--finding", bad])
        if rc != 2 or not err or "\n" in err:
            fail("--finding %s: exit %d (expected 2, one line): %r" % (bad, rc, err))


def check_accelerator(etprof, work, fixtures):
    """npu.copy_bound: the clean INT8 profile with the Ethos-U call's copies
    (60 k cycles) three times its NPU run (20 k). nx.hot_chain: the project's
    VGF statistics capture (`etprof gen vgf-stats`, one segment): no chain or
    cascade reaches the default 25%; at 15% the largest cascade fires with
    the share its cycles give in operators.json's NX groups; a capture whose
    segments cover different executions withholds it."""
    pte = os.path.join(fixtures, "pte-adapter", "mobilenet_v2_ethosu", "input.pte")
    doc, _, _, _ = profile(etprof, work, "int8_copies", pte, INT8_TIMES, INT8_EXECUTE, CYCLES, {1: (20000, 60000)})
    f = one("int8_copies", doc, "npu.copy_bound")
    if fc.entity_ids(f) != ["forward_0_1"] or not fc.states(f, 3.0, rel=1e-6):
        fail("int8_copies: npu.copy_bound must name forward_0_1 with copies 3.0x the NPU: %s" % fc.describe(f))
    if fc.findings(doc, None, "npu.copy_bound") and fc.findings(
            profile(etprof, work, "int8_npu", pte, INT8_TIMES, INT8_EXECUTE, CYCLES, INT8_NPU)[0], None,
            "npu.copy_bound"):
        fail("int8: npu.copy_bound fired with the NPU (80 k) longer than the copies (6 k)")

    gen = os.path.join(work, "vgf")
    vpte = os.path.join(fixtures, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    if subprocess.run([etprof, "gen", "vgf-stats", "--pte", vpte, "-o", gen], capture_output=True).returncode:
        fail("etprof gen vgf-stats failed")
    args = ["--etdump", os.path.join(gen, "g2_mode1_v2.etdp"), "--pte", vpte]
    if fc.findings(fc.analyze_ok(etprof, args + ["--json"], "vgf"), None, "nx.hot_chain"):
        fail("vgf: nx.hot_chain at the default threshold, though no chain or cascade reaches 25%")
    out = os.path.join(work, "vgf_bundle")
    shutil.rmtree(out, ignore_errors=True)
    if subprocess.run([etprof, "analyze"] + args + ["-q", "--format", "json", "-o", out,
                                                    "--finding", "nx.hot_chain.min_share_pct=15"]).returncode:
        fail("vgf: analyze -o failed")
    with open(os.path.join(out, "summary.json")) as fh:
        doc = json.load(fh)
    with open(os.path.join(out, "operators.json")) as fh:
        groups = json.load(fh)["nx_groups"]
    model = sum(g["nx"]["total_cycles_avg"] for g in groups if g["kind"] == "nx_segment")
    shares = {g["id"]: 100 * g["nx"]["total_cycles_avg"] / model for g in groups
              if g["kind"] in ("nx_chain", "nx_cascade") and g["nx"]["full_coverage"]}
    want = sorted(i for i, v in shares.items() if v >= 15)
    f = one("vgf", doc, "nx.hot_chain")
    top = max(shares, key=shares.get)
    if not want or sorted(fc.entity_ids(f)) != want or top not in f["message"] or \
            not fc.states(f, shares[top], rel=1e-9):
        fail("vgf: nx.hot_chain must name %s (top %s, %.2f%%): %s" % (want, top, shares[top], fc.describe(f)))
    gap = fc.analyze_ok(etprof, ["--etdump", os.path.join(gen, "coverage_gap.etdp"), "--pte",
                                 os.path.join(gen, "coverage_gap.pte"), "--json"], "vgf gap")
    one("vgf gap", gap, "nx.hot_chain", "withheld")
    for code in ("delegation.none", "delegation.cpu_side_dominates"):
        if fc.findings(gap, "fired", code) or fc.findings(doc, "fired", code):
            fail("vgf: %s fired on a run whose delegate call is measured as NX cycles" % code)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    etprof, work = argv[1], argv[2]
    fixtures = fc.FIXTURES
    fc.skip_without_fixtures(fixtures)
    os.makedirs(work, exist_ok=True)
    # Every check runs (each prints its own FAIL line), so one rule's bug
    # does not hide how the others do; the settings reuse the int8 and
    # portable dumps.
    checks = (lambda: check_portable(etprof, work, fixtures), lambda: check_xnnpack(etprof, work),
              lambda: check_fp32(etprof, work, fixtures), lambda: check_int8(etprof, work, fixtures),
              lambda: check_fragmented(etprof, work), lambda: check_withheld(etprof, work, fixtures),
              lambda: check_settings(etprof, work, fixtures), lambda: check_accelerator(etprof, work, fixtures))
    failed = 0
    for check in checks:
        try:
            check()
        except SystemExit:
            failed += 1
    if failed:
        print("%d of %d checks failed" % (failed, len(checks)))
        return 1
    print("OK: five seed profiles, withheld findings, --finding thresholds, NPU copies, NX chains")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
