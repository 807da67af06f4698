#!/usr/bin/env python3
"""Scenario test of VGF NX cycles: `etprof gen vgf-stats` on the real VGF
program, then `etprof analyze -o` on each generated ETDump, checked against
an oracle written here from the specification alone: flatc decodes the
ETDump, this script decodes the wrapper, the blobs and the debug database
and aggregates stripe -> chain -> cascade -> model per execution. No number
is taken from etprof's output to compute an expected one.

usage: nx_stats_oracle.py ETPROF SCHEMA_DIR FIXTURES
"""
import array
import base64
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

# Set by main() (or by a script importing this one for oracle()).
ETPROF = SCHEMA_DIR = FIXTURES = PTE = None

# (device, mode) -> words per task, tasks per block (spec section 2.4)
LAYOUT = {("Mali-G1", 0): (16, 512), ("Mali-G1", 1): (32, 256),
          ("Mali-G2", 0): (16, 1024), ("Mali-G2", 1): (64, 256)}
MODE1_NAMES = ["nx_active", "dl_active", "ir_active", "wf_active", "ce_active", "ve_active", "tu_active",
               "ow_active", "task_init_stall", "rd_ll_stall", "rd_hl_stall", "dma_wr_stall", "ir_idx_stall",
               "ce_src0_stall", "ce_src1_stall", "ve_src0_ir_stall", "ve_src0_ce_stall", "ve_src0_ve_stall",
               "ve_src0_tu_stall", "ve_src1_ir_stall", "ve_src1_ve_stall", "ve_src1_tu_stall",
               "tu_src0_ir_stall", "tu_src0_ve_stall", "tu_src0_tu_stall", "ow_src0_ir_stall",
               "ow_src0_ve_stall", "ow_src0_tu_stall", "ow_idx_stall"]  # words 1..29
G2_EXTRA = {31: "me_src0_stall", 32: "me_src1_stall"}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(args, expect_rc=0):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != expect_rc:
        fail("%s: exit %d (expected %d): %s" % (" ".join(args[:6]), p.returncode, expect_rc, p.stderr.strip()))
    return p


def counter_words(device, mode):
    if mode == 0:
        return {w: "section_%d" % w for w in range(16)}
    names = {i + 1: n for i, n in enumerate(MODE1_NAMES)}
    if device == "Mali-G2":
        names.update(G2_EXTRA)
    return names


def ddb_tables(data):
    """The seven debug-database sections: {row id: {column: [values]}} each."""
    text = data.rstrip(b"\0").decode("utf-8")
    sections, cur = [], []
    for line in text.splitlines():
        if line == "----":
            if cur:
                sections.append(cur)
            cur = []
        elif line.strip():
            cur.append(line)
    if cur:
        sections.append(cur)
    tables = []
    for sec in sections[:7]:
        cols = sec[0].split("\t")
        rows = {}
        for line in sec[1:]:
            cells = line.split("\t")
            rows[cells[0]] = {c: [x.strip() for x in (cells[i] if i < len(cells) else "").split(";") if x.strip()]
                              for i, c in enumerate(cols)}
        tables.append(rows)
    return tables


def parse_ddb(data):
    tables = ddb_tables(data)
    stripe_op = {int(k): v["stripe_op_id"][0] for k, v in tables[6].items()}
    chain, cascade = {}, {}
    for s, op in stripe_op.items():
        if op in tables[5]:
            chain[s] = tables[5][op]["op_id"][0]
            cascade[s] = tables[5][op]["cascade_op_id"][0]
    return chain, cascade


def linked_spirv_ids(data):
    """TOSA op id -> the SPIR-V result id its first API label naming one
    ("..._spirv_id_<N>", spec 3.6 rule 1) names, from the tosa_ops section."""
    text = data.rstrip(b"\0").decode("utf-8")
    sec = [ln for ln in text.split("----")[0].splitlines() if ln.strip()]
    ids = {}
    for line in sec[1:]:
        cells = line.split("\t")
        for lab in (cells[2] if len(cells) > 2 else "").split(";"):
            tail = lab.strip().rpartition("_spirv_id_")
            if tail[1] and tail[2].isdigit() and cells[0] not in ids:
                ids[cells[0]] = int(tail[2])
    return ids


