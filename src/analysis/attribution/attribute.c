/* attribute.c - source-operator attribution through the ETRecord.
 *
 * Each timed event source ("contribution": an instruction's OPERATOR_CALL,
 * a delegate event id's events, or a delegate's enclosing DELEGATE_CALL as
 * fallback) maps to a set of graph nodes through debug handles. A node's time
 * is the per-execution sum of its contributions. A contribution mapped to
 * several nodes, or with handles that match no node, is shared: every mapped
 * node keeps the full timing, marked non-additive, never divided. */
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/entities.h"
#include "analysis/series.h"
#include "util/parallel.h"
#include "util/str.h"
#include "etprof/etrecord.h"

typedef struct contribution {
    int64_t timed_entity;         /* entity whose `time` series this is (an index:
                                     the entity vector grows while operators are added) */
    uint32_t *nodes;              /* node indices in the edge program */
    uint32_t node_count;
    int64_t *unresolved;
    uint32_t unresolved_count;
    etp_timing_source source;
    int exclusive;                /* may be added: one node, no unresolved, not a fallback over detail */
    int64_t instruction_entity;
} contribution;

struct etp_attribution {
    etp_abuild *b;
    const etp_etrecord *r;
    const etp_method_maps *maps;
    const etp_exported_program *ep;
    VEC(contribution) contribs;
    VEC(int64_t) unresolved_all;
    uint32_t no_mapping, unmapped_delegate_events, fallbacks, details;
    int64_t *only;                /* see build_operators */
};

typedef struct etp_attribution attr;

static etp_status oom(attr *t)
{
    return etp_error_set(t->b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}

static int add_u32(uint32_t **v, uint32_t *n, uint32_t x)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*v)[i] == x)
            return 0;
    uint32_t *nv = realloc(*v, (*n + 1) * sizeof **v);
    if (!nv)
        return -1;
    nv[(*n)++] = x;
    *v = nv;
    return 0;
}

static int add_i64(int64_t **v, uint32_t *n, int64_t x)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*v)[i] == x)
            return 0;
    int64_t *nv = realloc(*v, (*n + 1) * sizeof **v);
    if (!nv)
        return -1;
    nv[(*n)++] = x;
    *v = nv;
    return 0;
}

/* Resolve @p hl into nodes and unresolved handles, skipping nodes in @p skip. */
static int resolve(attr *t, const etp_handle_list *hl, contribution *c, const uint8_t *skip)
{
    for (uint32_t k = 0; hl && k < hl->count; k++) {
        const uint32_t *idx;
        uint32_t n = etp_exported_program_nodes_with_handle(t->ep, hl->handles[k], &idx);
        if (!n) {
            if (add_i64(&c->unresolved, &c->unresolved_count, hl->handles[k]))
                return -1;
            continue;
        }
        for (uint32_t j = 0; j < n; j++)
            if ((!skip || !skip[idx[j]]) && add_u32(&c->nodes, &c->node_count, idx[j]))
                return -1;
    }
    return 0;
}

static int push(attr *t, contribution *c)
{
    etp_entity *ins = &t->b->ents.v[c->instruction_entity];
    for (uint32_t i = 0; i < c->unresolved_count; i++)
        if (add_i64(&ins->unresolved, &ins->unresolved_count, c->unresolved[i]))
            return -1;
    for (uint32_t i = 0; i < c->unresolved_count; i++) {
        int seen = 0;
        for (size_t k = 0; k < t->unresolved_all.n && !seen; k++)
            seen = t->unresolved_all.v[k] == c->unresolved[i];
        if (!seen && VEC_PUSH(t->unresolved_all, c->unresolved[i]))
            return -1;
    }
    if (!c->node_count) {
        free(c->nodes);
        free(c->unresolved);
        return 0;
    }
    return VEC_PUSH(t->contribs, *c);
}

