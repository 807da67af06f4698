/*
 * etprof/gen_nx_stats.h - synthetic ETDumps with VGF_NEURAL_STATISTICS
 * events for a real VGF-delegated program (no public device capture exists).
 *
 * The debug database is built from the program's own VGF: one TOSA op row
 * per SPIR-V graph operation, labelled "TOSA<NAME>_spirv_id_<result id>"
 * (a few with plain names that name no id), two TOSA ops per fused op, four
 * fused ops per chain, three chains per cascade, one or two stripes per
 * chain, plus one stripe the database does not name (a fill-in). Counter
 * words are pseudo-random from the seed; the leading block and the words no
 * layout names hold non-zero filler the decoder must skip.
 *
 * Files written into the directory (every device x mode x version, and
 * the special cases): g1_mode0_v1.etdp ... g2_mode1_v2.etdp, coverage_gap,
 * lost_stripe, unavailable, malformed_blob, misaligned_blob,
 * missing_debug_database (.etdp each). Each execution is a mixed dump:
 * OPERATOR_CALLs of the two KernelCalls beside the VGF DELEGATE_CALL and its
 * delegate events. Also vgf_stats.etrecord: the program's ETRecord, whose
 * delegate map names each TOSA op by its SPIR-V result id or plain label,
 * except every fifth op (k % 5 == 3); and coverage_gap.pte: the program
 * with the VGF called twice (instructions 1 and 2), which coverage_gap.etdp
 * ran, its second call without statistics in execution 1. Output is a pure
 * function of the options. Thread safety: no shared state. Nothing to free.
 */
#ifndef ETPROF_GEN_VGF_STATS_H
#define ETPROF_GEN_VGF_STATS_H

#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_gen_nx_opts {
    const char *pte_path;   /**< the VGF-delegated program (required) */
    const char *out_dir;    /**< existing directory to write into (required) */
    uint32_t executions;    /**< Execute blocks per file (>= 2; default 3) */
    uint64_t seed;          /**< PRNG seed of the counter words (default 1) */
} etp_gen_nx_opts;

typedef struct etp_gen_nx_result {
    uint32_t files;
    uint32_t tosa_ops, fused_ops, chains, cascades, stripes; /**< of the generated debug database */
    int32_t instruction_id; /**< the VGF DELEGATE_CALL */
    uint64_t bytes;         /**< all files */
} etp_gen_nx_result;

/** Write the files; ETP_E_USAGE for bad options or a program without a
 *  VGF delegate, ETP_E_IO / ETP_E_NOMEM / the program's errors otherwise. */
etp_status etp_gen_nx_stats(const etp_gen_nx_opts *o, etp_gen_nx_result *res, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
