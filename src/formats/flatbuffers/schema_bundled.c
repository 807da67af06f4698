/* schema_bundled.c - the bundled program schema (see schemas/flatbuffers/bundled_program.fbs). */
#include "formats/flatbuffers/schemas.h"
#include "formats/flatbuffers/schema_defs.h"

static const fb_field f_int[] = {F_SC("int_val", FB_I64)};
static TABLE(t_int, "Int", f_int);
static const fb_field f_bool[] = {F_SC("bool_val", FB_BOOL)};
static TABLE(t_bool, "Bool", f_bool);
static const fb_field f_double[] = {F_SC("double_val", FB_F64)};
static TABLE(t_double, "Double", f_double);

static const fb_field f_tensor[] = {
    F_EN("scalar_type", FB_I8, etp_enum_scalar_type),
    F_VEC("sizes", FB_I32),
    F_VEC("data", FB_U8),
    F_VEC("dim_order", FB_U8),
};
static TABLE(t_tensor, "Tensor", f_tensor);

static const char *const vu_names[] = {"NONE", "Tensor", "Int", "Bool", "Double"};
static const fb_table *const vu_tables[] = {NULL, &t_tensor, &t_int, &t_bool, &t_double};
static const fb_union u_value = {"ValueUnion", 5, vu_names, vu_tables};

static const fb_field f_value[] = {F_UTYPE("val_type", u_value), F_UNION("val", u_value)};
static TABLE(t_value, "Value", f_value);

static const fb_field f_case[] = {F_VECT("inputs", t_value), F_VECT("expected_outputs", t_value)};
static TABLE(t_case, "BundledMethodTestCase", f_case);

static const fb_field f_suite[] = {F_STR("method_name"), F_VECT("test_cases", t_case)};
static TABLE(t_suite, "BundledMethodTestSuite", f_suite);

static const fb_field f_bundled[] = {
    F_SC("version", FB_U32),
    F_VECT("method_test_suites", t_suite),
    F_VEC("program", FB_U8),
};
TABLE(etp_schema_bundled_program, "BundledProgram", f_bundled);
