/*
 * etprof/program.h - read an ExecuTorch program (.pte) or bundled program
 * (.bpte): the deployed code that every ETDump event refers to.
 *
 * etp_program_open() detects the kind from the file's identifier (ET12 or
 * BP08), verifies the whole FlatBuffer and the extended header / segments,
 * and decodes the plans into the read-only arrays below. Strings point into
 * the file bytes (NUL-terminated); everything lives until etp_program_free().
 *
 * Ownership: every pointer reachable from an etp_program (plans, chains,
 * instructions, values, operators' full names, frames, suites, strings) is
 * owned by it and freed by etp_program_free(); callers never free them.
 * The reader's own state (the file bytes and FlatBuffer positions) lives
 * behind the public struct, in memory allocated with it (program.c).
 *
 * Thread safety: an opened etp_program is immutable; any number of threads
 * may read it and call the functions below on it at once, except
 * etp_program_free(), which must not run beside any other use.
 */
#ifndef ETPROF_PROGRAM_H
#define ETPROF_PROGRAM_H

#include <stdio.h>

#include "etprof/blob.h"
#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Instruction kinds (the InstructionArguments union). */
typedef enum etp_instr_kind {
    ETP_INSTR_NONE = 0,
    ETP_INSTR_KERNEL = 1,     /**< KernelCall: operators[op_index] */
    ETP_INSTR_DELEGATE = 2,   /**< DelegateCall: delegates[delegate_index] */
    ETP_INSTR_MOVE = 3,
    ETP_INSTR_JUMP_FALSE = 4,
    ETP_INSTR_FREE = 5
} etp_instr_kind;

typedef struct etp_instruction {
    etp_instr_kind kind;
    int32_t a;          /**< op_index | delegate_index | move_from | cond_value_index | value_index */
    int32_t b;          /**< move_to | destination_instruction; 0 otherwise */
    const int32_t *args;/**< value indices (kernel and delegate calls) */
    uint32_t arg_count;
    int has_args;       /**< the instruction-arguments table is present */
} etp_instruction;

/** One source frame from the optional per-instruction stack trace. */
typedef struct etp_frame {
    const char *filename;
    int32_t lineno;
    const char *name;
    const char *context;
} etp_frame;

typedef struct etp_chain {
    uint32_t instruction_count;
    etp_instruction *instructions;
    const int32_t *inputs;
    uint32_t input_count;
    const int32_t *outputs;
    uint32_t output_count;
    uint32_t stacktrace_count;   /**< 0, or instruction_count when emitted */
    uint32_t *frame_counts;      /**< per instruction */
    etp_frame **frames;          /**< per instruction */
} etp_chain;

typedef struct etp_operator {
    const char *name;      /**< e.g. "aten::convolution" */
    const char *overload;  /**< e.g. "out" (may be "" or NULL) */
    char *full_name;       /**< "aten::convolution.out" */
    const char *kernel_suffix; /**< "convolution.out": what native_call_<...> logs */
} etp_operator;

typedef struct etp_compile_spec {
    const char *key;
    const uint8_t *value;
    uint32_t value_len;
} etp_compile_spec;

typedef struct etp_delegate {
    const char *id;            /**< backend id, e.g. "XnnpackBackend" */
    int location;              /**< 0 INLINE, 1 SEGMENT, -1 when unknown */
    uint32_t index;            /**< index into inline data or segments */
    int size_known;            /**< the blob reference resolves */
    uint64_t processed_size;   /**< bytes of the compiled blob */
    const uint8_t *processed;  /**< the blob's bytes (in the file), NULL unless size_known */
    uint64_t processed_offset; /**< file offset of the blob when size_known */
    uint32_t compile_spec_count;
    etp_compile_spec *compile_specs;
} etp_delegate;

/** EValue kinds (KernelTypes union tags). */
typedef enum etp_evalue_kind {
    ETP_EV_NONE = 0, ETP_EV_NULL, ETP_EV_INT, ETP_EV_BOOL, ETP_EV_DOUBLE, ETP_EV_TENSOR,
    ETP_EV_STRING, ETP_EV_INT_LIST, ETP_EV_DOUBLE_LIST, ETP_EV_BOOL_LIST, ETP_EV_TENSOR_LIST,
    ETP_EV_OPT_TENSOR_LIST
} etp_evalue_kind;

typedef struct etp_evalue {
    etp_evalue_kind kind;
    int64_t i;                 /**< Int value, Bool value */
    double d;                  /**< Double value */
    const char *s;             /**< String value */
    uint32_t count;            /**< list length or tensor rank */
    const void *items;         /**< list items (int64/double/uint8/int32 by kind), or tensor sizes (int32) */
    /* Tensor metadata */
    int8_t scalar_type;
    const uint8_t *dim_order;
    uint32_t dim_order_len;
    uint32_t data_buffer_idx;  /**< > 0: constant data */
    int has_allocation;        /**< memory-planned */
    uint32_t memory_id;
    uint64_t memory_offset;
    int8_t shape_dynamism;
    const char *fqn;           /**< ExtraTensorInfo.fully_qualified_name */
    int has_val;               /**< the union value table is present */
    int32_t storage_offset;    /**< Tensor.storage_offset */
    int requires_grad;         /**< Tensor.requires_grad */
    int8_t layout;             /**< Tensor.layout */
    int has_extra;             /**< Tensor.extra_tensor_info is present */
} etp_evalue;

