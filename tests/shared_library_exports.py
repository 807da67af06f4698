#!/usr/bin/env python3
"""libetprof.so exports exactly the public API.

usage: shared_library_exports.py LIBETPROF_SO LIBETPROF_A SOURCE_DIR

Read independently of the build's own export map (cmake/export_map.py):
  - every dynamic symbol the shared library defines is an etp_ function
    whose name a public header (include/etprof/*.h, gen.h aside) declares
    as "NAME(";
  - every function the static library defines that a public header
    declares is exported (nothing public was hidden by mistake);
  - the library's SONAME is libetprof.so.<major> and internal helpers are
    not reachable.
Prints each violation; exit 1 on any."""
import glob
import os
import re
import subprocess
import sys


def defined(path, dynamic):
    args = ["nm", "--defined-only"] + (["-D"] if dynamic else []) + [path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        m = re.match(r"^[0-9a-fA-F]+\s+(\S)\s+(\S+)$", line.strip())
        if m:
            names[m.group(2).split("@")[0]] = m.group(1)
    return names


def main():
    so, static, root = sys.argv[1:4]
    headers = [h for h in glob.glob(os.path.join(root, "include", "etprof", "*.h"))
               if os.path.basename(h) != "gen.h"]
    text = "\n".join(open(h, encoding="utf-8").read() for h in headers)
    declared = set(re.findall(r"\b(etp_\w+)\s*\(", text))
    bad = []
    exported = defined(so, True)
    for name, kind in sorted(exported.items()):
        if not name.startswith("etp_"):
            bad.append(f"exported but not etprof's: {name} ({kind})")
        elif name not in declared:
            bad.append(f"exported but declared in no public header: {name}")
        elif kind not in "TW":
            bad.append(f"exported non-function: {name} ({kind})")
    implemented = {n for n, k in defined(static, False).items() if k in "T"}
    for name in sorted((declared & implemented) - set(exported)):
        bad.append(f"public function not exported: {name}")
    for internal in ("etp_jw_init_mem", "etp_operators_csv", "etp_analysis_write_json"):
        if internal in implemented and internal in exported:
            bad.append(f"internal function exported: {internal}")
    dyn = subprocess.run(["objdump", "-p", so], capture_output=True, text=True,
                         check=True).stdout
    soname = re.search(r"SONAME\s+(\S+)", dyn)
    if not soname or not re.fullmatch(r"libetprof\.so\.\d+", soname.group(1)):
        bad.append(f"SONAME is {soname.group(1) if soname else 'missing'}, not libetprof.so.N")
    for b in bad:
        print(b)
    print(f"{len(exported)} exported, {len(declared & implemented)} public functions implemented, "
          f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
