/* report_doc.c - the one document of an analysis, in its two forms:
 * summary.json of a bundle (schema etprof.summary) and `etprof analyze
 * --json` without -o (etprof.analysis, also etp_analysis_json()). Both are
 * written here by one function, member by member: every member of
 * summary.json is in the analysis document, by the same name and with the
 * same value; the analysis document adds "inputs", "executions", "figures"
 * and "entities" (the whole analysis, too big for a bundle's headline file);
 * only "schema" differs (docs/result-bundle.md; the test
 * analyze.json_equals_summary compares the two on every kind of run).
 *
 * summary.json: the headline a reader looks at first (Method::execute,
 * time per delegate backend, native kernels, framework overhead, top
 * operators) and every figure as metric objects. */
#include <stdlib.h>
#include <string.h>

#include "outputs/report/analysis_report.h"
#include "outputs/report/device_output.h"
#include "outputs/report/nx_output.h"
#include "util/jsonw.h"

static void metric(etp_jw *w, const char *name, double v, const char *unit, const char *agg,
                   int additive, uint64_t samples)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_kdouble(w, "value", v);
    etp_jw_kstr(w, "unit", unit);
    etp_jw_kstr(w, "aggregation", agg);
    etp_jw_kbool(w, "additive", additive);
    etp_jw_kuint(w, "samples", samples);
    etp_jw_obj_end(w);
}

void etp_json_metric_unavailable(etp_jw *w, const char *name, const char *unit, const char *reason)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_kstr(w, "unit", unit);
    etp_jw_kstr(w, "availability", "unavailable");
    etp_jw_kstr(w, "reason", reason);
    etp_jw_obj_end(w);
}

/* One statistic of a figure as a metric object named "<figure>.<stat>":
 * k = 0 avg (additive when the figure is), 1 p50, 2 min, 3 max (never
 * additive). An unavailable figure gives unavailable metrics, never a value. */
static const char *const stat_names[] = {"avg", "p50", "min", "max"};

static void figure_metric(etp_jw *w, const etp_analysis *a, const etp_figure *f, int k)
{
    const char *u = etp_unit_name(f->unit);
    char name[200];
    snprintf(name, sizeof name, "%s.%s", f->name, stat_names[k]);
    if (!f->available) {
        etp_json_metric_unavailable(w, name, u, f->reason ? f->reason : "not measured");
        return;
    }
    static const char *const over_words[] = {
        [ETP_FIGURE_PER_EXECUTION] = "executions",
        [ETP_FIGURE_PER_OCCURRENCE] = "occurrences",
        [ETP_FIGURE_RUNNER_REPORTED] = "reported values",
    };
    const char *over = over_words[f->basis];
    static const char *const stat_words[] = {"mean", "median", "minimum", "maximum"};
    char agg[64];
    snprintf(agg, sizeof agg, "%s over %s", stat_words[k], over);
    double v = k == 0 ? f->stats.avg : k == 1 ? f->stats.p50 : k == 2 ? f->stats.min : f->stats.max;
    metric(w, name, v, u, agg, k == 0 && f->additive, f->stats.n);
}

static void figure_metrics(etp_jw *w, const etp_analysis *a, const etp_figure *f)
{
    for (int k = 0; k < 4; k++)
        figure_metric(w, a, f, k);
}

/* A headline figure as {"avg": metric, "p50": ..., "min": ..., "max": ...};
 * a figure the analysis did not compute is unavailable, not absent. */
static void headline_figure(etp_jw *w, const etp_analysis *a, const char *key, etp_figure_id id)
{
    const etp_figure *f = etp_analysis_figure_by_id(a, id);
    etp_figure missing;
    if (!f) {
        memset(&missing, 0, sizeof missing);
        missing.id = id;
        missing.name = etp_figure_id_name(id);
        missing.reason = "not computed for these inputs";
        f = &missing;
    }
    etp_jw_key(w, key);
    etp_jw_obj_begin(w);
    for (int k = 0; k < 4; k++) {
        etp_jw_key(w, stat_names[k]);
        figure_metric(w, a, f, k);
    }
    etp_jw_obj_end(w);
}

