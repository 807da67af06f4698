#!/usr/bin/python3
"""A stand-in for adb, for `etprof run` tests: `adb [-s SERIAL] shell "CMD"`
runs CMD here as the "device" (through sh, like adb's remote shell), and
`adb pull SRC DST` copies a file. FAKE_ADB_TIME_V=KIB appends a device-side
`time -v` block reporting that peak RSS."""
import os
import shutil
import subprocess
import sys

a = sys.argv[1:]
if a[:1] == ["-s"]:
    a = a[2:]
if a[:1] == ["pull"]:
    try:
        shutil.copyfile(a[1], a[2])
    except OSError as e:
        print("adb: error: %s" % e, file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
if a[:1] == ["shell"]:
    rc = subprocess.call(" ".join(a[1:]), shell=True)
    kib = os.environ.get("FAKE_ADB_TIME_V")
    if kib:
        sys.stderr.write("\tCommand being timed: \"%s\"\r\n\tMaximum resident set size (kbytes): %s\r\n"
                         "\tExit status: %d\r\n" % (" ".join(a[1:]), kib, rc))
    sys.exit(rc)
sys.exit(2)
