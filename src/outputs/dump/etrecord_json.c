/* etrecord_json.c - `etprof dump --json` of an ETRecord: everything the
 * reader extracted, in one normalized document. Absent maps are null,
 * present-but-empty ones {}; handle values are always lists; instruction
 * ids ascend numerically; nothing depends on where the file lives. */
#include <stdio.h>

#include "etprof/dump.h"
#include "util/jsonw.h"

static const char *method_name(int m, char *buf, size_t n)
{
    switch (m) {
    case 0: return "stored";
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 93: return "zstd";
    case 95: return "xz";
    default: snprintf(buf, n, "method_%d", m); return buf;
    }
}

static void kstr_or_null(etp_jw *w, const char *k, const char *v)
{
    etp_jw_key(w, k);
    if (v)
        etp_jw_str(w, v);
    else
        etp_jw_null(w);
}

static void names(etp_jw *w, const char *k, const char *const *v, uint32_t n)
{
    etp_jw_key(w, k);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_str(w, v[i]);
    etp_jw_arr_end(w);
}

static void handles(etp_jw *w, const etp_handle_list *h)
{
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < h->count; i++)
        etp_jw_int(w, h->handles[i]);
    etp_jw_arr_end(w);
}

static const char *name_source(etp_node_name_source s)
{
    switch (s) {
    case ETP_NAME_FROM_NODE: return "node";
    case ETP_NAME_FROM_OUTPUT: return "first_output";
    case ETP_NAME_SYNTHESIZED: return "synthesized";
    }
    return "unknown";
}

static void node(etp_jw *w, const etp_graph_node *n)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", n->name);
    etp_jw_kstr(w, "name_source", name_source(n->name_source));
    etp_jw_kstr(w, "target", n->target);
    etp_jw_kstr(w, "op_type", n->op_type);
    etp_jw_kbool(w, "is_delegate_call", n->is_delegate_call);
    etp_jw_key(w, "debug_handle");
    if (n->has_debug_handle)
        etp_jw_int(w, n->debug_handle);
    else
        etp_jw_null(w);
    names(w, "inputs", n->inputs, n->input_count);
    names(w, "outputs", n->outputs, n->output_count);
    kstr_or_null(w, "stack_trace", n->stack_trace);
    kstr_or_null(w, "nn_module_stack", n->nn_module_stack);
    etp_jw_key(w, "module_stack");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n->module_depth; i++) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "key", n->modules[i].key);
        etp_jw_kstr(w, "path", n->modules[i].path);
        etp_jw_kstr(w, "type", n->modules[i].type);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    kstr_or_null(w, "source_fn_stack", n->source_fn_stack);
    etp_jw_obj_end(w);
}

static void program(etp_jw *w, const etp_exported_program *p)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "entry", p->entry);
    etp_jw_kstr(w, "method", p->method);
    etp_jw_kbool(w, "is_edge", p->is_edge);
    kstr_or_null(w, "schema_version", p->schema_version);
    etp_jw_kuint(w, "skipped_strings", p->skipped_strings);
    etp_jw_kuint(w, "skipped_bytes", p->skipped_bytes);
    names(w, "inputs", p->inputs, p->input_count);
    names(w, "outputs", p->outputs, p->output_count);
    etp_jw_kuint(w, "node_count", p->node_count);
    etp_jw_key(w, "nodes");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < p->node_count; i++)
        node(w, &p->nodes[i]);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static void instr_key(etp_jw *w, int32_t id)
{
    char k[16];
    snprintf(k, sizeof k, "%d", (int)id);
    etp_jw_key(w, k);
}

/* which: 0 debug handles, 1 delegates, 2 num_outs */
static void method_map(etp_jw *w, const etp_etrecord *r, const char *key, int present, int which)
{
    etp_jw_key(w, key);
    if (!present) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    for (uint32_t i = 0; i < r->method_count; i++) {
        const etp_method_maps *m = &r->methods[i];
        int in = which == 0 ? m->in_debug_handle_map : which == 1 ? m->in_delegate_map
                                                                   : m->in_num_outs_map;
        if (!in)
            continue;
        etp_jw_key(w, m->method);
        etp_jw_obj_begin(w);
        if (which == 0) {
            for (uint32_t k = 0; k < m->handle_count; k++) {
                instr_key(w, m->handles[k].instruction_id);
                handles(w, &m->handles[k].handles);
            }
        } else if (which == 1) {
            for (uint32_t k = 0; k < m->delegate_count; k++) {
                const etp_instr_delegate *d = &m->delegates[k];
                instr_key(w, d->instruction_id);
                etp_jw_obj_begin(w);
                kstr_or_null(w, "name", d->backend);
                etp_jw_key(w, "delegate_map");
                etp_jw_obj_begin(w);
                for (uint32_t j = 0; j < d->id_count; j++) {
                    etp_jw_key(w, d->ids[j].delegate_id);
                    handles(w, &d->ids[j].handles);
                }
                etp_jw_obj_end(w);
                etp_jw_obj_end(w);
            }
        } else {
            for (uint32_t k = 0; k < m->num_outs_count; k++) {
                instr_key(w, m->num_outs[k].instruction_id);
                const etp_handle_list *h = &m->num_outs[k].handles;
                if (h->count)
                    etp_jw_int(w, h->handles[0]);
                else
                    etp_jw_null(w);
            }
        }
        etp_jw_obj_end(w);
    }
    etp_jw_obj_end(w);
}

etp_status etp_etrecord_write_json(const etp_etrecord *r, FILE *fp, int pretty, etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "format", "ETRecord");
    etp_jw_kuint(&w, "file_size", r->file_size);
    etp_jw_kstr(&w, "layout", r->layout);
    etp_jw_kstr(&w, "layout_reason", r->layout_reason);
    etp_jw_key(&w, "entries");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < r->entry_count; i++) {
        const etp_zip_entry_info *e = &r->entries[i];
        char buf[32];
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "name", e->name);
        etp_jw_kstr(&w, "role", e->role);
        etp_jw_kstr(&w, "compression", method_name(e->method, buf, sizeof buf));
        etp_jw_kuint(&w, "size", e->size);
        etp_jw_kuint(&w, "compressed_size", e->compressed_size);
        etp_jw_kbool(&w, "parsed", e->parsed);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "programs");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < r->program_count; i++)
        program(&w, &r->programs[i]);
    etp_jw_arr_end(&w);
    method_map(&w, r, "debug_handle_map", r->has_debug_handle_map, 0);
    method_map(&w, r, "delegate_map", r->has_delegate_map, 1);
    method_map(&w, r, "instruction_id_to_num_outs_map", r->has_num_outs_map, 2);
    etp_jw_key(&w, "export_graph_id");
    if (r->has_export_graph_id)
        etp_jw_int(&w, r->export_graph_id);
    else
        etp_jw_null(&w);
    etp_jw_obj_end(&w);
    char what[600];
    snprintf(what, sizeof what, "the JSON of %s", r->path);
    return etp_jw_finish_status(&w, what, err);
}