/* The ETRecord's delegate map must agree with the program. */
static etp_status check_delegates(attr *t)
{
    etp_analysis *a = t->b->a;
    const etp_plan *pl = a->plan;
    if (!pl || pl->chain_count == 0)
        return ETP_OK;
    const etp_chain *ch = &pl->chains[0];
    for (uint32_t i = 0; i < t->maps->delegate_count; i++) {
        const etp_instr_delegate *d = &t->maps->delegates[i];
        const char *be = d->backend ? d->backend : "(unnamed)";
        if (d->instruction_id < 0 || (uint32_t)d->instruction_id >= ch->instruction_count)
            return etp_error_set(t->b->err, ETP_E_MISMATCH, t->r->path, ETP_NO_OFFSET,
                                 "delegate_map names instruction %d of %s, which %s does not have "
                                 "(%u instructions)",
                                 d->instruction_id, a->method, a->program->path, ch->instruction_count);
        const etp_instruction *in = &ch->instructions[d->instruction_id];
        if (in->kind != ETP_INSTR_DELEGATE)
            return etp_error_set(t->b->err, ETP_E_MISMATCH, t->r->path, ETP_NO_OFFSET,
                                 "delegate_map names instruction %d of %s as a %s delegate, but "
                                 "%s has a %s there",
                                 d->instruction_id, a->method, be, a->program->path,
                                 etp_instr_kind_name(in->kind));
        const char *id = in->a >= 0 && (uint32_t)in->a < pl->delegate_count ? pl->delegates[in->a].id : NULL;
        if (d->backend && id && strcmp(id, d->backend))
            return etp_error_set(t->b->err, ETP_E_MISMATCH, t->r->path, ETP_NO_OFFSET,
                                 "delegate_map says instruction %d of %s runs on %s, but %s "
                                 "delegates it to %s",
                                 d->instruction_id, a->method, d->backend, a->program->path, id);
    }
    return ETP_OK;
}

