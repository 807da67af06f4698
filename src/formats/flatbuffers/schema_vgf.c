/* schema_vgf.c - the FlatBuffers tables of a VGF file (see schemas/flatbuffers/vgf.fbs).
 * Each section is its own buffer; the roots are exported for vgf.c. */
#include "formats/flatbuffers/schema_defs.h"
#include "formats/flatbuffers/schema_vgf.h"

static const int64_t v0123[] = {0, 1, 2, 3};
static const char *const mt_names[] = {"COMPUTE", "GRAPH"};
static const fb_enum e_module_type = {"ModuleType", 2, v0123, mt_names};
static const char *const rc_names[] = {"INPUT", "OUTPUT", "INTERMEDIATE", "CONSTANT"};
static const fb_enum e_category = {"ResourceCategory", 4, v0123, rc_names};

static const fb_field f_spirv[] = {F_VEC("words", FB_U32)};
static TABLE(t_spirv, "SPIRV", f_spirv);
static const fb_field f_source[] = {F_STR("code")};
static TABLE(t_glsl, "GLSL", f_source);
static TABLE(t_hlsl, "HLSL", f_source);

static const char *const mc_names[] = {"NONE", "SPIRV", "GLSL", "HLSL"};
static const fb_table *const mc_tables[] = {NULL, &t_spirv, &t_glsl, &t_hlsl};
static const fb_union u_module_code = {"ModuleCode", 4, mc_names, mc_tables};

static const fb_field f_module[] = {F_EN("type", FB_U8, e_module_type), F_STR("name"),
                                    F_STR("entry_point"), F_UTYPE("code_type", u_module_code),
                                    F_UNION("code", u_module_code)};
static TABLE(t_module, "Module", f_module);
static const fb_field f_module_table[] = {F_VECT("modules", t_module)};
TABLE(etp_schema_vgf_modules, "ModuleTable", f_module_table);

static const fb_field f_binding[] = {F_SC("binding", FB_U32), F_SC("mrt_index", FB_U32)};
static TABLE(t_binding, "BindingSlot", f_binding);
static const fb_field f_set[] = {F_VECT("bindings", t_binding),
                                 F_SCD("set_index", FB_U32, 0xFFFFFFFFll)};
static TABLE(t_set, "DescriptorSetInfo", f_set);
static const fb_field f_push[] = {F_SC("stage_flags", FB_U32), F_SC("offset", FB_U32),
                                  F_SC("size", FB_U32)};
static TABLE(t_push, "PushConstantRange", f_push);
static const fb_field f_segment[] = {
    F_EN("type", FB_U8, e_module_type), F_STR("name"), F_SC("module_index", FB_U32),
    F_VECT("set_infos", t_set), F_VECT("inputs", t_binding), F_VECT("outputs", t_binding),
    F_VEC("constants", FB_U32), F_VEC("dispatch_shape", FB_U32),
    F_VECT("push_constant_ranges", t_push)};
static TABLE(t_segment, "SegmentInfo", f_segment);
static const fb_field f_sequence[] = {F_VECT("segments", t_segment), F_VECT("inputs", t_binding),
                                      F_VECT("outputs", t_binding), F_VECS("input_names"),
                                      F_VECS("output_names")};
TABLE(etp_schema_vgf_sequence, "ModelSequenceTable", f_sequence);

static const fb_field f_description[] = {F_VEC("shape", FB_I64), F_VEC("strides", FB_I64)};
static TABLE(t_description, "Description", f_description);
static const fb_field f_sampler[] = {F_SC("min_filter", FB_U32), F_SC("mag_filter", FB_U32),
                                     F_SC("address_mode_u", FB_U32),
                                     F_SC("address_mode_v", FB_U32),
                                     F_SC("border_color", FB_U32)};
static TABLE(t_sampler, "SamplerConfig", f_sampler);
static const char *const ec_names[] = {"NONE", "SamplerConfig"};
static const fb_table *const ec_tables[] = {NULL, &t_sampler};
static const fb_union u_extra_config = {"ExtraConfig", 2, ec_names, ec_tables};
static const fb_field f_mrt_entry[] = {
    F_SC("vk_descriptor_type", FB_U32), F_SC("vk_format", FB_U32),
    F_EN("category", FB_U8, e_category), F_TAB("description", t_description),
    F_UTYPE("extra_config_type", u_extra_config), F_UNION("extra_config", u_extra_config),
    F_SCD("alias_group_id", FB_U32, 0xFFFFFFFFll)};
static TABLE(t_mrt_entry, "ModelResourceTableEntry", f_mrt_entry);
static const fb_field f_resources[] = {F_VECT("mrt_entry", t_mrt_entry)};
TABLE(etp_schema_vgf_resources, "ModelResourceTable", f_resources);

static const fb_field f_constant[] = {F_SC("mrt_index", FB_U32), F_SC("sparsity_dimension", FB_I64),
                                      F_VEC("raw", FB_U8)};
static TABLE(t_constant, "ConstantData", f_constant);
static const fb_field f_constants[] = {F_VECT("data", t_constant)};
TABLE(etp_schema_vgf_constants, "ConstantSection", f_constants);
