/* history_demo.c - a run history built in memory, written through
 * etprof/history_io.h, for the scenario tests (tests/history_check.py) and
 * for people to look at.
 *
 *   history_demo WHAT OUT [--devices D] [--points P] [--executions E]
 *                         [--hostile] [--metrics M]
 *
 * WHAT: page, trend-json, trend-csv, regressions-json, regressions-text,
 * runs-json, runs-csv, runs-text, csv, jsonl, pytorch-v3. OUT: a file, or
 * "-" for standard output.
 *
 * The history: D devices (default 3) x M metrics (default 2: method_execute
 * avg in ms, and a memory figure in bytes), P points each (default 40),
 * hourly from 2025-01-01; device 0's Method::execute steps up by 25% four
 * runs before the end, device 1's memory creeps by 1% a run over the last
 * 20 runs, device 2 stays flat with 3% noise. --executions E gives every
 * point E per-execution samples. --hostile gives every point labels with
 * quotes, a <script> element, a semicolon, bytes that are not UTF-8 and a
 * 10 kB value. Each point is also one run (runs-* and the exports), its
 * metrics the series' values at that point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/history.h"
#include "etprof/history_io.h"
#include "gen/gen_series.h"

typedef struct demo {
    uint32_t devices, points, executions, metrics;
    int hostile;
    gen_history h;
    etp_history_series *s;
    uint32_t n;
    char *big;                    /* the 10 kB label value */
} demo;

static const char *const DEVICES[] = {"pixel7", "galaxy-s24", "rpi5", "iphone15", "jetson"};

static int build(demo *d)
{
    gen_history_init(&d->h);
    for (uint32_t dev = 0; dev < d->devices; dev++)
        for (uint32_t m = 0; m < d->metrics; m++) {
            etp_history_label group[2] = {{"device", DEVICES[dev % 5]}, {"model", "mobilenet_v2"}};
            char devname[32];
            if (dev >= 5) {
                snprintf(devname, sizeof devname, "%s-%u", DEVICES[dev % 5], dev / 5);
                group[0].value = devname;
            }
            gen_series_spec sp;
            memset(&sp, 0, sizeof sp);
            sp.group = group;
            sp.group_count = 2;
            sp.points = d->points;
            sp.seed = 1000 * dev + m + 1;
            sp.first_run = 1 + (int64_t)dev * d->points;
            sp.executions = d->executions;
            sp.execution_noise_pct = 2;
            if (m % 2 == 0) {
                sp.metric = "method_execute.avg";
                sp.unit = "ms";
                sp.level = 12.5 + 3 * dev;
                sp.noise_pct = dev % 3 == 2 ? 3 : 0.8;
                if (dev % 3 == 0 && d->points > 8) {
                    sp.step_at = d->points - 4;
                    sp.step_factor = 1.25;
                }
            } else {
                sp.metric = "memory.planned";
                sp.unit = "bytes";
                sp.level = 4.0e6 + 1.0e5 * dev;
                sp.noise_pct = 0.2;
                sp.executions = 0; /* the creep is added below: only the last 20 runs */
            }
            if (gen_history_add(&d->h, &sp) < 0)
                return -1;
            etp_history_series *all = gen_history_all(&d->h, &d->n);
            etp_history_series *s = &all[d->n - 1];
            if (m % 2 == 1 && dev % 3 == 1 && d->points > 20)
                for (uint32_t p = d->points - 20; p < d->points; p++)
                    s->points[p].value *= 1.0 + 0.01 * (p - (d->points - 20) + 1);
        }
    d->s = gen_history_all(&d->h, &d->n);
    if (!d->hostile)
        return 0;
    /* Hostile labels, on every point: the same bytes must come back. */
    d->big = malloc(10241);
    if (!d->big)
        return -1;
    for (int i = 0; i < 10240; i++)
        d->big[i] = "ab\"<>;'&\\"[i % 9];
    d->big[10240] = '\0';
    static const char bad_utf8[] = "caf\xe9 \xff\xfe \xc3\xa9t\xc3\xa9";
    for (uint32_t i = 0; i < d->n; i++)
        for (uint32_t p = 0; p < d->s[i].point_count; p++) {
            etp_history_point *pt = &d->s[i].points[p];
            uint32_t n = pt->label_count;
            etp_history_label *l = gen_alloc(&d->h.arena, (n + 4) * sizeof *l);
            if (!l)
                return -1;
            /* Sorted by key: "a_big", "b_quote", ... come before the
             * conventional keys. */
            l[0] = (etp_history_label){"a_big", d->big};
            l[1] = (etp_history_label){"b_quote", "it's \"quoted\"; DROP TABLE runs; --"};
            l[2] = (etp_history_label){"c_script", "</script><script>alert(1)</script><b>x</b>&amp;"};
            l[3] = (etp_history_label){"d_bytes", bad_utf8};
            memcpy(l + 4, pt->labels, n * sizeof *l);
            pt->labels = l;
            pt->label_count = n + 4;
        }
    return 0;
}

/* Every point as a run with its series' metrics at that point (series of
 * one device share their points' runs). */
