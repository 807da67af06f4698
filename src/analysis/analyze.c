/* analyze.c - etp_analyze(): select the method and its executions, build
 * instruction and delegate-event entities from the grouped events, then hand
 * over to source attribution (attribute.c) and model figures (figures.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/inspect_internal.h"
#include "util/parallel.h"
#include "analysis/series.h"
#include "etprof/etrecord.h"
#include "etprof/runner_log.h"

void etp_analysis_options_init(etp_analysis_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_unit = ETP_UNIT_NS;
    o->target_unit = ETP_UNIT_MS;
}

char *etp_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *etp_strprintf(const char *fmt, ...)
{
    /* One formatting pass for the usual short ids; a second only when the
     * text does not fit the stack buffer (entity ids are made per
     * instruction, so this is on the hot path). */
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    if ((size_t)n < sizeof buf) {
        memcpy(s, buf, (size_t)n + 1);
        return s;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

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

static etp_status oom(etp_abuild *b)
{
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory during analysis");
}

/* ---- method selection ------------------------------------------------- */

static int is_execute_block(const etp_inspect_block *blk)
{
    return blk->name && !strcmp(blk->name, "Execute");
}

static int block_has_plan(const etp_inspect_block *blk, const etp_plan *pl)
{
    for (uint32_t i = 0; i < blk->candidate_count; i++)
        if (blk->candidates[i] == pl)
            return 1;
    return 0;
}

static int has_instruction_rows(const etp_inspect_block *blk)
{
    return blk->summary.instructions_observed > 0;
}

static int etrecord_has_method(const etp_etrecord *r, const char *m)
{
    return etp_etrecord_maps(r, m) != NULL || etp_etrecord_edge_program(r, m) != NULL;
}

/* Methods named by the ETRecord (maps first, then edge programs). */
static uint32_t etrecord_methods(const etp_etrecord *r, const char **out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->method_count && n < cap; i++)
        out[n++] = r->methods[i].method;
    for (uint32_t i = 0; i < r->program_count && n < cap; i++) {
        const etp_exported_program *ep = &r->programs[i];
        if (!ep->is_edge || !ep->method)
            continue;
        int dup = 0;
        for (uint32_t k = 0; k < n && !dup; k++)
            dup = !strcmp(out[k], ep->method);
        if (!dup)
            out[n++] = ep->method;
    }
    return n;
}

