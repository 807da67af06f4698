/* schema_program.c - the ExecuTorch program schema (see schemas/flatbuffers/program.fbs). */
#include "formats/flatbuffers/schemas.h"
#include "formats/flatbuffers/schema_defs.h"

static const int64_t v012[] = {0, 1, 2};
static const char *const dyn_names[] = {"STATIC", "DYNAMIC_BOUND", "DYNAMIC_UNBOUND"};
static const fb_enum e_dynamism = {"TensorShapeDynamism", 3, v012, dyn_names};
static const char *const tdl_names[] = {"SEGMENT", "EXTERNAL"};
static const fb_enum e_tensor_location = {"TensorDataLocation", 2, v012, tdl_names};
static const char *const dev_names[] = {"CPU", "CUDA", "XPU"};
static const fb_enum e_device = {"DeviceType", 3, v012, dev_names};
static const char *const dl_names[] = {"INLINE", "SEGMENT"};
static const fb_enum e_data_location = {"DataLocation", 2, v012, dl_names};

static const fb_field f_container[] = {F_STR("encoded_inp_str"), F_STR("encoded_out_str")};
static TABLE(t_container, "ContainerMetadata", f_container);

static const fb_field f_null[1] = {{0}};
static const fb_table t_null = {"Null", 0, f_null};

static const fb_field f_alloc[] = {
    F_SC("memory_id", FB_U32), F_SC("memory_offset_low", FB_U32), F_SC("memory_offset_high", FB_U32)};
static TABLE(t_alloc, "AllocationDetails", f_alloc);

static const fb_field f_extra[] = {
    F_SC("mutable_data_segments_idx", FB_U64),
    F_STR("fully_qualified_name"),
    F_EN("location", FB_I8, e_tensor_location),
    F_EN("device_type", FB_I8, e_device),
    F_SC("device_index", FB_I8),
};
static TABLE(t_extra, "ExtraTensorInfo", f_extra);

static const fb_field f_tensor[] = {
    F_EN("scalar_type", FB_I8, etp_enum_scalar_type),
    F_SC("storage_offset", FB_I32),
    F_VEC("sizes", FB_I32),
    F_VEC("dim_order", FB_U8),
    F_SC("requires_grad", FB_BOOL),
    F_SC("data_buffer_idx", FB_U32),
    F_TAB("allocation_info", t_alloc),
    F_SC("layout", FB_I8),
    F_EN("shape_dynamism", FB_I8, e_dynamism),
    F_TAB("extra_tensor_info", t_extra),
};
static TABLE(t_tensor, "Tensor", f_tensor);

static const fb_field f_int[] = {F_SC("int_val", FB_I64)};
static TABLE(t_int, "Int", f_int);
static const fb_field f_bool[] = {F_SC("bool_val", FB_BOOL)};
static TABLE(t_bool, "Bool", f_bool);
static const fb_field f_double[] = {F_SC("double_val", FB_F64)};
static TABLE(t_double, "Double", f_double);
static const fb_field f_string[] = {F_STR("string_val")};
static TABLE(t_string, "String", f_string);
static const fb_field f_int_list[] = {F_VEC("items", FB_I64)};
static TABLE(t_int_list, "IntList", f_int_list);
static const fb_field f_double_list[] = {F_VEC("items", FB_F64)};
static TABLE(t_double_list, "DoubleList", f_double_list);
static const fb_field f_bool_list[] = {F_VEC("items", FB_BOOL)};
static TABLE(t_bool_list, "BoolList", f_bool_list);
static const fb_field f_tensor_list[] = {F_VEC("items", FB_I32)};
static TABLE(t_tensor_list, "TensorList", f_tensor_list);
static TABLE(t_opt_tensor_list, "OptionalTensorList", f_tensor_list);

static const char *const kt_names[] = {"NONE",   "Null",       "Int",        "Bool",
                                       "Double", "Tensor",     "String",     "IntList",
                                       "DoubleList", "BoolList", "TensorList", "OptionalTensorList"};
static const fb_table *const kt_tables[] = {NULL,           &t_null,        &t_int,        &t_bool,
                                            &t_double,      &t_tensor,      &t_string,     &t_int_list,
                                            &t_double_list, &t_bool_list,   &t_tensor_list, &t_opt_tensor_list};
static const fb_union u_kernel_types = {"KernelTypes", 12, kt_names, kt_tables};

static const fb_field f_evalue[] = {F_UTYPE("val_type", u_kernel_types), F_UNION("val", u_kernel_types)};
static TABLE(t_evalue, "EValue", f_evalue);

static const fb_field f_operator[] = {F_STR("name"), F_STR("overload")};
static TABLE(t_operator, "Operator", f_operator);

