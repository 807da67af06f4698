/* figures.c - model-level figures: Method::execute, load, time per backend,
 * native kernels, dispatch and framework overhead. Each is a per-execution
 * total summarised across executions, with its unit and additivity; a total
 * over entities that were measured in different executions is unavailable.
 * Each keeps the per-execution values it summarises (etp_figure.series):
 * the one place where events are summed per execution, read by warm-up,
 * the diff, the bundle and the page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/analysis_internal.h"
#include "analysis/series.h"
#include "etprof/nx_stats.h"
#include "etprof/runner_log.h"
#include "util/str.h"

/* Every figure once: the name files print and what its statistics are
 * over. Indexed by etp_figure_id. */
static const struct figure_def {
    const char *name;
    etp_figure_basis basis;
} figure_defs[ETP_FIG_COUNT] = {
    [ETP_FIG_METHOD_EXECUTE] = {"method_execute", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_PROGRAM_LOAD_METHOD] = {"program_load_method", ETP_FIGURE_PER_OCCURRENCE},
    [ETP_FIG_METHOD_INIT] = {"method_init", ETP_FIGURE_PER_OCCURRENCE},
    [ETP_FIG_INSTRUCTIONS_TOTAL] = {"instructions_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_OPERATOR_CALLS_TOTAL] = {"operator_calls_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_DELEGATE_CALLS_TOTAL] = {"delegate_calls_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_NATIVE_KERNELS_TOTAL] = {"native_kernels_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_DISPATCH_OVERHEAD_TOTAL] = {"dispatch_overhead_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_OTHER_CALLS_TOTAL] = {"other_calls_total", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_FRAMEWORK_OVERHEAD] = {"framework_overhead", ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_DELEGATE_TIME] = {ETP_FIG_DELEGATE_TIME_PREFIX, ETP_FIGURE_PER_EXECUTION},
    [ETP_FIG_RUNNER_ITERATION] = {"runner_iteration", ETP_FIGURE_RUNNER_REPORTED},
    [ETP_FIG_RUNNER_LOAD] = {"runner_load", ETP_FIGURE_RUNNER_REPORTED},
    [ETP_FIG_RUNNER_PLANNED_MEMORY] = {"runner_planned_memory", ETP_FIGURE_RUNNER_REPORTED},
    [ETP_FIG_VGF_EXCLUDED_RUNTIME] = {"vgf_excluded_runtime", ETP_FIGURE_PER_EXECUTION},
};

const char *etp_figure_id_name(etp_figure_id id)
{
    return (unsigned)id < ETP_FIG_COUNT ? figure_defs[id].name : NULL;
}

const etp_figure *etp_analysis_figure_by_id(const etp_analysis *a, etp_figure_id id)
{
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (a->figures[i].id == id)
            return &a->figures[i];
    return NULL;
}

/* A new figure @p id; @p backend only for ETP_FIG_DELEGATE_TIME. */
static etp_figure *new_figure(etp_abuild *b, etp_figure_id id, const char *backend)
{
    etp_analysis *a = b->a;
    etp_figure *nf = realloc(a->figures, (a->figure_count + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    a->figures = nf;
    etp_figure *f = &nf[a->figure_count];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->basis = figure_defs[id].basis;
    f->unit = a->target_unit;
    f->owned_name = backend ? etp_strprintf("%s%s", figure_defs[id].name, backend)
                            : etp_strdup(figure_defs[id].name);
    if (!f->owned_name)
        return NULL;
    f->name = f->owned_name;
    if (backend)
        f->backend = f->owned_name + strlen(figure_defs[id].name);
    a->figure_count++;
    return f;
}

/* A series for @p n executions (ticks and presence zeroed). */
static int series_alloc(etp_figure_series *s, uint32_t n, int absent_is_zero)
{
    s->ticks = calloc((size_t)n + 1, sizeof *s->ticks);
    s->present = calloc((size_t)n + 1, 1);
    s->absent_is_zero = absent_is_zero;
    return s->ticks && s->present ? 0 : -1;
}

static void series_release(etp_figure_series *s)
{
    free(s->ticks);
    free(s->present);
    memset(s, 0, sizeof *s);
}

/* A figure over the per-execution values @p s (taken over: the figure owns
 * them from here, on failure too): over every execution when
 * s->absent_is_zero, else over the present ones. */
static int figure_from(etp_abuild *b, etp_figure_id id, const char *backend, etp_figure_series *s,
                       int additive, uint64_t events)
{
    etp_figure *f = new_figure(b, id, backend);
    if (!f) {
        series_release(s);
        return -1;
    }
    f->series = *s;
    memset(s, 0, sizeof *s);
    int64_t *tmp = malloc((b->nexec ? b->nexec : 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    uint32_t k = 0;
    for (uint32_t e = 0; e < b->nexec; e++)
        if (f->series.absent_is_zero || f->series.present[e])
            tmp[k++] = f->series.ticks[e];
    etp_stats_from_signed(tmp, k, b->a->divisor, &f->stats);
    free(tmp);
    f->available = k > 0;
    if (!k)
        f->reason = etp_strdup("no execution has the events this figure needs");
    f->additive = additive;
    f->events = events;
    return 0;
}

/* An unavailable figure; @p s (may be NULL) still gives each execution's
 * value (taken over as by figure_from()). */
static int figure_unavailable(etp_abuild *b, etp_figure_id id, const char *backend, int additive,
                              const char *reason, etp_figure_series *s)
{
    etp_figure *f = new_figure(b, id, backend);
    if (!f) {
        if (s)
            series_release(s);
        return -1;
    }
    if (s) {
        f->series = *s;
        memset(s, 0, sizeof *s);
    }
    f->available = 0;
    f->additive = additive;
    f->reason = etp_strdup(reason);
    return f->reason ? 0 : -1;
}

/* Statistics over every occurrence of a framework event in any block. */
static int occurrence_figure(etp_abuild *b, etp_figure_id fig, const char *event)
{
    const etp_inspect *in = b->a->inspect;
    uint64_t n = 0;
    for (uint32_t i = 0; i < in->block_count; i++)
        for (uint32_t r = 0; r < in->blocks[i].row_count; r++) {
            const etp_inspect_row *row = &in->blocks[i].rows[r];
            if (row->is_framework && row->event_name && !strcmp(row->event_name, event))
                n += row->sample_count;
        }
    if (!n)
        return figure_unavailable(b, fig, NULL, 0, "the ETDump has no such event", NULL);
    uint64_t *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    uint64_t k = 0;
    for (uint32_t i = 0; i < in->block_count; i++)
        for (uint32_t r = 0; r < in->blocks[i].row_count; r++) {
            const etp_inspect_row *row = &in->blocks[i].rows[r];
            if (row->is_framework && row->event_name && !strcmp(row->event_name, event)) {
                memcpy(t + k, row->ticks, row->sample_count * sizeof *t);
                k += row->sample_count;
            }
        }
    etp_figure *f = new_figure(b, fig, NULL);
    if (!f) {
        free(t);
        return -1;
    }
    etp_stats_from_ticks(t, n, b->a->divisor, &f->stats);
    free(t);
    f->available = 1;
    f->events = n;
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* A figure from the runner's own numbers (already in @p unit). */
static int runner_figure(etp_abuild *b, etp_figure_id id, etp_unit unit, const double *v,
                         uint32_t n)
{
    etp_figure *f = new_figure(b, id, NULL);
    if (!f)
        return -1;
    f->unit = unit;
    f->source = "runner log";
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return -1;
    if (n)
        memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += s[i];
    f->stats.n = n;
    f->stats.sum = sum;
    f->stats.avg = n ? sum / n : 0;
    f->stats.min = n ? s[0] : 0;
    f->stats.max = n ? s[n - 1] : 0;
    f->stats.p10 = etp_percentile_linear(s, n, 10);
    f->stats.p50 = etp_percentile_linear(s, n, 50);
    f->stats.p90 = etp_percentile_linear(s, n, 90);
    free(s);
    f->available = n > 0;
    f->events = n;
    if (!n)
        f->reason = etp_strdup("the runner log has no such line");
    return 0;
}

static int runner_figures(etp_abuild *b)
{
    const etp_runner_log *log = b->opt->runner_log;
    if (!log)
        return 0;
    int bad = runner_figure(b, ETP_FIG_RUNNER_ITERATION, ETP_UNIT_MS, log->iteration_ms, log->iteration_count);
    bad |= runner_figure(b, ETP_FIG_RUNNER_LOAD, ETP_UNIT_MS, &log->load_ms, log->has_load_ms ? 1 : 0);
    double planned = (double)log->planned_bytes;
    bad |= runner_figure(b, ETP_FIG_RUNNER_PLANNED_MEMORY, ETP_UNIT_BYTES, &planned, log->buffer_count ? 1 : 0);
    return bad;
}

/* The instructions measured as VGF NX cycles: their runtime events were
 * left out of every figure above (entities.c); say so, and keep their
 * DELEGATE_CALL time visible under a name of its own, never additive. */
static int vgf_excluded_figure(etp_abuild *b)
{
    etp_analysis *a = b->a;
    if (!b->vgf_excluded_instructions)
        return 0;
    char list[200] = "";
    size_t len = 0;
    uint32_t listed = 0;
    for (size_t i = 0; i < b->ents.n && listed < 8; i++) {
        const etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || e->source != ETP_SRC_VGF_NX || len + strlen(e->id) + 8 >= sizeof list)
            continue;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", listed ? ", " : "", e->id);
        listed++;
    }
    uint32_t ni = b->vgf_excluded_instructions;
    uint64_t ne = b->vgf_excluded_events;
    /* machine-readable too: {"instructions": [ids], "events": n} */
    char ctx[512];
    size_t cl = (size_t)snprintf(ctx, sizeof ctx, "{\"instructions\": [");
    for (uint32_t i = 0; a->nx && i < a->nx->vgf_instruction_count && cl + 24 < sizeof ctx; i++)
        cl += (size_t)snprintf(ctx + cl, sizeof ctx - cl, "%s%u", i ? ", " : "", a->nx->vgf_instructions[i]);
    int ctx_ok = cl + 40 < sizeof ctx;
    if (ctx_ok)
        snprintf(ctx + cl, sizeof ctx - cl, "], \"events\": %llu}", (unsigned long long)ne);
    if (etp_issue_add(&a->issues, "vgf.runtime_excluded", ctx_ok ? ctx : NULL,
                      "%u instruction%s with VGF statistics (%s%s) measured as NX cycles: %llu runtime event "
                      "record%s of %s left out of the ordinary runtime result (instructions, operators, "
                      "*_total, delegate_time); their DELEGATE_CALL time is figure vgf_excluded_runtime",
                      ni, ni == 1 ? "" : "s", list, ni > listed ? ", ..." : "", (unsigned long long)ne,
                      ne == 1 ? "" : "s", ni == 1 ? "it" : "them"))
        return -1;
    if (!b->has_vgf_excluded || !b->vgf_excluded.events)
        return figure_unavailable(b, ETP_FIG_VGF_EXCLUDED_RUNTIME, NULL, 0,
                                  "the instructions measured as NX cycles have no DELEGATE_CALL event",
                                  NULL);
    etp_figure_series v;
    if (series_alloc(&v, b->nexec, 0)) {
        series_release(&v);
        return -1;
    }
    for (uint32_t x = 0; x < b->nexec; x++) {
        v.ticks[x] = (int64_t)b->vgf_excluded.ticks[x];
        v.present[x] = b->vgf_excluded.present[x];
    }
    return figure_from(b, ETP_FIG_VGF_EXCLUDED_RUNTIME, NULL, &v, 0, b->vgf_excluded.events);
}

/* Method::execute of every execution of the method, skipped ones included
 * (a->method_execute_*): the one walk over the grouped events that looks
 * for it by name. *@p events counts the events in the analysed executions. */
static int method_execute(etp_abuild *b, uint64_t *events)
{
    etp_analysis *a = b->a;
    uint32_t n = a->method_executions, skip = a->skipped_executions;
    uint32_t *pos_of_run = malloc((b->nruns ? b->nruns : 1) * sizeof *pos_of_run);
    a->method_execute_ticks = calloc((size_t)n + 1, sizeof *a->method_execute_ticks);
    a->method_execute_present = calloc((size_t)n + 1, 1);
    if (!pos_of_run || !a->method_execute_ticks || !a->method_execute_present) {
        free(pos_of_run);
        return -1;
    }
    for (uint32_t i = 0; i < b->nruns; i++)
        pos_of_run[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        pos_of_run[b->method_runs[i]] = i;
    const etp_inspect *in = a->inspect;
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        uint32_t mine = 0;
        for (uint32_t x = 0; x < blk->run_count && !mine; x++)
            mine = blk->runs[x] < b->nruns && pos_of_run[blk->runs[x]] != UINT32_MAX;
        for (uint32_t r = 0; mine && r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            if (!row->is_framework || !row->event_name || strcmp(row->event_name, "Method::execute"))
                continue;
            uint64_t k = 0;
            for (uint32_t x = 0; x < blk->run_count; x++) {
                uint32_t pos = blk->runs[x] < b->nruns ? pos_of_run[blk->runs[x]] : UINT32_MAX;
                for (uint32_t c = 0; c < row->per_run[x] && k < row->sample_count; c++, k++)
                    if (pos != UINT32_MAX) {
                        a->method_execute_ticks[pos] += row->ticks[k];
                        a->method_execute_present[pos] = 1;
                        *events += pos >= skip;
                    }
            }
        }
    }
    free(pos_of_run);
    return 0;
}

/* The per-execution totals over instruction entities (figures.c's sums). */
enum { EXEC, INSTR, OPS, DELS, OTHER, NATIVE, DISPATCH, FRAMEWORK, NACC };

/* The delegate time of one backend: per execution, its event records and
 * its timed DELEGATE_CALL instructions. */
typedef struct backend_sum {
    const char *name;
    etp_figure_series v;
    uint64_t events;
    uint32_t instructions;
} backend_sum;

/* Every backend's (backends are few: grown one at a time). */
typedef struct backend_acc {
    uint32_t n;
    backend_sum *b;
} backend_acc;

static void backend_acc_free(backend_acc *bk)
{
    for (uint32_t k = 0; k < bk->n; k++)
        series_release(&bk->b[k].v);
    free(bk->b);
}

/* The sums of backend @p be (added when new), or NULL (out of memory). */
static backend_sum *backend_of(backend_acc *bk, const char *be, uint32_t nexec)
{
    for (uint32_t k = 0; k < bk->n; k++)
        if (!strcmp(bk->b[k].name, be))
            return &bk->b[k];
    backend_sum *nb = realloc(bk->b, (bk->n + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    bk->b = nb;
    backend_sum *s = &nb[bk->n];
    memset(s, 0, sizeof *s);
    s->name = be;
    if (series_alloc(&s->v, nexec, 1)) {
        series_release(&s->v);
        return NULL;
    }
    bk->n++;
    return s;
}

/* Add the present executions of @p e to @p s1, @p s2 and, when not NULL,
 * @p s3: half a million additions on a large run, so one pass with the
 * arrays in restrict locals (the presence flags written would otherwise
 * make the compiler reload them). */
static void add_series(etp_figure_series *s1, etp_figure_series *s2, etp_figure_series *s3,
                       const etp_series *e, uint32_t n)
{
    const uint64_t *restrict t = e->ticks;
    const uint8_t *restrict p = e->present;
    int64_t *restrict t1 = s1->ticks, *restrict t2 = s2->ticks;
    uint8_t *restrict p1 = s1->present, *restrict p2 = s2->present;
    if (!s3) {
        for (uint32_t x = 0; x < n; x++)
            if (p[x]) {
                t1[x] += (int64_t)t[x];
                t2[x] += (int64_t)t[x];
                p1[x] = p2[x] = 1;
            }
        return;
    }
    int64_t *restrict t3 = s3->ticks;
    uint8_t *restrict p3 = s3->present;
    for (uint32_t x = 0; x < n; x++)
        if (p[x]) {
            t1[x] += (int64_t)t[x];
            t2[x] += (int64_t)t[x];
            t3[x] += (int64_t)t[x];
            p1[x] = p2[x] = p3[x] = 1;
        }
}

/* A KernelCall's native_call_* time, and OPERATOR_CALL minus it where the
 * execution has both (dispatch overhead). */
static void add_kernel(etp_figure_series *native, etp_figure_series *dispatch, const etp_series *call,
                       const etp_series *kernel, uint32_t n)
{
    int64_t *restrict nt = native->ticks, *restrict dt = dispatch->ticks;
    uint8_t *restrict np = native->present, *restrict dp = dispatch->present;
    const uint64_t *restrict ct = call->ticks, *restrict kt = kernel->ticks;
    const uint8_t *restrict cp = call->present, *restrict kp = kernel->present;
    for (uint32_t x = 0; x < n; x++)
        if (kp[x]) {
            nt[x] += (int64_t)kt[x];
            np[x] = 1;
            if (cp[x]) {
                dt[x] += (int64_t)ct[x] - (int64_t)kt[x];
                dp[x] = 1;
            }
        }
}

/* The backend groups: the instructions of each delegate_time figure's
 * backend in that order, and the KernelCall instructions, each with the
 * figure of its time (the figures no longer move). */
static int backend_totals(etp_abuild *b, const backend_acc *bk, uint32_t kernel_calls)
{
    etp_analysis *a = b->a;
    a->backend_totals = calloc(bk->n + 1, sizeof *a->backend_totals);
    if (!a->backend_totals)
        return -1;
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (a->figures[i].id == ETP_FIG_DELEGATE_TIME && a->backend_total_count < bk->n) {
            etp_backend_total *t = &a->backend_totals[a->backend_total_count];
            t->backend = a->figures[i].backend;
            t->figure = &a->figures[i];
            t->instructions = bk->b[a->backend_total_count++].instructions;
        }
    a->native_total.figure = etp_analysis_figure_by_id(a, ETP_FIG_OPERATOR_CALLS_TOTAL);
    a->native_total.instructions = kernel_calls;
    return 0;
}

etp_status etp_compute_figures(etp_abuild *b)
{
    etp_analysis *a = b->a;
    uint32_t n = b->nexec;
    etp_figure_series v[NACC];
    memset(v, 0, sizeof v);
    backend_acc bk;
    memset(&bk, 0, sizeof bk);
    uint64_t exec_events = 0;
    int bad = method_execute(b, &exec_events);
    /* Totals over instructions count an execution without events as 0; the
     * execution's own time and what is left of it are over the executions
     * that have one. */
    for (int i = 0; i < NACC && !bad; i++)
        bad = series_alloc(&v[i], n, i != EXEC && i != FRAMEWORK);
    if (bad)
        goto oom;

    /* Method::execute of each analysed execution. */
    uint32_t missing_exec = 0;
    for (uint32_t e = 0; e < n; e++) {
        v[EXEC].ticks[e] = (int64_t)a->method_execute_ticks[a->skipped_executions + e];
        v[EXEC].present[e] = a->method_execute_present[a->skipped_executions + e];
        missing_exec += !v[EXEC].present[e];
    }
    if (missing_exec &&
        etp_issue_add(&a->issues, "etdump.incomplete_execution", NULL,
                      "%u of %u executions have no Method::execute event", missing_exec, n))
        goto oom;

    /* Per-execution totals over instruction entities, and their coverage. */
    const etp_series *ref = NULL;
    int coverage_differs = 0, any_instruction_events = 0;
    uint32_t kernel_less = 0, kernel_calls = 0;
    uint64_t ev_instr = 0, ev_ops = 0, ev_dels = 0, ev_other = 0, ev_native = 0;
    for (uint32_t i = 0; i < (uint32_t)b->ents.n; i++) {
        const etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || !e->time.executions)
            continue;
        any_instruction_events = 1;
        if (!ref)
            ref = &e->time;
        else if (!etp_series_same_coverage(ref, &e->time, n))
            coverage_differs = 1;
        int dst = e->source == ETP_SRC_OPERATOR_CALL ? OPS : e->source == ETP_SRC_DELEGATE_CALL ? DELS : OTHER;
        uint64_t *evc = dst == OPS ? &ev_ops : dst == DELS ? &ev_dels : &ev_other;
        *evc += e->time.events;
        ev_instr += e->time.events;
        etp_figure_series *bv = NULL;
        if (dst == DELS) {
            backend_sum *be = backend_of(&bk, e->backend ? e->backend : "(unknown backend)", n);
            if (!be)
                goto oom;
            bv = &be->v;
            be->events += e->time.events;
            be->instructions++;
        }
        add_series(&v[INSTR], &v[dst], bv, &e->time, n);
        if (dst == OPS) {
            kernel_calls++;
            if (!e->has_kernel) {
                kernel_less++;
                continue;
            }
            ev_native += e->kernel.events;
            add_kernel(&v[NATIVE], &v[DISPATCH], &e->time, &e->kernel, n);
        }
    }
    /* The DELEGATE_CALLs measured as NX cycles are instructions too: their
     * time is neither framework overhead nor part of the runtime totals. */
    for (uint32_t x = 0; x < n; x++) {
        v[FRAMEWORK].ticks[x] =
            v[EXEC].ticks[x] - v[INSTR].ticks[x] -
            (b->has_vgf_excluded && b->vgf_excluded.present[x] ? (int64_t)b->vgf_excluded.ticks[x] : 0);
        v[FRAMEWORK].present[x] = v[EXEC].present[x];
    }

    if (!any_instruction_events &&
        etp_issue_add(&a->issues, "etdump.method_level_only", NULL,
                      "no instruction-level events in the %u executions of %s", n, a->method))
        goto oom;
    if (coverage_differs &&
        etp_issue_add(&a->issues, "coverage.executions_differ", NULL,
                      "instructions of %s were measured in different executions; model totals "
                      "over instructions are unavailable",
                      a->method))
        goto oom;
    if (kernel_less &&
        etp_issue_add(&a->issues, "kernel.no_native_event", NULL,
                      "%u KernelCall instruction%s have OPERATOR_CALL but no native_call_* event",
                      kernel_less, kernel_less == 1 ? "" : "s"))
        goto oom;

    const char *why_cov = "instructions were measured in different executions (see coverage.executions_differ)";
    const char *why_none = "no instruction-level events";
    int ok = 0;
    ok |= missing_exec == n
              ? figure_unavailable(b, ETP_FIG_METHOD_EXECUTE, NULL, 0, "no Method::execute event", &v[EXEC])
              : figure_from(b, ETP_FIG_METHOD_EXECUTE, NULL, &v[EXEC], 0, exec_events);
    ok |= occurrence_figure(b, ETP_FIG_PROGRAM_LOAD_METHOD, "Program::load_method");
    ok |= occurrence_figure(b, ETP_FIG_METHOD_INIT, "Method::init");
#define TOTAL(id, s, additive, events)                                                             \
    (!any_instruction_events  ? figure_unavailable(b, id, NULL, additive, why_none, s)            \
     : coverage_differs       ? figure_unavailable(b, id, NULL, additive, why_cov, s)             \
                              : figure_from(b, id, NULL, s, additive, events))
    ok |= TOTAL(ETP_FIG_INSTRUCTIONS_TOTAL, &v[INSTR], 0, ev_instr);
    ok |= TOTAL(ETP_FIG_OPERATOR_CALLS_TOTAL, &v[OPS], 0, ev_ops);
    ok |= TOTAL(ETP_FIG_DELEGATE_CALLS_TOTAL, &v[DELS], 0, ev_dels);
    ok |= TOTAL(ETP_FIG_NATIVE_KERNELS_TOTAL, &v[NATIVE], 1, ev_native);
    ok |= TOTAL(ETP_FIG_DISPATCH_OVERHEAD_TOTAL, &v[DISPATCH], 1, ev_ops + ev_native);
    ok |= TOTAL(ETP_FIG_OTHER_CALLS_TOTAL, &v[OTHER], 1, ev_other);
#undef TOTAL
    if (any_instruction_events && !coverage_differs && missing_exec < n)
        ok |= figure_from(b, ETP_FIG_FRAMEWORK_OVERHEAD, NULL, &v[FRAMEWORK], 1, exec_events + ev_instr);
    else
        ok |= figure_unavailable(b, ETP_FIG_FRAMEWORK_OVERHEAD, NULL, 1,
                                 missing_exec == n ? "no Method::execute event"
                                 : !any_instruction_events ? why_none : why_cov,
                                 &v[FRAMEWORK]);
    for (uint32_t k = 0; k < bk.n; k++)
        ok |= coverage_differs
                  ? figure_unavailable(b, ETP_FIG_DELEGATE_TIME, bk.b[k].name, 1, why_cov, &bk.b[k].v)
                  : figure_from(b, ETP_FIG_DELEGATE_TIME, bk.b[k].name, &bk.b[k].v, 1, bk.b[k].events);
    ok |= vgf_excluded_figure(b);
    ok |= runner_figures(b);
    ok |= backend_totals(b, &bk, kernel_calls);
    backend_acc_free(&bk);
    for (int i = 0; i < NACC; i++)
        series_release(&v[i]); /* each was taken over by its figure: nothing left */
    if (ok)
        return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    return ETP_OK;
oom:
    for (int i = 0; i < NACC; i++)
        series_release(&v[i]);
    backend_acc_free(&bk);
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}
