/* nx_aggregate.c - NX cycles per execution, then summarised across
 * executions, for every stripe, chain, cascade, segment and the model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_stats.h"
#include "util/hashmap.h"
#include "util/sort.h"
#include "util/str.h"

struct etp_nx_index {
    etp_hm by_key;   /* hash of "<instr>|<id>" -> entity */
    etp_hm by_stripe; /* hash of (instr, segment, stripe index) -> stripe entity */
    char **keys;     /* per entity */
    uint32_t cap;
};

const char *etp_nx_kind_name(etp_nx_kind k)
{
    static const char *const n[] = {"model", "segment", "cascade", "chain", "stripe"};
    return k <= ETP_NX_STRIPE ? n[k] : "?";
}

static etp_status nomem(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "VGF statistics aggregation: out of memory");
}

static void free_ops(etp_nx_op *ops, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(ops[i].tosa_id);
        free(ops[i].types);
        free(ops[i].labels);
        free(ops[i].vgf_op);
        free(ops[i].source_handles);
        for (uint32_t k = 0; k < ops[i].source_node_count; k++)
            free(ops[i].source_nodes[k]);
        free(ops[i].source_nodes);
    }
    free(ops);
}

void etp_nx_result_free(etp_nx_result *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        etp_nx_entity *e = &r->entities[i];
        free(e->id);
        free(e->name);
        free(e->local_id);
        free(e->stripe_ids);
        free_ops(e->ops, e->op_count);
        free(e->mean_counters);
        free(e->totals);
        free(e->execs);
        free(e->sum_counters);
        for (uint32_t k = 0; k < e->source_node_count; k++)
            free(e->source_nodes[k]);
        free(e->source_nodes);
        if (r->index)
            free(r->index->keys[i]);
    }
    if (r->index) {
        etp_hm_free(&r->index->by_key);
        etp_hm_free(&r->index->by_stripe);
        free(r->index->keys);
        free(r->index);
    }
    free(r->entities);
    free(r->vgf_instructions);
    for (size_t i = 0; i < r->issues.count; i++) {
        free(r->issues.items[i].message);
        free(r->issues.items[i].context_json);
    }
    free(r->issues.items);
    free(r);
}

etp_status etp_nx_result_new(etp_nx_result **out)
{
    etp_nx_result *r = calloc(1, sizeof *r);
    if (!r || !(r->index = calloc(1, sizeof *r->index))) {
        free(r);
        return ETP_E_NOMEM;
    }
    etp_hm_init(&r->index->by_key);
    etp_hm_init(&r->index->by_stripe);
    *out = r;
    return ETP_OK;
}

static uint32_t counter_count(const etp_nx_result *r)
{
    return r->have_settings ? r->settings.layout->counter_count : 0;
}

/* The entity of (instr, id), created with @p kind / @p name / parent when new. */
static int entity(etp_nx_result *r, int32_t instr, etp_nx_kind kind, const char *id, const char *name,
                  const char *local, int parent, int64_t seg, int *created)
{
    char *key = etp_strprintf("%d|%s", (int)instr, id);
    if (!key)
        return -1;
    uint64_t h = etp_hash_bytes(key, strlen(key), 11);
    size_t cur = 0;
    uint32_t v;
    *created = 0;
    while (etp_hm_next(&r->index->by_key, h, &cur, &v))
        if (!strcmp(r->index->keys[v], key)) {
            free(key);
            return (int)v;
        }
    if (r->entity_count == r->index->cap) {
        uint32_t cap = r->index->cap ? r->index->cap * 2 : 64;
        etp_nx_entity *ne = realloc(r->entities, cap * sizeof *ne);
        if (ne)
            r->entities = ne;
        char **nk = realloc(r->index->keys, cap * sizeof *nk);
        if (nk)
            r->index->keys = nk;
        if (!ne || !nk) {
            free(key);
            return -1;
        }
        r->index->cap = cap;
    }
    uint32_t i = r->entity_count;
    etp_nx_entity *e = &r->entities[i];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->parent = parent;
    e->instruction_id = instr;
    e->segment_id = seg;
    uint32_t nc = counter_count(r);
    e->id = etp_strdup(id);
    e->name = etp_strdup(name);
    e->local_id = etp_strdup(local);
    e->sum_counters = calloc(nc ? nc : 1, sizeof *e->sum_counters);
    r->index->keys[i] = key;
    r->entity_count++;
    if (!e->id || !e->name || !e->local_id || !e->sum_counters ||
        etp_hm_put(&r->index->by_key, h, i))
        return -1;
    *created = 1;
    return (int)i;
}

