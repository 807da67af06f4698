"""The run history: etprof.History(target) over etprof/store.h, the store
`etprof db` writes (a SQLite file or a postgresql:// URL)."""
import contextlib
import ctypes
import datetime
import os
import re
import threading

from . import _errors, _lib, _series
from ._series import arg as _arg, labels as _labels, published as _published
from ._series import bytes_value as _bytes_value

# The run columns of History.runs() (`unit`: the run's time unit).
RUN_COLUMNS = ["run", "run_id", "published", "published_ms", "validity", "method", "unit",
               "executions", "detailed", "program_sha256", "tool_version", "manifest_sha256",
               "bundle"]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_MS = {"s": 1000, "m": 60000, "h": 3600000, "d": 86400000, "w": 604800000}


def _since_ms(since):
    """A publication-time lower bound: a datetime (naive = UTC), ms since
    1970 (int), an RFC 3339 date or time, or a duration back from now
    ("7d", "12h", "30m", "90s", "2w"), as `etprof db runs --since` takes."""
    if isinstance(since, datetime.datetime):
        if since.tzinfo is None:
            since = since.replace(tzinfo=datetime.timezone.utc)
        return int(since.timestamp() * 1000)
    if isinstance(since, datetime.date):
        return int(datetime.datetime(since.year, since.month, since.day,
                                     tzinfo=datetime.timezone.utc).timestamp() * 1000)
    if isinstance(since, int):
        return since
    m = _DURATION.match(str(since))
    if m:
        now = datetime.datetime.now(datetime.timezone.utc)
        return int(now.timestamp() * 1000) - int(float(m.group(1)) * _UNIT_MS[m.group(2)])
    try:
        t = datetime.datetime.fromisoformat(str(since).replace("Z", "+00:00"))
    except ValueError:
        raise _errors.usage(f"since: not a time, date or duration: {since!r}") from None
    return _since_ms(t)


def _pandas(method):
    try:
        import pandas
    except ImportError as e:
        raise ImportError(f"etprof: History.{method}() needs pandas "
                          "(apt-get install python3-pandas)") from e
    return pandas


