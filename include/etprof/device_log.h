/*
 * etprof/device_log.h - what a device run printed besides the portable
 * runner's lines: GNU `time -v` blocks, the Arm bare-metal runner's perf
 * report (CPU/NPU cycles, Ethos-U PMU counters, allocator statistics), RTT
 * `Inference: X ms` lines, VGF device-time lines, the measurement lines
 * `etprof run` writes, and ETDumps (plus debug buffers) carried in the log
 * as base64 (specs/runner-logs.md §3-§7).
 *
 * Every number here is the device's or the host's own report and keeps its
 * unit and where it came from (file and line); none is mixed into an
 * ETDump's timings. A log may hold any mix of these formats, with any
 * terminal prefix before a message and `\r\n` line ends.
 *
 * Ownership: an etp_device_log owns everything it points to (strings,
 * arrays, decoded blobs); etp_device_log_free() releases it all.
 * Thread safety: parsing shares no state between calls; a parsed log is
 * immutable and may be read from any number of threads;
 * etp_device_log_free() must not run beside any other use of it.
 */
#ifndef ETPROF_DEVICE_LOG_H
#define ETPROF_DEVICE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"
#include "etprof/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which formats a log was found to contain (bit set). */
enum {
    ETP_DL_PORTABLE_RUNNER = 1u << 0, /**< executor_runner / example_runner lines */
    ETP_DL_GNU_TIME = 1u << 1,        /**< a `time -v` block */
    ETP_DL_ARM_RUNNER = 1u << 2,      /**< Arm bare-metal runner lines / perf report */
    ETP_DL_RTT = 1u << 3,             /**< `Inference: X ms` lines */
    ETP_DL_VGF = 1u << 4,             /**< `VGF_DATA_GRAPH_DEVICE_TIME` lines */
    ETP_DL_ETDUMP_BLOCK = 1u << 5,    /**< a base64 ETDump carried in the log */
    ETP_DL_ETPROF_RUN = 1u << 6,      /**< `etprof-run:` measurement lines */
    ETP_DL_PROC_STATUS = 1u << 7      /**< a /proc/<pid>/status dump (VmHWM) */
};

/** A GNU / toybox `time -v` block (§3). Each has_* says the label was present. */
typedef struct etp_dl_time {
    uint32_t line;              /**< line of its first label (0: no block) */
    int has_user, has_sys, has_wall, has_max_rss, has_exit_status, has_cpu_percent;
    double user_s, sys_s;       /**< CPU seconds */
    double wall_s;              /**< elapsed wall clock, seconds */
    uint64_t max_rss_kb;        /**< peak resident set, KiB (as time prints it) */
    int exit_status;
    double cpu_percent;         /**< "Percent of CPU this job got" */
    uint64_t major_faults, minor_faults, voluntary_cs, involuntary_cs;
    char *command;              /**< "Command being timed" (owned, may be NULL) */
} etp_dl_time;

/** Maximum PMU counters kept from one perf report. */
#define ETP_DL_MAX_PMU 16

