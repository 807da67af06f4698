/* publish.c - write an analysis as a result bundle (see publish.h). */
#include "outputs/bundle/publish.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "etprof/bundle.h"
#include "etprof/etrecord.h"
#include "etprof/runner_log.h"
#include "outputs/report/analysis_report.h"
#include "util/jsonw.h"
#include "outputs/bundle/publish_internal.h"
#include "util/sha256.h"

static etp_status nomem(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory writing the bundle");
}

/* ---- summary.json --------------------------------------------------------- */

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

static void unavailable(etp_jw *w, const char *name, const char *unit, const char *reason)
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
    const char *u = f->unit ? f->unit : etp_unit_name(a->target_unit);
    char name[200];
    snprintf(name, sizeof name, "%s.%s", f->name, stat_names[k]);
    if (!f->available) {
        unavailable(w, name, u, f->reason ? f->reason : "not measured");
        return;
    }
    /* Load figures are statistics over occurrences, runner figures over the
     * values the runner printed, the rest over executions. */
    const char *over = f->source ? "reported values" : etp_figure_per_occurrence(f) ? "occurrences"
                                                                                    : "executions";
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
static void headline_figure(etp_jw *w, const etp_analysis *a, const char *key, const char *name)
{
    const etp_figure *f = etp_analysis_figure(a, name);
    etp_figure missing;
    if (!f) {
        memset(&missing, 0, sizeof missing);
        missing.name = name;
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

static void top_operators(etp_jw *w, const etp_analysis *a)
{
    const char *u = etp_unit_name(a->target_unit);
    etp_jw_key(w, "top_operators");
    etp_jw_arr_begin(w);
    uint32_t n;
    const etp_entity **top = etp_analysis_top(a, &n);
    const etp_figure *ex = etp_analysis_figure(a, "method_execute");
    for (uint32_t i = 0; top && i < n && i < 10; i++) {
        const etp_entity *e = top[i];
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "rank", i + 1);
        etp_jw_kstr(w, "id", e->id);
        etp_jw_kstr(w, "kind", etp_entity_kind_name(e->kind));
        etp_jw_kstr(w, "op_type", e->op_type);
        etp_jw_kstr(w, "unit", u);
        etp_jw_kdouble(w, "avg", e->time.stats.avg);
        etp_jw_key(w, "share_of_execute_pct");
        if (ex && ex->available && ex->stats.avg > 0)
            etp_jw_double(w, 100.0 * e->time.stats.avg / ex->stats.avg);
        else
            etp_jw_null(w);
        etp_jw_kuint(w, "executions", e->time.executions);
        etp_jw_kbool(w, "additive", e->additive);
        etp_jw_kbool(w, "shared", e->shared);
        etp_jw_kstrs(w, "co_attributed", e->co_attributed, e->co_count);
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
    headline_figure(w, a, "method_execute", "method_execute");
    etp_jw_key(w, "delegate_time");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->figure_count; i++) {
        const etp_figure *f = &a->figures[i];
        if (strncmp(f->name, "delegate_time:", 14))
            continue;
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "backend", f->name + 14);
        for (int k = 0; k < 4; k++) {
            etp_jw_key(w, stat_names[k]);
            figure_metric(w, a, f, k);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    headline_figure(w, a, "native_kernels", "native_kernels_total");
    headline_figure(w, a, "framework_overhead", "framework_overhead");
    top_operators(w, a);
    etp_jw_obj_end(w);
}

char *etp_summary_json(const etp_analysis *a)
{
    const char *u = etp_unit_name(a->target_unit);
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_SUMMARY_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "validity", etp_validity_name(a->validity));
    etp_jw_key(&w, "method");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "name", a->method);
    etp_jw_kstr(&w, "basis", a->method_basis);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "units");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "time", u);
    etp_jw_kstr(&w, "etdump_ticks", etp_unit_name(a->source_unit));
    int assumed = 0;
    for (size_t i = 0; i < a->issues.count; i++)
        assumed |= !strcmp(a->issues.items[i].code->code, "units.assumed");
    etp_jw_kbool(&w, "etdump_ticks_assumed", assumed);
    etp_jw_obj_end(&w);
    headline(&w, a);
    etp_jw_key(&w, "metrics");
    etp_jw_arr_begin(&w);
    metric(&w, "executions", (double)a->execution_count, "count", "count", 0, a->execution_count);
    for (uint32_t i = 0; i < a->figure_count; i++)
        figure_metrics(&w, a, &a->figures[i]);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "runtime_unresolved_debug_handles");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->unresolved_count; i++)
        etp_jw_int(&w, a->unresolved_handles[i]);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "issues");
    etp_json_issues(&w, &a->issues);
    etp_jw_key(&w, "notes");
    etp_jw_arr_begin(&w);
    etp_jw_str(&w, "Every figure is a per-execution total summarised across executions "
                   "(load figures: across their occurrences).");
    etp_jw_str(&w, "Only metrics marked additive may be summed; p50, min and max never are.");
    etp_jw_str(&w, "Shared timings give each co-attributed operator the full time of the event.");
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

