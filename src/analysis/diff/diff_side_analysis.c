/* diff_side_analysis.c - a diff side from an analysis in memory: its
 * entities with their per-execution samples, and its model-level figures
 * with each execution's value. The analysis keeps only statistics of its
 * figures, so the per-execution totals are formed again here from the same
 * events and the same rules as figures.c (Method::execute per execution;
 * instruction totals over the entities' series); they are kept only when
 * their count and mean agree with the analysis' own figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_internal.h"
#include "etprof/units.h"
#include "util/str.h"

enum { T_EXEC, T_INSTR, T_OPS, T_DELS, T_OTHER, T_NATIVE, T_DISPATCH, T_FRAMEWORK, T_COUNT };

typedef struct totals {
    uint32_t n;
    double *v[T_COUNT];          /* per execution, ticks (as doubles: dispatch may be < 0) */
    uint8_t *has_exec;
    uint32_t backend_count;
    const char **backends;
    double **bv;
} totals;

static void totals_free(totals *t)
{
    free(t->v[0]);
    free(t->has_exec);
    for (uint32_t k = 0; k < t->backend_count; k++)
        free(t->bv[k]);
    free(t->bv);
    free(t->backends);
}

static double *backend_values(totals *t, const char *be)
{
    for (uint32_t k = 0; k < t->backend_count; k++)
        if (!strcmp(t->backends[k], be))
            return t->bv[k];
    const char **nb = realloc(t->backends, (t->backend_count + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    t->backends = nb;
    double **nv = realloc(t->bv, (t->backend_count + 1) * sizeof *nv);
    if (!nv)
        return NULL;
    t->bv = nv;
    double *v = calloc(t->n + 1, sizeof *v);
    if (!v)
        return NULL;
    nb[t->backend_count] = be;
    nv[t->backend_count++] = v;
    return v;
}

static int compute_totals(const etp_analysis *a, totals *t)
{
    memset(t, 0, sizeof *t);
    uint32_t n = t->n = a->execution_count;
    double *all = calloc((size_t)n * T_COUNT + 1, sizeof *all);
    t->has_exec = calloc(n + 1, 1);
    if (!all || !t->has_exec) {
        free(all);
        return -1;
    }
    for (int i = 0; i < T_COUNT; i++)
        t->v[i] = all + (size_t)i * n;
    const etp_inspect *in = a->inspect;
    for (uint32_t bi = 0; in && bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        for (uint32_t r = 0; r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            if (!row->is_framework || !row->event_name || strcmp(row->event_name, "Method::execute"))
                continue;
            uint64_t k = 0;
            for (uint32_t x = 0; x < blk->run_count; x++) {
                uint32_t e = etp_analysis_execution_of_run(a, blk->runs[x]);
                for (uint32_t c = 0; c < row->per_run[x] && k < row->sample_count; c++, k++) {
                    if (e == UINT32_MAX)
                        continue;
                    t->v[T_EXEC][e] += (double)row->ticks[k];
                    t->has_exec[e] = 1;
                }
            }
        }
    }
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || !e->time.executions)
            continue;
        double *dst = e->source == ETP_SRC_OPERATOR_CALL ? t->v[T_OPS]
                      : e->source == ETP_SRC_DELEGATE_CALL ? t->v[T_DELS]
                                                           : t->v[T_OTHER];
        double *bv = NULL;
        if (e->source == ETP_SRC_DELEGATE_CALL &&
            !(bv = backend_values(t, e->backend ? e->backend : "(unknown backend)")))
            return -1;
        for (uint32_t x = 0; x < n; x++) {
            if (!e->time.present[x])
                continue;
            double v = (double)e->time.ticks[x];
            t->v[T_INSTR][x] += v;
            dst[x] += v;
            if (bv)
                bv[x] += v;
        }
        if (e->source == ETP_SRC_OPERATOR_CALL && e->has_kernel)
            for (uint32_t x = 0; x < n; x++) {
                if (e->kernel.present[x])
                    t->v[T_NATIVE][x] += (double)e->kernel.ticks[x];
                if (e->kernel.present[x] && e->time.present[x])
                    t->v[T_DISPATCH][x] += (double)e->time.ticks[x] - (double)e->kernel.ticks[x];
            }
    }
    for (uint32_t x = 0; x < n; x++)
        t->v[T_FRAMEWORK][x] = t->v[T_EXEC][x] - t->v[T_INSTR][x];
    return 0;
}