/* Close the pending per-execution sums of @p e. */
static int flush(etp_nx_result *r, etp_nx_entity *e)
{
    if (!e->last_exec)
        return 0;
    if (e->s.count == e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 8;
        uint64_t *t = realloc(e->totals, cap * sizeof *t);
        if (t)
            e->totals = t;
        uint32_t *x = realloc(e->execs, cap * sizeof *x);
        if (x)
            e->execs = x;
        if (!t || !x)
            return -1;
        e->cap = cap;
    }
    e->totals[e->s.count] = e->cur_total;
    e->execs[e->s.count++] = e->last_exec - 1;
    e->sum_total += e->cur_total;
    e->cur_total = 0;
    e->last_exec = 0;
    return 0;
}

/* Mark @p idx as measured in @p exec (with whatever it adds). */
static int touch(etp_nx_result *r, int idx, uint32_t exec)
{
    etp_nx_entity *e = &r->entities[idx];
    if (e->last_exec == exec + 1)
        return 0;
    if (flush(r, e))
        return -1;
    e->last_exec = exec + 1;
    return 0;
}

static int push_stripe(etp_nx_entity *e, uint32_t id)
{
    if (e->stripe_count == e->stripe_cap) {
        uint32_t cap = e->stripe_cap ? e->stripe_cap * 2 : 4;
        uint32_t *v = realloc(e->stripe_ids, cap * sizeof *v);
        if (!v)
            return -1;
        e->stripe_ids = v;
        e->stripe_cap = cap;
    }
    e->stripe_ids[e->stripe_count++] = id;
    return 0;
}

static uint64_t stripe_hash(int32_t instr, int64_t seg, uint32_t id)
{
    return etp_hash_u64(etp_hash_u64(etp_hash_u64(17, (uint64_t)(uint32_t)instr), (uint64_t)seg), id);
}

static int find_stripe(const etp_nx_result *r, int32_t instr, int64_t seg, uint32_t id)
{
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&r->index->by_stripe, stripe_hash(instr, seg, id), &cur, &v)) {
        const etp_nx_entity *e = &r->entities[v];
        if (e->instruction_id == instr && e->segment_id == seg && e->stripe_id == id)
            return (int)v;
    }
    return -1;
}

/* Add stripe @p s of execution @p exec to entity @p idx: its total cycles
 * per execution (for min/max/median) at every level; op cycles and
 * counters only as sums, and only on the stripe itself (the groups' sums
 * are the sums of their stripes', formed in etp_nx_finish). */
static int add_to(etp_nx_result *r, int idx, uint32_t exec, const etp_nx_stripe *s)
{
    if (touch(r, idx, exec))
        return -1;
    etp_nx_entity *e = &r->entities[idx];
    e->cur_total += s->total_cycles;
    if (e->kind == ETP_NX_STRIPE) {
        e->sum_op += s->op_cycles;
        uint32_t nc = counter_count(r);
        for (uint32_t k = 0; k < nc; k++)
            e->sum_counters[k] += s->counters[k];
    }
    return 0;
}

/* A TOSA op's SPIR-V link: the first label ending in "_spirv_id_<N>". */
static int64_t spirv_of(const char *label)
{
    const char *p = strstr(label, "_spirv_id_"), *last = NULL;
    while (p) {
        last = p;
        p = strstr(p + 1, "_spirv_id_");
    }
    if (!last)
        return -1;
    const char *d = last + 10;
    if (!*d)
        return -1;
    int64_t v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || v > 0xFFFFFFFFll)
            return -1;
        v = v * 10 + (*d - '0');
    }
    return v <= 0xFFFFFFFFll ? v : -1;
}

static char *join(etp_nx_strlist l, const char *sep)
{
    size_t n = 1;
    for (uint32_t i = 0; i < l.n; i++)
        n += strlen(l.v[i]) + strlen(sep);
    char *s = malloc(n);
    if (!s)
        return NULL;
    s[0] = 0;
    size_t w = 0;
    for (uint32_t i = 0; i < l.n; i++) {
        w += (size_t)sprintf(s + w, "%s%s", i ? sep : "", l.v[i]);
    }
    return s;
}