/* ---- operators.csv / operators.json --------------------------------------- */

static void csv_field(etp_jw *w, const char *s)
{
    /* RFC 4180: quote when the field holds a comma, quote, CR or LF. */
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        etp_jw_raw_text(w, s, strlen(s));
        return;
    }
    etp_jw_raw_text(w, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            etp_jw_raw_text(w, "\"\"", 2);
        else
            etp_jw_raw_text(w, p, 1);
    }
    etp_jw_raw_text(w, "\"", 1);
}

static void csv_sep(etp_jw *w) { etp_jw_raw_text(w, ",", 1); }

static void csv_num(etp_jw *w, double v, int present)
{
    if (!present)
        return;
    char b[40];
    int n = etp_format_double(b, sizeof b, v);
    etp_jw_raw_text(w, b, (size_t)n);
}

static void csv_uint(etp_jw *w, uint64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    etp_jw_raw_text(w, b, (size_t)n);
}

static void csv_handles(etp_jw *w, const int64_t *h, uint32_t n)
{
    char buf[32];
    for (uint32_t i = 0; i < n; i++) {
        int l = snprintf(buf, sizeof buf, "%s%lld", i ? " " : "", (long long)h[i]);
        etp_jw_raw_text(w, buf, (size_t)l);
    }
}

/* Several ids in one field, separated by spaces, quoted as one field: quoting
 * each id separately would put quotes inside an unquoted field. */
static void csv_list(etp_jw *w, char *const *items, uint32_t n)
{
    size_t total = 1;
    for (uint32_t k = 0; k < n; k++)
        total += strlen(items[k]) + 1;
    char *joined = malloc(total);
    if (!joined) {
        w->failed = 1;
        return;
    }
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) {
        size_t l = strlen(items[k]);
        if (k)
            joined[at++] = ' ';
        memcpy(joined + at, items[k], l);
        at += l;
    }
    joined[at] = 0;
    csv_field(w, joined);
    free(joined);
}