static etp_status select_method(etp_abuild *b, const etp_program *p, const etp_etrecord *r)
{
    etp_analysis *a = b->a;
    const char *dpath = etp_etdump_path(a->etdump);
    const etp_inspect *in = a->inspect;
    if (b->opt->method) {
        const char *m = b->opt->method;
        if (p && !etp_program_find_plan(p, m)) {
            char list[400] = "";
            for (uint32_t i = 0; i < p->plan_count; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", p->plans[i].name);
            }
            return etp_error_set(b->err, ETP_E_USAGE, p->path, ETP_NO_OFFSET,
                                 "no method named '%s' (methods: %s)", m, list);
        }
        if (!p && r && !etrecord_has_method(r, m))
            return etp_error_set(b->err, ETP_E_USAGE, r->path, ETP_NO_OFFSET,
                                 "no method named '%s' in the ETRecord", m);
        a->method = m;
        a->method_basis = "given (--method)";
        return ETP_OK;
    }
    const etp_runner_log *log = b->opt->runner_log;
    if (log && log->method) {
        if ((p && !etp_program_find_plan(p, log->method)) || (!p && r && !etrecord_has_method(r, log->method)))
            return etp_error_set(b->err, ETP_E_MISMATCH, log->path, ETP_NO_OFFSET,
                                 "the runner ran method %s, which %s does not have", log->method,
                                 p ? p->path : r->path);
        a->method = log->method;
        a->method_basis = "reported by the runner log";
        return ETP_OK;
    }
    if (p) {
        if (p->plan_count == 1) {
            a->method = p->plans[0].name;
            a->method_basis = "the program's only method";
            return ETP_OK;
        }
        const char *found = NULL;
        uint32_t found_runs = 0;
        for (uint32_t i = 0; i < in->block_count; i++) {
            const etp_inspect_block *blk = &in->blocks[i];
            if (!is_execute_block(blk) || !has_instruction_rows(blk))
                continue;
            if (!blk->plan) {
                char list[400] = "";
                for (uint32_t k = 0; k < blk->candidate_count; k++) {
                    size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", blk->candidates[k]->name);
                }
                return etp_error_set(b->err, ETP_E_MISMATCH, dpath, ETP_NO_OFFSET,
                                     "cannot tell which method of %s ran in block %u (candidates: "
                                     "%s); pass --method",
                                     p->path, i, list);
            }
            if (found && strcmp(found, blk->plan->name))
                return etp_error_set(b->err, ETP_E_USAGE, dpath, ETP_NO_OFFSET,
                                     "the ETDump holds executions of several methods of %s (%s: %u "
                                     "runs, %s: %u runs, ...); pass --method",
                                     p->path, found, found_runs, blk->plan->name, blk->run_count);
            found = blk->plan->name;
            found_runs += blk->run_count;
        }
        if (!found)
            return etp_error_set(b->err, ETP_E_USAGE, dpath, ETP_NO_OFFSET,
                                 "no instruction-level events say which of the %u methods of %s ran; "
                                 "pass --method",
                                 p->plan_count, p->path);
        a->method = found;
        a->method_basis = "inferred from the program";
        return ETP_OK;
    }
    const char *ms[64];
    uint32_t n = etrecord_methods(r, ms, 64);
    if (n == 1) {
        a->method = ms[0];
        a->method_basis = "the ETRecord's only method";
        return ETP_OK;
    }
    /* Keep the methods whose maps know every timed instruction of every
     * Execute block (and every delegate event's instruction as a delegate). */
    const char *fit = NULL;
    uint32_t nfit = 0;
    for (uint32_t k = 0; k < n; k++) {
        const etp_method_maps *mm = etp_etrecord_maps(r, ms[k]);
        int ok = mm && mm->handle_count > 0, any = 0;
        for (uint32_t i = 0; ok && i < in->block_count; i++) {
            const etp_inspect_block *blk = &in->blocks[i];
            if (!is_execute_block(blk))
                continue;
            for (uint32_t q = 0; ok && q < blk->row_count; q++) {
                const etp_inspect_row *row = &blk->rows[q];
                if (row->chain_index < 0)
                    continue;
                any = 1;
                if (row->chain_index != 0 || !etp_etrecord_instr_handles(mm, row->instruction_id))
                    ok = 0;
                else if (row->is_delegated && mm->in_delegate_map &&
                         !etp_etrecord_instr_delegate(mm, row->instruction_id))
                    ok = 0;
            }
        }
        if (ok && any) {
            fit = ms[k];
            nfit++;
        }
    }
    if (nfit == 1) {
        a->method = fit;
        a->method_basis = "inferred from the ETRecord's maps";
        return ETP_OK;
    }
    char list[400] = "";
    for (uint32_t k = 0; k < n; k++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", ms[k]);
    }
    return etp_error_set(b->err, ETP_E_USAGE, r->path, ETP_NO_OFFSET,
                         n ? "cannot tell which of the ETRecord's methods ran (%s); pass --method "
                             "or --pte"
                           : "the ETRecord names no method%s; pass --method",
                         list);
}

