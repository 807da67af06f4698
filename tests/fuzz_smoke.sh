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
    python3 "$src/tests/vgf_synth.py" write "$src/schemas/flatbuffers" "$corpus/seed.vgf"
  fi
  if [ "$name" = fuzz_nx_record ]; then
    # VGF neural statistics: the unit test's wrapper shapes and blobs, behind the mode byte.
    printf '\x00{"schema":"executorch.vgf.neural_statistics","schema_version":1,"backend":"VgfBackend","api":"VK_ARM_data_graph","event_name":"VGF_NEURAL_STATISTICS","api_available":true,"data_available":true,"available":true,"reason":"","segments":[{"segment_id":0,"is_data_graph_pipeline":true,"statistics_bind_point_available":true,"statistics_memory_host_visible":true,"statistics_memory_host_coherent":true,"statistics_bind_point_reason":"","debug_database":{"available":true,"is_text":false,"vulkan_result":0,"size":3,"encoding":"base64","reason":"","data":"AQID"},"statistics_info":{"available":true,"is_text":true,"vulkan_result":0,"size":4,"encoding":"base64","reason":"","data":"aW5mbw=="},"statistics_memory":{"available":true,"is_text":false,"vulkan_result":0,"size":2,"encoding":"base64","reason":"","data":"3q0="}}]}' >"$corpus/vgf-v1"
    printf '\x01id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\nid\tapi_label\n----\nid\ttosa_op_ids\n20\t10\n----\nid\tfused_op_ids\n30\t20\n----\nid\tcascade_op_ids\n40\t30\n----\nid\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n' >"$corpus/vgf-ddb"
    printf '\x02\xff\xee\x11\x22\x01\x00\x00\x00\x08\x00\x00\x00\x03\x00\x00\x00\x07\x00\x00\x00' >"$corpus/vgf-info"
    printf '\x033, 7\n0x10;' >"$corpus/vgf-info-text"
    { printf '\x0b'; head -c 4096 /dev/zero; } >"$corpus/vgf-mem"
  fi
  dict=()
  if [ -f "$src/fuzz/$name.dict" ]; then dict=(-dict="$src/fuzz/$name.dict"); fi
  echo "== $name ($seconds s)"
  "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 "${dict[@]}" "$corpus" 2>&1 | tail -2
done
