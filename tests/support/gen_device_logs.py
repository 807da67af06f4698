"""Device logs of every format and version in specs/runner-logs.md, with the
values each one carries computed here (not read back from etprof).

Each generator returns (text, expected) where expected maps etprof's device
figure names to (total, n) or to a value; the tests compare etprof's output
with these.
"""
import random

PORTABLE_NEW = "%s %02d:%02d:%02d.%06d executorch:%s:%d] %s"
PORTABLE_OLD = "%s executorch:%s:%d] %s"


def portable(version, iters, buffers, device_buffers=(), prefix_form="new", rng=None):
    """executor_runner output of @p version (1.0 .. 1.5)."""
    rng = rng or random.Random(1)
    major, minor = version
    lines = []
    t = [0]

    def log(msg, line=300):
        t[0] += rng.randint(10, 999)
        if prefix_form == "old":
            lines.append(PORTABLE_OLD % ("I", "executor_runner.cpp", line, msg))
        else:
            us = t[0]
            lines.append(PORTABLE_NEW % ("I", us // 3600000000, us // 60000000 % 60, us // 1000000 % 60,
                                         us % 1000000, "executor_runner.cpp", line, msg))
    log("Model file /tmp/model.pte is loaded.")
    log("Using method forward")
    cpu_form = (major, minor) >= (1, 4)
    for i, b in enumerate(buffers):
        log(("Setting up CPU planned buffer %d, size %d." if cpu_form else "Setting up planned buffer %d, size %d.") % (i, b))
    for i, (b, dt) in enumerate(device_buffers):
        log("Setting up device planned buffer %d, size %d, device_type %d." % (i, b, dt))
    if (major, minor) >= (1, 3):
        log("Model loaded in %f ms." % 1.25)
        for i, v in enumerate(iters):
            log("Iteration %d of %d: %f ms" % (i + 1, len(iters), v))
    log("Model executed successfully %d time(s) in %f ms." % (len(iters), sum(iters)))
    log("1 outputs: ")
    log("ETDump written to file 'model.etdump'.")
    return "\n".join(lines) + "\n"


def gnu_time(user, sys_, wall, rss_kb, exit_status=0, toybox=False):
    """A `/usr/bin/time -v` block (GNU), or toybox's (fewer labels)."""
    h, rem = divmod(wall, 3600)
    m, s = divmod(rem, 60)
    wall_txt = ("%d:%02d:%05.2f" % (h, m, s)) if h else ("%d:%05.2f" % (m, s))
    rows = [("Command being timed", '"./executor_runner --model_path m.pte"'),
            ("User time (seconds)", "%.2f" % user), ("System time (seconds)", "%.2f" % sys_),
            ("Percent of CPU this job got", "%d%%" % int((user + sys_) / wall * 100) if wall else "?%"),
            ("Elapsed (wall clock) time (h:mm:ss or m:ss)", wall_txt),
            ("Maximum resident set size (kbytes)", "%d" % rss_kb),
            ("Major (requiring I/O) page faults", "0"), ("Minor (reclaiming a frame) page faults", "1234"),
            ("Voluntary context switches", "12"), ("Involuntary context switches", "3"),
            ("Exit status", "%d" % exit_status)]
    if toybox:
        rows = [r for r in rows if not r[0].startswith(("Command", "Percent", "Major", "Minor"))]
    exp = {"gnu_time.user_cpu": round(user, 2), "gnu_time.sys_cpu": round(sys_, 2),
           "gnu_time.wall": h * 3600 + m * 60 + round(s, 2), "gnu_time.peak_rss": rss_kb}
    return "".join("\t%s: %s\n" % r for r in rows), exp