def chain_tosa_ops(data):
    """chain id -> its TOSA op ids, fused-op then TOSA-op order (spec 3.2):
    the chain's fused_op_ids (section 4), each fused op's tosa_op_ids (3)."""
    text = data.rstrip(b"\0").decode("utf-8")
    secs = [[ln for ln in sec.splitlines() if ln.strip()] for sec in text.split("----")]
    def table(sec):
        cols = sec[0].split("\t")
        out = {}
        for line in sec[1:]:
            cells = line.split("\t")
            out[cells[0]] = [x.strip() for x in (cells[1] if len(cells) > 1 else "").split(";") if x.strip()]
        assert len(cols) == 2
        return out
    fused, chains = table(secs[2]), table(secs[3])
    return {c: [t for f in fs for t in fused.get(f, [])] for c, fs in chains.items()}


def parse_info(blob, is_text):
    if is_text:
        toks = blob.rstrip(b"\0").decode().replace(",", " ").replace(";", " ").split()
        return [int(t, 0) for t in toks]
    words = array.array("I", blob)
    if len(blob) >= 12 and words[0] == 0x2211EEFF:
        assert words[1] == 1 and words[2] == len(blob) - 12
        words = words[3:]
    return list(words)


def stripe_rows(mem, ids, device, mode, lead=1):
    wpt, tpb = LAYOUT[(device, mode)]
    words = array.array("I", mem)
    names = counter_words(device, mode)
    tasks = len(words) // wpt
    rows = {}
    for s in ids:
        first = (s + lead) * tpb
        sums = {n: 0 for n in names.values()}
        nonzero = False
        for t in range(first, min(first + tpb, tasks)):
            task = words[t * wpt:(t + 1) * wpt]
            if not any(task):
                continue
            nonzero = True
            for w, n in names.items():
                sums[n] += task[w]
        if mode == 0:
            total = op = sum(sums.values())
        else:
            total = op = sums["nx_active"]  # single-core target: the per-core maximum is the sum
        rows[s] = (total, op, sums if nonzero else {n: 0 for n in names.values()})
    return rows


STRUCTURE = {}  # entity id -> {"parent": id or None, "covers": [TOSA op ids]} (from the blobs)


def flatc_dump(etdp, tmp):
    """The ETDump as flatc decodes it (JSON), independent of etprof."""
    out = os.path.join(tmp, "flatc")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o", out,
                    os.path.join(SCHEMA_DIR, "etdump.fbs"), "--", etdp], check=True)
    jpath = os.path.join(out, os.path.splitext(os.path.basename(etdp))[0] + ".json")
    with open(jpath) as f:
        dump = json.load(f)
    os.remove(jpath)
    return dump


def vgf_records(run_data):
    return [e["profile_event"] for e in run_data.get("events", [])
            if "profile_event" in e and e["profile_event"].get("delegate_debug_id_str") == "VGF_NEURAL_STATISTICS"]