static etp_status collect(attr *t)
{
    etp_abuild *b = t->b;
    etp_analysis *a = b->a;
    const char *dpath = etp_etdump_path(a->etdump);
    int32_t max_mapped = -1;
    for (uint32_t i = 0; i < t->maps->handle_count; i++)
        if (t->maps->handles[i].instruction_id > max_mapped)
            max_mapped = t->maps->handles[i].instruction_id;
    uint8_t *covered = calloc(t->ep->node_count + 1, 1);
    if (!covered)
        return oom(t);
    /* Delegate-event entities by instruction: looked up once per delegate
     * call instead of scanning every entity. */
    etp_hm by_instr;
    etp_hm_init(&by_instr);
    /* (time.events, not time.executions: the statistics of these entities
     * are being computed on another thread meanwhile; both are non-zero
     * exactly when the entity has events.) */
    for (size_t k = 0; k < b->ents.n; k++)
        if (b->ents.v[k].kind == ETP_ENTITY_DELEGATE_EVENT && b->ents.v[k].time.events &&
            etp_hm_put(&by_instr, etp_instr_key(b->ents.v[k].chain, b->ents.v[k].instruction),
                       (uint32_t)k)) {
            etp_hm_free(&by_instr);
            free(covered);
            return oom(t);
        }
    etp_status st = ETP_OK;
    for (size_t i = 0; i < b->ents.n && !st; i++) {
        etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || !e->time.events)
            continue;
        if (e->source != ETP_SRC_OPERATOR_CALL && e->source != ETP_SRC_DELEGATE_CALL)
            continue;
        const etp_handle_list *hl = etp_etrecord_instr_handles(t->maps, e->instruction);
        if (e->chain != 0 || !hl) {
            if (!a->program && e->instruction > max_mapped)
                st = etp_error_set(b->err, ETP_E_MISMATCH, dpath, ETP_NO_OFFSET,
                                   "events at instruction %d of %s, but the debug handle map of %s "
                                   "ends at instruction %d",
                                   e->instruction, a->method, t->r->path, max_mapped);
            t->no_mapping++;
            continue;
        }
        if (e->handle_count == 0 && hl->count) {
            e->handles = malloc(hl->count * sizeof *e->handles);
            if (!e->handles) {
                st = oom(t);
                break;
            }
            memcpy(e->handles, hl->handles, hl->count * sizeof *e->handles);
            e->handle_count = hl->count;
        }
        if (e->source == ETP_SRC_OPERATOR_CALL) {
            contribution c = {(int64_t)i, NULL, 0, NULL, 0, ETP_SRC_OPERATOR_CALL, 0, (int64_t)i};
            if (resolve(t, hl, &c, NULL) || push(t, &c))
                st = oom(t);
            continue;
        }
        /* A delegate call: detailed events first, the enclosing interval as fallback. */
        const etp_instr_delegate *dm = etp_etrecord_instr_delegate(t->maps, e->instruction);
        /* covered[] is all zero here; the nodes this call's details mark are
         * cleared again below (a memset per call would touch every node). */
        size_t first_detail = t->contribs.n;
        int any_detail = 0, any_events = 0;
        size_t cur = 0;
        uint32_t k;
        while (!st && etp_hm_next(&by_instr, etp_instr_key(e->chain, e->instruction), &cur, &k)) {
            etp_entity *de = &b->ents.v[k];
            if (de->chain != e->chain || de->instruction != e->instruction)
                continue;
            any_events = 1;
            const etp_handle_list *dh = NULL;
            for (uint32_t q = 0; dm && q < dm->id_count && !dh; q++)
                if (!strcmp(dm->ids[q].delegate_id, de->op_type))
                    dh = &dm->ids[q].handles;
            if (!dh) {
                t->unmapped_delegate_events++;
                continue;
            }
            if (dh->count) {
                de->handles = malloc(dh->count * sizeof *de->handles);
                if (!de->handles) {
                    st = oom(t);
                    break;
                }
                memcpy(de->handles, dh->handles, dh->count * sizeof *de->handles);
                de->handle_count = dh->count;
            }
            contribution c = {(int64_t)k, NULL, 0, NULL, 0, ETP_SRC_DELEGATE_EVENTS, 0, (int64_t)i};
            if (resolve(t, dh, &c, NULL)) {
                st = oom(t);
                break;
            }
            for (uint32_t q = 0; q < c.node_count; q++)
                covered[c.nodes[q]] = 1;
            any_detail |= c.node_count > 0;
            t->details++;
            if (push(t, &c))
                st = oom(t);
        }
        if (st)
            break;
        if (dm == NULL && t->maps->in_delegate_map && any_events) {
            /* Delegate events but the delegate map does not know this call. */
            st = etp_error_set(b->err, ETP_E_MISMATCH, dpath, ETP_NO_OFFSET,
                               "delegate events at instruction %d of %s, but the delegate_map of %s "
                               "has no delegate there",
                               e->instruction, a->method, t->r->path);
            break;
        }
        contribution c = {(int64_t)i, NULL, 0, NULL, 0, ETP_SRC_DELEGATE_FALLBACK, 0, (int64_t)i};
        if (resolve(t, hl, &c, covered)) {
            st = oom(t);
            break;
        }
        for (size_t q = first_detail; q < t->contribs.n; q++)
            for (uint32_t j = 0; j < t->contribs.v[q].node_count; j++)
                covered[t->contribs.v[q].nodes[j]] = 0;
        if (c.node_count) {
            t->fallbacks++;
            c.source = any_detail ? ETP_SRC_DELEGATE_FALLBACK : ETP_SRC_DELEGATE_CALL;
            /* The enclosing interval also contains the detailed operators'
             * time: never exclusive when detail exists. */
            if (any_detail)
                c.exclusive = -1;
        }
        if (push(t, &c))
            st = oom(t);
    }
    free(covered);
    etp_hm_free(&by_instr);
    return st;
}

typedef struct finish_job {
    etp_abuild *b;
    const int64_t *only;
} finish_job;