/* Execute blocks of the selected method become the analysis' executions. */
static etp_status select_executions(etp_abuild *b, const etp_program *p)
{
    etp_analysis *a = b->a;
    const etp_inspect *in = a->inspect;
    b->nruns = etp_etdump_run_count(a->etdump);
    b->exec_of_run = malloc((b->nruns ? b->nruns : 1) * sizeof *b->exec_of_run);
    if (!b->exec_of_run)
        return oom(b);
    for (uint32_t i = 0; i < b->nruns; i++)
        b->exec_of_run[i] = UINT32_MAX;
    uint32_t total = 0;
    for (uint32_t i = 0; i < in->block_count; i++) {
        const etp_inspect_block *blk = &in->blocks[i];
        if (!is_execute_block(blk))
            continue;
        int take;
        if (!p)
            take = 1;
        else if (!has_instruction_rows(blk))
            take = 1; /* nothing in it contradicts the selected method */
        else
            take = block_has_plan(blk, a->plan);
        if (!take)
            continue;
        for (uint32_t k = 0; k < blk->run_count; k++) {
            b->exec_of_run[blk->runs[k]] = 0;
            total++;
        }
    }
    if (total == 0)
        return etp_error_set(b->err, ETP_E_MISMATCH, etp_etdump_path(a->etdump), ETP_NO_OFFSET,
                             "no Execute block of the ETDump belongs to method %s%s%s", a->method,
                             p ? " of " : "", p ? p->path : "");
    a->executions = malloc(total * sizeof *a->executions);
    if (!a->executions)
        return oom(b);
    uint32_t e = 0;
    for (uint32_t ri = 0; ri < b->nruns; ri++)
        if (b->exec_of_run[ri] == 0) {
            b->exec_of_run[ri] = e;
            a->executions[e++] = ri;
        }
    a->execution_count = b->nexec = total;
    return ETP_OK;
}

/* ---- entities ---------------------------------------------------------- */

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
        for (uint32_t c = 0; c < row->per_run[r]; c++, k++)
            etp_series_add(s, e, row->ticks[k]);
    }
}

static etp_status build_instruction_entities(etp_abuild *b)
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
        return oom(b);
    if (pl)
        for (uint32_t c = 0; c < pl->chain_count; c++)
            for (uint32_t i = 0; i < pl->chains[c].instruction_count; i++)
                if (add_instruction(b, (int32_t)c, (int32_t)i) < 0)
                    return oom(b);
    const etp_inspect *in = a->inspect;
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        if (blk->run_count == 0 || b->exec_of_run[blk->runs[0]] == UINT32_MAX)
            continue;
        for (uint32_t r = 0; r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            if (row->chain_index < 0)
                continue;
            int64_t ie = find_or_add_instruction(b, row->chain_index, row->instruction_id);
            if (ie < 0)
                return oom(b);
            if (row->is_delegated) {
                int64_t de = find_or_add_delegate(b, row, ie);
                if (de < 0)
                    return oom(b);
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
                        return oom(b);
                    e->has_kernel = 1;
                }
                add_row(b, blk, row, &e->kernel);
            } else {
                b->other_instr_events++;
            }
        }
    }
    return ETP_OK;
}

/* Statistics of entities [lo, hi): each touches only its own series. */
static int finish_range(void *ctx, size_t lo, size_t hi)
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