/** The Arm bare-metal runner's report (§4). Values are as printed. */
typedef struct etp_dl_arm {
    uint32_t line;                /**< first Arm-runner line (0: none) */
    int has_pte_size, has_pool, has_perf, has_alloc_used, has_alloc_planned;
    uint64_t pte_size;            /**< "PTE Model data loaded. Size: N bytes." */
    uint64_t method_pool_bytes;   /**< "Setup Method allocator pool. Size: N bytes." */
    uint32_t planned_count;       /**< "Setting up planned buffer with mem_id=I, size N." */
    uint64_t *planned_bytes;      /**< by mem_id (owned) */
    uint64_t inferences_started;  /**< "Starting running N inferences..." */
    uint64_t inferences_finished; /**< "N inferences finished" */
    /* perf report */
    uint64_t npu_inferences, npu_delegations;
    int has_ethosu_cycles, has_operator_cycles, has_inference_cycles, has_wait_cycles;
    int has_cpu_ratio, has_npu_ratio, has_pmu_cycles;
    uint64_t ethosu_cycles;       /**< "ethos-u : cycle_cnt : N cycles": CPU cycles in the NPU operator */
    uint64_t operator_cycles;     /**< "Operator(s) total: N CPU cycles" */
    uint64_t inference_cycles;    /**< "Inference runtime: N CPU cycles total" */
    uint64_t wait_cycles;         /**< "cpu_wait_for_npu_cntr : N CPU cycles" */
    double cpu_ratio, npu_ratio;  /**< percent ("?.??" leaves them absent) */
    uint64_t pmu_cycles;          /**< "ethosu_pmu_cycle_cntr : N": NPU clock cycles */
    uint32_t pmu_count;           /**< "ethosu_pmu_cntrI : N", I < ETP_DL_MAX_PMU */
    uint64_t pmu[ETP_DL_MAX_PMU];
    uint32_t pmu_event_count;     /**< names from "Ethos-U PMU Events:[A, B, ...]" */
    char *pmu_events[ETP_DL_MAX_PMU]; /**< owned */
    const char *npu_type;         /**< "Ethos-U85" / "Ethos-U55 or U65" from the event names, or NULL */
    /* allocator statistics */
    uint64_t alloc_used, alloc_size, alloc_free; /**< method_allocator_used: U / S free: F */
    uint64_t alloc_planned;       /**< method_allocator_planned: N bytes */
    uint32_t linux_cycle_count;   /**< "Ethos-U Linux delegate cycle counter: N" lines */
    uint64_t linux_cycles_sum;
    int program_complete;         /**< "Program complete, exiting." seen */
} etp_dl_arm;

/** Repeated per-inference values (RTT latency, VGF device time, ...). */
typedef struct etp_dl_series {
    uint32_t count;
    double *v;                    /**< in the order printed (owned) */
    uint32_t first_line;
} etp_dl_series;

/** A file carried in the log as base64 (§4.1, §6). */
typedef struct etp_dl_blob {
    char *name;                   /**< "etdump.bin", "debug_buffer.bin", ... (owned) */
    uint8_t *data;                /**< decoded bytes (owned) */
    size_t size;
    uint32_t line;                /**< line the base64 started on */
} etp_dl_blob;

/** One `etprof-run:` measurement line (what `etprof run` measured with wait4). */
typedef struct etp_dl_run {
    double wall_s, user_s, sys_s;
    int has_max_rss;              /**< 0 when the child's RSS is not the model's (adb) */
    uint64_t max_rss_kb;
    int exit_status;
} etp_dl_run;

/** Device-planned memory (portable runner 1.4+: "Setting up device planned buffer"). */
typedef struct etp_dl_device_buffer {
    uint64_t index, bytes;
    int device_type;
} etp_dl_device_buffer;

typedef struct etp_device_log {
    char *path;
    uint32_t lines;
    unsigned formats;             /**< ETP_DL_* bits found */
    etp_dl_time time;             /**< the last `time -v` block */
    uint32_t time_blocks;         /**< how many blocks were seen */
    etp_dl_arm arm;
    etp_dl_series rtt_ms;         /**< "Inference: X ms" */
    etp_dl_series vgf_ns;         /**< VGF_DATA_GRAPH_DEVICE_TIME duration_ns */
    uint32_t device_buffer_count;
    etp_dl_device_buffer *device_buffers; /**< owned */
    uint32_t run_count;           /**< `etprof-run:` lines */
    etp_dl_run *runs;             /**< owned */
    char *run_adb;                /**< `etprof-run: remote ...` note (owned, may be NULL) */
    int has_vmhwm;                /**< a `/proc/<pid>/status` "VmHWM: N kB" line (device peak RSS) */
    uint64_t vmhwm_kb;
    uint32_t vmhwm_line;
    etp_dl_blob etdump;           /**< data NULL when the log carries none */
    etp_dl_blob debug_buffer;     /**< data NULL when absent */
    /** Tick-unit evidence: set when the log says in which unit the ETDump it
     *  carries ticks (ETP_UNIT_CYCLES: the Arm runner's `--source_time_scale
     *  cycles` hint, or a dump from an Arm-runner log). */
    int has_etdump_tick_unit;
    etp_unit etdump_tick_unit;
    uint32_t etdump_tick_unit_line; /**< line of that evidence */
} etp_device_log;

