/*
 * etprof/vgf.h - read a VGF file (Arm ML SDK for Vulkan): what an ExecuTorch
 * VgfBackend delegate stores, standalone or inside a program (.pte).
 *
 * A VGF is a 128-byte header locating four sections: modules (SPIR-V,
 * GLSL or HLSL code), the model sequence (segments and their bindings), the
 * resource table (tensors: category, format, shape) and the constants. The
 * first three are FlatBuffers (schemas/flatbuffers/vgf.fbs), verified completely before
 * anything is read; the constants are the raw "CONST00" layout (format
 * >= 0.4.0) or the legacy FlatBuffers table. Every SPIR-V module is decoded
 * as well: its data graphs (SPV_ARM_graph) with every TOSA operation, its
 * SPIR-V result id, its operands and its result type.
 *
 * Ownership: an etp_vgf owns everything reachable from it (arrays, decoded
 * SPIR-V, copies of the SPIR-V words); strings and constant data point into
 * the bytes it was read from. etp_vgf_open() keeps those bytes itself; for
 * etp_vgf_from_memory() and etp_vgf_from_delegate() they stay the caller's
 * (the program's) and must outlive the etp_vgf. etp_vgf_free() releases it.
 *
 * Thread safety: a decoded etp_vgf is immutable; any number of threads may
 * read it and call the const functions below at once. etp_vgf_free() must
 * not run beside any other use. Decoding keeps no shared state.
 */
#ifndef ETPROF_VGF_H
#define ETPROF_VGF_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/error.h"
#include "etprof/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/** "unset" value of DescriptorSetInfo.set_index and alias_group_id. */
#define ETP_VGF_UNSET 0xFFFFFFFFu

/** Module and segment types (ModuleType). */
typedef enum etp_vgf_module_type { ETP_VGF_COMPUTE = 0, ETP_VGF_GRAPH = 1 } etp_vgf_module_type;

/** ModuleCode union tags: what a module's code is. */
typedef enum etp_vgf_code_kind {
    ETP_VGF_CODE_NONE = 0, ETP_VGF_CODE_SPIRV = 1, ETP_VGF_CODE_GLSL = 2, ETP_VGF_CODE_HLSL = 3
} etp_vgf_code_kind;

/** Resource categories (ModelResourceTableEntry.category). */
typedef enum etp_vgf_category {
    ETP_VGF_INPUT = 0, ETP_VGF_OUTPUT = 1, ETP_VGF_INTERMEDIATE = 2, ETP_VGF_CONSTANT = 3
} etp_vgf_category;

/* ---- SPIR-V data graphs -------------------------------------------------- */

/** What an operand of a TOSA operation is. */
typedef enum etp_spv_operand_kind {
    ETP_SPV_GRAPH_INPUT = 0,  /**< OpGraphInputARM; index = its InputIndex */
    ETP_SPV_OP_RESULT,        /**< result of an earlier op of the graph; index = that op's position */
    ETP_SPV_CONSTANT,         /**< OpConstant*, composite, null, true/false, replicate; index 0 */
    ETP_SPV_GRAPH_CONSTANT,   /**< OpGraphConstantARM; index = GraphConstantID (VGF constant index) */
    ETP_SPV_EXTRACT           /**< OpCompositeExtract of a struct result; index = its op position */
} etp_spv_operand_kind;

typedef struct etp_spv_operand {
    etp_spv_operand_kind kind;
    uint32_t id;        /**< SPIR-V id of the value */
    uint32_t index;     /**< see etp_spv_operand_kind */
    uint32_t type_id;   /**< SPIR-V id of its type */
    int attribute;      /**< the TOSA operand category is "attribute" (known opcodes only) */
    const char *role;   /**< TOSA operand name ("input", "weight", "pad"), or NULL if unknown */
} etp_spv_operand;

/** One instruction of a graph body: a TOSA operation, or an OpCompositeExtract
 *  splitting a struct result (FFT2D / RFFT2D). */
