"""open_bundle() / load_result_manifest(): a bundle read back, and refused
when an artifact is missing, modified or outside the directory."""
import json
import os
import shutil

import pytest

import etprof
from conftest import cli, run


@pytest.fixture()
def bundle(tmp_path):
    out = tmp_path / "b"
    cli("analyze", "--etdump", run("et_add_x10", "etdp"), "--pte", run("et_add_x10"), "-o",
        str(out), "--quiet", "--model-explorer", "none")
    return out


def test_manifest_is_read_as_written(bundle):
    written = json.loads((bundle / "result_manifest.json").read_text())
    m = etprof.load_result_manifest(bundle / "result_manifest.json")
    assert m == etprof.load_result_manifest(bundle)
    assert m["run_id"] == written["run_id"] and m["validity"] == written["validity"]
    assert sorted(a["path"] for a in m["artifacts"]) == sorted(
        a["path"] for a in written["artifacts"])
    for a in written["artifacts"]:
        mine = next(x for x in m["artifacts"] if x["path"] == a["path"])
        assert mine["sha256"] == a["sha256"] and mine["size_bytes"] == a["size_bytes"]
    with etprof.open_bundle(bundle) as b:
        csv_rows = (bundle / "operators.csv").read_text().splitlines()
        assert b.columns == csv_rows[0].split(",")
        assert len(b.operators["entity_id"]) == len(csv_rows) - 1


def test_modified_artifact_is_refused(bundle):
    p = bundle / "operators.csv"
    p.write_bytes(p.read_bytes().replace(b"forward_0_0", b"forward_0_9"))
    with pytest.raises(etprof.FormatError) as e:
        etprof.open_bundle(bundle)
    assert "operators.csv" in str(e.value)
    # Without verification the modified bundle opens (as `verify=False` says).
    etprof.open_bundle(bundle, verify=False).close()


def test_missing_artifact_is_refused(bundle):
    os.unlink(bundle / "summary.json")
    with pytest.raises(etprof.Error) as e:
        etprof.load_result_manifest(bundle)
    assert "summary.json" in str(e.value)


def test_escaping_artifact_is_refused(bundle, tmp_path):
    outside = tmp_path / "outside.csv"
    shutil.copy(bundle / "operators.csv", outside)
    os.unlink(bundle / "operators.csv")
    os.symlink(outside, bundle / "operators.csv")
    with pytest.raises(etprof.FormatError):
        etprof.open_bundle(bundle)
    m = json.loads((bundle / "result_manifest.json").read_text())
    m["artifacts"][0]["path"] = "../outside.csv"
    (bundle / "result_manifest.json").write_text(json.dumps(m))
    with pytest.raises(etprof.FormatError):
        etprof.load_result_manifest(bundle)


def test_no_manifest_is_not_a_bundle(tmp_path):
    with pytest.raises(etprof.FormatError) as e:
        etprof.open_bundle(tmp_path)
    assert e.value.code == "format"
    with pytest.raises(etprof.ReadError):
        etprof.open_bundle(tmp_path / "missing")
