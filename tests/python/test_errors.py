"""Bad inputs raise etprof.Error subclasses carrying the C error: code,
message, file and offset, the same line the CLI prints."""
import pytest

import etprof
from conftest import cli, run


def cli_error_line(*args):
    p = cli(*args, check=False)
    assert p.returncode != 0
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("etprof: ")
    return line[len("etprof: "):], p.returncode


def check_same_as_cli(exc, cli_args):
    line, rc = cli_error_line(*cli_args)
    assert str(exc) == line
    return rc


def check_cli_refuses_the_file(exc, cli_args, kind_words):
    """For a file of the wrong kind the CLI words its own check of the file's
    kind (it knows which option named it); the library's error is the
    reader's. Both name the file and fail with status 1."""
    line, rc = cli_error_line(*cli_args)
    assert rc == 1
    assert line.startswith(exc.file + " ") or line.startswith(exc.file + ":")
    assert kind_words in line
    assert str(exc).startswith(exc.file + ": ")


def test_truncated_etdump(tmp_path):
    bad = tmp_path / "cut.etdp"
    bad.write_bytes(open(run("et_add_x10", "etdp"), "rb").read()[:1500])
    with pytest.raises(etprof.TruncatedError) as e:
        etprof.analyze(bad, pte=run("et_add_x10"))
    assert isinstance(e.value, etprof.FormatError) and isinstance(e.value, etprof.Error)
    assert e.value.code == "truncated" and e.value.file == str(bad)
    assert e.value.offset == 1500
    assert check_same_as_cli(e.value, ["analyze", "--etdump", str(bad), "--pte",
                                       run("et_add_x10")]) == 1


def test_not_an_etdump():
    with pytest.raises(etprof.FormatError) as e:
        etprof.analyze(run("et_add_x10"), pte=run("et_add_x10"))
    assert e.value.code == "format" and e.value.offset is not None
    assert "not an ETDump" in e.value.message
    check_cli_refuses_the_file(e.value, ["analyze", "--etdump", run("et_add_x10"), "--pte",
                                         run("et_add_x10")], "not an ETDump")


def test_garbage_program(tmp_path):
    bad = tmp_path / "noise.pte"
    bad.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(etprof.FormatError) as e:
        etprof.analyze(run("et_add_x10", "etdp"), pte=bad)
    assert e.value.file == str(bad)
    assert "not an ExecuTorch program" in e.value.message
    check_cli_refuses_the_file(e.value, ["analyze", "--etdump", run("et_add_x10", "etdp"),
                                         "--pte", str(bad)], "not a program")


def test_missing_file():
    with pytest.raises(etprof.ReadError) as e:
        etprof.analyze("/nonexistent/run.etdp", pte=run("et_add_x10"))
    assert e.value.file == "/nonexistent/run.etdp" and e.value.offset is None
    check_same_as_cli(e.value, ["analyze", "--etdump", "/nonexistent/run.etdp", "--pte",
                                run("et_add_x10")])


def test_inputs_that_disagree():
    with pytest.raises(etprof.MismatchError) as e:
        etprof.analyze(run("cm_et_arduino_kws_x10", "etdp"), pte=run("et_add_x10"))
    assert e.value.code == "mismatch"
    check_same_as_cli(e.value, ["analyze", "--etdump", run("cm_et_arduino_kws_x10", "etdp"),
                                "--pte", run("et_add_x10")])


def test_impossible_requests():
    with pytest.raises(etprof.UsageError) as e:
        etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"), method="nope")
    assert "no method named 'nope'" in e.value.message
    assert isinstance(e.value, ValueError)
    with pytest.raises(etprof.UsageError):
        etprof.analyze(run("et_add_x10", "etdp"))
    with pytest.raises(etprof.UsageError):
        etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"), unit="hours")
    with pytest.raises(etprof.UsageError):
        etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"), unit="cycles")
    with pytest.raises(etprof.UsageError):
        etprof.inspect(run("et_add_x10", "etdp"), method="forward")
    # As many logs as `analyze --log` takes (16), not more.
    with pytest.raises(etprof.UsageError):
        etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"),
                       logs=[run("et_add_x10", "log")] * 17)


def test_bad_runner_log(tmp_path):
    log = tmp_path / "noise.log"
    log.write_bytes(b"\xff\xfe" * 100000)
    p = cli("analyze", "--etdump", run("et_add_x10", "etdp"), "--pte", run("et_add_x10"),
            "--log", str(log), "--quiet", check=False)
    if p.returncode == 0:
        with etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"), logs=log) as a:
            assert a.validity in ("valid", "degraded", "invalid")
    else:
        with pytest.raises(etprof.Error) as e:
            etprof.analyze(run("et_add_x10", "etdp"), pte=run("et_add_x10"), logs=log)
        assert str(e.value) == p.stderr.strip().splitlines()[-1][len("etprof: "):]