/* Findings about the inputs themselves. */
static etp_status note_inputs(etp_abuild *b)
{
    etp_analysis *a = b->a;
    int bad = 0;
    if (!b->opt->source_unit_given)
        bad |= etp_issue_add(&a->issues, "units.assumed", NULL,
                             "ticks were read as nanoseconds (the default POSIX clock)");
    const etp_inspect *in = a->inspect;
    uint64_t wrapped = 0;
    const etp_inspect_block *twin = NULL;
    for (uint32_t i = 0; i < in->block_count; i++) {
        const etp_inspect_block *blk = &in->blocks[i];
        if (!blk->run_count || b->exec_of_run[blk->runs[0]] == UINT32_MAX)
            continue;
        wrapped += blk->wrapped_intervals;
        if (blk->plan && blk->candidate_count > 1)
            twin = blk;
    }
    const etp_runner_log *log = b->opt->runner_log;
    if (log && log->iteration_count && log->iteration_count != a->execution_count)
        bad |= etp_issue_add(&a->issues, "runner_log.count_differs", NULL,
                             "%s reports %u iterations; the ETDump has %u executions of %s", log->path,
                             log->iteration_count, a->execution_count, a->method);
    if (log && log->etdump_name) {
        const char *dn = etp_etdump_path(a->etdump), *slash = strrchr(dn, '/');
        const char *ln = strrchr(log->etdump_name, '/');
        if (strcmp(slash ? slash + 1 : dn, ln ? ln + 1 : log->etdump_name))
            bad |= etp_issue_add(&a->issues, "runner_log.other_etdump", NULL,
                                 "%s says it wrote %s; the ETDump analysed is %s", log->path,
                                 log->etdump_name, dn);
    }
    if (wrapped)
        bad |= etp_issue_add(&a->issues, "etdump.wrapped_ticks", NULL,
                             "%llu interval%s crossed a 32-bit counter wraparound",
                             (unsigned long long)wrapped, wrapped == 1 ? "" : "s");
    if (twin && !b->opt->method) {
        char list[300] = "";
        for (uint32_t k = 0; k < twin->candidate_count; k++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", twin->candidates[k]->name);
        }
        bad |= etp_issue_add(&a->issues, "method.indistinguishable", NULL,
                             "methods %s have identical instructions; reported as %s", list,
                             a->method);
    }
    return bad ? oom(b) : ETP_OK;
}

static void inspect_options_for(const etp_analysis_options *opt, etp_inspect_options *io)
{
    etp_inspect_options_init(io);
    io->source_unit = opt->source_unit;
    io->target_unit = opt->target_unit;
    io->cpu_hz = opt->cpu_hz;
    io->lenient_methods = 1;
    io->skip_row_stats = 1; /* entities get their own per-execution statistics */
}

etp_status etp_analyze_prepare(const etp_etdump *d, const etp_analysis_options *opt,
                               etp_inspect **out, etp_error *err)
{
    etp_analysis_options defaults;
    if (!opt) {
        etp_analysis_options_init(&defaults);
        opt = &defaults;
    }
    etp_inspect_options io;
    inspect_options_for(opt, &io);
    return etp_inspect_run(d, &io, out, err);
}

etp_status etp_analyze(const etp_etdump *d, const etp_program *p, const etp_etrecord *r,
                       const etp_analysis_options *opt, etp_analysis **out, etp_error *err)
{
    *out = NULL;
    if (!p && !r)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "analysis needs a program (.pte) or an ETRecord, or both");
    etp_inspect *in = NULL;
    etp_status s = etp_analyze_prepare(d, opt, &in, err);
    if (s)
        return s;
    return etp_analyze_prepared(d, in, p, r, opt, out, err);
}

