/* test_history_io.c - the run history's writers (etprof/history_io.h) on
 * records built here: exact bytes of the listings and exports, absent and
 * non-finite values, text that cannot drive a terminal, the pytorch-v3
 * mapping of labels to its columns, the page's data that cannot end its
 * script element, and a full disk reported as an I/O error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/history_io.h"
#include "testutil.h"

static const etp_history_label LABELS[] = {
    {"branch", "main"}, {"build", "98765"}, {"commit", "abc123"}, {"device", "pixel\"7,x"}, {"job", "bench 1"}};

static etp_history_run one_run(void)
{
    return (etp_history_run){.run = 7, .run_id = "r7", .manifest_sha256 = "aa", .published_ms = 1735689600123,
                             .tool_version = "0.1.0", .validity = "valid", .method = "forward",
                             .program_sha256 = "", .time_unit = "ms", .executions = 3, .detailed = 1,
                             .bundle = "out", .label_count = 5, .labels = LABELS};
}

static const double EXEC[] = {1.5, 2.5, 2.0};

static etp_history_metric one_metric(void)
{
    return (etp_history_metric){.name = "method_execute.avg", .value = 2.0, .unit = "ms",
                                .aggregation = "mean over executions", .additive = 0, .samples = 3,
                                .sample_count = 3, .execution_values = EXEC};
}

static char *export_text(etp_history_export_format f, const etp_history_metric *m, uint32_t n)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_history_export *x;
    etp_error err;
    etp_history_run r = one_run();
    assert_int_equal(etp_history_export_begin(fp, f, &x, &err), ETP_OK);
    assert_int_equal(etp_history_export_run(x, &r, m, n, &err), ETP_OK);
    assert_int_equal(etp_history_export_end(x, &err), ETP_OK);
    char *t = tu_stream_text(fp, NULL);
    fclose(fp);
    return t;
}

static void test_runs(void **state)
{
    (void)state;
    etp_history_run r = one_run();
    size_t len;
    char *csv = etp_history_runs_csv(&r, 1, &len);
    assert_string_equal(
        csv, "run,run_id,manifest_sha256,published,published_ms,tool_version,validity,method,program_sha256,"
             "time_unit,executions,detailed,bundle,label_device,label_commit,label_branch,label_model,"
             "label_backend,label_seq,labels\r\n"
             "7,r7,aa,2025-01-01T00:00:00.123Z,1735689600123,0.1.0,valid,forward,,ms,3,true,out,\"pixel\"\"7,x\","
             "abc123,main,,,,\"{\"\"branch\"\":\"\"main\"\",\"\"build\"\":\"\"98765\"\",\"\"commit\"\":\"\"abc123\"\","
             "\"\"device\"\":\"\"pixel\\\"\"7,x\"\",\"\"job\"\":\"\"bench 1\"\"}\"\r\n");
    assert_int_equal(len, strlen(csv));
    free(csv);
    char *json = etp_history_runs_json(&r, 1, &len);
    assert_non_null(strstr(json, "\"schema\": \"etprof.history-runs\""));
    assert_non_null(strstr(json, "\"published\": \"2025-01-01T00:00:00.123Z\""));
    assert_non_null(strstr(json, "\"device\": \"pixel\\\"7,x\""));
    assert_null(strstr(json, "label_device")); /* the flat columns are CSV's and the exports' */
    free(json);

    /* Text: control bytes and bytes that are not UTF-8 never reach the
     * terminal as they are; UTF-8 does. */
    etp_history_label evil[] = {{"device", "\x1b[31mred\x1b[0m \xff caf\xc3\xa9 \xc2\x9b"}};
    r.labels = evil;
    r.label_count = 1;
    FILE *fp = tmpfile();
    etp_error err;
    assert_int_equal(etp_history_runs_text(&r, 1, fp, &err), ETP_OK);
    char *t = tu_stream_text(fp, NULL);
    fclose(fp);
    assert_non_null(strstr(t, "device=\\x1b[31mred\\x1b[0m \\xff caf\xc3\xa9 \\xc2\\x9b / r7\n"));
    assert_non_null(strstr(t, "1 run\n"));
    assert_non_null(strstr(t, "2025-01-01T00:00:00.123Z"));
    free(t);
}

