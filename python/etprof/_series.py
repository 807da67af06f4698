"""Series and regression verdicts of a run history, from the C records of
etprof/history.h to Python: the query etp_store_series() takes, the options
etp_regression_classify() takes, and their results as dicts and DataFrame
columns. The rules themselves stay in C: nothing here judges a series."""
import ctypes
import datetime
import math

from . import _errors, _lib

# The columns of History.trend(): the series' identity, its group's keys
# (one "group.KEY" column each, inserted after these), then the point.
SERIES_COLUMNS = ["series", "metric", "entity", "unit", "lower_is_better"]
POINT_COLUMNS = ["run", "run_id", "published", "published_ms", "order", "value", "samples"]
SAMPLE_COLUMNS = ["sample_count", "execution_values"]

# The verdict columns of History.regressions() (after the series' identity
# and group columns), then the change point's.
VERDICT_COLUMNS = ["points", "verdict", "reason", "baseline_points", "baseline_value",
                   "baseline_spread", "new_value", "change_pct", "z", "confidence", "ratio_lo",
                   "ratio_hi", "violations"]
CHANGE_COLUMNS = ["change_index", "change_run", "change_run_id", "change_published",
                  "change_published_ms", "change_labels"]

_UINT32_MAX = 2**32 - 1


def bytes_value(b):
    """Stored bytes as text when they are UTF-8, else as bytes (exact)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def labels(arr, n):
    """etp_history_label[n] as {key: value} (values as bytes_value gives them)."""
    return {_lib.s(arr[k].key): bytes_value(arr[k].value) for k in range(n)}


def published(ms):
    """ms since 1970 as an aware UTC datetime."""
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)


def arg(v):
    """A label key, value or name as the C side takes it: bytes stay as they
    are (a label value need not be UTF-8), anything else as UTF-8 text."""
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def names(v, what, allow_empty=False):
    """One name or a sequence of names as a list (None: empty where
    allow_empty says an empty list means the default)."""
    if v is None and allow_empty:
        return []
    if isinstance(v, (str, bytes)):
        return [v]
    try:
        out = list(v)
    except TypeError:
        raise _errors.usage(f"{what}: a name or a list of names, not {v!r}") from None
    if not out and not allow_empty:
        raise _errors.usage(f"{what}: an empty list")
    return out


def query(metric, entity, stat, order_by, include_invalid, samples, flt, group_by):
    """An etp_store_series_query (zero-filled by ctypes, as store.h asks) and
    the Python objects it points into, which must live as long as it."""
    q = _lib.StoreSeriesQuery()
    keep = []

    def c(v):
        if v is None:
            return None
        b = arg(v)
        keep.append(b)
        return b

    q.metric, q.stat, q.entity, q.order_by = c(metric), c(stat), c(entity), c(order_by)
    q.filter = flt
    if group_by:
        arr = (ctypes.c_char_p * len(group_by))(*[c(g) for g in group_by])
        keep.append(arr)
        q.group_by, q.group_by_count = arr, len(group_by)
    q.include_invalid = 1 if include_invalid else 0
    q.no_samples = 0 if samples else 1
    return q, keep


def point_record(p, samples):
    """One etp_history_point as a dict."""
    d = {"run": p.run, "run_id": _lib.s(p.run_id), "published": published(p.published_ms),
         "published_ms": p.published_ms, "order": p.order, "value": p.value,
         "samples": p.samples}
    if samples:
        n = p.sample_count if p.execution_values else 0
        d["sample_count"] = n
        d["execution_values"] = list(p.execution_values[:n]) if n else None
    d["labels"] = labels(p.labels, p.label_count)
    return d


def series_identity(s):
    """The fields that name a series (etp_history_series without its points)."""
    return {"series": _lib.s(s.key), "metric": _lib.s(s.metric), "entity": _lib.s(s.entity),
            "unit": _lib.s(s.unit), "lower_is_better": bool(s.lower_is_better),
            "group": labels(s.group, s.group_count)}


def series_record(s, samples):
    d = series_identity(s)
    d["points"] = [point_record(s.points[i], samples) for i in range(s.point_count)]
    return d


def _count(name, v):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _UINT32_MAX:
        raise _errors.usage(f"{name}: a whole number from 0 to {_UINT32_MAX}, not {v!r}")
    return v


def _number(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _errors.usage(f"{name}: a number, not {v!r}")
    return float(v)


def regression_options(window, baseline, min_baseline, threshold, z, confidence, resamples,
                       seed):
    """etp_regression_options: the library's defaults, then the arguments
    given (None: the default). The library decides which values are
    possible: an empty series is judged once here, so that impossible
    options fail even when the query finds no series."""
    o = _lib.RegressionOptions()
    _lib.lib.etp_regression_options_init(ctypes.byref(o))
    for name, field, v in (("window", "window", window), ("baseline", "baseline", baseline),
                           ("min_baseline", "min_baseline", min_baseline),
                           ("resamples", "resamples", resamples)):
        if v is not None:
            setattr(o, field, _count(name, v))
    for name, field, v in (("threshold", "threshold_pct", threshold), ("z", "z_threshold", z),
                           ("confidence", "confidence", confidence)):
        if v is not None:
            setattr(o, field, _number(name, v))
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise _errors.usage(f"seed: a whole number from 0 to 2**64-1, not {seed!r}")
        o.seed = seed
    empty = _lib.HistorySeries(key=b"", metric=b"")
    classify(empty, o)
    return o


def options_record(o):
    return {"window": o.window, "baseline": o.baseline, "min_baseline": o.min_baseline,
            "threshold": o.threshold_pct, "z": o.z_threshold, "confidence": o.confidence,
            "resamples": o.resamples, "seed": o.seed}


def classify(s, o):
    """etp_regression_classify() of one etp_history_series."""
    r = _lib.Regression()
    err = _errors.new_error()
    _errors.check(_lib.lib.etp_regression_classify(ctypes.byref(s), ctypes.byref(o),
                                                   ctypes.byref(r), ctypes.byref(err)), err)
    return r


def verdict_record(s, r):
    """A series' identity and its verdict r (an etp_regression) as a dict;
    "change" is the point where the change began (None when none)."""
    d = series_identity(s)
    d.update({
        "points": s.point_count,
        "verdict": _lib.s(_lib.lib.etp_regression_class_name(r.verdict)),
        "reason": _lib.s(r.reason), "baseline_points": r.baseline_points,
        "baseline_value": r.baseline_value, "baseline_spread": r.baseline_spread,
        "new_value": r.new_value, "change_pct": r.change_pct, "z": r.z,
        "confidence": r.confidence,
        "ratio_interval": (r.ratio_lo, r.ratio_hi) if r.has_interval else None,
        "violations": r.violations, "change": None})
    if 0 <= r.change_index < s.point_count:
        p = s.points[r.change_index]
        d["change"] = {"index": r.change_index, "run": p.run, "run_id": _lib.s(p.run_id),
                       "published": published(p.published_ms),
                       "published_ms": p.published_ms, "labels": labels(p.labels, p.label_count)}
    return d


def group_columns(records):
    """The "group.KEY" columns of series records, in the order the library
    gives the grouping keys."""
    keys = {}
    for r in records:
        keys.update(dict.fromkeys(r["group"]))
    return ["group." + k for k in keys]


def verdict_row(v):
    """A verdict record flattened into History.regressions()' columns."""
    row = {c: v[c] for c in SERIES_COLUMNS}
    row.update({"group." + k: val for k, val in v["group"].items()})
    row.update({c: v[c] for c in VERDICT_COLUMNS if c in v})
    iv = v["ratio_interval"]
    row["ratio_lo"], row["ratio_hi"] = iv if iv else (math.nan, math.nan)
    ch = v["change"] or {}
    for c in CHANGE_COLUMNS:
        row[c] = ch.get(c[len("change_"):])
    return row
