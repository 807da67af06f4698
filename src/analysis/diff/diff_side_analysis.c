/* diff_side_analysis.c - a diff side from an analysis in memory: its
 * entities with their per-execution samples, and its model-level figures
 * with each execution's value (the series the analysis formed with each
 * figure: etp_figure.series). */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_internal.h"
#include "etprof/units.h"
#include "util/str.h"

/* The values figure @p f's statistics are over (a new array of f->stats.n
 * values in the target unit, and in *@p execs the execution of each when
 * asked), or NULL when it has none (unavailable, not per execution). */
static double *figure_samples(const etp_analysis *a, const etp_figure *f, uint32_t **execs)
{
    if (execs)
        *execs = NULL;
    const etp_figure_series *s = &f->series;
    uint32_t n = a->execution_count;
    if (!f->available || f->basis != ETP_FIGURE_PER_EXECUTION || !s->ticks || !n)
        return NULL;
    double *out = malloc((size_t)n * sizeof *out);
    uint32_t *ex = execs ? malloc((size_t)n * sizeof *ex) : NULL;
    if (!out || (execs && !ex)) {
        free(out);
        free(ex);
        return NULL;
    }
    uint32_t k = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (!s->absent_is_zero && !s->present[x])
            continue;
        out[k] = (double)s->ticks[x] / a->divisor;
        if (ex)
            ex[k] = x;
        k++;
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
    if (!fs)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    for (uint32_t i = 0; i < a->figure_count; i++) {
        fs[i].values = figure_samples(a, &a->figures[i], &fs[i].executions);
        fs[i].count = fs[i].values ? (uint32_t)a->figures[i].stats.n : 0;
    }
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

static etp_status add_entities(const etp_analysis *a, etp_diff_side *s, etp_error *err)
{
    double *buf = malloc(((size_t)a->execution_count + 1) * sizeof *buf);
    if (!buf)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    const etp_column *col[ETP_DIFF_SIDE_COLUMNS];
    for (int c = 0; c < ETP_DIFF_SIDE_COLUMNS; c++)
        col[c] = etp_column_get(etp_diff_side_columns[c]);
    etp_status st = ETP_OK;
    for (uint32_t i = 0; i < a->entity_count && !st; i++) {
        const etp_entity *e = &a->entities[i];
        etp_cell cells[ETP_DIFF_SIDE_COLUMNS];
        uint8_t has[ETP_DIFF_SIDE_COLUMNS];
        for (int c = 0; c < ETP_DIFF_SIDE_COLUMNS; c++)
            if ((has[c] = (uint8_t)col[c]->present(e)))
                cells[c] = col[c]->get(a, e);
        etp_diff_entry d;
        if (etp_diff_entry_from_cells(&d, cells, has)) {
            st = etp_error_set(err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET, "entity '%s' of no known kind", e->id);
            break;
        }
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

/* The analysis' findings as the side's (etprof/findings.h). */
static etp_status add_findings(const etp_analysis *a, etp_diff_side *s, etp_error *err)
{
    etp_status st = ETP_OK;
    for (uint32_t i = 0; !st && i < a->findings.count; i++) {
        const etp_finding *f = &a->findings.items[i];
        const char **ids = calloc((size_t)f->entity_count + 1, sizeof *ids);
        if (!ids)
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        for (uint32_t k = 0; k < f->entity_count; k++)
            ids[k] = f->entities[k].id;
        etp_diff_side_finding d = {f->rule->code, etp_severity_name(f->rule->severity),
                                   etp_finding_status_name(f->status), f->message, f->entity_count, ids};
        st = etp_diff_side_add_finding(s, &d, err);
        free(ids);
    }
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
    id.ticks_assumed = a->tick_unit.assumed;
    id.cpu_hz = a->cpu_hz;
    id.status = "complete";
    id.validity = etp_validity_name(a->validity);
    id.executions = a->execution_count;
    id.has_findings = 1;
    etp_diff_side *s;
    etp_status st = etp_diff_side_new(&id, &s, err);
    if (st)
        return st;
    st = add_findings(a, s, err);
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
        double *smp = figure_samples(a, f, NULL);
        d.samples = smp;
        d.sample_count = smp ? (uint32_t)f->stats.n : 0;
        st = etp_diff_side_add(s, &d, err);
        free(smp);
    }
    if (!st)
        st = add_entities(a, s, err);
    if (st) {
        etp_diff_side_free(s);
        return st;
    }
    *out = s;
    return ETP_OK;
}
