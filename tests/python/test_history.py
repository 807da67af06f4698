"""etprof.History: the run history `etprof db` keeps, read from Python
(SQLite, and PostgreSQL when the test cluster runs: ctest starts it)."""
import json
import os
import subprocess

import pytest

import etprof
from conftest import CLI, cli, run, SOURCE

PG_DIR = os.environ.get("ETP_PG_DIR", "")


def _targets(tmp_path, name):
    yield str(tmp_path / (name + ".db"))
    url = os.path.join(PG_DIR, "url")
    if PG_DIR and os.path.exists(url):
        # Not with the sanitizer's runtime preloaded (python.cmake does that
        # under ASan): psql hangs in it.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        out = subprocess.run(["bash", os.path.join(SOURCE, "tests", "tools", "pg_cluster.sh"),
                              "createdb", PG_DIR, "etp_py_" + name], capture_output=True,
                             text=True, check=True, env=env, timeout=120)
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


# ---- series and verdicts ---------------------------------------------------------

PROBE = os.environ.get("ETP_STORE_PROBE", os.path.join(SOURCE, "build", "tests", "store_probe"))
METRIC = "method_execute.avg"
SLOW = (13, 14, 15)  # the seqs of the runs after the step


def _summary(bundle):
    with open(os.path.join(bundle, "summary.json")) as f:
        return {m["name"]: m["value"] for m in json.load(f)["metrics"]}


def _run_id(bundle):
    with open(os.path.join(bundle, "result_manifest.json")) as f:
        return json.load(f)["run_id"]


@pytest.fixture(scope="module")
def step(tmp_path_factory):
    """A history of one program with a known step: on device pixel7 runs
    seq 1..12 (ETDumps of seeds 1..12: run-to-run noise) then 13..15 with
    instruction 50 a hundred times slower, published slow ones FIRST (so
    the step is at the end by seq, at the start by publication time); on
    rpi5 three runs. Every run --detailed (per-execution values stored).
    Returns {seq or ("rpi5", i): bundle dir} and the work folder."""
    work = tmp_path_factory.mktemp("step")
    pte = str(work / "model.pte")
    cli("gen", "etdump", "-o", str(work / "e1.etdp"), "--pte", pte, "--seed", "1")
    bundles = {}

    def publish(key, seed, device, seq, slow=False):
        etdp = str(work / ("e%d%s.etdp" % (seed, "s" if slow else "")))
        if not os.path.exists(etdp):
            cli("gen", "etdump", "-o", etdp, "--seed", str(seed),
                *(["--slowdown", "50:100"] if slow else []))
        out = str(work / ("b_%s_%d" % (device, seq)))
        cli("analyze", "--etdump", etdp, "--pte", pte, "-o", out, "--quiet", "--detailed",
            "--model-explorer", "none", "--label", "device=" + device, "--label", "seq=%d" % seq)
        bundles[key] = out

    for seq in SLOW:
        publish(seq, seq, "pixel7", seq, slow=True)
    for seq in range(1, 13):
        publish(seq, seq, "pixel7", seq)
    for i in range(3):
        publish(("rpi5", i), i + 1, "rpi5", 20 + i)
    return bundles, work


def _step_target(tmp_path, step, engine):
    """The step history ingested into a fresh database of ENGINE: pixel7's
    runs in one ingest, rpi5's in another with a label that is not UTF-8."""
    targets = list(_targets(tmp_path, "step"))
    if engine == "postgresql" and len(targets) < 2:
        pytest.fail("the PostgreSQL test cluster is not running (ETP_PG_DIR)")
    target = targets[0 if engine == "sqlite" else 1]
    bundles = step[0]
    cli("db", "ingest", "--db", target, *[b for k, b in bundles.items() if isinstance(k, int)])
    p = subprocess.run([CLI, "db", "ingest", "--db", target,
                        *[b for k, b in bundles.items() if not isinstance(k, int)],
                        b"--label", b"odd=" + RAW], capture_output=True)
    assert p.returncode == 0, p.stderr
    return target


