/* publish_detailed.c - detailed/ of a bundle (only with --detailed):
 *   executions.csv  per-execution sums of every timed entity (the samples
 *                   behind every statistic)
 *   figures.csv     each execution's model-level figures (diff_figure_csv.c)
 *   delegates.json  per DelegateCall: the enclosing interval next to its
 *                   detailed events, and how much of it they cover
 *   unresolved_handles.json  handles of executed instructions with no node */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/diff_io.h"
#include "etprof/tensors.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/tensors/tensors_write.h"
#include "util/csvw.h"
#include "util/jsonw.h"

static etp_status put(etp_bundle *b, const char *rel, char *text, size_t len, const char *media,
                      const char *schema, etp_error *err)
{
    if (!text)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_status s = etp_bundle_write(b, rel, text, len, media, "diagnostic", schema, schema ? 1 : 0, err);
    free(text);
    return s;
}

static char *executions_csv(const etp_analysis *a, size_t *len)
{
    const etp_column *id = etp_column_get(ETP_COL_ID);
    etp_csvw w;
    etp_csvw_init(&w);
    char h[64];
    int n = snprintf(h, sizeof h, "value_%s", etp_unit_name(a->target_unit));
    etp_csvw_raw(&w, id->header, strlen(id->header));
    etp_csvw_raw(&w, "execution,run_index", 19);
    etp_csvw_raw(&w, h, (size_t)n);
    etp_csvw_raw(&w, "ticks", 5);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (!e->time.executions)
            continue;
        const char *eid = id->get(a, e).s; /* quoted as in operators.csv */
        for (uint32_t x = 0; x < a->execution_count; x++) {
            if (!e->time.present[x])
                continue;
            etp_csvw_str(&w, eid);
            etp_csvw_uint(&w, x);
            etp_csvw_uint(&w, a->executions[x]);
            etp_csvw_double(&w, (double)e->time.ticks[x] / a->divisor);
            etp_csvw_uint(&w, e->time.ticks[x]);
            etp_csvw_end_row(&w);
        }
    }
    return etp_csvw_take(&w, len);
}

static char *delegates_json(const etp_analysis *a, size_t *len)
{
    const char *u = etp_unit_name(a->target_unit);
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.delegates");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "unit", u);
    etp_jw_key(&w, "delegate_calls");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || e->source != ETP_SRC_DELEGATE_CALL)
            continue;
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "instruction", e->id);
        etp_jw_kstr(&w, "backend", e->backend);
        etp_jw_kdouble(&w, "delegate_call_avg", e->time.stats.avg);
        etp_jw_kuint(&w, "executions", e->time.executions);
        etp_jw_key(&w, "events");
        etp_jw_arr_begin(&w);
        for (uint32_t k = 0; k < a->entity_count; k++) {
            const etp_entity *d = &a->entities[k];
            if (d->kind != ETP_ENTITY_DELEGATE_EVENT || d->chain != e->chain ||
                d->instruction != e->instruction)
                continue;
            etp_jw_obj_begin(&w);
            etp_jw_kstr(&w, "id", d->id);
            etp_jw_kstr(&w, "delegate_debug_id", d->name);
            etp_jw_kuint(&w, "executions", d->time.executions);
            etp_jw_kuint(&w, "events", d->time.events);
            etp_jw_kdouble(&w, "avg", d->time.stats.avg);
            etp_jw_kdouble(&w, "p50", d->time.stats.p50);
            etp_jw_kdouble(&w, "min", d->time.stats.min);
            etp_jw_kdouble(&w, "max", d->time.stats.max);
            etp_jw_obj_end(&w);
        }
        etp_jw_arr_end(&w);
        etp_jw_key(&w, "detail_total_avg");
        if (e->detail_events && e->time.executions)
            etp_jw_double(&w, e->detail_total_avg);
        else
            etp_jw_null(&w);
        etp_jw_kstr(&w, "note", "detailed events may nest or exclude delegate overhead; their "
                                "total is not necessarily comparable with the call interval");
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

static char *unresolved_json(const etp_analysis *a, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.unresolved-handles");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "runtime_unresolved_debug_handles");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->unresolved_count; i++)
        etp_jw_int(&w, a->unresolved_handles[i]);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "by_instruction");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION || !e->unresolved_count)
            continue;
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "instruction", e->id);
        etp_jw_key(&w, "handles");
        etp_jw_arr_begin(&w);
        for (uint32_t k = 0; k < e->unresolved_count; k++)
            etp_jw_int(&w, e->unresolved[k]);
        etp_jw_arr_end(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

etp_status etp_publish_detailed(etp_bundle *b, const etp_analysis *a, etp_error *err)
{
    size_t len = 0;
    char *t = executions_csv(a, &len);
    etp_status s = put(b, "detailed/executions.csv", t, len, "text/csv", NULL, err);
    if (!s) /* each execution's model-level figures, for `etprof diff` (diff_figure_csv.c) */
        s = etp_diff_publish_figure_samples(b, a, err);
    if (!s) {
        t = delegates_json(a, &len);
        s = put(b, "detailed/delegates.json", t, len, "application/json", "etprof.delegates", err);
    }
    if (!s) {
        t = unresolved_json(a, &len);
        s = put(b, "detailed/unresolved_handles.json", t, len, "application/json",
                "etprof.unresolved-handles", err);
    }
    if (!s && a->tensors) { /* every logged value, its attribution and statistics */
        etp_csvw w;
        etp_csvw_init(&w);
        etp_tensors_csv(&w, a->tensors);
        t = etp_csvw_take(&w, &len);
        s = put(b, "detailed/tensors.csv", t, len, "text/csv", NULL, err);
    }
    return s;
}