static int push_op(etp_nx_entity *e, const char *tosa, char *types, char *labels, int64_t spirv, const char *why)
{
    for (uint32_t i = 0; i < e->op_count; i++)
        if (!strcmp(e->ops[i].tosa_id, tosa)) {
            free(types);
            free(labels);
            return 0;
        }
    etp_nx_op *o = realloc(e->ops, (e->op_count + 1) * sizeof *o);
    if (!o) {
        free(types);
        free(labels);
        return -1;
    }
    e->ops = o;
    etp_nx_op *x = &o[e->op_count];
    x->tosa_id = etp_strdup(tosa);
    x->types = types;
    x->labels = labels;
    x->spirv_id = spirv;
    x->link_reason = why;
    x->vgf_op = NULL;
    x->source_handles = NULL;
    x->source_handle_count = 0;
    x->source_nodes = NULL;
    x->source_node_count = 0;
    x->source_link_reason = NULL;
    e->op_count++;
    return x->tosa_id && types && labels ? 0 : -1;
}

/* A chain's TOSA ops from the debug database (fused op -> TOSA ops). */
static etp_status chain_ops(etp_nx_entity *e, const etp_nx_stripe *s, const etp_nx_ddb *ddb, const char *where,
                            etp_error *err)
{
    if (s->chain_filled || !ddb) {
        char tosa[32], lab[48];
        snprintf(tosa, sizeof tosa, "tosa_%u", s->id);
        snprintf(lab, sizeof lab, "profiling-stripe/%u", s->id);
        return push_op(e, tosa, etp_strdup("NeuralOp"), etp_strdup(lab), -1,
                       "fill-in: the debug database names no chain for this stripe")
                   ? nomem(err)
                   : ETP_OK;
    }
    etp_nx_strlist fused = etp_nx_ddb_chain_fused(ddb, s->chain);
    for (uint32_t f = 0; f < fused.n; f++) {
        etp_nx_strlist tosa = etp_nx_ddb_fused_tosa(ddb, fused.v[f]);
        for (uint32_t t = 0; t < tosa.n; t++) {
            int found;
            etp_nx_strlist types = etp_nx_ddb_tosa_types(ddb, tosa.v[t], &found);
            if (!found && t > 0)
                return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                     "%s: debug_database fused op %s names TOSA op %s, which tosa_ops lacks",
                                     where, fused.v[f], tosa.v[t]);
            etp_nx_strlist labels = etp_nx_ddb_tosa_labels(ddb, tosa.v[t]);
            int64_t spirv = -1;
            for (uint32_t k = 0; k < labels.n && spirv < 0; k++)
                spirv = spirv_of(labels.v[k]);
            const char *why = spirv >= 0 ? NULL
                              : labels.n ? "no API label names a SPIR-V result id (_spirv_id_<N>)"
                                         : "the TOSA op has no API label";
            if (push_op(e, tosa.v[t], join(types, "/"), join(labels, ";"), spirv, why))
                return nomem(err);
        }
    }
    return ETP_OK;
}

static etp_status merge_ops(etp_nx_entity *to, const etp_nx_entity *from, etp_error *err)
{
    for (uint32_t i = 0; i < from->op_count; i++) {
        const etp_nx_op *o = &from->ops[i];
        if (push_op(to, o->tosa_id, etp_strdup(o->types), etp_strdup(o->labels), o->spirv_id, o->link_reason))
            return nomem(err);
    }
    return ETP_OK;
}

