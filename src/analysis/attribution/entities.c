/* entities.c - the instruction and delegate-event entities of an analysis:
 * one per instruction of the plan and per delegate event id, their
 * per-execution series from the grouped rows, their statistics and their
 * release (entities.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/entities.h"
#include "analysis/series.h"
#include "etprof/etrecord.h"
#include "etprof/nx_stats.h"
#include "util/str.h"

uint64_t etp_instr_key(int32_t chain, int32_t instr)
{
    return etp_hash_u64((uint64_t)(uint32_t)chain << 32 | (uint32_t)instr, 0x51ed27);
}

int64_t etp_find_instruction(const etp_abuild *b, int32_t chain, int32_t instr)
{
    size_t cur = 0;
    uint32_t id;
    while (etp_hm_next(&b->instr_map, etp_instr_key(chain, instr), &cur, &id))
        if (b->ents.v[id].chain == chain && b->ents.v[id].instruction == instr &&
            b->ents.v[id].kind == ETP_ENTITY_INSTRUCTION)
            return id;
    return -1;
}

static int64_t add_entity(etp_abuild *b, etp_entity_kind kind, int32_t chain, int32_t instr)
{
    etp_entity e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.chain = chain;
    e.instruction = instr;
    if (etp_series_init(&e.time, b->nexec))
        return -1;
    if (VEC_PUSH(b->ents, e)) {
        etp_series_free(&e.time);
        return -1;
    }
    return (int64_t)(b->ents.n - 1);
}

/* Decimal digits of @p v at the end of @p end (exclusive); the start. */
static char *put_int(char *end, int32_t v)
{
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    do
        *--end = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--end = '-';
    return end;
}

/* "<method>_<chain>_<instr>", as etp_strprintf("%s_%d_%d") would write it
 * (one per instruction: worth doing without printf). */
static char *instruction_id(const char *method, int32_t chain, int32_t instr)
{
    char tail[32], *end = tail + sizeof tail, *p = put_int(end, instr);
    *--p = '_';
    p = put_int(p, chain);
    *--p = '_';
    size_t m = strlen(method), t = (size_t)(end - p);
    char *s = malloc(m + t + 1);
    if (!s)
        return NULL;
    memcpy(s, method, m);
    memcpy(s + m, p, t);
    s[m + t] = '\0';
    return s;
}

static int64_t add_instruction(etp_abuild *b, int32_t chain, int32_t instr)
{
    int64_t id = add_entity(b, ETP_ENTITY_INSTRUCTION, chain, instr);
    if (id < 0)
        return -1;
    etp_entity *e = &b->ents.v[id];
    e->id = instruction_id(b->a->method, chain, instr);
    if (!e->id || etp_hm_put(&b->instr_map, etp_instr_key(chain, instr), (uint32_t)id))
        return -1;
    const etp_plan *pl = b->a->plan;
    const etp_instruction *in = NULL;
    if (pl && chain >= 0 && (uint32_t)chain < pl->chain_count &&
        instr >= 0 && (uint32_t)instr < pl->chains[chain].instruction_count)
        in = &pl->chains[chain].instructions[instr];
    if (in) {
        e->instr_kind = in->kind;
        if (in->kind == ETP_INSTR_KERNEL && in->a >= 0 && (uint32_t)in->a < pl->operator_count)
            e->op_type = etp_strdup(pl->operators[in->a].full_name);
        else if (in->kind == ETP_INSTR_DELEGATE && in->a >= 0 && (uint32_t)in->a < pl->delegate_count) {
            e->op_type = etp_strdup(pl->delegates[in->a].id);
            e->backend = pl->delegates[in->a].id;
        } else
            e->op_type = etp_strdup(etp_instr_kind_name(in->kind));
    }
    e->name = etp_strdup(e->op_type ? e->op_type : e->id);
    e->additive = 1; /* instructions run one after another: their times never overlap */
    return id;
}

