#!/usr/bin/env bash
# End to end on generated inputs (runs under ASan in the sanitizer build):
# the demo triple and a mid-size generated run with each delegate backend,
# analysed, published and verified.
set -euo pipefail
etprof="$1"
work=$(mktemp -d /tmp/etprof-smoke-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$etprof" gen demo -o "$work/demo-valid" >/dev/null
# the README's demo is VALID (--fail-on warning exits 3 on anything less)
"$etprof" analyze "$work/demo-valid/model.etrecord" --etdump "$work/demo-valid/run.etdp" \
  --pte "$work/demo-valid/model.pte" --source-unit ns --fail-on warning --quiet
# the variant with shared and unresolved timings, for the handles below
"$etprof" gen demo --flaws -o "$work/demo" >/dev/null
"$etprof" analyze "$work/demo/model.etrecord" --etdump "$work/demo/run.etdp" --pte "$work/demo/model.pte" \
  --source-unit ns -o "$work/out" --detailed >/dev/null
"$etprof" verify "$work/out"
"$etprof" analyze "$work/demo/model.etrecord" --etdump "$work/demo/run.etdp" --json >/dev/null
# trace --etrecord: handles from the maps (delegate events through the delegate map only)
"$etprof" trace "$work/demo/run.etdp" --pte "$work/demo/model.pte" --etrecord "$work/demo/model.etrecord" \
  -o "$work/trace.json"
/usr/bin/python3 - "$work/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
h = {(e["name"], tuple(e["args"]["debug_handles"])) for e in ev if e.get("args", {}).get("debug_handles")}
want = {("delegate 0", (4,)), ("delegate 1", (5, 6)), ("VulkanBackend", (4, 5, 6)), ("aten::_softmax.out", (12,))}
sys.exit(0 if want <= h else "trace handles missing: %s" % (want - h))
PY
for backend in xnnpack vulkan; do
  "$etprof" gen etdump -o "$work/$backend.etdp" --executions 4 --instructions 400 --delegate-every 7 \
    --backend "$backend" --seed 3 --pte "$work/$backend.pte" --etrecord "$work/$backend.etrecord" >/dev/null
  "$etprof" analyze "$work/$backend.etrecord" --etdump "$work/$backend.etdp" --pte "$work/$backend.pte" \
    --source-unit ns -o "$work/out-$backend" --format json --detailed >/dev/null
  "$etprof" verify "$work/out-$backend"
  "$etprof" inspect "$work/$backend.etdp" --pte "$work/$backend.pte" >/dev/null
done
echo "smoke ok"
