#!/usr/bin/env bash
# End to end on generated inputs (runs under ASan in the sanitizer build):
# the demo triple and a mid-size generated run with each delegate backend,
# analysed, published and verified.
set -euo pipefail
etprof="$1"
work=$(mktemp -d /tmp/etprof-smoke-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$etprof" gen demo -o "$work/demo" >/dev/null
"$etprof" analyze "$work/demo/model.etrecord" --etdump "$work/demo/run.etdp" --pte "$work/demo/model.pte" \
  --source-unit ns -o "$work/out" --detailed >/dev/null
"$etprof" verify "$work/out"
"$etprof" analyze "$work/demo/model.etrecord" --etdump "$work/demo/run.etdp" --json >/dev/null
for backend in xnnpack vulkan; do
  "$etprof" gen etdump -o "$work/$backend.etdp" --executions 4 --instructions 400 --delegate-every 7 \
    --backend "$backend" --seed 3 --pte "$work/$backend.pte" --etrecord "$work/$backend.etrecord" >/dev/null
  "$etprof" analyze "$work/$backend.etrecord" --etdump "$work/$backend.etdp" --pte "$work/$backend.pte" \
    --source-unit ns -o "$work/out-$backend" --format json --detailed >/dev/null
  "$etprof" verify "$work/out-$backend"
  "$etprof" inspect "$work/$backend.etdp" --pte "$work/$backend.pte" >/dev/null
done
echo "smoke ok"