/* The per-execution values of figure @p f (a new array of f->stats.n values
 * in the target unit), or NULL when they cannot be formed or do not agree
 * with the figure's own count and mean. */
static double *figure_samples(const etp_analysis *a, const totals *t, const etp_figure *f,
                              uint32_t **execs)
{
    if (execs)
        *execs = NULL;
    if (!f->available || f->basis != ETP_FIGURE_PER_EXECUTION || !t->n)
        return NULL;
    static const struct { etp_figure_id id; int idx; } map[] = {
        {ETP_FIG_METHOD_EXECUTE, T_EXEC},          {ETP_FIG_INSTRUCTIONS_TOTAL, T_INSTR},
        {ETP_FIG_OPERATOR_CALLS_TOTAL, T_OPS},     {ETP_FIG_DELEGATE_CALLS_TOTAL, T_DELS},
        {ETP_FIG_OTHER_CALLS_TOTAL, T_OTHER},      {ETP_FIG_NATIVE_KERNELS_TOTAL, T_NATIVE},
        {ETP_FIG_DISPATCH_OVERHEAD_TOTAL, T_DISPATCH}, {ETP_FIG_FRAMEWORK_OVERHEAD, T_FRAMEWORK},
    };
    const double *src = NULL;
    int exec_only = f->id == ETP_FIG_METHOD_EXECUTE || f->id == ETP_FIG_FRAMEWORK_OVERHEAD;
    if (f->id == ETP_FIG_DELEGATE_TIME) {
        for (uint32_t k = 0; k < t->backend_count; k++)
            if (f->backend && !strcmp(t->backends[k], f->backend))
                src = t->bv[k];
    } else {
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (map[i].id == f->id)
                src = t->v[map[i].idx];
    }
    if (!src)
        return NULL;
    double *out = malloc((size_t)t->n * sizeof *out);
    uint32_t *ex = execs ? malloc((size_t)t->n * sizeof *ex) : NULL;
    if (!out || (execs && !ex)) {
        free(out);
        free(ex);
        return NULL;
    }
    uint32_t k = 0;
    double sum = 0;
    for (uint32_t x = 0; x < t->n; x++) {
        if (exec_only && !t->has_exec[x])
            continue;
        out[k] = src[x] / a->divisor;
        if (ex)
            ex[k] = x;
        sum += src[x];
        k++;
    }
    double mean = k ? sum / k / a->divisor : 0;
    double tol = 1e-9 * (fabs(f->stats.avg) > 1e-300 ? fabs(f->stats.avg) : 1.0);
    if (k != f->stats.n || fabs(mean - f->stats.avg) > tol) {
        free(out);
        free(ex);
        return NULL;
    }
    if (execs)
        *execs = ex;
    return out;
}

