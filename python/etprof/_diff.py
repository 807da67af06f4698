"""etprof.diff(): two runs compared, as `etprof diff BASE NEW` compares them
(etprof/diff.h, etprof/diff_io.h). A side is a published result bundle
(verified by the C reader) or an Analysis in memory."""
import ctypes
import hashlib
import json
import os
import threading

from . import _errors, _lib
from ._analysis import Analysis, analyze

_s = _lib.s
_unit = _lib.unit_name
_STATISTICS = {"avg": 0, "p50": 1}
_U32 = 0xFFFFFFFF


def _file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _side(what, role):
    """A C side from a bundle directory or an Analysis: (handle, input path,
    the analysis' call options or None)."""
    out = ctypes.c_void_p()
    err = _errors.new_error()
    if isinstance(what, Analysis):
        call = what._call
        # The CLI names an ETDump side by its path and gives the ETRecord's
        # digest when one was given: the same here, so the outputs agree.
        label = os.fspath(call["etdump"])
        rec = call["etrecord"]
        rec_sha = _file_sha256(rec).encode() if rec is not None else None
        with what._lock:
            status = _lib.lib.etp_diff_side_from_analysis(
                what._handle(), _lib.path_arg(label), rec_sha, ctypes.byref(out),
                ctypes.byref(err))
        _errors.check(status, err)
        return out, label, call
    if isinstance(what, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(what))
        if os.path.exists(path) and not os.path.isdir(path):
            raise _errors.usage(f"{role}: {path} is not a bundle directory (analyse an ETDump "
                                "with etprof.analyze() and pass the Analysis)")
        status = _lib.lib.etp_diff_side_from_bundle(_lib.path_arg(path), ctypes.byref(out),
                                                    ctypes.byref(err))
        _errors.check(status, err)
        return out, path, None
    raise _errors.usage(f"{role} is a bundle directory or an etprof.Analysis, "
                        f"got {type(what).__name__}")


def _count(v, what, top=_U32):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > top:
        raise _errors.usage(f"{what} needs a count up to {top}, got {v!r}")
    return v


def _options(statistic, confidence, resamples, seed, any_method, interval_rows):
    o = _lib.DiffOptions()
    _lib.lib.etp_diff_options_init(ctypes.byref(o))
    if statistic not in _STATISTICS:
        raise _errors.usage(f"statistic is avg or p50, got {statistic!r}")
    o.statistic = _STATISTICS[statistic]
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0 < confidence < 1):
        raise _errors.usage(f"confidence needs a number between 0 and 1, got {confidence!r}")
    o.confidence = float(confidence)
    o.resamples = _count(resamples, "resamples", 1000000)
    if seed is not None:
        o.seed = _count(seed, "seed", (1 << 64) - 1)
    o.compare_methods = int(bool(any_method))
    o.interval_rows = _count(interval_rows, "interval_rows")
    return o


def _tensor_side(what, role, buffer):
    """An analysis of @what that holds its logged values (the same one when it
    was made with read_tensors=True and no other buffer is given, else the run
    analysed again with the buffer): (analysis, whether it is a new one)."""
    if not isinstance(what, Analysis):
        raise _errors.usage(f"{role} is a bundle: numerics need the runs' ETDumps and debug buffers "
                            "(pass an etprof.Analysis)")
    call = what._call
    if buffer is None and call.get("read_tensors"):
        return what, False
    buffer = buffer if buffer is not None else call.get("debug_buffer")
    if buffer is None:
        raise _errors.usage(f"numerics: no debug buffer for the {role} run: give {role}_debug_buffer= "
                            "or analyse it with debug_buffer=")
    return analyze(etdump=call["etdump"], pte=call["pte"], etrecord=call["etrecord"],
                   method=call["method"], debug_buffer=buffer, read_tensors=True), True


def _numerics(base, new, base_debug_buffer, new_debug_buffer, rtol, atol, execution):
    """The C numeric diff of two Analysis sides: (handle, the analyses it borrows, [owned ones])."""
    o = _lib.NumericDiffOptions()
    _lib.lib.etp_numeric_diff_options_init(ctypes.byref(o))
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise _errors.usage(f"{name} needs a number from 0, got {v!r}")
            setattr(o, name, float(v))
    o.execution = _count(execution, "execution", 0x7FFFFFFF)
    sides, owned = [], []
    try:
        for what, role, buf in ((base, "base", base_debug_buffer), (new, "new", new_debug_buffer)):
            a, made = _tensor_side(what, role, buf)
            sides.append(a)
            if made:
                owned.append(a)
        out = ctypes.c_void_p()
        err = _errors.new_error()
        _errors.check(_lib.lib.etp_numeric_diff_build(sides[0]._handle(), sides[1]._handle(),
                                                      ctypes.byref(o), ctypes.byref(out),
                                                      ctypes.byref(err)), err)
        return out, sides, owned
    except BaseException:
        for a in owned:
            a.close()
        raise