def oracle(etdp, device, mode, tmp):
    dump = flatc_dump(etdp, tmp)
    instrs = {pe.get("instruction_id", -1) for rd in dump["run_data"] for pe in vgf_records(rd)}
    execs = []  # per execution: {entity id: (total, op, counters)}
    for run_data in dump["run_data"]:
        recs = vgf_records(run_data)
        if not recs:
            continue
        ent = {}
        for pe in recs:
            # with several VGF instructions, entity ids name the instruction
            pre = "instruction_%d/" % pe.get("instruction_id", -1) if len(instrs) > 1 else ""
            wrapper = json.loads(bytes(pe["delegate_debug_metadata"]).decode())
            for seg in wrapper["segments"]:
                g = seg["segment_id"]
                blob = {k: base64.b64decode(seg[k]["data"], validate=True)
                        for k in ("debug_database", "statistics_info", "statistics_memory")}
                chain, cascade = parse_ddb(blob["debug_database"])
                tosa = chain_tosa_ops(blob["debug_database"])
                ids = parse_info(blob["statistics_info"], seg["statistics_info"]["is_text"])
                for s in ids:  # stripe (row) order: first-seen parents and cascade unions
                    ch = "chain/segment_%d/%s" % (g, chain.get(s, "chain_%d" % s))
                    ca = "cascade/segment_%d/%s" % (g, cascade.get(s, "cascade_%d" % s))
                    ops = tosa.get(chain.get(s), [])
                    STRUCTURE.setdefault("segment/%d" % g, {"parent": None, "covers": []})
                    STRUCTURE.setdefault(ca, {"parent": "segment/%d" % g, "covers": []})
                    STRUCTURE.setdefault(ch, {"parent": ca, "covers": list(ops)})
                    cov = STRUCTURE[ca]["covers"]
                    cov.extend(o for o in ops if o not in cov)
                for s, (total, op, ctr) in stripe_rows(blob["statistics_memory"], ids, device, mode).items():
                    keys = ["model"] + [pre + k for k in (
                            "segment/%d" % g,
                            "chain/segment_%d/%s" % (g, chain.get(s, "chain_%d" % s)),
                            "cascade/segment_%d/%s" % (g, cascade.get(s, "cascade_%d" % s)),
                            "stripe/segment_%d/%d" % (g, s))]
                    for k in keys:
                        t0, o0, c0 = ent.get(k, (0, 0, {}))
                        ent[k] = (t0 + total, o0 + op, {n: c0.get(n, 0) + v for n, v in ctr.items()})
        execs.append(ent)
    return execs


def check_against(case, execs, nx, counters_to_check):
    by_id = {e["id"]: e for e in nx["entities"]}
    ids = set().union(*[set(e) for e in execs])
    if set(by_id) != ids:
        fail("%s: entity ids differ: only etprof %s, only oracle %s" % (
            case, sorted(set(by_id) - ids)[:5], sorted(ids - set(by_id))[:5]))
    for k in sorted(ids & set(by_id)):
        e = by_id[k]
        per = [(i, ex[k][0]) for i, ex in enumerate(execs) if k in ex]
        if [list(p) for p in per] != e.get("per_execution_total_cycles"):
            fail("%s %s: per-execution totals %s, oracle %s" % (case, k, e.get("per_execution_total_cycles"), per))
            continue
        totals = [t for _, t in per]
        ops = [execs[i][k][1] for i, _ in per]
        m = {x["name"]: x["value"] for x in e["metrics"]}
        want = {"total_cycles.avg": sum(totals) / len(totals), "op_cycles.avg": sum(ops) / len(ops),
                "total_cycles.min": min(totals), "total_cycles.max": max(totals),
                "total_cycles.median": statistics.median(totals)}
        if k != "model":
            for n in counters_to_check:
                want[n + "_cycles.avg"] = sum(execs[i][k][2].get(n, 0) for i, _ in per) / len(per)
        for n, v in want.items():
            if abs(m.get(n, float("nan")) - v) > 1e-6 * max(1.0, abs(v)):
                fail("%s %s %s: etprof %s, oracle %s" % (case, k, n, m.get(n), v))
        if e["executions"] != len(per):
            fail("%s %s: executions %s, oracle %d" % (case, k, e["executions"], len(per)))


