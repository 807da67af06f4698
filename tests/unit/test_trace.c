/* test_trace.c - the Chrome trace writer and the timeline layout under it:
 * event kinds, counts on real files, the handle-resolver extension point,
 * file and memory output being identical, and errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/inspect/timeline.h"
#include "etprof/trace.h"
#include "outputs/trace/trace_text.h"
#include "util/jsonw.h"
#include "testutil.h"

static etp_etdump *open_dump(const char *rel)
{
    etp_error err;
    etp_etdump *d = NULL;
    if (etp_etdump_open(tu_fixture(rel), &d, &err))
        fail_msg("%s: %s", rel, err.message);
    return d;
}

static etp_program *open_program(const char *rel)
{
    etp_error err;
    etp_program *p = NULL;
    if (etp_program_open(tu_fixture(rel), &p, &err))
        fail_msg("%s: %s", rel, err.message);
    return p;
}

static etp_profile_event named(const char *name, int32_t chain)
{
    etp_profile_event pe;
    memset(&pe, 0, sizeof pe);
    pe.name = name;
    pe.name_len = name ? (uint32_t)strlen(name) : 0;
    pe.chain_index = chain;
    pe.delegate_id_int = -1;
    return pe;
}

static void classify_kinds(void **state)
{
    (void)state;
    etp_profile_event pe = named("Method::execute", -1);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_FRAMEWORK);
    pe = named("OPERATOR_CALL", 0);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_INSTRUCTION);
    pe = named("MOVE_CALL", 2);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_INSTRUCTION);
    pe = named("native_call_add.out", 0);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_KERNEL);
    pe = named("Method::step", 0);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_OTHER);
    pe = named(NULL, 0);
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_OTHER);
    pe.delegate_id_int = 0; /* 0 is a valid delegate id */
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_DELEGATE);
    pe = named(NULL, 0);
    pe.delegate_id_str = "Add (ND) #1";
    pe.delegate_id_str_len = 11;
    assert_int_equal(etp_tl_classify(&pe), ETP_TL_DELEGATE);
}

static char *trace_string(const etp_etdump *d, const etp_trace_options *o, etp_trace_counts *c)
{
    etp_error err;
    char *text = NULL;
    size_t len = 0;
    if (etp_trace_to_string(d, o, "x.etdp", &text, &len, c, &err))
        fail_msg("trace: %s", err.message);
    assert_int_equal(strlen(text), len);
    return text;
}

/* tutorial.etdp: 31 events, 2 tracks, no program -> one unnamed method. */
static void tutorial_counts(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    etp_trace_counts c;
    char *text = trace_string(d, NULL, &c);
    assert_int_equal(c.profile_events, 31);
    assert_int_equal(c.slices, 31);
    assert_int_equal(c.dropped, 0);
    assert_int_equal(c.duration_only, 0);
    assert_int_equal(c.overlap_slices, 0);
    assert_int_equal(c.processes, 1);
    assert_int_equal(c.tracks, 2);
    assert_int_equal(c.instants, 0);

    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    json_t *evs = json_object_get(doc, "traceEvents");
    assert_true(json_is_array(evs));
    size_t i, x = 0;
    json_t *e;
    int saw_conv = 0;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (strcmp(ph, "X"))
            continue;
        x++;
        const char *nm = json_string_value(json_object_get(e, "name"));
        if (!strcmp(nm, "native_call_convolution.out") &&
            json_number_value(json_object_get(e, "ts")) == 426.786 &&
            json_number_value(json_object_get(e, "dur")) == 544.783)
            saw_conv = 1;
    }
    assert_int_equal(x, 31);
    assert_true(saw_conv);
    assert_null(json_object_get(doc, "displayTimeUnit"));
    json_decref(doc);
    free(text);
    etp_etdump_free(d);
}