typedef struct etp_spv_op {
    uint32_t result_id;   /**< SPIR-V result id: the id the hardware's debug data refers to */
    uint32_t type_id;     /**< SPIR-V id of the result type */
    uint32_t opcode;      /**< TOSA opcode (OpExtInst instruction number); 0 for an extract */
    int is_extract;       /**< 1: an OpCompositeExtract, not a TOSA op */
    const char *name;     /**< grammar name "CONV2D", NULL when the opcode is unknown */
    const char *label;    /**< MLIR mnemonic "Conv2D" (what Model Explorer shows);
                               "Unknown" for an unknown opcode, "CompositeExtract" */
    etp_spv_operand *operands;
    uint32_t operand_count;
    uint32_t word_offset; /**< position of the instruction in the module, in words */
} etp_spv_op;

/** A graph input (OpGraphInputARM) or output (OpGraphSetOutputARM). */
typedef struct etp_spv_io {
    uint32_t id;        /**< input: the OpGraphInputARM result; output: the value set */
    uint32_t index;     /**< InputIndex / OutputIndex */
    uint32_t type_id;
} etp_spv_io;

typedef struct etp_spv_graph {
    uint32_t id;              /**< OpGraphARM result id */
    const char *name;         /**< OpGraphEntryPointARM name, or "" when none names it */
    etp_spv_io *inputs;       /**< in body order */
    uint32_t input_count;
    etp_spv_io *outputs;      /**< in OutputIndex order */
    uint32_t output_count;
    etp_spv_op *ops;          /**< in body order */
    uint32_t op_count;
    uint32_t *ops_by_id;      /**< op positions sorted by result id (etp_spv_find_op) */
} etp_spv_graph;

typedef struct etp_spv_internal etp_spv_internal;

/** A decoded SPIR-V module. */
typedef struct etp_spv_module {
    uint32_t version;         /**< 0x00010500 = SPIR-V 1.5 */
    uint32_t generator;
    uint32_t bound;           /**< max id + 1 */
    uint32_t instruction_count;
    uint32_t word_count;
    const char *tosa_set;     /**< OpExtInstImport name ("TOSA.001000.1"), or NULL */
    uint32_t tosa_set_id;     /**< its id, 0 when absent */
    uint32_t variable_count;  /**< OpVariable (graph interface tensors) */
    uint32_t entry_point_count; /**< OpGraphEntryPointARM */
    uint32_t constant_count;  /**< module-scope constant instructions */
    uint32_t graph_constant_count; /**< OpGraphConstantARM */
    etp_spv_graph *graphs;
    uint32_t graph_count;
    etp_spv_internal *in;     /**< the words and id table (for the functions below) */
} etp_spv_module;

/** Op of @p g whose result id is @p result_id (binary search), or NULL. */
const etp_spv_op *etp_spv_find_op(const etp_spv_graph *g, uint32_t result_id);

/**
 * MLIR spelling of the type with id @p type_id ("!spirv.arm.tensor<1x224x224x3xi8>",
 * "i32", "i1", "f32"; "?" for an unknown id) into @p buf, as snprintf (returns the
 * length the full text needs).
 */
int etp_spv_type_str(const etp_spv_module *m, uint32_t type_id, char *buf, size_t size);

/** Element kinds of constant values. */
typedef enum etp_spv_elem { ETP_SPV_ELEM_INT = 0, ETP_SPV_ELEM_FLOAT, ETP_SPV_ELEM_BOOL } etp_spv_elem;

/** The value of a constant, flattened in row-major order. */
typedef struct etp_spv_values {
    etp_spv_elem elem;
    uint32_t width;        /**< bits of one element (1 for bool) */
    int is_tensor;         /**< a tensor (or array) constant; else a scalar */
    uint32_t rank;         /**< tensor rank (0 for scalars) */
    uint32_t dims[8];      /**< tensor shape (rank <= 8) */
    uint64_t count;        /**< number of elements */
    int64_t *ints;         /**< INT (sign-extended from width) and BOOL (0/1); owned, free() */
    double *floats;        /**< FLOAT; owned, free() */
} etp_spv_values;

/**
 * Value of the constant @p id (OpConstant, composite, null, true/false,
 * replicate). Fails with ETP_E_FORMAT when @p id is not such a constant or
 * its type cannot be read, ETP_E_LIMIT above @p max_count elements,
 * ETP_E_NOMEM. On success free out->ints and out->floats with free().
 */