typedef struct etp_plan {
    const char *name;          /**< method name */
    uint32_t value_count;
    etp_evalue *values;
    const int32_t *inputs;
    uint32_t input_count;
    const int32_t *outputs;
    uint32_t output_count;
    uint32_t chain_count;
    etp_chain *chains;
    uint32_t operator_count;
    etp_operator *operators;
    uint32_t delegate_count;
    etp_delegate *delegates;
    uint32_t buffer_count;
    const int64_t *buffer_sizes; /**< non_const_buffer_sizes (entry 0 reserved) */
} etp_plan;

typedef struct etp_segment {
    uint64_t offset;  /**< relative to segment_base */
    uint64_t size;
} etp_segment;

/** A bundled-program test suite (only for .bpte inputs). */
typedef struct etp_test_suite {
    const char *method_name;
    uint32_t case_count;
    uint32_t *input_counts;    /**< per case */
    uint32_t *output_counts;   /**< per case */
} etp_test_suite;

typedef struct etp_program {
    char *path;
    size_t file_size;
    int bundled;               /**< input was a .bpte */
    uint32_t bundled_version;
    uint64_t program_offset;   /**< file offset of the embedded .pte (0 for a .pte) */
    uint64_t program_length;
    uint32_t suite_count;
    etp_test_suite *suites;
    uint32_t version;          /**< Program.version */
    int has_extended_header;
    uint64_t header_program_size;
    uint64_t segment_base_offset;
    uint64_t segment_data_size;
    uint32_t segment_count;
    etp_segment *segments;
    uint32_t constant_buffer_count;  /**< deprecated inline constants */
    uint32_t delegate_data_count;
    uint32_t constant_segment_offsets; /**< number of constant tensor offsets */
    uint32_t named_data_count;
    uint32_t plan_count;
    etp_plan *plans;
} etp_program;

/**
 * Open, verify and decode a .pte or .bpte (kind from the identifier, not the
 * name). On success *out is a new program the caller owns: release it with
 * etp_program_free(); on failure *out is NULL. Only this function and
 * etp_program_from_blob() make an etp_program: the other functions need the
 * state they keep behind it, so never pass one built by hand.
 */
etp_status etp_program_open(const char *path, etp_program **out, etp_error *err);

/** As etp_program_open, taking ownership of @p blob (freed on failure too;
 *  on success freed by etp_program_free()). */
etp_status etp_program_from_blob(etp_blob *blob, etp_program **out, etp_error *err);

/** Release the program, its file bytes and everything it points to. Safe
 *  on NULL. */
void etp_program_free(etp_program *p);

/** Plan named @p name (owned by @p p), or NULL. */
const etp_plan *etp_program_find_plan(const etp_program *p, const char *name);

/**
 * SHA-256 of the bytes @p p was decoded from (the whole file as loaded, a
 * .bpte included), as 64 lowercase hex digits and a NUL in @p hex.
 * Returns ETP_OK, or ETP_E_INTERNAL when the hash cannot be computed (the
 * crypto library failed; @p hex is then unspecified).
 */
etp_status etp_program_sha256(const etp_program *p, char hex[65], etp_error *err);

/** One value of a bundled test case (an input or an expected output), a
 *  view into the .bpte's bytes. */
typedef struct etp_bundled_value {
    etp_evalue_kind kind;      /**< ETP_EV_TENSOR, _INT, _BOOL, _DOUBLE, or ETP_EV_NONE (absent) */
    int8_t scalar_type;        /**< tensors: ExecuTorch ScalarType */
    uint32_t rank;
    const int32_t *sizes;      /**< rank entries (verified, 4-byte aligned) */
    const uint8_t *data;       /**< the tensor's bytes (data_len of them), NULL when absent */
    uint32_t data_len;
    const uint8_t *dim_order;  /**< dim_order_len entries, may be NULL */
    uint32_t dim_order_len;
    int64_t i;                 /**< Int / Bool value */
    double d;                  /**< Double value */
    uint64_t offset;           /**< file offset of the Value table (for messages) */
} etp_bundled_value;

/**
 * Value @p k of test case @p test_case of suite @p suite of a bundled
 * program: an expected output when @p expected is 1, an input when 0.
 * A lookup: returns 0 with @p out filled, -1 when @p p is not bundled or
 * there is no such value. Pure.
 */
int etp_program_bundled_value(const etp_program *p, uint32_t suite, uint32_t test_case, int expected, uint32_t k,
                              etp_bundled_value *out);

/** Short name of an instruction kind: "KernelCall", "DelegateCall", ...
 *  (a static string). */
const char *etp_instr_kind_name(etp_instr_kind k);

/** Name of a ScalarType value ("FLOAT", a static string), or NULL when
 *  unknown. */
const char *etp_scalar_type_name(int v);

#ifdef __cplusplus
}
#endif
#endif