class History:
    """A run history (etprof/store.h): `target` is a SQLite file or a
    postgresql:// URL (default: $ETPROF_DB), opened for reading; the schema
    must be this library's (`etprof db migrate`). A password in the target
    never appears in messages (.target shows it as ***).

        with etprof.History("runs.db") as h:
            df = h.runs(where={"device": "pixel7"}, since="7d")
            t = h.trend("method_execute.avg", order_by="seq")
            v = h.regressions(window=3)

    One connection: use an object from one thread at a time (the calls
    release the GIL). close() (or the end of a `with`, or collection) closes
    it."""

    def __init__(self, target=None):
        target = target if target is not None else os.environ.get("ETPROF_DB")
        if not target:
            raise _errors.usage("History: no target (a SQLite file or postgresql:// URL, "
                                "or ETPROF_DB)")
        handle = ctypes.c_void_p()
        err = _errors.new_error()
        _errors.check(_lib.lib.etp_store_open(_lib.path_arg(target), 0, ctypes.byref(handle),
                                              ctypes.byref(err)), err)
        self._store = handle
        self._lock = threading.Lock()
        self.engine = _lib.s(_lib.lib.etp_store_engine(handle))
        self.target = _lib.s(_lib.lib.etp_store_display(handle))

    def close(self):
        with self._lock:
            if self._store:
                _lib.lib.etp_store_close(self._store)
                self._store = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_store", None):
            self.close()

    def _filter(self, where, since):
        f = _lib.StoreFilter()
        keep = []
        if where:
            items = list(where.items())
            arr = (_lib.Label * len(items))()
            for i, (k, v) in enumerate(items):
                kb, vb = _arg(k), _arg(v)
                keep += [kb, vb]
                arr[i].key, arr[i].value = kb, vb
            f.where, f.where_count = arr, len(items)
            keep.append(arr)
        if since is not None:
            f.has_since, f.since_ms = 1, _since_ms(since)
        return f, keep

    def _query(self, fn, what, out):
        """fn(store, &what, &out, &err), one of the store's queries, on this
        object's connection (one call at a time)."""
        err = _errors.new_error()
        with self._lock:
            if not self._store:
                raise _errors.usage("History: closed")
            _errors.check(fn(self._store, ctypes.byref(what), ctypes.byref(out),
                             ctypes.byref(err)), err)

    def run_records(self, where=None, since=None):
        """The stored runs (where: {label or run field: value}, every one must
        hold; since: see runs()), oldest first, as dicts: the run's fields
        and "labels" {key: value} (text, or bytes where not UTF-8)."""
        f, keep = self._filter(where, since)
        out = ctypes.POINTER(_lib.StoreRuns)()
        self._query(_lib.lib.etp_store_list_runs, f, out)
        del keep
        try:
            runs = []
            for i in range(out.contents.count):
                r = out.contents.runs[i]
                runs.append({
                    "run": r.run, "run_id": _lib.s(r.run_id),
                    "published": _published(r.published_ms),
                    "published_ms": r.published_ms, "validity": _lib.s(r.validity),
                    "method": _lib.s(r.method), "unit": _lib.s(r.time_unit),
                    "executions": r.executions, "detailed": bool(r.detailed),
                    "program_sha256": _lib.s(r.program_sha256),
                    "tool_version": _lib.s(r.tool_version),
                    "manifest_sha256": _lib.s(r.manifest_sha256),
                    "bundle": _bytes_value(r.bundle),
                    "labels": _labels(r.labels, r.label_count)})
            return runs
        finally:
            _lib.lib.etp_store_runs_free(out)

    def runs(self, where=None, since=None):
        """The stored runs as a pandas DataFrame, oldest first: the columns of
        `etprof db runs --csv` (published as a UTC timestamp), then one
        "label.KEY" column per label key (None where a run lacks it).
        where: {label or run field (program, method, unit, validity, ...):
        value}; since: a datetime, ms since 1970, an RFC 3339 date or time,
        or a duration back from now ("7d"). Needs pandas."""
        pandas = _pandas("runs")
        records = self.run_records(where, since)
        keys = sorted({k for r in records for k in r["labels"]})
        data = {c: [r[c] for r in records] for c in RUN_COLUMNS}
        data["published"] = pandas.to_datetime(data["published_ms"], unit="ms", utc=True)
        for k in keys:
            data["label." + k] = [r["labels"].get(k) for r in records]
        return pandas.DataFrame(data, columns=RUN_COLUMNS + ["label." + k for k in keys])

    # ---- series ---------------------------------------------------------------

    @contextlib.contextmanager
    def _series_set(self, metric, entity, stat, where, since, group_by, order_by,
                    include_invalid, samples):
        """etp_store_series(): the series (etp_history_series) of one query,
        valid inside the `with` only."""
        f, keep_f = self._filter(where, since)
        q, keep_q = _series.query(metric, entity, stat, order_by, include_invalid, samples, f,
                                  _series.names(group_by, "group_by", allow_empty=True))
        out = ctypes.POINTER(_lib.HistorySeriesSet)()
        self._query(_lib.lib.etp_store_series, q, out)
        del keep_f, keep_q
        try:
            n = out.contents.count if out else 0
            yield [out.contents.series[i] for i in range(n)]
        finally:
            _lib.lib.etp_history_series_free(out)

    def series_records(self, metric, entity=None, stat=None, where=None, since=None,
                       group_by=None, order_by=None, include_invalid=False, samples=False):
        """The series of one quantity, as `etprof db trend --json` has them:
        a list of dicts sorted by series key, each with "series" (the key),
        "metric", "entity" (None for a model metric), "unit",
        "lower_is_better", "group" {grouping key: this group's value} and
        "points" (ascending by order, ties by run), each point a dict of
        run, run_id, published (UTC datetime), published_ms, order, value,
        samples (executions behind the value) and labels {key: value}; with
        samples=True also sample_count and execution_values (the stored
        per-execution values of a --detailed run, or None). The arguments:
        see trend()."""
        with self._series_set(metric, entity, stat, where, since, group_by, order_by,
                              include_invalid, samples) as series:
            return [_series.series_record(s, samples) for s in series]

    def trend(self, metric, entity=None, stat=None, where=None, since=None, group_by=None,
              order_by=None, include_invalid=False, samples=False):
        """The points of one quantity over time as a pandas DataFrame, one row
        per point, series after series (sorted by key), each series' points in
        order: the columns series, metric, entity, unit, lower_is_better,
        then one "group.KEY" column per grouping key (this series' value of
        it), then run, run_id, published (UTC timestamp), published_ms,
        order, value, samples, with samples=True sample_count and
        execution_values (a list, or None for a run stored without them),
        and labels (a dict of the run's labels; bytes where not UTF-8).

        metric: a summary metric ("method_execute.avg"), or with stat its
        base name ("method_execute"); entity: an entity's stable key (the
        entity_id of operators.csv) for that entity's statistic stat (avg,
        p10, p50, p90, min, max, kernel_avg, dispatch_avg; default avg);
        where, since: which runs (see runs()); group_by: a run field or label
        key, or a list of them (default: program, method, device); order_by:
        a label holding numbers (e.g. "seq") to order points by instead of
        the publication time (runs without a number there are left out);
        include_invalid: also runs whose validity is "invalid". Needs pandas.
        """
        pandas = _pandas("trend")
        records = self.series_records(metric, entity, stat, where, since, group_by, order_by,
                                      include_invalid, samples)
        groups = _series.group_columns(records)
        columns = (_series.SERIES_COLUMNS + groups + _series.POINT_COLUMNS
                   + (_series.SAMPLE_COLUMNS if samples else []) + ["labels"])
        data = {c: [] for c in columns}
        for s in records:
            for p in s["points"]:
                for c in _series.SERIES_COLUMNS:
                    data[c].append(s[c])
                for c in groups:
                    data[c].append(s["group"].get(c[len("group."):]))
                for c in columns[len(_series.SERIES_COLUMNS) + len(groups):]:
                    data[c].append(p[c])
        data["published"] = pandas.to_datetime(data["published_ms"], unit="ms", utc=True)
        return pandas.DataFrame(data, columns=columns)

    # ---- regressions ------------------------------------------------------------

    def regression_records(self, metric="method_execute.avg", entity=None, stat=None,
                           where=None, since=None, group_by=None, order_by=None,
                           include_invalid=False, window=None, baseline=None,
                           min_baseline=None, threshold=None, z=None, confidence=None,
                           resamples=None, seed=None):
        """The verdict on every series of each metric, as `etprof db
        regressions --json` has them: a list of dicts, metric after metric,
        series sorted by key, each with the series' identity (see
        series_records(), without points), "points" (how many), the verdict
        of the library's classifier (etp_regression_classify:
        docs/history.md states the rule) and "change": the point where the
        change began, {index, run, run_id, published, published_ms, labels},
        or None. The arguments: see regressions()."""
        return self._judge(metric, entity, stat, where, since, group_by, order_by,
                           include_invalid, window, baseline, min_baseline, threshold, z,
                           confidence, resamples, seed)[1]

    def _judge(self, metric, entity, stat, where, since, group_by, order_by, include_invalid,
               *options):
        """The regression options (etp_regression_options) and the verdicts."""
        o = _series.regression_options(*options)
        out = []
        for m in _series.names(metric, "metric"):
            with self._series_set(m, entity, stat, where, since, group_by, order_by,
                                  include_invalid, True) as series:
                out += [_series.verdict_record(s, _series.classify(s, o)) for s in series]
        return o, out

    def regressions(self, metric="method_execute.avg", entity=None, stat=None, where=None,
                    since=None, group_by=None, order_by=None, include_invalid=False,
                    window=None, baseline=None, min_baseline=None, threshold=None, z=None,
                    confidence=None, resamples=None, seed=None):
        """Each series judged by the library's regression rule, as a pandas
        DataFrame with one row per series: series, metric, entity, unit,
        lower_is_better, the "group.KEY" columns, points, verdict
        ("regression", "suspicious", "insufficient_data" or "ok"), reason,
        baseline_points, baseline_value, baseline_spread, new_value,
        change_pct, z, confidence, ratio_lo and ratio_hi (the bootstrap
        interval of new/baseline; NaN without per-execution samples),
        violations, and the change point: change_index (in the series'
        points), change_run, change_run_id, change_published,
        change_published_ms, change_labels (None / NaT / <NA> when none).
        df.attrs["options"] holds the options the verdicts were reached with.

        metric: one metric or a list (default "method_execute.avg"); entity,
        stat, where, since, group_by, order_by, include_invalid: which series,
        as in trend(). The rule's options (None: the library's defaults):
        window (newest points judged, 5), baseline (points before them, 20),
        min_baseline (5), threshold (percent, 5), z (noise units, 3),
        confidence (of the bootstrap interval, 0.95), resamples (2000; 0: no
        bootstrap), seed. Impossible options raise etprof.UsageError, as
        `etprof db regressions` exits 2 on them. Needs pandas."""
        pandas = _pandas("regressions")
        o, records = self._judge(metric, entity, stat, where, since, group_by, order_by,
                                 include_invalid, window, baseline, min_baseline, threshold, z,
                                 confidence, resamples, seed)
        groups = _series.group_columns(records)
        columns = (_series.SERIES_COLUMNS + groups + _series.VERDICT_COLUMNS
                   + _series.CHANGE_COLUMNS)
        rows = [_series.verdict_row(v) for v in records]
        data = {c: [r.get(c) for r in rows] for c in columns}
        for c in ("change_index", "change_run", "change_published_ms"):
            data[c] = pandas.array(data[c], dtype="Int64")
        data["change_published"] = pandas.to_datetime(
            [None if ms is pandas.NA else int(ms) for ms in data["change_published_ms"]],
            unit="ms", utc=True)
        df = pandas.DataFrame(data, columns=columns)
        df.attrs["options"] = _series.options_record(o)
        return df
