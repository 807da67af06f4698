#!/usr/bin/env bash
# Snapshot every output of etprof on the real runs and generated inputs, for a
# byte-for-byte comparison of two builds (run it with each, then diff -r the two
# folders; run id and timestamp are normalised). Used to show a refactor changes
# no output. Usage: tests/tools/outputs_snapshot.sh ETPROF OUTDIR [FIXTURES]
set -u
E=$(readlink -f "$1"); O=$2
F=$(readlink -f "${3:-$(dirname "$0")/../../../shared/fixtures}"); R=$F/real-runs
[ -d "$R" ] || { echo "no fixtures at $F" >&2; exit 77; }
rm -rf "$O"; mkdir -p "$O"; cd "$O"
run() { local name=$1; shift; "$E" "$@" >"$name.out" 2>"$name.err"; echo "rc=$?" >>"$name.out"; }
for spec in cm_et_arduino_kws_x10 et_add_x1 et_add_x10 np_dtypes_x10 np_multi_forward_x10:forward np_multi_forward_x10:double xnn_np_add_x10 et_bundled_program_debug_intermediate:bpte np_const_methods_get_tensor_x3:get_tensor; do
  n=${spec%%:*}; x=${spec#*:}; [ "$x" = "$spec" ] && x=
  p=$R/$n.pte; m=(); tag=$n
  if [ "$x" = bpte ]; then p=$R/$n.bpte; elif [ -n "$x" ]; then m=(--method $x); tag=$n.$x; fi
  run $tag.analyze analyze --etdump $R/$n.etdp --pte $p "${m[@]}" --json
  run $tag.analyze_txt analyze --etdump $R/$n.etdp --pte $p "${m[@]}"
  run $tag.analyze_log analyze --etdump $R/$n.etdp --pte $p "${m[@]}" --log $R/$n.log --json
  run $tag.bundle analyze --etdump $R/$n.etdp --pte $p "${m[@]}" --log $R/$n.log -o $tag.b1 --detailed
  run $tag.bundlej analyze --etdump $R/$n.etdp --pte $p "${m[@]}" -o $tag.b2 --format json --json
  run $tag.inspect inspect $R/$n.etdp --pte $p "${m[@]}" --json
  run $tag.inspect_txt inspect $R/$n.etdp --pte $p "${m[@]}"
  run $tag.inspect_raw inspect $R/$n.etdp --json --raw
  run $tag.trace trace $R/$n.etdp --pte $p "${m[@]}" -o $tag.trace.json
  run $tag.graph graph $p -o $tag.graph.json
  run $tag.dump dump $R/$n.etdp --json
  run $tag.dumpo dump $R/$n.etdp
  run $tag.dumpp dump $p
done
K=cm_et_arduino_kws_x10
run kws.et analyze $R/$K.etrecord --etdump $R/$K.etdp --pte $R/$K.pte --json
run kws.et_txt analyze $R/$K.etrecord --etdump $R/$K.etdp --pte $R/$K.pte --source-unit cycles --unit cycles
run kws.etb analyze $R/$K.etrecord --etdump $R/$K.etdp --pte $R/$K.pte --log $R/$K.log -o kws.b --detailed
run kws.etbc analyze $R/$K.etrecord --etdump $R/$K.etdp --pte $R/$K.pte --source-unit cycles --cpu-hz 100000000 -o kws.bc --format json
run kws.etonly analyze $R/$K.etrecord --etdump $R/$K.etdp -o kws.b3
run kws.trace trace $R/$K.etdp --pte $R/$K.pte --etrecord $R/$K.etrecord -o kws.trace.json
run kws.dumpr dump $R/$K.etrecord --json
run kws.dumpro dump $R/$K.etrecord
run sample.dumpr dump $F/executorch/sample_etrecord.bin --json
run sample.dumpro dump $F/executorch/sample_etrecord.bin
for t in tutorial synthetic_multi_run; do
  run $t.inspect inspect $F/executorch/$t.etdp --json; run $t.inspect_txt inspect $F/executorch/$t.etdp
  run $t.dump dump $F/executorch/$t.etdp --json; run $t.trace trace $F/executorch/$t.etdp -o $t.trace.json
done
for p in add module_linear arduino_add; do run $p.graph graph $F/executorch/$p.pte -o $p.graph.json; run $p.dump dump $F/executorch/$p.pte --json; done
for d in mobilenet_v2_ethosu mobilenet_v2_vgf; do run $d.graph graph $F/pte-adapter/$d/input.pte -o $d.graph.json; run $d.dump dump $F/pte-adapter/$d/input.pte; done
run mismatch analyze --etdump $R/xnn_np_add_x10.etdp --pte $R/cm_et_arduino_kws_x10.pte -o mm
head -c 700 $R/et_add_x10.etdp > trunc.etdp; run trunc analyze --etdump trunc.etdp --pte $R/et_add_x10.pte -o tr; run trunci inspect trunc.etdp; rm -f trunc.etdp
run gen_demo gen demo -o demo
run demo.b analyze demo/model.etrecord --etdump demo/run.etdp --pte demo/model.pte --source-unit ns -o demo/result --detailed
run demo.txt analyze demo/model.etrecord --etdump demo/run.etdp --pte demo/model.pte
run demo.j analyze demo/model.etrecord --etdump demo/run.etdp --pte demo/model.pte --json
run gen_mid gen etdump -o mid.etdp --executions 5 --instructions 3000 --delegate-every 10 --seed 3 --pte mid.pte --etrecord mid.etrecord
run mid.b analyze mid.etrecord --etdump mid.etdp --pte mid.pte -o mid.b --detailed --format json
run mid.j analyze mid.etrecord --etdump mid.etdp --pte mid.pte --json
run mid.trace trace mid.etdp --pte mid.pte --etrecord mid.etrecord -o mid.trace.json
run mid.inspect inspect mid.etdp --pte mid.pte --json
run list analyze --list-issue-codes
# Device-log fixture: an Arm runner's console carrying its ETDump.
D=$F/device-logs/arm_serial_kws_u85.log
run devlog.j analyze --log $D --pte $R/$K.pte --etrecord $R/$K.etrecord --json
run devlog.b analyze --log $D --pte $R/$K.pte --etrecord $R/$K.etrecord -o devlog.b --detailed
run devlog.txt analyze --log $D --pte $R/$K.pte
# VGF: generated NX statistics for the fixture VGF program, each capture analysed.
V=$F/pte-adapter/mobilenet_v2_vgf/input.pte
run gen_vgf gen vgf-stats --pte $V -o gvs
for e in gvs/*.etdp; do b=$(basename $e .etdp)
  run vgf.$b.j analyze $e $V --json; run vgf.$b.txt analyze $e $V
done
run vgf.b analyze gvs/g1_mode0_v2.etdp $V -o vgf.b --detailed
rm -rf gvs
# Diffs: bundles and ETDumps, every output form.
run gen_base gen etdump -o base.etdp --executions 8 --instructions 400 --delegate-every 10 --seed 5 --pte base.pte --etrecord base.etrecord
run gen_new gen etdump -o new.etdp --executions 8 --instructions 400 --delegate-every 10 --seed 5 --slowdown 17:1.8
cp base.pte new.pte; cp base.etrecord new.etrecord
run base.b analyze base.etdp base.pte base.etrecord -o base.b --detailed
run new.b analyze new.etdp new.pte new.etrecord -o new.b --detailed
run new.bs analyze new.etdp new.pte new.etrecord -o new.bs
run diff.txt diff base.b new.b
run diff.j diff base.b new.b --json
run diff.csv diff base.b new.b --csv
run diff.o diff base.b new.b -o diff.b
run diff.p50 diff base.b new.bs --stat p50 --json
run diff.e diff base.etdp new.etdp --json --top 0
run diff.gate diff base.b new.b --fail-if-slower 5
run diff.kws diff $R/cm_et_arduino_kws_x10.etdp kws.b --base-pte $R/$K.pte --json
run diff.xo diff $R/et_add_x10.etdp $R/et_add_x1.etdp --json
rm -f base.etdp new.etdp base.pte new.pte base.etrecord new.etrecord
# The reference run (REF=1; large: 70 MB ETDump).
if [ "${REF:-0}" = 1 ]; then
  run gen_ref gen etdump -o ref.etdp --executions 50 --instructions 10000 --delegate-every 10 --pte ref.pte --etrecord ref.etrecord
  run ref.j analyze ref.etrecord --etdump ref.etdp --pte ref.pte --json
  run ref.txt analyze ref.etrecord --etdump ref.etdp --pte ref.pte
  run ref.b analyze ref.etrecord --etdump ref.etdp --pte ref.pte -o ref.b --detailed
  rm -f ref.etdp ref.pte ref.etrecord
fi
rm -f mid.etdp mid.pte mid.etrecord demo/model.pte demo/run.etdp demo/model.etrecord
# normalise what may differ: run id and timestamp, confined to manifest and run metadata
python3 - <<'PY'
import json, os
for root, _, files in os.walk('.'):
    for f in files:
        if f in ('result_manifest.json', 'run_metadata.json'):
            p = os.path.join(root, f); d = json.load(open(p))
            for k in ('run_id', 'timestamp'): d.pop(k, None)
            for i in d.get('provenance', {}).get('inputs', []):  # a bundle's manifest holds its run id
                if i.get('name') == 'result_manifest.json': i.pop('sha256', None)
            for a in d.get('artifacts', []):
                if a.get('path') == 'run_metadata.json': a.pop('sha256', None); a.pop('size_bytes', None); a.pop('size', None)
            json.dump(d, open(p + '.norm', 'w'), indent=1, sort_keys=True); os.remove(p)
PY
# a log carrying its ETDump is decoded into a temporary folder whose name is random
grep -rlZ --exclude='*.html' -E '/tmp/etprof-[a-z]+-[A-Za-z0-9]{6}' . 2>/dev/null | xargs -0 -r sed -i -E 's#/tmp/etprof-([a-z]+)-[A-Za-z0-9]{6}#/tmp/etprof-\1-XXXXXX#g'
exit 0
