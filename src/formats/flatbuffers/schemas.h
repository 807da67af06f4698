/*
 * schemas.h - descriptions of the FlatBuffers schemas etprof reads.
 * They restate the published field lists (see the .fbs files in schemas/flatbuffers/, which flatc uses
 * as the test oracle); field ids are array positions.
 */
#ifndef ETP_SCHEMAS_H
#define ETP_SCHEMAS_H

#include "formats/flatbuffers/fb_schema.h"

/* Shared by all three schemas. */
extern const fb_enum etp_enum_scalar_type;

/* ETDump (identifier ED00) */
extern const fb_table etp_schema_etdump;
/* Program (.pte, identifier ET12) */
extern const fb_table etp_schema_program;
/* Bundled program (.bpte, identifier BP08) */
extern const fb_table etp_schema_bundled_program;

/* Field ids used by the typed decoders. */
enum { ETD_ETDUMP_VERSION = 0, ETD_ETDUMP_RUN_DATA = 1 };
enum { ETD_RUN_NAME = 0, ETD_RUN_BUNDLED_INPUT_INDEX = 1, ETD_RUN_ALLOCATORS = 2, ETD_RUN_EVENTS = 3 };
enum { ETD_EVENT_PROFILE = 0, ETD_EVENT_ALLOCATION = 1, ETD_EVENT_DEBUG = 2 };
enum {
    ETD_PE_NAME = 0, ETD_PE_CHAIN = 1, ETD_PE_INSTR = 2, ETD_PE_DID_INT = 3, ETD_PE_DID_STR = 4,
    ETD_PE_METADATA = 5, ETD_PE_START = 6, ETD_PE_END = 7
};
enum { ETD_AE_ALLOCATOR_ID = 0, ETD_AE_SIZE = 1 };
enum {
    ETD_DE_CHAIN = 0, ETD_DE_INSTR = 1, ETD_DE_ENTRY = 2, ETD_DE_DID_INT = 3, ETD_DE_DID_STR = 4,
    ETD_DE_NAME = 5
};
enum {
    ETD_VAL_TYPE = 0, ETD_VAL_TENSOR = 1, ETD_VAL_TENSOR_LIST = 2, ETD_VAL_INT = 3,
    ETD_VAL_FLOAT = 4, ETD_VAL_DOUBLE = 5, ETD_VAL_BOOL = 6, ETD_VAL_OUTPUT = 7
};
enum { ETD_TENSOR_SCALAR_TYPE = 0, ETD_TENSOR_SIZES = 1, ETD_TENSOR_STRIDES = 2, ETD_TENSOR_OFFSET = 3 };

enum {
    PTE_PROGRAM_VERSION = 0, PTE_PROGRAM_PLANS = 1, PTE_PROGRAM_CONSTANT_BUFFER = 2,
    PTE_PROGRAM_DELEGATE_DATA = 3, PTE_PROGRAM_SEGMENTS = 4, PTE_PROGRAM_CONSTANT_SEGMENT = 5,
    PTE_PROGRAM_MUTABLE_SEGMENTS = 6, PTE_PROGRAM_NAMED_DATA = 7
};
enum {
    PTE_PLAN_NAME = 0, PTE_PLAN_CONTAINER_META = 1, PTE_PLAN_VALUES = 2, PTE_PLAN_INPUTS = 3,
    PTE_PLAN_OUTPUTS = 4, PTE_PLAN_CHAINS = 5, PTE_PLAN_OPERATORS = 6, PTE_PLAN_DELEGATES = 7,
    PTE_PLAN_BUFFER_SIZES = 8, PTE_PLAN_BUFFER_DEVICE = 9
};
enum { PTE_CHAIN_INPUTS = 0, PTE_CHAIN_OUTPUTS = 1, PTE_CHAIN_INSTRUCTIONS = 2, PTE_CHAIN_STACKTRACE = 3 };
enum { PTE_INSTR_TYPE = 0, PTE_INSTR_ARGS = 1 };
enum { PTE_OP_NAME = 0, PTE_OP_OVERLOAD = 1 };
enum { PTE_DELEGATE_ID = 0, PTE_DELEGATE_PROCESSED = 1, PTE_DELEGATE_COMPILE_SPECS = 2 };
enum { PTE_DREF_LOCATION = 0, PTE_DREF_INDEX = 1 };
enum { PTE_SPEC_KEY = 0, PTE_SPEC_VALUE = 1 };
enum { PTE_SEGMENT_OFFSET = 0, PTE_SEGMENT_SIZE = 1 };
enum { PTE_SUBSEG_INDEX = 0, PTE_SUBSEG_OFFSETS = 1 };
enum { PTE_EVALUE_TYPE = 0, PTE_EVALUE_VAL = 1 };
enum {
    PTE_TENSOR_SCALAR_TYPE = 0, PTE_TENSOR_STORAGE_OFFSET = 1, PTE_TENSOR_SIZES = 2,
    PTE_TENSOR_DIM_ORDER = 3, PTE_TENSOR_REQUIRES_GRAD = 4, PTE_TENSOR_DATA_BUFFER_IDX = 5,
    PTE_TENSOR_ALLOCATION_INFO = 6, PTE_TENSOR_LAYOUT = 7, PTE_TENSOR_SHAPE_DYNAMISM = 8,
    PTE_TENSOR_EXTRA = 9
};
enum { PTE_FRAMELIST_ITEMS = 0 };
enum { PTE_FRAME_FILENAME = 0, PTE_FRAME_LINENO = 1, PTE_FRAME_NAME = 2, PTE_FRAME_CONTEXT = 3 };
enum { PTE_INLINE_DATA = 0 };
enum { PTE_NAMED_KEY = 0, PTE_NAMED_SEGMENT = 1 };
/* Instruction union tags. */
enum { PTE_I_NONE = 0, PTE_I_KERNEL = 1, PTE_I_DELEGATE = 2, PTE_I_MOVE = 3, PTE_I_JUMP_FALSE = 4, PTE_I_FREE = 5 };
/* EValue union tags. */
enum {
    PTE_V_NONE = 0, PTE_V_NULL = 1, PTE_V_INT = 2, PTE_V_BOOL = 3, PTE_V_DOUBLE = 4, PTE_V_TENSOR = 5,
    PTE_V_STRING = 6, PTE_V_INT_LIST = 7, PTE_V_DOUBLE_LIST = 8, PTE_V_BOOL_LIST = 9,
    PTE_V_TENSOR_LIST = 10, PTE_V_OPT_TENSOR_LIST = 11
};

enum { BP_VERSION = 0, BP_SUITES = 1, BP_PROGRAM = 2 };
enum { BP_SUITE_METHOD = 0, BP_SUITE_CASES = 1 };
enum { BP_CASE_INPUTS = 0, BP_CASE_OUTPUTS = 1 };

#endif
