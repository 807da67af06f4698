"""etprof.inspect(): the per-event table of an ETDump, as `etprof inspect`
(the Python Inspector's print_data_tabular counterpart, every sample kept)."""
import ctypes
import json

from . import _analysis, _errors, _lib

_STATS = ("avg", "p10", "p50", "p90", "min", "max")


def inspect(etdump, pte=None, method=None, source_unit="ns", unit="ms", cpu_hz=None, raw=False):
    """Group the ETDump's runs into blocks and summarise every event.

    pte: name instructions from the program and infer each block's method.
    raw: keep every sample of every event (a "samples" list per event).
    Returns an Inspection (plain Python data: nothing to release)."""
    if method is not None and pte is None:
        raise _errors.usage("method needs a pte program")
    source_code, target_code = _analysis.check_units(source_unit, unit, cpu_hz)
    opt = _lib.InspectOptions()
    _lib.lib.etp_inspect_options_init(ctypes.byref(opt))
    opt.source_unit, opt.target_unit = source_code, target_code
    opt.cpu_hz = float(cpu_hz or 0.0)
    method_b = method.encode() if method is not None else None
    opt.method = method_b
    lib = _lib.lib
    inputs = _analysis.open_inputs(etdump, pte)
    table = ctypes.c_void_p()
    try:
        d, p = lib.etp_inputs_etdump(inputs), lib.etp_inputs_program(inputs)
        opt.program = p
        err = _errors.new_error()
        _errors.check(lib.etp_inspect_run(d, ctypes.byref(opt), ctypes.byref(table),
                                          ctypes.byref(err)), err)
        doc = json.loads(_lib.text(lib.etp_inspect_json(table, d, p, int(bool(raw)), None)))
    finally:
        lib.etp_inspect_free(table)
        lib.etp_inputs_free(inputs)
    return Inspection(doc)


class Inspection:
    """The document `etprof inspect --json` prints, with a flat event table.

    .blocks: runs with the same event signature, each with its "events" and
    "summary"; .events: one dict per (block, event) with the block's index,
    name and method first; .to_dataframe(): that table in pandas, times
    named with their unit ("avg_ms")."""

    def __init__(self, doc):
        self.doc = doc
        self.unit = doc["units"]["target"]
        self.blocks = doc["blocks"]

    @property
    def events(self):
        rows = []
        for b in self.blocks:
            for e in b["events"]:
                row = {"block": b["index"], "block_name": b["name"], "method": b.get("method")}
                row.update(e)
                rows.append(row)
        return rows

    def to_dataframe(self):
        try:
            import pandas
        except ImportError as e:
            raise ImportError("etprof: to_dataframe() needs pandas "
                              "(apt-get install python3-pandas)") from e
        rows = []
        for r in self.events:
            r = dict(r)
            r.pop("unit", None)
            for k in _STATS:
                if k in r:
                    r[f"{k}_{self.unit}"] = r.pop(k)
            rows.append(r)
        return pandas.DataFrame(rows)

    def to_dict(self):
        return self.doc

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def __repr__(self):
        return f"<etprof.Inspection {len(self.blocks)} blocks, {len(self.events)} events>"
