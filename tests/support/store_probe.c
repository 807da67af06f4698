/* store_probe.c - the run-history store's query API on the command line, for
 * the scenario tests (tests/store_check.py), which run the same checks
 * against SQLite and PostgreSQL:
 *
 *   store_probe TARGET series [--metric M] [--stat S] [--entity K]
 *               [--group-by KEY]... [--order-by LABEL] [--where K=V]...
 *               [--since-ms MS] [--include-invalid] [--no-samples]
 *   store_probe TARGET export [--where K=V]... [--since-ms MS]
 *   store_probe TARGET runs [--where K=V]...
 *   store_probe TARGET time-series REPEAT --metric M ...   (ms per query, best of REPEAT)
 *
 * Output: one JSON document (labels and other bytes that are not UTF-8 as
 * {"base64": ...}). Exit 0, or 1 with the library's one-line error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etprof/store.h"
#include "util/jsonw.h"
#include "util/jsonw_bytes.h"

static void labels(etp_jw *w, const char *key, const etp_history_label *l, uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_obj_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_key(w, l[i].key);
        etp_jw_bytes(w, l[i].value);
    }
    etp_jw_obj_end(w);
}

static void run_json(etp_jw *w, const etp_history_run *r)
{
    etp_jw_kint(w, "run", r->run);
    etp_jw_kstr(w, "run_id", r->run_id);
    etp_jw_kstr(w, "manifest_sha256", r->manifest_sha256);
    etp_jw_kint(w, "published_ms", r->published_ms);
    etp_jw_kstr(w, "tool_version", r->tool_version);
    etp_jw_kstr(w, "validity", r->validity);
    etp_jw_kstr(w, "method", r->method);
    etp_jw_kstr(w, "program_sha256", r->program_sha256);
    etp_jw_kstr(w, "unit", r->time_unit);
    etp_jw_kuint(w, "executions", r->executions);
    etp_jw_kbool(w, "detailed", r->detailed);
    etp_jw_key(w, "bundle");
    etp_jw_bytes(w, r->bundle);
    labels(w, "labels", r->labels, r->label_count);
}

static void values(etp_jw *w, const double *v, uint32_t n)
{
    etp_jw_key(w, "execution_values");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_double(w, v[i]);
    etp_jw_arr_end(w);
}

static etp_status export_run(void *ctx, const etp_history_run *r, const etp_history_metric *m,
                             uint32_t n, etp_error *err)
{
    (void)err;
    etp_jw *w = ctx;
    etp_jw_obj_begin(w);
    run_json(w, r);
    etp_jw_key(w, "metrics");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", m[i].name);
        etp_jw_kdouble(w, "value", m[i].value);
        etp_jw_kstr(w, "unit", m[i].unit);
        etp_jw_kstr(w, "aggregation", m[i].aggregation);
        etp_jw_kbool(w, "additive", m[i].additive);
        etp_jw_kuint(w, "samples", m[i].samples);
        if (m[i].sample_count)
            values(w, m[i].execution_values, m[i].sample_count);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
    return ETP_OK;
}

static void series_json(etp_jw *w, const etp_history_series_set *set)
{
    etp_jw_obj_begin(w);
    etp_jw_key(w, "series");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < set->count; i++) {
        const etp_history_series *s = &set->series[i];
        etp_jw_obj_begin(w);
        etp_jw_key(w, "key");
        etp_jw_bytes(w, s->key);
        labels(w, "group", s->group, s->group_count);
        etp_jw_kstr(w, "metric", s->metric);
        etp_jw_kstr(w, "entity", s->entity);
        etp_jw_kstr(w, "unit", s->unit);
        etp_jw_kbool(w, "lower_is_better", s->lower_is_better);
        etp_jw_key(w, "points");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < s->point_count; k++) {
            const etp_history_point *p = &s->points[k];
            etp_jw_obj_begin(w);
            etp_jw_kint(w, "run", p->run);
            etp_jw_kstr(w, "run_id", p->run_id);
            etp_jw_kint(w, "published_ms", p->published_ms);
            etp_jw_kdouble(w, "order", p->order);
            etp_jw_kdouble(w, "value", p->value);
            etp_jw_kuint(w, "samples", p->samples);
            labels(w, "labels", p->labels, p->label_count);
            if (p->sample_count)
                values(w, p->execution_values, p->sample_count);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: store_probe TARGET series|export|runs|time-series [options]\n");
        return 2;
    }
    const char *target = argv[1], *verb = argv[2];
    int repeat = 0, first = 3;
    if (!strcmp(verb, "time-series")) {
        if (argc < 4)
            return 2;
        repeat = atoi(argv[3]);
        first = 4;
    }
    etp_store_series_query q;
    memset(&q, 0, sizeof q);
    etp_history_label where[64];
    const char *group_by[32];
    char *copies[64];
    int ncopies = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--include-invalid")) {
            q.include_invalid = 1;
            continue;
        }
        if (!strcmp(a, "--no-samples")) {
            q.no_samples = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "store_probe: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--metric"))
            q.metric = v;
        else if (!strcmp(a, "--stat"))
            q.stat = v;
        else if (!strcmp(a, "--entity"))
            q.entity = v;
        else if (!strcmp(a, "--order-by"))
            q.order_by = v;
        else if (!strcmp(a, "--group-by") && q.group_by_count < 32)
            group_by[q.group_by_count++] = v;
        else if (!strcmp(a, "--since-ms")) {
            q.filter.has_since = 1;
            q.filter.since_ms = strtoll(v, NULL, 10);
        } else if (!strcmp(a, "--where") && strchr(v, '=') && q.filter.where_count < 64) {
            char *c = strdup(v);
            copies[ncopies++] = c;
            *strchr(c, '=') = '\0';
            where[q.filter.where_count++] = (etp_history_label){c, c + strlen(c) + 1};
        } else {
            fprintf(stderr, "store_probe: unknown option %s\n", a);
            return 2;
        }
    }
    q.group_by = group_by;
    q.filter.where = where;
    etp_error err;
    etp_error_clear(&err);
    etp_store *s = NULL;
    etp_status st = etp_store_open(target, ETP_STORE_READ, &s, &err);
    etp_jw w;
    etp_jw_init_file(&w, stdout, 0);
    if (!st && !strcmp(verb, "series")) {
        etp_history_series_set *set = NULL;
        if (!(st = etp_store_series(s, &q, &set, &err)))
            series_json(&w, set);
        etp_history_series_free(set);
    } else if (!st && !strcmp(verb, "time-series")) {
        double best = 1e300;
        uint64_t points = 0;
        for (int r = 0; !st && r < repeat; r++) {
            etp_history_series_set *set = NULL;
            double t0 = now_ms();
            st = etp_store_series(s, &q, &set, &err);
            double t = now_ms() - t0;
            best = t < best ? t : best;
            points = 0;
            for (uint32_t i = 0; set && i < set->count; i++)
                points += set->series[i].point_count;
            etp_history_series_free(set);
        }
        if (!st) {
            etp_jw_obj_begin(&w);
            etp_jw_kdouble(&w, "best_ms", best);
            etp_jw_kuint(&w, "points", points);
            etp_jw_obj_end(&w);
        }
    } else if (!st && !strcmp(verb, "export")) {
        etp_jw_arr_begin(&w);
        st = etp_store_each_run(s, &q.filter, export_run, &w, &err);
        etp_jw_arr_end(&w);
    } else if (!st && !strcmp(verb, "runs")) {
        etp_store_runs *r = NULL;
        if (!(st = etp_store_list_runs(s, &q.filter, &r, &err))) {
            etp_jw_arr_begin(&w);
            for (uint32_t i = 0; i < r->count; i++) {
                etp_jw_obj_begin(&w);
                run_json(&w, &r->runs[i]);
                etp_jw_obj_end(&w);
            }
            etp_jw_arr_end(&w);
        }
        etp_store_runs_free(r);
    } else if (!st) {
        fprintf(stderr, "store_probe: unknown verb %s\n", verb);
        st = ETP_E_USAGE;
    }
    etp_jw_raw_text(&w, "\n", 1);
    etp_jw_finish(&w);
    if (st && err.message[0]) {
        char buf[1200];
        fprintf(stderr, "store_probe: %s\n", etp_error_format(&err, buf, sizeof buf));
    }
    etp_store_close(s);
    for (int i = 0; i < ncopies; i++)
        free(copies[i]);
    return st ? 1 : 0;
}
