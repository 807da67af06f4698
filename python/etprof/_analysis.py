"""etprof.analyze() and the Analysis it returns."""
import ctypes
import json
import os
import threading

from . import _errors, _lib, _table


def unit_code(name, what):
    u = ctypes.c_int()
    if name is None or _lib.lib.etp_unit_parse(name.encode(), ctypes.byref(u)):
        raise _errors.usage(f"{what} is one of {', '.join(_lib.tick_unit_names())}, got {name!r}")
    return u.value


def check_units(source, target, cpu_hz):
    """The library's units rule (etp_units_check, as the CLI applies it):
    cycles on both sides, or cycles converted to time at cpu_hz; cpu_hz
    only with cycles. Returns the (source, target) unit codes."""
    if cpu_hz is not None and not cpu_hz > 0:
        raise _errors.usage(f"cpu_hz must be a positive number, got {cpu_hz!r}")
    sc, tc = unit_code(source, "source_unit"), unit_code(target, "unit")
    err = _errors.new_error()
    _errors.check(_lib.lib.etp_units_check(sc, tc, float(cpu_hz or 0.0), ctypes.byref(err)), err)
    return sc, tc


def open_inputs(etdump, pte=None, etrecord=None, log=None, prepare=None):
    """etp_inputs_open(): the inputs as one C object (the caller frees it)."""
    if etdump is None:
        raise _errors.usage("an ETDump is required")
    keep = [_lib.path_arg(p) for p in (etdump, pte, etrecord, log)]
    spec = _lib.InputsSpec(*keep, ctypes.pointer(prepare) if prepare is not None else None, 0)
    out = ctypes.c_void_p()
    err = _errors.new_error()
    _errors.check(_lib.lib.etp_inputs_open(ctypes.byref(spec), ctypes.byref(out),
                                           ctypes.byref(err)), err)
    return out


