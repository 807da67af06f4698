"""etprof.analyze() against the CLI: every figure, entity and issue the
Python package reports equals what `etprof analyze --json` prints for the
same inputs (an independent path: the CLI writes JSON text from C, the
package reads the C result column by column)."""
import csv
import json
import math
import os
import shutil

import pytest

import etprof
from conftest import RUNS, cli, cli_json, run

# (name, etdump, pte, etrecord, log, extra keyword arguments)
CASES = [
    ("et_add_x1", run("et_add_x1", "etdp"), run("et_add_x1"), None, None, {}),
    ("et_add_x10", run("et_add_x10", "etdp"), run("et_add_x10"), None, run("et_add_x10", "log"), {}),
    ("np_dtypes_x10", run("np_dtypes_x10", "etdp"), run("np_dtypes_x10"), None, None,
     {"source_unit": "ns"}),
    ("np_multi_forward_x10", run("np_multi_forward_x10", "etdp"), run("np_multi_forward_x10"),
     None, run("np_multi_forward_x10", "log"), {}),
    ("np_const_methods", run("np_const_methods_get_tensor_x3", "etdp"),
     run("np_const_methods_get_tensor_x3"), None, run("np_const_methods_get_tensor_x3", "log"),
     {}),
    ("xnn_np_add_x10", run("xnn_np_add_x10", "etdp"), run("xnn_np_add_x10"), None,
     run("xnn_np_add_x10", "log"), {"unit": "us"}),
    ("kws", run("cm_et_arduino_kws_x10", "etdp"), run("cm_et_arduino_kws_x10"),
     run("cm_et_arduino_kws_x10", "etrecord"), run("cm_et_arduino_kws_x10", "log"), {}),
    ("kws_etrecord_only", run("cm_et_arduino_kws_x10", "etdp"), None,
     run("cm_et_arduino_kws_x10", "etrecord"), None, {"source_unit": "ns", "unit": "ns"}),
    ("bundled", run("et_bundled_program_debug_intermediate", "etdp"),
     run("et_bundled_program_debug_intermediate", "bpte"), None, None, {}),
]
IDS = [c[0] for c in CASES]


def cli_args(etdump, pte, etrecord, log, kw):
    args = ["analyze"] + ([etrecord] if etrecord else []) + ["--etdump", etdump]
    if pte:
        args += ["--pte", pte]
    if log:
        args += ["--log", log]
    if "source_unit" in kw:
        args += ["--source-unit", kw["source_unit"]]
    if "unit" in kw:
        args += ["--unit", kw["unit"]]
    if "method" in kw:
        args += ["--method", kw["method"]]
    return args


def analyze(etdump, pte, etrecord, log, kw):
    return etprof.analyze(etdump, pte=pte, etrecord=etrecord, logs=[log] if log else (), **kw)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_figure_equals_the_cli_json(case):
    _, etdump, pte, etrecord, log, kw = case
    ref = cli_json(*cli_args(etdump, pte, etrecord, log, kw), "--json")
    with analyze(etdump, pte, etrecord, log, kw) as a:
        assert a.validity == ref["validity"]
        assert a.method == ref["method"]["name"]
        assert a.executions == ref["executions"]["count"]
        assert a.unit == ref["units"]["target"]
        assert a.figures == ref["figures"]
        assert a.issues == ref["issues"]
        assert a.findings == ref["findings"]
        assert a.unresolved_debug_handles == ref["runtime_unresolved_debug_handles"]
        ops = a.operators
        assert len(ops) == len(ref["entities"])
        for mine, theirs in zip(ops, ref["entities"]):
            assert mine == theirs, mine.get("id")
        # The whole document as text, parsed: the same again.
        assert json.loads(a.to_json()) == ref
        for f in ref["figures"]:
            assert a.figure(f["name"]) == f


