/* hist_v3.c - one etprof metric as a record of PyTorch's OSS benchmark
 * database (`benchmark.oss_ci_benchmark_v3`, pytorch/test-infra's ClickHouse
 * schema; schemas/json/exports/pytorch_v3.schema.json; the mapping is documented in
 * docs/history.md, "Exports"). Every extra_info is a map of strings, as the
 * table's Map(String, String) columns need. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/history/hist_fields.h"
#include "outputs/history/hist_v3.h"
#include "util/str.h"

/* A label holding a decimal id (a CI run or job number), or 0: the table's
 * id columns are unsigned integers; the label stays in extra_info as text. */
static uint64_t label_id(const etp_history_run *r, const char *key)
{
    const char *v = hist_label(r->labels, r->label_count, key);
    if (!v || !*v || strlen(v) > 19)
        return 0;
    uint64_t n = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    return n;
}

static const char *label_or(const etp_history_run *r, const char *key, const char *fallback)
{
    const char *v = hist_label(r->labels, r->label_count, key);
    return v ? v : fallback;
}

static void kstr_num(etp_jw *w, const char *key, double v)
{
    char b[40];
    etp_format_double(b, sizeof b, v);
    etp_jw_kstr(w, key, b);
}

static void kstr_int(etp_jw *w, const char *key, int64_t v)
{
    char b[24];
    etp_format_int(b, v);
    etp_jw_kstr(w, key, b);
}

static void runner(etp_jw *w, const etp_history_run *r)
{
    const char *device = label_or(r, "device", "");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", device);
    etp_jw_kstr(w, "type", device);
    etp_jw_kstr(w, "cpu_info", label_or(r, "cpu", ""));
    etp_jw_kuint(w, "cpu_count", 0);
    etp_jw_kstr(w, "mem_info", "");
    etp_jw_kuint(w, "avail_mem_in_gb", 0);
    etp_jw_kstr(w, "gpu_info", "");
    etp_jw_kuint(w, "gpu_count", 0);
    etp_jw_kstr(w, "gpu_mem_info", "");
    etp_jw_kuint(w, "avail_gpu_mem_in_gb", 0);
    etp_jw_key(w, "extra_info");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

/* All labels as one JSON text (a Map(String, String) value). */
static void labels_text(etp_jw *w, const etp_history_run *r)
{
    char *t = hist_labels_text(r->labels, r->label_count);
    if (!t) {
        w->failed = 1;
        return;
    }
    etp_jw_kstr(w, "labels", t);
    free(t);
}

static void benchmark(etp_jw *w, const etp_history_run *r)
{
    char iso[32];
    hist_iso_time(r->published_ms, iso);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", "etprof");
    etp_jw_kstr(w, "mode", "inference");
    etp_jw_kstr(w, "dtype", label_or(r, "dtype", ""));
    etp_jw_key(w, "extra_info");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "method", r->method ? r->method : "");
    etp_jw_kstr(w, "validity", r->validity ? r->validity : "");
    etp_jw_kstr(w, "tool_version", r->tool_version ? r->tool_version : "");
    etp_jw_kstr(w, "run_id", r->run_id ? r->run_id : "");
    kstr_int(w, "run", r->run);
    etp_jw_kstr(w, "manifest_sha256", r->manifest_sha256 ? r->manifest_sha256 : "");
    etp_jw_kstr(w, "time_unit", r->time_unit ? r->time_unit : "");
    kstr_int(w, "executions", r->executions);
    etp_jw_kstr(w, "detailed", r->detailed ? "true" : "false");
    etp_jw_kstr(w, "published", iso);
    kstr_int(w, "published_ms", r->published_ms);
    labels_text(w, r);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void model(etp_jw *w, const etp_history_run *r)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", label_or(r, "model", ""));
    etp_jw_kstr(w, "type", label_or(r, "model_type", ""));
    etp_jw_kstr(w, "backend", label_or(r, "backend", ""));
    etp_jw_key(w, "origins");
    etp_jw_arr_begin(w);
    etp_jw_arr_end(w);
    etp_jw_key(w, "extra_info");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "program_sha256", r->program_sha256 ? r->program_sha256 : "");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void metric(etp_jw *w, const etp_history_metric *m)
{
    etp_jw_obj_begin(w);
    /* ExecuTorch's own records name the unit the same way:
     * "avg_inference_latency(ms)". */
    char *name = m->unit && *m->unit ? etp_strprintf("%s(%s)", m->name ? m->name : "", m->unit)
                                     : etp_strprintf("%s", m->name ? m->name : "");
    if (!name)
        w->failed = 1;
    etp_jw_kstr(w, "name", name ? name : "");
    free(name);
    etp_jw_key(w, "benchmark_values");
    etp_jw_arr_begin(w);
    if (m->execution_values && m->sample_count) {
        for (uint32_t i = 0; i < m->sample_count; i++)
            if (isfinite(m->execution_values[i]))
                etp_jw_double(w, m->execution_values[i]);
    } else if (isfinite(m->value)) {
        etp_jw_double(w, m->value);
    }
    etp_jw_arr_end(w);
    etp_jw_kdouble(w, "target_value", 0);
    etp_jw_key(w, "extra_info");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "metric", m->name ? m->name : "");
    if (isfinite(m->value))
        kstr_num(w, "value", m->value);
    etp_jw_kstr(w, "unit", m->unit ? m->unit : "");
    etp_jw_kstr(w, "aggregation", m->aggregation ? m->aggregation : "");
    etp_jw_kstr(w, "additive", m->additive ? "true" : "false");
    kstr_int(w, "samples", m->samples);
    etp_jw_kstr(w, "benchmark_values", m->execution_values && m->sample_count ? "executions" : "value");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void hist_v3_record(etp_jw *w, const etp_history_run *r, const etp_history_metric *m)
{
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "timestamp", r->published_ms > 0 ? (uint64_t)(r->published_ms / 1000) : 0);
    etp_jw_kstr(w, "schema_version", "v3");
    etp_jw_kstr(w, "name", label_or(r, "job", "etprof"));
    etp_jw_kstr(w, "repo", label_or(r, "repo", ""));
    etp_jw_kstr(w, "head_branch", label_or(r, "branch", ""));
    etp_jw_kstr(w, "head_sha", label_or(r, "commit", ""));
    etp_jw_kuint(w, "workflow_id", label_id(r, "build"));
    etp_jw_kuint(w, "run_attempt", label_id(r, "run_attempt"));
    etp_jw_kuint(w, "job_id", label_id(r, "job_id") ? label_id(r, "job_id") : label_id(r, "job"));
    etp_jw_key(w, "runners");
    etp_jw_arr_begin(w);
    runner(w, r);
    etp_jw_arr_end(w);
    etp_jw_key(w, "benchmark");
    benchmark(w, r);
    etp_jw_key(w, "model");
    model(w, r);
    etp_jw_key(w, "inputs");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_key(w, "dependencies");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_key(w, "metric");
    metric(w, m);
    etp_jw_obj_end(w);
}