etp_status etp_spv_constant_values(const etp_spv_module *m, uint32_t id, uint64_t max_count,
                                   etp_spv_values *out, etp_error *err);

/** SPIR-V opcode of the instruction that defines @p id (43 OpConstant, 4181
 *  OpGraphConstantARM, 4461 OpConstantCompositeReplicateEXT, ...), or 0 when
 *  @p id is undefined or out of range. */
uint32_t etp_spv_def_opcode(const etp_spv_module *m, uint32_t id);

/** OpName of @p id (pointer into the module's words, NUL-terminated), or NULL. */
const char *etp_spv_name_of(const etp_spv_module *m, uint32_t id);

/* ---- VGF tables ---------------------------------------------------------- */

typedef struct etp_vgf_binding {
    uint32_t binding;
    uint32_t mrt_index;    /**< index into etp_vgf.resources */
} etp_vgf_binding;

typedef struct etp_vgf_set {
    uint32_t set_index;    /**< as stored (ETP_VGF_UNSET when absent) */
    uint32_t effective_index; /**< set_index, or the array position when unset */
    etp_vgf_binding *bindings;
    uint32_t binding_count;
} etp_vgf_set;

typedef struct etp_vgf_push_range {
    uint32_t stage_flags, offset, size;
} etp_vgf_push_range;

typedef struct etp_vgf_module {
    uint8_t type;             /**< etp_vgf_module_type (other values kept as read) */
    const char *name;         /**< "" when absent */
    const char *entry_point;  /**< "" when absent */
    uint8_t code_kind;        /**< etp_vgf_code_kind (the union tag as read) */
    int has_code;             /**< the code table is present */
    const uint32_t *spirv;    /**< SPIR-V words (an aligned copy owned by the etp_vgf), or NULL */
    uint32_t spirv_words;
    uint64_t spirv_offset;    /**< byte offset of word 0 in the VGF */
    const char *source;       /**< GLSL / HLSL source text, or NULL */
    uint32_t source_len;
    etp_spv_module *spv;      /**< the decoded SPIR-V, or NULL (no SPIR-V code) */
} etp_vgf_module;

typedef struct etp_vgf_segment {
    uint8_t type;             /**< etp_vgf_module_type */
    const char *name;
    uint32_t module_index;    /**< checked < module_count */
    etp_vgf_set *sets;
    uint32_t set_count;
    etp_vgf_binding *inputs;
    uint32_t input_count;
    etp_vgf_binding *outputs;
    uint32_t output_count;
    uint32_t *constants;      /**< indices into etp_vgf.constants (checked) */
    uint32_t constant_count;
    int has_dispatch_shape;
    uint32_t dispatch_shape[3];
    etp_vgf_push_range *push_ranges;
    uint32_t push_range_count;
} etp_vgf_segment;

typedef struct etp_vgf_resource {
    uint32_t descriptor_type; /**< VkDescriptorType; ETP_VGF_UNSET = none (constants) */
    uint32_t vk_format;       /**< VkFormat */
    uint8_t category;         /**< etp_vgf_category */
    int has_description;
    int64_t *shape;           /**< -1 = dynamic dimension */
    uint32_t rank;
    int64_t *strides;         /**< empty = packed */
    uint32_t stride_count;
    uint8_t extra_config_type;/**< 0 none, 1 SamplerConfig */
    uint32_t sampler[5];      /**< min/mag filter, address mode u/v, border colour */
    uint32_t alias_group_id;  /**< ETP_VGF_UNSET = not aliased */
} etp_vgf_resource;

typedef struct etp_vgf_constant {
    uint32_t mrt_index;       /**< checked < resource_count */
    int64_t sparsity_dimension; /**< -1 dense */
    const uint8_t *data;      /**< the constant bytes (in the input) */
    uint64_t size;
    uint64_t offset;          /**< byte offset of data in the VGF */
} etp_vgf_constant;

typedef struct etp_vgf_section {
    uint64_t offset, size;    /**< relative to the VGF start; checked inside it */
} etp_vgf_section;

typedef struct etp_vgf_internal etp_vgf_internal;

