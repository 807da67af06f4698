"""Python parity with `etprof analyze`: every analysis option of the CLI
(its --help) and every field of the library's etp_analysis_options
(include/etprof/analysis.h) has its keyword in etprof.analyze() (or, for
the bundle's choices, in Analysis.publish()), or is named here as not an
analysis option, with why. A new CLI option or options field fails this
test until the package takes it. Then the options themselves: the package
with them gives the CLI's --json document."""
import inspect
import json
import os
import re

import pytest

import etprof
from conftest import FIXTURES, SOURCE, cli, cli_json, run

# CLI option -> analyze() keyword.
ANALYSIS = {
    "--etdump": "etdump", "--pte": "pte", "--companion-model": "pte", "--etrecord": "etrecord",
    "--log": "logs", "--method": "method", "--source-unit": "source_unit", "--unit": "unit",
    "--cpu-hz": "cpu_hz", "--debug-buffer": "debug_buffer", "--finding": "findings",
    "--skip-executions": "skip_executions", "--rank-by": "rank_by",
    "--nx-statistics-mode": "statistics_mode", "--nx-profiling-device": "profiling_device",
    "--nx-leading-blocks": "leading_blocks", "--nx-core-key": "core_key",
    "--testset": "testset", "--rtol": "rtol", "--atol": "atol",
}
# CLI option -> Analysis.publish() keyword (the bundle's choices).
PUBLISH = {"-o": "directory", "--output": "directory", "--format": "format",
           "--detailed": "detailed", "--model-explorer": "model_explorer",
           "--no-model-explorer": "model_explorer", "--force": "force", "--parents": "parents"}
# Not options of the analysis: the terminal, the exit policy, listings, history.
NOT_ANALYSIS = {
    "--help": "usage text", "--json": "terminal output (Analysis.to_json())",
    "--top": "terminal text", "--quiet": "terminal text",
    "--list-issue-codes": "a listing", "--list-finding-codes": "a listing",
    "--fail-on": "the exit status (read Analysis.validity)",
    "--label": "history labels (etprof.History ingests bundles)",
    "--labels-from-ci": "history labels", "--db": "history store (etprof.History)",
}
# etp_analysis_options field -> analyze() keyword(s) it comes from.
FIELDS = {
    "source_unit": "source_unit", "source_unit_given": "source_unit", "target_unit": "unit",
    "cpu_hz": "cpu_hz", "method": "method", "runner_log": "logs", "hash_program": "hash_program",
    "skip_executions": "skip_executions", "rank_by": "rank_by", "device_logs": "logs",
    "device_log_count": "logs", "has_debug_buffer": "debug_buffer",
    "debug_buffer_size": "debug_buffer", "debug_buffer_name": "debug_buffer",
    "debug_buffer_data": "debug_buffer", "testset": "testset",
    "tolerance_given": ("rtol", "atol"), "rtol": "rtol", "atol": "atol",
    "findings": "findings",
    "nx_options": ("statistics_mode", "profiling_device", "leading_blocks", "core_key"),
}
NOT_FIELDS = {"wall_evidence": "set by `etprof run` from its own measurements",
              "wall_evidence_count": "likewise",
              "testset_basis": "set by `etprof run` when it passes the runner's --testset_idx on"}


def cli_options():
    text = cli("analyze", "--help")
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o)\b", text)))


