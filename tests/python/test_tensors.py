"""Analysis.tensors(), tensor_values() and bundled_check() on the real
bundled-program run that logged its intermediate outputs: the table is the
library's column table (the CLI's `etprof tensors --csv` header), every
value equals numpy's own reading of the debug buffer at the offset flatc
decodes from the ETDump, its statistics numpy's, and the bundled check
compares the run's output with the .bpte's expected output (flatc locates
the expected bytes to change in a copy)."""
import json
import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import etprof
from conftest import SOURCE, cli, run

NAME = "et_bundled_program_debug_intermediate"
ETDP, BPTE, BUF, LOG = (run(NAME, e) for e in ("etdp", "bpte", "debug.bin", "log"))
SCHEMAS = os.path.join(SOURCE, "schemas", "flatbuffers")
KEYS = ["forward_0_0/0", "forward_0_1/0", "forward_0_2/0", "output/0"]


def flatc_json(schema, path, out, size_prefixed):
    """The file as flatc decodes it (every default written)."""
    subprocess.run(["flatc", "--json", "--strict-json", "--defaults-json", "--raw-binary"]
                   + (["--size-prefixed"] if size_prefixed else [])
                   + ["-o", str(out), os.path.join(SCHEMAS, schema), "--", str(path)], check=True)
    with open(os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """Every debug event's tensor as flatc decodes the ETDump, in file order:
    (the key etprof gives it, scalar_type, sizes, offset)."""
    doc = flatc_json("etdump.fbs", ETDP, tmp_path_factory.mktemp("flatc"), True)
    out, outputs = [], 0
    for r in doc["run_data"]:
        for e in r.get("events") or []:
            de = e.get("debug_event")
            if not de:
                continue
            t = de["debug_entry"]["tensor"]
            if (de["debug_entry"].get("output") or {}).get("bool_val"):
                key, outputs = f"output/{outputs}", outputs + 1
            else:
                key = f"forward_{de['chain_index']}_{de['instruction_id']}/0"
            out.append((key, t["scalar_type"], t["sizes"], t["offset"]))
    return out


@pytest.fixture(scope="module")
def analysis():
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, logs=[LOG]) as a:
        yield a


def test_the_table_is_the_column_table(analysis, logged):
    df = analysis.tensors()
    names = [c["name"] for c in analysis.tensor_columns()]
    assert list(df.columns) == names
    header = cli("tensors", ETDP, BPTE, "--debug-buffer", BUF, "--csv").splitlines()[0]
    assert header.split(",") == names
    assert len(df) == 4 and list(df["key"]) == KEYS == [k for k, *_ in logged]
    assert list(df["origin"]) == ["instruction"] * 3 + ["program_output"]
    assert set(df["dtype"]) == {"INT"} and set(df["shape"]) == {"[2,2]"}
    assert [t for _, t, _, _ in logged] == ["INT"] * 4
    assert list(df["buffer_offset"]) == [o for *_, o in logged]
    # ints as ints, empty cells <NA>/None/NaN
    assert str(df["numel"].dtype) == "Int64" and list(df["numel"]) == [4] * 4
    assert df["instruction"].isna().tolist() == [False] * 3 + [True]
    assert df["name"].tolist() == [None] * 4
    assert str(df["mean"].dtype) == "float64"


def test_values_view_the_buffer_as_numpy_reads_it(analysis, logged):
    with open(BUF, "rb") as f:
        buf = f.read()
    for key, _, sizes, offset in logged:
        got = analysis.tensor_values(key)
        want = np.frombuffer(buf, "<i4", 4, offset).reshape(sizes)
        assert got.dtype == np.int32 and got.shape == (2, 2) == tuple(sizes)
        assert np.array_equal(got, want), key
        assert not got.flags.writeable and not got.flags.owndata  # a view, no copy
    one = np.frombuffer(buf, "<i4", 4, dict((k, o) for k, _, _, o in logged)["forward_0_1/0"])
    assert np.array_equal(analysis.tensor_values("forward_0_1/0", execution=0), one.reshape(2, 2))


