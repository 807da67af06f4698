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

# End to end, as a user runs it: process start to exit, best and median of
# 7 runs of `etprof analyze` (program only, then program + ETRecord). The
# clock is bash's own $EPOCHREALTIME: starting `date` processes around the
# command would add their own start-up to every figure.
e2e() {
  local label=$1; shift
  local times=()
  for _ in 1 2 3 4 5 6 7; do
    local s e
    s=${EPOCHREALTIME/./}
    "$build/etprof" analyze "$@" --quiet
    e=${EPOCHREALTIME/./}
    times+=($(( e - s )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v l="$label" \
    '{v[NR]=$1} END {printf "etprof analyze %-22s best %6.1f ms  median %6.1f ms\n", l, v[1]/1000, v[4]/1000}'
}
e2e "--pte" --etdump "$out/run.etdp" --pte "$out/model.pte"
e2e "ETRECORD --pte" "$out/model.etrecord" --etdump "$out/run.etdp" --pte "$out/model.pte"

# `etprof trace` of the whole run (--force: it is over the 200 MB guard),
# written to a file beside the inputs: best and median of 5 runs, then the
# size guard's estimate alone (the refusal without --force).
trace_e2e() {
  local label=$1; shift
  local times=()
  for _ in 1 2 3 4 5; do
    local s e
    s=${EPOCHREALTIME/./}
    "$build/etprof" trace "$out/run.etdp" "$@" --quiet 2>/dev/null || true
    e=${EPOCHREALTIME/./}
    times+=($(( e - s )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v l="$label" \
    '{v[NR]=$1} END {printf "etprof trace %-24s best %6.1f ms  median %6.1f ms\n", l, v[1]/1000, v[3]/1000}'
}
trace_e2e "--force (whole run)" --pte "$out/model.pte" --etrecord "$out/model.etrecord" --force \
  -o "$out/trace.json"
ls -l "$out/trace.json" | awk '{printf "etprof trace: %d bytes\n", $5}'
rm -f "$out/trace.json"
trace_e2e "(refused: estimate only)" --pte "$out/model.pte" --etrecord "$out/model.etrecord" \
  -o "$out/trace.json"

# Publication next to the analysis (`analyze -o` vs `analyze`, alternating),
# its peak RSS against the ETDump and the bundle's size.
"$build/bench_publish" "$build/etprof" "$out/publish" 5
# ... and each of its writers alone, one thread, into a byte counter.
"$build/bench_writers" "$out/run.etdp" "$out/model.pte" "$out/model.etrecord" 5

# VGF decode (issue 15): the ~4 MB VGFs of the shared fixtures, when present.
for f in ../shared/fixtures/vgf-adapter/mobilenet_v2/input.vgf \
         ../shared/fixtures/pte-adapter/mobilenet_v2_vgf/input.pte; do
  if [ -f "$f" ]; then "$build/bench_vgf" "$f" 50; fi
done

# VGF NX statistics (issue 16): 1,000 executions x 1,000 stripes aggregated
# (with each execution's stripe-id list decoded), plus one execution's
# statistics memory and wrapper JSON decoded (MB/s) and peak RSS.
"$build/bench_nx_stats" 1000 1000
