/*
 * etprof/tensors.h - the tensors a run logged: the ETDump's debug events
 * (program outputs, every instruction's outputs, delegate intermediate
 * outputs) read from the debug buffer written beside it, each attributed
 * like a timing (run, execution, instruction, delegate event, debug handle,
 * source operator), with its statistics; a bundled program's expected
 * outputs checked against them; and two runs' tensors compared.
 *
 * Ownership: an etp_tensor_set is made by etp_tensors_build() (or by the
 * analysis, etp_analysis.tensors) and released with etp_tensor_set_free().
 * It borrows the analysis it was built from (its ETDump, program and
 * entities) and the debug buffer's bytes: both must outlive it. Strings
 * and arrays in it are owned by it.
 *
 * Thread safety: a built set is immutable; any number of threads may read
 * it. Building one reads the analysis only.
 */
#ifndef ETPROF_TENSORS_H
#define ETPROF_TENSORS_H

#include "etprof/error.h"
#include "etprof/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etp_analysis;
struct etp_entity;

/** Where a logged tensor comes from. */
typedef enum etp_tensor_origin {
    ETP_TENSOR_INSTRUCTION = 0,  /**< an instruction's output (KernelCall: its out arguments;
                                      DelegateCall: every argument, logged after the call) */
    ETP_TENSOR_DELEGATE,         /**< a delegate's own intermediate output (a delegate id) */
    ETP_TENSOR_PROGRAM_OUTPUT    /**< a method output (Value.output true) */
} etp_tensor_origin;

/** "instruction", "delegate" or "program_output" (static). */
const char *etp_tensor_origin_name(etp_tensor_origin o);

/** One logged value: a tensor, an element of a tensor list, or a scalar
 *  (Int, Bool, Double: a rank-0 view of its own bytes). */
typedef struct etp_logged_tensor {
    char *key;                   /**< stable id, unique within an execution: "forward_0_2/0"
                                      (instruction, logged-value position), "forward_0_2/delegate/5/0",
                                      "output/0" (owned) */
    etp_tensor_origin origin;
    uint32_t run;                /**< RunData index */
    int32_t execution;           /**< position among the analysis' executions (0-based), -1 when
                                      its block is not one of them (skipped, another method) */
    uint32_t event;              /**< event index within the run */
    uint32_t event_offset;       /**< file offset of the DebugEvent table */
    uint32_t item;               /**< position within a tensor list (0 otherwise) */
    uint32_t position;           /**< program outputs: output index; instructions: which of the
                                      instruction's logged values in that execution (0-based);
                                      delegate: which of that delegate id's values */
    int32_t chain, instruction;  /**< -1 for program outputs */
    int32_t delegate_id_int;     /**< -1 when unset */
    const char *delegate_id_str; /**< NULL when unset (borrowed from the ETDump) */
    const char *name;            /**< DebugEvent.name, NULL when absent (borrowed) */
    int32_t value_index;         /**< the program EValue it is (KernelCall out argument, DelegateCall
                                      argument, method output), -1 when not known */
    const struct etp_entity *entity; /**< the instruction's or delegate event's entity in the
                                      analysis (debug handles, source operators), NULL when none */
    const char *source_operators;/**< the source-graph operators (ETRecord nodes) the instruction
                                      ran, "a;b" in the analysis' order, NULL when none are known
                                      (owned by the set, shared by the instruction's values) */
    int8_t value_type;           /**< etp_value_type (etprof/etdump.h) */
    int has_bytes;               /**< 0: logged without bytes (offset -1) */
    int64_t buffer_offset;       /**< byte offset in the debug buffer, -1 without bytes or for a scalar */
    etp_tensor_view view;
    uint32_t stride_count;       /**< the ETDump's strides (elements), recorded, never used to
                                      reorder: the runtime wrote the bytes contiguous */
    int64_t strides[ETP_TENSOR_MAX_RANK];
    etp_dtype_class dtype_class; /**< UNKNOWN / UNDECODED: listed, not decoded (stats count 0) */
    etp_tensor_stats stats;
    etp_quant_params quant;      /**< scale and zero point the program gives this value (the output
                                      of a quantize_per_tensor, the input of a dequantize_per_tensor,
                                      with constant arguments); present 0 otherwise */
    uint8_t scalar_bytes[8];     /**< a scalar's value (the view's bytes point here) */
} etp_logged_tensor;