static etp_status export_runs(demo *d, etp_history_export *x, etp_error *err)
{
    uint32_t per_dev = d->metrics;
    etp_history_metric *m = calloc(per_dev, sizeof *m);
    if (!m)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_status st = ETP_OK;
    for (uint32_t dev = 0; !st && dev < d->devices; dev++)
        for (uint32_t p = 0; !st && p < d->points; p++) {
            const etp_history_series *s0 = &d->s[dev * per_dev];
            const etp_history_point *pt = &s0->points[p];
            etp_history_run r = {.run = pt->run, .run_id = pt->run_id,
                                 .manifest_sha256 = "5d41402abc4b2a76b9719d911017c592aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                 .published_ms = pt->published_ms, .tool_version = "0.1.0",
                                 .validity = "valid", .method = "forward",
                                 .program_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                                 .time_unit = "ms", .executions = pt->samples, .detailed = pt->sample_count > 0,
                                 .bundle = "/tmp/fleet/run", .label_count = pt->label_count, .labels = pt->labels};
            for (uint32_t k = 0; k < per_dev; k++) {
                const etp_history_series *s = &d->s[dev * per_dev + k];
                m[k] = (etp_history_metric){.name = s->metric, .value = s->points[p].value, .unit = s->unit,
                                            .aggregation = k % 2 ? "planned" : "mean over executions",
                                            .additive = 0, .samples = s->points[p].samples,
                                            .sample_count = s->points[p].sample_count,
                                            .execution_values = s->points[p].execution_values};
            }
            st = etp_history_export_run(x, &r, m, per_dev, err);
        }
    free(m);
    return st;
}

static etp_history_run *runs_of(demo *d, uint32_t *n)
{
    *n = d->devices * d->points;
    etp_history_run *r = calloc(*n + 1, sizeof *r);
    for (uint32_t dev = 0; r && dev < d->devices; dev++)
        for (uint32_t p = 0; p < d->points; p++) {
            const etp_history_point *pt = &d->s[dev * d->metrics].points[p];
            r[dev * d->points + p] = (etp_history_run){
                .run = pt->run, .run_id = pt->run_id, .manifest_sha256 = "00ff", .published_ms = pt->published_ms,
                .tool_version = "0.1.0", .validity = "valid", .method = "forward", .program_sha256 = "",
                .time_unit = "ms", .executions = pt->samples, .detailed = pt->sample_count > 0,
                .bundle = "b", .label_count = pt->label_count, .labels = pt->labels};
        }
    return r;
}

/* Write @p text (its length in *@p len, set by the call that made it). */
static int emit(FILE *fp, char *text, const size_t *plen)
{
    size_t len = *plen;
    if (!text) {
        fprintf(stderr, "history_demo: out of memory\n");
        return 1;
    }
    int bad = fwrite(text, 1, len, fp) != len;
    free(text);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: history_demo WHAT OUT [--devices D] [--points P] [--executions E] "
                        "[--metrics M] [--hostile]\n");
        return 2;
    }
    demo d = {.devices = 3, .points = 40, .metrics = 2};
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--hostile"))
            d.hostile = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--devices"))
            d.devices = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--points"))
            d.points = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--executions"))
            d.executions = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--metrics"))
            d.metrics = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "history_demo: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!d.devices || !d.metrics || build(&d)) {
        fprintf(stderr, "history_demo: cannot build the history\n");
        return 1;
    }
    const char *what = argv[1];
    FILE *fp = strcmp(argv[2], "-") ? fopen(argv[2], "wb") : stdout;
    if (!fp) {
        perror(argv[2]);
        return 1;
    }
    etp_regression *v = calloc(d.n + 1, sizeof *v);
    etp_error err;
    etp_error_clear(&err);
    int rc = 0;
    for (uint32_t i = 0; v && i < d.n; i++)
        if (etp_regression_classify(&d.s[i], NULL, &v[i], &err))
            rc = 1;
    size_t len = 0;
    uint32_t nr = 0;
    etp_history_export_format f;
    if (!v || rc) {
        rc = 1;
    } else if (!strcmp(what, "page")) {
        rc = emit(fp, etp_history_trend_html(d.s, d.n, v, d.hostile ? "trend </title><script>alert(1)</script>" : NULL,
                                             &len), &len);
    } else if (!strcmp(what, "trend-json")) {
        rc = emit(fp, etp_history_trend_json(d.s, d.n, v, &len), &len);
    } else if (!strcmp(what, "trend-csv")) {
        rc = emit(fp, etp_history_trend_csv(d.s, d.n, &len), &len);
    } else if (!strcmp(what, "regressions-json")) {
        rc = emit(fp, etp_history_regressions_json(d.s, v, d.n, NULL, &len), &len);
    } else if (!strcmp(what, "regressions-text")) {
        rc = etp_history_regressions_text(d.s, v, d.n, fp, &err) != ETP_OK;
    } else if (!strncmp(what, "runs-", 5)) {
        etp_history_run *r = runs_of(&d, &nr);
        if (!r)
            rc = 1;
        else if (!strcmp(what + 5, "json"))
            rc = emit(fp, etp_history_runs_json(r, nr, &len), &len);
        else if (!strcmp(what + 5, "csv"))
            rc = emit(fp, etp_history_runs_csv(r, nr, &len), &len);
        else if (!strcmp(what + 5, "text"))
            rc = etp_history_runs_text(r, nr, fp, &err) != ETP_OK;
        else
            rc = 2;
        free(r);
    } else if (!etp_history_export_format_parse(what, &f)) {
        etp_history_export *x;
        etp_status st = etp_history_export_begin(fp, f, &x, &err);
        if (!st)
            st = export_runs(&d, x, &err);
        etp_status end = etp_history_export_end(x, st ? NULL : &err);
        rc = st || end;
    } else {
        fprintf(stderr, "history_demo: unknown output %s\n", what);
        rc = 2;
    }
    if (rc == 1) {
        char line[1200];
        fprintf(stderr, "history_demo: %s\n", etp_error_format(&err, line, sizeof line));
    }
    if (fp != stdout && fclose(fp))
        rc = 1;
    free(v);
    free(d.big);
    gen_history_free(&d.h);
    return rc;
}