def arm_runner(version, inferences, cycles, npu_share, pmu_values, npu="U85", prefix=True, ratios=True,
               carried=None):
    """The Arm bare-metal runner's console (CRLF, EOT) of @p version ("1.0" or "1.1+")."""
    old = version == "1.0"
    lines = []

    def log(msg, fn="main()", f="arm_executor_runner.cpp", line=400):
        lines.append("I [executorch:%s:%d %s] %s" % (f, line, fn, msg) if prefix else msg)
    log("PTE @ 0x70000000 [----ET12]")
    log("PTE Model data loaded. Size: 54192 bytes.")
    log("Model buffer loaded, has 1 methods")
    log("Running method forward")
    log("Setup Method allocator pool. Size: 62914560 bytes.")
    log("Setting up planned buffer 0, size 16000." if old else "Setting up planned buffer with mem_id=0, size 16000.")
    log("Setting up ETDump")
    log("Starting running %d inferences..." % inferences)
    pm = lambda msg: log(msg, "StopMeasurements()", "arm_perf_monitor.cpp", 170)
    npu_cycles = int(cycles * npu_share)
    ops = cycles - npu_cycles
    fmt = "%d" if old else "%d"
    pm("NPU Inferences : %d" % inferences)
    pm("NPU delegations: %d (%.2f per inference)" % (inferences, 1.0))
    pm("Profiler report, CPU cycles per operator:")
    pm(("ethos-u : cycle_cnt : " + fmt + " cycles (%.2f per inference)") % (npu_cycles, npu_cycles / inferences))
    pm("Operator(s) total: %d CPU cycles (%.2f per inference)" % (ops, ops / inferences))
    pm("Inference runtime: %d CPU cycles total (%.2f per inference)" % (cycles, cycles / inferences))
    pm("NOTE: CPU cycle values and ratio calculations require FPGA and identical CPU/NPU frequency")
    if ratios:
        pm("Inference CPU ratio: %.2f %%" % (100.0 * ops / cycles))
        pm("Inference NPU ratio: %.2f %%" % (100.0 * npu_cycles / cycles))
    else:
        pm("Inference CPU ratio: ?.?? %")
        pm("Inference NPU ratio: ?.?? %")
    pm("cpu_wait_for_npu_cntr : %d CPU cycles (%.2f per inference)" % (npu_cycles // 2, npu_cycles / 2 / inferences))
    pm("Ethos-U PMU report:")
    pm("ethosu_pmu_cycle_cntr : % d (%.2f per inference)" % (npu_cycles, npu_cycles / inferences))
    names = {"U85": ["SRAM_RD", "SRAM_WR", "EXT_RD", "EXT_WR", "NPU_IDLE", "MAC_ACTIVE", "WD_ACTIVE"],
             "U85_10": ["SRAM_RD", "SRAM_WR", "EXT_RD", "EXT_WR", "NPU_IDLE"],
             "U55": ["AXI0_RD_DATA_BEAT_RECEIVED", "AXI1_RD_DATA_BEAT_RECEIVED", "AXI0_WR_DATA_BEAT_WRITTEN", "NPU_IDLE"]}[npu]
    for i, name in enumerate(names):
        pm("ethosu_pmu_cntr%d : %d (%.2f per inference)" % (i, pmu_values[i], pmu_values[i] / inferences))
    pm("Ethos-U PMU Events:[%s]" % ", ".join(names))
    log("%d inferences finished" % inferences)
    log("method_allocator_used:     1406800 / 62914560  free: 61507760 ( used: 2 % ) ")
    log("method_allocator_planned:  16000 bytes")
    if carried is not None:
        import base64
        b = base64.b64encode(carried).decode()
        log("[base64] buffer size: %d" % len(b), "write_etdump()")
        lines += ["#[RUN THIS]", "# Writing etdump.bin [base64]", 'echo "%s" | base64 -d >etdump.bin' % b,
                  "# Generate cpu cycle table with:",
                  "python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin --source_time_scale cycles --target_time_scale cycles",
                  "#[END]"]
    log("Program complete, exiting.")
    exp = {"arm.inference_cycles": (cycles, inferences), "arm.operator_cycles": (ops, inferences),
           "arm.ethosu_operator_cycles": (npu_cycles, inferences), "arm.npu_active_cycles": (npu_cycles, inferences),
           "arm.cpu_wait_for_npu_cycles": (npu_cycles // 2, inferences)}
    for i, name in enumerate(names):
        exp["arm.pmu." + name] = (pmu_values[i], inferences)
    if ratios:
        exp["arm.npu_ratio"] = round(100.0 * npu_cycles / cycles, 2)
    return "\r\n".join(lines) + "\r\n\x04", exp


def rtt(values, prefix="00> "):
    return "".join("%sInference: %.3f ms\n" % (prefix, v) for v in values)


def vgf(ns_values):
    return "".join("VGF_DATA_GRAPH_DEVICE_TIME ticks=%d duration_ns=%.3f duration_ms=%.6f\n" % (int(v / 10), v, v / 1e6)
                   for v in ns_values)
