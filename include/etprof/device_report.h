/*
 * etprof/device_report.h - what an analysis learned from device logs and
 * process measurements, kept apart from the ETDump's figures: each device
 * figure names its unit, its source (which log format, which file and
 * line) and whether its average may be summed; the memory summary (planned
 * arena, method allocator, peak RSS, program size); and the split of Ethos-U
 * delegate calls into NPU time, input copy and the rest, read from the
 * EthosUBackend events of the ETDump.
 *
 * Built by etp_analyze_prepared() when etp_analysis_options.device_logs is
 * set, and always for the memory summary and the Ethos-U split; reached
 * through etp_analysis.device (never NULL after a successful analysis).
 *
 * Ownership: the analysis owns the report (freed by etp_analysis_free());
 * strings point into the report or are static. Thread safety: immutable
 * once built; read from any thread while the analysis lives.
 */
#ifndef ETPROF_DEVICE_REPORT_H
#define ETPROF_DEVICE_REPORT_H

#include <stdint.h>

#include "etprof/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One number a device log (or `etprof run`) reported. */
typedef struct etp_device_figure {
    char *name;                 /**< e.g. "gnu_time.peak_rss", "arm.npu_cycles" (owned) */
    etp_unit unit;              /**< ms, s, KiB, bytes, CPU cycles, NPU cycles, %, count */
    const char *source;         /**< "GNU time -v", "Arm runner perf report", "RTT Inference lines",
                                     "VGF device time", "etprof run (wait4)", "Arm runner allocator" */
    const char *log;            /**< path of the log it came from */
    uint32_t line;              /**< line of the log (0: several lines) */
    int summable;               /**< its avg may be added to other summable figures of the same unit */
    uint32_t n;                 /**< values summarised: runs, inferences or lines */
    double total;               /**< sum over the n values, as printed (per_inference: total / n) */
    double avg, p50, min, max;  /**< over the n values (one value: all equal to it) */
    int per_inference;          /**< 1: a total over n inferences, avg = total / n */
} etp_device_figure;

/** The memory summary (bytes unless stated). has_* / NULL source: unavailable. */
typedef struct etp_memory_summary {
    uint32_t planned_count;     /**< planned (activation) arena buffers */
    uint64_t *planned_bytes;    /**< per buffer (owned) */
    uint64_t planned_total;
    const char *planned_source; /**< "program" (non_const_buffer_sizes), "runner log", or NULL */
    uint64_t device_planned_total; /**< device planned buffers (portable runner 1.4+), bytes */
    uint32_t device_planned_count;
    int has_allocator;          /**< method allocator statistics (Arm runner) */
    uint64_t allocator_used, allocator_size, allocator_planned, allocator_pool;
    int has_peak_rss;
    uint64_t peak_rss_kib;      /**< peak resident set, KiB */
    const char *peak_rss_source;/**< "GNU time -v (device)", "etprof run (wait4)", ... */
    const char *peak_rss_reason;/**< why unavailable, or NULL */
    int has_program_size;
    uint64_t program_bytes;
    const char *program_source; /**< "program file" or "Arm runner log" */
} etp_memory_summary;

/** One Ethos-U delegate instruction's calls, per execution: sums over its calls in an
 *  execution, averaged over the split's executions (etp_npu_split.executions). */
typedef struct etp_npu_call_site {
    char *instruction;          /**< entity id of the DelegateCall instruction ("forward_0_1"; owned) */
    int32_t chain, instr;
    double execute_avg, npu_avg, input_copy_avg, output_copy_avg, rest_avg;
    int has_npu, has_input_copy, has_output_copy; /**< the site has such events */
    uint32_t executions;        /**< selected executions with its execute() events */
    uint64_t calls;             /**< its EthosUBackend::execute() occurrences in them */
    int npu_larger;             /**< 1: the NPU run takes at least as long as the CPU side
                                     of the call (copies + rest); 0: the CPU side is larger */
} etp_npu_call_site;

/** Ethos-U delegate calls, per execution (sum over the calls of one execution). */
typedef struct etp_npu_split {
    uint32_t site_count;        /**< delegate instructions with EthosUBackend events */
    etp_npu_call_site *sites;   /**< by chain, instruction (owned) */
    int present;                /**< the ETDump has EthosUBackend::execute() events */
    uint32_t executions;        /**< executions with such events */
    uint64_t calls;             /**< EthosUBackend::execute() occurrences in them */
    double execute_avg;         /**< whole execute() per execution, target unit */
    double npu_avg;             /**< "+EthosUBackend::execute()NPU" */
    double input_copy_avg;      /**< "...handles.input.memcpy()" */
    double output_copy_avg;     /**< "...handles.output.memcpy()" (1.0 only) */
    double rest_avg;            /**< execute - NPU - copies */
    int has_npu, has_input_copy, has_output_copy;
    double method_execute_avg;  /**< Method::execute per execution (0 when unavailable) */
    double cpu_outside_avg;     /**< Method::execute - execute(): the CPU part outside the NPU calls */
    int has_cpu_outside;
} etp_npu_split;

typedef struct etp_device_report {
    uint32_t figure_count;
    etp_device_figure *figures; /**< in log order, then by format */
    etp_memory_summary memory;
    etp_npu_split npu;
    int has_tick_unit_evidence; /**< a log says in which unit the ETDump ticks */
    etp_unit tick_unit_evidence; /**< that unit (cycles: the Arm runner's CPU clock) */
    const char *tick_unit_log;  /**< the log that says so */
    uint32_t tick_unit_line;
} etp_device_report;

#ifdef __cplusplus
}
#endif
#endif