static void test_exports(void **state)
{
    (void)state;
    etp_history_metric m[2] = {one_metric(), one_metric()};
    m[1].name = "memory.planned";
    m[1].unit = "bytes";
    m[1].value = NAN;
    m[1].sample_count = 0;
    m[1].execution_values = NULL;
    char *csv = export_text(ETP_HISTORY_EXPORT_CSV, m, 2);
    /* Header, then one row per metric; NaN is an empty cell. */
    const char *row2 = strstr(csv, "memory.planned");
    assert_non_null(row2);
    assert_non_null(strstr(row2, "memory.planned,,bytes,mean over executions,false,3,0,[]\r\n"));
    assert_non_null(strstr(csv, "method_execute.avg,2.0,ms,mean over executions,false,3,3,\"[1.5,2.5,2.0]\"\r\n"));
    free(csv);
    char *jl = export_text(ETP_HISTORY_EXPORT_JSONL, m, 2);
    char *nl = strchr(jl, '\n');
    assert_non_null(nl);
    assert_non_null(strchr(nl + 1, '\n'));
    assert_non_null(strstr(jl, "\"value\":null,\"unit\":\"bytes\""));
    assert_non_null(strstr(jl, "\"execution_values\":[1.5,2.5,2.0]}\n"));
    free(jl);

    /* pytorch-v3: labels to their columns; a numeric build label is the
     * workflow id, a job that is not a number leaves job_id 0 and names
     * the record. */
    char *v3 = export_text(ETP_HISTORY_EXPORT_PYTORCH_V3, m, 1);
    static const char head[] =
        "{\"timestamp\":1735689600,\"schema_version\":\"v3\",\"name\":\"bench 1\",\"repo\":\"\","
        "\"head_branch\":\"main\",\"head_sha\":\"abc123\",\"workflow_id\":98765,\"run_attempt\":0,"
        "\"job_id\":0,\"runners\":[{\"name\":\"pixel\\\"7,x\",\"type\":\"pixel\\\"7,x\"";
    assert_true(!strncmp(v3, head, sizeof head - 1));
    assert_non_null(strstr(v3, "\"metric\":{\"name\":\"method_execute.avg(ms)\",\"benchmark_values\":[1.5,2.5,2.0],"
                               "\"target_value\":0.0,\"extra_info\":{\"metric\":\"method_execute.avg\","
                               "\"value\":\"2.0\",\"unit\":\"ms\""));
    free(v3);
    /* Without samples the value is the one benchmark value; a NaN value
     * gives none. */
    m[0].execution_values = NULL;
    m[0].sample_count = 0;
    v3 = export_text(ETP_HISTORY_EXPORT_PYTORCH_V3, m, 2);
    assert_non_null(strstr(v3, "\"benchmark_values\":[2.0]"));
    assert_non_null(strstr(v3, "\"benchmark_values\":[],"));
    free(v3);

    etp_history_export_format f;
    assert_int_equal(etp_history_export_format_parse("pytorch-v3", &f), 0);
    assert_int_equal(f, ETP_HISTORY_EXPORT_PYTORCH_V3);
    assert_int_equal(etp_history_export_format_parse("jsonl", &f), 0);
    assert_int_equal(f, ETP_HISTORY_EXPORT_JSONL);
    assert_int_equal(etp_history_export_format_parse("parquet", &f), -1);
    etp_history_export *x;
    etp_error err;
    assert_int_equal(etp_history_export_begin(stdout, (etp_history_export_format)9, &x, &err), ETP_E_USAGE);
    assert_null(x);
    assert_int_equal(etp_history_export_end(NULL, &err), ETP_OK);
}