typedef struct etp_vgf {
    char *file;               /**< file named in errors and output */
    int64_t file_offset;      /**< where the VGF starts in that file (0 for a .vgf) */
    uint64_t size;            /**< VGF bytes */
    int old_magic;            /**< the deprecated C3 D2 E1 F0 magic */
    uint16_t vk_header_version;
    uint8_t major, minor, patch;
    etp_vgf_section sections[4]; /**< modules, sequence, resources, constants */
    int constants_raw;        /**< 1: "CONST00" layout, 0: legacy FlatBuffers */
    etp_vgf_module *modules;
    uint32_t module_count;
    etp_vgf_segment *segments;
    uint32_t segment_count;
    etp_vgf_resource *resources;
    uint32_t resource_count;
    etp_vgf_constant *constants;
    uint32_t constant_count;
    etp_vgf_binding *inputs;  /**< model-level inputs */
    uint32_t input_count;
    etp_vgf_binding *outputs; /**< model-level outputs */
    uint32_t output_count;
    const char **input_names;
    uint32_t input_name_count;
    const char **output_names;
    uint32_t output_name_count;
    etp_vgf_internal *in;     /**< the reader's own state */
} etp_vgf;

/** Whether @p n bytes at @p head start like a VGF (either magic and a known
 *  major version 0). Pure. */
int etp_vgf_detect(const uint8_t *head, size_t n);

/**
 * Read the .vgf file at @p path. On success *out is a new etp_vgf (release
 * with etp_vgf_free()); on failure NULL, with @p err naming the file, what
 * is wrong and where (byte offset).
 * @return ETP_OK, ETP_E_IO, ETP_E_FORMAT, ETP_E_TRUNCATED, ETP_E_LIMIT, ETP_E_NOMEM
 */
etp_status etp_vgf_open(const char *path, etp_vgf **out, etp_error *err);

/**
 * Decode the VGF in @p size bytes at @p data, which sit at @p file_offset in
 * the file @p file (for messages). The bytes are not copied: they must
 * outlive *out. Returns as etp_vgf_open().
 */
etp_status etp_vgf_from_memory(const uint8_t *data, size_t size, const char *file,
                               int64_t file_offset, etp_vgf **out, etp_error *err);

/**
 * Decode the VGF that delegate @p d of program @p p carries (inline data or
 * a segment). ETP_E_USAGE when the delegate has no resolvable payload. The
 * program must outlive *out.
 */
etp_status etp_vgf_from_delegate(const etp_program *p, const etp_delegate *d, etp_vgf **out,
                                 etp_error *err);

/** Release a VGF and everything it owns. Safe on NULL. */
void etp_vgf_free(etp_vgf *v);

/** Whether a delegate is a VGF one: id "VgfBackend" and a payload that starts
 *  like a VGF (etp_vgf_detect). A payload that does not is left undecoded. */
int etp_vgf_is_delegate(const etp_delegate *d);

/** Names of Vulkan and VGF values, as Arm's vgf_dump prints them
 *  ("VK_DESCRIPTOR_TYPE_TENSOR_ARM", "VK_FORMAT_R8_SINT", "INPUT", "GRAPH").
 *  Unknown values are written as "Unknown(N)" into @p buf (>= 24 bytes),
 *  which is then returned; known ones return a static string. A descriptor
 *  type of ETP_VGF_UNSET is "none". */
const char *etp_vgf_descriptor_type_name(uint32_t v, char *buf);
const char *etp_vgf_format_name(uint32_t v, char *buf);
const char *etp_vgf_category_name(uint32_t v, char *buf);
const char *etp_vgf_module_type_name(uint32_t v, char *buf);

/** One TOSA operation of the TOSA.001000.1 instruction set. */
typedef struct etp_tosa_op_info {
    const char *name;         /**< grammar name "CONV2D" */
    const char *label;        /**< MLIR mnemonic "Conv2D" */
    uint8_t operand_count;    /**< fixed operands (the last repeats when variadic) */
    uint8_t variadic;
    const char *const *roles; /**< operand names */
    uint32_t attribute_mask;  /**< bit k: operand k is an attribute */
} etp_tosa_op_info;

/** The TOSA operation with opcode @p opcode, or NULL when unknown. Pure. */
const etp_tosa_op_info *etp_tosa_op(uint32_t opcode);

#ifdef __cplusplus
}
#endif
#endif