/* A FILE and a string get the same bytes, run after run. */
static void file_equals_string(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/synthetic_multi_run.etdp");
    char *a = trace_string(d, NULL, NULL);
    char *b = trace_string(d, NULL, NULL);
    assert_string_equal(a, b);
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_error err;
    assert_int_equal(etp_trace_write(d, NULL, "x.etdp", fp, NULL, &err), ETP_OK);
    long n = ftell(fp);
    assert_int_equal((size_t)n, strlen(a));
    rewind(fp);
    char *c = malloc((size_t)n + 1);
    assert_int_equal(fread(c, 1, (size_t)n, fp), (size_t)n);
    c[n] = '\0';
    assert_string_equal(a, c);
    assert_int_equal(a[n - 1], '\n');
    fclose(fp);
    free(a);
    free(b);
    free(c);
    etp_etdump_free(d);
}

typedef struct resolver_log {
    unsigned calls;
    unsigned delegated;
    int64_t buf[2];
} resolver_log;

static uint32_t resolve(void *ctx, const etp_trace_site *site, const int64_t **handles)
{
    resolver_log *log = ctx;
    log->calls++;
    log->delegated += site->is_delegated != 0;
    assert_true(site->chain_index >= 0);
    log->buf[0] = 1000 + site->instruction_id;
    log->buf[1] = 42;
    *handles = log->buf;
    return 2;
}

/* The extension point for ETRecord debug handles. */
static void handle_resolver(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    etp_trace_options o;
    etp_trace_options_init(&o);
    resolver_log log;
    memset(&log, 0, sizeof log);
    o.resolve_handles = resolve;
    o.resolve_ctx = &log;
    char *text = trace_string(d, &o, NULL);
    assert_int_equal(log.calls, 28); /* 14 OPERATOR_CALL + 14 native_call; not framework */
    assert_int_equal(log.delegated, 0);
    assert_non_null(strstr(text, "\"instruction\":3,\"start_ticks\":1033242,\"end_ticks\":2065472,"
                                 "\"debug_handles\":[1003,42]"));
    free(text);
    etp_etdump_free(d);
}

/* With a program: calls named after operators and backends. */
static void program_names(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("real-runs/xnn_np_add_x10.etdp");
    etp_program *p = open_program("real-runs/xnn_np_add_x10.pte");
    etp_trace_options o;
    etp_trace_options_init(&o);
    o.program = p;
    etp_trace_counts c;
    char *text = trace_string(d, &o, &c);
    assert_non_null(strstr(text, "{\"name\":\"XnnpackBackend\",\"cat\":\"instruction\""));
    assert_non_null(strstr(text, "\"args\":{\"name\":\"forward\"}"));
    assert_int_equal(c.tracks, 11);
    assert_int_equal(c.slices, c.profile_events);
    free(text);
    etp_program_free(p);
    etp_etdump_free(d);

    d = open_dump("real-runs/cm_et_arduino_kws_x10.etdp");
    p = open_program("real-runs/cm_et_arduino_kws_x10.pte");
    o.program = p;
    text = trace_string(d, &o, &c);
    assert_non_null(strstr(text, "{\"name\":\"cortex_m::quantized_conv2d.out\",\"cat\":\"instruction\""));
    free(text);
    etp_program_free(p);
    etp_etdump_free(d);
}

static void errors(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    etp_program *p = open_program("executorch/add.pte");
    etp_trace_options o;
    etp_trace_options_init(&o);
    o.program = p;
    etp_error err;
    char *text = (char *)"sentinel";
    assert_int_equal(etp_trace_to_string(d, &o, NULL, &text, NULL, NULL, &err), ETP_E_MISMATCH);
    assert_null(text);
    assert_non_null(strstr(err.message, "does not match"));
    o.program = NULL;
    o.method = "forward";
    assert_int_equal(etp_trace_to_string(d, &o, NULL, &text, NULL, NULL, &err), ETP_E_USAGE);
    o.program = p;
    o.method = "nope";
    assert_int_equal(etp_trace_to_string(d, &o, NULL, &text, NULL, NULL, &err), ETP_E_USAGE);
    etp_program_free(p);
    etp_etdump_free(d);
}

