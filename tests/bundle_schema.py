"""Validate an emitted result_manifest.json against schemas/json/result_manifest.v1.schema.json,
then check the schema rejects what it must (each mutation on a fresh copy).

usage: bundle_schema.py SCHEMA BUNDLE_DIR
Needs the jsonschema module (Debian python3-jsonschema); without it the test fails.
"""
import copy
import json
import sys

import jsonschema

schema_path, bundle_dir = sys.argv[1], sys.argv[2]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

with open(f"{bundle_dir}/result_manifest.json", encoding="utf-8") as f:
    manifest = json.load(f)

errors = sorted(validator.iter_errors(manifest), key=str)
if errors:
    for e in errors:
        print(f"emitted manifest fails the schema at {list(e.absolute_path)}: {e.message}")
    sys.exit(1)
assert manifest["artifacts"], "the test bundle should declare artifacts"
paths = [a["path"] for a in manifest["artifacts"]]
assert paths == sorted(paths, key=lambda p: p.encode()), f"artifacts not sorted: {paths}"
assert len(set(paths)) == len(paths), "duplicate artifact paths"


def art(m):
    return m["artifacts"][0]


def drop(key):
    def f(m):
        del m[key]
    return f


def setk(key, value):
    def f(m):
        m[key] = value
    return f


def set_art(key, value):
    def f(m):
        art(m)[key] = value
    return f


must_reject = {
    "wrong schema id": setk("schema", "hpx.result-manifest"),
    "schema_version 2": setk("schema_version", 2),
    "schema_version as string": setk("schema_version", "1"),
    "schema_version true": setk("schema_version", True),
    "no artifacts member": drop("artifacts"),
    "no provenance": drop("provenance"),
    "no run_id": drop("run_id"),
    "run_id not a uuid": setk("run_id", "run-1"),
    "local-time timestamp": setk("timestamp", "2026-01-02T03:04:05+01:00"),
    "status unknown": setk("status", "done"),
    "validity unknown": setk("validity", "fine"),
    "issue without code": lambda m: m["issues"].append({"severity": "error", "message": "x"}),
    "absolute path": set_art("path", "/etc/passwd"),
    "dot-dot path": set_art("path", "../x"),
    "inner dot-dot": set_art("path", "detailed/../../x"),
    "dot component": set_art("path", "./summary.json"),
    "backslash path": set_art("path", "detailed\\x.json"),
    "empty component": set_art("path", "detailed//x.json"),
    "trailing slash": set_art("path", "detailed/"),
    "control char": set_art("path", "a\nb"),
    "empty path": set_art("path", ""),
    "negative size": set_art("size_bytes", -1),
    "fractional size": set_art("size_bytes", 1.5),
    "boolean size": set_art("size_bytes", True),
    "uppercase sha": lambda m: art(m).__setitem__("sha256", art(m)["sha256"].upper()),
    "short sha": set_art("sha256", "abc"),
    "schema_version 0 on artifact": set_art("schema_version", 0),
    "options without digest": lambda m: m["provenance"].pop("options_sha256"),
    "input without sha": lambda m: m["provenance"]["inputs"][0].pop("sha256"),
}
must_accept = {
    "unknown root member": setk("x_future", {"a": 1}),
    "unknown artifact member": set_art("x_future", [1, 2]),
    "extension content": lambda m: m["extensions"].__setitem__("vendor", {"k": "v"}),
    "hidden file path": set_art("path", ".hidden/x..y"),
}
failed = 0
for name, mutate in must_reject.items():
    m = copy.deepcopy(manifest)
    mutate(m)
    if validator.is_valid(m):
        print(f"schema accepted a manifest it must reject: {name}")
        failed = 1
for name, mutate in must_accept.items():
    m = copy.deepcopy(manifest)
    mutate(m)
    errs = list(validator.iter_errors(m))
    if errs:
        print(f"schema rejected a manifest it must accept: {name}: {errs[0].message}")
        failed = 1
if not failed:
    print(f"ok: manifest valid ({len(paths)} artifacts); {len(must_reject)} rejections, "
          f"{len(must_accept)} acceptances as expected")
sys.exit(failed)