static int64_t find_or_add_instruction(etp_abuild *b, int32_t chain, int32_t instr)
{
    int64_t id = etp_find_instruction(b, chain, instr);
    return id >= 0 ? id : add_instruction(b, chain, instr);
}

static uint64_t deleg_key(const etp_inspect_row *row)
{
    uint64_t h = etp_instr_key(row->chain_index, row->instruction_id);
    h = etp_hash_u64(h, (uint64_t)(uint32_t)row->delegate_id_int);
    if (row->delegate_id_str)
        h = etp_hash_bytes(row->delegate_id_str, strlen(row->delegate_id_str), h);
    return h;
}

static int64_t find_or_add_delegate(etp_abuild *b, const etp_inspect_row *row, int64_t parent)
{
    uint64_t key = deleg_key(row);
    size_t cur = 0;
    uint32_t id;
    while (etp_hm_next(&b->deleg_map, key, &cur, &id)) {
        const etp_entity *e = &b->ents.v[id];
        if (e->chain == row->chain_index && e->instruction == row->instruction_id &&
            e->delegate_id_int == row->delegate_id_int &&
            (row->delegate_id_str ? !strcmp(e->op_type, row->delegate_id_str) : e->delegate_id_is_int))
            return id;
    }
    int64_t nid = add_entity(b, ETP_ENTITY_DELEGATE_EVENT, row->chain_index, row->instruction_id);
    if (nid < 0)
        return -1;
    etp_entity *e = &b->ents.v[nid];
    char idtext[32];
    const char *dtext = row->delegate_id_str;
    e->delegate_id_int = row->delegate_id_int;
    if (!dtext) {
        snprintf(idtext, sizeof idtext, "%d", row->delegate_id_int);
        dtext = idtext;
        e->delegate_id_is_int = 1;
    }
    e->op_type = etp_strdup(dtext);
    e->name = etp_strdup(dtext);
    e->id = etp_strprintf("%s/delegate/%s", b->ents.v[parent].id, dtext);
    e->backend = b->ents.v[parent].backend;
    e->instr_kind = ETP_INSTR_DELEGATE;
    e->source = ETP_SRC_DELEGATE_EVENTS;
    /* Delegate events may nest (Vulkan's ETVK_EXECUTE holds the others) or
     * follow each other (XNNPACK); the ETDump does not say which, so their
     * averages are never marked additive. */
    e->additive = 0;
    if (!e->op_type || !e->name || !e->id || etp_hm_put(&b->deleg_map, key, (uint32_t)nid))
        return -1;
    return nid;
}

static int is_name(const etp_inspect_row *r, const char *n)
{
    return r->event_name && !strcmp(r->event_name, n);
}

/* Add each run's occurrences of @p row into series @p s. */
static void add_row(etp_abuild *b, const etp_inspect_block *blk, const etp_inspect_row *row, etp_series *s)
{
    uint64_t k = 0;
    for (uint32_t r = 0; r < blk->run_count; r++) {
        uint32_t e = b->exec_of_run[blk->runs[r]];
        if (e == UINT32_MAX) { /* a skipped (warm-up) execution */
            k += row->per_run[r];
            continue;
        }
        for (uint32_t c = 0; c < row->per_run[r]; c++, k++)
            etp_series_add(s, e, row->ticks[k]);
    }
}

/* Whether instruction @p instr of chain @p chain has VGF NX statistics
 * (the NX analysis keys its records by the events' instruction id; ExecuTorch
 * methods run chain 0). vgf_instructions is sorted. */
static int is_vgf_instruction(const etp_abuild *b, int32_t chain, int32_t instr)
{
    const etp_nx_result *nx = b->a->nx;
    if (!nx || chain != 0 || instr < 0)
        return 0;
    uint32_t lo = 0, hi = nx->vgf_instruction_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nx->vgf_instructions[mid] < (uint32_t)instr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nx->vgf_instruction_count && nx->vgf_instructions[lo] == (uint32_t)instr;
}

