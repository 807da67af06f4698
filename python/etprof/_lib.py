"""Finding libetprof.so and declaring the C functions the package calls.

ctypes releases the GIL around every call into a CDLL, so the C work of an
analysis runs while other Python threads go on."""
import ctypes
import os
import sys

SONAME = "libetprof.so.0"


class Error_(ctypes.Structure):
    """etp_error (etprof/error.h)."""
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_int64),
                ("file", ctypes.c_char * 512), ("message", ctypes.c_char * 512)]


class FindingSettings(ctypes.Structure):
    """etp_finding_settings (etprof/findings.h): all zero, every default."""
    _fields_ = [("value", ctypes.c_double * 64), ("given", ctypes.c_uint8 * 64)]


class AnalysisOptions(ctypes.Structure):
    """etp_analysis_options (etprof/analysis.h)."""
    _fields_ = [("source_unit", ctypes.c_int), ("source_unit_given", ctypes.c_int),
                ("target_unit", ctypes.c_int), ("cpu_hz", ctypes.c_double),
                ("method", ctypes.c_char_p), ("runner_log", ctypes.c_void_p),
                ("hash_program", ctypes.c_int), ("skip_executions", ctypes.c_uint32),
                ("rank_by", ctypes.c_int), ("wall_evidence", ctypes.c_void_p),
                ("wall_evidence_count", ctypes.c_uint32), ("device_logs", ctypes.c_void_p),
                ("device_log_count", ctypes.c_uint32), ("nx_options", ctypes.c_void_p),
                ("has_debug_buffer", ctypes.c_int), ("debug_buffer_size", ctypes.c_uint64),
                ("debug_buffer_name", ctypes.c_char_p), ("findings", FindingSettings),
                ("debug_buffer_data", ctypes.c_void_p), ("testset", ctypes.c_int32),
                ("testset_basis", ctypes.c_char_p),
                ("tolerance_given", ctypes.c_int), ("rtol", ctypes.c_double), ("atol", ctypes.c_double)]


class NxOptions(ctypes.Structure):
    """etp_nx_options (etprof/nx_record.h): the VGF statistics decoder's choices."""
    _fields_ = [("statistics_mode", ctypes.c_int), ("profiling_device", ctypes.c_int),
                ("leading_blocks", ctypes.c_int), ("core_key", ctypes.c_int)]


class DeviceLogHead(ctypes.Structure):
    """The first members of etp_device_log (etprof/device_log.h): its path,
    line count and the ETP_DL_* formats found."""
    _fields_ = [("path", ctypes.c_char_p), ("lines", ctypes.c_uint32), ("formats", ctypes.c_uint)]


class DeviceLogsView(ctypes.Structure):
    """etp_device_logs_view (etprof/device_log.h): what a run's logs say together."""
    _fields_ = [("runner", ctypes.c_int), ("etdump_carrier", ctypes.c_void_p),
                ("debug_carrier", ctypes.c_void_p), ("has_tick_unit", ctypes.c_int),
                ("tick_unit", ctypes.c_int)]

# CLI_MAX_LOGS (src/cli/cli_logs.h): as many logs as `analyze --log` takes.
MAX_LOGS = 16


class InspectOptions(ctypes.Structure):
    """etp_inspect_options (etprof/inspect.h)."""
    _fields_ = [("source_unit", ctypes.c_int), ("target_unit", ctypes.c_int),
                ("cpu_hz", ctypes.c_double), ("program", ctypes.c_void_p),
                ("method", ctypes.c_char_p), ("lenient_methods", ctypes.c_int),
                ("skip_row_stats", ctypes.c_int), ("threads", ctypes.c_int)]


class InputsSpec(ctypes.Structure):
    """etp_inputs_spec (etprof/inputs.h)."""
    _fields_ = [("etdump", ctypes.c_char_p), ("pte", ctypes.c_char_p),
                ("etrecord", ctypes.c_char_p), ("log", ctypes.c_char_p),
                ("prepare", ctypes.POINTER(AnalysisOptions)), ("verify_etdump", ctypes.c_int),
                ("log_name", ctypes.c_char_p)]


class PublishOptions(ctypes.Structure):
    """etp_publish_options (etprof/publish.h)."""
    _fields_ = [("dir", ctypes.c_char_p), ("bundle_flags", ctypes.c_uint),
                ("operators_csv", ctypes.c_int), ("detailed", ctypes.c_int),
                ("model_explorer", ctypes.c_int), ("command_line", ctypes.c_char_p),
                ("options_json", ctypes.c_char_p), ("etdump_path", ctypes.c_char_p),
                ("pte_path", ctypes.c_char_p), ("etrecord_path", ctypes.c_char_p),
                ("log_path", ctypes.c_char_p), ("run_id", ctypes.c_char_p),
                ("timestamp", ctypes.c_char_p), ("device_log_paths", ctypes.c_void_p),
                ("device_log_count", ctypes.c_uint32), ("embed_log_path", ctypes.c_char_p),
                ("debug_buffer_path", ctypes.c_char_p),
                ("label_keys", ctypes.POINTER(ctypes.c_char_p)),
                ("label_values", ctypes.POINTER(ctypes.c_char_p)), ("label_count", ctypes.c_uint32),
                ("model_explorer_overlays_only", ctypes.c_int), ("log_name", ctypes.c_char_p),
                ("runner_json", ctypes.c_char_p), ("embed_measurements_path", ctypes.c_char_p)]