etp_status etp_nx_add_segment(etp_nx_result *r, uint32_t exec, int32_t instr, int64_t seg,
                              const etp_nx_decoded *dec, const etp_nx_ddb *ddb, etp_error *err)
{
    if (!r->have_settings)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "etp_nx_add_segment: settings not set");
    if (dec->layout != r->settings.layout)
        return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                             "VGF statistics of instruction %d segment %lld use %s mode %d, others %s mode %d",
                             (int)instr, (long long)seg, etp_nx_device_name(dec->layout->device),
                             dec->layout->mode, etp_nx_device_name(r->settings.layout->device),
                             r->settings.layout->mode);
    char id[320], name[160], local[128], where[96];
    snprintf(where, sizeof where, "instruction %d segment %lld", (int)instr, (long long)seg);
    int c;
    int model = entity(r, -1, ETP_NX_MODEL, "model", "Model", "model", -1, -1, &c);
    snprintf(id, sizeof id, "segment/%lld", (long long)seg);
    snprintf(name, sizeof name, "Segment %lld", (long long)seg);
    snprintf(local, sizeof local, "%lld", (long long)seg);
    int sg = model < 0 ? -1 : entity(r, instr, ETP_NX_SEGMENT, id, name, local, model, seg, &c);
    if (sg < 0)
        return nomem(err);
    for (uint32_t i = 0; i < dec->stripe_count; i++) {
        const etp_nx_stripe *s = &dec->stripes[i];
        int sp = find_stripe(r, instr, seg, s->id), ch, ca;
        if (sp >= 0) {
            /* Seen in an earlier execution: the same chain and cascade, or the capture contradicts itself. */
            ch = r->entities[sp].parent;
            ca = r->entities[sp].cascade;
            if (strcmp(r->entities[ch].local_id, s->chain) || strcmp(r->entities[ca].local_id, s->cascade))
                return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                     "%s: stripe %u is in chain %s / cascade %s in execution %u, in chain %s / "
                                     "cascade %s before",
                                     where, s->id, s->chain, s->cascade, exec, r->entities[ch].local_id,
                                     r->entities[ca].local_id);
        } else {
            snprintf(id, sizeof id, "cascade/segment_%lld/%.120s", (long long)seg, s->cascade);
            snprintf(name, sizeof name, "Segment %lld/Cascade %.120s", (long long)seg, s->cascade);
            ca = entity(r, instr, ETP_NX_CASCADE, id, name, s->cascade, sg, seg, &c);
            if (ca >= 0 && c)
                r->entities[ca].filled = s->cascade_filled;
            snprintf(id, sizeof id, "chain/segment_%lld/%.120s", (long long)seg, s->chain);
            snprintf(name, sizeof name, "Segment %lld/Chain %.120s", (long long)seg, s->chain);
            /* A chain whose stripes sit in different cascades keeps its first one as parent. */
            ch = ca < 0 ? -1 : entity(r, instr, ETP_NX_CHAIN, id, name, s->chain, ca, seg, &c);
            if (ch < 0)
                return nomem(err);
            if (c) {
                r->entities[ch].filled = s->chain_filled;
                etp_status st = chain_ops(&r->entities[ch], s, ddb, where, err);
                if (st)
                    return st;
            }
            etp_status st = merge_ops(&r->entities[ca], &r->entities[ch], err);
            if (st)
                return st;
            snprintf(id, sizeof id, "stripe/segment_%lld/%u", (long long)seg, s->id);
            snprintf(name, sizeof name, "Segment %lld/Stripe %u", (long long)seg, s->id);
            snprintf(local, sizeof local, "%u", s->id);
            sp = entity(r, instr, ETP_NX_STRIPE, id, name, local, ch, seg, &c);
            if (sp < 0)
                return nomem(err);
            r->entities[sp].stripe_id = s->id;
            r->entities[sp].cascade = ca;
            if (etp_hm_put(&r->index->by_stripe, stripe_hash(instr, seg, s->id), (uint32_t)sp) ||
                push_stripe(&r->entities[sp], s->id) || push_stripe(&r->entities[ch], s->id) ||
                push_stripe(&r->entities[ca], s->id) || push_stripe(&r->entities[sg], s->id))
                return nomem(err);
        }
        if (add_to(r, sp, exec, s) || add_to(r, ch, exec, s) || add_to(r, ca, exec, s) ||
            add_to(r, sg, exec, s) || add_to(r, model, exec, s))
            return nomem(err);
    }
    /* A segment with no stripes was still measured in this execution. */
    if (!dec->stripe_count && (touch(r, sg, exec) || touch(r, model, exec)))
        return nomem(err);
    int seen = 0;
    for (uint32_t i = 0; i < r->vgf_instruction_count; i++)
        seen |= r->vgf_instructions[i] == (uint32_t)instr;
    if (!seen) {
        uint32_t *v = realloc(r->vgf_instructions, (r->vgf_instruction_count + 1) * sizeof *v);
        if (!v)
            return nomem(err);
        r->vgf_instructions = v;
        uint32_t k = r->vgf_instruction_count++;
        while (k && v[k - 1] > (uint32_t)instr) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = (uint32_t)instr;
    }
    if (r->executions < exec + 1)
        r->executions = exec + 1;
    return ETP_OK;
}


