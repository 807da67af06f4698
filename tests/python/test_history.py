"""etprof.History: the run history `etprof db` keeps, read from Python
(SQLite, and PostgreSQL when the test cluster runs: ctest starts it)."""
import json
import os
import subprocess

import pytest

import etprof
from conftest import cli, run, SOURCE

PG_DIR = os.environ.get("ETP_PG_DIR", "")


def _targets(tmp_path, name):
    yield str(tmp_path / (name + ".db"))
    url = os.path.join(PG_DIR, "url")
    if PG_DIR and os.path.exists(url):
        out = subprocess.run(["bash", os.path.join(SOURCE, "tests", "tools", "pg_cluster.sh"),
                              "createdb", PG_DIR, "etp_py_" + name], capture_output=True,
                             text=True, check=True)
        yield out.stdout.strip()


@pytest.fixture()
def bundles(tmp_path):
    out = []
    for i, labels in enumerate([["device=pixel7", "seq=1"], ["device=rpi5", "seq=2"],
                                ["device=pixel7", "seq=3"]]):
        d = tmp_path / ("b%d" % i)
        args = ["analyze", "--etdump", run("et_add_x10", "etdp"), "--pte", run("et_add_x10"),
                "-o", str(d), "--quiet", "--model-explorer", "none"]
        for lab in labels:
            args += ["--label", lab]
        cli(*args)
        out.append(d)
    return out


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_runs_as_the_cli_lists_them(tmp_path, bundles, engine):
    targets = list(_targets(tmp_path, "runs"))
    if engine == "postgresql" and len(targets) < 2:
        pytest.fail("the PostgreSQL test cluster is not running (ETP_PG_DIR)")
    target = targets[0 if engine == "sqlite" else 1]
    raw = b"\xff\xferaw"
    p = subprocess.run([os.environ.get("ETPROF", "etprof"), "db", "ingest", "--db", target,
                        *map(str, bundles), b"--label", b"odd=" + raw], capture_output=True)
    assert p.returncode == 0, p.stderr
    listed = json.loads(cli("db", "runs", "--db", target, "--json"))["runs"]
    with etprof.History(target) as h:
        assert h.engine == engine and h.target == target
        df = h.runs()
        recs = h.run_records()
        assert [r["run_id"] for r in recs] == [r["run_id"] for r in listed]
        assert list(df["run_id"]) == [r["run_id"] for r in listed]
        assert list(df["published_ms"]) == [r["published_ms"] for r in listed]
        assert list(df["label.device"]) == ["pixel7", "rpi5", "pixel7"]
        assert list(df["label.odd"]) == [raw] * 3  # not UTF-8: the exact bytes
        assert df["published"].dt.tz is not None and list(df["executions"]) == [10] * 3
        assert len(h.runs(where={"device": "pixel7"})) == 2
        assert len(h.runs(where={"device": "pixel7", "seq": "3"})) == 1
        assert len(h.runs(where={"odd": raw})) == 3
        assert len(h.runs(where={"method": "forward"})) == 3
        assert len(h.runs(since="1h")) == 3 and len(h.runs(since="2999-01-01")) == 0
        with pytest.raises(etprof.UsageError):
            h.runs(since="yesterday")
    with pytest.raises(etprof.UsageError):
        h.runs()


def test_missing_or_unreachable(tmp_path):
    with pytest.raises(etprof.ReadError) as e:
        etprof.History(str(tmp_path / "missing.db"))
    assert "no such database" in str(e.value) and not (tmp_path / "missing.db").exists()
    url = "postgresql://u:pw%%40x@/db?host=%s&port=1" % (tmp_path / "nowhere")
    with pytest.raises(etprof.ReadError) as e:
        etprof.History(url)
    assert "pw" not in str(e.value) and "***" in str(e.value)


def test_empty_database_is_not_a_history(tmp_path):
    t = str(tmp_path / "h.db")
    cli("db", "migrate", "--db", t, "--to", "1")
    with pytest.raises(etprof.FormatError) as e:
        etprof.History(t)
    assert "older" in str(e.value)
    cli("db", "migrate", "--db", t)
    with etprof.History(t) as h:
        assert len(h.runs()) == 0 and list(h.runs().columns)[:3] == ["run", "run_id", "published"]
