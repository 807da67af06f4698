/* vgf_json.c - `etprof dump --json` of a VGF: the FlatBuffers sections as
 * flatc decodes them, the raw constants' records, and the SPIR-V graphs. */
#include <stdlib.h>
#include <string.h>

#include "etprof/dump.h"
#include "formats/flatbuffers/fb_schema.h"
#include "formats/flatbuffers/schema_vgf.h"
#include "formats/vgf/vgf_internal.h"
#include "util/jsonw.h"

static const char *const section_keys[4] = {"modules", "model_sequence", "resources",
                                             "constants"};

static void section_json(etp_jw *w, const etp_vgf *v, int k, const fb_table *schema)
{
    fb_buf b = {v->in->data + v->sections[k].offset, (uint32_t)v->sections[k].size};
    if (v->in->roots[k])
        fb_dump_json(&b, v->in->roots[k], schema, w);
    else
        etp_jw_null(w);
}

static const char *operand_kind(etp_spv_operand_kind k)
{
    switch (k) {
    case ETP_SPV_GRAPH_INPUT: return "graph_input";
    case ETP_SPV_OP_RESULT: return "op";
    case ETP_SPV_CONSTANT: return "constant";
    case ETP_SPV_GRAPH_CONSTANT: return "graph_constant";
    case ETP_SPV_EXTRACT: return "extract";
    }
    return "?";
}

static void ktype(etp_jw *w, const etp_spv_module *m, const char *key, uint32_t type_id)
{
    char buf[256];
    etp_spv_type_str(m, type_id, buf, sizeof buf);
    etp_jw_kstr(w, key, buf);
}

static void io_list(etp_jw *w, const etp_spv_module *m, const char *key, const etp_spv_io *io,
                    uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "id", io[i].id);
        etp_jw_kuint(w, "index", io[i].index);
        ktype(w, m, "type", io[i].type_id);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

static void op_json(etp_jw *w, const etp_spv_module *m, const etp_spv_op *op)
{
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "result_id", op->result_id);
    if (op->is_extract)
        etp_jw_kstr(w, "instruction", "OpCompositeExtract");
    else
        etp_jw_kuint(w, "opcode", op->opcode);
    etp_jw_kstr(w, "name", op->name);
    etp_jw_kstr(w, "label", op->label);
    ktype(w, m, "type", op->type_id);
    etp_jw_key(w, "operands");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < op->operand_count; k++) {
        const etp_spv_operand *o = &op->operands[k];
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "id", o->id);
        etp_jw_kstr(w, "kind", operand_kind(o->kind));
        if (o->kind != ETP_SPV_CONSTANT)
            etp_jw_kuint(w, "index", o->index);
        etp_jw_kstr(w, "role", o->role);
        etp_jw_kbool(w, "attribute", o->attribute);
        ktype(w, m, "type", o->type_id);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static void spirv_json(etp_jw *w, const etp_vgf *v)
{
    etp_jw_key(w, "spirv");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < v->module_count; i++) {
        const etp_spv_module *m = v->modules[i].spv;
        if (!m)
            continue;
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "module", i);
        etp_jw_kuint(w, "version", m->version);
        etp_jw_kuint(w, "generator", m->generator);
        etp_jw_kuint(w, "bound", m->bound);
        etp_jw_kuint(w, "words", m->word_count);
        etp_jw_kuint(w, "instructions", m->instruction_count);
        etp_jw_kstr(w, "tosa_set", m->tosa_set);
        etp_jw_kuint(w, "constants", m->constant_count);
        etp_jw_kuint(w, "graph_constants", m->graph_constant_count);
        etp_jw_key(w, "graphs");
        etp_jw_arr_begin(w);
        for (uint32_t g = 0; g < m->graph_count; g++) {
            const etp_spv_graph *gr = &m->graphs[g];
            etp_jw_obj_begin(w);
            etp_jw_kuint(w, "id", gr->id);
            etp_jw_kstr(w, "name", gr->name);
            io_list(w, m, "inputs", gr->inputs, gr->input_count);
            io_list(w, m, "outputs", gr->outputs, gr->output_count);
            etp_jw_key(w, "ops");
            etp_jw_arr_begin(w);
            for (uint32_t k = 0; k < gr->op_count; k++)
                op_json(w, m, &gr->ops[k]);
            etp_jw_arr_end(w);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

etp_status etp_vgf_write_json(const etp_vgf *v, FILE *fp, int pretty, etp_error *err)
{
    etp_jw w;
    char ver[16];
    etp_jw_init_file(&w, fp, pretty);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "file", v->file);
    etp_jw_kint(&w, "file_offset", v->file_offset);
    etp_jw_kuint(&w, "size", v->size);
    etp_jw_key(&w, "header");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "magic", v->old_magic ? "C3D2E1F0" : "VGF1");
    etp_jw_kuint(&w, "vk_header_version", v->vk_header_version);
    snprintf(ver, sizeof ver, "%u.%u.%u", v->major, v->minor, v->patch);
    etp_jw_kstr(&w, "version", ver);
    for (int k = 0; k < 4; k++) {
        etp_jw_key(&w, section_keys[k]);
        etp_jw_obj_begin(&w);
        etp_jw_kuint(&w, "offset", v->sections[k].offset);
        etp_jw_kuint(&w, "size", v->sections[k].size);
        etp_jw_obj_end(&w);
    }
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "modules");
    section_json(&w, v, 0, &etp_schema_vgf_modules);
    etp_jw_key(&w, "model_sequence");
    section_json(&w, v, 1, &etp_schema_vgf_sequence);
    etp_jw_key(&w, "resources");
    section_json(&w, v, 2, &etp_schema_vgf_resources);
    etp_jw_key(&w, "constants");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "layout", v->sections[3].size == 0 ? "empty"
                              : v->constants_raw         ? "CONST00"
                                                         : "ConstantSection");
    if (v->constants_raw || v->sections[3].size == 0) {
        etp_jw_key(&w, "records");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < v->constant_count; i++) {
            const etp_vgf_constant *c = &v->constants[i];
            etp_jw_obj_begin(&w);
            etp_jw_kuint(&w, "mrt_index", c->mrt_index);
            etp_jw_kint(&w, "sparsity_dimension", c->sparsity_dimension);
            etp_jw_kuint(&w, "size", c->size);
            etp_jw_kuint(&w, "offset", c->offset);
            etp_jw_obj_end(&w);
        }
        etp_jw_arr_end(&w);
    } else {
        etp_jw_key(&w, "table");
        section_json(&w, v, 3, &etp_schema_vgf_constants);
    }
    etp_jw_obj_end(&w);
    spirv_json(&w, v);
    etp_jw_obj_end(&w);
    return etp_jw_finish_status(&w, "VGF JSON", err);
}
