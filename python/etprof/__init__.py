"""etprof: profile ExecuTorch runs from Python, over libetprof.

    import etprof
    with etprof.analyze("run.etdp", pte="model.pte", etrecord="model.etrecord") as a:
        print(a.validity, a.figure("method_execute")["avg"], a.unit)
        df = a.to_dataframe()          # operators.csv as a DataFrame (pandas)
        a.publish("result")            # a verifiable bundle, as `etprof analyze -o`
    with etprof.diff("base_result", a) as d:   # bundles and/or Analysis objects
        print(d.level, d.row("method_execute")["ratio"], d.gate(5))
    with etprof.History("runs.db") as h:       # the run history `etprof db` keeps
        df = h.runs(where={"device": "pixel7"}, since="7d")
        t = h.trend("method_execute.avg", order_by="seq")  # a row per point of each series
        v = h.regressions()                     # a verdict per series (etp_regression_classify)

The library is found from ETPROF_LIBRARY, a build tree this package sits in
(../build), or an install prefix (`cmake --install build`)."""
from ._errors import (Error, FormatError, InternalError, LimitError, MismatchError,
                      OutOfMemoryError, ReadError, TruncatedError, UsageError)
from ._analysis import Analysis, analyze
from ._inspect import Inspection, inspect
from ._bundle import Bundle, load_result_manifest, open_bundle
from ._diff import Diff, diff
from ._history import History
from . import _lib

__version__ = "0.1.0"


def library_path():
    """The libetprof.so this package loaded."""
    return _lib.lib.path


__all__ = ["analyze", "Analysis", "inspect", "Inspection", "open_bundle",
           "load_result_manifest", "Bundle", "diff", "Diff", "History", "library_path", "Error", "ReadError",
           "FormatError", "TruncatedError", "LimitError", "OutOfMemoryError", "MismatchError",
           "UsageError", "InternalError"]