def diff(base, new, *, statistic="avg", confidence=0.95, resamples=2000, seed=None,
         any_method=False, interval_rows=200, metric=None, numerics=False,
         base_debug_buffer=None, new_debug_buffer=None, rtol=None, atol=None, execution=0):
    """Compare two runs as `etprof diff BASE NEW` does.

    base, new: a published result bundle directory (verified first: a
    modified bundle raises FormatError) or an etprof.Analysis (the side is
    taken from the analysis in memory, with its per-execution samples, as
    the CLI does for an ETDump). statistic: "avg" (mean) or "p50" (median).
    confidence, resamples, seed: the bootstrap intervals (resamples=0: none;
    seed None: the CLI's default). any_method: compare runs of different
    methods (with a warning). interval_rows: entity rows given an interval
    (the largest changes; 0: all). metric: a row that always gets its
    interval (the CLI's --metric when gating).
    An Analysis side is the CLI's ETDump side when it was made the way the
    CLI makes one: without a runner log (logs= adds runner-reported rows)
    and with hash_program=True (without the program digest the runs are not
    matched per instruction).
    numerics: also compare the values both runs logged, as `etprof diff
    --numerics` (both sides an Analysis; the debug buffers are
    base_debug_buffer / new_debug_buffer, else the ones the analyses were
    given); rtol, atol (None: 1e-5, 1e-8), execution: as --rtol, --atol,
    --execution. Then Diff.numerics is the pairs as a DataFrame and
    Diff.numerics_summary the "numerics" member of to_dict().
    Returns a Diff; raises MismatchError when the runs cannot be compared."""
    opt = _options(statistic, confidence, resamples, seed, any_method, interval_rows)
    if not numerics and (base_debug_buffer is not None or new_debug_buffer is not None):
        raise _errors.usage("base_debug_buffer and new_debug_buffer need numerics=True")
    num = _numerics(base, new, base_debug_buffer, new_debug_buffer, rtol, atol, execution) \
        if numerics else None
    sides, paths, calls = [], [], []
    try:
        for what, role in ((base, "base"), (new, "new")):
            h, p, c = _side(what, role)
            sides.append(h)
            paths.append(p)
            calls.append(c)
        key = metric.encode() if metric is not None else None
        opt.interval_key = key
        return Diff(sides, opt, paths, calls, key, num)
    except BaseException:
        for h in sides:
            _lib.lib.etp_diff_side_free(h)
        if num:
            _lib.lib.etp_numeric_diff_free(num[0])
            for a in num[2]:
                a.close()
        raise


def _value(v, op_type_row):
    """One side of a row, shaped as in `etprof diff --json`."""
    if not v.present:
        return None
    out = {"available": bool(v.available)}
    if not v.available:
        out["reason"] = _s(v.reason) if v.reason else "not measured"
    out["value"] = v.value if v.available else None
    for k in ("avg", "p50", "min", "max"):
        out[k] = getattr(v, k) if getattr(v, "has_" + k) else None
    out.update(n=v.n, samples=v.sample_count, additive=bool(v.additive),
               shared=bool(v.shared), share_of_execute=v.share if v.has_share else None)
    if op_type_row:
        out["members"] = v.members
    return out


_OP_TYPE = 4  # ETP_DIFF_OP_TYPE


def _row(r):
    kind = _s(_lib.lib.etp_diff_kind_name(r.kind))
    return {"kind": kind, "key": _s(r.key), "name": _s(r.name), "op_type": _s(r.op_type),
            "backend": _s(r.backend), "unit": _s(r.unit), "basis": _s(r.basis),
            "matched": bool(r.matched), "base": _value(r.base, r.kind == _OP_TYPE),
            "new": _value(r.new_, r.kind == _OP_TYPE),
            "delta": r.delta if r.has_delta else None,
            "ratio": r.ratio if r.has_ratio else None,
            "speedup": r.speedup if r.has_ratio and r.speedup > 0 else None,
            "interval": {"low": r.ci_low, "high": r.ci_high} if r.has_ci else None,
            "significant": bool(r.significant), "note": _s(r.note)}