/* Mark instruction entity @p id as measured in NX cycles: no runtime time. */
static void mark_vgf(etp_abuild *b, int64_t id)
{
    etp_entity *e = &b->ents.v[id];
    if (e->source != ETP_SRC_VGF_NX)
        b->vgf_excluded_instructions++;
    e->source = ETP_SRC_VGF_NX;
    e->additive = 0;
}

/* A row of an instruction measured in NX cycles: counted, never timed; its
 * DELEGATE_CALL interval kept apart (figure vgf_excluded_runtime). */
static etp_status exclude_row(etp_abuild *b, const etp_inspect_block *blk, const etp_inspect_row *row, int64_t ie)
{
    if (!b->has_vgf_excluded) {
        if (etp_series_init(&b->vgf_excluded, b->nexec))
            return etp_abuild_oom(b);
        b->has_vgf_excluded = 1;
    }
    mark_vgf(b, ie);
    uint64_t before = b->vgf_excluded.events;
    if (!row->is_delegated && is_name(row, "DELEGATE_CALL")) {
        add_row(b, blk, row, &b->vgf_excluded);
        b->vgf_excluded_events += b->vgf_excluded.events - before;
        return ETP_OK;
    }
    /* the other rows: only their records of the selected executions count */
    for (uint32_t r = 0; r < blk->run_count; r++)
        if (b->exec_of_run[blk->runs[r]] != UINT32_MAX)
            b->vgf_excluded_events += row->per_run[r];
    return ETP_OK;
}

etp_status etp_build_instruction_entities(etp_abuild *b)
{
    etp_analysis *a = b->a;
    const etp_plan *pl = a->plan;
    /* Every instruction of the plan, plus delegate-event entities (rows). */
    size_t want = 0;
    for (uint32_t c = 0; pl && c < pl->chain_count; c++)
        want += pl->chains[c].instruction_count;
    for (uint32_t bi = 0; bi < a->inspect->block_count; bi++)
        want += a->inspect->blocks[bi].row_count / 4;
    /* and the source operators attribution adds: one table, no regrowth,
     * of its own size (a power of two would overshoot it by up to half) */
    const etp_exported_program *ep = a->etrecord ? etp_etrecord_edge_program(a->etrecord, a->method) : NULL;
    if (ep)
        want += ep->node_count;
    if (VEC_RESERVE_EXACT(b->ents, want))
        return etp_abuild_oom(b);
    if (pl)
        for (uint32_t c = 0; c < pl->chain_count; c++)
            for (uint32_t i = 0; i < pl->chains[c].instruction_count; i++)
                if (add_instruction(b, (int32_t)c, (int32_t)i) < 0)
                    return etp_abuild_oom(b);
    const etp_inspect *in = a->inspect;
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        if (!etp_abuild_block_taken(b, blk))
            continue;
        for (uint32_t r = 0; r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            if (row->chain_index < 0)
                continue;
            int64_t ie = find_or_add_instruction(b, row->chain_index, row->instruction_id);
            if (ie < 0)
                return etp_abuild_oom(b);
            if (is_vgf_instruction(b, row->chain_index, row->instruction_id)) {
                etp_status st = exclude_row(b, blk, row, ie);
                if (st)
                    return st;
                continue;
            }
            if (row->is_delegated) {
                int64_t de = find_or_add_delegate(b, row, ie);
                if (de < 0)
                    return etp_abuild_oom(b);
                add_row(b, blk, row, &b->ents.v[de].time);
                continue;
            }
            etp_entity *e = &b->ents.v[ie];
            etp_timing_source src = ETP_SRC_NONE;
            if (is_name(row, "OPERATOR_CALL"))
                src = ETP_SRC_OPERATOR_CALL;
            else if (is_name(row, "DELEGATE_CALL"))
                src = ETP_SRC_DELEGATE_CALL;
            else if (is_name(row, "JF_CALL") || is_name(row, "MOVE_CALL") || is_name(row, "FREE_CALL"))
                src = ETP_SRC_OTHER_CALL;
            if (src != ETP_SRC_NONE) {
                e->source = e->source == ETP_SRC_NONE || e->source == src ? src : ETP_SRC_MIXED;
                add_row(b, blk, row, &e->time);
            } else if (row->event_name && !strncmp(row->event_name, "native_call_", 12)) {
                if (!e->has_kernel) {
                    if (etp_series_init(&e->kernel, b->nexec))
                        return etp_abuild_oom(b);
                    e->has_kernel = 1;
                }
                add_row(b, blk, row, &e->kernel);
            } else {
                b->other_instr_events++;
            }
        }
    }
    /* Every instruction with NX statistics is marked, even one whose runtime
     * events all fell in skipped executions. */
    for (uint32_t i = 0; a->nx && i < a->nx->vgf_instruction_count; i++) {
        int64_t ie = etp_find_instruction(b, 0, (int32_t)a->nx->vgf_instructions[i]);
        if (ie >= 0)
            mark_vgf(b, ie);
    }
    return ETP_OK;
}

