"""The VGF NX rows of the operators table through the package: a generated
VGF-statistics ETDump of the real VGF program (`etprof gen vgf-stats`),
analysed by the package and by the CLI. to_dataframe() holds the same rows
as operators.csv (entities, then nx_* rows), nx_groups the same objects as
operators.json's "nx_groups", and the NX rows carry no time."""
import csv
import json
import math
import os

import pytest

import etprof
from conftest import FIXTURES, cli

PTE = os.path.join(FIXTURES, "pte-adapter", "mobilenet_v2_vgf", "input.pte")


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    if not os.path.exists(PTE):
        pytest.skip(f"{PTE} absent")
    gen = tmp_path_factory.mktemp("gen")
    cli("gen", "vgf-stats", "--pte", PTE, "-o", str(gen), "--executions", "2")
    return str(gen / "g2_mode1_v2.etdp")


def test_dataframe_rows_equal_operators_csv(dump, tmp_path):
    pandas = pytest.importorskip("pandas")
    out = tmp_path / "cli"
    cli("analyze", "--pte", PTE, "--etdump", dump, "-o", str(out), "--quiet")
    with open(out / "operators.csv", newline="") as f:
        rows = list(csv.reader(f))
    with etprof.analyze(dump, pte=PTE) as a:
        df = a.to_dataframe()
        groups = a.nx_groups
        ents = a.operators
    assert list(df.columns) == rows[0]
    assert len(df) == len(rows) - 1
    kinds = [r[1] for r in rows[1:]]
    n_ent = sum(1 for k in kinds if not k.startswith("nx_"))
    assert n_ent == len(ents) and len(groups) == len(kinds) - n_ent > 0
    # the entities first, then the NX rows
    assert all(not k.startswith("nx_") for k in kinds[:n_ent])
    assert set(kinds[n_ent:]) == {"nx_segment", "nx_cascade", "nx_chain"}
    head = rows[0]
    for r, row in enumerate(rows[1:]):
        for c, text in enumerate(row):
            v = df.iat[r, c]
            if hasattr(v, "item"):
                v = v.item()
            if text == "":
                assert v is None or v is pandas.NA or v == [] or (
                    isinstance(v, float) and math.isnan(v)), (head[c], v)
            elif isinstance(v, bool):
                assert text == ("true" if v else "false")
            elif isinstance(v, (int, float)):
                assert float(text) == float(v), (head[c], text, v)
            elif isinstance(v, list):
                assert text == " ".join(str(x) for x in v)
            else:
                assert text == v, (head[c], text, v)
    # NX rows: no time in the analysis' unit, no timed executions, no additive flag
    for r in range(n_ent, len(df)):
        for col in ("avg_ms", "p10_ms", "p50_ms", "p90_ms", "min_ms", "max_ms"):
            assert math.isnan(df[col].iat[r])
        assert df["executions"].iat[r] is pandas.NA and df["additive"].iat[r] is pandas.NA
        assert df["nx_unit"].iat[r] == "cycles" and df["nx_executions"].iat[r] == 2


def test_nx_groups_equal_operators_json(dump, tmp_path):
    out = tmp_path / "json"
    cli("analyze", "--pte", PTE, "--etdump", dump, "-o", str(out), "--quiet", "--format", "json")
    doc = json.loads((out / "operators.json").read_text())
    with etprof.analyze(dump, pte=PTE) as a:
        assert a.nx_groups == doc["nx_groups"]
        assert a.operators == doc["entities"]
    assert all(g["timing"] is None and g["nx"]["unit"] == "cycles" for g in doc["nx_groups"])
