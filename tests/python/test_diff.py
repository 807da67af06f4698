"""etprof.diff() against `etprof diff`: for the same two runs (bundles the
CLI published, or Analysis objects against the CLI's ETDump sides) the
Python Diff holds the CLI's --json document, its rows read from the C
structs equal the JSON's rows, its gate decides as the CLI's exit status
does, and its published bundle has the CLI's bytes."""
import csv
import io
import json
import os
import subprocess

import pytest

import etprof
from conftest import CLI, UNDER_ASAN, cli, run

ADD, XNN = "et_add_x10", "xnn_np_add_x10"  # portable kernels vs the XNNPACK delegate


def etdp(name):
    return run(name, "etdp")


def pte(name):
    return run(name)


def publish(tmp_path_factory, name, *extra):
    out = tmp_path_factory.mktemp("b") / name
    cli("analyze", "--etdump", etdp(name), "--pte", pte(name), "-o", str(out), "--quiet",
        "--model-explorer", "none", *extra)
    return str(out)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """Detailed bundles (per-execution samples: intervals) and a plain one."""
    return {"add": publish(tmp_path_factory, ADD, "--detailed"),
            "xnn": publish(tmp_path_factory, XNN, "--detailed"),
            "add_plain": publish(tmp_path_factory, ADD)}


def cli_diff(base, new, *args):
    """The CLI's --json for base vs new, and its exit status."""
    p = cli("diff", base, new, "--json", *args, check=False)
    assert p.returncode in (0, 3), p.stderr
    return json.loads(p.stdout), p.returncode


def cli_etdump_args(base, new):
    return [etdp(base), etdp(new), "--base-pte", pte(base), "--new-pte", pte(new)]


def same_document(d, ref):
    """Everything the Diff holds equals the CLI's document; the rows, read
    field by field from etp_diff_row, equal the JSON's rows."""
    assert d.to_dict() == ref
    assert d.level == ref["level"] and d.level_reason == ref["level_reason"]
    assert d.unit == ref["unit"] and d.statistic == ref["statistic"]
    assert d.base == ref["base"] and d.new == ref["new"]
    assert d.warnings == ref["warnings"]
    assert d.rows == ref["rows"]
    for r in ref["rows"]:
        assert d.row(r["key"], kind=r["kind"]) == r


PAIRS = [("add", "xnn"), ("xnn", "add"), ("add", "add"), ("add_plain", "xnn")]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_bundles_equal_the_cli_json(bundles, pair):
    base, new = bundles[pair[0]], bundles[pair[1]]
    ref, _ = cli_diff(base, new)
    with etprof.diff(base, new) as d:
        same_document(d, ref)
        assert d.findings == ref["findings"] and isinstance(d.findings, list)
    if pair == ("add", "add"):
        assert ref["level"] == "instruction"
    if pair == ("add", "xnn"):
        # Portable vs XNNPACK: no common program or source graph.
        assert ref["level"] == "op_type"
        assert any(r["interval"] for r in ref["rows"])


def test_analyses_equal_the_cli_etdump_sides():
    with etprof.analyze(etdp(ADD), pte=pte(ADD)) as a, \
            etprof.analyze(etdp(XNN), pte=pte(XNN)) as x:
        for base, new, names in ((a, x, (ADD, XNN)), (a, a, (ADD, ADD)), (x, a, (XNN, ADD))):
            ref, _ = cli_diff(*cli_etdump_args(*names))
            with etprof.diff(base, new) as d:
                same_document(d, ref)
        # The same run against itself: matched per instruction, ratio 1.
        with etprof.diff(a, a) as d:
            assert d.level == "instruction"
            m = d.row("method_execute")
            # Both sides are resampled independently: an interval around 1.
            assert m["ratio"] == 1.0 and m["delta"] == 0.0
            assert m["interval"]["low"] < 1 < m["interval"]["high"] and not m["significant"]