char *etp_operators_csv(const etp_analysis *a, size_t *len)
{
    const char *u = etp_unit_name(a->target_unit);
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    char hdr[800];
    snprintf(hdr, sizeof hdr,
             "entity_id,kind,name,op_type,backend,chain,instruction,instruction_kind,debug_handles,"
             "timing_source,executions,events,avg_%s,p10_%s,p50_%s,p90_%s,min_%s,max_%s,additive,"
             "shared,co_attributed,unresolved_debug_handles,kernel_avg_%s,dispatch_avg_%s,"
             "module_path\r\n",
             u, u, u, u, u, u, u, u);
    etp_jw_raw_text(&w, hdr, strlen(hdr));
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        int timed = e->time.executions > 0;
        csv_field(&w, e->id);
        csv_sep(&w);
        csv_field(&w, etp_entity_kind_name(e->kind));
        csv_sep(&w);
        csv_field(&w, e->name);
        csv_sep(&w);
        csv_field(&w, e->op_type);
        csv_sep(&w);
        csv_field(&w, e->backend);
        csv_sep(&w);
        if (e->kind != ETP_ENTITY_OPERATOR) {
            csv_uint(&w, (uint64_t)e->chain);
            csv_sep(&w);
            csv_uint(&w, (uint64_t)e->instruction);
            csv_sep(&w);
            csv_field(&w, e->instr_kind == ETP_INSTR_NONE ? NULL : etp_instr_kind_name(e->instr_kind));
        } else {
            csv_sep(&w);
            csv_sep(&w);
        }
        csv_sep(&w);
        csv_handles(&w, e->handles, e->handle_count);
        csv_sep(&w);
        csv_field(&w, timed ? etp_timing_source_name(e->source) : NULL);
        csv_sep(&w);
        csv_uint(&w, e->time.executions);
        csv_sep(&w);
        csv_uint(&w, e->time.events);
        const etp_stats *s = &e->time.stats;
        double v[6] = {s->avg, s->p10, s->p50, s->p90, s->min, s->max};
        for (int k = 0; k < 6; k++) {
            csv_sep(&w);
            csv_num(&w, v[k], timed);
        }
        csv_sep(&w);
        if (timed)
            csv_field(&w, e->additive ? "true" : "false");
        csv_sep(&w);
        if (timed)
            csv_field(&w, e->shared ? "true" : "false");
        csv_sep(&w);
        csv_list(&w, e->co_attributed, e->co_count);
        csv_sep(&w);
        csv_handles(&w, e->unresolved, e->unresolved_count);
        csv_sep(&w);
        csv_num(&w, e->kernel.stats.avg, e->has_kernel && e->kernel.executions);
        csv_sep(&w);
        csv_num(&w, e->dispatch.avg, e->has_kernel && e->dispatch.n);
        csv_sep(&w);
        csv_field(&w, e->module_path);
        etp_jw_raw_text(&w, "\r\n", 2);
    }
    return etp_jw_take(&w, len);
}

char *etp_operators_json(const etp_analysis *a, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_OPERATORS_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(&w, "method", a->method);
    etp_jw_kuint(&w, "executions", a->execution_count);
    etp_jw_key(&w, "entities");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->entity_count; i++)
        etp_json_entity(&w, a, &a->entities[i]);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

/* ---- run_metadata.json ----------------------------------------------------- */

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(out, n, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static void input_entry(etp_jw *w, const char *role, const char *path)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "role", role);
    etp_jw_kstr(w, "path", path);
    const char *slash = strrchr(path, '/');
    etp_jw_kstr(w, "name", slash ? slash + 1 : path);
    char hex[ETP_SHA256_HEX];
    uint64_t size = 0;
    FILE *f = fopen(path, "rb");
    if (f && etp_sha256_fd(fileno(f), hex, &size) == 0) {
        etp_jw_kuint(w, "size_bytes", size);
        etp_jw_kstr(w, "sha256", hex);
    }
    if (f)
        fclose(f);
}

