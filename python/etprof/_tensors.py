"""The values a run logged (etprof/tensors.h), read from the analysis' tensor
set: the table of etprof/tensor_columns.h as a DataFrame, one value's
elements as a numpy array (a view of the debug buffer where numpy has the
element type), and the bundled program's check."""
import ctypes
import json
import math

from . import _errors, _lib

# etp_tcell_kind
NONE, STR, INT, UINT, DOUBLE, BOOL = range(6)
# etp_dtype_class
DTYPE_UNKNOWN, DTYPE_INTEGER, DTYPE_FLOAT, DTYPE_UNDECODED = range(4)
_CELL_BUF = 512

# ExecuTorch ScalarType -> the numpy dtype its stored bytes are (little-endian).
# The quantized types are their stored integers, Bits8/Bits16 unsigned.
# BFloat16 (15) and the Float8 types (23-26) have no numpy dtype: they are
# decoded by the library (etp_tensor_values) into float32, which holds each
# of their values exactly.
NUMPY_DTYPES = {
    0: "u1", 1: "i1", 2: "<i2", 3: "<i4", 4: "<i8", 5: "<f2", 6: "<f4", 7: "<f8",
    9: "<c8", 10: "<c16", 11: "?", 12: "i1", 13: "u1", 14: "<i4", 21: "u1", 22: "<u2",
    27: "<u2", 28: "<u4", 29: "<u8",
}


def tensor_set(a):
    """The analysis' etp_tensor_set (a pointer), or a usage error."""
    s = _lib.lib.etp_analysis_tensor_set(a)
    if not s:
        raise _errors.usage("the analysis has no logged values: give analyze() the debug buffer "
                            "(debug_buffer=PATH, the runner's --debug_output_path), or a log "
                            "that carries one")
    return s


def columns():
    """The column table (etp_tensor_columns()): a list of dicts."""
    n = _lib.lib.etp_tensor_column_count()
    t = _lib.lib.etp_tensor_columns()
    return [{"name": _lib.s(t[i].name), "unit": _lib.s(t[i].unit),
             "additive": bool(t[i].additive), "meaning": _lib.s(t[i].meaning)}
            for i in range(n)]


def read_table(a):
    """Every cell of every logged value through etp_tensor_cell(): a dict
    column name -> (values, kinds seen)."""
    s = tensor_set(a)
    ts = s.contents
    cols = columns()
    buf = ctypes.create_string_buffer(_CELL_BUF)
    size = ctypes.sizeof(_lib.LoggedTensor)
    base = ctypes.cast(ts.items, ctypes.c_void_p).value if ts.count else 0
    cell = _lib.lib.etp_tensor_cell
    strings = {}
    out = []
    for c in range(len(cols)):
        vals, kinds = [], set()
        for i in range(ts.count):
            v = cell(base + i * size, c, buf, _CELL_BUF)
            k = v.kind
            kinds.add(k)
            if k == STR:
                p = v.s
                # Strings borrowed from the set repeat (origins, operators):
                # one Python str each; those in the buffer are read each time.
                text = strings.get(p) if p != ctypes.addressof(buf) else None
                if text is None:
                    text = ctypes.string_at(p).decode("utf-8", "replace")
                    if p != ctypes.addressof(buf):
                        strings[p] = text
                vals.append(text)
            elif k == INT:
                vals.append(v.i)
            elif k == UINT:
                vals.append(v.u)
            elif k == DOUBLE:
                vals.append(v.d)
            elif k == BOOL:
                vals.append(bool(v.i))
            else:
                vals.append(None)
        out.append((cols[c]["name"], vals, kinds - {NONE}))
    return out


def dataframe(a):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("etprof: tensors() needs pandas (apt-get install python3-pandas)") from e
    data, names = {}, []
    for name, vals, kinds in read_table(a):
        names.append(name)
        if kinds and kinds <= {INT, UINT}:
            data[name] = pandas.array(vals, dtype="Int64")
        elif kinds == {DOUBLE}:
            data[name] = pandas.array([math.nan if v is None else v for v in vals], dtype="float64")
        elif kinds == {BOOL}:
            data[name] = pandas.array(vals, dtype="boolean")
        else:
            data[name] = pandas.array(vals, dtype=object)
    return pandas.DataFrame(data, columns=names)


def find(a, key, execution):
    if not isinstance(key, str):
        raise _errors.usage(f"key is a logged value's key (\"forward_0_1/0\", \"output/0\"), got {key!r}")
    if isinstance(execution, bool) or not isinstance(execution, int) or not -1 <= execution < 2 ** 31:
        raise _errors.usage(f"execution is an execution index from 0 (-1: outside the analysed "
                            f"executions), got {execution!r}")
    p = _lib.lib.etp_tensor_set_find(tensor_set(a), key.encode(), execution)
    if not p:
        raise _errors.usage(f"no logged value {key!r} in execution {execution}")
    return p.contents


def values(a, key, execution, buffer, buffer_address):
    """The elements of one logged value as a numpy array of its shape."""
    import numpy as np
    t = find(a, key, execution)
    v = t.view
    shape = tuple(v.sizes[i] for i in range(v.rank))
    if not t.has_bytes or not v.data:
        raise _errors.usage(f"{key!r} (execution {execution}) was logged without its bytes")
    dtype = NUMPY_DTYPES.get(v.scalar_type)
    if dtype is not None:
        dtype = np.dtype(dtype)
        if v.numel == 0:
            return np.empty(shape, dtype)
        if buffer is not None and t.buffer_offset >= 0 and v.data == buffer_address + t.buffer_offset:
            # A read-only view of the debug buffer's bytes: no copy.
            arr = np.frombuffer(buffer, dtype=dtype, count=v.numel, offset=t.buffer_offset)
        else:  # a scalar's own bytes (owned by the set): copied
            arr = np.frombuffer(ctypes.string_at(v.data, v.nbytes), dtype=dtype, count=v.numel)
        return arr.reshape(shape)
    if t.dtype_class != DTYPE_FLOAT:
        raise _errors.usage(f"{key!r} (execution {execution}): element type {v.scalar_type} is not "
                            "read as numbers (complex half, packed sub-byte, or unknown)")
    # BFloat16 / Float8: decoded by the library, each value exact in float32.
    out = np.empty(v.numel, dtype=np.float64)
    if v.numel:
        _lib.lib.etp_tensor_values(ctypes.byref(v), 0, v.numel,
                                   out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    return out.astype(np.float32).reshape(shape)


_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _numbers(d):
    """The JSON's non-finite figures ("NaN", "Infinity") as floats."""
    for k, v in d.items():
        if isinstance(v, dict):
            _numbers(v)
        elif isinstance(v, str) and v in _SPECIAL:
            d[k] = _SPECIAL[v]
    return d


def document(a, nvalues=0):
    """The etprof.tensors document (`etprof tensors --json`) as text."""
    tensor_set(a)
    return _lib.text(_lib.lib.etp_analysis_tensors_json(a, nvalues, None))


def bundled_check(a):
    s = tensor_set(a)
    c = json.loads(document(a))["bundled_check"]
    c["bundled_program"] = bool(s.contents.bundled.bundled_program)
    for o in c["outputs"]:
        _numbers(o["gap"])
    return c