def test_options_reach_the_c_diff(bundles):
    args = ["--stat", "p50", "--confidence", "0.9", "--resamples", "300", "--seed", "12345",
            "--interval-rows", "1"]
    ref, _ = cli_diff(bundles["add"], bundles["add"], *args)
    with etprof.diff(bundles["add"], bundles["add"], statistic="p50", confidence=0.9,
                     resamples=300, seed=12345, interval_rows=1) as d:
        same_document(d, ref)
        assert d.statistic == "p50" and d.seed == 12345 and d.resamples == 300
    with pytest.raises(etprof.UsageError):
        etprof.diff(bundles["add"], bundles["add"], statistic="p90")
    with pytest.raises(etprof.UsageError):
        etprof.diff(bundles["add"], bundles["add"], confidence=1.0)
    with pytest.raises(etprof.UsageError):
        etprof.diff(bundles["add"], bundles["add"], resamples=-1)


def test_mixed_sides(bundles):
    """A bundle against an Analysis: the CLI's bundle vs ETDump sides."""
    with etprof.analyze(etdp(XNN), pte=pte(XNN)) as x:
        ref, _ = cli_diff(bundles["add"], etdp(XNN), "--new-pte", pte(XNN))
        with etprof.diff(bundles["add"], x) as d:
            same_document(d, ref)


# (base, new, pct, metric, no_significance)
GATES = [("add", "xnn", 0, "method_execute", False),
         ("xnn", "add", 0, "method_execute", False),
         ("xnn", "add", 0, "method_execute", True),
         ("add", "xnn", 0, "program_load_method", False),
         ("add", "xnn", 0, "program_load_method", True),     # no interval, slower: fails
         ("add", "xnn", 5000, "program_load_method", True),  # within the threshold
         ("xnn", "add", 0, "program_load_method", True),     # faster: never fails
         ("add_plain", "xnn", 0, "framework_overhead", True)]


@pytest.mark.parametrize("case", GATES, ids=[f"{b}-{n}-{p}-{m}-{s}" for b, n, p, m, s in GATES])
def test_gate_decides_as_the_cli_exit_status(bundles, case):
    base, new, pct, metric, nosig = case
    args = ["--fail-if-slower", str(pct), "--metric", metric] + (
        ["--no-significance"] if nosig else [])
    ref, rc = cli_diff(bundles[base], bundles[new], *args)
    with etprof.diff(bundles[base], bundles[new]) as d:
        failed, reason = d.gate(pct, metric=metric, no_significance=nosig)
        assert (3 if failed else 0) == rc
        assert reason == ref["gate"]["reason"]
        # The gate's record, number formatting included, as the CLI writes it.
        assert d.to_json(fail_if_slower=pct, metric=metric, no_significance=nosig) == \
            cli("diff", bundles[base], bundles[new], "--json", *args, check=False).stdout
        # The decision, derived here from the row itself (diff.h's rule).
        r = d.row(metric)
        slower = r["ratio"] is not None and r["ratio"] > 1 + pct / 100
        expect = slower and (r["significant"] if r["interval"] else nosig)
        assert failed == expect


def test_gate_both_outcomes_are_exercised(bundles):
    with etprof.diff(bundles["add"], bundles["xnn"]) as d:
        assert d.gate(0, "program_load_method", no_significance=True)[0] is True
        assert d.gate(0, "program_load_method")[0] is False
        assert d.gate(0)[0] is False
        with pytest.raises(etprof.UsageError) as e:
            d.gate(0, "no_such_row")
    p = cli("diff", bundles["add"], bundles["xnn"], "--fail-if-slower", "0", "--metric",
            "no_such_row", check=False)
    assert p.returncode == 1 and p.stderr.strip() == f"etprof: {e.value}"