/* The entity columns of a top operator (etprof/columns.h), around its
 * share of Method::execute. Top entities are timed: every column has a value. */
static const etp_column_id before_share[] = {ETP_COL_ID, ETP_COL_KIND, ETP_COL_OP_TYPE,
                                             ETP_COL_TIMING_UNIT, ETP_COL_AVG};
static const etp_column_id after_share[] = {ETP_COL_EXECUTIONS, ETP_COL_ADDITIVE, ETP_COL_SHARED,
                                            ETP_COL_CO_ATTRIBUTED};

static void entity_member(etp_jw *w, const etp_analysis *a, etp_column_id id, const etp_entity *e)
{
    const etp_column *c = etp_column_get(id);
    etp_jw_key(w, c->key);
    etp_json_cell(w, c, c->get(a, e));
}

static void top_operators(etp_jw *w, const etp_analysis *a)
{
    etp_jw_key(w, "top_operators");
    etp_jw_arr_begin(w);
    uint32_t n;
    const etp_entity **top = etp_analysis_top(a, &n);
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    for (uint32_t i = 0; top && i < n && i < 10; i++) {
        const etp_entity *e = top[i];
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "rank", i + 1);
        for (size_t k = 0; k < sizeof before_share / sizeof before_share[0]; k++)
            entity_member(w, a, before_share[k], e);
        etp_jw_key(w, "share_of_execute_pct");
        if (ex && ex->available && ex->stats.avg > 0)
            etp_jw_double(w, 100.0 * e->time.stats.avg / ex->stats.avg);
        else
            etp_jw_null(w);
        for (size_t k = 0; k < sizeof after_share / sizeof after_share[0]; k++)
            entity_member(w, a, after_share[k], e);
        etp_jw_obj_end(w);
    }
    free(top);
    etp_jw_arr_end(w);
}

/* What a reader looks at first: Method::execute, executions, time per
 * delegate backend, native kernels, framework overhead, top operators. The
 * same metric objects also appear in "metrics". */
static void headline(etp_jw *w, const etp_analysis *a)
{
    etp_jw_key(w, "headline");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "executions");
    metric(w, "executions", (double)a->execution_count, "count", "count", 0, a->execution_count);
    headline_figure(w, a, "method_execute", ETP_FIG_METHOD_EXECUTE);
    etp_jw_key(w, "delegate_time");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->figure_count; i++) {
        const etp_figure *f = &a->figures[i];
        if (f->id != ETP_FIG_DELEGATE_TIME)
            continue;
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "backend", f->backend);
        for (int k = 0; k < 4; k++) {
            etp_jw_key(w, stat_names[k]);
            figure_metric(w, a, f, k);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    headline_figure(w, a, "native_kernels", ETP_FIG_NATIVE_KERNELS_TOTAL);
    headline_figure(w, a, "framework_overhead", ETP_FIG_FRAMEWORK_OVERHEAD);
    top_operators(w, a);
    etp_jw_obj_end(w);
}

static void handles_array(etp_jw *w, const char *key, const int64_t *h, uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_int(w, h[i]);
    etp_jw_arr_end(w);
}

/* "units": the time unit of the document and the ticks' unit, under both
 * documents' historical names (time = target, etdump_ticks = source). */
static void units(etp_jw *w, const etp_analysis *a)
{
    etp_jw_key(w, "units");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "time", etp_unit_name(a->target_unit));
    etp_jw_kstr(w, "etdump_ticks", etp_unit_name(a->source_unit));
    etp_jw_kbool(w, "etdump_ticks_assumed", a->tick_unit.assumed);
    etp_jw_kstr(w, "source", etp_unit_name(a->source_unit));
    etp_jw_kstr(w, "target", etp_unit_name(a->target_unit));
    etp_jw_kdouble(w, "divisor", a->divisor);
    if (a->cpu_hz > 0)
        etp_jw_kdouble(w, "cpu_hz", a->cpu_hz);
    etp_jw_key(w, "tick_unit");
    etp_json_tick_unit(w, a);
    etp_jw_obj_end(w);
}