def _identity(i):
    return {"label": _s(i.label), "origin": _s(i.origin),
            "program_sha256": _s(i.program_sha256), "etrecord_sha256": _s(i.etrecord_sha256),
            "method": _s(i.method), "time_unit": _unit(i.time_unit),
            "tick_unit": _unit(i.tick_unit) if i.has_tick_unit else None,
            "ticks_assumed": bool(i.ticks_assumed), "cpu_hz": i.cpu_hz if i.cpu_hz > 0 else None,
            "status": _s(i.status), "validity": _s(i.validity), "executions": i.executions}


# diff_rows.csv's columns, in its order (etp_diff_csv), for to_dataframe().
_SIDE_COLUMNS = ("present", "value", "avg", "p50", "min", "max", "n", "samples", "shared",
                 "share_of_execute")


def _flat(row):
    out = {k: row[k] for k in ("kind", "key", "name", "op_type", "backend", "unit", "matched")}
    for side in ("base", "new"):
        v = row[side]
        for c in _SIDE_COLUMNS:
            if c == "present":
                out[f"{side}_present"] = v is not None
            elif c == "samples":
                out[f"{side}_samples"] = v["samples"] if v else 0
            elif c == "n":
                out[f"{side}_n"] = v["n"] if v else 0
            else:
                out[f"{side}_{c}"] = v[c] if v else None
    ci = row["interval"]
    out.update(delta=row["delta"], ratio=row["ratio"], speedup=row["speedup"],
               ci_low=ci["low"] if ci else None, ci_high=ci["high"] if ci else None,
               significant=row["significant"], note=row["note"])
    return out


