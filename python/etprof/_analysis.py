"""etprof.analyze() and the Analysis it returns."""
import ctypes
import json
import math
import numbers
import os
import threading

from . import _errors, _lib, _table, _tensors


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


RANK_KEYS = ("avg", "p50", "max")  # etp_rank_key order
NX_DEVICE_NONE = 0                 # ETP_NX_DEVICE_NONE
NX_CORE_KEYS = ("single", "word0")  # etp_nx_core_key order


def nx_options(statistics_mode, profiling_device, leading_blocks, core_key):
    """etp_nx_options from the four NX keyword arguments (None: the
    default), checked as `--nx-statistics-mode`, `--nx-profiling-device`,
    `--nx-leading-blocks` and `--nx-core-key` check them; None when all
    four are None (the library's defaults)."""
    if statistics_mode is None and profiling_device is None and leading_blocks is None \
            and core_key is None:
        return None
    o = _lib.NxOptions()
    _lib.lib.etp_nx_options_defaults(ctypes.byref(o))
    for name, v in (("statistics_mode", statistics_mode), ("leading_blocks", leading_blocks)):
        if v is None:
            continue
        if isinstance(v, bool) or v not in (0, 1):
            raise _errors.usage(f"{name} is 0 or 1, got {v!r}")
        setattr(o, name, int(v))
    if profiling_device is not None:
        d = _lib.lib.etp_nx_device_parse(profiling_device.encode()) \
            if isinstance(profiling_device, str) else NX_DEVICE_NONE
        if d == NX_DEVICE_NONE:
            raise _errors.usage(f"profiling_device is Mali-G1 or Mali-G2, got {profiling_device!r}")
        o.profiling_device = d
    if core_key is not None:
        if core_key not in NX_CORE_KEYS:
            raise _errors.usage(f"core_key is single or word0, got {core_key!r}")
        # ETP_NX_CORE_SINGLE / ETP_NX_CORE_WORD0 follow the default (0).
        o.core_key = NX_CORE_KEYS.index(core_key)
    return o


def open_logs(logs):
    """Every log read as a device log (etp_device_log_open), and what they
    say together as the CLI reads it (etp_device_logs_view_read): the runner
    log, the log carrying the ETDump or debug buffer, the dump's tick unit.
    Returns (handles, runner path, view)."""
    handles = []
    try:
        for path in logs:
            h = ctypes.c_void_p()
            err = _errors.new_error()
            _errors.check(_lib.lib.etp_device_log_open(_lib.path_arg(path), ctypes.byref(h),
                                                       ctypes.byref(err)), err)
            handles.append(h)
        view = _lib.DeviceLogsView()
        arr = (ctypes.c_void_p * max(1, len(handles)))(*[h.value for h in handles])
        err = _errors.new_error()
        _errors.check(_lib.lib.etp_device_logs_view_read(arr, len(handles), ctypes.byref(view),
                                                         ctypes.byref(err)), err)
    except BaseException:
        for h in handles:
            _lib.lib.etp_device_log_free(h)
        raise
    runner = logs[view.runner] if view.runner >= 0 else None
    return handles, runner, view


def carried(fn, log):
    """The bytes a log carries (fn: etp_device_log_etdump or _debug_buffer)."""
    n = ctypes.c_size_t()
    p = fn(log, ctypes.byref(n))
    return ctypes.string_at(p, n.value) if p else None