static void notes(etp_jw *w, const etp_analysis *a)
{
    etp_jw_key(w, "notes");
    etp_jw_arr_begin(w);
    etp_jw_str(w, "Every figure is a per-execution total summarised across executions "
                  "(load figures: across their occurrences).");
    etp_jw_str(w, "Only metrics marked additive may be summed; p50, min and max never are.");
    etp_jw_str(w, "Shared timings give each co-attributed operator the full time of the event.");
    if (etp_analysis_figure_by_id(a, ETP_FIG_VGF_EXCLUDED_RUNTIME))
        etp_jw_str(w, "Instructions with VGF statistics are measured as NX cycles (vgf_cycles): their runtime "
                      "events are left out of every runtime figure and operator; their DELEGATE_CALL time is "
                      "vgf_excluded_runtime, never added to the runtime totals or to cycles.");
    etp_jw_arr_end(w);
}

void etp_analysis_json_doc(etp_jw *w, const etp_analysis *a, etp_doc_kind kind, int entities)
{
    int whole = kind == ETP_DOC_ANALYSIS; /* the members summary.json leaves out */
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "schema", whole ? ETP_ANALYSIS_SCHEMA : ETP_SUMMARY_SCHEMA);
    etp_jw_kint(w, "schema_version", 1);
    etp_jw_kstr(w, "validity", etp_validity_name(a->validity));
    if (whole) {
        etp_jw_key(w, "inputs");
        etp_json_inputs(w, a);
    }
    etp_jw_key(w, "method");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", a->method);
    etp_jw_kstr(w, "basis", a->method_basis);
    etp_jw_obj_end(w);
    units(w, a);
    etp_jw_key(w, "warmup");
    etp_json_warmup(w, a);
    if (whole) {
        etp_jw_key(w, "executions");
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "count", a->execution_count);
        etp_jw_ku32s(w, "run_indices", a->executions, a->execution_count);
        etp_jw_obj_end(w);
    }
    headline(w, a);
    etp_jw_key(w, "metrics");
    etp_jw_arr_begin(w);
    metric(w, "executions", (double)a->execution_count, "count", "count", 0, a->execution_count);
    for (uint32_t i = 0; i < a->figure_count; i++)
        figure_metrics(w, a, &a->figures[i]);
    etp_jw_arr_end(w);
    if (whole) {
        etp_jw_key(w, "figures");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < a->figure_count; i++)
            etp_json_figure(w, a, &a->figures[i]);
        etp_jw_arr_end(w);
        etp_jw_key(w, "entities");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; entities && i < a->entity_count; i++)
            etp_json_entity(w, a, &a->entities[i]);
        etp_jw_arr_end(w);
    }
    handles_array(w, "runtime_unresolved_debug_handles", a->unresolved_handles, a->unresolved_count);
    etp_jw_key(w, "memory");
    etp_json_memory(w, a);
    etp_jw_key(w, "npu");
    etp_json_npu(w, a);
    etp_jw_key(w, "debug_buffer");
    etp_json_debug_buffer(w, a);
    etp_jw_key(w, "device");
    etp_json_device(w, a);
    if (a->nx) { /* VGF NX cycles: kept apart from the runtime timings */
        etp_jw_key(w, "vgf_cycles");
        etp_nx_summary_write(w, a->nx);
    }
    etp_jw_key(w, "issues");
    etp_json_issues(w, &a->issues);
    etp_jw_key(w, "findings");
    etp_json_findings(w, &a->findings);
    notes(w, a);
    etp_jw_obj_end(w);
}

int etp_analysis_write_json(const etp_analysis *a, FILE *fp)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 1);
    etp_analysis_json_doc(&w, a, ETP_DOC_ANALYSIS, 1);
    return etp_jw_finish(&w);
}
