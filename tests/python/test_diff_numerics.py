"""etprof.diff(numerics=True) against `etprof diff --numerics`: the same
"numerics" member as the CLI's --json, Diff.numerics one DataFrame row per
pair, and the usage errors (a bundle side, debug buffers without numerics)."""
import json
import os

import pytest

import etprof
from conftest import cli, run

NAME = "et_bundled_program_debug_intermediate"


def perturbed(tmp_path):
    """A copy of the debug buffer with one int32 of instruction 1's output
    changed (its offset from the CLI's own tensor list: the test of the
    offsets against flatc is tests/diff_numerics.py)."""
    rows = json.loads(cli("tensors", run(NAME, "etdp"), run(NAME, "bpte"), "--debug-buffer",
                          run(NAME, "debug.bin"), "--json"))
    items = rows["tensors"]
    off = next(t["buffer_offset"] for t in items if t["key"] == "forward_0_1/0")
    data = bytearray(open(run(NAME, "debug.bin"), "rb").read())
    data[off + 4] ^= 1
    p = tmp_path / "perturbed.bin"
    p.write_bytes(bytes(data))
    return str(p)


def test_numerics_equal_the_cli(tmp_path):
    pytest.importorskip("pandas")
    new_buf = perturbed(tmp_path)
    base = etprof.analyze(run(NAME, "etdp"), run(NAME, "bpte"), debug_buffer=run(NAME, "debug.bin"))
    new = etprof.analyze(run(NAME, "etdp"), run(NAME, "bpte"), debug_buffer=new_buf)
    with etprof.diff(base, new, numerics=True) as d:
        want = json.loads(cli("diff", run(NAME, "etdp"), run(NAME, "etdp"), "--numerics", "--json", "--quiet",
                              "--base-debug-buffer", run(NAME, "debug.bin"), "--new-debug-buffer", new_buf))
        assert d.to_dict()["numerics"] == want["numerics"] == d.numerics_summary
        df = d.numerics
        assert list(df["key"]) == [p["key"] for p in want["numerics"]["pairs"]]
        assert df.loc[df["first_divergence"], "key"].tolist() == ["forward_0_1/0"]
        assert df.loc[df["key"] == "forward_0_0/0", "snr_db"].iloc[0] == float("inf")
        out = d.publish(tmp_path / "bundle")
        assert os.path.exists(os.path.join(out, "numerics.csv"))
    base.close()
    new.close()


def test_numerics_usage_errors(tmp_path):
    base = etprof.analyze(run(NAME, "etdp"), run(NAME, "bpte"))
    with pytest.raises(etprof.Error):
        etprof.diff(base, base, base_debug_buffer=run(NAME, "debug.bin"))
    with pytest.raises(etprof.Error):
        etprof.diff(base, base, numerics=True)  # no debug buffer
    with etprof.diff(base, base, numerics=True, base_debug_buffer=run(NAME, "debug.bin"),
                     new_debug_buffer=run(NAME, "debug.bin")) as d:
        assert d.numerics_summary["first_divergence"] is None
    base.close()
