"""etdump_build.py - hand-built ETDumps for tests: events written as JSON in
the ETDump schema and turned into the binary by flatc (Debian
flatbuffers-compiler), an encoder independent of etprof. Standard library only."""
import json
import os
import subprocess

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas", "flatbuffers")


def pe(name, instr, start, end, chain=0):
    """One profile event of instruction @instr (chain -1: a framework event)."""
    return {"profile_event": {"name": name, "chain_index": chain, "instruction_id": instr,
                              "start_time": start, "end_time": end}}


def write(work, name, runs):
    """WORK/NAME.etdp from RunData dicts (run_data of the schema); its path."""
    src = os.path.join(work, name + ".json")
    with open(src, "w") as f:
        json.dump({"run_data": runs}, f)
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", work, os.path.join(SCHEMA, "etdump.fbs"), src],
                   check=True)
    return os.path.join(work, name + ".etdp")
