/* schema_etdump.c - the ETDump schema (see schemas/flatbuffers/etdump.fbs). */
#include "formats/flatbuffers/schemas.h"
#include "formats/flatbuffers/schema_defs.h"

static const int64_t vt_values[] = {0, 1, 2, 3, 4, 5, 6, 7};
static const char *const vt_names[] = {"Null", "Int", "Bool", "Float", "Double", "Tensor",
                                       "TensorList", "String"};
static const fb_enum e_value_type = {"ValueType", 8, vt_values, vt_names};

static const fb_field f_tensor[] = {
    F_EN("scalar_type", FB_I8, etp_enum_scalar_type),
    F_VEC("sizes", FB_I64),
    F_VEC("strides", FB_I64),
    F_SC("offset", FB_I64),
};
static TABLE(t_tensor, "Tensor", f_tensor);

static const fb_field f_int[] = {F_SC("int_val", FB_I64)};
static TABLE(t_int, "Int", f_int);
static const fb_field f_bool[] = {F_SC("bool_val", FB_BOOL)};
static TABLE(t_bool, "Bool", f_bool);
static const fb_field f_float[] = {F_SC("float_val", FB_F32)};
static TABLE(t_float, "Float", f_float);
static const fb_field f_double[] = {F_SC("double_val", FB_F64)};
static TABLE(t_double, "Double", f_double);
static const fb_field f_tensor_list[] = {F_VECT("tensors", t_tensor)};
static TABLE(t_tensor_list, "TensorList", f_tensor_list);

static const fb_field f_value[] = {
    F_EN("val", FB_I8, e_value_type),
    F_TAB("tensor", t_tensor),
    F_TAB("tensor_list", t_tensor_list),
    F_TAB("int_value", t_int),
    F_TAB("float_value", t_float),
    F_TAB("double_value", t_double),
    F_TAB("bool_value", t_bool),
    F_TAB("output", t_bool),
};
static TABLE(t_value, "Value", f_value);

static const fb_field f_debug_event[] = {
    F_SC("chain_index", FB_U64),
    F_SCD("instruction_id", FB_I32, -1),
    F_TAB("debug_entry", t_value),
    F_SCD("delegate_debug_id_int", FB_I32, -1),
    F_STR("delegate_debug_id_str"),
    F_STR("name"),
};
static TABLE(t_debug_event, "DebugEvent", f_debug_event);

static const fb_field f_allocation_event[] = {
    F_SC("allocator_id", FB_I32),
    F_SC("allocation_size", FB_U64),
};
static TABLE(t_allocation_event, "AllocationEvent", f_allocation_event);

static const fb_field f_profile_event[] = {
    F_STR("name"),
    F_SC("chain_index", FB_I32),
    F_SCD("instruction_id", FB_I32, -1),
    F_SCD("delegate_debug_id_int", FB_I32, -1),
    F_STR("delegate_debug_id_str"),
    F_VEC("delegate_debug_metadata", FB_U8),
    F_SC("start_time", FB_U64),
    F_SC("end_time", FB_U64),
};
static TABLE(t_profile_event, "ProfileEvent", f_profile_event);

static const fb_field f_event[] = {
    F_TAB("profile_event", t_profile_event),
    F_TAB("allocation_event", t_allocation_event),
    F_TAB("debug_event", t_debug_event),
};
static TABLE(t_event, "Event", f_event);

static const fb_field f_allocator[] = {F_STR("name")};
static TABLE(t_allocator, "Allocator", f_allocator);

static const fb_field f_run_data[] = {
    F_STR("name"),
    F_SCD("bundled_input_index", FB_I32, -1),
    F_VECT("allocators", t_allocator),
    F_VECT("events", t_event),
};
static TABLE(t_run_data, "RunData", f_run_data);

static const fb_field f_etdump[] = {
    F_SC("version", FB_U32),
    F_VECT("run_data", t_run_data),
};
TABLE(etp_schema_etdump, "ETDump", f_etdump);
