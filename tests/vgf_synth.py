#!/usr/bin/python3
"""A small VGF made here, byte by byte (flatc -b builds the tables from JSON
with schemas/flatbuffers/vgf.fbs; the SPIR-V words and the header are written by this
script), covering what the real fixtures do not: format 0.4.3 with 8-aligned
sections, two segments (a graph and a compute one with a GLSL module), an
unknown TOSA opcode, a graph constant, an intermediate resource; the same
VGF as a program's delegate stored in a segment (extended header). Then broken
variants of it, each of which etprof must refuse with a one-line error and
exit status 1 (never a crash).

usage:
  vgf_synth.py check ETPROF SCHEMA_DIR   run the checks below
  vgf_synth.py write SCHEMA_DIR OUT.vgf  write the good file (fuzz seed)

The expected graph is derived by hand from the adapter's rules
(shared/specs/vgf.md 4.2-4.4), written out below, not taken from etprof.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

TOSA_CLAMP, TOSA_ADD, TOSA_UNKNOWN = 10, 14, 999


def spv_string(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 4)
    return list(struct.unpack("<%dI" % (len(b) // 4), b))


def inst(op, *operands):
    words = []
    for o in operands:
        words += o if isinstance(o, list) else [o]
    return [((len(words) + 1) << 16) | op] + words


def spirv(mutate=None):
    """The module; ids are fixed so the expectations below can name them."""
    ids = dict(tosa=1, i32=2, i8=3, c4=4, arr=5, c1=6, c2=7, c3=8, shape=9, t=10, ptr=11,
               vin=12, vout=13, c0=14, cmin=15, cmax=16, cnan=17, gtype=18, gc=19, g=20,
               inp=21, r1=22, r2=23, r3=24)
    i = ids
    body = [
        inst(17, 4174), inst(17, 4191),                         # OpCapability
        inst(11, i["tosa"], spv_string("TOSA.001000.1")),       # OpExtInstImport
        inst(14, 0, 3),                                         # OpMemoryModel Logical Vulkan
        inst(5, i["vin"], spv_string("g0_arg_0")),              # OpName
        inst(21, i["i32"], 32, 0), inst(21, i["i8"], 8, 0),     # OpTypeInt
        inst(43, i["i32"], i["c4"], 4),                         # OpConstant
        inst(28, i["arr"], i["i32"], i["c4"]),                  # OpTypeArray
        inst(43, i["i32"], i["c1"], 1), inst(43, i["i32"], i["c2"], 2),
        inst(43, i["i32"], i["c3"], 3),
        inst(44, i["arr"], i["shape"], i["c1"], i["c2"], i["c2"], i["c3"]),
        inst(4163, i["t"], i["i8"], i["c4"], i["shape"]),       # OpTypeTensorARM
        inst(32, i["ptr"], 0, i["t"]),                          # OpTypePointer
        inst(59, i["ptr"], i["vin"], 0), inst(59, i["ptr"], i["vout"], 0),
        inst(43, i["i32"], i["c0"], 0),
        inst(43, i["i8"], i["cmin"], 244), inst(43, i["i8"], i["cmax"], 127),
        inst(43, i["i32"], i["cnan"], 1),
        inst(4190, i["gtype"], 1, i["t"], i["t"]),              # OpTypeGraphARM
        inst(4181, i["t"], i["gc"], 0),                         # OpGraphConstantARM
        inst(4182, i["g"], spv_string("g0"), i["vin"], i["vout"]),
        inst(4183, i["gtype"], i["g"]),                         # OpGraphARM
        inst(4184, i["t"], i["inp"], i["c0"]),                  # OpGraphInputARM
        inst(12, i["t"], i["r1"], i["tosa"], TOSA_CLAMP, i["cmin"], i["cmax"], i["cnan"],
             i["inp"]),
        inst(12, i["t"], i["r2"], i["tosa"], TOSA_ADD, i["r1"], i["gc"]),
        inst(12, i["t"], i["r3"], i["tosa"], TOSA_UNKNOWN, i["r2"]),
        inst(4185, i["r3"], i["c0"]),                           # OpGraphSetOutputARM
        inst(4186),                                             # OpGraphEndARM
    ]
    if mutate:
        body = mutate(body, ids)
    words = [0x07230203, 0x00010500, 0, 25, 0]
    for b in body:
        words += b
    return words


def tables(spirv_words):
    modules = {"modules": [
        {"type": "GRAPH", "name": "g0", "entry_point": "g0", "code_type": "SPIRV",
         "code": {"words": spirv_words}},
        {"type": "COMPUTE", "name": "shader", "entry_point": "main", "code_type": "GLSL",
         "code": {"code": "void main() {}"}}]}
    sequence = {
        "segments": [
            {"type": "GRAPH", "name": "seg_graph", "module_index": 0,
             "set_infos": [{"bindings": [{"binding": 0, "mrt_index": 1},
                                         {"binding": 1, "mrt_index": 2}]}],
             "inputs": [{"binding": 0, "mrt_index": 1}],
             "outputs": [{"binding": 1, "mrt_index": 2}],
             "constants": [0], "dispatch_shape": [0, 0, 0]},
            {"type": "COMPUTE", "name": "seg_compute", "module_index": 1,
             "set_infos": [{"bindings": [{"binding": 0, "mrt_index": 2},
                                         {"binding": 1, "mrt_index": 3}], "set_index": 0}],
             "inputs": [{"binding": 0, "mrt_index": 2}],
             "outputs": [{"binding": 1, "mrt_index": 3}],
             "dispatch_shape": [1, 1, 1],
             "push_constant_ranges": [{"stage_flags": 32, "offset": 0, "size": 16}]}],
        "inputs": [{"binding": 0, "mrt_index": 1}],
        "outputs": [{"binding": 1, "mrt_index": 3}],
        "input_names": ["x"], "output_names": ["y"]}
    tensor = 1000460000
    resources = {"mrt_entry": [
        {"vk_descriptor_type": 4294967295, "vk_format": 14, "category": "CONSTANT",
         "description": {"shape": [1, 2, 2, 3], "strides": []}},
        {"vk_descriptor_type": tensor, "vk_format": 14, "category": "INPUT",
         "description": {"shape": [1, 2, 2, 3], "strides": []}},
        {"vk_descriptor_type": tensor, "vk_format": 14, "category": "INTERMEDIATE",
         "description": {"shape": [1, 2, 2, 3], "strides": []}},
        {"vk_descriptor_type": tensor, "vk_format": 99, "category": "OUTPUT",
         "description": {"shape": [1, 2, 2, 3], "strides": [48, 24, 12, 4]},
         "alias_group_id": 7}]}
    return modules, sequence, resources


def flatc_binary(schema, root, obj, tmp):
    src = os.path.join(tmp, root + ".json")
    with open(src, "w") as f:
        json.dump(obj, f)
    subprocess.run(["flatc", "-b", "--root-type", root, "-o", tmp, schema, src], check=True)
    with open(os.path.join(tmp, root + ".bin"), "rb") as f:
        return f.read()


def constants(payload=b"\x01" * 12, offset=0):
    return (b"CONST00\0" + struct.pack("<Q", 1) +
            struct.pack("<IiQQ", 0, -1, len(payload), offset) + payload + b"\0" * 4)


def build(schema, tmp, mutate=None, tweak=None, const=None):
    modules, sequence, resources = tables(spirv(mutate))
    if tweak:
        tweak(modules, sequence, resources)
    secs = [flatc_binary(schema, "ModuleTable", modules, tmp),
            flatc_binary(schema, "ModelSequenceTable", sequence, tmp),
            flatc_binary(schema, "ModelResourceTable", resources, tmp),
            const if const is not None else constants()]
    out, table = bytearray(128), []
    for s in secs:
        out += b"\0" * (-len(out) % 8)   # 0.4.3: sections start 8-aligned
        table.append((len(out), len(s)))
        out += s
    out[0:4] = b"VGF1"
    out[8:11] = bytes([0, 4, 3])
    for k, (o, n) in enumerate(table):
        struct.pack_into("<QQ", out, 16 + 16 * k, o, n)
    return bytes(out)


def expected_nodes():
    """Hand derivation (vgf.md 4.2): module 0's counter gives Clamp's three
    attribute constants 0..2, Clamp 3; Add's graph constant 4, Add 5; the
    unknown op 6; the terminator 7. Lines: id + 2 + 2 variables + 1 entry
    point + 1; columns: 8 + len("%N") with N counting ops and graph constants."""
    return [
        ("GraphInputs", "Graph Inputs", "", [], []),
        ("3", "Clamp", "g0", [("loc", 'loc("-":9:10)'), ("min_val", "-12 : i8"),
                              ("max_val", "127 : i8"), ("nan_mode", "1 : i32")],
         ["0", "1", "2", "mrt_1"]),
        ("5", "Add", "g0", [("loc", 'loc("-":11:10)')], ["3", "4"]),
        ("6", "Unknown", "g0", [("loc", 'loc("-":12:10)')], ["5"]),
        ("7", "GraphOutputs", "g0", [("loc", 'loc("-":13:5)')], ["6"]),
        ("mrt_1", "VK_DESCRIPTOR_TYPE_TENSOR_ARM", "",
         [("Shape", "[1, 2, 2, 3]"), ("Category", "INPUT"), ("Format", "VK_FORMAT_R8_SINT")],
         ["GraphInputs"]),
        ("mrt_2", "VK_DESCRIPTOR_TYPE_TENSOR_ARM", "", [], ["7"]),
        ("GraphOutputs", "Graph Outputs", "", [], ["mrt_3"]),
        ("mrt_2", "VK_DESCRIPTOR_TYPE_TENSOR_ARM", "",
         [("Shape", "[1, 2, 2, 3]"), ("Category", "INTERMEDIATE"),
          ("Format", "VK_FORMAT_R8_SINT")], []),
        ("mrt_3", "VK_DESCRIPTOR_TYPE_TENSOR_ARM", "", [], []),
        ("GraphOutputs", "Graph Outputs", "", [], ["mrt_3"]),
    ]


def pte_with_segment(schema_dir, vgf, tmp):
    """A program whose VgfBackend delegate is in a segment: flatc builds the
    FlatBuffer, then the extended header "eh00" goes in at byte 8 (every
    offset after it moves with it, so only the root offset changes), and the
    VGF follows at the segment base (16-aligned)."""
    prog = {"execution_plan": [{
        "name": "forward",
        "chains": [{"instructions": [{"instr_args_type": "DelegateCall",
                                      "instr_args": {"delegate_index": 0, "args": [0, 1]}}]}],
        "delegates": [{"id": "VgfBackend", "processed": {"location": "SEGMENT", "index": 0},
                       "compile_specs": [{"key": "output_format", "value": list(b"vgf")}]}]}],
        "segments": [{"offset": 0, "size": len(vgf)}]}
    src = os.path.join(tmp, "prog.json")
    with open(src, "w") as f:
        json.dump(prog, f)
    subprocess.run(["flatc", "-b", "-o", tmp, os.path.join(schema_dir, "program.fbs"), src],
                   check=True)
    out = os.path.join(tmp, "prog.pte")  # program.fbs names the extension
    if not os.path.exists(out):
        out = os.path.join(tmp, "prog.bin")
    with open(out, "rb") as f:
        fb = bytearray(f.read())
    hlen = 32
    root = struct.unpack_from("<I", fb, 0)[0] + hlen
    body = bytes(fb[8:])
    size = 8 + hlen + len(body)
    base = (size + 15) // 16 * 16
    head = struct.pack("<I", root) + bytes(fb[4:8]) + b"eh00" + struct.pack("<IQQQ", hlen, size,
                                                                          base, len(vgf))
    return head + body + b"\0" * (base - size) + vgf


def run(etprof, *args):
    return subprocess.run([etprof] + list(args), capture_output=True, text=True)


def broken_variants():
    """(name, build kwargs, post-processing of the bytes, expected words in the message)."""
    def wc_zero(body, ids):
        body[5][0] &= 0xFFFF
        return body

    def wc_long(body, ids):
        body[-1][0] = (200 << 16) | 4186
        return body

    def self_ref(body, ids):
        # The shape composite lists itself: a cycle among constants.
        body[12][3] = ids["shape"]
        return body

    def forward_operand(body, ids):
        # Clamp's input is the Add result that comes after it.
        body[-5][-1] = ids["r2"]
        return body

    def out_of_bound(body, ids):
        body[-4][-1] = 4000
        return body

    def no_end(body, ids):
        return body[:-1]

    def bad_module(m, s, r):
        s["segments"][0]["module_index"] = 5

    def bad_mrt(m, s, r):
        s["segments"][1]["outputs"][0]["mrt_index"] = 9

    def bad_dispatch(m, s, r):
        s["segments"][1]["dispatch_shape"] = [1, 1]

    def cut(n):
        return lambda b: b[:n]

    def patch(off, data):
        return lambda b: b[:off] + data + b[off + len(data):]

    return [
        ("truncated header", {}, cut(100), "128-byte header"),
        ("bad magic", {}, patch(0, b"VGF2"), ""),
        ("section past the end", {}, patch(56, struct.pack("<Q", 1 << 40)), "runs past"),
        ("cut inside a section", {}, cut(400), "runs past"),
        ("word count 0", {"mutate": wc_zero}, None, "word count of 0"),
        ("word count past the end", {"mutate": wc_long}, None, "runs past the end"),
        ("constant cycle", {"mutate": self_ref}, None, "before (or without) its definition"),
        ("operand used before definition", {"mutate": forward_operand}, None,
         "not a graph input, an earlier operation"),
        ("id out of bound", {"mutate": out_of_bound}, None, "outside the bound"),
        ("graph without end", {"mutate": no_end}, None, "no OpGraphEndARM"),
        ("module index", {"tweak": bad_module}, None, "refers to module 5"),
        ("resource index", {"tweak": bad_mrt}, None, "refers to resource 9"),
        ("dispatch shape", {"tweak": bad_dispatch}, None, "dispatch shape"),
        ("constant past the payload", {"const": constants(offset=64)}, None,
         "runs past the constant section"),
    ]


def check(etprof, schema_dir):
    schema = os.path.join(schema_dir, "vgf.fbs")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "synth.vgf")
        with open(good, "wb") as f:
            f.write(build(schema, tmp))
        r = run(etprof, "graph", good, "-o", os.path.join(tmp, "g.json"))
        if r.returncode:
            return ["graph of the good file failed: " + r.stderr.strip()]
        with open(os.path.join(tmp, "g.json")) as f:
            doc = json.load(f)
        if doc["label"] != "synth":
            problems.append("label %r" % doc["label"])
        got = [(n["id"], n["label"], n["namespace"],
                [(a["key"], a["value"]) for a in n["attrs"]],
                [e["sourceNodeId"] for e in n["incomingEdges"]]) for n in doc["graphs"][0]["nodes"]]
        exp = expected_nodes()
        if got != exp:
            for k, (a, b) in enumerate(zip(got, exp)):
                if a != b:
                    problems.append("node %d: %r, expected %r" % (k, a, b))
                    break
            if len(got) != len(exp):
                problems.append("%d nodes, expected %d" % (len(got), len(exp)))
        r = run(etprof, "dump", "--json", good)
        if r.returncode:
            problems.append("dump --json failed: " + r.stderr.strip())
        else:
            d = json.loads(r.stdout)
            ops = d["spirv"][0]["graphs"][0]["ops"]
            if [(o["result_id"], o.get("opcode"), o["name"]) for o in ops] != \
                    [(22, TOSA_CLAMP, "CLAMP"), (23, TOSA_ADD, "ADD"), (24, TOSA_UNKNOWN, None)]:
                problems.append("ops %r" % [(o["result_id"], o["name"]) for o in ops])
            if d["header"]["version"] != "0.4.3" or len(d["model_sequence"]["segments"]) != 2:
                problems.append("header/segments %r" % d["header"])
            if d["modules"]["modules"][1]["code"] != {"code": "void main() {}"}:
                problems.append("GLSL module %r" % d["modules"]["modules"][1])
        r = run(etprof, "dump", good)
        if r.returncode or "GLSL (14 bytes of source, not drawn)" not in r.stdout \
                or "Unknown 1" not in r.stdout:
            problems.append("outline: %r" % r.stdout)
        # The same VGF as a program's delegate, in a segment.
        pte = os.path.join(tmp, "seg.pte")
        with open(pte, "wb") as f:
            f.write(pte_with_segment(schema_dir, build(schema, tmp), tmp))
        r = run(etprof, "graph", pte, "-o", os.path.join(tmp, "p.json"))
        if r.returncode:
            problems.append("graph of the segment program failed: " + r.stderr.strip())
        else:
            with open(os.path.join(tmp, "p.json")) as f:
                pg = {g["id"]: g for g in json.load(f)["graphs"]}
            sub = pg.get("forward_0_0")
            got = sub and [(n["id"], n["label"], n["namespace"],
                            [(a["key"], a["value"]) for a in n["attrs"]],
                            [e["sourceNodeId"] for e in n["incomingEdges"]]) for n in sub["nodes"]]
            if got != exp:
                problems.append("segment delegate graph differs: %r" % (got and got[:2]))
        r = run(etprof, "dump", pte)
        if r.returncode or "delegate 0 (VgfBackend)" not in r.stdout or "VGF 0.4.3" not in r.stdout:
            problems.append("dump of the segment program: %r %r" % (r.stdout[-400:], r.stderr))
        # A broken VGF inside a program: the program's name and the file offset.
        bad_vgf = build(schema, tmp, mutate=lambda body, ids: body[:-1])
        with open(pte, "wb") as f:
            f.write(pte_with_segment(schema_dir, bad_vgf, tmp))
        for cmd in (["graph", pte], ["dump", pte]):
            r = run(etprof, *cmd)
            if r.returncode != 1 or pte not in r.stderr or "no OpGraphEndARM" not in r.stderr \
                    or len(r.stderr.strip().splitlines()) != 1:
                problems.append("broken VGF in a segment, %s: exit %d, %r"
                                % (cmd[0], r.returncode, r.stderr))
        for name, kw, post, words in broken_variants():
            data = build(schema, tmp, **kw)
            if post:
                data = post(data)
            path = os.path.join(tmp, "bad.vgf")
            with open(path, "wb") as f:
                f.write(data)
            for cmd in (["dump", path], ["dump", "--json", path], ["graph", path]):
                r = run(etprof, *cmd)
                lines = r.stderr.strip().splitlines()
                if r.returncode != 1 or len(lines) != 1 or path not in lines[0] \
                        or words not in lines[0]:
                    problems.append("%s: etprof %s: exit %d, stderr %r (expected %r)"
                                    % (name, cmd[0], r.returncode, r.stderr, words))
                    break
            else:
                print("OK: %s -> %s" % (name, lines[0]))
    return problems


def main(argv):
    if len(argv) == 4 and argv[1] == "check":
        problems = check(argv[2], argv[3])
        for p in problems:
            print("FAIL:", p)
        if not problems:
            print("OK: synthetic VGF graph and every broken variant")
        return 1 if problems else 0
    if len(argv) == 4 and argv[1] == "write":
        with tempfile.TemporaryDirectory() as tmp:
            data = build(os.path.join(argv[2], "vgf.fbs"), tmp)
        with open(argv[3], "wb") as f:
            f.write(data)
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
