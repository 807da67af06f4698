#!/usr/bin/env bash
# The install story end to end, offline: `cmake --install` puts
# libetprof.so, the headers and etprof.pc in a prefix; a C program builds
# against them with pkg-config alone; `pip install --no-build-isolation
# ./python` (Debian's pip and setuptools, no index) installs the package into
# a virtual environment whose prefix holds the library, and the package
# finds it there without ETPROF_LIBRARY.
# PYTHON3 "PATH" means the first python3 on PATH, as the README's line runs
# it: the test skips (77) when that is Debian's /usr/bin/python3 (the other
# test covers it), so that a pyenv or other interpreter without the wheel
# package is tested where there is one.
# usage: python_install.sh BUILD_DIR PYTHON3|PATH CC SANITIZE(0|1)
set -euo pipefail
build=$1 py=$2 cc=$3 sanitize=$4
if [ "$py" = PATH ]; then
  py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
    { echo "SKIP: no python3 on PATH"; exit 77; }
  if [ "$(realpath "$py")" = "$(realpath /usr/bin/python3 2>/dev/null || true)" ]; then
    echo "SKIP: the first python3 on PATH is /usr/bin/python3"; exit 77
  fi
  echo "python3 on PATH: $py ($("$py" --version 2>&1))"
fi
src=${ETP_SOURCE_DIR:?}
runs=${ETP_FIXTURES:?}/real-runs
[ -d "$runs" ] || { echo "SKIP: $runs absent"; exit 77; }
tmp=$(mktemp -d /tmp/etprof-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# 1. C: headers + pkg-config + the shared library.
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pc=$(find "$tmp/prefix" -name etprof.pc)
so=$(find "$tmp/prefix" -name 'libetprof.so.0')
[ -n "$pc" ] && [ -n "$so" ] && [ -f "$tmp/prefix/include/etprof/analysis.h" ] ||
  { echo "FAIL: install is missing etprof.pc, libetprof.so.0 or the headers"; exit 1; }
libdir=$(dirname "$so")
flags=()
[ "$sanitize" = 1 ] && flags=(-fsanitize=address,undefined)
# shellcheck disable=SC2046 # pkg-config prints words to split
"$cc" -std=c11 -Wall -Werror "${flags[@]}" "$src/examples/analyze_and_read.c" -o "$tmp/example" \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs etprof)
out=$(LD_LIBRARY_PATH=$libdir "$tmp/example" "$runs/et_add_x10.etdp" "$runs/et_add_x10.pte")
echo "$out" | grep -q "over 10 executions" || { echo "FAIL: example printed: $out"; exit 1; }
echo "pkg-config build of examples/analyze_and_read.c against the prefix: ok"

# 2. Python: pip into a venv (system site packages: pytest/pandas come from
# Debian), the library installed into the venv's prefix.
if ! "$py" -m venv --system-site-packages "$tmp/venv" 2>"$tmp/venv.err"; then
  cat "$tmp/venv.err"
  echo "FAIL: python3 -m venv does not work (Debian: apt-get install python3-venv)"
  exit 1
fi
cp -r "$src/python" "$tmp/pkg"   # pip builds in place: keep the source tree clean
# The README's line: --no-build-isolation, with whatever setuptools/wheel
# the interpreter has (none needed).
"$tmp/venv/bin/python" -m pip install -q --no-build-isolation --no-index --no-deps "$tmp/pkg" \
  2>&1 | grep -v "Running pip as the 'root' user" || true
"$tmp/venv/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("etprof") is None)' ||
  { echo "FAIL: pip did not install the package with $py"; exit 1; }
cmake --install "$build" --prefix "$tmp/venv" >/dev/null
pre=()
[ "$sanitize" = 1 ] && pre=(env "LD_PRELOAD=$("$cc" -print-file-name=libasan.so)"
                          "ASAN_OPTIONS=detect_leaks=0")
cd "$tmp"
env -u ETPROF_LIBRARY "${pre[@]}" "$tmp/venv/bin/python" - "$runs" "$tmp/venv" <<'PY'
import os, sys
import etprof
runs, venv = sys.argv[1], sys.argv[2]
assert etprof.__file__.startswith(venv), etprof.__file__
assert os.path.realpath(etprof.library_path()).startswith(os.path.realpath(venv)), \
    etprof.library_path()
with etprof.analyze(f"{runs}/et_add_x10.etdp", pte=f"{runs}/et_add_x10.pte") as a:
    assert a.executions == 10 and a.figure("method_execute")["samples"] == 10
print("pip-installed package found", etprof.library_path())
PY
echo "1 passed, 0 failed"
