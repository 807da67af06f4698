#!/usr/bin/env bash
# What reading a run's logged values costs end to end: `etprof gen etdump
# --debug-buffer` writes a run whose every KernelCall logged a float32
# tensor of E elements, then `etprof tensors` (statistics of every value)
# and `etprof analyze` with the buffer are timed: wall and CPU seconds,
# MB/s of tensor bytes, peak RSS (GNU time). The first read warms the page
# cache; the best of three is reported.
#
# usage: bench/tensors.sh [BUILD_DIR] [INSTRUCTIONS] [EXECUTIONS] [ELEMENTS]
# (default 50 x 4 x 1,048,576: about 760 MB of tensors)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-50}; r=${3:-4}; e=${4:-1048576}
E="$build/etprof"
out=$(mktemp -d /tmp/etprof-tensor-bench-XXXXXX)
trap 'rm -rf "$out"' EXIT
"$E" gen etdump -o "$out/run.etdp" --pte "$out/run.pte" --etrecord "$out/run.etrecord" --executions "$r" \
  --instructions "$n" --debug-buffer "$out/run.bin" --tensor-elements "$e" >/dev/null
bytes=$(stat -c %s "$out/run.bin")
best() { # label command...: best wall of 3, with its CPU seconds and peak RSS
  local label=$1; shift
  local bw=1e9 line=""
  "$@" >/dev/null 2>&1 || { echo "$label: failed"; return 1; }
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %U %S %M" -o "$out/t" "$@" >/dev/null 2>&1
    read -r w u s m <"$out/t"
    if python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; line="$w $u $s $m"; fi
  done
  read -r w u s m <<<"$line"
  python3 -c "
w, u, s, m, b = $w, $u, $s, $m, $bytes
print(f'$label: {w:.2f} s wall, {u + s:.2f} s CPU, {b / 1e6 / max(w, 1e-9):.0f} MB/s of tensor bytes, peak RSS {m / 1024:.1f} MiB')"
}
echo "debug buffer: $bytes bytes ($n instructions x $r executions, $e float32 elements each)"
best "etprof tensors --csv" "$E" tensors "$out/run.etdp" "$out/run.pte" --debug-buffer "$out/run.bin" --csv
best "etprof analyze (with the buffer values)" "$E" analyze "$out/run.etdp" "$out/run.pte" "$out/run.etrecord" \
  --debug-buffer "$out/run.bin" --quiet
best "etprof analyze (no buffer)" "$E" analyze "$out/run.etdp" "$out/run.pte" "$out/run.etrecord" --quiet
