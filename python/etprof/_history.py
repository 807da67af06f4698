"""The run history: etprof.History(target) over etprof/store.h, the store
`etprof db` writes (a SQLite file or a postgresql:// URL)."""
import ctypes
import datetime
import os
import re
import threading

from . import _errors, _lib

# The run columns of History.runs(), as `etprof db runs --csv` names them.
RUN_COLUMNS = ["run", "run_id", "published", "published_ms", "validity", "method", "unit",
               "executions", "detailed", "program_sha256", "tool_version", "manifest_sha256",
               "bundle"]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_MS = {"s": 1000, "m": 60000, "h": 3600000, "d": 86400000, "w": 604800000}


def _bytes_value(b):
    """Stored bytes as text when they are UTF-8, else as bytes (exact)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def _arg(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


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


class History:
    """A run history (etprof/store.h): `target` is a SQLite file or a
    postgresql:// URL (default: $ETPROF_DB), opened for reading; the schema
    must be this library's (`etprof db migrate`). A password in the target
    never appears in messages (.target shows it as ***).

        with etprof.History("runs.db") as h:
            df = h.runs(where={"device": "pixel7"}, since="7d")

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

    def run_records(self, where=None, since=None):
        """The stored runs (where: {label or run field: value}, every one must
        hold; since: see runs()), oldest first, as dicts: the run's fields
        and "labels" {key: value} (text, or bytes where not UTF-8)."""
        f, keep = self._filter(where, since)
        out = ctypes.POINTER(_lib.StoreRuns)()
        err = _errors.new_error()
        with self._lock:
            if not self._store:
                raise _errors.usage("History: closed")
            _errors.check(_lib.lib.etp_store_list_runs(self._store, ctypes.byref(f),
                                                       ctypes.byref(out), ctypes.byref(err)), err)
        del keep
        try:
            runs = []
            for i in range(out.contents.count):
                r = out.contents.runs[i]
                ms = r.published_ms
                runs.append({
                    "run": r.run, "run_id": _lib.s(r.run_id),
                    "published": datetime.datetime.fromtimestamp(ms / 1000,
                                                                 datetime.timezone.utc),
                    "published_ms": ms, "validity": _lib.s(r.validity),
                    "method": _lib.s(r.method), "unit": _lib.s(r.time_unit),
                    "executions": r.executions, "detailed": bool(r.detailed),
                    "program_sha256": _lib.s(r.program_sha256),
                    "tool_version": _lib.s(r.tool_version),
                    "manifest_sha256": _lib.s(r.manifest_sha256),
                    "bundle": _bytes_value(r.bundle),
                    "labels": {_lib.s(r.labels[k].key): _bytes_value(r.labels[k].value)
                               for k in range(r.label_count)}})
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
        try:
            import pandas
        except ImportError as e:
            raise ImportError("etprof: History.runs() needs pandas "
                              "(apt-get install python3-pandas)") from e
        records = self.run_records(where, since)
        keys = sorted({k for r in records for k in r["labels"]})
        data = {c: [r[c] for r in records] for c in RUN_COLUMNS}
        data["published"] = pandas.to_datetime(data["published_ms"], unit="ms", utc=True)
        for k in keys:
            data["label." + k] = [r["labels"].get(k) for r in records]
        return pandas.DataFrame(data, columns=RUN_COLUMNS + ["label." + k for k in keys])