def test_statistics_are_numpys(analysis):
    df = analysis.tensors()
    for _, row in df.iterrows():
        v = analysis.tensor_values(row["key"]).astype(np.float64)
        assert row["count"] == row["finite"] == v.size
        assert row["min"] == v.min() and row["max"] == v.max()
        assert math.isclose(row["mean"], v.mean(), rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(row["std"], v.std(), rel_tol=1e-12, abs_tol=1e-12)  # ddof 0
        assert row["zero"] == int((v == 0).sum()) and row["max_abs"] == np.abs(v).max()


def test_values_outlive_the_analysis():
    a = etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF)
    v = a.tensor_values("output/0")
    a.close()
    assert v.tolist() == [[2, 2], [2, 2]]
    with pytest.raises(etprof.UsageError):
        a.tensors()


def test_bundled_check_with_the_log(analysis):
    c = analysis.bundled_check()
    assert c["compared"] is True and c["reason"] is None and c["bundled_program"] is True
    assert c["testset"] == 0 and "example_runner" in c["testset_basis"]
    assert c["rtol"] == 1e-5 and c["atol"] == 1e-8 and c["tolerance_given"] is False
    assert [(o["key"], o["match"]) for o in c["outputs"]] == [("output/0", True)]
    gap = c["outputs"][0]["gap"]
    assert gap["mismatches"] == 0 and gap["count"] == 4 and gap["mse"] == 0.0
    assert gap["snr_db"] == math.inf  # "Infinity" in the JSON, a float here
    assert "tensors.bundled_match" in [i["code"] for i in analysis.issues]


def test_bundled_check_with_testset_or_neither():
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, testset=0) as a:
        c = a.bundled_check()
        assert c["compared"] is True and c["testset"] == 0 and c["testset_basis"] == "--testset"
        assert c["outputs_mismatched"] == 0
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF) as a:
        c = a.bundled_check()
        assert c["compared"] is False and c["reason"] and c["outputs"] == []
        assert "tensors.bundled_not_compared" in [i["code"] for i in a.issues]


def test_tolerance_is_passed(analysis):
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, testset=0, rtol=0.5) as a:
        c = a.bundled_check()
        assert c["tolerance_given"] is True and c["rtol"] == 0.5 and c["atol"] == 1e-8
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, testset=0, atol=2) as a:
        c = a.bundled_check()
        assert c["rtol"] == 1e-5 and c["atol"] == 2.0


def patched_bpte(tmp_path):
    """A copy of the .bpte whose test case 0 expects 3 instead of 2 in its
    output's element 1: the bytes found by changing each candidate in turn
    until flatc decodes exactly that change."""
    orig = flatc_json("bundled_program.fbs", BPTE, tmp_path / "orig", False)
    case0 = orig["method_test_suites"][0]["test_cases"][0]["expected_outputs"][0]["val"]
    data = bytes(case0["data"])
    assert case0["scalar_type"] == "INT" and np.frombuffer(data, "<i4").tolist() == [2, 2, 2, 2]
    with open(BPTE, "rb") as f:
        raw = f.read()
    # A flatbuffer [ubyte] vector: its length (uint32) then its bytes.
    pattern = len(data).to_bytes(4, "little") + data
    at = raw.find(pattern)
    while at >= 0:
        patched = bytearray(raw)
        patched[at + 4 + 4] = 3  # element 1's low byte
        path = tmp_path / "patched.bpte"
        path.write_bytes(bytes(patched))
        doc = flatc_json("bundled_program.fbs", path, tmp_path / f"at{at}", False)
        cases = doc["method_test_suites"][0]["test_cases"]
        got = cases[0]["expected_outputs"][0]["val"]["data"]
        if np.frombuffer(bytes(got), "<i4").tolist() == [2, 3, 2, 2]:
            # nothing else changed
            cases[0]["expected_outputs"][0]["val"]["data"] = case0["data"]
            assert doc == orig
            return path
        at = raw.find(pattern, at + 1)
    raise AssertionError("test case 0's expected output not found in the .bpte")