char *etp_run_metadata_json(const etp_analysis *a, const etp_publish_options *po, const char *run_id,
                            const char *timestamp)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_RUN_METADATA_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "run_id", run_id);
    etp_jw_kstr(&w, "timestamp", timestamp);
    etp_jw_key(&w, "tool");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "name", "etprof");
    etp_jw_kstr(&w, "version", ETP_VERSION);
    etp_jw_obj_end(&w);
    etp_jw_kstr(&w, "command_line", po->command_line);
    etp_jw_key(&w, "options");
    if (po->options_json)
        etp_jw_raw(&w, po->options_json, strlen(po->options_json));
    else
        etp_jw_null(&w);
    struct utsname un;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    etp_jw_key(&w, "host");
    etp_jw_obj_begin(&w);
    if (uname(&un) == 0) {
        etp_jw_kstr(&w, "os", un.sysname);
        etp_jw_kstr(&w, "os_release", un.release);
        etp_jw_kstr(&w, "machine", un.machine);
    }
    etp_jw_kstr(&w, "cpu", cpu);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "inputs");
    etp_jw_arr_begin(&w);
    /* The ETDump, with what it says about itself. */
    input_entry(&w, "etdump", po->etdump_path);
    etp_jw_key(&w, "describes");
    etp_jw_obj_begin(&w);
    etp_jw_kuint(&w, "etdump_schema_version", etp_etdump_version(a->etdump));
    etp_jw_kuint(&w, "blocks", etp_etdump_run_count(a->etdump));
    etp_jw_kuint(&w, "executions_of_method", a->execution_count);
    etp_jw_obj_end(&w);
    etp_jw_obj_end(&w);
    if (po->pte_path && a->program) {
        const etp_program *p = a->program;
        input_entry(&w, "pte", po->pte_path);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kbool(&w, "bundled_program", p->bundled);
        etp_jw_kuint(&w, "program_version", p->version);
        etp_jw_key(&w, "methods");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < p->plan_count; i++)
            etp_jw_str(&w, p->plans[i].name);
        etp_jw_arr_end(&w);
        etp_jw_key(&w, "backends");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < p->plan_count; i++)
            for (uint32_t k = 0; k < p->plans[i].delegate_count; k++) {
                const char *id = p->plans[i].delegates[k].id;
                int dup = 0;
                for (uint32_t i2 = 0; i2 <= i && !dup; i2++)
                    for (uint32_t k2 = 0; k2 < (i2 == i ? k : p->plans[i2].delegate_count) && !dup; k2++)
                        dup = id && p->plans[i2].delegates[k2].id && !strcmp(id, p->plans[i2].delegates[k2].id);
                if (!dup)
                    etp_jw_str(&w, id);
            }
        etp_jw_arr_end(&w);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    if (po->etrecord_path && a->etrecord) {
        const etp_etrecord *r = a->etrecord;
        input_entry(&w, "etrecord", po->etrecord_path);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "layout", r->layout);
        etp_jw_key(&w, "methods");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < r->method_count; i++)
            etp_jw_str(&w, r->methods[i].method);
        etp_jw_arr_end(&w);
        const etp_exported_program *ep = etp_etrecord_edge_program(r, a->method);
        etp_jw_kstr(&w, "exported_program_schema_version", ep ? ep->schema_version : NULL);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    if (po->log_path && a->runner_log) {
        const etp_runner_log *l = a->runner_log;
        input_entry(&w, "log", po->log_path);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "method", l->method);
        etp_jw_kuint(&w, "iterations", l->iteration_count);
        etp_jw_kstr(&w, "etdump_name", l->etdump_name);
        etp_jw_kuint(&w, "planned_memory_bytes", l->planned_bytes);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

/* ---- manifest members from the analysis --------------------------------- */

static char *issues_json(const etp_analysis *a)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_json_issues(&w, &a->issues);
    return etp_jw_take(&w, NULL);
}