/* The layout step on the hand-made multi-run fixture: in runs 2 and 3 the
 * delegate events "0" and "1" overlap by 10 ticks, so one moves to a lane. */
static void timeline_lanes(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/synthetic_multi_run.etdp");
    etp_timeline tl;
    etp_timeline_init(&tl);
    etp_error err;
    etp_run run;
    uint64_t expect_lanes[4] = {0, 0, 1, 1};
    for (uint32_t r = 0; r < 4; r++) {
        etp_etdump_run(d, r, &run);
        assert_int_equal(etp_timeline_build(&tl, d, &run, r, 1, &err), ETP_OK);
        assert_int_equal(tl.overlap_lanes, expect_lanes[r]);
        assert_int_equal(tl.overlapped, expect_lanes[r]);
        assert_int_equal(tl.dropped, 0);
        assert_int_equal(tl.has_delegate_track, 0);
        assert_int_equal(tl.slice_count, tl.profile_events);
        /* Main track first, sorted by start then longer first. */
        for (size_t k = 1; k < tl.slice_count; k++) {
            const etp_tl_item *a = &tl.items[k - 1], *b = &tl.items[k];
            if (a->track != b->track) {
                assert_true(a->track < b->track);
                continue;
            }
            assert_true(a->ts < b->ts || (a->ts == b->ts && a->dur >= b->dur));
        }
    }
    /* Block 1: two debug events, one a program output at execute's end. */
    etp_etdump_run(d, 1, &run);
    assert_int_equal(etp_timeline_build(&tl, d, &run, 1, 1, &err), ETP_OK);
    assert_int_equal(tl.count - tl.slice_count, 2);
    assert_int_equal(tl.items[tl.count - 1].ts, 20000);
    assert_int_equal(tl.items[tl.count - 1].kind, ETP_TL_DEBUG);
    etp_timeline_free(&tl);
    etp_etdump_free(d);
}

/* Fractions reported through etp_trace_options.progress. */
typedef struct fractions {
    double v[4096];
    int n, decreasing;
} fractions;

static void record_progress(void *ctx, double f)
{
    fractions *fr = ctx;
    if (fr->n && f < fr->v[fr->n - 1])
        fr->decreasing = 1;
    if (fr->n < 4096)
        fr->v[fr->n++] = f;
}

static void selection(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("real-runs/et_add_x10.etdp");
    etp_program *p = open_program("real-runs/et_add_x10.pte");
    etp_trace_options o;
    etp_trace_options_init(&o);
    o.program = p;
    fractions fr;
    memset(&fr, 0, sizeof fr);
    o.progress = record_progress;
    o.progress_ctx = &fr;
    etp_trace_counts c;
    char *full = trace_string(d, &o, &c);
    assert_int_equal(c.executions, 10);
    assert_int_equal(c.executions_written, 10);
    assert_true(fr.n >= 10 && !fr.decreasing);
    assert_true(fr.v[fr.n - 1] == 1.0);
    assert_null(strstr(full, "executions_selected"));

    /* The estimate of a trace of ten identical executions is close. */
    etp_error err;
    uint64_t bytes = 0;
    fr.n = 0;
    assert_int_equal(etp_trace_estimate(d, &o, &bytes, &c, &err), ETP_OK);
    assert_int_equal(fr.n, 0);
    assert_int_equal(c.executions, 10);
    size_t len = strlen(full);
    assert_true(bytes > len * 97 / 100 && bytes < len * 103 / 100);

    o.first_execution = 3;
    o.last_execution = 4;
    char *sel = trace_string(d, &o, &c);
    assert_int_equal(c.executions, 10);
    assert_int_equal(c.executions_written, 2);
    assert_non_null(strstr(sel, "\"execute 3 (RunData"));
    assert_non_null(strstr(sel, "\"execute 4 (RunData"));
    assert_null(strstr(sel, "\"execute 2 (RunData"));
    assert_null(strstr(sel, "\"execute 5 (RunData"));
    assert_non_null(strstr(sel, "\"load_method 1 (RunData"));
    assert_non_null(strstr(sel, "\"executions_selected\":\"3-4\",\"executions_in_etdump\":10"));
    uint64_t sel_bytes = 0;
    assert_int_equal(etp_trace_estimate(d, &o, &bytes, NULL, &err), ETP_OK);
    sel_bytes = bytes;
    assert_true(sel_bytes < len / 3);
    free(sel);

    /* Past the end: cut; entirely past it: nothing, and the count said. */
    o.first_execution = 10;
    o.last_execution = 0;
    sel = trace_string(d, &o, &c);
    assert_int_equal(c.executions_written, 1);
    free(sel);
    char *text = (char *)1;
    o.first_execution = 11;
    o.last_execution = 12;
    assert_int_equal(etp_trace_to_string(d, &o, NULL, &text, NULL, NULL, &err), ETP_E_MISMATCH);
    assert_null(text);
    assert_non_null(strstr(err.message, "holds 10 executions"));
    o.first_execution = 5;
    o.last_execution = 4;
    assert_int_equal(etp_trace_to_string(d, &o, NULL, &text, NULL, NULL, &err), ETP_E_USAGE);
    free(full);
    etp_program_free(p);
    etp_etdump_free(d);
}