/* Statistics of entities [lo, hi): each touches only its own series. */
int etp_entity_stats_range(void *ctx, size_t lo, size_t hi)
{
    etp_abuild *b = ctx;
    double dv = b->a->divisor;
    /* scratch for the samples being sorted: one allocation per range */
    int64_t *d = malloc((b->nexec ? b->nexec : 1) * sizeof *d);
    uint64_t *u = malloc((b->nexec ? b->nexec : 1) * sizeof *u);
    int rc = d && u ? 0 : -1;
    for (size_t i = lo; i < hi && !rc; i++) {
        etp_entity *e = &b->ents.v[i];
        etp_series_finish(&e->time, b->nexec, dv, u);
        if (e->has_kernel)
            etp_series_finish(&e->kernel, b->nexec, dv, u);
        if (e->has_kernel) {
            uint32_t k = 0;
            for (uint32_t x = 0; x < b->nexec; x++)
                if (e->time.present[x] && e->kernel.present[x])
                    d[k++] = (int64_t)e->time.ticks[x] - (int64_t)e->kernel.ticks[x];
            etp_stats_from_signed(d, k, dv, &e->dispatch);
        }
    }
    free(d);
    free(u);
    return rc;
}

void etp_delegate_details(etp_abuild *b)
{
    /* The events are added in entity order: every reader gets the same digits. */
    for (size_t i = 0; i < b->ents.n; i++) {
        const etp_entity *d = &b->ents.v[i];
        int64_t ie = d->kind == ETP_ENTITY_DELEGATE_EVENT ? etp_find_instruction(b, d->chain, d->instruction) : -1;
        if (ie < 0)
            continue;
        etp_entity *call = &b->ents.v[ie];
        call->detail_events++;
        call->detail_total_avg += d->time.stats.avg * (double)d->time.executions;
    }
    for (size_t i = 0; i < b->ents.n; i++) {
        etp_entity *call = &b->ents.v[i];
        if (call->detail_events)
            call->detail_total_avg = call->time.executions ? call->detail_total_avg / (double)call->time.executions : 0;
    }
}

void etp_entity_free(etp_entity *e)
{
    free(e->id);
    free(e->name);
    free(e->op_type);
    free(e->handles);
    etp_series_free(&e->time);
    if (e->has_kernel)
        etp_series_free(&e->kernel);
    for (uint32_t i = 0; i < e->co_count; i++)
        free(e->co_attributed[i]);
    free(e->co_attributed);
    free(e->unresolved);
    for (uint32_t i = 0; i < e->instruction_count; i++)
        free(e->instructions[i]);
    free(e->instructions);
}
