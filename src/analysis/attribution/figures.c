/* figures.c - model-level figures: Method::execute, load, time per backend,
 * native kernels, dispatch and framework overhead. Each is a per-execution
 * total summarised across executions, with its unit and additivity; a total
 * over entities that were measured in different executions is unavailable. */
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

/* A figure from per-execution totals @p v over executions where @p present. */
static int figure_from(etp_abuild *b, etp_figure_id id, const char *backend, const int64_t *v,
                       const uint8_t *present, int additive, uint64_t events)
{
    etp_figure *f = new_figure(b, id, backend);
    if (!f)
        return -1;
    int64_t *tmp = malloc((b->nexec ? b->nexec : 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    uint32_t k = 0;
    for (uint32_t e = 0; e < b->nexec; e++)
        if (!present || present[e])
            tmp[k++] = v[e];
    etp_stats_from_signed(tmp, k, b->a->divisor, &f->stats);
    free(tmp);
    f->available = k > 0;
    if (!k)
        f->reason = etp_strdup("no execution has the events this figure needs");
    f->additive = additive;
    f->events = events;
    return 0;
}

static int figure_unavailable(etp_abuild *b, etp_figure_id id, const char *backend, int additive,
                              const char *reason)
{
    etp_figure *f = new_figure(b, id, backend);
    if (!f)
        return -1;
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
        return figure_unavailable(b, fig, NULL, 0, "the ETDump has no such event");
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
                                  "the instructions measured as NX cycles have no DELEGATE_CALL event");
    int64_t *v = malloc((b->nexec ? b->nexec : 1) * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t x = 0; x < b->nexec; x++)
        v[x] = (int64_t)b->vgf_excluded.ticks[x];
    int rc = figure_from(b, ETP_FIG_VGF_EXCLUDED_RUNTIME, NULL, v, b->vgf_excluded.present, 0,
                         b->vgf_excluded.events);
    free(v);
    return rc;
}

etp_status etp_compute_figures(etp_abuild *b)
{
    etp_analysis *a = b->a;
    uint32_t n = b->nexec;
    enum { EXEC, INSTR, OPS, DELS, OTHER, NATIVE, DISPATCH, FRAMEWORK, NACC };
    int64_t *acc = calloc((size_t)n * NACC + 1, sizeof *acc);
    uint8_t *has_exec = calloc(n + 1, 1);
    uint64_t exec_events = 0;
    if (!acc || !has_exec)
        goto oom;
    int64_t *v[NACC];
    for (int i = 0; i < NACC; i++)
        v[i] = acc + (size_t)i * n;

    /* Method::execute of each execution. */
    const etp_inspect *in = a->inspect;
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        if (!etp_abuild_block_taken(b, blk))
            continue;
        for (uint32_t r = 0; r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            if (!row->is_framework || !row->event_name || strcmp(row->event_name, "Method::execute"))
                continue;
            uint64_t k = 0;
            for (uint32_t x = 0; x < blk->run_count; x++) {
                uint32_t e = b->exec_of_run[blk->runs[x]];
                if (e == UINT32_MAX) { /* a skipped (warm-up) execution */
                    k += row->per_run[x];
                    continue;
                }
                for (uint32_t c = 0; c < row->per_run[x]; c++, k++) {
                    v[EXEC][e] += (int64_t)row->ticks[k];
                    has_exec[e] = 1;
                    exec_events++;
                }
            }
        }
    }
    uint32_t missing_exec = 0;
    for (uint32_t e = 0; e < n; e++)
        missing_exec += !has_exec[e];
    if (missing_exec &&
        etp_issue_add(&a->issues, "etdump.incomplete_execution", NULL,
                      "%u of %u executions have no Method::execute event", missing_exec, n))
        goto oom;

    /* Per-execution totals over instruction entities, and their coverage. */
    const etp_series *ref = NULL;
    int coverage_differs = 0, any_instruction_events = 0;
    uint32_t kernel_less = 0;
    uint64_t ev_instr = 0, ev_ops = 0, ev_dels = 0, ev_other = 0, ev_native = 0;
    /* Per-backend delegate time: backends are few; keep a small list. */
    /* Per-backend delegate time (backends are few: grown one at a time). */
    const char **backends = NULL;
    int64_t **bvals = NULL;
    uint64_t *bevents = NULL;
    uint32_t nb = 0;
    for (uint32_t i = 0; i < (uint32_t)b->ents.n; i++) {
        const etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || !e->time.executions)
            continue;
        any_instruction_events = 1;
        if (!ref)
            ref = &e->time;
        else if (!etp_series_same_coverage(ref, &e->time, n))
            coverage_differs = 1;
        int64_t *dst = e->source == ETP_SRC_OPERATOR_CALL ? v[OPS]
                       : e->source == ETP_SRC_DELEGATE_CALL ? v[DELS]
                       : v[OTHER];
        uint64_t *evc = e->source == ETP_SRC_OPERATOR_CALL ? &ev_ops
                        : e->source == ETP_SRC_DELEGATE_CALL ? &ev_dels
                        : &ev_other;
        *evc += e->time.events;
        ev_instr += e->time.events;
        int64_t *bv = NULL;
        if (e->source == ETP_SRC_DELEGATE_CALL) {
            const char *be = e->backend ? e->backend : "(unknown backend)";
            uint32_t k;
            for (k = 0; k < nb; k++)
                if (!strcmp(backends[k], be))
                    break;
            if (k == nb) {
                const char **nbk = realloc(backends, (nb + 1) * sizeof *nbk);
                if (nbk)
                    backends = nbk;
                int64_t **nbv = nbk ? realloc(bvals, (nb + 1) * sizeof *nbv) : NULL;
                if (nbv)
                    bvals = nbv;
                uint64_t *nbe = nbv ? realloc(bevents, (nb + 1) * sizeof *nbe) : NULL;
                if (!nbe)
                    goto oom_backends;
                bevents = nbe;
                backends[nb] = be;
                bvals[nb] = calloc(n + 1, sizeof **bvals);
                bevents[nb] = 0;
                if (!bvals[nb])
                    goto oom_backends;
                nb++;
            }
            bv = bvals[k];
            bevents[k] += e->time.events;
        }
        for (uint32_t x = 0; x < n; x++) {
            if (!e->time.present[x])
                continue;
            v[INSTR][x] += (int64_t)e->time.ticks[x];
            dst[x] += (int64_t)e->time.ticks[x];
            if (bv)
                bv[x] += (int64_t)e->time.ticks[x];
        }
        if (e->source == ETP_SRC_OPERATOR_CALL) {
            if (!e->has_kernel) {
                kernel_less++;
                continue;
            }
            ev_native += e->kernel.events;
            for (uint32_t x = 0; x < n; x++) {
                if (e->kernel.present[x])
                    v[NATIVE][x] += (int64_t)e->kernel.ticks[x];
                if (e->kernel.present[x] && e->time.present[x])
                    v[DISPATCH][x] += (int64_t)e->time.ticks[x] - (int64_t)e->kernel.ticks[x];
            }
        }
    }
    /* The DELEGATE_CALLs measured as NX cycles are instructions too: their
     * time is neither framework overhead nor part of the runtime totals. */
    for (uint32_t x = 0; x < n; x++)
        v[FRAMEWORK][x] = v[EXEC][x] - v[INSTR][x] -
                          (b->has_vgf_excluded && b->vgf_excluded.present[x] ? (int64_t)b->vgf_excluded.ticks[x] : 0);

    if (!any_instruction_events &&
        etp_issue_add(&a->issues, "etdump.method_level_only", NULL,
                      "no instruction-level events in the %u executions of %s", n, a->method))
        goto oom_backends;
    if (coverage_differs &&
        etp_issue_add(&a->issues, "coverage.executions_differ", NULL,
                      "instructions of %s were measured in different executions; model totals "
                      "over instructions are unavailable",
                      a->method))
        goto oom_backends;
    if (kernel_less &&
        etp_issue_add(&a->issues, "kernel.no_native_event", NULL,
                      "%u KernelCall instruction%s have OPERATOR_CALL but no native_call_* event",
                      kernel_less, kernel_less == 1 ? "" : "s"))
        goto oom_backends;

    const char *why_cov = "instructions were measured in different executions (see coverage.executions_differ)";
    const char *why_none = "no instruction-level events";
    int ok = 0;
    ok |= missing_exec == n
              ? figure_unavailable(b, ETP_FIG_METHOD_EXECUTE, NULL, 0, "no Method::execute event")
              : figure_from(b, ETP_FIG_METHOD_EXECUTE, NULL, v[EXEC], has_exec, 0, exec_events);
    ok |= occurrence_figure(b, ETP_FIG_PROGRAM_LOAD_METHOD, "Program::load_method");
    ok |= occurrence_figure(b, ETP_FIG_METHOD_INIT, "Method::init");
