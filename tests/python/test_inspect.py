"""etprof.inspect() equals `etprof inspect --json`, and its flat table."""
import json

import pytest

import etprof
from conftest import cli_json, run


@pytest.mark.parametrize("name,pte,raw", [("et_add_x10", True, False),
                                           ("xnn_np_add_x10", True, True),
                                           ("cm_et_arduino_kws_x10", False, False),
                                           ("np_multi_forward_x10", True, False)])
def test_inspect_equals_the_cli(name, pte, raw):
    args = ["inspect", run(name, "etdp"), "--json"] + (["--pte", run(name)] if pte else [])
    ref = cli_json(*args, *(["--raw"] if raw else []))
    got = etprof.inspect(run(name, "etdp"), pte=run(name) if pte else None, raw=raw)
    # The document names the paths as given; the rest must be equal.
    assert got.to_dict() == ref
    assert len(got.events) == sum(len(b["events"]) for b in ref["blocks"])
    pandas = pytest.importorskip("pandas")
    df = got.to_dataframe()
    assert len(df) == len(got.events)
    assert "avg_ms" in df.columns and "avg" not in df.columns
    first = ref["blocks"][0]["events"][0]
    assert df.iloc[0]["avg_ms"] == first["avg"] and df.iloc[0]["name"] == first["name"]
    assert pandas is not None


def test_inspect_units():
    ref = cli_json("inspect", run("et_add_x10", "etdp"), "--json", "--unit", "us")
    assert etprof.inspect(run("et_add_x10", "etdp"), unit="us").to_dict() == ref
