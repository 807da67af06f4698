#!/usr/bin/env bash
# What `etprof run` costs on top of the runner: best and median of 9 runs
# of ExecuTorch's executor_runner alone, then of `etprof run -o DIR --` in
# front of the same command (running it, capturing its output, wait4, then
# analysing and publishing the bundle), and etprof's own peak RSS.
# Usage: bench/run_overhead.sh [BUILD_DIR] [SHARED_DIR]
# Needs ../shared/tools/executorch and ../shared/fixtures (the real runners
# and programs); the generated large-input benchmark is bench/run.sh.
set -euo pipefail
build="${1:-build}"
shared="${2:-../shared}"
runner="$shared/tools/executorch/executor_runner"
[ -x "$runner" ] || { echo "no $runner: nothing to measure"; exit 0; }
out=$(mktemp -d /tmp/etprof-run-bench-XXXXXX)
trap 'rm -rf "$out"' EXIT

# Best and median wall time (ms) of 9 runs of "$@" (bash's $EPOCHREALTIME:
# no helper process around the command).
time9() {
  local times=()
  for _ in 1 2 3 4 5 6 7 8 9; do
    local s e
    s=${EPOCHREALTIME/./}
    "$@" > /dev/null 2>&1
    e=${EPOCHREALTIME/./}
    times+=($(( e - s )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.2f %.2f", v[1]/1000, v[5]/1000}'
}

for case in "xnn_np_add_x10 20" "np_dtypes_x10 20" "et_add_x10 1000"; do
  set -- $case
  name=$1 n=$2
  pte="$shared/fixtures/real-runs/$name.pte"
  cmd=("$runner" --model_path "$pte" --etdump_path "$out/$name.etdp" --num_executions "$n")
  read -r bare_best bare_med <<< "$(time9 "${cmd[@]}")"
  read -r run_best run_med <<< "$(time9 "$build/etprof" run -o "$out/bundle" --force --quiet -- "${cmd[@]}")"
  read -r nome_best nome_med <<< "$(time9 "$build/etprof" run -o "$out/bundle" --force --quiet \
    --no-model-explorer -- "${cmd[@]}")"
  /usr/bin/time -v "$build/etprof" run -o "$out/bundle" --force --quiet -- "${cmd[@]}" > /dev/null 2> "$out/t.txt"
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$out/t.txt")
  size=$(stat -c %s "$out/$name.etdp")
  printf '%-16s %5d execs, ETDump %7d B: runner alone best %6.2f ms median %6.2f ms; etprof run best %6.2f median %6.2f ms (+%.2f ms); --no-model-explorer median %6.2f ms (+%.2f ms); peak RSS %s KiB\n' \
    "$name" "$n" "$size" "$bare_best" "$bare_med" "$run_best" "$run_med" \
    "$(awk -v a="$run_med" -v b="$bare_med" 'BEGIN {print a - b}')" "$nome_med" \
    "$(awk -v a="$nome_med" -v b="$bare_med" 'BEGIN {print a - b}')" "$rss"
done