etp_status etp_nx_finish(etp_nx_result *r, etp_error *err)
{
    uint32_t nc = counter_count(r);
    /* executions = the distinct execution indexes measured anywhere */
    uint32_t execs = 0;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        if (flush(r, &r->entities[i]))
            return nomem(err);
        if (r->entities[i].kind == ETP_NX_MODEL)
            execs = r->entities[i].s.count;
    }
    r->executions = execs;
    /* Op cycles and counters of the groups: the sums of their stripes'. */
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *st = &r->entities[i];
        if (st->kind != ETP_NX_STRIPE)
            continue;
        etp_nx_entity *ch = &r->entities[st->parent], *ca = &r->entities[st->cascade];
        etp_nx_entity *sg = &r->entities[ca->parent], *mo = &r->entities[sg->parent];
        etp_nx_entity *up[4] = {ch, ca, sg, mo};
        for (int k = 0; k < 4; k++) {
            up[k]->sum_op += st->sum_op;
            for (uint32_t c = 0; c < nc; c++)
                up[k]->sum_counters[c] += st->sum_counters[c];
        }
    }
    /* Coverage: every segment of every VGF instruction in the same executions. */
    r->model_available = 1;
    const etp_nx_entity *first = NULL;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *e = &r->entities[i];
        if (e->kind != ETP_NX_SEGMENT)
            continue;
        if (!first) {
            first = e;
        } else if (e->s.count != first->s.count ||
                   memcmp(e->execs, first->execs, e->s.count * sizeof *e->execs)) {
            r->model_available = 0;
        }
    }
    if (!r->model_available &&
        etp_issue_add(&r->issues, "vgf.coverage_differs", NULL,
                      "VGF instructions or segments were measured in different executions: model cycle "
                      "summaries and the execution count are unavailable; per-entity figures remain"))
        return nomem(err);
    uint32_t most = 1;
    for (uint32_t i = 0; i < r->entity_count; i++)
        if (r->entities[i].s.count > most)
            most = r->entities[i].s.count;
    uint64_t *tmp = malloc(most * sizeof *tmp);
    if (!tmp)
        return nomem(err);
    for (uint32_t i = 0; i < r->entity_count; i++) {
        etp_nx_entity *e = &r->entities[i];
        e->full_coverage = e->s.count == execs;
        uint32_t n = e->s.count;
        if (!n)
            continue;
        e->s.mean_total = (double)e->sum_total / n;
        e->s.mean_op = (double)e->sum_op / n;
        e->mean_counters = calloc(nc ? nc : 1, sizeof *e->mean_counters);
        if (!e->mean_counters) {
            free(tmp);
            return nomem(err);
        }
        for (uint32_t k = 0; k < nc; k++)
            e->mean_counters[k] = (double)e->sum_counters[k] / n;
        memcpy(tmp, e->totals, n * sizeof *tmp);
        uint64_t lo = tmp[0], hi = tmp[0];
        for (uint32_t k = 1; k < n; k++) {
            lo = tmp[k] < lo ? tmp[k] : lo;
            hi = tmp[k] > hi ? tmp[k] : hi;
        }
        e->s.min_total = lo;
        e->s.max_total = hi;
        /* median: the middle value, or the mean of the two middle ones */
        uint64_t upper = etp_select_u64(tmp, n, n / 2), lower = upper;
        if (n % 2 == 0) {
            lower = tmp[0];
            for (uint32_t k = 1; k < n / 2; k++)
                lower = tmp[k] > lower ? tmp[k] : lower;
        }
        e->s.median_total = n % 2 ? (double)upper : ((double)lower + (double)upper) / 2.0;
    }
    free(tmp);
    /* With several VGF instructions, ids name the instruction too. */
    if (r->vgf_instruction_count > 1)
        for (uint32_t i = 0; i < r->entity_count; i++) {
            etp_nx_entity *e = &r->entities[i];
            if (e->kind == ETP_NX_MODEL)
                continue;
            char *id = etp_strprintf("instruction_%d/%s", (int)e->instruction_id, e->id);
            if (!id)
                return nomem(err);
            free(e->id);
            e->id = id;
        }
    return ETP_OK;
}
