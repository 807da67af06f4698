#!/usr/bin/env bash
# Benchmark: generate the 70 MB ETDump (50 executions x 10,000
# instructions, a delegate every 10th) with its program and ETRecord, then
# measure decode + inspect and the full analysis. Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
build="${1:-build}"
out=$(mktemp -d /tmp/etprof-bench-XXXXXX)
trap 'rm -rf "$out"' EXIT
"$build/etprof" gen etdump -o "$out/run.etdp" --executions 50 --instructions 10000 \
  --delegate-every 10 --seed 1 --pte "$out/model.pte" --etrecord "$out/model.etrecord"
"$build/etprof_bench" "$out/run.etdp" --repeat 5
"$build/etprof_bench" "$out/run.etdp" --pte "$out/model.pte" --etrecord "$out/model.etrecord" --repeat 3
/usr/bin/time -v "$build/etprof" inspect "$out/run.etdp" > /dev/null 2> "$out/time.txt" || true
grep -E "Elapsed|Maximum resident" "$out/time.txt" | sed 's/^/etprof inspect: /'
