#!/usr/bin/python3
"""`etprof view`: a bundle published at the light levels (--model-explorer
overlays, --no-model-explorer) gets its graph and page later, byte for byte
those of a full publication of the same inputs; every input is checked
against the manifest's SHA-256 (a changed or different file is refused with
both digests, exit 1, nothing written); a bundle made by `etprof run` is
viewed from its own logs/; recorded --nx-* choices are replayed.

usage: view_check.py ETPROF FIXTURES_DIR [SHARED_TOOLS_DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ETPROF, FIX = sys.argv[1], sys.argv[2]
TOOLS = sys.argv[3] if len(sys.argv) > 3 else ""
if not os.path.isdir(FIX):
    print("SKIP: ../shared/fixtures is absent")
    sys.exit(77)
R = os.path.join(FIX, "real-runs")
TMP = tempfile.mkdtemp(prefix="etprof-view-")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def etprof(args, cwd=TMP):
    p = subprocess.run([ETPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def read(path):
    with open(os.path.join(TMP, path), "rb") as f:
        return f.read()


def same_views(full, view, label):
    for f in ("graph.json", "index.html"):
        a = os.path.join("%s/model_explorer/%s" % (full, f))
        b = os.path.join("%s/model_explorer/%s" % (view, f))
        expect(os.path.exists(os.path.join(TMP, b)) and read(a) == read(b),
               "%s: the view's %s equals a full publication's" % (label, f))
    expect(read(full + "/summary.json") == read(view + "/summary.json"), "%s: summary.json identical" % label)
    rc, out, err = etprof(["verify", view])
    expect(rc == 0, "%s: the view bundle verifies (%s)" % (label, (out + err).strip()))


kws = os.path.join(R, "cm_et_arduino_kws_x10")
inputs = [kws + ".etrecord", "--etdump", kws + ".etdp", "--pte", kws + ".pte", "--log", kws + ".log"]
for level, flag in (("overlays", ["--model-explorer", "overlays"]), ("none", ["--no-model-explorer"])):
    light, full = "kws_" + level, "kws_full"
    rc, _, err = etprof(["analyze"] + inputs + ["-o", light, "--quiet"] + flag)
    expect(rc == 0 and not os.path.exists(os.path.join(TMP, light, "model_explorer", "graph.json")),
           "%s: published without graph.json (%s)" % (level, err.strip()))
    etprof(["analyze"] + inputs + ["-o", full, "--quiet", "--force"])
    rc, out, err = etprof(["view", light])
    expect(rc == 0 and "summary.json" in out, "%s: view publishes %s.view (%d, %s)" % (level, light, rc, err.strip()))
    same_views(full, light + ".view", level)
    rc, out, err = etprof(["view", light])
    expect(rc == 2 and "--force" in err, "%s: an existing view DIR needs --force (%d %s)" % (level, rc, err.strip()))
    rc, out, err = etprof(["view", light, "--force", "-o", light + ".view"])
    expect(rc == 0, "%s: --force replaces it" % level)

# The program given from another place, by its digest: accepted.
os.makedirs(os.path.join(TMP, "elsewhere"))
moved = os.path.join(TMP, "elsewhere", "renamed.pte")
shutil.copy(kws + ".pte", moved)
rc, out, err = etprof(["view", "kws_overlays", moved, "-o", "kws_moved"])
# Its runner log's cross-check names the program's path in a message: the
# analysis made again would not be the one published.
expect(rc == 1 and "paths the bundle recorded" in err and not os.path.exists(os.path.join(TMP, "kws_moved")),
       "a program from another place whose path a message names: refused, saying why (%d %s)" % (rc, err.strip()))

# A changed program: refused with both digests, nothing written.
changed = os.path.join(TMP, "cm_et_arduino_kws_x10.pte")
data = bytearray(open(kws + ".pte", "rb").read())
data[100] ^= 0x55
open(changed, "wb").write(bytes(data))
rc, out, err = etprof(["view", "kws_overlays", changed, "-o", "kws_changed"])
man = json.loads(read("kws_overlays/result_manifest.json"))
want = [i["sha256"] for i in man["provenance"]["inputs"] if i["role"] == "pte"][0]
expect(rc == 1 and want in err and err.count("SHA-256") == 1 and err.count("\n") == 1,
       "a changed program is refused with both digests in one line (%d %s)" % (rc, err.strip()))
expect(not os.path.exists(os.path.join(TMP, "kws_changed")), "a refused view writes nothing")
leftovers = [n for n in os.listdir(TMP) if ".etprof-view-" in n]
expect(not leftovers, "no staging directory left behind (%s)" % leftovers)

# A file that is none of the inputs.
rc, out, err = etprof(["view", "kws_overlays", os.path.join(R, "et_add_x10.pte"), "-o", "kws_other"])
expect(rc == 1 and "none of the inputs" in err, "a file of no recorded digest is refused (%d %s)" % (rc, err.strip()))

# An input changed at its recorded path since publication.
work = os.path.join(TMP, "w")
os.makedirs(work)
shutil.copy(os.path.join(R, "et_add_x10.etdp"), os.path.join(work, "run.etdp"))
rc, _, err = etprof(["analyze", "--etdump", "run.etdp", "--pte", os.path.join(R, "et_add_x10.pte"), "-o", "b",
                     "--no-model-explorer", "--quiet"], cwd=work)
expect(rc == 0, "a bundle of a local ETDump (%s)" % err.strip())
d = bytearray(open(os.path.join(work, "run.etdp"), "rb").read())
d[-1] ^= 1
open(os.path.join(work, "run.etdp"), "wb").write(bytes(d))
rc, out, err = etprof(["view", "b"], cwd=work)
expect(rc == 1 and "changed since" in err and "run.etdp" in err, "an input changed since: refused (%d %s)"
       % (rc, err.strip()))
os.remove(os.path.join(work, "run.etdp"))
rc, out, err = etprof(["view", "b"], cwd=work)
expect(rc == 1 and "give that file" in err, "a missing input: refused, asking for it (%d %s)" % (rc, err.strip()))
shutil.copy(os.path.join(R, "et_add_x10.etdp"), os.path.join(TMP, "given.etdp"))
rc, out, err = etprof(["view", "b", os.path.join(TMP, "given.etdp")], cwd=work)
expect(rc == 0, "the missing input given on the command line: viewed (%s)" % err.strip())

# Options replayed: --skip-executions, --rank-by, --unit, --finding.
rc, _, err = etprof(["analyze", "--etdump", os.path.join(R, "et_add_x10.etdp"), "--pte", os.path.join(R, "et_add_x10.pte"),
                     "-o", "opts", "--no-model-explorer", "--quiet", "--skip-executions", "2", "--rank-by", "max",
                     "--unit", "us", "--finding", "stability.cold_start.min_ratio=1.5"])
if rc == 0:
    rc, out, err = etprof(["view", "opts"])
    expect(rc == 0, "recorded options replayed (%s)" % err.strip())
else:
    expect(False, "a bundle with options (%s)" % err.strip())

# VGF with NX statistics and --nx-* choices.
vgf_pte = os.path.join(FIX, "pte-adapter", "mobilenet_v2_vgf", "input.pte")
if os.path.exists(vgf_pte):
    rc, _, err = etprof(["gen", "vgf-stats", "--pte", vgf_pte, "-o", "vgf", "--executions", "3"])
    expect(rc == 0, "gen vgf-stats (%s)" % err.strip())
    args = ["--pte", vgf_pte, "--etdump", os.path.join(TMP, "vgf", "g1_mode0_v1.etdp"), "--nx-statistics-mode", "0",
            "--nx-profiling-device", "Mali-G1"]
    rc, _, err = etprof(["analyze"] + args + ["-o", "vgf_light", "--model-explorer", "overlays", "--quiet"])
    etprof(["analyze"] + args + ["-o", "vgf_full", "--quiet"])
    meta = json.loads(read("vgf_light/run_metadata.json"))
    expect(meta["options"].get("nx") == {"statistics_mode": 0, "profiling_device": "Mali-G1"},
           "the --nx-* choices are recorded (%s)" % meta["options"].get("nx"))
    rc, out, err = etprof(["view", "vgf_light"])
    expect(rc == 0, "VGF NX bundle viewed with its --nx-* choices (%s)" % err.strip())
    if rc == 0:
        same_views("vgf_full", "vgf_light.view", "vgf")

# A bundle made by `etprof run` with the real runner: viewed from its logs/.
runner = os.path.join(TOOLS, "executor_runner")
if os.path.exists(runner):
    rc, _, err = etprof(["run", "-o", "ran", "--no-model-explorer", "--quiet", "--", runner, "--model_path",
                         os.path.join(R, "np_dtypes_x10.pte"), "--etdump_path", "ran.etdp", "--num_executions", "3"])
    expect(rc == 0 and os.path.isfile(os.path.join(TMP, "ran", "logs", "run.log")),
           "run carries its measurements as logs/run.log (%s)" % err.strip()[-200:])
    rc, out, err = etprof(["view", "ran"])
    expect(rc == 0, "a run bundle is viewed from its own logs/ (%s)" % err.strip())
    if rc == 0:
        meta = json.loads(read("ran.view/run_metadata.json"))
        expect(meta["command_line"].startswith("etprof view "), "the view records its own command")
else:
    print("note: ../shared/tools/executorch is absent; the run bundle case is not run")

shutil.rmtree(TMP, ignore_errors=True)
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all view checks passed")