/* The trace's own appender writes what the JSON writer would. */
static void text_matches_jsonw(void **state)
{
    (void)state;
    static const char *const strs[] = {"plain", "", "q\"uote", "back\\slash", "tab\tnl\n",
                                       "\x01ctl\x7f", "caf\xc3\xa9", "bad\xc3(", "\xff",
                                       "\xf0\x9f\x98\x80 emoji", "end\xe2\x82"};
    static const int64_t ints[] = {0, 1, 9, 10, 99, 100, 12345678901234LL, -1, -10,
                                   INT64_MIN, INT64_MAX};
    static const double dbls[] = {0.0, 1.0, -2.5, 0.1, 1e300, 5e-324, 1.898821};
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_tt b;
    etp_tt_init(&b);
    etp_jw_arr_begin(&w);
    ETP_TT_LIT(&b, "[");
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        etp_jw_str(&w, strs[k]);
        if (k)
            ETP_TT_LIT(&b, ",");
        etp_tt_str(&b, strs[k]);
    }
    etp_jw_str(&w, NULL);
    ETP_TT_LIT(&b, ",");
    etp_tt_str(&b, NULL);
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        etp_jw_int(&w, ints[k]);
        ETP_TT_LIT(&b, ",");
        etp_tt_i64(&b, ints[k]);
        etp_jw_uint(&w, (uint64_t)ints[k]);
        ETP_TT_LIT(&b, ",");
        etp_tt_u64(&b, (uint64_t)ints[k]);
    }
    for (size_t k = 0; k < sizeof dbls / sizeof dbls[0]; k++) {
        etp_jw_double(&w, dbls[k]);
        ETP_TT_LIT(&b, ",");
        etp_tt_double(&b, dbls[k]);
    }
    etp_jw_arr_end(&w);
    ETP_TT_LIT(&b, "]");
    size_t n = 0;
    char *want = etp_jw_take(&w, &n);
    assert_false(b.failed);
    assert_int_equal(b.len, n);
    assert_memory_equal(b.p, want, n);
    free(want);
    etp_tt_free(&b);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classify_kinds),     cmocka_unit_test(tutorial_counts),
        cmocka_unit_test(file_equals_string), cmocka_unit_test(handle_resolver),
        cmocka_unit_test(program_names),      cmocka_unit_test(errors),
        cmocka_unit_test(timeline_lanes),     cmocka_unit_test(selection),
        cmocka_unit_test(text_matches_jsonw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
