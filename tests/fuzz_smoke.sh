#!/usr/bin/env bash
# Fuzz smoke run for CI: build every libFuzzer target with clang and run each
# for a few seconds on the real fixtures as seed corpus. Long campaigns are
# run by hand (see README, "Fuzzing").
set -euo pipefail
src="$1"; fixtures="$2"; seconds="${3:-10}"
if ! command -v clang >/dev/null; then
  echo "SKIP: clang is not installed (needed for libFuzzer)"; exit 77
fi
work=$(mktemp -d /tmp/etprof-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
CC=clang cmake -S "$src" -B "$work/build" -DETP_FUZZ=ON -DETP_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" -j"$(nproc)" >/dev/null
for target in "$work"/build/fuzz_*; do
  name=$(basename "$target")
  corpus="$work/corpus-$name"; mkdir -p "$corpus"
  if [ -d "$fixtures" ]; then
    find "$fixtures" -type f \( -name '*.etdp' -o -name '*.pte' -o -name '*.bpte' -o -name '*.etrecord' -o -name '*.bin' -o -name '*.log' \) \
      -size -1024k -exec cp {} "$corpus/" \;
  fi
  if [ "$name" = fuzz_fastgraph ] && [ -d "$fixtures" ] && command -v python3 >/dev/null; then
    # JSON program entries of the real ETRecords, behind the target's mode byte (1: prune).
    # (-size -1024k: find rounds sizes up to whole units, so -1M would only match empty files.)
    find "$fixtures" -type f \( -name '*.etrecord' -o -name '*.bin' \) -size -1024k -print0 |
      xargs -0 -r python3 -c '
import sys, zipfile
out = sys.argv[1]
for i, path in enumerate(sys.argv[2:]):
    if not zipfile.is_zipfile(path):
        continue
    with zipfile.ZipFile(path) as z:
        for k, n in enumerate(z.namelist()):
            if "program" in n or "_output/" in n:
                data = z.read(n)
                if data[:1] == b"{" and len(data) < 1 << 20:
                    open(f"{out}/seed-{i}-{k}", "wb").write(b"\x01" + data)
' "$corpus"
  fi
  if [ "$name" = fuzz_vgf ] && command -v python3 >/dev/null && command -v flatc >/dev/null; then
    # The real VGFs are 4 MB; a small hand-made one (two segments, GLSL, unknown op) seeds it.
    python3 "$src/tests/vgf_synth.py" write "$src/schema" "$corpus/seed.vgf"
  fi
  dict=()
  if [ -f "$src/fuzz/$name.dict" ]; then dict=(-dict="$src/fuzz/$name.dict"); fi
  echo "== $name ($seconds s)"
  "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 "${dict[@]}" "$corpus" 2>&1 | tail -2
done