etp_status etp_diff_figure_values(const etp_analysis *a, etp_diff_figure_samples **out,
                                   etp_error *err)
{
    *out = NULL;
    etp_diff_figure_samples *fs = calloc(a->figure_count + 1, sizeof *fs);
    totals t;
    if (!fs || compute_totals(a, &t)) {
        if (fs)
            totals_free(&t);
        free(fs);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    for (uint32_t i = 0; i < a->figure_count; i++) {
        fs[i].values = figure_samples(a, &t, &a->figures[i], &fs[i].executions);
        fs[i].count = fs[i].values ? (uint32_t)a->figures[i].stats.n : 0;
    }
    totals_free(&t);
    *out = fs;
    return ETP_OK;
}

void etp_diff_figure_samples_free(etp_diff_figure_samples *fs, uint32_t n)
{
    if (!fs)
        return;
    for (uint32_t i = 0; i < n; i++) {
        free(fs[i].values);
        free(fs[i].executions);
    }
    free(fs);
}

static const char *basis_name(etp_figure_basis b)
{
    return b == ETP_FIGURE_PER_EXECUTION   ? "per execution"
           : b == ETP_FIGURE_PER_OCCURRENCE ? "per occurrence"
                                            : "runner reported";
}

static int ticks_assumed(const etp_analysis *a)
{
    for (size_t i = 0; i < a->issues.count; i++)
        if (a->issues.items[i].code && !strcmp(a->issues.items[i].code->code, "units.assumed"))
            return 1;
    return 0;
}

static etp_status add_entities(const etp_analysis *a, etp_diff_side *s, etp_error *err)
{
    double *buf = malloc(((size_t)a->execution_count + 1) * sizeof *buf);
    if (!buf)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_status st = ETP_OK;
    for (uint32_t i = 0; i < a->entity_count && !st; i++) {
        const etp_entity *e = &a->entities[i];
        etp_diff_entry d;
        memset(&d, 0, sizeof d);
        d.kind = e->kind == ETP_ENTITY_INSTRUCTION      ? ETP_DIFF_INSTRUCTION
                 : e->kind == ETP_ENTITY_DELEGATE_EVENT ? ETP_DIFF_DELEGATE_EVENT
                                                        : ETP_DIFF_OPERATOR;
        d.id = e->id;
        d.name = e->name;
        d.op_type = e->op_type;
        d.backend = e->backend;
        d.available = e->time.executions > 0;
        d.reason = d.available ? NULL : "no timing";
        d.additive = e->additive;
        d.shared = e->shared;
        d.n = e->time.executions;
        d.avg = e->time.stats.avg;
        d.p50 = e->time.stats.p50;
        d.min = e->time.stats.min;
        d.max = e->time.stats.max;
        uint32_t k = 0;
        for (uint32_t x = 0; d.available && x < a->execution_count; x++)
            if (e->time.present[x])
                buf[k++] = (double)e->time.ticks[x] / a->divisor;
        d.samples = buf;
        d.sample_count = k;
        st = etp_diff_side_add(s, &d, err);
    }
    free(buf);
    return st;
}

etp_status etp_diff_side_from_analysis(const etp_analysis *a, const char *label,
                                       const char *etrecord_sha256, etp_diff_side **out,
                                       etp_error *err)
{
    *out = NULL;
    etp_diff_identity id;
    memset(&id, 0, sizeof id);
    id.label = label;
    id.origin = "etdump";
    id.program_sha256 = a->program_sha256[0] ? a->program_sha256 : NULL;
    id.etrecord_sha256 = etrecord_sha256;
    id.method = a->method;
    id.time_unit = a->target_unit;
    id.has_tick_unit = 1;
    id.tick_unit = a->source_unit;
    id.ticks_assumed = ticks_assumed(a);
    id.cpu_hz = a->cpu_hz;
    id.status = "complete";
    id.validity = etp_validity_name(a->validity);
    id.executions = a->execution_count;
    etp_diff_side *s;
    etp_status st = etp_diff_side_new(&id, &s, err);
    if (st)
        return st;
    totals t;
    if (compute_totals(a, &t)) {
        totals_free(&t);
        etp_diff_side_free(s);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    for (uint32_t i = 0; i < a->figure_count && !st; i++) {
        const etp_figure *f = &a->figures[i];
        etp_diff_entry d;
        memset(&d, 0, sizeof d);
        d.kind = ETP_DIFF_MODEL;
        d.id = f->name;
        d.backend = f->backend;
        d.unit = f->unit == a->target_unit ? NULL : etp_unit_name(f->unit);
        d.basis = basis_name(f->basis);
        d.available = f->available;
        d.reason = f->reason;
        d.additive = f->additive;
        d.n = f->stats.n;
        d.avg = f->stats.avg;
        d.p50 = f->stats.p50;
        d.min = f->stats.min;
        d.max = f->stats.max;
        double *smp = figure_samples(a, &t, f, NULL);
        d.samples = smp;
        d.sample_count = smp ? (uint32_t)f->stats.n : 0;
        st = etp_diff_side_add(s, &d, err);
        free(smp);
    }
    totals_free(&t);
    if (!st)
        st = add_entities(a, s, err);
    if (st) {
        etp_diff_side_free(s);
        return st;
    }
    *out = s;
    return ETP_OK;
}