etp_status etp_analyze_prepared(const etp_etdump *d, etp_inspect *in, const etp_program *p,
                                const etp_etrecord *r, const etp_analysis_options *opt,
                                etp_analysis **out, etp_error *err)
{
    *out = NULL;
    etp_analysis_options defaults;
    if (!opt) {
        etp_analysis_options_init(&defaults);
        opt = &defaults;
    }
    if (!p && !r) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "analysis needs a program (.pte) or an ETRecord, or both");
    }
    if (in->source_unit != opt->source_unit || in->target_unit != opt->target_unit ||
        in->cpu_hz != opt->cpu_hz) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the prepared grouping used other units than these options");
    }
    etp_analysis *a = calloc(1, sizeof *a);
    if (!a) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    a->inspect = in; /* owned from here on: freed with the analysis */
    a->etdump = d;
    a->program = p;
    a->etrecord = r;
    a->runner_log = opt->runner_log;
    if (p && opt->hash_program && etp_program_sha256(p, a->program_sha256, err)) {
        etp_analysis_free(a);
        return etp_error_set(err, ETP_E_INTERNAL, p->path, ETP_NO_OFFSET,
                             "could not hash the program's bytes");
    }
    a->source_unit = opt->source_unit;
    a->target_unit = opt->target_unit;
    a->cpu_hz = opt->cpu_hz;

    etp_abuild b;
    memset(&b, 0, sizeof b);
    b.a = a;
    b.opt = opt;
    b.err = err;
    etp_hm_init(&b.instr_map);
    etp_hm_init(&b.deleg_map);

    /* The program names each block's method and each row's operator. */
    etp_status s = etp_inspect_attach_program(a->inspect, d, p, NULL, 1, err);
    if (!s) {
        a->divisor = a->inspect->divisor;
        s = select_method(&b, p, r);
    }
    if (!s && p)
        a->plan = etp_program_find_plan(p, a->method);
    if (!s)
        s = select_executions(&b, p);
    if (!s)
        s = build_instruction_entities(&b);
    etp_attribution *attribution = NULL;
    if (!s)
        s = etp_attribute_prepare(&b, &attribution);
    /* The instructions' statistics on a helper thread (and on this one once
     * it is free) while attribution collects operator series: the two touch
     * different fields, and the entity table does not move. */
    etp_parallel_job *stats = NULL;
    if (!s && !(stats = etp_parallel_begin(b.ents.n, 4096, finish_range, &b)))
        s = oom(&b);
    if (!s && attribution)
        s = etp_attribute_collect(attribution);
    if (stats && etp_parallel_end(stats) && !s)
        s = oom(&b);
    if (!s && attribution)
        s = etp_attribute_finish(attribution);
    etp_attribution_free(attribution);
    if (!s)
        s = etp_compute_figures(&b);
    if (!s)
        s = note_inputs(&b);
    /* Hand the entities over. */
    a->entities = b.ents.v;
    a->entity_count = (uint32_t)b.ents.n;
    b.ents.v = NULL;
    etp_hm_free(&b.instr_map);
    etp_hm_free(&b.deleg_map);
    free(b.exec_of_run);
    if (s) {
        etp_analysis_free(a);
        return s;
    }
    a->validity = etp_issue_validity(&a->issues);
    *out = a;
    return ETP_OK;
}

static void free_entity(etp_entity *e)
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

void etp_analysis_free(etp_analysis *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->entity_count; i++)
        free_entity(&a->entities[i]);
    free(a->entities);
    for (uint32_t i = 0; i < a->figure_count; i++) {
        free(a->figures[i].owned_name);
        free(a->figures[i].reason);
    }
    free(a->figures);
    free(a->executions);
    free(a->unresolved_handles);
    etp_issue_list_free(&a->issues);
    etp_inspect_free(a->inspect);
    free(a);
}

const etp_figure *etp_analysis_figure(const etp_analysis *a, const char *name)
{
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (!strcmp(a->figures[i].name, name))
            return &a->figures[i];
    return NULL;
}

const char *etp_entity_kind_name(etp_entity_kind k)
{
    switch (k) {
    case ETP_ENTITY_INSTRUCTION: return "instruction";
    case ETP_ENTITY_DELEGATE_EVENT: return "delegate_event";
    case ETP_ENTITY_OPERATOR: return "operator";
    }
    return "?";
}

const char *etp_timing_source_name(etp_timing_source s)
{
    switch (s) {
    case ETP_SRC_NONE: return "none";
    case ETP_SRC_OPERATOR_CALL: return "operator_call";
    case ETP_SRC_DELEGATE_CALL: return "delegate_call";
    case ETP_SRC_OTHER_CALL: return "other_call";
    case ETP_SRC_DELEGATE_EVENTS: return "delegate_events";
    case ETP_SRC_DELEGATE_FALLBACK: return "delegate_call_fallback";
    case ETP_SRC_MIXED: return "mixed";
    }
    return "?";
}
