"""Reading a published result bundle back: etprof.open_bundle() and
etprof.load_result_manifest(). Verification (etp_bundle_open with verify)
refuses a bundle whose declared artifacts are missing, modified, outside the
directory or reached through a symlink."""
import ctypes
import json
import os
import threading

from . import _errors, _lib

_s = _lib.s


def _inputs(ptr, n):
    return [{"role": _s(i.role), "name": _s(i.name), "path": _s(i.path),
             "size_bytes": i.size if i.has_digest else None,
             "sha256": _s(i.sha256)} for i in (ptr[k] for k in range(n))]


def _loads(b):
    return None if b is None else json.loads(b.decode("utf-8", "replace"))


def open_bundle(directory, verify=True):
    """Open the bundle published in @directory. With verify (the default) it
    must pass `etprof verify`, and each artifact read must still have its
    declared SHA-256. Returns a Bundle (a context manager); raises
    etprof.Error (FormatError for a missing manifest or a failed check)."""
    out = ctypes.c_void_p()
    err = _errors.new_error()
    path = _lib.path_arg(directory)
    _errors.check(_lib.lib.etp_bundle_open(path, int(bool(verify)), ctypes.byref(out),
                                           ctypes.byref(err)), err)
    return Bundle(out, os.fspath(directory))


def load_result_manifest(path, verify=True):
    """The result manifest at @path (result_manifest.json, or the bundle
    directory holding it) as a dict, after verifying the bundle (verify=True:
    every artifact present, unmodified and inside the directory)."""
    path = os.fspath(path)
    directory = path
    if os.path.basename(path.rstrip("/")) == "result_manifest.json":
        directory = os.path.dirname(path.rstrip("/")) or "."
    with open_bundle(directory, verify) as b:
        return b.manifest


class Bundle:
    """A published bundle read back (etprof/bundle.h): .manifest, .metrics,
    .operators (the table as read: column -> values), .run_metadata,
    .to_dataframe(). The values are copied out when opened; close() frees
    the C document (also on garbage collection)."""

    def __init__(self, handle, directory):
        self._doc = handle
        self._lock = threading.Lock()
        self.directory = directory
        lib = _lib.lib
        m = lib.etp_bundle_doc_manifest(handle).contents
        self.manifest = {
            "bundle_type": _s(m.bundle_type), "run_id": _s(m.run_id),
            "timestamp": _s(m.timestamp),
            "tool": {"name": _s(m.tool_name), "version": _s(m.tool_version)},
            "status": _s(m.status), "validity": _s(m.validity),
            "issues": [{"code": _s(i.code), "severity": _s(i.severity),
                        "message": _s(i.message), "context": _loads(i.context_json)}
                       for i in (m.issues[k] for k in range(m.issue_count))],
            "artifacts": [{"path": _s(a.path), "media_type": _s(a.media_type),
                           "role": _s(a.role), "schema": _s(a.schema),
                           "schema_version": a.schema_version or None, "size_bytes": a.size,
                           "sha256": _s(a.sha256)}
                          for a in (m.artifacts[k] for k in range(m.artifact_count))],
            "inputs": _inputs(m.inputs, m.input_count),
            "options": _loads(m.options_json), "options_sha256": _s(m.options_sha256),
        }
        n = ctypes.c_uint32()
        mp = lib.etp_bundle_doc_metrics(handle, ctypes.byref(n))
        self.metrics = {}
        for k in range(n.value):
            x = mp[k]
            if x.available:
                v = {"name": _s(x.name), "value": x.value, "unit": _s(x.unit),
                     "aggregation": _s(x.aggregation), "additive": bool(x.additive),
                     "samples": x.samples}
            else:
                v = {"name": _s(x.name), "availability": "unavailable", "unit": _s(x.unit),
                     "reason": _s(x.reason)}
            self.metrics[v["name"]] = v
        t = lib.etp_bundle_doc_operators(handle).contents
        self.operators_source = _s(t.source)
        self.columns = [_s(t.columns[c]) for c in range(t.column_count)]
        cols = {c: [] for c in self.columns}
        for r in range(t.row_count):
            for c, name in enumerate(self.columns):
                cell = t.cells[r * t.column_count + c]
                cols[name].append(None if cell.type == 0 else bool(cell.boolean)
                                  if cell.type == 1 else cell.number if cell.type == 2
                                  else _s(cell.text))
        self.operators = cols
        rm = lib.etp_bundle_doc_run_metadata(handle).contents
        self.run_metadata = {
            "run_id": _s(rm.run_id), "timestamp": _s(rm.timestamp),
            "tool": {"name": _s(rm.tool_name), "version": _s(rm.tool_version)},
            "command_line": _s(rm.command_line), "options": _loads(rm.options_json),
            "inputs": _inputs(rm.inputs, rm.input_count),
        }

    @property
    def validity(self):
        return self.manifest["validity"]

    def to_dataframe(self):
        """The operators table as read from the bundle, as a DataFrame."""
        import pandas
        return pandas.DataFrame(self.operators, columns=self.columns)

    def close(self):
        with self._lock:
            d, self._doc = self._doc, None
            if d:
                _lib.lib.etp_bundle_close(d)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"<etprof.Bundle {self.directory!r} {self.validity}>"