def analyze(etdump, pte=None, etrecord=None, logs=(), method=None, source_unit=None,
            unit="ms", cpu_hz=None, hash_program=True, debug_buffer=None, findings=None):
    """Analyse a run: the ETDump with its program (.pte/.bpte) and/or ETRecord,
    optionally the runner's log, as `etprof analyze` does.

    logs: the runner's output (one path, or a sequence of at most one path).
    source_unit: unit of the ETDump ticks (None: ns assumed, and reported as
    an issue). unit: unit of the results. cpu_hz: convert cycle ticks.
    hash_program: record the program's SHA-256 (publish() needs it for the
    Model Explorer views). debug_buffer: the debug buffer written beside the
    ETDump; every tensor its debug events logged must lie inside it (as
    `etprof analyze --debug-buffer`). findings: thresholds of the findings to
    change, {"CODE.KEY": value} (as `--finding CODE.KEY=VALUE`; the codes and
    keys are in docs/findings.md). Returns an Analysis; raises etprof.Error."""
    if pte is None and etrecord is None:
        raise _errors.usage("give an etrecord, a pte program, or both")
    if isinstance(logs, (str, bytes, os.PathLike)):
        logs = (logs,)
    logs = tuple(logs or ())
    if len(logs) > 1:
        raise _errors.usage("one runner log per analysis")
    log = logs[0] if logs else None
    src = source_unit if source_unit is not None else "ns"
    source_code, target_code = check_units(src, unit, cpu_hz)
    opt = _lib.AnalysisOptions()
    _lib.lib.etp_analysis_options_init(ctypes.byref(opt))
    opt.source_unit = source_code
    opt.source_unit_given = int(source_unit is not None)
    opt.target_unit = target_code
    opt.cpu_hz = float(cpu_hz or 0.0)
    method_b = method.encode() if method is not None else None
    opt.method = method_b
    opt.hash_program = int(bool(hash_program))
    for key, value in (findings or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _errors.usage(f"findings[{key!r}] must be a number, got {value!r}")
        err = _errors.new_error()
        # The library parses and checks the setting, as for the CLI.
        _errors.check(_lib.lib.etp_finding_settings_parse(ctypes.byref(opt.findings),
                                                         f"{key}={value!r}".encode(), ctypes.byref(err)), err)
    dbg_b = None
    if debug_buffer is not None:
        try:
            size = os.stat(debug_buffer).st_size
        except OSError as e:
            raise _errors.ReadError("io", f"cannot open: {e.strerror}", file=os.fspath(debug_buffer),
                                    status=1) from None
        dbg_b = _lib.path_arg(debug_buffer)
        opt.has_debug_buffer, opt.debug_buffer_size, opt.debug_buffer_name = 1, size, dbg_b
    inputs = open_inputs(etdump, pte, etrecord, log, prepare=opt)
    lib = _lib.lib
    try:
        opt.runner_log = lib.etp_inputs_runner_log(inputs)
        out = ctypes.c_void_p()
        err = _errors.new_error()
        status = lib.etp_analyze_prepared(lib.etp_inputs_etdump(inputs),
                                          lib.etp_inputs_take_prepared(inputs),
                                          lib.etp_inputs_program(inputs),
                                          lib.etp_inputs_etrecord(inputs), ctypes.byref(opt),
                                          ctypes.byref(out), ctypes.byref(err))
        _errors.check(status, err)
    except BaseException:
        lib.etp_inputs_free(inputs)
        raise
    call = dict(etdump=etdump, pte=pte, etrecord=etrecord, log=log, method=method,
                source_unit=src, source_unit_given=source_unit is not None, unit=unit,
                cpu_hz=cpu_hz, debug_buffer=debug_buffer, findings=dict(findings or {}))
    # The analysis may keep pointing at the options' strings (its method);
    # the options themselves are recorded when it is published or diffed.
    call["_keep"] = (opt, method_b, dbg_b)
    call["_c_options"] = opt
    return Analysis(out, inputs, call)


class Analysis:
    """One analysis: its figures, issues and entities, read from the C
    result it owns. close() (or a with block, or garbage collection)
    releases the C memory; the Python values read before stay valid.
    Reading from several threads at once is safe."""

    def __init__(self, handle, inputs, call):
        self._a, self._in, self._call = handle, inputs, call
        self._lock = threading.Lock()
        self._table = None
        self._summary = None
        self._doc = json.loads(_lib.text(_lib.lib.etp_analysis_json(handle, 1, None)))
        self.unit = call["unit"]

    # ---- lifetime ----
    def close(self):
        """Release the analysis and its inputs now (idempotent)."""
        with self._lock:
            a, inp = self._a, self._in
            self._a = self._in = None
            if a:
                _lib.lib.etp_analysis_free(a)
            if inp:
                _lib.lib.etp_inputs_free(inp)

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
        if not self._a:
            raise _errors.usage("the analysis is closed")
        return self._a

    # ---- what the analysis found ----
    @property
    def validity(self):
        """"valid", "degraded" or "invalid" (the worst issue's severity)."""
        return self._doc["validity"]

    @property
    def issues(self):
        """Findings that lower trust in the result: dicts with code, severity,
        message, guidance and context."""
        return self._doc["issues"]

    @property
    def findings(self):
        """Answers read from the result (etprof/findings.h): dicts exactly as
        `etprof analyze --json` and summary.json write them, each with code,
        category, severity, status ("fired" or "withheld"), message,
        affected_entities [{id, kind, name, role?, value?, share_pct?}] and
        details {title, next_step, evidence, thresholds, specific?}."""
        return self._doc["findings"]

    @property
    def method(self):
        return self._doc["method"]["name"]

    @property
    def executions(self):
        """How many executions the statistics are over."""
        return self._doc["executions"]["count"]

    @property
    def figures(self):
        """Model-level figures as `etprof analyze --json` lists them: name,
        unit, aggregation, additive, samples, events, avg/p10/p50/p90/min/max
        (or availability and reason)."""
        return self._doc["figures"]

    def figure(self, name):
        """The figure named @name ("method_execute", ...) or None."""
        return next((f for f in self.figures if f["name"] == name), None)

    @property
    def metrics(self):
        """summary.json's metrics by name ("method_execute.avg": {value, unit,
        aggregation, additive, samples} or availability and reason)."""
        return {m["name"]: m for m in self.to_dict()["metrics"]}

    @property
    def unresolved_debug_handles(self):
        return self._doc["runtime_unresolved_debug_handles"]

    def _entities(self):
        with self._lock:
            if self._table is None:
                self._table = _table.EntityTable(self._handle(), _lib_unit(self.unit))
            return self._table

    @property
    def operators(self):
        """Every entity (instructions, delegate events, source operators) as a
        dict shaped like an entity of `etprof analyze --json`: times in
        `.unit`, nested "timing", "kernel" and "dispatch_overhead"."""
        return self._entities().records()

    @property
    def nx_groups(self):
        """The VGF NX cycle groups (segments, cascades, chains) as
        operators.json's "nx_groups" holds them: "timing" null, the cycles in
        "nx" (group measurements in cycles, not per-operator times). Empty
        without VGF statistics."""
        return self._entities().records(nx=True)

    def to_dataframe(self):
        """The operators.csv table as a pandas DataFrame: the same rows (the
        entities, then the VGF NX cycle groups, kind "nx_*"), the same columns
        in the same order, times named with their unit ("avg_ms"); integer and
        boolean columns are pandas' nullable Int64/boolean (an empty cell is
        <NA>), times float64 (NaN), text and lists objects (None, []).
        Needs pandas."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("etprof: to_dataframe() needs pandas "
                              "(apt-get install python3-pandas)") from e
        n = ctypes.c_size_t()
        ids = _lib.lib.etp_operators_csv_columns(ctypes.byref(n))
        cols = self._entities().table([ids[i] for i in range(n.value)])
        data = {}
        for name, (t, vals) in cols.items():
            dtype = _table.PANDAS_DTYPES.get(t, object)
            data[name] = pandas.array(vals, dtype=dtype) if dtype is not object else vals
        return pandas.DataFrame(data, columns=list(cols))

    def to_dict(self):
        """The result as summary.json of a published bundle holds it (schema
        etprof.summary v1)."""
        with self._lock:
            if self._summary is None:
                self._summary = _lib.text(_lib.lib.etp_summary_json(self._handle()))
            text = self._summary
        return json.loads(text)

    def to_json(self, entities=True):
        """The whole analysis as the JSON text `etprof analyze --json` prints
        (compact)."""
        with self._lock:
            return _lib.text(_lib.lib.etp_analysis_json(self._handle(), 0 if entities else 1,
                                                        None))

    def publish(self, directory, format="csv", detailed=False, model_explorer=True,
                force=False, parents=False, run_id=None, timestamp=None):
        """Publish a result bundle in @directory as `etprof analyze -o DIR`
        does (staged beside it, swapped into place; a failure leaves it as it
        was). Returns the directory. run_id/timestamp fix the identity (tests).
        model_explorer: True or "files" (graph, overlays, page), "overlays"
        (the overlays and mapping only: no graph.json, no index.html), False
        or "none" (no model_explorer/), as `--model-explorer`."""
        if format not in ("csv", "json"):
            raise _errors.usage(f"format is csv or json, got {format!r}")
        levels = {"files": "files", "overlays": "overlays", "none": "none"}
        if isinstance(model_explorer, bool):
            model_explorer = "files" if model_explorer else "none"
        if not isinstance(model_explorer, str) or model_explorer not in levels:
            raise _errors.usage(f"model_explorer is files, overlays or none, got {model_explorer!r}")
        c = self._call
        args = [repr(os.fspath(c["etdump"]))] + [
            f"{k}={os.fspath(c[k])!r}" for k in ("pte", "etrecord", "log", "debug_buffer")
            if c[k] is not None]
        command = f"etprof.analyze({', '.join(args)}).publish({os.fspath(directory)!r})"
        keep = {k: _lib.path_arg(c[k]) if c[k] is not None else None
                for k in ("etdump", "pte", "etrecord", "log", "debug_buffer")}
        po = _lib.PublishOptions()
        po.dir = _lib.path_arg(directory)
        po.bundle_flags = (1 if force else 0) | (2 if parents else 0)
        po.operators_csv = int(format == "csv")
        po.detailed = int(bool(detailed))
        po.model_explorer = int(model_explorer != "none")
        po.model_explorer_overlays_only = int(model_explorer == "overlays")
        # The options recorded as the CLI records them: from the C options
        # this analysis was made with.
        opt_b = _lib.text(_lib.lib.etp_analysis_options_json(
            ctypes.byref(c["_c_options"]), ctypes.byref(po), 0)).encode()
        cmd_b = command.encode()
        po.command_line, po.options_json = cmd_b, opt_b
        po.etdump_path, po.pte_path = keep["etdump"], keep["pte"]
        po.etrecord_path, po.log_path = keep["etrecord"], keep["log"]
        po.debug_buffer_path = keep["debug_buffer"]
        rid = run_id.encode() if run_id else None
        ts = timestamp.encode() if timestamp else None
        po.run_id, po.timestamp = rid, ts
        err = _errors.new_error()
        with self._lock:
            status = _lib.lib.etp_publish(self._handle(), ctypes.byref(po), None,
                                          ctypes.byref(err))
        _errors.check(status, err)
        return os.fspath(directory)

    def __repr__(self):
        state = "closed" if not self._a else f"{self.executions} executions"
        return f"<etprof.Analysis {self.validity}, method {self.method!r}, {state}>"


def _lib_unit(name):
    return unit_code(name, "unit")