#define TOTAL(id, idx, additive, events, present)                                                 \
    (!any_instruction_events  ? figure_unavailable(b, id, NULL, additive, why_none)               \
     : coverage_differs       ? figure_unavailable(b, id, NULL, additive, why_cov)                \
                              : figure_from(b, id, NULL, v[idx], present, additive, events))
    ok |= TOTAL(ETP_FIG_INSTRUCTIONS_TOTAL, INSTR, 0, ev_instr, NULL);
    ok |= TOTAL(ETP_FIG_OPERATOR_CALLS_TOTAL, OPS, 0, ev_ops, NULL);
    ok |= TOTAL(ETP_FIG_DELEGATE_CALLS_TOTAL, DELS, 0, ev_dels, NULL);
    ok |= TOTAL(ETP_FIG_NATIVE_KERNELS_TOTAL, NATIVE, 1, ev_native, NULL);
    ok |= TOTAL(ETP_FIG_DISPATCH_OVERHEAD_TOTAL, DISPATCH, 1, ev_ops + ev_native, NULL);
    ok |= TOTAL(ETP_FIG_OTHER_CALLS_TOTAL, OTHER, 1, ev_other, NULL);
    if (any_instruction_events && !coverage_differs && missing_exec < n)
        ok |= figure_from(b, ETP_FIG_FRAMEWORK_OVERHEAD, NULL, v[FRAMEWORK], has_exec, 1,
                          exec_events + ev_instr);
    else
        ok |= figure_unavailable(b, ETP_FIG_FRAMEWORK_OVERHEAD, NULL, 1,
                                 missing_exec == n ? "no Method::execute event"
                                 : !any_instruction_events ? why_none : why_cov);
    for (uint32_t k = 0; k < nb; k++)
        ok |= coverage_differs
                  ? figure_unavailable(b, ETP_FIG_DELEGATE_TIME, backends[k], 1, why_cov)
                  : figure_from(b, ETP_FIG_DELEGATE_TIME, backends[k], bvals[k], NULL, 1, bevents[k]);
#undef TOTAL
    ok |= vgf_excluded_figure(b);
    ok |= runner_figures(b);
    for (uint32_t k = 0; k < nb; k++)
        free(bvals[k]);
    free(bvals);
    free(backends);
    free(bevents);
    free(acc);
    free(has_exec);
    if (ok)
        return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    return ETP_OK;
oom_backends:
    for (uint32_t k = 0; k < nb; k++)
        free(bvals[k]);
    free(bvals);
    free(backends);
    free(bevents);
oom:
    free(acc);
    free(has_exec);
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}
