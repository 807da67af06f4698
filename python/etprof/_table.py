"""The entity table of an analysis, read a column at a time from C
(etp_column_read) and turned into Python values without a call per cell."""
import ctypes
from array import array

from . import _lib

STR, INT, UINT, NUM, BOOL, INTS, STRS = range(7)
ENTITY, TIMING, KERNEL, DISPATCH, NX = range(5)
GROUP_KEYS = {TIMING: "timing", KERNEL: "kernel", DISPATCH: "dispatch_overhead", NX: "nx"}
VALUE, GROUP = 1, 2
_CELL = ctypes.sizeof(_lib.Cell)
_WORDS = _CELL // 8  # a cell is a union: its first 8 bytes are the scalar


def columns():
    n = ctypes.c_size_t()
    table = _lib.lib.etp_columns(ctypes.byref(n))
    return [table[i] for i in range(n.value)]


def _strings(ptrs, cache):
    out = []
    for p in ptrs:
        if not p:
            out.append(None)
            continue
        v = cache.get(p)
        if v is None:
            v = cache[p] = ctypes.string_at(p).decode("utf-8", "replace")
        out.append(v)
    return out


def read_column(a, col, count, cache, nx=False):
    """Values of column @col for all @count entities (@nx: NX rows), and
    their presence bits."""
    cells = (_lib.Cell * count)()
    present = (ctypes.c_uint8 * count)()
    read = _lib.lib.etp_column_read_nx if nx else _lib.lib.etp_column_read
    if count and read(a, col.id, 0, count, cells, present):
        raise RuntimeError("etprof: etp_column_read refused a valid range")
    raw = bytes(cells)
    bits = bytes(present)
    t = col.type
    if t == NUM:
        vals = array("d", raw)[::_WORDS].tolist()
    elif t == INT:
        vals = array("q", raw)[::_WORDS].tolist()
    elif t == UINT:
        vals = array("Q", raw)[::_WORDS].tolist()
    elif t == BOOL:
        vals = [bool(v) for v in array("i", raw)[::_WORDS * 2]]
    elif t == STR:
        vals = _strings(array("Q", raw)[::_WORDS], cache)
    else:
        ptrs = array("Q", raw)[::_WORDS]
        lens = array("I", raw)[2::_WORDS * 2]
        vals = []
        for p, n in zip(ptrs, lens):
            if not n:
                vals.append([])
            elif t == INTS:
                vals.append(array("q", ctypes.string_at(p, 8 * n)).tolist())
            else:
                vals.append(_strings(array("Q", ctypes.string_at(p, 8 * n)), cache))
    return vals, bits


class EntityTable:
    """Every column of every entity (etprof/columns.h), read once; then the
    same columns of the NX rows (VGF cycle groups, which operators.csv
    writes after the entities and operators.json as "nx_groups")."""

    def __init__(self, a, unit):
        self.cols = columns()
        self.count = _lib.lib.etp_analysis_entity_count(a)
        self.nx_count = _lib.lib.etp_analysis_nx_row_count(a)
        cache = {}
        self.values, self.bits = [], []
        for c in self.cols:
            v, b = read_column(a, c, self.count, cache)
            nv, nb = read_column(a, c, self.nx_count, cache, nx=True)
            self.values.append(v + nv)
            self.bits.append(b + nb)
        self.headers = []
        for c in self.cols:
            buf = ctypes.create_string_buffer(128)
            _lib.lib.etp_column_header(ctypes.byref(c), unit, buf, len(buf))
            self.headers.append(buf.value.decode())

    def records(self, nx=False):
        """The entities as the analysis JSON writes them (etp_json_entity):
        entity members when present; a group as one object when the entity
        has it ("timing": null when it has none). @nx: the NX rows instead,
        as operators.json's "nx_groups" holds them."""
        out = []
        cols = self.cols
        keys = [c.key.decode() for c in cols]
        groups = [c.group for c in cols]
        rows = range(self.count, self.count + self.nx_count) if nx else range(self.count)
        for k in rows:
            rec = {}
            sub = None
            open_group = ENTITY
            for i in range(len(cols)):
                g = groups[i]
                b = self.bits[i][k]
                if g != open_group:
                    open_group = g
                    if g == ENTITY:
                        sub = None
                    elif b & GROUP:
                        sub = rec[GROUP_KEYS[g]] = {}
                    else:
                        sub = None
                        if g == TIMING:
                            rec["timing"] = None
                if g == ENTITY:
                    if b & VALUE:
                        rec[keys[i]] = self.values[i][k]
                elif sub is not None:
                    sub[keys[i]] = self.values[i][k]
            out.append(rec)
        return out

    def table(self, ids):
        """Columns @ids as {header: (type, [values])} over the entities and
        then the NX rows, None where a cell is empty (operators.csv leaves
        the field empty)."""
        index = {c.id: i for i, c in enumerate(self.cols)}
        out = {}
        for cid in ids:
            i = index[cid]
            vals, bits = self.values[i], self.bits[i]
            out[self.headers[i]] = (self.cols[i].type,
                                    [v if b & VALUE else None for v, b in zip(vals, bits)])
        return out


# pandas dtypes that keep an empty cell empty without turning integers into
# floats: nullable integers and booleans; times are floats (NaN when empty).
PANDAS_DTYPES = {INT: "Int64", UINT: "UInt64", BOOL: "boolean", NUM: "float64"}