/**
 * Read @p path (text, at most 64 MiB; lines of any length). Unknown lines are
 * ignored. Errors (ETP_E_FORMAT / ETP_E_TRUNCATED, naming the file and line):
 * a recognised line with an unreadable number, a NUL byte, malformed base64,
 * a carried block cut short (no `#[END]`, an unclosed quote, a size that
 * differs from `[base64] buffer size`), two different ETDumps in one log, an
 * empty file (a capture with 0 bytes). ETP_E_IO when the file cannot be read.
 * On success *out is the caller's (etp_device_log_free()); on failure NULL.
 */
etp_status etp_device_log_open(const char *path, etp_device_log **out, etp_error *err);

/** As etp_device_log_open(), but the log is called @p name (not @p path) in
 *  errors and in l->path (a capture read from a temporary file that the
 *  bundle carries under another name). @p name NULL: @p path. */
etp_status etp_device_log_open_as(const char *path, const char *name, etp_device_log **out,
                                  etp_error *err);

/** As etp_device_log_open() on @p size bytes of @p text named @p name (only
 *  read during the call). */
etp_status etp_device_log_parse(const char *text, size_t size, const char *name,
                                etp_device_log **out, etp_error *err);

/** Release @p l and everything it owns. Safe on NULL. */
void etp_device_log_free(etp_device_log *l);

/**
 * What several device logs of one run say together, read alike by the CLI
 * and the Python package: which is the runner log (the first with runner
 * lines, or with nothing of another tool's format: a `time -v` file, an RTT
 * capture or etprof run's measurements are not a runner's output), which
 * carries the ETDump and the debug buffer (every log that carries one must
 * carry the same bytes), and the carried dump's tick unit when a log says it.
 * Pointers point into @p logs.
 */
typedef struct etp_device_logs_view {
    int runner;                              /**< index in @p logs, -1: none */
    const etp_device_log *etdump_carrier;    /**< NULL: no log carries an ETDump */
    const etp_device_log *debug_carrier;     /**< NULL: no log carries a debug buffer */
    int has_tick_unit;                       /**< the ETDump carrier says its tick unit */
    etp_unit tick_unit;
} etp_device_logs_view;

/**
 * Read @p n logs together into @p out. ETP_E_MISMATCH ("A and B carry
 * different ETDumps: which run is it?", or debug buffers) when two logs
 * disagree. Thread safety: reads the logs only.
 */
etp_status etp_device_logs_view_read(const etp_device_log *const *logs, uint32_t n, etp_device_logs_view *out,
                                     etp_error *err);

/** The bytes of the ETDump @p l carries (NULL, *size 0: none); owned by @p l. */
const uint8_t *etp_device_log_etdump(const etp_device_log *l, size_t *size);
/** The bytes of the debug buffer @p l carries (NULL, *size 0: none); owned by @p l. */
const uint8_t *etp_device_log_debug_buffer(const etp_device_log *l, size_t *size);

/**
 * Decode standard base64 (with padding, no whitespace inside) of @p n chars.
 * Returns 0 and a malloc'd *@p out of *@p size bytes (the caller frees it);
 * -1 with *@p bad_at = offset of the first bad character (or @p n when the
 * length is not a multiple of 4) on malformed input; -2 out of memory.
 */
int etp_base64_decode(const char *s, size_t n, uint8_t **out, size_t *size, size_t *bad_at);

#ifdef __cplusplus
}
#endif
#endif
