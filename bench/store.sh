#!/usr/bin/env bash
# The run-history store's speed, on SQLite and on a PostgreSQL server:
#  1. `etprof db ingest` of N demo-sized bundles (`etprof gen demo` +
#     `analyze -o`, with model_explorer/), end to end in one process, with
#     --jobs 1 and 2: bundles per second; bytes stored per run;
#  2. the same for reference-run bundles (50 executions x 10,000
#     instructions, a 67 MB bundle each);
#  3. a history of 100,000 runs (1,000 series of 100) and the series query
#     over all of it, then over one device.
# The bundles are copies of one published bundle with their own run id
# (distinct manifests: each is verified, read and stored as any other).
# PostgreSQL is a throwaway cluster with the server's durable defaults
# (fsync, synchronous commits), on a Unix socket.
#
# usage: bench/store.sh [BUILD_DIR] [N_BUNDLES] [REF_COPIES]
# Build it Release: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
n=${2:-1000}
refs=${3:-4}
E="$build/etprof"
B="$build/bench_ingest"
out=$(mktemp -d /tmp/etprof-store-bench-XXXXXX)
cleanup() {
  bash "$here/../tests/tools/pg_cluster.sh" stop "$out/pg" >/dev/null 2>&1 || true
  rm -rf "$out"
}
trap cleanup EXIT

# Copies of bundle $1 under $2, $3 of them, each with its own run id.
variants() {
  python3 - "$1" "$2" "$3" <<'EOF'
import json, os, shutil, sys, uuid
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dst)
for i in range(n):
    d = os.path.join(dst, "b%05d" % i)
    shutil.copytree(src, d)
    m = os.path.join(d, "result_manifest.json")
    j = json.load(open(m))
    j["run_id"] = str(uuid.uuid4())
    json.dump(j, open(m, "w"), indent=2)
EOF
}

# `etprof db ingest` of directory $2 into $1 with options $3...: wall
# seconds, the process's user + system CPU seconds (GNU time), and the load
# average when it ended (this machine is shared: wall time includes waiting
# for a CPU).
ingest_time() {
  local target=$1 dir=$2; shift 2
  /usr/bin/time -f "%e %U %S" -o "$out/time.txt" "$E" db ingest --db "$target" "$dir" --quiet "$@"
  echo "$(cat "$out/time.txt") $(cut -d' ' -f1 /proc/loadavg)"
}

report() { # label target dir count [options]
  local label=$1 target=$2 dir=$3 count=$4; shift 4
  local t info
  t=$(ingest_time "$target" "$dir" "$@")
  info=$("$E" db info --db "$target" --json)
  python3 -c '
import json, sys
label, t, count, info = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), json.loads(sys.argv[4])
wall, cpu, load = float(t[0]), float(t[1]) + float(t[2]), t[3]
print("%-20s %5d bundles: %7.2f s wall, %7.1f bundles/s; client CPU %6.2f ms/bundle; load %s; "
      "%d runs, %.0f bytes/run" % (label, count, wall, count / wall, cpu * 1000 / count, load,
                                   info["runs"], info["bytes_per_run"]))
' "$label" "$t" "$count" "$info"
}

echo "== inputs"
"$E" gen demo -o "$out/demo" >/dev/null
"$E" analyze "$out/demo/model.etrecord" --etdump "$out/demo/run.etdp" --pte "$out/demo/model.pte" \
  --source-unit ns -o "$out/demo-bundle" --quiet --label device=pixel7 --label model=demo
du -sh "$out/demo-bundle" | sed 's/^/demo bundle: /'
variants "$out/demo-bundle" "$out/demo-n" "$n"

ETP_PG_DURABLE=1 bash "$here/../tests/tools/pg_cluster.sh" start "$out/pg" >/dev/null
pg() { bash "$here/../tests/tools/pg_cluster.sh" createdb "$out/pg" "$1"; }

echo "== demo-sized bundles ($n)"
report "sqlite   --jobs 1" "$out/demo1.db" "$out/demo-n" "$n"
report "sqlite   --jobs 2" "$out/demo2.db" "$out/demo-n" "$n" --jobs 2
report "postgres --jobs 1" "$(pg demo1)" "$out/demo-n" "$n"
report "postgres --jobs 2" "$(pg demo2)" "$out/demo-n" "$n" --jobs 2

echo "== reference-run bundles ($refs)"
"$E" gen etdump -o "$out/ref.etdp" --executions 50 --instructions 10000 --delegate-every 10 --seed 1 \
  --pte "$out/ref.pte" --etrecord "$out/ref.etrecord"
"$E" analyze "$out/ref.etrecord" --etdump "$out/ref.etdp" --pte "$out/ref.pte" -o "$out/ref-bundle" \
  --quiet --label device=pixel7 --label model=ref
rm -f "$out/ref.etdp" "$out/ref.pte" "$out/ref.etrecord"
du -sh "$out/ref-bundle" | sed 's/^/reference bundle: /'
variants "$out/ref-bundle" "$out/ref-n" "$refs"
report "sqlite   --jobs 1" "$out/ref1.db" "$out/ref-n" "$refs"
report "sqlite   --jobs 2" "$out/ref2.db" "$out/ref-n" "$refs" --jobs 2
report "postgres --jobs 1" "$(pg ref1)" "$out/ref-n" "$refs"
report "postgres --jobs 2" "$(pg ref2)" "$out/ref-n" "$refs" --jobs 2
rm -rf "$out/ref-n" "$out/ref-bundle"

echo "== a history of 100,000 runs: 1,000 series (100 programs x 10 devices) of 100"
for target in "$out/big.db" "$(pg big)"; do
  "$B" fill "$target" "$out/demo-bundle" 1000 100
  "$B" series "$target" method_execute.avg 7
  "$B" series "$target" method_execute.avg 7 dev3
done