def struct_fields():
    with open(os.path.join(SOURCE, "include", "etprof", "analysis.h")) as f:
        text = f.read()
    body = re.search(r"typedef struct etp_analysis_options \{(.*?)\} etp_analysis_options;",
                     text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return sorted(set(re.findall(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?;", body)))


def test_signature_takes_every_analyze_option():
    params = set(inspect.signature(etprof.analyze).parameters)
    pub = set(inspect.signature(etprof.Analysis.publish).parameters)
    opts = cli_options()
    assert "--skip-executions" in opts and "--nx-core-key" in opts, opts  # the help was read
    missing = []
    for o in opts:
        if o in ANALYSIS:
            if ANALYSIS[o] not in params:
                missing.append(f"{o} -> analyze({ANALYSIS[o]}=)")
        elif o in PUBLISH:
            if PUBLISH[o] not in pub:
                missing.append(f"{o} -> publish({PUBLISH[o]}=)")
        elif o not in NOT_ANALYSIS:
            missing.append(f"{o}: a new option of `etprof analyze`; give analyze() or publish() "
                           "its keyword, or say in NOT_ANALYSIS why it is none")
    assert not missing, missing


def test_signature_covers_every_options_field():
    params = set(inspect.signature(etprof.analyze).parameters)
    fields = struct_fields()
    assert "skip_executions" in fields and "nx_options" in fields, fields
    missing = []
    for f in fields:
        if f in NOT_FIELDS:
            continue
        if f not in FIELDS:
            missing.append(f"{f}: a new field of etp_analysis_options")
            continue
        want = FIELDS[f] if isinstance(FIELDS[f], tuple) else (FIELDS[f],)
        missing += [f"{f} -> analyze({w}=)" for w in want if w not in params]
    assert not missing, missing


R = lambda name, ext="pte": run(name, ext)
ARM_LOG = os.path.join(FIXTURES, "device-logs", "arm_serial_kws_u85.log")
VGF_PTE = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
KWS = (R("cm_et_arduino_kws_x10", "etdp"), R("cm_et_arduino_kws_x10"))


def same_as_cli(etdump, pte, kw, flags):
    ref = cli_json("analyze", "--etdump", etdump, "--pte", pte, *flags, "--json")
    with etprof.analyze(etdump, pte=pte, **kw) as a:
        assert json.loads(a.to_json()) == ref
    return ref


@pytest.mark.parametrize("kw,flags", [
    ({"skip_executions": 3}, ["--skip-executions", "3"]),
    ({"rank_by": "max"}, ["--rank-by", "max"]),
    ({"rank_by": "p50", "skip_executions": 1}, ["--rank-by", "p50", "--skip-executions", "1"]),
], ids=["skip", "rank_max", "rank_p50_skip"])
def test_skip_and_rank_as_the_cli(kw, flags):
    ref = same_as_cli(*KWS, kw, flags)
    assert ref["executions"]["count"] == 10 - kw.get("skip_executions", 0)


def test_several_logs_as_the_cli(tmp_path):
    """Two logs (the Arm bare-metal console and the runner's log): both read
    as device logs, the device figures the CLI's; both recorded in the bundle."""
    logs = [ARM_LOG, R("cm_et_arduino_kws_x10", "log")]
    flags = ["--source-unit", "ns"] + [x for log in logs for x in ("--log", log)]
    ref = same_as_cli(*KWS, {"logs": logs, "source_unit": "ns"}, flags)
    assert ref["device"]["figures"], ref["device"]
    with etprof.analyze(*KWS[:1], pte=KWS[1], logs=logs, source_unit="ns") as a:
        a.publish(tmp_path / "py")
    cli("analyze", "--etdump", KWS[0], "--pte", KWS[1], *flags, "-o", str(tmp_path / "cli"),
        "--quiet")
    roles = lambda d: [(i["role"], i["sha256"]) for i in json.loads(
        (tmp_path / d / "result_manifest.json").read_text())["provenance"]["inputs"]]
    assert roles("py") == roles("cli")
    assert [r for r, _ in roles("py")].count("device_log") == 1


@pytest.fixture(scope="module")
def vgf_dumps(tmp_path_factory):
    if not os.path.exists(VGF_PTE):
        pytest.skip(f"{VGF_PTE} absent")
    gen = tmp_path_factory.mktemp("gen")
    cli("gen", "vgf-stats", "--pte", VGF_PTE, "-o", str(gen), "--executions", "2")
    return gen


def test_nx_fallbacks_as_the_cli(vgf_dumps):
    """A record that states no mode: refused by default, decoded with the
    statistics_mode and profiling_device fallbacks (seed 000's Python
    callers), as with --nx-statistics-mode / --nx-profiling-device."""
    dump = str(vgf_dumps / "g1_mode0_v1.etdp")
    with pytest.raises(etprof.Error):
        etprof.analyze(dump, pte=VGF_PTE)
    ref = same_as_cli(dump, VGF_PTE, {"statistics_mode": 0, "profiling_device": "Mali-G1"},
                      ["--nx-statistics-mode", "0", "--nx-profiling-device", "Mali-G1"])
    assert any(i["code"] == "vgf.decoder_fallback" for i in ref["issues"])


def same_outcome(dump, kw, flags):
    """The CLI's --json when it succeeds, else its one-line error, which
    the package raises too. Returns whether it succeeded."""
    p = cli("analyze", "--etdump", dump, "--pte", VGF_PTE, *flags, "--json", check=False)
    if p.returncode == 0:
        with etprof.analyze(dump, pte=VGF_PTE, **kw) as a:
            assert json.loads(a.to_json()) == json.loads(p.stdout), (dump, kw)
        return True
    assert p.returncode == 1, p.stderr
    with pytest.raises(etprof.Error) as e:
        etprof.analyze(dump, pte=VGF_PTE, **kw)
    tail = p.stderr.strip().split(": ", 2)[-1]
    assert tail in str(e.value), (str(e.value), p.stderr)
    return False


def test_nx_readings_as_the_cli(vgf_dumps):
    """leading_blocks and core_key as --nx-leading-blocks / --nx-core-key:
    the same document, or the same refusal, on each generated dump."""
    outcomes = []
    for name in ("g2_mode1_v2", "g1_mode1_v2", "g2_mode1_v1"):
        dump = str(vgf_dumps / f"{name}.etdp")
        for v in (0, 1):
            outcomes.append(same_outcome(dump, {"leading_blocks": v},
                                         ["--nx-leading-blocks", str(v)]))
        for k in ("single", "word0"):
            outcomes.append(same_outcome(dump, {"core_key": k}, ["--nx-core-key", k]))
    assert True in outcomes and False in outcomes, outcomes


@pytest.mark.parametrize("kw", [{"rank_by": "min"}, {"skip_executions": -1},
                                {"skip_executions": True}, {"statistics_mode": 2},
                                {"profiling_device": "Mali-G3"}, {"leading_blocks": "1"},
                                {"core_key": "word1"}, {"logs": [ARM_LOG] * 17}])
def test_bad_options_are_usage_errors(kw):
    with pytest.raises(etprof.UsageError):
        etprof.analyze(*KWS[:1], pte=KWS[1], **kw)


def test_log_carried_etdump_as_the_cli():
    """A console log carrying the ETDump (base64, Arm runner): no etdump
    argument, the dump read from the log in the Arm runner's cycles, as
    `etprof analyze --pte P --log CONSOLE` does; a different --etdump is a
    mismatch."""
    ref = cli_json("analyze", "--pte", KWS[1], "--log", ARM_LOG, "--json")
    with etprof.analyze(pte=KWS[1], logs=[ARM_LOG]) as a:
        mine = json.loads(a.to_json())
    # The carried dump is written to a private temporary file by each: its
    # path differs, nothing else.
    strip = lambda d: {k: v for k, v in d.items() if k != "inputs"}
    assert strip(mine) == strip(ref)
    assert mine["units"]["etdump_ticks"] == "cycles" and mine["units"]["time"] == "cycles"
    with etprof.analyze(pte=KWS[1], logs=[ARM_LOG], cpu_hz=1e9) as a:
        assert json.loads(a.to_json())["units"]["time"] == "ms"
    with pytest.raises(etprof.MismatchError):
        etprof.analyze(R("et_add_x10", "etdp"), pte=KWS[1], logs=[ARM_LOG])
    with pytest.raises(etprof.UsageError):
        etprof.analyze(pte=KWS[1], logs=[R("cm_et_arduino_kws_x10", "log")])
