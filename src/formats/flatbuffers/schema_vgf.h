/*
 * schema_vgf.h - descriptions of the VGF FlatBuffers sections (schemas/flatbuffers/vgf.fbs)
 * and the field ids vgf.c reads. Field ids are array positions in schema_vgf.c.
 */
#ifndef ETP_SCHEMA_VGF_H
#define ETP_SCHEMA_VGF_H

#include "formats/flatbuffers/fb_schema.h"

/* Roots of the four sections (no root_type or identifier in the files). */
extern const fb_table etp_schema_vgf_modules;   /* ModuleTable */
extern const fb_table etp_schema_vgf_sequence;  /* ModelSequenceTable */
extern const fb_table etp_schema_vgf_resources; /* ModelResourceTable */
extern const fb_table etp_schema_vgf_constants; /* ConstantSection (legacy, < 0.4.0) */

enum { VGF_MT_MODULES = 0 };
enum { VGF_MOD_TYPE = 0, VGF_MOD_NAME = 1, VGF_MOD_ENTRY = 2, VGF_MOD_CODE_TYPE = 3, VGF_MOD_CODE = 4 };
enum { VGF_CODE_WORDS = 0, VGF_CODE_SOURCE = 0 };
enum {
    VGF_SEQ_SEGMENTS = 0, VGF_SEQ_INPUTS = 1, VGF_SEQ_OUTPUTS = 2, VGF_SEQ_INPUT_NAMES = 3,
    VGF_SEQ_OUTPUT_NAMES = 4
};
enum {
    VGF_SEG_TYPE = 0, VGF_SEG_NAME = 1, VGF_SEG_MODULE = 2, VGF_SEG_SETS = 3, VGF_SEG_INPUTS = 4,
    VGF_SEG_OUTPUTS = 5, VGF_SEG_CONSTANTS = 6, VGF_SEG_DISPATCH = 7, VGF_SEG_PUSH = 8
};
enum { VGF_BIND_BINDING = 0, VGF_BIND_MRT = 1 };
enum { VGF_SET_BINDINGS = 0, VGF_SET_INDEX = 1 };
enum { VGF_PUSH_STAGES = 0, VGF_PUSH_OFFSET = 1, VGF_PUSH_SIZE = 2 };
enum { VGF_MRT_ENTRIES = 0 };
enum {
    VGF_RES_DESC_TYPE = 0, VGF_RES_FORMAT = 1, VGF_RES_CATEGORY = 2, VGF_RES_DESCRIPTION = 3,
    VGF_RES_EXTRA_TYPE = 4, VGF_RES_EXTRA = 5, VGF_RES_ALIAS = 6
};
enum { VGF_DESC_SHAPE = 0, VGF_DESC_STRIDES = 1 };
enum { VGF_CS_DATA = 0 };
enum { VGF_CD_MRT = 0, VGF_CD_SPARSITY = 1, VGF_CD_RAW = 2 };

#endif