def test_a_changed_expected_output_is_a_mismatch(tmp_path):
    bpte = patched_bpte(tmp_path)
    with etprof.analyze(ETDP, pte=bpte, debug_buffer=BUF, logs=[LOG]) as a:
        c = a.bundled_check()
        assert c["compared"] is True and c["testset"] == 0
        assert c["outputs_compared"] == 1 and c["outputs_mismatched"] == 1
        (o,) = c["outputs"]
        assert o["match"] is False and o["gap"]["mismatches"] == 1 and o["gap"]["exact_compare"]
        assert o["gap"]["worst"] == {"index": 1, "reference": 3.0, "got": 2.0}
        issues = [i for i in a.issues if i["code"] == "tensors.bundled_mismatch"]
        assert len(issues) == 1, a.issues
        assert "tensors.bundled_match" not in [i["code"] for i in a.issues]
    # The CLI says the same, and exits 1.
    p = cli("tensors", ETDP, str(bpte), "--debug-buffer", BUF, "--log", LOG, "--json", check=False)
    assert p.returncode == 1
    ref = json.loads(p.stdout)["bundled_check"]
    assert ref["outputs_mismatched"] == 1 and ref["outputs"][0]["gap"]["mismatches"] == 1


def test_document_as_the_cli():
    flags = ["--debug-buffer", BUF, "--testset", "0", "--rtol", "0.001", "--values", "4", "--json"]
    ref = json.loads(cli("tensors", ETDP, BPTE, *flags))
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, testset=0, rtol=0.001) as a:
        assert json.loads(a.tensors_json(values=4)) == ref
        assert ref["bundled_check"]["compared"] and ref["tensors"][1]["values"] == [2, 2, 2, 2]
        mine = a.bundled_check()
        del mine["bundled_program"]
        gap = ref["bundled_check"]["outputs"][0]["gap"]
        gap["snr_db"] = math.inf
        assert mine == ref["bundled_check"]


def test_a_copied_buffer_gives_the_same_values(tmp_path):
    """A copy of the buffer under another name: the same values."""
    copy = tmp_path / "copy.bin"
    shutil.copy(BUF, copy)
    with etprof.analyze(ETDP, pte=BPTE, debug_buffer=copy) as a:
        assert a.tensor_values("forward_0_2/0").tolist() == [[2, 2], [2, 2]]


def test_without_a_debug_buffer_is_a_usage_error():
    with etprof.analyze(ETDP, pte=BPTE) as a:
        for call in (a.tensors, a.bundled_check, lambda: a.tensor_values("output/0"),
                     a.tensors_json):
            with pytest.raises(etprof.UsageError, match="debug buffer"):
                call()


def test_unknown_values_are_usage_errors(analysis):
    for key, ex in (("forward_0_9/0", 0), ("output/0", 1), (3, 0), ("output/0", True)):
        with pytest.raises(etprof.UsageError):
            analysis.tensor_values(key, execution=ex)


@pytest.mark.parametrize("kw", [{"testset": -1}, {"testset": True}, {"testset": 1.0},
                                {"testset": "0"}, {"rtol": -1e-3}, {"rtol": math.nan},
                                {"atol": math.inf}, {"atol": "1e-8"}, {"rtol": True}])
def test_bad_numerics_are_usage_errors(kw):
    with pytest.raises(etprof.UsageError):
        etprof.analyze(ETDP, pte=BPTE, debug_buffer=BUF, **kw)


def test_a_log_carried_buffer(tmp_path):
    """The runner's log carrying the ETDump and the debug buffer (base64, as
    `etprof extract` reads them): the values read from the carried bytes; a
    different given buffer is a mismatch, as with the CLI."""
    import base64
    enc = lambda p: base64.b64encode(open(p, "rb").read()).decode()
    log = tmp_path / "console.log"
    log.write_text(open(LOG).read() + "#[RUN THIS]\necho \"%s\" | base64 -d >etdump.bin\n"
                   "echo \"%s\" | base64 -d >debug_buffer.bin\n#[END]\n" % (enc(ETDP), enc(BUF)))
    with etprof.analyze(pte=BPTE, logs=[log]) as a:
        assert list(a.tensors()["key"]) == KEYS
        assert a.tensor_values("output/0").tolist() == [[2, 2], [2, 2]]
        assert a.bundled_check()["compared"] is True
    with etprof.analyze(pte=BPTE, logs=[log], debug_buffer=BUF) as a:
        assert len(a.tensors()) == 4
    other = tmp_path / "other.bin"
    other.write_bytes(open(BUF, "rb").read()[:-1] + b"\x01")
    with pytest.raises(etprof.MismatchError):
        etprof.analyze(pte=BPTE, logs=[log], debug_buffer=other)
    assert cli("tensors", "--pte", BPTE, "--log", str(log), "--debug-buffer", str(other),
               check=False).returncode == 1