RAW = b"\xff\xfeodd"


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_trend_values_are_the_bundles(tmp_path, step, engine):
    target = _step_target(tmp_path, step, engine)
    bundles = step[0]
    by_run_id = {_run_id(b): b for b in bundles.values()}
    with etprof.History(target) as h:
        df = h.trend(METRIC)
        assert len(df) == 18
        # Default groups: program x method x device; rpi5 sorts after pixel7.
        assert list(df.columns[:8]) == ["series", "metric", "entity", "unit", "lower_is_better",
                                        "group.program", "group.method", "group.device"]
        assert list(df["group.device"]) == ["pixel7"] * 15 + ["rpi5"] * 3
        assert set(df["group.method"]) == {"forward"} and df["entity"].isna().all()
        assert set(df["unit"]) == {"ms"} and df["lower_is_better"].all()
        assert df["series"].nunique() == 2 and df["series"][0].endswith("|device=pixel7|unit=ms")
        for _, row in df.iterrows():
            b = by_run_id[row["run_id"]]
            assert row["value"] == _summary(b)[METRIC], b
            assert row["samples"] == 5 and row["labels"]["device"] == row["group.device"]
            assert row["published"].value // 10**6 == row["published_ms"] == row["order"]
        assert df["published"].dt.tz is not None
        for _, g in df.groupby("series"):
            assert list(g["published_ms"]) == sorted(g["published_ms"])
        # Published slow ones first: by time, pixel7's series starts with them.
        assert [int(x["seq"]) for x in df["labels"][:3]] == list(SLOW)

        # Ordered by the numeric label instead.
        by_seq = h.trend(METRIC, order_by="seq", where={"device": "pixel7"})
        assert list(by_seq["order"]) == [float(s) for s in range(1, 16)]
        assert list(by_seq["value"]) == [_summary(bundles[s])[METRIC] for s in range(1, 16)]

        # Other statistics, groups and filters.
        p50 = h.trend("method_execute", stat="p50", where={"device": "rpi5"})
        assert list(p50["value"]) == [_summary(bundles[("rpi5", i)])["method_execute.p50"]
                                      for i in range(3)]
        one = h.trend(METRIC, group_by="device")
        assert [c for c in one.columns if c.startswith("group.")] == ["group.device"]
        assert list(one["value"]) == list(df["value"])
        odd = h.trend(METRIC, group_by=["device", "odd"])
        assert list(odd["group.odd"]) == [""] * 15 + [RAW] * 3  # the exact bytes
        assert list(odd["labels"])[-1]["odd"] == RAW
        assert len(h.trend(METRIC, since="2999-01-01")) == 0
        assert len(h.trend("no_such.metric")) == 0

        # An entity's statistic: operators.csv's avg of that entity_id.
        with open(os.path.join(bundles[1], "operators.csv")) as f:
            header, first = f.readline().strip().split(","), f.readline().strip().split(",")
        entity = first[header.index("entity_id")]
        ent = h.trend("avg", entity=entity, where={"seq": "1"})
        assert list(ent["entity"]) == [entity]
        assert ent["value"][0] == pytest.approx(float(first[header.index("avg_ms")]), rel=1e-9)

        with pytest.raises(etprof.UsageError):
            h.trend("method_execute", stat="p42")
        assert h.trend(METRIC, group_by=[]).equals(df)  # no keys: the default groups


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_series_records_are_what_the_library_hands_out(tmp_path, step, engine):
    """Field by field, with the per-execution values, against the query
    API's own JSON (tests/support/store_probe.c): the ctypes layouts read
    what C wrote."""
    target = _step_target(tmp_path, step, engine)
    p = subprocess.run([PROBE, target, "series", "--metric", METRIC, "--order-by", "seq"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = json.loads(p.stdout)["series"]
    with etprof.History(target) as h:
        got = h.series_records(METRIC, order_by="seq", samples=True)
        df = h.trend(METRIC, order_by="seq", samples=True)
    assert [s["series"] for s in got] == [s["key"] for s in want]
    for g, w in zip(got, want):
        for k in ("metric", "entity", "unit", "lower_is_better"):
            assert g[k] == w[k], k
        assert g["group"]["device"] == w["group"]["device"]
        assert len(g["points"]) == len(w["points"])
        for gp, wp in zip(g["points"], w["points"]):
            for k in ("run", "run_id", "published_ms", "order", "value", "samples"):
                assert gp[k] == wp[k], k
            assert gp["execution_values"] == wp["execution_values"]
            assert gp["sample_count"] == len(wp["execution_values"]) == 5
            assert {k: v for k, v in gp["labels"].items() if k != "odd"} == \
                {k: v for k, v in wp["labels"].items() if k != "odd"}
    assert list(df["execution_values"]) == [p["execution_values"] for s in got
                                            for p in s["points"]]


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_regressions_find_the_step(tmp_path, step, engine):
    target = _step_target(tmp_path, step, engine)
    bundles = step[0]
    base = [_summary(bundles[s])[METRIC] for s in range(1, 13)]
    slow = [_summary(bundles[s])[METRIC] for s in SLOW]
    assert min(slow) > 1.5 * max(base)  # the step is there to find
    with etprof.History(target) as h:
        df = h.regressions(window=3, baseline=12, order_by="seq")
        recs = h.regression_records(window=3, baseline=12, order_by="seq")
        by_time = h.regressions(window=3, baseline=12)
        defaults = h.regressions()
        two = h.regressions(metric=[METRIC, "method_execute.p50"], window=3, baseline=12,
                            order_by="seq")
    assert list(df["group.device"]) == ["pixel7", "rpi5"]
    assert list(df["verdict"]) == ["regression", "insufficient_data"]
    # The command line judges with the same library call: the same verdicts.
    p = subprocess.run([os.environ.get("ETPROF", "etprof"), "db", "regressions", "--db", target, "--window", "3",
                        "--baseline", "12", "--order-by", "seq", "--json"], stdout=subprocess.PIPE, check=True)
    cli = [s["regression"] for s in json.loads(p.stdout)["series"]]
    assert [c["verdict"] for c in cli] == list(df["verdict"])
    assert [c["change_pct"] for c in cli] == pytest.approx(list(df["change_pct"]))
    assert cli[0]["change"]["run_id"] == df.iloc[0]["change_run_id"]
    assert [r["verdict"] for r in recs] == list(df["verdict"])
    r = df.iloc[0]
    assert r["points"] == 15 and r["baseline_points"] == 12 and r["violations"] == 3
    assert r["baseline_value"] == pytest.approx(_median(base), rel=1e-12)
    assert r["new_value"] == pytest.approx(_median(slow), rel=1e-12)
    assert r["change_pct"] == pytest.approx((r["new_value"] / r["baseline_value"] - 1) * 100)
    assert r["baseline_spread"] > 0
    assert r["z"] == pytest.approx((r["new_value"] - r["baseline_value"]) / r["baseline_spread"])
    assert 0.99 < r["confidence"] <= 1 and r["reason"]
    # Every run was --detailed: the bootstrap's interval of new/baseline.
    assert 1 < r["ratio_lo"] < r["ratio_hi"]
    # The change began at seq 13.
    assert r["change_index"] == 12 and r["change_run_id"] == _run_id(bundles[13])
    assert r["change_labels"] == {"device": "pixel7", "seq": "13"}
    assert r["change_published"].value // 10**6 == r["change_published_ms"]
    assert recs[0]["change"]["run"] == r["change_run"]
    assert recs[0]["ratio_interval"] == (r["ratio_lo"], r["ratio_hi"])
    q = df.iloc[1]
    assert q["points"] == 3 and q["violations"] == 0 and q["confidence"] == 0
    assert q["change_run"] is pd_na() and q["change_labels"] is None
    assert q["change_published"] is pd_nat()
    assert df.attrs["options"]["window"] == 3 and df.attrs["options"]["threshold"] == 5.0
    # By publication time the slow runs come first: they are the baseline's
    # oldest, and the newest runs are no regression.
    assert by_time["verdict"][0] != "regression"
    # The library's defaults: 3 runs are too few on any rule.
    assert defaults["verdict"][1] == "insufficient_data"
    assert defaults.attrs["options"]["window"] == 5
    assert list(two["metric"]) == [METRIC] * 2 + ["method_execute.p50"] * 2
    assert list(two["verdict"]) == ["regression", "insufficient_data"] * 2


def pd_na():
    import pandas
    return pandas.NA


def pd_nat():
    import pandas
    return pandas.NaT


@pytest.mark.parametrize("bad", [dict(window=0), dict(window=-1), dict(window=2.5),
                                 dict(baseline=2), dict(min_baseline=1),
                                 dict(threshold=-1), dict(threshold=float("nan")),
                                 dict(z=-3), dict(confidence=1.5), dict(seed=-1),
                                 dict(metric=[]), dict(metric=None), dict(stat="p42")])
def test_regression_options_are_checked(tmp_path, bad):
    t = str(tmp_path / "empty.db")
    cli("db", "migrate", "--db", t)
    with etprof.History(t) as h:
        # Checked even when no series is found.
        with pytest.raises(etprof.UsageError):
            h.regressions(**bad)
        assert len(h.regressions(window=1, baseline=2, min_baseline=2, threshold=0, z=0)) == 0