def test_gate_on_a_row_outside_interval_rows():
    """The CLI always gives the gated row its interval; so does gate()."""
    kws = "cm_et_arduino_kws_x10"  # 16 instructions, 10 executions
    with etprof.analyze(etdp(kws), pte=pte(kws)) as a:
        with etprof.diff(a, a, interval_rows=1, resamples=200) as d:
            left = [r for r in d.rows if r["note"] and
                    r["note"].startswith("interval not computed")]
            assert left, "interval_rows=1 should leave an entity row without an interval"
            key = left[-1]["key"]
            failed, reason = d.gate(0, metric=key)
            names = (kws, kws)
            ref, rc = cli_diff(*cli_etdump_args(*names), "--interval-rows", "1",
                               "--resamples", "200", "--fail-if-slower", "0", "--metric", key)
            assert (3 if failed else 0) == rc and reason == ref["gate"]["reason"]
            assert d.to_dict(fail_if_slower=0, metric=key) == ref
            assert d.row(key)["interval"] is not None
        # Named up front, as the CLI's --metric names it: the same document.
        with etprof.diff(a, a, interval_rows=1, resamples=200, metric=key) as d:
            assert d.to_dict(fail_if_slower=0, metric=key) == ref


def test_tampered_bundle_raises(bundles, tmp_path):
    import shutil
    b = tmp_path / "t"
    shutil.copytree(bundles["add"], b)
    p = b / "summary.json"
    p.write_bytes(p.read_bytes().replace(b"forward", b"fOrward", 1))
    with pytest.raises(etprof.FormatError) as e:
        etprof.diff(str(b), bundles["xnn"])
    line = cli("diff", str(b), bundles["xnn"], check=False)
    assert line.returncode == 1
    assert line.stderr.strip().splitlines()[-1] == f"etprof: {e.value}"
    assert "summary.json" in str(e.value)


def test_mismatched_sides_raise(bundles, tmp_path_factory):
    other = tmp_path_factory.mktemp("m") / "c"
    name = "np_const_methods_get_tensor_x3"
    cli("analyze", "--etdump", etdp(name), "--pte", pte(name), "--method", "get_tensor", "-o",
        str(other), "--quiet", "--model-explorer", "none")
    cycles = tmp_path_factory.mktemp("m") / "cy"
    cli("analyze", "--etdump", etdp(ADD), "--pte", pte(ADD), "--source-unit", "cycles",
        "--unit", "cycles", "-o", str(cycles), "--quiet", "--model-explorer", "none")
    for base, new in ((bundles["add"], str(other)), (str(cycles), bundles["add"])):
        with pytest.raises(etprof.MismatchError) as e:
            etprof.diff(base, new)
        p = cli("diff", base, new, check=False)
        assert p.returncode == 1
        assert p.stderr.strip().splitlines()[-1] == f"etprof: {e.value}"
    # Different methods compare with any_method, as with --any-method.
    ref, _ = cli_diff(bundles["add"], str(other), "--any-method")
    with etprof.diff(bundles["add"], str(other), any_method=True) as d:
        same_document(d, ref)
        assert "identity.method_differs" in [w["code"] for w in d.warnings]
    with etprof.analyze(etdp(ADD), pte=pte(ADD)) as a, \
            etprof.analyze(etdp(name), pte=pte(name), method="get_tensor") as c:
        with pytest.raises(etprof.MismatchError):
            etprof.diff(a, c)


def manifest_without_identity(path):
    m = json.loads(open(os.path.join(path, "result_manifest.json")).read())
    for k in ("run_id", "timestamp"):
        m.pop(k, None)
    return m


@pytest.mark.parametrize("gate", [None, (0, "program_load_method", True)])
def test_publish_writes_the_cli_bundle(bundles, tmp_path, gate):
    mine, theirs = tmp_path / "py", tmp_path / "cli"
    args = ["-o", str(theirs), "--quiet", "--top", "3"]
    kw = {}
    if gate:
        args += ["--fail-if-slower", str(gate[0]), "--metric", gate[1], "--no-significance"]
        kw = dict(fail_if_slower=gate[0], metric=gate[1], no_significance=gate[2])
    p = cli("diff", bundles["add"], bundles["xnn"], *args, check=False)
    assert p.returncode == (3 if gate else 0), p.stderr
    with etprof.diff(bundles["add"], bundles["xnn"]) as d:
        assert d.publish(mine, top=3, **kw) == os.fspath(mine)
    cli("verify", str(mine))
    for f in ("diff_summary.json", "diff_rows.csv", "diff.html"):
        assert (mine / f).read_bytes() == (theirs / f).read_bytes(), f
    assert manifest_without_identity(mine) == manifest_without_identity(theirs)
    with pytest.raises(etprof.Error):  # not empty and no --force: refused
        etprof.diff(bundles["add"], bundles["xnn"]).publish(tmp_path)