class _Ints(ctypes.Structure):
    _fields_ = [("v", ctypes.POINTER(ctypes.c_int64)), ("n", ctypes.c_uint32)]


class _Strs(ctypes.Structure):
    _fields_ = [("v", ctypes.POINTER(ctypes.c_char_p)), ("n", ctypes.c_uint32)]


class Cell(ctypes.Union):
    """etp_cell (etprof/columns.h)."""
    _fields_ = [("s", ctypes.c_void_p), ("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                ("d", ctypes.c_double), ("b", ctypes.c_int), ("ints", _Ints), ("strs", _Strs)]


class Column(ctypes.Structure):
    """etp_column (etprof/columns.h); the four functions are only pointers here."""
    _fields_ = [("id", ctypes.c_int), ("key", ctypes.c_char_p), ("header", ctypes.c_char_p),
                ("label", ctypes.c_char_p), ("in_unit", ctypes.c_int), ("type", ctypes.c_int),
                ("group", ctypes.c_int), ("present", ctypes.c_void_p), ("get", ctypes.c_void_p),
                ("nx_present", ctypes.c_void_p), ("nx_get", ctypes.c_void_p)]


# etprof/bundle.h: a published bundle read back.
class BundleArtifact(ctypes.Structure):
    _fields_ = [("path", ctypes.c_char_p), ("media_type", ctypes.c_char_p),
                ("role", ctypes.c_char_p), ("schema", ctypes.c_char_p),
                ("schema_version", ctypes.c_int), ("size", ctypes.c_uint64),
                ("sha256", ctypes.c_char_p)]


class BundleIssue(ctypes.Structure):
    _fields_ = [("code", ctypes.c_char_p), ("severity", ctypes.c_char_p),
                ("message", ctypes.c_char_p), ("context_json", ctypes.c_char_p)]


class BundleInput(ctypes.Structure):
    _fields_ = [("role", ctypes.c_char_p), ("name", ctypes.c_char_p), ("path", ctypes.c_char_p),
                ("has_digest", ctypes.c_int), ("size", ctypes.c_uint64),
                ("sha256", ctypes.c_char_p)]


class BundleManifest(ctypes.Structure):
    _fields_ = [("bundle_type", ctypes.c_char_p), ("run_id", ctypes.c_char_p),
                ("timestamp", ctypes.c_char_p), ("tool_name", ctypes.c_char_p),
                ("tool_version", ctypes.c_char_p), ("status", ctypes.c_char_p),
                ("validity", ctypes.c_char_p),
                ("issue_count", ctypes.c_uint32), ("issues", ctypes.POINTER(BundleIssue)),
                ("artifact_count", ctypes.c_uint32),
                ("artifacts", ctypes.POINTER(BundleArtifact)),
                ("input_count", ctypes.c_uint32), ("inputs", ctypes.POINTER(BundleInput)),
                ("options_json", ctypes.c_char_p), ("options_sha256", ctypes.c_char_p),
                ("manifest_sha256", ctypes.c_char_p)]


class BundleMetric(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("available", ctypes.c_int),
                ("value", ctypes.c_double), ("unit", ctypes.c_char_p),
                ("aggregation", ctypes.c_char_p), ("additive", ctypes.c_int),
                ("samples", ctypes.c_uint64), ("reason", ctypes.c_char_p)]


class BundleCell(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("boolean", ctypes.c_int), ("number", ctypes.c_double),
                ("text", ctypes.c_char_p)]


class BundleTable(ctypes.Structure):
    _fields_ = [("source", ctypes.c_char_p), ("column_count", ctypes.c_uint32),
                ("columns", ctypes.POINTER(ctypes.c_char_p)), ("row_count", ctypes.c_uint32),
                ("cells", ctypes.POINTER(BundleCell))]


class Label(ctypes.Structure):
    """etp_bundle_label (etprof/bundle_read.h) and etp_history_label (etprof/history.h):
    values are bytes (any but NUL)."""
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class BundleRunMetadata(ctypes.Structure):
    _fields_ = [("run_id", ctypes.c_char_p), ("timestamp", ctypes.c_char_p),
                ("tool_name", ctypes.c_char_p), ("tool_version", ctypes.c_char_p),
                ("command_line", ctypes.c_char_p), ("options_json", ctypes.c_char_p),
                ("input_count", ctypes.c_uint32), ("inputs", ctypes.POINTER(BundleInput)),
                ("label_count", ctypes.c_uint32), ("labels", ctypes.POINTER(Label))]


# etprof/history.h and etprof/store.h: the run history.
class HistoryRun(ctypes.Structure):
    """etp_history_run (etprof/history.h)."""
    _fields_ = [("run", ctypes.c_int64), ("run_id", ctypes.c_char_p),
                ("manifest_sha256", ctypes.c_char_p), ("published_ms", ctypes.c_int64),
                ("tool_version", ctypes.c_char_p), ("validity", ctypes.c_char_p),
                ("method", ctypes.c_char_p), ("program_sha256", ctypes.c_char_p),
                ("time_unit", ctypes.c_char_p), ("executions", ctypes.c_uint32),
                ("detailed", ctypes.c_int), ("bundle", ctypes.c_char_p),
                ("label_count", ctypes.c_uint32), ("labels", ctypes.POINTER(Label))]


class StoreFilter(ctypes.Structure):
    """etp_store_filter (etprof/store.h)."""
    _fields_ = [("where", ctypes.POINTER(Label)), ("where_count", ctypes.c_uint32),
                ("has_since", ctypes.c_int), ("since_ms", ctypes.c_int64)]


class StoreRuns(ctypes.Structure):
    """etp_store_runs (etprof/store.h)."""
    _fields_ = [("count", ctypes.c_uint32), ("runs", ctypes.POINTER(HistoryRun))]


class HistoryPoint(ctypes.Structure):
    """etp_history_point (etprof/history.h)."""
    _fields_ = [("run", ctypes.c_int64), ("run_id", ctypes.c_char_p),
                ("published_ms", ctypes.c_int64), ("order", ctypes.c_double),
                ("value", ctypes.c_double), ("samples", ctypes.c_uint32),
                ("label_count", ctypes.c_uint32), ("labels", ctypes.POINTER(Label)),
                ("sample_count", ctypes.c_uint32),
                ("execution_values", ctypes.POINTER(ctypes.c_double))]


class HistorySeries(ctypes.Structure):
    """etp_history_series (etprof/history.h)."""
    _fields_ = [("key", ctypes.c_char_p), ("group_count", ctypes.c_uint32),
                ("group", ctypes.POINTER(Label)), ("metric", ctypes.c_char_p),
                ("entity", ctypes.c_char_p), ("unit", ctypes.c_char_p),
                ("lower_is_better", ctypes.c_int), ("point_count", ctypes.c_uint32),
                ("points", ctypes.POINTER(HistoryPoint))]


class StoreSeriesQuery(ctypes.Structure):
    """etp_store_series_query (etprof/store.h): ctypes fills it from zero, as
    the header asks."""
    _fields_ = [("metric", ctypes.c_char_p), ("stat", ctypes.c_char_p),
                ("entity", ctypes.c_char_p), ("filter", StoreFilter),
                ("group_by", ctypes.POINTER(ctypes.c_char_p)), ("group_by_count", ctypes.c_uint32),
                ("order_by", ctypes.c_char_p), ("include_invalid", ctypes.c_int),
                ("no_samples", ctypes.c_int)]


class HistorySeriesSet(ctypes.Structure):
    """etp_history_series_set (etprof/store.h)."""
    _fields_ = [("count", ctypes.c_uint32), ("series", ctypes.POINTER(HistorySeries))]


class RegressionOptions(ctypes.Structure):
    """etp_regression_options (etprof/history.h)."""
    _fields_ = [("window", ctypes.c_uint32), ("baseline", ctypes.c_uint32),
                ("min_baseline", ctypes.c_uint32), ("threshold_pct", ctypes.c_double),
                ("z_threshold", ctypes.c_double), ("confidence", ctypes.c_double),
                ("resamples", ctypes.c_uint32), ("seed", ctypes.c_uint64)]


class Regression(ctypes.Structure):
    """etp_regression (etprof/history.h); verdict is the etp_regression_class enum."""
    _fields_ = [("verdict", ctypes.c_int), ("reason", ctypes.c_char_p),
                ("baseline_points", ctypes.c_uint32), ("baseline_value", ctypes.c_double),
                ("baseline_spread", ctypes.c_double), ("new_value", ctypes.c_double),
                ("change_pct", ctypes.c_double), ("z", ctypes.c_double),
                ("has_interval", ctypes.c_int), ("ratio_lo", ctypes.c_double),
                ("ratio_hi", ctypes.c_double), ("confidence", ctypes.c_double),
                ("change_index", ctypes.c_int64), ("violations", ctypes.c_uint32)]


# etprof/diff.h and etprof/diff_io.h: two runs compared.
class DiffIdentity(ctypes.Structure):
    _fields_ = [("label", ctypes.c_char_p), ("origin", ctypes.c_char_p),
                ("program_sha256", ctypes.c_char_p), ("etrecord_sha256", ctypes.c_char_p),
                ("method", ctypes.c_char_p), ("time_unit", ctypes.c_int),
                ("has_tick_unit", ctypes.c_int), ("tick_unit", ctypes.c_int),
                ("ticks_assumed", ctypes.c_int),
                ("cpu_hz", ctypes.c_double), ("status", ctypes.c_char_p),
                ("validity", ctypes.c_char_p), ("executions", ctypes.c_uint32),
                ("has_findings", ctypes.c_int)]


class DiffOptions(ctypes.Structure):
    _fields_ = [("statistic", ctypes.c_int), ("confidence", ctypes.c_double),
                ("resamples", ctypes.c_uint32), ("seed", ctypes.c_uint64),
                ("compare_methods", ctypes.c_int), ("interval_rows", ctypes.c_uint32),
                ("interval_key", ctypes.c_char_p)]


class DiffValue(ctypes.Structure):
    _fields_ = [("present", ctypes.c_int), ("available", ctypes.c_int),
                ("reason", ctypes.c_char_p), ("value", ctypes.c_double),
                ("avg", ctypes.c_double), ("p50", ctypes.c_double), ("min", ctypes.c_double),
                ("max", ctypes.c_double), ("has_avg", ctypes.c_int), ("has_p50", ctypes.c_int),
                ("has_min", ctypes.c_int), ("has_max", ctypes.c_int), ("n", ctypes.c_uint64),
                ("sample_count", ctypes.c_uint32), ("additive", ctypes.c_int),
                ("shared", ctypes.c_int), ("has_share", ctypes.c_int),
                ("share", ctypes.c_double), ("members", ctypes.c_uint32)]


class DiffRow(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("key", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("op_type", ctypes.c_char_p), ("backend", ctypes.c_char_p),
                ("unit", ctypes.c_char_p), ("basis", ctypes.c_char_p),
                ("base", DiffValue), ("new_", DiffValue), ("matched", ctypes.c_int),
                ("has_delta", ctypes.c_int), ("delta", ctypes.c_double),
                ("has_ratio", ctypes.c_int), ("ratio", ctypes.c_double),
                ("speedup", ctypes.c_double), ("has_ci", ctypes.c_int),
                ("ci_low", ctypes.c_double), ("ci_high", ctypes.c_double),
                ("significant", ctypes.c_int), ("note", ctypes.c_char_p)]


class DiffWarning(ctypes.Structure):
    _fields_ = [("code", ctypes.c_char_p), ("message", ctypes.c_char_p),
                ("issue", ctypes.c_void_p)]


class Diff(ctypes.Structure):
    _fields_ = [("level", ctypes.c_int), ("level_name", ctypes.c_char_p),
                ("level_reason", ctypes.c_char_p), ("statistic", ctypes.c_int),
                ("statistic_name", ctypes.c_char_p), ("unit", ctypes.c_char_p),
                ("confidence", ctypes.c_double), ("resamples", ctypes.c_uint32),
                ("seed", ctypes.c_uint64), ("base", DiffIdentity), ("new_", DiffIdentity),
                ("row_count", ctypes.c_uint32), ("rows", ctypes.POINTER(DiffRow)),
                ("warning_count", ctypes.c_uint32), ("warnings", ctypes.POINTER(DiffWarning)),
                ("arena_", ctypes.c_void_p), ("findings_compared", ctypes.c_int),
                ("finding_count", ctypes.c_uint32), ("findings", ctypes.c_void_p)]


class DiffGateOutcome(ctypes.Structure):
    """etp_diff_gate_outcome (etprof/diff.h)."""
    _fields_ = [("metric", ctypes.c_char_p), ("row", ctypes.POINTER(DiffRow)),
                ("threshold_pct", ctypes.c_double), ("no_significance", ctypes.c_int),
                ("failed", ctypes.c_int), ("reason", ctypes.c_char_p),
                ("exit_status", ctypes.c_int)]


class DiffPublishOptions(ctypes.Structure):
    _fields_ = [("dir", ctypes.c_char_p), ("bundle_flags", ctypes.c_uint),
                ("base_path", ctypes.c_char_p), ("new_path", ctypes.c_char_p),
                ("options_json", ctypes.c_char_p), ("gate_json", ctypes.c_char_p),
                ("top", ctypes.c_uint32), ("numerics", ctypes.c_void_p)]


class NumericDiffOptions(ctypes.Structure):
    """etp_numeric_diff_options (etprof/numeric_diff.h): the execution compared and the tolerance."""
    _fields_ = [("execution", ctypes.c_int32), ("rtol", ctypes.c_double), ("atol", ctypes.c_double)]


# etprof/tensor.h, etprof/tensors.h and etprof/tensor_columns.h: the logged values.
TENSOR_MAX_RANK = 16  # ETP_TENSOR_MAX_RANK


class TensorView(ctypes.Structure):
    """etp_tensor_view (etprof/tensor.h): data borrows the debug buffer's bytes."""
    _fields_ = [("scalar_type", ctypes.c_int8), ("rank", ctypes.c_uint32),
                ("sizes", ctypes.c_int64 * TENSOR_MAX_RANK), ("numel", ctypes.c_uint64),
                ("nbytes", ctypes.c_uint64), ("data", ctypes.c_void_p)]


class TensorStats(ctypes.Structure):
    """etp_tensor_stats (etprof/tensor.h)."""
    _fields_ = [("count", ctypes.c_uint64), ("finite", ctypes.c_uint64), ("nan", ctypes.c_uint64),
                ("pos_inf", ctypes.c_uint64), ("neg_inf", ctypes.c_uint64), ("zero", ctypes.c_uint64),
                ("min", ctypes.c_double), ("max", ctypes.c_double), ("mean", ctypes.c_double),
                ("std", ctypes.c_double), ("max_abs", ctypes.c_double)]


class QuantParams(ctypes.Structure):
    """etp_quant_params (etprof/tensor.h)."""
    _fields_ = [("present", ctypes.c_int), ("scale", ctypes.c_double), ("zero_point", ctypes.c_int64)]


class Tolerance(ctypes.Structure):
    """etp_tolerance (etprof/tensor.h)."""
    _fields_ = [("rtol", ctypes.c_double), ("atol", ctypes.c_double)]


class TensorGap(ctypes.Structure):
    """etp_tensor_gap (etprof/tensor.h)."""
    _fields_ = [("count", ctypes.c_uint64), ("nonfinite_diff", ctypes.c_uint64),
                ("mse", ctypes.c_double), ("mae", ctypes.c_double), ("max_abs_err", ctypes.c_double),
                ("max_abs_index", ctypes.c_uint64), ("snr_db", ctypes.c_double),
                ("cosine", ctypes.c_double), ("mismatches", ctypes.c_uint64),
                ("worst_index", ctypes.c_uint64), ("worst_reference", ctypes.c_double),
                ("worst_got", ctypes.c_double), ("exact_compare", ctypes.c_int)]


class LoggedTensor(ctypes.Structure):
    """etp_logged_tensor (etprof/tensors.h): one logged value of a tensor set."""
    _fields_ = [("key", ctypes.c_char_p), ("origin", ctypes.c_int), ("run", ctypes.c_uint32),
                ("execution", ctypes.c_int32), ("event", ctypes.c_uint32),
                ("event_offset", ctypes.c_uint32), ("item", ctypes.c_uint32),
                ("position", ctypes.c_uint32), ("chain", ctypes.c_int32),
                ("instruction", ctypes.c_int32), ("delegate_id_int", ctypes.c_int32),
                ("delegate_id_str", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("value_index", ctypes.c_int32), ("entity", ctypes.c_void_p),
                ("source_operators", ctypes.c_char_p), ("value_type", ctypes.c_int8),
                ("has_bytes", ctypes.c_int), ("buffer_offset", ctypes.c_int64),
                ("view", TensorView), ("stride_count", ctypes.c_uint32),
                ("strides", ctypes.c_int64 * 16), ("dtype_class", ctypes.c_int), ("stats", TensorStats),
                ("quant", QuantParams), ("scalar_bytes", ctypes.c_uint8 * 8)]


class BundledOutput(ctypes.Structure):
    """etp_bundled_output (etprof/tensors.h)."""
    _fields_ = [("execution", ctypes.c_int32), ("output", ctypes.c_uint32),
                ("got", ctypes.POINTER(LoggedTensor)), ("expected", TensorView),
                ("scalar_expected", ctypes.c_int), ("match", ctypes.c_int), ("gap", TensorGap),
                ("scalar_bytes", ctypes.c_uint8 * 8), ("problem", ctypes.c_char * 200)]


class BundledCheck(ctypes.Structure):
    """etp_bundled_check (etprof/tensors.h)."""
    _fields_ = [("bundled_program", ctypes.c_int), ("done", ctypes.c_int),
                ("reason", ctypes.c_char_p), ("testset", ctypes.c_int32),
                ("testset_basis", ctypes.c_char_p), ("tol", Tolerance), ("tol_given", ctypes.c_int),
                ("output_count", ctypes.c_uint32), ("outputs", ctypes.POINTER(BundledOutput)),
                ("mismatched", ctypes.c_uint32), ("worst", ctypes.POINTER(BundledOutput))]


class TensorSet(ctypes.Structure):
    """etp_tensor_set (etprof/tensors.h): owned by the analysis."""
    _fields_ = [("buffer_name", ctypes.c_char_p), ("buffer_size", ctypes.c_uint64),
                ("count", ctypes.c_uint32), ("items", ctypes.POINTER(LoggedTensor)),
                ("tensors", ctypes.c_uint32), ("scalars", ctypes.c_uint32),
                ("not_decoded", ctypes.c_uint32), ("without_bytes", ctypes.c_uint32),
                ("bytes", ctypes.c_uint64), ("program_outputs", ctypes.c_uint32),
                ("op_text_count", ctypes.c_uint32), ("op_texts", ctypes.POINTER(ctypes.c_char_p)),
                ("bundled", BundledCheck)]


class TCell(ctypes.Structure):
    """etp_tcell (etprof/tensor_columns.h): s is borrowed (the set, or the caller's buffer)."""
    _fields_ = [("kind", ctypes.c_int), ("s", ctypes.c_void_p), ("i", ctypes.c_int64),
                ("u", ctypes.c_uint64), ("d", ctypes.c_double)]


class TCol(ctypes.Structure):
    """etp_tcol (etprof/tensor_columns.h)."""
    _fields_ = [("id", ctypes.c_int), ("name", ctypes.c_char_p), ("unit", ctypes.c_char_p),
                ("additive", ctypes.c_int), ("meaning", ctypes.c_char_p)]


P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)
ERR = ctypes.POINTER(Error_)
SIZE = ctypes.POINTER(ctypes.c_size_t)

# name: (restype, argtypes)
_PROTOTYPES = {
    "etp_abi_struct_size": (ctypes.c_size_t, [ctypes.c_char_p]),
    "etp_error_format": (ctypes.c_char_p, [ERR, ctypes.c_char_p, ctypes.c_size_t]),
    "etp_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "etp_exit_status_of": (ctypes.c_int, [ctypes.c_int]),
    "etp_exit_status_meaning": (ctypes.c_char_p, [ctypes.c_int]),
    "etp_unit_parse": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
    "etp_unit_name": (ctypes.c_char_p, [ctypes.c_int]),
    "etp_units_check": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.c_double, ERR]),
    "etp_unit_count": (ctypes.c_uint, []),
    "etp_unit_is_tick": (ctypes.c_int, [ctypes.c_int]),
    "etp_analysis_options_init": (None, [ctypes.POINTER(AnalysisOptions)]),
    "etp_nx_options_defaults": (None, [ctypes.POINTER(NxOptions)]),
    "etp_nx_device_parse": (ctypes.c_int, [ctypes.c_char_p]),
    "etp_device_log_open": (ctypes.c_int, [ctypes.c_char_p, PP, ERR]),
    "etp_device_log_free": (None, [P]),
    "etp_device_logs_view_read": (ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint32,
                                                 ctypes.POINTER(DeviceLogsView), ERR]),
    "etp_device_log_etdump": (ctypes.POINTER(ctypes.c_uint8), [P, SIZE]),
    "etp_device_log_debug_buffer": (ctypes.POINTER(ctypes.c_uint8), [P, SIZE]),
    "etp_finding_settings_parse": (ctypes.c_int, [ctypes.POINTER(FindingSettings), ctypes.c_char_p, ERR]),
    "etp_inspect_options_init": (None, [ctypes.POINTER(InspectOptions)]),
    "etp_inputs_open": (ctypes.c_int, [ctypes.POINTER(InputsSpec), PP, ERR]),
    "etp_inputs_etdump": (P, [P]),
    "etp_inputs_program": (P, [P]),
    "etp_inputs_etrecord": (P, [P]),
    "etp_inputs_runner_log": (P, [P]),
    "etp_inputs_take_prepared": (P, [P]),
    "etp_inputs_free": (None, [P]),
    "etp_analyze_prepared": (ctypes.c_int, [P, P, P, P, ctypes.POINTER(AnalysisOptions), PP, ERR]),
    "etp_analysis_free": (None, [P]),
    "etp_analysis_json": (P, [P, ctypes.c_uint, SIZE]),
    "etp_analysis_entity_count": (ctypes.c_uint32, [P]),
    "etp_summary_json": (P, [P]),
    "etp_text_free": (None, [P]),
    "etp_columns": (ctypes.POINTER(Column), [SIZE]),
    "etp_column_header": (ctypes.c_int, [ctypes.POINTER(Column), ctypes.c_int, ctypes.c_char_p,
                                         ctypes.c_size_t]),
    "etp_column_read": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32,
                                       ctypes.POINTER(Cell), ctypes.POINTER(ctypes.c_uint8)]),
    "etp_analysis_nx_row_count": (ctypes.c_uint32, [P]),
    "etp_column_read_nx": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32,
                                          ctypes.POINTER(Cell), ctypes.POINTER(ctypes.c_uint8)]),
    "etp_operators_csv_columns": (ctypes.POINTER(ctypes.c_int), [SIZE]),
    "etp_publish": (ctypes.c_int, [P, ctypes.POINTER(PublishOptions), PP, ERR]),
    "etp_analysis_options_json": (P, [ctypes.POINTER(AnalysisOptions),
                                      ctypes.POINTER(PublishOptions), ctypes.c_int]),
    "etp_inspect_run": (ctypes.c_int, [P, ctypes.POINTER(InspectOptions), PP, ERR]),
    "etp_inspect_free": (None, [P]),
    "etp_inspect_json": (P, [P, P, P, ctypes.c_int, SIZE]),
    "etp_bundle_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, PP, ERR]),
    "etp_bundle_close": (None, [P]),
    "etp_bundle_doc_manifest": (ctypes.POINTER(BundleManifest), [P]),
    "etp_bundle_doc_metrics": (ctypes.POINTER(BundleMetric), [P, ctypes.POINTER(ctypes.c_uint32)]),
    "etp_bundle_doc_operators": (ctypes.POINTER(BundleTable), [P]),
    "etp_bundle_doc_run_metadata": (ctypes.POINTER(BundleRunMetadata), [P]),
    "etp_store_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, PP, ERR]),
    "etp_store_close": (None, [P]),
    "etp_store_engine": (ctypes.c_char_p, [P]),
    "etp_store_display": (ctypes.c_char_p, [P]),
    "etp_store_list_runs": (ctypes.c_int, [P, ctypes.POINTER(StoreFilter),
                                           ctypes.POINTER(ctypes.POINTER(StoreRuns)), ERR]),
    "etp_store_runs_free": (None, [ctypes.POINTER(StoreRuns)]),
    "etp_store_series": (ctypes.c_int, [P, ctypes.POINTER(StoreSeriesQuery),
                                        ctypes.POINTER(ctypes.POINTER(HistorySeriesSet)), ERR]),
    "etp_history_series_free": (None, [ctypes.POINTER(HistorySeriesSet)]),
    "etp_regression_options_init": (None, [ctypes.POINTER(RegressionOptions)]),
    "etp_regression_classify": (ctypes.c_int, [ctypes.POINTER(HistorySeries),
                                               ctypes.POINTER(RegressionOptions),
                                               ctypes.POINTER(Regression), ERR]),
    "etp_regression_class_name": (ctypes.c_char_p, [ctypes.c_int]),
    "etp_diff_side_from_bundle": (ctypes.c_int, [ctypes.c_char_p, PP, ERR]),
    "etp_diff_side_from_analysis": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_char_p, PP,
                                                   ERR]),
    "etp_diff_side_free": (None, [P]),
    "etp_diff_options_init": (None, [ctypes.POINTER(DiffOptions)]),
    "etp_diff_compute": (ctypes.c_int, [P, P, ctypes.POINTER(DiffOptions),
                                        ctypes.POINTER(ctypes.POINTER(Diff)), ERR]),
    "etp_diff_free": (None, [ctypes.POINTER(Diff)]),
    "etp_diff_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "etp_diff_gate_decide": (ctypes.c_int, [ctypes.POINTER(Diff), ctypes.c_char_p,
                                            ctypes.c_double, ctypes.c_int,
                                            ctypes.POINTER(DiffGateOutcome), ERR]),
    "etp_diff_gate_json": (P, [ctypes.POINTER(DiffGateOutcome)]),
    "etp_diff_rank_parse": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
    "etp_diff_options_json": (P, [ctypes.POINTER(DiffOptions), ctypes.c_int, ctypes.c_uint32,
                                  ctypes.POINTER(DiffGateOutcome),
                                  ctypes.POINTER(AnalysisOptions)]),
    "etp_diff_json": (P, [ctypes.POINTER(Diff), ctypes.c_char_p, SIZE]),
    "etp_diff_csv": (P, [ctypes.POINTER(Diff), SIZE]),
    "etp_analysis_tensor_set": (ctypes.POINTER(TensorSet), [P]),
    "etp_analysis_tensors_json": (P, [P, ctypes.c_uint64, SIZE]),
    "etp_tensor_columns": (ctypes.POINTER(TCol), []),
    "etp_tensor_column_count": (ctypes.c_size_t, []),
    "etp_tensor_cell": (TCell, [P, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]),
    "etp_tensor_set_find": (ctypes.POINTER(LoggedTensor), [ctypes.POINTER(TensorSet), ctypes.c_char_p,
                                                           ctypes.c_int32]),
    "etp_tensor_values": (None, [ctypes.POINTER(TensorView), ctypes.c_uint64, ctypes.c_uint64,
                                 ctypes.POINTER(ctypes.c_double)]),
    "etp_diff_publish": (ctypes.c_int, [ctypes.POINTER(Diff), ctypes.POINTER(DiffPublishOptions),
                                        ERR]),
    "etp_diff_json_with_numerics": (P, [ctypes.POINTER(Diff), ctypes.c_char_p, ctypes.c_char_p, SIZE]),
    "etp_numeric_diff_options_init": (None, [ctypes.POINTER(NumericDiffOptions)]),
    "etp_numeric_diff_build": (ctypes.c_int, [P, P, ctypes.POINTER(NumericDiffOptions), PP, ERR]),
    "etp_numeric_diff_free": (None, [P]),
    "etp_numeric_diff_json": (P, [P, SIZE]),
    "etp_numeric_diff_min_snr": (ctypes.c_double, [P]),
}


