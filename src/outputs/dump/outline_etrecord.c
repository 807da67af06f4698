/* outline_etrecord.c - the readable view of an ETRecord for `etprof dump`:
 * entries and their roles, each program's nodes, and the maps' sizes. */
#include <inttypes.h>
#include <string.h>

#include "outputs/dump/outline.h"

static void handle_text(const etp_handle_list *h, FILE *fp)
{
    if (h->count == 1) {
        fprintf(fp, "%" PRId64, h->handles[0]);
        return;
    }
    fputc('[', fp);
    for (uint32_t i = 0; i < h->count; i++)
        fprintf(fp, "%s%" PRId64, i ? ", " : "", h->handles[i]);
    fputc(']', fp);
}

static void outline_program(const etp_exported_program *p, FILE *fp)
{
    fprintf(fp, "program %s: %s, method %s, schema %s, %u node%s, %u input%s, %u output%s\n",
            p->entry,
            p->is_edge ? "edge dialect" : (p->kind == ETP_ETR_EXPORTED_PROGRAM ? "ATen (exported)"
                                                                                 : "graph_map"),
            p->method, p->schema_version ? p->schema_version : "(none)", p->node_count,
            p->node_count == 1 ? "" : "s", p->input_count, p->input_count == 1 ? "" : "s",
            p->output_count, p->output_count == 1 ? "" : "s");
    if (p->skipped_strings)
        fprintf(fp, "  %" PRIu64 " huge string%s skipped (%" PRIu64 " bytes)\n", p->skipped_strings,
                p->skipped_strings == 1 ? "" : "s", p->skipped_bytes);
    for (uint32_t i = 0; i < p->node_count; i++) {
        const etp_graph_node *n = &p->nodes[i];
        int extra = n->has_debug_handle || n->is_delegate_call || n->module_depth;
        fprintf(fp, "  [%u] %-40s %-*s", i, n->name, extra ? 44 : 0, n->op_type);
        if (n->has_debug_handle)
            fprintf(fp, " handle %" PRId64, n->debug_handle);
        if (n->is_delegate_call)
            fprintf(fp, " (delegate call)");
        if (n->module_depth) {
            const etp_module_frame *f = &n->modules[n->module_depth - 1];
            fprintf(fp, " in %s", f->path[0] ? f->path : f->key);
        }
        fputc('\n', fp);
    }
}

void etp_outline_etrecord(const etp_etrecord *r, FILE *fp)
{
    fprintf(fp, "ETRecord %s: %" PRIu64 " bytes, %u entries, layout \"%s\"\n  (%s)\n", r->path,
            r->file_size, r->entry_count, r->layout, r->layout_reason);
    fprintf(fp, "entries:\n");
    for (uint32_t i = 0; i < r->entry_count; i++) {
        const etp_zip_entry_info *e = &r->entries[i];
        fprintf(fp, "  %-52s %10" PRIu64 " %-8s %s%s\n", e->name, e->size,
                e->method == 0 ? "stored" : e->method == 8 ? "deflate" : "other", e->role,
                e->parsed ? "" : (e->kind == ETP_ETR_MARKER ? "" : " (not parsed)"));
    }
    for (uint32_t i = 0; i < r->program_count; i++)
        outline_program(&r->programs[i], fp);
    fprintf(fp, "maps:\n");
    fprintf(fp, "  debug_handle_map: %s\n", r->has_debug_handle_map ? "present" : "absent");
    fprintf(fp, "  delegate_map: %s\n", r->has_delegate_map ? "present" : "absent");
    fprintf(fp, "  instruction_id_to_num_outs_map: %s\n", r->has_num_outs_map ? "present" : "absent");
    if (r->has_export_graph_id)
        fprintf(fp, "  export_graph_id: %" PRId64 "\n", r->export_graph_id);
    else
        fprintf(fp, "  export_graph_id: absent\n");
    if (r->method_count == 0 && (r->has_debug_handle_map || r->has_delegate_map))
        fprintf(fp, "  (maps are empty: no instruction can be joined to a graph node)\n");
    for (uint32_t i = 0; i < r->method_count; i++) {
        const etp_method_maps *m = &r->methods[i];
        fprintf(fp, "method %s: %u instruction%s with debug handles, %u delegate call%s, %u "
                    "num_outs entr%s\n",
                m->method, m->handle_count, m->handle_count == 1 ? "" : "s", m->delegate_count,
                m->delegate_count == 1 ? "" : "s", m->num_outs_count,
                m->num_outs_count == 1 ? "y" : "ies");
        const etp_exported_program *edge = NULL;
        for (uint32_t k = 0; k < r->program_count; k++)
            if (r->programs[k].is_edge && strcmp(r->programs[k].method, m->method) == 0)
                edge = &r->programs[k];
        for (uint32_t k = 0; k < m->handle_count; k++) {
            const etp_instr_handles *ih = &m->handles[k];
            fprintf(fp, "  instruction %4d -> handle ", ih->instruction_id);
            handle_text(&ih->handles, fp);
            uint32_t nodes = 0;
            for (uint32_t h = 0; h < ih->handles.count && edge; h++)
                nodes += etp_exported_program_nodes_with_handle(edge, ih->handles.handles[h], NULL);
            if (edge)
                fprintf(fp, nodes ? "  (%u node%s)" : "  (no node)", nodes, nodes == 1 ? "" : "s");
            fputc('\n', fp);
        }
        for (uint32_t k = 0; k < m->delegate_count; k++) {
            const etp_instr_delegate *d = &m->delegates[k];
            fprintf(fp, "  instruction %4d delegate %s, %u delegate id%s mapped\n",
                    d->instruction_id, d->backend ? d->backend : "(unnamed)", d->id_count,
                    d->id_count == 1 ? "" : "s");
        }
    }
}