class Diff:
    """Two runs compared: .level and .level_reason (how rows were matched),
    .unit, .statistic, .base and .new (who each side is), .warnings, .findings, .rows
    (every row as a dict shaped like a row of `etprof diff --json`), .row(key),
    .to_dict(), .to_json(), .to_csv(), .to_dataframe(), .gate(pct),
    .publish(dir). The values are copied out of the C result when computed;
    close() (a with block, or garbage collection) frees the C memory, after
    which gate() and publish() refuse."""

    def __init__(self, sides, opt, paths, calls, key=None, numerics=None):
        # Until the diff is computed the caller owns the sides (it frees
        # them when computing fails); from then on this object does.
        self._sides, self._d, self._lock = [], None, threading.Lock()
        self._nd = None
        self.numerics_summary = None
        self._opt, self._paths, self._calls = opt, paths, calls
        self._key = key  # keeps opt.interval_key's bytes alive
        self._d = self._compute(opt, sides)
        self._sides = sides
        d = self._d.contents
        self.level = _s(d.level_name)
        self.level_reason = _s(d.level_reason)
        self.statistic = _s(d.statistic_name)
        self.unit = _s(d.unit)
        self.confidence, self.resamples, self.seed = d.confidence, d.resamples, d.seed
        self.base, self.new = _identity(d.base), _identity(d.new_)
        self.warnings = [{"code": _s(w.code), "message": _s(w.message)}
                         for w in (d.warnings[i] for i in range(d.warning_count))]
        self.rows = [_row(d.rows[i]) for i in range(d.row_count)]
        if numerics:
            # The numeric diff borrows the analyses: they are kept until close().
            self._nd, self._nd_analyses, self._nd_owned = numerics
            self.numerics_summary = json.loads(_lib.text(_lib.lib.etp_numeric_diff_json(self._nd, None)))

    @property
    def numerics(self):
        """The pairs of logged values compared (diff(numerics=True)) as a
        pandas DataFrame, one row per pair with numerics.csv's figures (snr_db
        a float, +inf for an exact match); None without numerics."""
        if self.numerics_summary is None:
            return None
        try:
            import pandas
        except ImportError as e:
            raise ImportError("etprof: Diff.numerics needs pandas (apt-get install python3-pandas)") from e
        cols = ["key", "new_key", "level", "order", "origin", "base_dtype", "new_dtype", "base_shape",
                "new_shape", "compared", "reason", "quantized", "primary", "count", "mse", "mae",
                "max_abs_err", "snr_db", "cosine", "mismatches", "nonfinite_diff", "diverged"]
        first = (self.numerics_summary.get("first_divergence") or {}).get("key")
        largest = (self.numerics_summary.get("largest") or {}).get("key")
        rows = []
        for p in self.numerics_summary["pairs"]:
            r = {c: p.get(c) for c in cols}
            v = r["snr_db"]
            r["snr_db"] = float(v) if isinstance(v, str) else (float("nan") if v is None else v)
            r["cosine"] = float("nan") if r["cosine"] is None else r["cosine"]
            r["first_divergence"] = p["key"] == first
            r["largest"] = p["key"] == largest
            rows.append(r)
        return pandas.DataFrame(rows, columns=cols + ["first_divergence", "largest"])

    def _compute(self, opt, sides):
        out = ctypes.POINTER(_lib.Diff)()
        err = _errors.new_error()
        status = _lib.lib.etp_diff_compute(sides[0], sides[1], ctypes.byref(opt),
                                           ctypes.byref(out), ctypes.byref(err))
        _errors.check(status, err)
        return out

    # ---- lifetime ----
    def close(self):
        """Free the C diff and both sides now (idempotent)."""
        with self._lock:
            d, sides, nd = self._d, self._sides, self._nd
            self._d, self._sides, self._nd = None, [], None
            if nd:
                _lib.lib.etp_numeric_diff_free(nd)
                for a in self._nd_owned:
                    a.close()
                self._nd_analyses = self._nd_owned = ()
            if d:
                _lib.lib.etp_diff_free(d)
            for h in sides:
                _lib.lib.etp_diff_side_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if not self._d:
            raise _errors.usage("the diff is closed")
        return self._d

    # ---- rows ----
    def _index(self, key):
        """The CLI's --metric lookup: a model figure by name, else the first
        row with that key."""
        for i, r in enumerate(self.rows):
            if r["kind"] == "model" and r["key"] == key:
                return i
        return next((i for i, r in enumerate(self.rows) if r["key"] == key), None)

    def row(self, key, kind=None):
        """The row keyed @key ("method_execute", an instruction id, an
        operator name, "BACKEND/OP_TYPE"), of @kind when given; None when
        absent."""
        if kind is None:
            i = self._index(key)
            return None if i is None else self.rows[i]
        return next((r for r in self.rows if r["kind"] == kind and r["key"] == key), None)

    def _ensure_interval(self, key):
        """Give row @key its interval as the CLI's gate does (the gated row
        always gets one, whatever interval_rows): computed again with that
        row named when it had none for that reason alone."""
        with self._lock:
            i = self._index(key)
            note = self.rows[i]["note"] if i is not None else None
            if not note or not note.startswith("interval not computed"):
                return
            if self._key is not None and self._key == key.encode():
                return
            if not self._d:
                raise _errors.usage("the diff is closed")
            opt = _lib.DiffOptions.from_buffer_copy(self._opt)
            key_b = key.encode()
            opt.interval_key = key_b
            d = self._compute(opt, self._sides)
            _lib.lib.etp_diff_free(self._d)
            self._d, self._opt, self._key = d, opt, key_b
            c = d.contents
            self.rows = [_row(c.rows[j]) for j in range(c.row_count)]

    # ---- the CI gate ----
    def _gate(self, pct, metric, no_significance):
        """The library's gate decision (etp_diff_gate_decide, as the CLI's
        --fail-if-slower takes it): (failed, reason, the gate's JSON text)."""
        if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not (
                0 <= pct <= 1e6):
            raise _errors.usage(f"fail_if_slower needs a percentage >= 0, got {pct!r}")
        self._ensure_interval(metric)
        g = _lib.DiffGateOutcome()
        err = _errors.new_error()
        metric_b = metric.encode()
        with self._lock:
            _errors.check(_lib.lib.etp_diff_gate_decide(
                self._handle(), metric_b, float(pct), int(bool(no_significance)),
                ctypes.byref(g), ctypes.byref(err)), err)
            text = _lib.text(_lib.lib.etp_diff_gate_json(ctypes.byref(g)))
        return bool(g.failed), _s(g.reason), text

    def gate(self, pct, metric="method_execute", no_significance=False):
        """The CI gate of `etprof diff --fail-if-slower PCT --metric METRIC`:
        (failed, reason). failed is True exactly when the CLI exits 3: the
        row's ratio exceeds 1 + pct/100 and its interval lies above 1 (or,
        with no_significance and no interval, on the ratio alone)."""
        failed, reason, _ = self._gate(pct, metric, no_significance)
        return failed, reason

    def _gate_text(self, fail_if_slower, metric, no_significance):
        if fail_if_slower is None:
            return None
        return self._gate(fail_if_slower, metric, no_significance)[2]

    # ---- outputs ----
    def to_json(self, fail_if_slower=None, metric="method_execute", no_significance=False):
        """The text `etprof diff --json` prints (with --fail-if-slower and its
        options when fail_if_slower is given: then with the "gate" member)."""
        gate = self._gate_text(fail_if_slower, metric, no_significance)
        with self._lock:
            nj = _lib.text(_lib.lib.etp_numeric_diff_json(self._nd, None)).encode() if self._nd else None
            return _lib.text(_lib.lib.etp_diff_json_with_numerics(
                self._handle(), gate.encode() if gate else None, nj, None))

    @property
    def findings(self):
        """The findings that appeared, disappeared or were kept, as `etprof
        diff --json` lists them ({change, code, severity, base, new, entities
        [{id, base, new}]}); None when a side's findings are unknown (a bundle
        written before etprof had them). Read once, on first use."""
        if not hasattr(self, "_findings"):
            self._findings = self.to_dict()["findings"]
        return self._findings

    def to_dict(self, fail_if_slower=None, metric="method_execute", no_significance=False):
        """`etprof diff --json` as a dict (schema etprof.diff v1)."""
        return json.loads(self.to_json(fail_if_slower, metric, no_significance))

    def to_csv(self):
        """The text `etprof diff --csv` prints (diff_rows.csv of a diff bundle)."""
        with self._lock:
            return _lib.text(_lib.lib.etp_diff_csv(self._handle(), None))

    def to_dataframe(self):
        """Every row as a pandas DataFrame with diff_rows.csv's columns
        (base_value, new_value, delta, ratio, ci_low, ci_high, ...; values in
        each row's unit). Needs pandas."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("etprof: to_dataframe() needs pandas "
                              "(apt-get install python3-pandas)") from e
        flat = [_flat(r) for r in self.rows]
        columns = list(_flat(self.rows[0]).keys()) if self.rows else []
        return pandas.DataFrame(flat, columns=columns)

    def _options_json(self, rank, top, gate):
        """The options `etprof diff -o` records in the bundle's provenance
        (etp_diff_options_json; the analysis options of the first Analysis
        side, as the CLI records those it analysed ETDumps with)."""
        calls = [c for c in self._calls if c]
        ao = ctypes.byref(calls[0]["_c_options"]) if calls else None
        g = None
        if gate is not None:
            pct, metric, no_significance = gate
            g = _lib.DiffGateOutcome(metric=metric.encode(), threshold_pct=float(pct),
                                     no_significance=int(bool(no_significance)))
        return _lib.text(_lib.lib.etp_diff_options_json(
            ctypes.byref(self._opt), rank, top, ctypes.byref(g) if g is not None else None, ao))

    def publish(self, directory, top=15, rank_by="abs", fail_if_slower=None,
                metric="method_execute", no_significance=False, force=False, parents=False):
        """Publish the diff bundle `etprof diff BASE NEW -o DIR` writes
        (diff_summary.json, diff_rows.csv, diff.html, result_manifest.json
        last; staged and swapped into place). top: entity rows on the page;
        rank_by is recorded with the options; fail_if_slower (a percentage)
        records the gate's outcome as --fail-if-slower does. Returns the
        directory."""
        rank = ctypes.c_int()
        if not isinstance(rank_by, str) or _lib.lib.etp_diff_rank_parse(rank_by.encode(),
                                                                         ctypes.byref(rank)):
            raise _errors.usage(f"rank_by is abs, delta, ratio, base or new, got {rank_by!r}")
        top = _count(top, "top", 10000000)
        gate = self._gate_text(fail_if_slower, metric, no_significance)
        oj = self._options_json(rank.value, top, (fail_if_slower, metric, no_significance)
                                if fail_if_slower is not None else None)
        keep = [_lib.path_arg(directory), _lib.path_arg(self._paths[0]),
                _lib.path_arg(self._paths[1]), oj.encode(), gate.encode() if gate else None]
        po = _lib.DiffPublishOptions(keep[0], (1 if force else 0) | (2 if parents else 0),
                                     keep[1], keep[2], keep[3], keep[4], top, self._nd)
        err = _errors.new_error()
        with self._lock:
            status = _lib.lib.etp_diff_publish(self._handle(), ctypes.byref(po),
                                               ctypes.byref(err))
        _errors.check(status, err)
        return os.fspath(directory)

    def __repr__(self):
        return (f"<etprof.Diff {self.level}, {len(self.rows)} rows, {self.unit}"
                f"{', closed' if not self._d else ''}>")