static const fb_field f_kernel_call[] = {F_SC("op_index", FB_I32), F_VEC("args", FB_I32)};
static TABLE(t_kernel_call, "KernelCall", f_kernel_call);
static const fb_field f_delegate_call[] = {F_SC("delegate_index", FB_I32), F_VEC("args", FB_I32)};
static TABLE(t_delegate_call, "DelegateCall", f_delegate_call);
static const fb_field f_move_call[] = {F_SC("move_from", FB_I32), F_SC("move_to", FB_I32)};
static TABLE(t_move_call, "MoveCall", f_move_call);
static const fb_field f_jump_false[] = {F_SC("cond_value_index", FB_I32),
                                        F_SC("destination_instruction", FB_I32)};
static TABLE(t_jump_false, "JumpFalseCall", f_jump_false);
static const fb_field f_free_call[] = {F_SC("value_index", FB_I32)};
static TABLE(t_free_call, "FreeCall", f_free_call);

static const char *const ia_names[] = {"NONE", "KernelCall", "DelegateCall", "MoveCall",
                                       "JumpFalseCall", "FreeCall"};
static const fb_table *const ia_tables[] = {NULL, &t_kernel_call, &t_delegate_call, &t_move_call,
                                            &t_jump_false, &t_free_call};
static const fb_union u_instr_args = {"InstructionArguments", 6, ia_names, ia_tables};

static const fb_field f_instruction[] = {F_UTYPE("instr_args_type", u_instr_args),
                                         F_UNION("instr_args", u_instr_args)};
static TABLE(t_instruction, "Instruction", f_instruction);

static const fb_field f_frame[] = {F_STR("filename"), F_SC("lineno", FB_I32), F_STR("name"),
                                   F_STR("context")};
static TABLE(t_frame, "Frame", f_frame);
static const fb_field f_frame_list[] = {F_VECT("items", t_frame)};
static TABLE(t_frame_list, "FrameList", f_frame_list);

static const fb_field f_dref[] = {F_EN("location", FB_I8, e_data_location), F_SC("index", FB_U32)};
static TABLE(t_dref, "BackendDelegateDataReference", f_dref);

static const fb_field f_compile_spec[] = {F_STR("key"), F_VEC("value", FB_U8)};
static TABLE(t_compile_spec, "CompileSpec", f_compile_spec);

static const fb_field f_delegate[] = {F_STR("id"), F_TAB("processed", t_dref),
                                      F_VECT("compile_specs", t_compile_spec)};
static TABLE(t_delegate, "BackendDelegate", f_delegate);

static const fb_field f_chain[] = {F_VEC("inputs", FB_I32), F_VEC("outputs", FB_I32),
                                   F_VECT("instructions", t_instruction),
                                   F_VECT("stacktrace", t_frame_list)};
static TABLE(t_chain, "Chain", f_chain);

static const fb_field f_buffer_device[] = {F_SC("buffer_idx", FB_I32),
                                           F_EN("device_type", FB_I8, e_device),
                                           F_SC("device_index", FB_I8)};
static TABLE(t_buffer_device, "NonConstBufferDevice", f_buffer_device);

static const fb_field f_plan[] = {
    F_STR("name"),
    F_TAB("container_meta_type", t_container),
    F_VECT("values", t_evalue),
    F_VEC("inputs", FB_I32),
    F_VEC("outputs", FB_I32),
    F_VECT("chains", t_chain),
    F_VECT("operators", t_operator),
    F_VECT("delegates", t_delegate),
    F_VEC("non_const_buffer_sizes", FB_I64),
    F_VECT("non_const_buffer_device", t_buffer_device),
};
static TABLE(t_plan, "ExecutionPlan", f_plan);

static const fb_field f_buffer[] = {F_VEC("storage", FB_U8)};
static TABLE(t_buffer, "Buffer", f_buffer);
static const fb_field f_inline[] = {F_VEC("data", FB_U8)};
static TABLE(t_inline, "BackendDelegateInlineData", f_inline);
static const fb_field f_segment[] = {F_SC("offset", FB_U64), F_SC("size", FB_U64)};
static TABLE(t_segment, "DataSegment", f_segment);
static const fb_field f_subsegment[] = {F_SC("segment_index", FB_U32), F_VEC("offsets", FB_U64)};
static TABLE(t_subsegment, "SubsegmentOffsets", f_subsegment);
static const fb_field f_named[] = {F_STR("key"), F_SC("segment_index", FB_U32)};
static TABLE(t_named, "NamedData", f_named);

static const fb_field f_program[] = {
    F_SC("version", FB_U32),
    F_VECT("execution_plan", t_plan),
    F_VECT("constant_buffer", t_buffer),
    F_VECT("backend_delegate_data", t_inline),
    F_VECT("segments", t_segment),
    F_TAB("constant_segment", t_subsegment),
    F_VECT("mutable_data_segments", t_subsegment),
    F_VECT("named_data", t_named),
};
TABLE(etp_schema_program, "Program", f_program);