static char *comparability_json(const etp_analysis *a, const etp_publish_options *po)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "method", a->method);
    etp_jw_key(&w, "program_sha256");
    char hex[ETP_SHA256_HEX];
    FILE *f = po->pte_path ? fopen(po->pte_path, "rb") : NULL;
    if (f && etp_sha256_fd(fileno(f), hex, NULL) == 0)
        etp_jw_str(&w, hex);
    else
        etp_jw_null(&w);
    if (f)
        fclose(f);
    etp_jw_key(&w, "backends");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (!strncmp(a->figures[i].name, "delegate_time:", 14))
            etp_jw_str(&w, a->figures[i].name + 14);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "units");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "etdump_ticks", etp_unit_name(a->source_unit));
    etp_jw_kstr(&w, "time", etp_unit_name(a->target_unit));
    etp_jw_obj_end(&w);
    etp_jw_kuint(&w, "etdump_schema_version", etp_etdump_version(a->etdump));
    etp_jw_key(&w, "program_version");
    if (a->program)
        etp_jw_uint(&w, a->program->version);
    else
        etp_jw_null(&w);
    etp_jw_kint(&w, "summary_schema_version", 1);
    etp_jw_kstr(&w, "tool_version", ETP_VERSION);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

/* ---- the bundle ------------------------------------------------------------ */

static etp_status write_text(etp_bundle *b, const char *rel, char *text, size_t len, const char *media,
                             const char *role, const char *schema, etp_error *err)
{
    if (!text)
        return nomem(err);
    etp_status s = etp_bundle_write(b, rel, text, len ? len : strlen(text), media, role, schema,
                                    schema ? 1 : 0, err);
    free(text);
    return s;
}

etp_status etp_publish(const etp_analysis *a, const etp_publish_options *po, char **summary_out,
                       etp_error *err)
{
    etp_bundle *b = NULL;
    etp_status s = etp_bundle_begin(po->dir, &b, err);
    if (s)
        return s;
    if (po->run_id || po->timestamp)
        s = etp_bundle_set_identity(b, po->run_id, po->timestamp, err);
    if (!s)
        s = etp_bundle_add_input(b, "etdump", po->etdump_path, err);
    if (!s && po->pte_path)
        s = etp_bundle_add_input(b, "pte", po->pte_path, err);
    if (!s && po->etrecord_path)
        s = etp_bundle_add_input(b, "etrecord", po->etrecord_path, err);
    if (!s && po->log_path)
        s = etp_bundle_add_input(b, "log", po->log_path, err);
    char *summary = NULL;
    if (!s) {
        summary = etp_summary_json(a);
        if (!summary)
            s = nomem(err);
        else
            s = etp_bundle_write(b, "summary.json", summary, strlen(summary), "application/json",
                                 "core", ETP_SUMMARY_SCHEMA, 1, err);
    }
    size_t len = 0;
    if (!s && po->operators_csv) {
        char *t = etp_operators_csv(a, &len);
        s = write_text(b, "operators.csv", t, len, "text/csv", "core", NULL, err);
    } else if (!s) {
        char *t = etp_operators_json(a, &len);
        s = write_text(b, "operators.json", t, len, "application/json", "core", ETP_OPERATORS_SCHEMA, err);
    }
    if (!s)
        s = write_text(b, "run_metadata.json",
                       etp_run_metadata_json(a, po, etp_bundle_run_id(b), etp_bundle_timestamp(b)), 0,
                       "application/json", "core", ETP_RUN_METADATA_SCHEMA, err);
    if (!s && po->detailed)
        s = etp_publish_detailed(b, a, err);
    if (!s && po->model_explorer)
        s = etp_publish_model_explorer(b, a, po, err);
    if (!s) {
        etp_bundle_set_status(b, "complete", etp_validity_name(a->validity));
        char *iss = issues_json(a), *cmp = comparability_json(a, po);
        if (!iss || !cmp)
            s = nomem(err);
        if (!s)
            s = etp_bundle_set_json(b, "issues", iss, err);
        if (!s)
            s = etp_bundle_set_json(b, "comparability", cmp, err);
        free(iss);
        free(cmp);
    }
    if (!s && po->options_json)
        s = etp_bundle_set_options(b, po->options_json, err);
    if (!s)
        s = etp_bundle_commit(b, err);
    etp_bundle_free(b);
    if (s || !summary_out)
        free(summary);
    else
        *summary_out = summary;
    return s;
}
