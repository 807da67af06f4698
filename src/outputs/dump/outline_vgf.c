/* outline_vgf.c - the readable view of a VGF (`etprof dump model.vgf`, and
 * each VGF delegate of a program): header, modules with their SPIR-V graphs,
 * segments, resources and constants. */
#include <inttypes.h>

#include "outputs/dump/outline.h"

static void bindings(FILE *fp, const char *what, const etp_vgf_binding *b, uint32_t n)
{
    fprintf(fp, "%s%s", what[0] == ',' ? "" : " ", what);
    if (!n)
        fputs(" none", fp);
    for (uint32_t i = 0; i < n; i++)
        fprintf(fp, "%s b%u->mrt %u", i ? "," : "", b[i].binding, b[i].mrt_index);
}

static void graph_outline(FILE *fp, const char *ind, const etp_spv_module *m,
                          const etp_spv_graph *g)
{
    char type[128];
    fprintf(fp, "%s  graph %%%u %s: %u input%s, %u output%s, %u op%s\n", ind, g->id,
            g->name[0] ? g->name : "(unnamed)", g->input_count, g->input_count == 1 ? "" : "s",
            g->output_count, g->output_count == 1 ? "" : "s", g->op_count,
            g->op_count == 1 ? "" : "s");
    /* Histogram of op labels in first-seen order (a few dozen kinds at most). */
    const char *labels[64];
    uint32_t counts[64], kinds = 0;
    for (uint32_t i = 0; i < g->op_count; i++) {
        uint32_t k = 0;
        while (k < kinds && labels[k] != g->ops[i].label)
            k++;
        if (k == kinds && kinds < 64) {
            labels[kinds] = g->ops[i].label;
            counts[kinds++] = 0;
        }
        if (k < kinds)
            counts[k]++;
    }
    if (kinds) {
        fprintf(fp, "%s    ops:", ind);
        for (uint32_t k = 0; k < kinds; k++)
            fprintf(fp, "%s %s %u", k ? "," : "", labels[k], counts[k]);
        fputc('\n', fp);
    }
    for (uint32_t i = 0; i < g->input_count; i++) {
        etp_spv_type_str(m, g->inputs[i].type_id, type, sizeof type);
        fprintf(fp, "%s    input %u: %%%u %s\n", ind, g->inputs[i].index, g->inputs[i].id, type);
    }
    for (uint32_t i = 0; i < g->output_count; i++) {
        etp_spv_type_str(m, g->outputs[i].type_id, type, sizeof type);
        fprintf(fp, "%s    output %u: %%%u %s\n", ind, g->outputs[i].index, g->outputs[i].id,
                type);
    }
}

void etp_outline_vgf(const etp_vgf *v, FILE *fp, const char *ind)
{
    char b1[24], b2[24], b3[24];
    fprintf(fp, "%sVGF %u.%u.%u%s: %" PRIu64 " bytes, %u module%s, %u segment%s, %u resource%s, "
                "%u constant%s (%s)\n",
            ind, v->major, v->minor, v->patch, v->old_magic ? " (old magic)" : "", v->size,
            v->module_count, v->module_count == 1 ? "" : "s", v->segment_count,
            v->segment_count == 1 ? "" : "s", v->resource_count,
            v->resource_count == 1 ? "" : "s", v->constant_count,
            v->constant_count == 1 ? "" : "s", v->constants_raw ? "CONST00" : "legacy table");
    for (uint32_t i = 0; i < v->module_count; i++) {
        const etp_vgf_module *m = &v->modules[i];
        const char *code = !m->has_code ? "no code"
                           : m->code_kind == ETP_VGF_CODE_SPIRV ? "SPIR-V"
                           : m->code_kind == ETP_VGF_CODE_GLSL  ? "GLSL"
                           : m->code_kind == ETP_VGF_CODE_HLSL  ? "HLSL"
                                                                : "unknown code";
        fprintf(fp, "%s  module %u: %s %s, entry %s, %s", ind, i,
                etp_vgf_module_type_name(m->type, b1), m->name, m->entry_point, code);
        if (m->spirv)
            fprintf(fp, " (%u words at offset %" PRIu64 ")", m->spirv_words, m->spirv_offset);
        else if (m->source)
            fprintf(fp, " (%u bytes of source, not drawn)", m->source_len);
        fputc('\n', fp);
        if (m->spv) {
            fprintf(fp, "%s    SPIR-V %u.%u, bound %u, %u instructions, set %s, %u graph%s\n",
                    ind, (m->spv->version >> 16) & 0xFF, (m->spv->version >> 8) & 0xFF,
                    m->spv->bound, m->spv->instruction_count,
                    m->spv->tosa_set ? m->spv->tosa_set : "(no TOSA import)", m->spv->graph_count,
                    m->spv->graph_count == 1 ? "" : "s");
            for (uint32_t g = 0; g < m->spv->graph_count; g++)
                graph_outline(fp, ind, m->spv, &m->spv->graphs[g]);
        }
    }
    for (uint32_t i = 0; i < v->segment_count; i++) {
        const etp_vgf_segment *s = &v->segments[i];
        fprintf(fp, "%s  segment %u: %s %s, module %u,", ind, i,
                etp_vgf_module_type_name(s->type, b1), s->name, s->module_index);
        bindings(fp, "inputs", s->inputs, s->input_count);
        bindings(fp, ", outputs", s->outputs, s->output_count);
        fprintf(fp, ", %u descriptor set%s, %u constant%s", s->set_count,
                s->set_count == 1 ? "" : "s", s->constant_count, s->constant_count == 1 ? "" : "s");
        if (s->has_dispatch_shape)
            fprintf(fp, ", dispatch [%u, %u, %u]", s->dispatch_shape[0], s->dispatch_shape[1],
                    s->dispatch_shape[2]);
        if (s->push_range_count)
            fprintf(fp, ", %u push-constant range%s", s->push_range_count,
                    s->push_range_count == 1 ? "" : "s");
        fputc('\n', fp);
    }
    fprintf(fp, "%s  model", ind);
    bindings(fp, "inputs", v->inputs, v->input_count);
    bindings(fp, ", outputs", v->outputs, v->output_count);
    fputc('\n', fp);
    uint32_t by_cat[4] = {0};
    for (uint32_t i = 0; i < v->resource_count; i++) {
        const etp_vgf_resource *r = &v->resources[i];
        if (r->category < 4)
            by_cat[r->category]++;
        if (r->category == ETP_VGF_CONSTANT)
            continue; /* counted below, listed by --json */
        fprintf(fp, "%s  resource %u: %s %s %s [", ind, i, etp_vgf_category_name(r->category, b1),
                etp_vgf_descriptor_type_name(r->descriptor_type, b2),
                etp_vgf_format_name(r->vk_format, b3));
        for (uint32_t k = 0; k < r->rank; k++)
            fprintf(fp, "%s%" PRId64, k ? ", " : "", r->shape[k]);
        fputs("]\n", fp);
    }
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < v->constant_count; i++)
        bytes += v->constants[i].size;
    fprintf(fp, "%s  %u constant resource%s; constants hold %" PRIu64 " bytes\n", ind,
            by_cat[ETP_VGF_CONSTANT], by_cat[ETP_VGF_CONSTANT] == 1 ? "" : "s", bytes);
}