/* A full disk is an I/O error naming the export, at the latest when it ends. */
static void test_full_disk(void **state)
{
    (void)state;
    FILE *fp = fopen("/dev/full", "w");
    if (!fp)
        skip();
    etp_history_export *x;
    etp_error err;
    etp_history_run r = one_run();
    etp_history_metric m = one_metric();
    assert_int_equal(etp_history_export_begin(fp, ETP_HISTORY_EXPORT_JSONL, &x, &err), ETP_OK);
    etp_status st = ETP_OK;
    for (int i = 0; i < 2000 && !st; i++)
        st = etp_history_export_run(x, &r, &m, 1, &err);
    etp_status end = etp_history_export_end(x, &err);
    assert_true(st == ETP_E_IO || end == ETP_E_IO);
    assert_non_null(strstr(err.message, "cannot write the export"));
    fclose(fp);
    fp = fopen("/dev/full", "w");
    assert_int_equal(etp_history_export_begin(fp, ETP_HISTORY_EXPORT_CSV, &x, &err), ETP_OK);
    st = ETP_OK;
    for (int i = 0; i < 2000 && !st; i++)
        st = etp_history_export_run(x, &r, &m, 1, &err);
    end = etp_history_export_end(x, &err);
    assert_true(st == ETP_E_IO || end == ETP_E_IO);
    fclose(fp);
}

static etp_history_point POINTS[12];

static etp_history_series small_series(void)
{
    for (int i = 0; i < 12; i++)
        POINTS[i] = (etp_history_point){.run = i + 1, .run_id = "r", .published_ms = -1500 + i * 1000,
                                        .order = i, .value = i == 3 ? NAN : 10.0 + (i >= 10),
                                        .samples = 1, .label_count = 5, .labels = LABELS};
    return (etp_history_series){.key = "device=x", .metric = "m.avg", .entity = NULL, .unit = "ms",
                                .lower_is_better = 1, .point_count = 12, .points = POINTS};
}

static void test_trend_and_verdicts(void **state)
{
    (void)state;
    etp_history_series s = small_series();
    size_t len;
    char *csv = etp_history_trend_csv(&s, 1, &len);
    /* Times before 1970 are still times; a NaN value is an empty cell; a
     * series without entity has an empty entity cell; numbers in their
     * shortest exact form (util/csvw.h). */
    assert_non_null(strstr(csv, "\r\ndevice=x,m.avg,,ms,true,{},1,r,1969-12-31T23:59:58.500Z,-1500,0.0,1e+01,"));
    assert_non_null(strstr(csv, ",1969-12-31T23:59:59.500Z,-500,1.0,1e+01,"));
    assert_non_null(strstr(csv, ",4,r,1970-01-01T00:00:01.500Z,1500,3.0,,1,0,"));
    free(csv);
    etp_regression v;
    etp_error err;
    etp_regression_options o;
    etp_regression_options_init(&o);
    o.window = 2;
    assert_int_equal(etp_regression_classify(&s, &o, &v, &err), ETP_OK);
    assert_int_equal(v.verdict, ETP_REGRESSION_REGRESSION);
    char *json = etp_history_trend_json(&s, 1, &v, &len);
    assert_non_null(strstr(json, "\"value\":null"));
    assert_non_null(strstr(json, "\"regression\":{\"verdict\":\"regression\""));
    assert_non_null(strstr(json, "\"change\":{\"index\":10,\"run\":11,"));
    assert_non_null(strstr(json, "\"ratio_interval\":null"));
    free(json);
    json = etp_history_regressions_json(&s, &v, 1, &o, &len);
    assert_non_null(strstr(json, "\"window\": 2"));
    assert_non_null(strstr(json, "\"regression\": 1"));
    free(json);
    FILE *fp = tmpfile();
    assert_int_equal(etp_history_regressions_text(&s, &v, 1, fp, &err), ETP_OK);
    char *t = tu_stream_text(fp, NULL);
    fclose(fp);
    assert_true(!strncmp(t, "regression ", 11));
    assert_non_null(strstr(t, "+10.0%"));
    assert_non_null(strstr(t, "since run 11 (r, commit abc123)"));
    assert_non_null(strstr(t, "1 series: 1 regression, 0 suspicious, 0 insufficient_data, 0 ok\n"));
    free(t);
}