def test_element_types(tmp_path):
    """A generated ETDump (flatc -b) logging one value of each kind: numpy's
    dtypes viewed in place (float32, float16, bool, int64 in a tensor list),
    BFloat16 and Float8 decoded to float32, an Int scalar copied."""
    vals = [("FLOAT", [3, 2], 0), ("HALF", [4], 32), ("BFLOAT16", [2, 2], 48), ("BOOL", [3], 64)]
    entries = [{"val": "Tensor", "tensor": {"scalar_type": t, "sizes": s, "offset": o}}
               for t, s, o in vals]
    entries += [{"val": "TensorList", "tensor_list": {"tensors": [
                    {"scalar_type": "LONG", "sizes": [2], "offset": 80},
                    {"scalar_type": "FLOAT8E4M3FN", "sizes": [4], "offset": 96}]}},
                {"val": "Int", "int_value": {"int_val": -7}}]
    events = [{"debug_event": {"chain_index": 0, "instruction_id": 0, "debug_entry": v}} for v in entries]
    events.append({"profile_event": {"chain_index": -1, "instruction_id": 0, "start_time": 0,
                                     "end_time": 100, "name": "Method::execute"}})
    (tmp_path / "gen.json").write_text(json.dumps({"run_data": [{"name": "Execute", "events": events}]}))
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", str(tmp_path),
                    os.path.join(SCHEMAS, "etdump.fbs"), str(tmp_path / "gen.json")], check=True)
    buf = bytearray(128)
    buf[0:24] = np.arange(6, dtype="<f4").tobytes()
    buf[32:40] = np.array([0.5, -1, 2, 65504], dtype="<f2").tobytes()
    bf16 = np.array([1.5, -2, 3.25, 0], dtype="<f4")
    buf[48:56] = (bf16.view("<u4") >> 16).astype("<u2").tobytes()  # exact: low halves are 0
    buf[64:67] = bytes([1, 0, 1])
    buf[80:96] = np.array([-3, 2 ** 40], dtype="<i8").tobytes()
    buf[96:100] = bytes([0x38, 0x40, 0xB8, 0x00])  # e4m3fn: 1, 2, -1, 0
    (tmp_path / "gen.bin").write_bytes(bytes(buf))
    with etprof.analyze(tmp_path / "gen.etdp", pte=run("et_add_x10"), debug_buffer=tmp_path / "gen.bin") as a:
        df = a.tensors()
        assert list(df["dtype"]) == ["FLOAT", "HALF", "BFLOAT16", "BOOL", "LONG", "FLOAT8E4M3FN", "LONG"]
        want = {
            "forward_0_0/0": (np.float32, np.arange(6, dtype=np.float32).reshape(3, 2), True),
            "forward_0_0/1": (np.float16, np.array([0.5, -1, 2, 65504], dtype=np.float16), True),
            "forward_0_0/2": (np.float32, bf16.reshape(2, 2), False),
            "forward_0_0/3": (np.bool_, np.array([True, False, True]), True),
            "forward_0_0/4": (np.int64, np.array([-3, 2 ** 40]), True),
            "forward_0_0/4.1": (np.float32, np.array([1, 2, -1, 0], dtype=np.float32), False),
            "forward_0_0/5": (np.int64, np.array(-7), False),
        }
        assert list(df["key"]) == list(want)
        for key, (dtype, values, view) in want.items():
            got = a.tensor_values(key)
            assert got.dtype == dtype and got.shape == values.shape, key
            assert np.array_equal(got, values), (key, got)
            if view:  # numpy has the dtype: the buffer's bytes, read-only
                assert not got.flags.owndata and not got.flags.writeable, key
            row = df[df["key"] == key].iloc[0]
            f = values.astype(np.float64)
            assert row["min"] == f.min() and row["max"] == f.max(), key
