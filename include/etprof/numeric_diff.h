/*
 * etprof/numeric_diff.h - the numerics of two runs compared: every value
 * both runs logged (etprof/tensors.h) paired with its counterpart, the
 * error between them, and where in the base run's order the error starts.
 *
 * Matching, the finest level both runs support, decided per value:
 *   - "key": both analyses ran the same program (the same program SHA-256
 *     when both are known, else the same number of instructions in the
 *     method's chain 0 running the same kernels in the same order): a value
 *     pairs with the value of the same key ("forward_0_2/0", instruction id
 *     and logged-value position; "forward_0_2/delegate/5/0"; "output/0").
 *   - "debug_handle" (different programs): a base value pairs with a new
 *     value when the largest debug handle of the base value's entity equals
 *     the largest debug handle of the new value's entity, i.e. both end at
 *     the same source-graph node. A delegated run's DELEGATE_CALL covers
 *     every handle of the nodes it lowered, so only the base instruction
 *     that computes the last of them pairs with it. Among such new values
 *     the last one logged whose shape equals the base value's is taken (a
 *     DELEGATE_CALL logs its arguments, outputs last); none of the same
 *     shape: the last one, as a pair with a reason.
 *   - "source_operator" (no handles on a side): the same source_operators
 *     string ("a;b", from the ETRecord), the first unpaired new value of
 *     the same shape (else the first one, with a reason).
 *   - "output_index": program outputs always pair by output index.
 * A new value pairs at most once. Values of one execution are compared on
 * each side (etp_numeric_diff_options.execution, default 0).
 *
 * Figures (etp_tensor_compare(), the base value the reference, errors are
 * new - base): MSE = mean(err^2), MAE = mean(|err|), max abs error,
 * SNR dB = 10 log10(sum ref^2 / sum err^2) (+Inf when the error is 0),
 * cosine = sum ref*new / sqrt(sum ref^2 sum new^2). A quantized value
 * (etp_logged_tensor.quant present on a side) is compared dequantized
 * (primary) and, when both sides are quantized, also by stored integers.
 *
 * Divergence: a pair diverges when some element lies outside the tolerance
 * (|new - base| > atol + rtol |base|; integers without quantization are
 * compared exactly, as ExecuTorch compares them). The first divergence is
 * the first diverging pair in the base run's event order: where the error
 * starts. The largest is the compared pair of lowest SNR among those with
 * any error (ties: larger max abs error, then earlier). A pair whose
 * values cannot be compared (shapes differ, an integer against a float
 * without quantization, no bytes, an undecoded type) has a reason and no
 * figures; it is counted, never a divergence.
 *
 * Ownership: etp_numeric_diff_build() returns a diff the caller releases
 * with etp_numeric_diff_free(). It borrows both analyses' tensor sets (the
 * pairs point at their values and keys): both analyses, and their debug
 * buffers, must outlive it. Its reasons are owned by it.
 *
 * Thread safety: building reads the analyses only; a built diff is
 * immutable and may be read (and written out) by many threads at once.
 */
#ifndef ETPROF_NUMERIC_DIFF_H
#define ETPROF_NUMERIC_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/error.h"
#include "etprof/tensor.h"
#include "etprof/tensors.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etp_analysis;

/** The level a pair was matched at. */
typedef enum etp_numeric_match_level {
    ETP_NUMERIC_MATCH_KEY = 0,        /**< same program: same key */
    ETP_NUMERIC_MATCH_DEBUG_HANDLE,   /**< same last debug handle */
    ETP_NUMERIC_MATCH_SOURCE_OPERATOR,/**< same source operators */
    ETP_NUMERIC_MATCH_OUTPUT_INDEX    /**< program outputs, by index */
} etp_numeric_match_level;

/** "key", "debug_handle", "source_operator", "output_index" (static). */
const char *etp_numeric_match_level_name(etp_numeric_match_level l);

typedef struct etp_numeric_diff_options {
    int32_t execution;           /**< the execution compared on both sides (default 0) */
    etp_tolerance tol;           /**< default ETP_TOLERANCE_DEFAULT (rtol 1e-5, atol 1e-8) */
} etp_numeric_diff_options;

void etp_numeric_diff_options_init(etp_numeric_diff_options *o);

/** One base value and its counterpart. */
typedef struct etp_numeric_pair {
    const etp_logged_tensor *base, *new_; /**< borrowed from the analyses' tensor sets */
    etp_numeric_match_level level;
    uint32_t order;              /**< position in the base run's event order (0-based) */
    int compared;                /**< 1: @p gap holds the figures; 0: see @p reason */
    const char *reason;          /**< why not compared (owned), NULL when compared */
    int quantized;               /**< a side is quantized: @p gap is the dequantized comparison */
    const char *primary;         /**< "dequantized" or "values" (as stored, nothing to dequantize) */
    etp_tensor_gap gap;          /**< the primary comparison */
    int has_stored;              /**< both sides quantized: @p stored compares the stored integers */
    etp_tensor_gap stored;
    int diverged;                /**< compared and outside the tolerance */
} etp_numeric_pair;

typedef struct etp_numeric_diff {
    int same_program;            /**< the "key" level applies */
    const char *level;           /**< finest level used: "key", or "debug_handle" /
                                      "source_operator" (static) */
    const char *level_reason;    /**< why (static) */
    const char *base_method;     /**< the base run's method (borrowed), the graph of the base
                                      values' node ids ("forward_0_3"); NULL when unknown */
    int32_t execution;
    etp_tolerance tol;
    uint32_t pair_count;
    etp_numeric_pair *pairs;     /**< in the base run's event order (owned) */
    uint32_t compared;           /**< pairs with figures */
    uint32_t incomparable;       /**< pairs with a reason instead */
    uint32_t diverged;           /**< pairs outside the tolerance */
    const etp_numeric_pair *first_divergence; /**< NULL: none */
    const etp_numeric_pair *largest;          /**< NULL: no pair has any error */
    uint32_t base_values, new_values;         /**< values of the execution on each side */
    uint32_t base_unmatched, new_unmatched;   /**< of them in no pair */
} etp_numeric_diff;

/**
 * Pair and compare the values @p base and @p new_ logged in execution
 * o->execution (@p o may be NULL: the defaults). Both analyses need their
 * tensors (etp_analysis.tensors: analysed with a debug buffer).
 * @return ETP_OK (*out set); ETP_E_USAGE when a side has no tensors or a
 *         bad tolerance; ETP_E_MISMATCH when a side logged no value in that
 *         execution (the message says which); ETP_E_NOMEM.
 */
etp_status etp_numeric_diff_build(const struct etp_analysis *base, const struct etp_analysis *new_,
                                  const etp_numeric_diff_options *o, etp_numeric_diff **out, etp_error *err);

/** Release a diff (safe on NULL). */
void etp_numeric_diff_free(etp_numeric_diff *d);

/** The lowest SNR (dB) of the compared pairs (+Inf when there are none):
 *  what `--fail-if-snr-below` gates on. */
double etp_numeric_diff_min_snr(const etp_numeric_diff *d);

#ifdef __cplusplus
}
#endif
#endif