/* Statistics of the operator entities among [lo, hi). */
static int finish_operators(void *ctx, size_t lo, size_t hi)
{
    finish_job *j = ctx;
    etp_abuild *b = j->b;
    uint64_t *scratch = malloc((b->nexec ? b->nexec : 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    for (size_t i = lo; i < hi; i++) {
        etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_OPERATOR)
            continue;
        if (j->only[i] >= 0) {
            /* Its one contribution's series, unchanged: same statistics. */
            const etp_series *src = &b->ents.v[j->only[i]].time;
            e->time.executions = src->executions;
            e->time.stats = src->stats;
        } else {
            etp_series_finish(&e->time, b->nexec, b->a->divisor, scratch);
        }
    }
    free(scratch);
    return 0;
}

/* Turn contributions into operator entities. */
static etp_status build_operators(attr *t)
{
    etp_abuild *b = t->b;
    const etp_exported_program *ep = t->ep;
    uint32_t n = ep->node_count;
    int64_t *ent_of_node = malloc((n + 1) * sizeof *ent_of_node);
    /* One entity per node at most: etp_attribute_prepare made room, so the
     * table is not moved while other entities' statistics are computed. */
    if (!ent_of_node || b->ents.cap < b->ents.n + n) {
        free(ent_of_node);
        return ent_of_node ? etp_error_set(b->err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET,
                                           "entity table not reserved")
                           : oom(t);
    }
    for (uint32_t i = 0; i < n; i++) {
        ent_of_node[i] = -1;
        const etp_graph_node *nd = &ep->nodes[i];
        if (!nd->has_debug_handle || !nd->name)
            continue;
        etp_entity e;
        memset(&e, 0, sizeof e);
        e.kind = ETP_ENTITY_OPERATOR;
        e.chain = e.instruction = -1;
        e.delegate_id_int = -1;
        e.id = etp_strdup(nd->name);
        e.name = etp_strdup(nd->name);
        e.op_type = etp_strdup(nd->op_type);
        e.handles = malloc(sizeof *e.handles);
        if (etp_series_init(&e.time, b->nexec) || !e.id || !e.name || !e.handles ||
            (nd->op_type && !e.op_type)) {
            free(e.id);
            free(e.name);
            free(e.op_type);
            free(e.handles);
            etp_series_free(&e.time);
            free(ent_of_node);
            return oom(t);
        }
        e.handles[0] = nd->debug_handle;
        e.handle_count = 1;
        if (nd->module_depth) {
            e.module_path = nd->modules[nd->module_depth - 1].path;
            e.module_type = nd->modules[nd->module_depth - 1].type;
        }
        e.stack_trace = nd->stack_trace;
        e.source_fn = nd->source_fn_stack;
        e.additive = 1;
        if (VEC_PUSH(b->ents, e)) {
            free(ent_of_node);
            return oom(t);
        }
        ent_of_node[i] = (int64_t)b->ents.n - 1;
    }
    /* only[e]: the entity whose series operator e copied when exactly one
     * contribution reached it (its statistics are then known, once the
     * instruction and delegate series are finished); -1 for none yet, -2
     * for several. */
    int64_t *only = malloc((b->ents.n ? b->ents.n : 1) * sizeof *only);
    if (!only) {
        free(ent_of_node);
        return oom(t);
    }
    t->only = only;
    for (size_t i = 0; i < b->ents.n; i++)
        only[i] = -1;
    etp_status st = ETP_OK;
    for (size_t ci = 0; ci < t->contribs.n && !st; ci++) {
        contribution *c = &t->contribs.v[ci];
        int exclusive = c->node_count == 1 && c->unresolved_count == 0 && c->exclusive >= 0;
        for (uint32_t k = 0; k < c->node_count && !st; k++) {
            int64_t ei = ent_of_node[c->nodes[k]];
            if (ei < 0)
                continue;
            etp_entity *e = &b->ents.v[ei];
            etp_series_merge(&e->time, &b->ents.v[c->timed_entity].time, b->nexec);
            only[ei] = only[ei] == -1 ? c->timed_entity : -2;
            e->source = e->source == ETP_SRC_NONE || e->source == c->source ? c->source : ETP_SRC_MIXED;
            if (!exclusive) {
                e->additive = 0;
                e->shared = e->shared || c->node_count > 1;
            }
            const etp_entity *ins = &b->ents.v[c->instruction_entity];
            if (!e->backend)
                e->backend = ins->backend;
            int dup = 0;
            for (uint32_t q = 0; q < e->instruction_count && !dup; q++)
                dup = !strcmp(e->instructions[q], ins->id);
            if (!dup) {
                char **ni = realloc(e->instructions, (e->instruction_count + 1) * sizeof *ni);
                if (!ni || !(ni[e->instruction_count] = etp_strdup(ins->id))) {
                    if (ni)
                        e->instructions = ni;
                    st = oom(t);
                    break;
                }
                e->instructions = ni;
                e->instruction_count++;
            }
            for (uint32_t q = 0; q < c->unresolved_count; q++)
                if (add_i64(&e->unresolved, &e->unresolved_count, c->unresolved[q]))
                    st = oom(t);
            for (uint32_t q = 0; q < c->node_count && !st; q++) {
                if (q == k || ent_of_node[c->nodes[q]] < 0)
                    continue;
                const char *other = b->ents.v[ent_of_node[c->nodes[q]]].id;
                int seen = 0;
                for (uint32_t z = 0; z < e->co_count && !seen; z++)
                    seen = !strcmp(e->co_attributed[z], other);
                if (seen)
                    continue;
                char **nc = realloc(e->co_attributed, (e->co_count + 1) * sizeof *nc);
                if (!nc || !(nc[e->co_count] = etp_strdup(other))) {
                    if (nc)
                        e->co_attributed = nc;
                    st = oom(t);
                    break;
                }
                e->co_attributed = nc;
                e->co_count++;
            }
        }
    }
    free(ent_of_node);
    return st;
}

/* Operator statistics, once the instruction and delegate series are done. */
static etp_status finish_all_operators(attr *t)
{
    finish_job job = {t->b, t->only};
    return etp_parallel_range(t->b->ents.n, 4096, finish_operators, &job) ? oom(t) : ETP_OK;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static etp_status report(attr *t)
{
    etp_analysis *a = t->b->a;
    uint32_t shared_ops = 0, shared_events = 0;
    for (size_t i = 0; i < t->contribs.n; i++)
        shared_events += t->contribs.v[i].node_count > 1;
    for (size_t i = 0; i < t->b->ents.n; i++)
        shared_ops += t->b->ents.v[i].kind == ETP_ENTITY_OPERATOR && t->b->ents.v[i].shared;
    int bad = 0;
    if (shared_events)
        bad |= etp_issue_add(&a->issues, "attribution.shared_timing", NULL,
                             "%u timed event source%s map%s to several operators; %u operator%s "
                             "carry shared, non-additive timings",
                             shared_events, shared_events == 1 ? "" : "s",
                             shared_events == 1 ? "s" : "", shared_ops, shared_ops == 1 ? "" : "s");
    if (t->unresolved_all.n) {
        qsort(t->unresolved_all.v, t->unresolved_all.n, sizeof *t->unresolved_all.v, cmp_i64);
        char ctx[512] = "{\"handles\": [";
        for (size_t i = 0; i < t->unresolved_all.n; i++) {
            size_t l = strlen(ctx);
            snprintf(ctx + l, sizeof ctx - l, "%s%lld", i ? ", " : "", (long long)t->unresolved_all.v[i]);
        }
        size_t l = strlen(ctx);
        snprintf(ctx + l, sizeof ctx - l, "]}");
        bad |= etp_issue_add(&a->issues, "attribution.unresolved_handles",
                             l + 3 < sizeof ctx ? ctx : NULL,
                             "%zu debug handle%s of executed instructions match%s no node of %s",
                             t->unresolved_all.n, t->unresolved_all.n == 1 ? "" : "s",
                             t->unresolved_all.n == 1 ? "es" : "", t->ep->entry);
        a->unresolved_handles = t->unresolved_all.v;
        a->unresolved_count = (uint32_t)t->unresolved_all.n;
        t->unresolved_all.v = NULL;
    }
    if (t->no_mapping)
        bad |= etp_issue_add(&a->issues, "attribution.no_source_mapping", NULL,
                             "%u timed instruction%s of %s have no debug handle map entry",
                             t->no_mapping, t->no_mapping == 1 ? "" : "s", a->method);
    if (t->unmapped_delegate_events)
        bad |= etp_issue_add(&a->issues, "delegate.unmapped_events", NULL,
                             "%u delegate event id%s have no entry in the delegate map",
                             t->unmapped_delegate_events, t->unmapped_delegate_events == 1 ? "" : "s");
    if (t->details)
        bad |= etp_issue_add(&a->issues, "delegate.detail_excludes_overhead", NULL,
                             "%u delegate event id%s attributed through the delegate map",
                             t->details, t->details == 1 ? "" : "s");
    int fallback_shared = 0;
    for (size_t i = 0; i < t->contribs.n; i++) {
        const contribution *c = &t->contribs.v[i];
        if ((c->source == ETP_SRC_DELEGATE_FALLBACK || c->source == ETP_SRC_DELEGATE_CALL) &&
            (c->node_count > 1 || c->unresolved_count || c->exclusive < 0))
            fallback_shared = 1;
    }
    if (fallback_shared)
        bad |= etp_issue_add(&a->issues, "delegate.enclosing_interval_fallback", NULL,
                             "operators without detailed delegate timing carry their delegate's "
                             "whole DELEGATE_CALL interval");
    return bad ? oom(t) : ETP_OK;
}

/* Method names of the ETRecord's maps, for etp_join_names. */
static const char *method_maps_name_at(const void *methods, size_t i)
{
    return ((const etp_method_maps *)methods)[i].method;
}

etp_status etp_attribute_prepare(etp_abuild *b, etp_attribution **out)
{
    *out = NULL;
    etp_analysis *a = b->a;
    const etp_etrecord *r = a->etrecord;
    if (!r)
        return ETP_OK;
    attr t;
    memset(&t, 0, sizeof t);
    t.b = b;
    t.r = r;
    t.maps = etp_etrecord_maps(r, a->method);
    if (!t.maps || !t.maps->in_debug_handle_map) {
        int any = 0;
        for (uint32_t i = 0; i < r->method_count; i++)
            any |= r->methods[i].in_debug_handle_map && r->methods[i].handle_count > 0;
        if (any) {
            char list[300];
            etp_join_names(list, sizeof list, r->methods, r->method_count, method_maps_name_at);
            return etp_error_set(b->err, ETP_E_MISMATCH, r->path, ETP_NO_OFFSET,
                                 "no debug handle map for method %s (the ETRecord maps: %s)", a->method,
                                 list);
        }
        return etp_issue_add(&a->issues, "etrecord.maps_empty", NULL,
                             "%s: the debug handle map is %s; source operators cannot be attributed",
                             r->path, r->has_debug_handle_map ? "empty" : "missing")
                   ? oom(&t)
                   : ETP_OK;
    }
    t.ep = etp_etrecord_edge_program(r, a->method);
    if (!t.ep)
        return etp_error_set(b->err, ETP_E_MISMATCH, r->path, ETP_NO_OFFSET,
                             "the ETRecord maps method %s but holds no exported graph for it "
                             "(edge_dialect_exported_program/%s)",
                             a->method, a->method);
    etp_status st = check_delegates(&t);
    if (st)
        return st;
    /* Room for an operator entity per node now: the table must not move
     * once other threads work on its entities. */
    if (VEC_RESERVE_EXACT(b->ents, b->ents.n + t.ep->node_count))
        return oom(&t);
    attr *h = malloc(sizeof *h);
    if (!h)
        return oom(&t);
    *h = t;
    *out = h;
    return ETP_OK;
}

etp_status etp_attribute_collect(etp_attribution *t)
{
    etp_status st = collect(t);
    return st ? st : build_operators(t);
}

etp_status etp_attribute_finish(etp_attribution *t)
{
    etp_status st = finish_all_operators(t);
    return st ? st : report(t);
}

void etp_attribution_free(etp_attribution *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->contribs.n; i++) {
        free(t->contribs.v[i].nodes);
        free(t->contribs.v[i].unresolved);
    }
    VEC_FREE(t->contribs);
    VEC_FREE(t->unresolved_all);
    free(t->only);
    free(t);
}
