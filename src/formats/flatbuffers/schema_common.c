/* schema_common.c - the ScalarType enum shared by every ExecuTorch schema. */
#include "formats/flatbuffers/schemas.h"
#include "formats/flatbuffers/schema_defs.h"

static const int64_t st_values[] = {0,  1,  2,  3,  4,  5,  6,  7,  11, 12, 13, 14,
                                    15, 16, 17, 22, 23, 24, 25, 26, 27, 28, 29};
static const char *const st_names[] = {
    "BYTE",     "CHAR",       "SHORT",        "INT",          "LONG",           "HALF",
    "FLOAT",    "DOUBLE",     "BOOL",         "QINT8",        "QUINT8",         "QINT32",
    "BFLOAT16", "QUINT4X2",   "QUINT2X4",     "BITS16",       "FLOAT8E5M2",     "FLOAT8E4M3FN",
    "FLOAT8E5M2FNUZ", "FLOAT8E4M3FNUZ", "UINT16", "UINT32", "UINT64"};
const fb_enum etp_enum_scalar_type = {"ScalarType", ARRAY_LEN(st_values), st_values, st_names};