@pytest.mark.parametrize("case", [c for c in CASES if c[2]], ids=[c[0] for c in CASES if c[2]])
def test_summary_metrics_and_table_equal_the_cli_bundle(case, tmp_path):
    _, etdump, pte, etrecord, log, kw = case
    out = tmp_path / "cli"
    cli(*cli_args(etdump, pte, etrecord, log, kw), "-o", str(out), "--quiet")
    summary = json.loads((out / "summary.json").read_text())
    with analyze(etdump, pte, etrecord, log, kw) as a:
        assert a.to_dict() == summary
        assert a.metrics == {m["name"]: m for m in summary["metrics"]}
        pandas = pytest.importorskip("pandas")
        df = a.to_dataframe()
        assert str(df["chain"].dtype) == "Int64" and str(df["additive"].dtype) == "boolean"
    with open(out / "operators.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert list(df.columns) == rows[0]
    assert len(df) == len(rows) - 1
    for r, row in enumerate(rows[1:]):
        for c, text in enumerate(row):
            v = df.iat[r, c]
            if hasattr(v, "item"):  # a numpy scalar: the Python value
                v = v.item()
            if text == "":
                # An empty field: no value (None, <NA>, NaN) or an empty list.
                assert v is None or v is pandas.NA or v == [] or (
                    isinstance(v, float) and math.isnan(v)), (rows[0][c], v)
                continue
            assert v is not None and v is not pandas.NA, (rows[0][c], text)
            if isinstance(v, bool):
                assert text == ("true" if v else "false")
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                assert float(text) == float(v), (rows[0][c], text, v)
            elif isinstance(v, list):
                assert text == " ".join(str(x) for x in v)
            else:
                assert text == v, (rows[0][c], text, v)
    assert pandas is not None


@pytest.mark.parametrize("kw,flags", [({}, []), ({"source_unit": "cycles", "unit": "us",
                                                   "cpu_hz": 2e8, "method": "forward"},
                                                  ["--source-unit", "cycles", "--unit", "us",
                                                   "--cpu-hz", "2e8", "--method", "forward"])])
def test_publish_records_the_cli_options(tmp_path, kw, flags):
    """The options a bundle records come from one library call
    (etp_analysis_options_json): Python's bundle holds the CLI's bytes."""
    etdump, pte = run("et_add_x10", "etdp"), run("et_add_x10")
    cli("analyze", "--etdump", etdump, "--pte", pte, *flags, "-o", str(tmp_path / "cli"),
        "--format", "json", "--detailed", "--quiet")
    with etprof.analyze(etdump, pte=pte, **kw) as a:
        a.publish(tmp_path / "py", format="json", detailed=True)

    def options_text(d):
        text = (tmp_path / d / "run_metadata.json").read_text()
        return next(line for line in text.splitlines() if line.lstrip().startswith('"options"'))

    assert options_text("py") == options_text("cli")
    assert json.loads(options_text("py").split(":", 1)[1].rstrip(","))["skip_executions"] == 0


def test_publish_makes_a_bundle_the_cli_verifies(tmp_path):
    etdump, pte, rec = (run("cm_et_arduino_kws_x10", "etdp"), run("cm_et_arduino_kws_x10"),
                        run("cm_et_arduino_kws_x10", "etrecord"))
    with etprof.analyze(etdump, pte=pte, etrecord=rec, source_unit="ns") as a:
        out = a.publish(tmp_path / "result", detailed=True)
        summary = a.to_dict()
    cli("verify", str(out))
    assert json.loads((tmp_path / "result" / "summary.json").read_text()) == summary
    with etprof.open_bundle(out) as b:
        assert b.validity == summary["validity"]
        for m in summary["metrics"]:
            got = b.metrics[m["name"]]
            assert got.get("value") == m.get("value") and got["unit"] == m["unit"]
        assert b.operators_source == "operators.csv"
        assert b.run_metadata["options"]["unit"] == "ms"
    # The same analysis published twice gives the same files but the run's identity.
    with etprof.analyze(etdump, pte=pte, etrecord=rec, source_unit="ns") as a:
        a.publish(tmp_path / "again", detailed=True)
    for name in ("summary.json", "operators.csv"):
        assert (tmp_path / "result" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    # An existing non-bundle directory is refused, as by the CLI, unless forced.
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with etprof.analyze(etdump, pte=pte) as a:
        with pytest.raises(etprof.ReadError) as e:
            a.publish(other)
        assert (other / "keep.txt").read_text() == "mine"
        assert "not an etprof bundle" in e.value.message or e.value.file
        a.publish(other, force=True, model_explorer=False)
    assert not (other / "keep.txt").exists()


def test_findings_are_the_json_findings(tmp_path):
    """Analysis.findings on a run with fragmented delegation (a DelegateCall
    every 10th instruction): the findings `etprof analyze --json` and
    summary.json carry, each with its fields, naming entities of the result."""
    d = str(tmp_path)
    pte, etr, etd = (os.path.join(d, n) for n in ("m.pte", "m.etrecord", "r.etdp"))
    cli("gen", "etdump", "--instructions", "300", "--delegate-every", "10", "--backend", "vulkan",
        "--pte", pte, "--etrecord", etr, "-o", etd)
    ref = cli_json("analyze", etr, "--etdump", etd, "--pte", pte, "--json")
    with etprof.analyze(etd, pte=pte, etrecord=etr) as a:
        found = a.findings
        assert found == ref["findings"]
        assert found == a.to_dict()["findings"]
        ids = {o["id"] for o in a.operators}
    assert any(f["status"] == "fired" and f["affected_entities"] for f in found), found
    for f in found:
        assert {"code", "category", "severity", "status", "message", "affected_entities",
                "details"} <= set(f)
        assert f["status"] in ("fired", "withheld") and f["severity"] in ("info", "warning")
        assert {"title", "next_step", "evidence", "thresholds"} <= set(f["details"])
        for e in f["affected_entities"]:
            assert e["kind"] in ("instruction", "delegate_call", "operator", "delegate_event",
                                 "nx_chain", "nx_cascade")
            if not e["kind"].startswith("nx_"):
                assert e["id"] in ids, e


def test_finding_thresholds_as_the_cli():
    """findings={"CODE.KEY": value} changes a threshold as `--finding` does:
    the same findings as the CLI's, the threshold shown as given, recorded
    in the published options; bad settings are usage errors."""
    args = (run("cm_et_arduino_kws_x10", "etdp"),)
    kw = dict(pte=run("cm_et_arduino_kws_x10"))
    setting = {"hotspot.op_type.min_share_pct": 50}
    ref = cli_json("analyze", "--etdump", args[0], "--pte", kw["pte"], "--json",
                   "--finding", "hotspot.op_type.min_share_pct=50")
    with etprof.analyze(*args, findings=setting, **kw) as a:
        assert a.findings == ref["findings"]
        hot = [f for f in a.findings if f["code"] == "hotspot.op_type"]
        assert len(hot) == 1 and "depthwise" in hot[0]["message"], hot
        t = hot[0]["details"]["thresholds"][0]
        assert t["given"] and t["value"] == 50 and t["default"] == 30
    with etprof.analyze(*args, **kw) as a:
        assert len([f for f in a.findings if f["code"] == "hotspot.op_type"]) == 2
    for bad in ({"hotspot.op_type.nokey": 1}, {"no.such.key": 1}, {"hotspot.op_type.min_share_pct": -1},
                {"hotspot.op_type.min_share_pct": "50"}):
        with pytest.raises(etprof.UsageError):
            etprof.analyze(*args, findings=bad, **kw)


def test_closed_analysis_keeps_what_was_read():
    a = etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"))
    ops = a.operators
    a.close()
    a.close()
    assert ops and ops[0]["id"] == "forward_0_0"
    assert a.validity in ("valid", "degraded")  # read at analyze time
    with pytest.raises(etprof.UsageError):
        a.to_dict()
    with pytest.raises(etprof.UsageError):
        a.publish("/nonexistent-dir/x")


def test_debug_buffer_checked_recorded_and_refused_when_short(tmp_path):
    """analyze(debug_buffer=) as `analyze --debug-buffer`: the real run's four
    16-byte tensors (offsets 48..240, from flatc's decoding of the dump) lie
    inside its buffer; the bundle records it as an input; a buffer one byte
    short of the last tensor's end (256) is a MismatchError naming the run,
    the event and the offset."""
    etdump, pte, buf = (run("et_bundled_program_debug_intermediate", "etdp"),
                        run("et_bundled_program_debug_intermediate", "bpte"),
                        run("et_bundled_program_debug_intermediate", "debug.bin"))
    with etprof.analyze(etdump, pte=pte, debug_buffer=buf) as a:
        d = a.to_json()
        out = a.publish(tmp_path / "result", model_explorer=False)
    want = cli_json("analyze", "--json", "--etdump", etdump, "--pte", pte, "--debug-buffer", buf)
    assert json.loads(d)["debug_buffer"] == want["debug_buffer"]
    assert want["debug_buffer"]["tensors_checked"] == 4 and want["debug_buffer"]["bytes_referenced"] == 256
    cli("verify", str(out))
    man = json.loads((tmp_path / "result" / "result_manifest.json").read_text())
    assert [i["name"] for i in man["provenance"]["inputs"] if i["role"] == "debug_buffer"] == [os.path.basename(buf)]
    short = tmp_path / "short.bin"
    short.write_bytes(open(buf, "rb").read()[:255])
    with pytest.raises(etprof.MismatchError) as e:
        etprof.analyze(etdump, pte=pte, debug_buffer=short)
    assert "run 1 event 10" in e.value.message and "offset 240" in e.value.message
    with pytest.raises(etprof.ReadError):
        etprof.analyze(etdump, pte=pte, debug_buffer=tmp_path / "missing.bin")