def test_publish_from_analyses_writes_the_cli_bundle(tmp_path):
    """Analysis sides against the CLI's ETDump sides: the inputs recorded
    (the ETDumps, by digest) and the options (unit, method) agree too."""
    mine, theirs = tmp_path / "py", tmp_path / "cli"
    cli("diff", *cli_etdump_args(ADD, XNN), "--unit", "us", "-o", str(theirs), "--quiet")
    with etprof.analyze(etdp(ADD), pte=pte(ADD), unit="us") as a, \
            etprof.analyze(etdp(XNN), pte=pte(XNN), unit="us") as x:
        with etprof.diff(a, x) as d:
            assert d.unit == "us"
            d.publish(mine)
    for f in ("diff_summary.json", "diff_rows.csv", "diff.html"):
        assert (mine / f).read_bytes() == (theirs / f).read_bytes(), f
    assert manifest_without_identity(mine) == manifest_without_identity(theirs)


def test_csv_and_dataframe(bundles):
    raw = subprocess.run([CLI, "diff", bundles["add"], bundles["xnn"], "--csv"],
                         capture_output=True, check=True).stdout
    text = raw.decode()
    with etprof.diff(bundles["add"], bundles["xnn"]) as d:
        assert d.to_csv().encode() == raw  # CRLF line ends included
        pandas = pytest.importorskip("pandas")
        df = d.to_dataframe()
    table = list(csv.reader(io.StringIO(text, newline="")))
    header, body = table[0], table[1:]
    assert list(df.columns) == header and len(df) == len(body)
    for i, line in enumerate(body):
        for col, cell in zip(df.columns, line):
            v = df[col].iloc[i]
            if cell == "":
                assert v is None or pandas.isna(v), (col, cell)
            elif cell in ("true", "false"):
                assert bool(v) == (cell == "true"), (col, cell)
            else:
                try:
                    num = float(cell)
                except ValueError:
                    assert v == cell, (col, cell)
                else:
                    assert float(v) == num, (col, cell)


def test_closed_diff_keeps_its_values(bundles):
    d = etprof.diff(bundles["add"], bundles["xnn"])
    rows = d.rows
    d.close()
    d.close()
    assert d.rows == rows and "closed" in repr(d)
    with pytest.raises(etprof.UsageError):
        d.gate(0)
    with pytest.raises(etprof.UsageError):
        d.to_dict()
    with pytest.raises(etprof.UsageError):
        etprof.diff(etdp(ADD), bundles["xnn"])  # an ETDump path: analyse it first


@pytest.mark.skipif(UNDER_ASAN, reason="RSS under ASan grows with its quarantine, not leaks")
def test_no_leak_over_400_diffs():
    """Diffs freed by close() and by the garbage collector: RSS stays flat
    (a Diff and its two sides of these runs hold tens of KiB; a leak of
    all of it would add several MiB over 400)."""
    a = etprof.analyze(etdp(ADD), pte=pte(ADD))
    x = etprof.analyze(etdp(XNN), pte=pte(XNN))
    import gc

    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    def one(i):
        d = etprof.diff(a, x, resamples=100)
        d.to_dict()
        if i % 2 == 0:
            d.close()

    for i in range(40):
        one(i)
    gc.collect()
    start = rss_kib()
    for i in range(400):
        one(i)
    gc.collect()
    assert rss_kib() - start < 2 * 1024


def test_two_threads_diff_at_once(bundles):
    """Diffs computed in two threads at once (the C work runs without the
    GIL) equal the one computed alone."""
    import threading
    with etprof.diff(bundles["add"], bundles["xnn"]) as d:
        expect = d.to_dict()
    got, errors = [], []

    def work():
        try:
            for _ in range(3):
                with etprof.diff(bundles["add"], bundles["xnn"]) as d:
                    got.append(d.to_dict())
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 6 and all(g == expect for g in got)