def check_rows(case, execs, out):
    """operators.csv's NX rows (kinds nx_segment / nx_cascade / nx_chain)
    against the oracle: one row per segment, cascade and chain (no model,
    no stripe), after every entity; the time columns empty; the cycle
    figures, coverage, parent and covered TOSA ops as computed here."""
    with open(os.path.join(out, "operators.csv"), newline="") as f:
        rows = list(csv.reader(f))
    head, rows = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(head)}
    nx_at = [i for i, r in enumerate(rows) if r[col["kind"]].startswith("nx_")]
    if not nx_at or nx_at != list(range(nx_at[0], len(rows))):
        fail("%s: the NX rows are not the table's last rows" % case)
    ids = set().union(*[set(e) for e in execs])
    want = {k for k in ids if k.split("/")[0] in ("segment", "cascade", "chain")}
    got = {rows[i][col["entity_id"]]: rows[i] for i in nx_at}
    if set(got) != want or len(got) != len(nx_at):
        fail("%s: NX rows %d, oracle %d (only etprof %s, only oracle %s)" % (
            case, len(nx_at), len(want), sorted(set(got) - want)[:3], sorted(want - set(got))[:3]))
    times = [h for h in head if h.split("_")[-1] == "ms" or h in ("executions", "events", "additive", "shared")]
    for k in sorted(want & set(got)):
        r = got[k]
        if r[col["kind"]] != "nx_" + k.split("/")[0]:
            fail("%s %s: kind %s" % (case, k, r[col["kind"]]))
        if any(r[col[h]] for h in times):
            fail("%s %s: a time column is filled: %s" % (case, k, {h: r[col[h]] for h in times if r[col[h]]}))
        per = [i for i, ex in enumerate(execs) if k in ex]
        totals = [execs[i][k][0] for i in per]
        ops = [execs[i][k][1] for i in per]
        exp = {"nx_unit": "cycles", "nx_executions": len(per), "nx_total_cycles_avg": sum(totals) / len(totals),
               "nx_op_cycles_avg": sum(ops) / len(ops), "nx_total_cycles_min": min(totals),
               "nx_total_cycles_median": statistics.median(totals), "nx_total_cycles_max": max(totals),
               "nx_full_coverage": "true" if len(per) == len(execs) else "false",
               "nx_parent": STRUCTURE[k]["parent"] if not k.startswith("segment") else "",
               "nx_segment": int(k.split("/")[1].split("_")[-1])}
        if not k.startswith("segment"):
            exp["nx_covers"] = " ".join(STRUCTURE[k]["covers"])
        for h, v in exp.items():
            text = r[col[h]]
            ok = abs(float(text) - v) <= 1e-6 * max(1.0, abs(v)) if isinstance(v, (int, float)) and text else text == v
            if not ok:
                fail("%s %s %s: operators.csv %r, oracle %r" % (case, k, h, text, v))
    print("ok: %s: %d NX rows of operators.csv equal the oracle" % (case, len(want & set(got))))


def analyze(gen, name, extra, out, expect_rc=0):
    if os.path.exists(out):
        subprocess.run(["rm", "-rf", out])
    return run([ETPROF, "analyze", "--pte", PTE, "--etdump", os.path.join(gen, name + ".etdp"), "-o", out,
                "--quiet"] + extra, expect_rc)


def load(out, rel):
    with open(os.path.join(out, rel)) as f:
        return json.load(f)


