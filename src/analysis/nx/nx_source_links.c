/* nx_source_links.c - link the TOSA ops of the NX chains and cascades to
 * source operators where the ETRecord's delegate map names them.
 *
 * The delegate map of a DELEGATE_CALL instruction maps delegate debug
 * identifiers to debug handles. An op is linked only when one identifier is
 * the op's own identity as the debug database gives it: its SPIR-V result id
 * (written in decimal) or one of its API labels, exactly. Nothing is
 * inferred from op types or names that merely look alike; every op left
 * unlinked carries the reason. A link says which source operators an op came
 * from, never that the op has a cost of its own (the cycles are the group's). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/etrecord.h"
#include "etprof/nx_stats.h"
#include "util/str.h"

static const char *const WHY_NO_ETRECORD = "no ETRecord given: its delegate map is what names source operators";
static const char *const WHY_NO_MAP = "the ETRecord has no delegate_map for this method";
static const char *const WHY_NO_ENTRY = "the ETRecord's delegate_map has no entry for this DELEGATE_CALL instruction";
static const char *const WHY_EMPTY_ENTRY = "the delegate_map entry of this instruction names no delegate debug identifier";
static const char *const WHY_NOT_NAMED = "the delegate_map names neither this op's SPIR-V result id nor one of its API labels";
static const char *const WHY_NO_NODE = "the delegate_map's debug handles for this op match no node of the exported graph";

static etp_status nomem(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "VGF source links: out of memory");
}

static void clear_links(etp_nx_op *o)
{
    free(o->source_handles);
    for (uint32_t k = 0; k < o->source_node_count; k++)
        free(o->source_nodes[k]);
    free(o->source_nodes);
    o->source_handles = NULL;
    o->source_nodes = NULL;
    o->source_handle_count = o->source_node_count = 0;
    o->source_link_reason = NULL;
}

/* Whether @p id is one of the ';'-separated labels of @p labels (or all of
 * them: a label may itself hold ';', which the joined text cannot tell). */
static int names_label(const char *labels, const char *id)
{
    size_t n = strlen(id);
    if (!n || !labels)
        return 0;
    if (!strcmp(labels, id))
        return 1;
    for (const char *p = labels; *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !memcmp(p, id, n))
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* The delegate map entry naming op @p o, or NULL. */
static const etp_delegate_id_handles *named_by(const etp_instr_delegate *dm, const etp_nx_op *o)
{
    char spirv[24] = "";
    if (o->spirv_id >= 0)
        snprintf(spirv, sizeof spirv, "%" PRId64, o->spirv_id);
    for (uint32_t q = 0; q < dm->id_count; q++) {
        const char *id = dm->ids[q].delegate_id;
        if (!id)
            continue;
        if ((*spirv && !strcmp(id, spirv)) || names_label(o->labels, id))
            return &dm->ids[q];
    }
    return NULL;
}

static int has_name(char **v, uint32_t n, const char *s)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

static int push_name(char ***v, uint32_t *n, const char *s)
{
    return has_name(*v, *n, s) ? 0 : etp_strs_push(v, n, s, strlen(s));
}

/* Link one op through entry @p h: its handles, the nodes that have them. */
static int link_op(etp_nx_op *o, const etp_delegate_id_handles *h, const etp_exported_program *ep)
{
    if (h->handles.count) {
        o->source_handles = malloc(h->handles.count * sizeof *o->source_handles);
        if (!o->source_handles)
            return -1;
        memcpy(o->source_handles, h->handles.handles, h->handles.count * sizeof *o->source_handles);
        o->source_handle_count = h->handles.count;
    }
    /* Graph order: collect node indices, then sort them. */
    uint32_t *idx = NULL, ni = 0;
    for (uint32_t k = 0; ep && k < h->handles.count; k++) {
        const uint32_t *nodes;
        uint32_t c = etp_exported_program_nodes_with_handle(ep, h->handles.handles[k], &nodes);
        if (!c)
            continue;
        uint32_t *nv = realloc(idx, (ni + c) * sizeof *nv);
        if (!nv) {
            free(idx);
            return -1;
        }
        idx = nv;
        for (uint32_t j = 0; j < c; j++) {
            uint32_t at = ni++;
            while (at && idx[at - 1] > nodes[j]) {
                idx[at] = idx[at - 1];
                at--;
            }
            idx[at] = nodes[j];
        }
    }
    for (uint32_t j = 0; j < ni; j++) {
        const char *name = ep->nodes[idx[j]].name;
        if (name && push_name(&o->source_nodes, &o->source_node_count, name)) {
            free(idx);
            return -1;
        }
    }
    free(idx);
    if (!o->source_node_count)
        o->source_link_reason = WHY_NO_NODE;
    return 0;
}

etp_status etp_nx_link_sources(etp_nx_result *r, const etp_etrecord *rec, const char *method, etp_error *err)
{
    const etp_method_maps *maps = rec ? etp_etrecord_maps(rec, method) : NULL;
    const etp_exported_program *ep = rec ? etp_etrecord_edge_program(rec, method) : NULL;
    r->sources_checked = rec != NULL;
    r->source_linked_ops = r->source_unlinked_ops = 0;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        etp_nx_entity *e = &r->entities[i];
        if (e->kind != ETP_NX_CHAIN && e->kind != ETP_NX_CASCADE)
            continue;
        for (uint32_t k = 0; k < e->source_node_count; k++)
            free(e->source_nodes[k]);
        free(e->source_nodes);
        e->source_nodes = NULL;
        e->source_node_count = 0;
        const etp_instr_delegate *dm =
            maps && maps->in_delegate_map ? etp_etrecord_instr_delegate(maps, e->instruction_id) : NULL;
        for (uint32_t k = 0; k < e->op_count; k++) {
            etp_nx_op *o = &e->ops[k];
            clear_links(o);
            const etp_delegate_id_handles *h = NULL;
            if (!rec)
                o->source_link_reason = WHY_NO_ETRECORD;
            else if (!maps || !maps->in_delegate_map)
                o->source_link_reason = WHY_NO_MAP;
            else if (!dm)
                o->source_link_reason = WHY_NO_ENTRY;
            else if (!dm->id_count)
                o->source_link_reason = WHY_EMPTY_ENTRY;
            else if (!(h = named_by(dm, o)))
                o->source_link_reason = WHY_NOT_NAMED;
            if (h && link_op(o, h, ep))
                return nomem(err);
            for (uint32_t q = 0; q < o->source_node_count; q++)
                if (push_name(&e->source_nodes, &e->source_node_count, o->source_nodes[q]))
                    return nomem(err);
            if (e->kind == ETP_NX_CHAIN) {
                if (o->source_node_count)
                    r->source_linked_ops++;
                else
                    r->source_unlinked_ops++;
            }
        }
    }
    return ETP_OK;
}