/* The page: our two script elements only; no '<' in the data (so no label
 * can close its element); the data names every series. */
static void test_page(void **state)
{
    (void)state;
    etp_history_series s[2] = {small_series(), small_series()};
    etp_history_label evil[] = {{"commit", "</script><script>alert(1)</script>"}, {"device", "<!--"}};
    etp_history_point pts[12];
    memcpy(pts, POINTS, sizeof pts);
    for (int i = 0; i < 12; i++) {
        pts[i].labels = evil;
        pts[i].label_count = 2;
        pts[i].order = (double)pts[i].published_ms;
    }
    s[1].points = pts;
    s[1].key = "</script>";
    size_t len;
    char *html = etp_history_trend_html(s, 2, NULL, "<b>t</b>", &len);
    assert_non_null(html);
    assert_int_equal(len, strlen(html));
    int scripts = 0;
    for (const char *p = html; (p = strstr(p, "<script")); p++)
        scripts++;
    assert_int_equal(scripts, 2);
    const char *data = strstr(html, "id=\"etp-data\">");
    assert_non_null(data);
    const char *end = strstr(data, "</script>");
    for (const char *p = data + 14; p < end; p++)
        assert_true(*p != '<');
    assert_non_null(strstr(data, "\"title\":\"\\u003cb>t\\u003c/b>\""));
    assert_non_null(strstr(data, "\"time_order\":false"));
    assert_non_null(strstr(data, "\"time_order\":true"));
    /* Both series on one chart (same metric, entity and unit). */
    assert_non_null(strstr(data, "\"charts\":[{\"metric\":\"m.avg\",\"entity\":null,\"unit\":\"ms\",\"series\":[0,1]}]"));
    /* Labels every point shares are written once. */
    assert_non_null(strstr(data, "\"fixed_labels\":{\"commit\":\"\\u003c/script>\\u003cscript>alert(1)"));
    free(html);
}

/* The streamed trend (JSON, CSV, page) is byte for byte the text in memory;
 * a full disk is an I/O error. */
static void test_trend_streamed(void **state)
{
    (void)state;
    etp_history_series s[2] = {small_series(), small_series()};
    s[1].key = "device=y";
    etp_regression v[2];
    etp_error err;
    etp_regression_options o;
    etp_regression_options_init(&o);
    for (int i = 0; i < 2; i++)
        assert_int_equal(etp_regression_classify(&s[i], &o, &v[i], &err), ETP_OK);
    for (int kind = 0; kind < 3; kind++) {
        size_t len = 0;
        char *mem = kind == 0   ? etp_history_trend_json(s, 2, v, &len)
                    : kind == 1 ? etp_history_trend_csv(s, 2, &len)
                                : etp_history_trend_html(s, 2, v, "t", &len);
        assert_non_null(mem);
        FILE *fp = tmpfile();
        etp_status st = kind == 0   ? etp_history_trend_json_write(s, 2, v, fp, &err)
                        : kind == 1 ? etp_history_trend_csv_write(s, 2, fp, &err)
                                    : etp_history_trend_html_write(s, 2, v, "t", fp, &err);
        assert_int_equal(st, ETP_OK);
        assert_true(tu_stream_equals(fp, mem, len));
        fclose(fp);
        free(mem);
        fp = fopen("/dev/full", "w");
        if (!fp)
            continue;
        st = kind == 0   ? etp_history_trend_json_write(s, 2, v, fp, &err)
             : kind == 1 ? etp_history_trend_csv_write(s, 2, fp, &err)
                         : etp_history_trend_html_write(s, 2, v, "t", fp, &err);
        fclose(fp);
        assert_int_equal(st, ETP_E_IO);
        assert_non_null(strstr(err.message, "cannot write the trend"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_exports),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_trend_and_verdicts),
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_trend_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