def main():
    global ETPROF, SCHEMA_DIR, FIXTURES, PTE
    ETPROF, SCHEMA_DIR, FIXTURES = sys.argv[1:4]
    PTE = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
    if not os.path.exists(PTE):
        print("SKIP: ../shared/fixtures is absent (needs %s)" % PTE)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "gen")
        run([ETPROF, "gen", "vgf-stats", "--pte", PTE, "-o", gen, "--executions", "3"])
        # determinism: the same arguments give the same bytes
        gen2 = os.path.join(tmp, "gen2")
        run([ETPROF, "gen", "vgf-stats", "--pte", PTE, "-o", gen2, "--executions", "3"])
        for f in sorted(os.listdir(gen)):
            if open(os.path.join(gen, f), "rb").read() != open(os.path.join(gen2, f), "rb").read():
                fail("gen vgf-stats is not deterministic: " + f)
        subprocess.run(["rm", "-rf", gen2])
        out = os.path.join(tmp, "bundle")
        v1 = {("Mali-G1", 0): ["--nx-statistics-mode", "0", "--nx-profiling-device", "Mali-G1"],
              ("Mali-G1", 1): ["--nx-profiling-device", "Mali-G1"],
              ("Mali-G2", 0): ["--nx-statistics-mode", "0"], ("Mali-G2", 1): []}
        # Every device x mode x version decodes (or is refused as ExecuTorch's own declaration requires).
        for dev in ("Mali-G1", "Mali-G2"):
            for mode in (0, 1):
                for ver in (1, 2):
                    name = "%s_mode%d_v%d" % (dev[-2:].lower(), mode, ver)
                    if dev == "Mali-G2" and mode == 0 and ver == 2:
                        p = analyze(gen, name, [], out, 1)
                        if "words_per_task" not in p.stderr or "64 words per task" not in p.stderr:
                            fail(name + ": refusal does not name the setting: " + p.stderr)
                        if os.path.exists(out):
                            fail(name + ": a bundle was published for a refused capture")
                        continue
                    analyze(gen, name, v1[(dev, mode)] if ver == 1 else [], out)
                    nx = load(out, "detailed/nx_hierarchy.json")
                    d = nx["decoder"]
                    if (d["profiling_device"], d["statistics_mode"]) != (dev, mode):
                        fail("%s: decoded as %s mode %s" % (name, d["profiling_device"], d["statistics_mode"]))
                    fb = set(d["decoder_fallback_fields"])
                    want_fb = {"statistics_mode", "profiling_device", "leading_block_count"} if ver == 1 else \
                        ({"leading_block_count"} if dev == "Mali-G1" else set())
                    if ver == 1 and mode == 1:
                        want_fb.add("core_key")  # v1 names no target: single-core is assumed
                    if fb != want_fb:
                        fail("%s: decoder_fallback_fields %s, expected %s" % (name, sorted(fb), sorted(want_fb)))
                    summary = load(out, "summary.json")
                    codes = {i["code"] for i in summary["issues"]}
                    if ver == 1 and "vgf.decoder_fallback" not in codes:
                        fail(name + ": no vgf.decoder_fallback warning")
                    if "vgf.layout_assumption" not in codes:
                        fail(name + ": the leading-block reading is not named")
                    m = {x["name"]: x for x in summary["vgf_cycles"]["metrics"]}
                    if m["total_cycles.avg"]["unit"] != "cycles" or not m["total_cycles.avg"]["additive"] \
                            or m["total_cycles.median"]["additive"] or m["total_cycles.avg"]["samples"] != 3:
                        fail(name + ": summary metric metadata wrong: %s" % m["total_cycles.avg"])
                    if name in ("g1_mode0_v2", "g1_mode1_v2"):
                        ctr = ["section_0", "section_15"] if mode == 0 else ["nx_active", "dl_active", "ow_idx_stall"]
                        execs = oracle(os.path.join(gen, name + ".etdp"), dev, mode, tmp)
                        check_against(name, execs, nx, ctr)
                        check_rows(name, execs, out)
                        if m["total_cycles.avg"]["value"] != nx["entities"][0]["metrics"][0]["value"]:
                            fail(name + ": summary and hierarchy model totals differ")
                    chains = [e for e in nx["entities"] if e["kind"] == "chain"]
                    linked = [o for c in chains for o in c["operators"] if o.get("source_operator_id")]
                    unlinked = [o for c in chains for o in c["operators"] if o.get("link_reason")]
                    if not linked or not unlinked:
                        fail(name + ": expected both linked and unlinked chain operators")
                    if not any(c["filled_in"] for c in chains):
                        fail(name + ": the stripe without a debug-database entry got no fill-in chain")
        # A lost stripe: accepted, totals describe what was recorded.
        analyze(gen, "lost_stripe", [], out)
        nx = load(out, "detailed/nx_hierarchy.json")
        execs = oracle(os.path.join(gen, "lost_stripe.etdp"), "Mali-G2", 1, tmp)
        check_against("lost_stripe", execs, nx, ["nx_active", "me_src0_stall", "me_src1_stall"])
        st = {e["id"]: e for e in nx["entities"]}["stripe/segment_0/1"]
        if st["executions"] != 2 or [p[0] for p in st["per_execution_total_cycles"]] != [0, 2]:
            fail("lost_stripe: stripe 1 should be recorded in executions 0 and 2 only: %s" % st)
        # Coverage gap: it ran coverage_gap.pte (the VGF called twice); against the fixture
        # program, whose instruction 2 is a KernelCall, it is refused naming that instruction
        # (its coverage rule end to end: nx_stats_scenarios.py coverage).
        p = analyze(gen, "coverage_gap", [], out, 1)
        if "instruction 2" not in p.stderr or "DelegateCall" not in p.stderr:
            fail("coverage_gap: companion mismatch does not name instruction 2: " + p.stderr.strip())
        if os.path.exists(out):
            fail("coverage_gap: a bundle was published")
        # The companion result: digest of the program bytes, associations by SPIR-V result id.
        analyze(gen, "g2_mode1_v2", [], out)
        nx = load(out, "detailed/nx_hierarchy.json")
        import hashlib
        digest = hashlib.sha256(open(PTE, "rb").read()).hexdigest()
        cm = nx["companion_model"]
        if not cm["checked"] or cm["program_sha256"] != digest or cm["method"] != "forward":
            fail("companion_model: %s" % cm)
        ops = [o for e in nx["entities"] if e["kind"] == "chain" for o in e["operators"]]
        if cm["operator_associations"] != sum(1 for o in ops if o.get("spirv_result_id") is not None):
            fail("companion_model: operator_associations %d" % cm["operator_associations"])
        if any(o.get("spirv_result_id") is not None and o.get("companion_vgf_op") != o["operator_types"] for o in ops):
            fail("companion_model: a linked op's VGF operation differs from its debug-database type")
        # etprof diff reads operators.csv: the NX rows (cycle groups) are never matched as operators,
        # in either table format.
        out_json = os.path.join(tmp, "bundle_json")
        analyze(gen, "g2_mode1_v2", ["--format", "json"], out_json)
        try:
            import jsonschema
            with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas", "json",
                                   "operators.v1.schema.json")) as f:
                jsonschema.validate(load(out_json, "operators.json"), json.load(f))
        except ImportError:
            print("note: python3-jsonschema absent: operators.json not validated")
        except jsonschema.ValidationError as e:
            fail("operators.json with nx_groups: %s" % e.message)
        groups = load(out_json, "operators.json").get("nx_groups", [])
        if len(groups) != sum(1 for e in nx["entities"] if e["kind"] in ("segment", "cascade", "chain")):
            fail("operators.json: %d nx_groups" % len(groups))
        for other in (out, out_json):
            p = run([ETPROF, "diff", out, other, "--json", "--top", "0"])
            if p.returncode == 0:
                rows = json.loads(p.stdout).get("rows", [])
                if not rows or any("segment" in json.dumps(r) or r.get("kind", "").startswith("nx_") for r in rows):
                    fail("diff %s: %d rows, NX groups among them" % (other, len(rows)))
        subprocess.run(["rm", "-rf", out_json])
        # Model Explorer: every linked TOSA node of the VGF graph carries its chain's figure.
        ov = load(out, "model_explorer/vgf-chain-total-cycles-avg.json")["forward_0_1"]
        labels = load(out, "model_explorer/vgf-chain.json")["forward_0_1"]["results"]
        means = {e["id"]: {m["name"]: m["value"] for m in e["metrics"]}["total_cycles.avg"]
                 for e in nx["entities"] if e["kind"] == "chain"}
        if len(ov["results"]) != cm["operator_associations"] or "sum" not in [x.lower() for x in ov.get("hideAggregatedStats", [])]:
            fail("overlay: %d nodes for %d associations, hidden %s" % (len(ov["results"]), cm["operator_associations"],
                                                                   ov.get("hideAggregatedStats")))
        for node, r in ov["results"].items():
            chain = labels[node]["value"].split(" ")[0]
            if means.get(chain) != r["value"]:
                fail("overlay node %s: %s, chain %s has %s" % (node, r["value"], chain, means.get(chain)))
        # Unavailable data: an issue record, not a failure.
        analyze(gen, "unavailable", [], out)
        summary = load(out, "summary.json")
        iss = [i for i in summary["issues"] if i["code"] == "vgf.data_unavailable"]
        if not iss or "VkDevice is null" not in iss[0]["message"]:
            fail("unavailable: no vgf.data_unavailable issue quoting the reason")
        if summary["vgf_cycles"]["events_unavailable"] != 1:
            fail("unavailable: events_unavailable != 1")
        # Failures: exit 1, no bundle, the message names the segment and the blob.
        for name, words in (("malformed_blob", ["segments[0].statistics_memory", "base64"]),
                            ("misaligned_blob", ["segment 0", "statistics_memory", "64 bytes"]),
                            ("missing_debug_database", ["segment 0", "debug_database is missing"])):
            p = analyze(gen, name, [], out, 1)
            for w in words:
                if w not in p.stderr:
                    fail("%s: error does not say %r: %s" % (name, w, p.stderr.strip()))
            if os.path.exists(out):
                fail(name + ": a bundle was published")
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