def take_carried(etdump, debug_buffer, view, carry):
    """The ETDump and debug buffer a log carries, as the CLI takes them:
    written to a private directory (carry["dir"]) when not given, checked
    against the given file otherwise. Returns (etdump, debug_buffer, whether
    the dump's ticks are the Arm runner's cycles)."""
    import tempfile
    lib = _lib.lib
    from_log = False

    def write(name, data):
        if "dir" not in carry:
            carry["dir"] = tempfile.TemporaryDirectory(prefix="etprof-log-")
        path = os.path.join(carry["dir"].name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    if view.etdump_carrier:
        data = carried(lib.etp_device_log_etdump, view.etdump_carrier)
        if etdump is None:
            etdump, from_log = write("etdump.bin", data), True
        else:
            with open(etdump, "rb") as f:
                if f.read() != data:
                    raise _errors.MismatchError("mismatch", "a log carries an ETDump that differs from this one",
                                                file=os.fspath(etdump), status=6)
            from_log = True
    if debug_buffer is None and view.debug_carrier:
        debug_buffer = write("debug_buffer.bin", carried(lib.etp_device_log_debug_buffer, view.debug_carrier))
    elif view.debug_carrier:
        # As the CLI: a given buffer must be the one a log carries.
        data = carried(lib.etp_device_log_debug_buffer, view.debug_carrier)
        try:
            with open(debug_buffer, "rb") as f:
                same = f.read() == data
        except OSError:
            same = True  # the missing file is reported where it is read
        if not same:
            raise _errors.MismatchError("mismatch", f"a log carries a debug buffer ({len(data)} bytes) "
                                        "that differs from this one", file=os.fspath(debug_buffer),
                                        status=6)
    if etdump is None:
        raise _errors.usage("an ETDump is required (no log carries one)")
    return etdump, debug_buffer, from_log and view.has_tick_unit and view.tick_unit == unit_code("cycles", "unit")


def analyze(etdump=None, pte=None, etrecord=None, logs=(), method=None, source_unit=None,
            unit=None, cpu_hz=None, hash_program=True, debug_buffer=None, findings=None,
            skip_executions=0, rank_by="avg", statistics_mode=None, profiling_device=None,
            leading_blocks=None, core_key=None, testset=None, rtol=None, atol=None,
            read_tensors=True):
    """Analyse a run: the ETDump with its program (.pte/.bpte) and/or ETRecord,
    optionally the runner's and devices' logs, as `etprof analyze` does.

    logs: one path or a sequence of at most 16 (as `--log`, repeatable): each
    is read as a device log (runner, `time -v`, Arm bare-metal runner, RTT,
    VGF, `etprof run` lines; their figures in the analysis' device report),
    and the first with runner lines (or with nothing of another tool's
    format) is also the runner log. etdump may be None when a log carries
    the ETDump as base64 (a console capture); given both, they must be the
    same bytes. A dump carried by an Arm runner's log ticks in CPU cycles:
    with source_unit None it is read so (and reported in cycles unless unit
    or cpu_hz say otherwise), as the CLI does. A debug buffer a log carries
    is checked as debug_buffer would be. skip_executions: leave the first N
    executions out (warm-up, `--skip-executions`). rank_by: "avg", "p50" or
    "max", the order of the top lists (`--rank-by`). statistics_mode (0/1),
    profiling_device ("Mali-G1"/"Mali-G2"), leading_blocks (0/1), core_key
    ("single"/"word0"): the VGF_NEURAL_STATISTICS decoder's fallbacks and
    readings (`--nx-statistics-mode`, `--nx-profiling-device`,
    `--nx-leading-blocks`, `--nx-core-key`; None: as the record says, else
    the default).
    source_unit: unit of the ETDump ticks (None: ns assumed, and reported as
    an issue). unit: unit of the results (None: ms). cpu_hz: convert cycle ticks.
    hash_program: record the program's SHA-256 (publish() needs it for the
    Model Explorer views). debug_buffer: the debug buffer written beside the
    ETDump; every tensor its debug events logged must lie inside it (as
    `etprof analyze --debug-buffer`). findings: thresholds of the findings to
    change, {"CODE.KEY": value} (as `--finding CODE.KEY=VALUE`; the codes and
    keys are in docs/findings.md). The debug buffer's bytes are read too:
    every value the run logged, attributed and with its statistics
    (Analysis.tensors(), tensor_values()), and a bundled program's expected
    outputs checked against the logged ones (Analysis.bundled_check(), the
    tensors.bundled_* issues). testset: the bundled test case that ran, when
    neither the ETDump nor the runner log names it (`--testset`, from 0).
    rtol, atol: the check's tolerance (`--rtol`, `--atol`, numbers from 0;
    None: ExecuTorch's 1e-5 and 1e-8). read_tensors: accepted for callers of
    earlier versions; the values are read whenever there is a debug buffer.
    Returns an Analysis; raises etprof.Error."""
    if pte is None and etrecord is None:
        raise _errors.usage("give an etrecord, a pte program, or both")
    if isinstance(logs, (str, bytes, os.PathLike)):
        logs = (logs,)
    logs = tuple(logs or ())
    if len(logs) > _lib.MAX_LOGS:
        raise _errors.usage(f"at most {_lib.MAX_LOGS} logs, got {len(logs)}")
    if isinstance(skip_executions, bool) or not isinstance(skip_executions, int) \
            or not 0 <= skip_executions <= 100000000:
        raise _errors.usage(f"skip_executions needs a count from 0, got {skip_executions!r}")
    if rank_by not in RANK_KEYS:
        raise _errors.usage(f"rank_by is avg, p50 or max, got {rank_by!r}")
    nx = nx_options(statistics_mode, profiling_device, leading_blocks, core_key)
    numerics = numerics_options(testset, rtol, atol)
    dlogs, log, view = open_logs(logs)
    carry = {}  # the files a log carries, written where the library can read them
    try:
        etdump, debug_buffer, cycles = take_carried(etdump, debug_buffer, view, carry)
    except BaseException:
        for h in dlogs:
            _lib.lib.etp_device_log_free(h)
        raise
    if cycles and source_unit is None:
        source_unit = "cycles"
        if unit is None and cpu_hz is None:
            unit = "cycles"
    if unit is None:
        unit = "ms"
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
    opt.skip_executions = skip_executions
    opt.rank_by = RANK_KEYS.index(rank_by)
    if nx is not None:
        opt.nx_options = ctypes.cast(ctypes.pointer(nx), ctypes.c_void_p)
    for key, value in (findings or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _errors.usage(f"findings[{key!r}] must be a number, got {value!r}")
        err = _errors.new_error()
        # The library parses and checks the setting, as for the CLI.
        _errors.check(_lib.lib.etp_finding_settings_parse(ctypes.byref(opt.findings),
                                                         f"{key}={value!r}".encode(), ctypes.byref(err)), err)
    opt.testset, opt.tolerance_given, opt.rtol, opt.atol = numerics
    dbg_b = dbg_data = None
    dbg_address = 0
    if debug_buffer is not None:
        try:
            with open(debug_buffer, "rb") as f:
                dbg_data = f.read()
        except OSError as e:
            for h in dlogs:
                _lib.lib.etp_device_log_free(h)
            raise _errors.ReadError("io", f"cannot open: {e.strerror}", file=os.fspath(debug_buffer),
                                    status=1) from None
        dbg_b = _lib.path_arg(debug_buffer)
        opt.has_debug_buffer, opt.debug_buffer_size, opt.debug_buffer_name = 1, len(dbg_data), dbg_b
        # The bytes object's own storage (immutable, no copy): the analysis'
        # tensor set points into it, and tensor_values() views it.
        dbg_address = ctypes.cast(ctypes.c_char_p(dbg_data), ctypes.c_void_p).value
        opt.debug_buffer_data = dbg_address
    dl_array = (ctypes.c_void_p * max(1, len(dlogs)))(*[h.value for h in dlogs])
    opt.device_logs = ctypes.cast(dl_array, ctypes.c_void_p) if dlogs else None
    opt.device_log_count = len(dlogs)
    lib = _lib.lib
    try:
        inputs = open_inputs(etdump, pte, etrecord, log, prepare=opt)
    except BaseException:
        for h in dlogs:
            lib.etp_device_log_free(h)
        raise
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
        for h in dlogs:
            lib.etp_device_log_free(h)
        raise
    call = dict(etdump=etdump, pte=pte, etrecord=etrecord, log=log, logs=logs, method=method,
                skip_executions=skip_executions, rank_by=rank_by,
                statistics_mode=statistics_mode, profiling_device=profiling_device,
                leading_blocks=leading_blocks, core_key=core_key,
                source_unit=src, source_unit_given=source_unit is not None, unit=unit,
                cpu_hz=cpu_hz, debug_buffer=debug_buffer, findings=dict(findings or {}),
                testset=testset, rtol=rtol, atol=atol)
    # The analysis may keep pointing at the options' strings (its method);
    # the options themselves are recorded when it is published or diffed.
    call["_keep"] = (opt, method_b, dbg_b, nx, dl_array)
    call["read_tensors"] = dbg_data is not None
    call["_device_logs"] = dlogs  # borrowed by the analysis: freed with it
    call["_carried"] = carry     # the carried files' directory: removed with it
    call["_c_options"] = opt
    # The debug buffer's bytes: the tensor set borrows them for the
    # analysis' life; numpy views of them keep them alive after it.
    call["_debug_buffer"] = (dbg_data, dbg_address)
    return Analysis(out, inputs, call)


def numerics_options(testset, rtol, atol):
    """(testset, tolerance_given, rtol, atol) of etp_analysis_options,
    checked as `--testset`, `--rtol` and `--atol` check them."""
    if testset is None:
        ts = -1
    elif isinstance(testset, bool) or not isinstance(testset, numbers.Integral) \
            or not 0 <= testset <= 2 ** 31 - 1:
        raise _errors.usage(f"testset needs a test case index from 0, got {testset!r}")
    else:
        ts = int(testset)
    tol = []
    for name, v, default in (("rtol", rtol, 1e-5), ("atol", atol, 1e-8)):
        if v is None:
            tol.append(default)
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v < 0:
            raise _errors.usage(f"{name} needs a number from 0, got {v!r}")
        tol.append(float(v))
    if rtol is None and atol is None:
        return ts, 0, 0.0, 0.0  # as etp_analysis_options_init() leaves them
    return ts, 1, tol[0], tol[1]


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
        self._debug, self._debug_address = call.pop("_debug_buffer", (None, 0))

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
            for h in self._call.pop("_device_logs", None) or ():
                _lib.lib.etp_device_log_free(h)
            tmp = self._call.pop("_carried", {}).get("dir")
            if tmp is not None:
                tmp.cleanup()
            # Arrays tensor_values() returned hold their own reference.
            self._debug, self._debug_address = None, 0

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

    # ---- the logged values (a debug buffer was given) ----
    def tensors(self):
        """Every value the run logged (program outputs, instruction and
        delegate intermediate outputs) as a pandas DataFrame: one row per
        value in file order, the columns of `etprof tensors --csv` (and
        detailed/tensors.csv) by the same names in the same order, read
        through the library's column table (etprof/tensor_columns.h). Integer
        columns are pandas' nullable Int64 (<NA> when empty), figures float64
        (NaN when empty: a value with no finite element), text objects
        (None). Raises etprof.UsageError without a debug buffer. Needs
        pandas."""
        with self._lock:
            return _tensors.dataframe(self._handle())

    def tensor_columns(self):
        """The columns of tensors(): dicts with name, unit ("elements",
        "bytes", "value": the tensor's own, or None), additive and meaning."""
        return _tensors.columns()

    def tensor_values(self, key, execution=0):
        """The elements of logged value @key ("forward_0_1/0", "output/0")
        of @execution as a numpy array of its shape, in the dtype of its
        ScalarType (int8/uint8/int16/int32/int64/float16/float32/float64/
        bool/uint16/uint32/uint64; the quantized types as their stored
        integers; complex64/complex128). A tensor is a read-only view of the
        debug buffer's bytes (no copy), valid after close(); a scalar (Int,
        Bool, Double) a copy. BFloat16 and the Float8 types have no numpy
        dtype: they are decoded by the library (etp_tensor_values) into a new
        float32 array, which holds each value exactly. Raises
        etprof.UsageError for a key not logged, a value logged without bytes,
        or an element type not read as numbers. Needs numpy."""
        with self._lock:
            return _tensors.values(self._handle(), key, execution, self._debug, self._debug_address)

    def bundled_check(self):
        """A bundled program's (.bpte) expected outputs against the logged
        ones, as `etprof tensors --json` writes "bundled_check": compared
        (bool), reason (why not, or None), testset and testset_basis (which
        test case, and how it was known), rtol, atol, tolerance_given, rule,
        outputs_compared, outputs_mismatched, and outputs: dicts with
        execution, output, key, match and gap (count, mismatches, mse, mae,
        max_abs_err, snr_db, cosine, worst {index, reference, got}; floats,
        NaN/inf included); plus bundled_program (bool). Raises
        etprof.UsageError without a debug buffer."""
        with self._lock:
            return _tensors.bundled_check(self._handle())

    def tensors_json(self, values=0):
        """The logged values as the text `etprof tensors --json --values N`
        prints (schema etprof.tensors v1), compact; @values: the first N
        elements of each value too (0: none)."""
        if isinstance(values, bool) or not isinstance(values, int) or values < 0:
            raise _errors.usage(f"values needs a count from 0, got {values!r}")
        with self._lock:
            return _tensors.document(self._handle(), values)

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
        # The logs other than the runner log: recorded as inputs too (as the CLI).
        more = [_lib.path_arg(p) for p in c.get("logs", ())
                if c["log"] is None or os.fspath(p) != os.fspath(c["log"])]
        more_a = (ctypes.c_char_p * max(1, len(more)))(*more)
        po.device_log_paths = ctypes.cast(more_a, ctypes.c_void_p) if more else None
        po.device_log_count = len(more)
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