def _candidates():
    """Where the library may be, in the order tried: ETPROF_LIBRARY, a build
    tree this package sits in (python/ of a source checkout: ../build*), then
    install prefixes, then the dynamic loader's own search."""
    env = os.environ.get("ETPROF_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.dirname(os.path.dirname(here))
    for build in ("build", "build-asan"):
        yield os.path.join(source, build, SONAME)
    for prefix in dict.fromkeys((sys.prefix, "/usr/local", "/usr")):
        for lib in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
            yield os.path.join(prefix, lib, SONAME)
    yield SONAME


# The C structures this module lays out itself, with their C names: each must
# be as large as the loaded library says, or a field was added on one side.
_MIRRORED = {
    "etp_error": Error_, "etp_analysis_options": AnalysisOptions,
    "etp_inspect_options": InspectOptions, "etp_inputs_spec": InputsSpec,
    "etp_publish_options": PublishOptions, "etp_cell": Cell, "etp_column": Column,
    "etp_bundle_artifact_info": BundleArtifact, "etp_bundle_issue": BundleIssue,
    "etp_bundle_input_info": BundleInput, "etp_bundle_manifest": BundleManifest,
    "etp_bundle_metric": BundleMetric, "etp_bundle_cell": BundleCell,
    "etp_bundle_table": BundleTable, "etp_bundle_run_metadata": BundleRunMetadata,
    "etp_diff_identity": DiffIdentity, "etp_diff_options": DiffOptions,
    "etp_diff_value": DiffValue, "etp_diff_row": DiffRow, "etp_diff_warning": DiffWarning,
    "etp_diff": Diff, "etp_diff_gate_outcome": DiffGateOutcome,
    "etp_diff_publish_options": DiffPublishOptions, "etp_numeric_diff_options": NumericDiffOptions,
    "etp_bundle_label": Label, "etp_history_label": Label, "etp_history_run": HistoryRun,
    "etp_store_filter": StoreFilter, "etp_store_runs": StoreRuns,
    "etp_history_point": HistoryPoint, "etp_history_series": HistorySeries,
    "etp_store_series_query": StoreSeriesQuery, "etp_history_series_set": HistorySeriesSet,
    "etp_regression_options": RegressionOptions, "etp_regression": Regression,
    "etp_tensor_view": TensorView, "etp_tensor_stats": TensorStats, "etp_quant_params": QuantParams,
    "etp_tolerance": Tolerance, "etp_tensor_gap": TensorGap, "etp_logged_tensor": LoggedTensor,
    "etp_bundled_output": BundledOutput, "etp_bundled_check": BundledCheck,
    "etp_tensor_set": TensorSet, "etp_tcell": TCell, "etp_tcol": TCol,
}


def _check_layouts(lib):
    for cname, py in _MIRRORED.items():
        want = lib.etp_abi_struct_size(cname.encode())
        if want != ctypes.sizeof(py):
            raise ImportError(f"etprof: {lib.path} lays out {cname} in {want} bytes, this "
                              f"package in {ctypes.sizeof(py)}: the package and the library "
                              "are from different versions")


def _load():
    tried = []
    env = "ETPROF_LIBRARY" in os.environ
    for path in _candidates():
        if os.sep in path and not os.path.exists(path) and not env:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            if env:
                break
            continue
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        lib.path = path
        _check_layouts(lib)
        return lib
    raise ImportError("etprof: libetprof.so.0 not found (set ETPROF_LIBRARY to its path, build "
                      "it with cmake, or install it with `cmake --install build`); tried: "
                      + "; ".join(tried or ["nothing existed"]))


lib = _load()


def text(ptr):
    """Take a malloc'd C string: decode it and free it."""
    if not ptr:
        raise MemoryError("etprof: out of memory")
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.etp_text_free(ptr)


def s(b):
    """A C string (bytes or None) as str or None."""
    return None if b is None else b.decode("utf-8", "replace")


def unit_name(code):
    """The printed name of unit @p code (etp_unit_name(): the library's table)."""
    return s(lib.etp_unit_name(code))


def tick_unit_names():
    """The units ticks are read in and results reported in, in the library's
    order (etp_unit_is_tick())."""
    return tuple(unit_name(u) for u in range(lib.etp_unit_count()) if lib.etp_unit_is_tick(u))


def path_arg(p):
    """A path argument as bytes for C (None stays None)."""
    return None if p is None else os.fsencode(os.fspath(p))