/** One expected output of a bundled test case against one execution's output. */
typedef struct etp_bundled_output {
    int32_t execution;           /**< analysis execution */
    uint32_t output;             /**< output index */
    const etp_logged_tensor *got;/**< the logged output (NULL: the run did not log it) */
    etp_tensor_view expected;    /**< from the .bpte (borrows the program's bytes) */
    int scalar_expected;         /**< the expected value is an Int/Bool/Double */
    int match;
    etp_tensor_gap gap;
    uint8_t scalar_bytes[8];     /**< a scalar expected value (expected's bytes point here) */
    char problem[200];           /**< why the values could not be compared (shape or type
                                      differ): then match is 0; "" otherwise */
} etp_bundled_output;

/** A bundled program's expected outputs against the logged ones. */
typedef struct etp_bundled_check {
    int bundled_program;         /**< the program is a .bpte (else nothing to compare) */
    int done;                    /**< 1: compared; 0: see reason */
    const char *reason;          /**< why not compared (static), NULL when done */
    int32_t testset;             /**< the test case (-1 when unknown) */
    const char *testset_basis;   /**< "ETDump bundled_input_index", "--testset", "runner log
                                      --testset_idx", "example_runner default 0" (static) */
    etp_tolerance tol;
    int tol_given;
    uint32_t output_count;
    etp_bundled_output *outputs; /**< owned */
    uint32_t mismatched;         /**< outputs that do not match */
    const etp_bundled_output *worst; /**< the mismatched output furthest out, or NULL */
} etp_bundled_check;

typedef struct etp_tensor_set {
    char *buffer_name;           /**< how the debug buffer is named in messages (owned) */
    uint64_t buffer_size;
    uint32_t count;
    etp_logged_tensor *items;    /**< in file order (run, event, item) */
    uint32_t tensors;            /**< of them tensors (not scalars) */
    uint32_t scalars;
    uint32_t not_decoded;        /**< of an unknown or undecodable element type */
    uint32_t without_bytes;
    uint64_t bytes;              /**< tensor bytes read from the buffer */
    uint32_t program_outputs;    /**< items that are method outputs */
    uint32_t op_text_count;
    char **op_texts;             /**< the source_operators strings (owned) */
    etp_bundled_check bundled;
} etp_tensor_set;

/** What etp_tensors_build() reads beside the analysis. */
typedef struct etp_tensors_options {
    const uint8_t *buffer;       /**< the debug buffer's bytes (borrowed); NULL: every tensor is
                                      listed without values (has_bytes 0, stats count 0) */
    uint64_t buffer_size;
    const char *buffer_name;     /**< for messages (copied) */
    int32_t testset;             /**< -1: from the ETDump, else the runner log, else none */
    const char *testset_basis;   /**< how testset is known (NULL: "--testset"; static or borrowed) */
    int32_t log_testset;         /**< the runner log's --testset_idx (-1: none) */
    const char *log_testset_basis; /**< how it was known (static), e.g. "runner log --testset_idx" */
    etp_tolerance tol;           /**< used when tol_given, else ETP_TOLERANCE_DEFAULT */
    int tol_given;
} etp_tensors_options;

void etp_tensors_options_init(etp_tensors_options *o);

/**
 * Read every tensor @p a's ETDump logged, attribute each through @p a and
 * compute its statistics (one pass over its bytes). When @p a's program is
 * a bundled program and the run logged its outputs, compare them with the
 * expected outputs of the test case (etp_bundled_check). Errors: ETP_E_FORMAT
 * / ETP_E_MISMATCH naming run, event, tensor and offset for a tensor whose
 * place or size cannot be known or that lies outside the buffer. On success
 * *out is a new set the caller owns.
 */
etp_status etp_tensors_build(const struct etp_analysis *a, const etp_tensors_options *o, etp_tensor_set **out,
                             etp_error *err);

/** Release a set (safe on NULL). */
void etp_tensor_set_free(etp_tensor_set *s);

/** The item with key @p key in execution @p execution, or NULL. */
const etp_logged_tensor *etp_tensor_set_find(const etp_tensor_set *s, const char *key, int32_t execution);

/** The set analysis @p a built (etp_analysis.tensors: owned by the
 *  analysis, valid until it is freed), or NULL when it was made without the
 *  debug buffer's bytes; for bindings that cannot read the analysis' struct. */
const etp_tensor_set *etp_analysis_tensor_set(const struct etp_analysis *a);

#ifdef __cplusplus
}
#endif
#endif
