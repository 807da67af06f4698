/* vgf_spirv.h - decode one SPIR-V module's data graphs (SPV_ARM_graph with
 * the TOSA extended instruction set) for the VGF reader. */
#ifndef ETP_VGF_SPIRV_H
#define ETP_VGF_SPIRV_H

#include "etprof/vgf.h"

/* SPIR-V opcodes used by the decoder (SPIRV-Headers grammar). */
enum {
    SPV_OP_NAME = 5, SPV_OP_EXT_INST_IMPORT = 11, SPV_OP_EXT_INST = 12, SPV_OP_TYPE_VOID = 19,
    SPV_OP_TYPE_BOOL = 20, SPV_OP_TYPE_INT = 21, SPV_OP_TYPE_FLOAT = 22, SPV_OP_TYPE_VECTOR = 23,
    SPV_OP_TYPE_ARRAY = 28, SPV_OP_TYPE_STRUCT = 30, SPV_OP_TYPE_POINTER = 32,
    SPV_OP_CONSTANT_TRUE = 41, SPV_OP_CONSTANT_FALSE = 42, SPV_OP_CONSTANT = 43,
    SPV_OP_CONSTANT_COMPOSITE = 44, SPV_OP_CONSTANT_NULL = 46, SPV_OP_SPEC_TRUE = 48,
    SPV_OP_SPEC_FALSE = 49, SPV_OP_SPEC_CONSTANT = 50, SPV_OP_SPEC_COMPOSITE = 51,
    SPV_OP_VARIABLE = 59, SPV_OP_DECORATE = 71, SPV_OP_COMPOSITE_EXTRACT = 81,
    SPV_OP_TYPE_TENSOR_ARM = 4163, SPV_OP_GRAPH_CONSTANT_ARM = 4181,
    SPV_OP_GRAPH_ENTRY_POINT_ARM = 4182, SPV_OP_GRAPH_ARM = 4183, SPV_OP_GRAPH_INPUT_ARM = 4184,
    SPV_OP_GRAPH_SET_OUTPUT_ARM = 4185, SPV_OP_GRAPH_END_ARM = 4186, SPV_OP_TYPE_GRAPH_ARM = 4190,
    SPV_OP_CONSTANT_COMPOSITE_REPLICATE_EXT = 4461
};

/*
 * Decode @p n words at @p words (kept, not copied: they must outlive *out).
 * @p file and @p file_offset (byte position of word 0) name the place in
 * errors. Checks word counts, ids against the bound, definitions before use
 * (which rules out cycles among types and constants), and the graph blocks.
 */
etp_status etp_spv_decode(const uint32_t *words, uint32_t n, const char *file, int64_t file_offset,
                          etp_spv_module **out, etp_error *err);

/* Release a module from etp_spv_decode(). Safe on NULL. */
void etp_spv_free(etp_spv_module *m);

#endif
