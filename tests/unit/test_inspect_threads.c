/* test_inspect_threads.c - decoding an ETDump on two threads gives exactly
 * the one-thread result: every block, row, sample, count and offset, on
 * every real ETDump fixture and on generated ones; and the same first error
 * when events in either half are bad; and events read alternately from two
 * dumps. A deferred open (events checked while decoding) gives the same
 * results and, on damaged files, the same errors as a verifying open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/blob.h"
#include "etprof/etdump.h"
#include "etprof/gen.h"
#include "etprof/inspect.h"
#include "formats/etdump/etdump_internal.h"
#include "testutil.h"

static int same_str(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && !strcmp(a, b));
}

static void same_stats(const etp_stats *a, const etp_stats *b)
{
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a, b, sizeof *a);
}

static void same_inspect(const etp_inspect *a, const etp_inspect *b)
{
    assert_int_equal(a->block_count, b->block_count);
    assert_int_equal(a->runs_without_events, b->runs_without_events);
    for (uint32_t i = 0; i < a->block_count; i++) {
        const etp_inspect_block *x = &a->blocks[i], *y = &b->blocks[i];
        assert_true(same_str(x->name, y->name));
        assert_int_equal(x->bundled_input_index, y->bundled_input_index);
        assert_int_equal(x->run_count, y->run_count);
        assert_memory_equal(x->runs, y->runs, x->run_count * sizeof *x->runs);
        assert_int_equal(x->debug_events, y->debug_events);
        assert_int_equal(x->program_outputs, y->program_outputs);
        assert_int_equal(x->allocation_events, y->allocation_events);
        assert_int_equal(x->allocation_bytes, y->allocation_bytes);
        assert_int_equal(x->empty_events, y->empty_events);
        assert_int_equal(x->wrapped_intervals, y->wrapped_intervals);
        assert_int_equal(x->row_count, y->row_count);
        for (uint32_t r = 0; r < x->row_count; r++) {
            const etp_inspect_row *p = &x->rows[r], *q = &y->rows[r];
            assert_true(same_str(p->name, q->name));
            assert_true(same_str(p->event_name, q->event_name));
            assert_true(same_str(p->delegate_id_str, q->delegate_id_str));
            assert_int_equal(p->chain_index, q->chain_index);
            assert_int_equal(p->instruction_id, q->instruction_id);
            assert_int_equal(p->delegate_id_int, q->delegate_id_int);
            assert_int_equal(p->first_offset, q->first_offset);
            assert_int_equal(p->sample_count, q->sample_count);
            assert_int_equal(p->max_per_run, q->max_per_run);
            assert_memory_equal(p->ticks, q->ticks, p->sample_count * sizeof *p->ticks);
            assert_memory_equal(p->per_run, q->per_run, x->run_count * sizeof *p->per_run);
            same_stats(&p->stats, &q->stats);
        }
    }
}

static etp_inspect *run_inspect(const etp_etdump *d, int threads, etp_error *err)
{
    etp_inspect_options o;
    etp_inspect_options_init(&o);
    o.threads = threads;
    etp_inspect *in = NULL;
    etp_error_clear(err);
    if (etp_inspect_run(d, &o, &in, err))
        return NULL;
    return in;
}

static void check_file(const char *path)
{
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open(path, &d, &err), ETP_OK);
    etp_inspect *one = run_inspect(d, 1, &err);
    assert_non_null(one);
    etp_inspect *two = run_inspect(d, 2, &err);
    assert_non_null(two);
    same_inspect(one, two);
    /* Deferred: the events are checked by the first decode, on one thread
     * or two; the dump counts as verified afterwards. */
    for (int threads = 1; threads <= 2; threads++) {
        etp_etdump *dd = NULL;
        assert_int_equal(etp_etdump_open_deferred(path, &dd, &err), ETP_OK);
        assert_false(etp_etdump_verified(dd));
        etp_inspect *in = run_inspect(dd, threads, &err);
        assert_non_null(in);
        assert_true(etp_etdump_verified(dd));
        same_inspect(one, in);
        etp_inspect_free(in);
        etp_etdump_free(dd);
    }
    etp_inspect_free(one);
    etp_inspect_free(two);
    etp_etdump_free(d);
}

static void test_real_fixtures(void **state)
{
    (void)state;
    static const char *const files[] = {
        "real-runs/cm_et_arduino_kws_x10.etdp",
        "real-runs/et_add_x1.etdp",
        "real-runs/et_add_x10.etdp",
        "real-runs/et_bundled_program_debug_intermediate.etdp",
        "real-runs/np_const_methods_get_tensor_x3.etdp",
        "real-runs/np_dtypes_x10.etdp",
        "real-runs/np_multi_forward_x10.etdp",
        "real-runs/xnn_np_add_x10.etdp",
        "executorch/tutorial.etdp",
        "executorch/synthetic_multi_run.etdp",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *p = tu_fixture(files[i]);
        assert_non_null(p);
        check_file(p);
    }
}

static char *generate(const char *dir, uint32_t executions, uint32_t instructions)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/g.etdp", dir);
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.etdump_path = path;
    o.executions = executions;
    o.instructions = instructions;
    o.delegate_every = 7;
    o.seed = 11;
    etp_error err;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    return path;
}

static void test_generated(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    check_file(generate(dir, 9, 40));
    check_file(generate(dir, 1, 5)); /* a load block and one execution */
    /* Large enough for the automatic choice to use two threads. */
    const char *big = generate(dir, 30, 7000);
    check_file(big);
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open(big, &d, &err), ETP_OK);
    etp_inspect *one = run_inspect(d, 1, &err), *aut = run_inspect(d, 0, &err);
    assert_non_null(one);
    assert_non_null(aut);
    same_inspect(one, aut);
    etp_inspect_free(one);
    etp_inspect_free(aut);
    etp_etdump_free(d);
    tu_rmrf(dir);
    free(dir);
}

/* Make profile event @p j of run @p ri end before it starts, beyond what a
 * 32-bit counter wraparound explains: its start_time bytes (found by value,
 * which must be unique in the file) become 2^40. */
static void break_event(uint8_t *bytes, size_t size, const etp_etdump *d, uint32_t ri, uint32_t j)
{
    etp_run run;
    etp_etdump_run(d, ri, &run);
    etp_event e;
    etp_etdump_event(d, &run, j, &e);
    assert_true(e.kinds & ETP_EV_PROFILE);
    uint64_t start = e.profile.start_time, bad = (uint64_t)1 << 40;
    assert_true(e.profile.end_time < bad);
    size_t hits = 0, at = 0;
    for (size_t o = 0; o + 8 <= size; o += 4) {
        uint64_t v;
        memcpy(&v, bytes + o, 8);
        if (v == start) {
            hits++;
            at = o;
        }
    }
    assert_int_equal(hits, 1);
    memcpy(bytes + at, &bad, 8);
}

static void error_both_ways(const uint8_t *bytes, size_t size, char *msg_out, size_t cap)
{
    etp_blob *blob = NULL;
    etp_error err;
    assert_int_equal(etp_blob_from_memory(bytes, size, "broken.etdp", &blob, &err), ETP_OK);
    etp_etdump *d = NULL;
    assert_int_equal(etp_etdump_from_blob(blob, &d, &err), ETP_OK);
    etp_error e1, e2;
    assert_null(run_inspect(d, 1, &e1));
    assert_null(run_inspect(d, 2, &e2));
    assert_int_equal(e1.code, e2.code);
    assert_int_equal(e1.offset, e2.offset);
    assert_string_equal(e1.message, e2.message);
    snprintf(msg_out, cap, "%s", e1.message);
    etp_etdump_free(d);
}

static void test_first_error(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    const char *path = generate(dir, 8, 30);
    size_t size = 0;
    uint8_t *orig = tu_read_file(path, &size);
    assert_non_null(orig);
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open(path, &d, &err), ETP_OK);
    uint32_t nruns = etp_etdump_run_count(d);
    assert_true(nruns >= 6);
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    char msg[600];

    /* A bad event in the last run only (the second thread's half). */
    memcpy(bytes, orig, size);
    break_event(bytes, size, d, nruns - 1, 3);
    error_both_ways(bytes, size, msg, sizeof msg);
    char expect[64];
    snprintf(expect, sizeof expect, "of block %u ends before it starts", nruns - 1);
    assert_non_null(strstr(msg, expect));

    /* Bad events in the last two runs (the second thread takes runs from
     * the back): the earlier one is reported. */
    break_event(bytes, size, d, nruns - 2, 4);
    error_both_ways(bytes, size, msg, sizeof msg);
    snprintf(expect, sizeof expect, "event 4 of block %u ends before it starts", nruns - 2);
    assert_non_null(strstr(msg, expect));

    /* Bad events in both halves: the earlier one is reported. */
    break_event(bytes, size, d, 1, 2);
    error_both_ways(bytes, size, msg, sizeof msg);
    assert_non_null(strstr(msg, "event 2 of block 1 ends before it starts"));

    free(bytes);
    free(orig);
    etp_etdump_free(d);
    tu_rmrf(dir);
    free(dir);
}

/* The outcome of opening @p bytes one way and decoding the events on
 * @p threads threads: the result, or NULL and the first error in *err.
 * *d is the dump the result points into (the caller frees it). */
static etp_inspect *outcome(const uint8_t *bytes, size_t size, int deferred, int threads,
                            etp_etdump **d, etp_error *err)
{
    etp_blob *blob = NULL;
    assert_int_equal(etp_blob_from_memory(bytes, size, "damaged.etdp", &blob, err), ETP_OK);
    *d = NULL;
    etp_error_clear(err);
    if ((deferred ? etp_etdump_from_blob_deferred : etp_etdump_from_blob)(blob, d, err))
        return NULL;
    return run_inspect(*d, threads, err);
}

/* Damage @p orig at many places; both ways of opening must agree on every
 * copy: the same result, or the same error (code, offset, message). */
static void damage_both_ways(const uint8_t *orig, size_t size, uint64_t seed, int rounds)
{
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    int failures = 0;
    for (int k = 0; k < rounds; k++) {
        memcpy(bytes, orig, size);
        /* one to three bytes anywhere past the header, set to a value that
         * tends to matter (0, all ones, a small or a large offset) */
        int n = 1 + (int)(tu_rand(&seed) % 3);
        for (int i = 0; i < n; i++) {
            size_t at = 12 + (size_t)(tu_rand(&seed) % (size - 12));
            static const uint8_t vals[] = {0x00, 0xff, 0x04, 0x80, 0x7f, 0x10};
            bytes[at] = vals[tu_rand(&seed) % sizeof vals];
        }
        int threads = 1 + (int)(k % 2);
        etp_error e1, e2;
        etp_etdump *da, *db;
        etp_inspect *a = outcome(bytes, size, 0, threads, &da, &e1);
        etp_inspect *b = outcome(bytes, size, 1, threads, &db, &e2);
        assert_true((a == NULL) == (b == NULL));
        if (a) {
            same_inspect(a, b);
        } else {
            failures++;
            assert_int_equal(e1.code, e2.code);
            assert_int_equal(e1.offset, e2.offset);
            assert_string_equal(e1.message, e2.message);
        }
        etp_inspect_free(a);
        etp_inspect_free(b);
        etp_etdump_free(da);
        etp_etdump_free(db);
    }
    /* the damage must have hit the events often enough to mean something */
    assert_true(failures > rounds / 10);
    free(bytes);
}

static void test_deferred_damage(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    const char *path = generate(dir, 6, 40);
    size_t size = 0;
    uint8_t *orig = tu_read_file(path, &size);
    assert_non_null(orig);
    damage_both_ways(orig, size, 7, 3000);

    /* A decoding error (an interval that ends before it starts) and a
     * structural one later in the file: the structural one is reported,
     * as when the whole file is verified first. */
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open(path, &d, &err), ETP_OK);
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    memcpy(bytes, orig, size);
    break_event(bytes, size, d, 1, 2);
    etp_run last;
    etp_etdump_run(d, etp_etdump_run_count(d) - 1, &last);
    uint32_t bad = (uint32_t)size + 64; /* an event offset past the end */
    memcpy(bytes + etp_etdump_events_at(d, &last) + 4, &bad, 4);
    etp_error e1, e2;
    etp_etdump *da, *db;
    assert_null(outcome(bytes, size, 0, 2, &da, &e1));
    assert_null(outcome(bytes, size, 1, 2, &db, &e2));
    etp_etdump_free(da);
    etp_etdump_free(db);
    assert_int_equal(e1.code, e2.code);
    assert_int_equal(e1.offset, e2.offset);
    assert_string_equal(e1.message, e2.message);
    assert_null(strstr(e2.message, "ends before it starts"));
    free(bytes);
    etp_etdump_free(d);
    free(orig);
    tu_rmrf(dir);
    free(dir);
}

/* Real dumps hold other kinds of events (debug values, allocations), which
 * the deferred reader checks the general way. */
static void test_deferred_damage_real(void **state)
{
    (void)state;
    static const char *const files[] = {
        "real-runs/et_bundled_program_debug_intermediate.etdp",
        "real-runs/xnn_np_add_x10.etdp",
        "executorch/synthetic_multi_run.etdp",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t size = 0;
        uint8_t *orig = tu_read_file(tu_fixture(files[i]), &size);
        assert_non_null(orig);
        damage_both_ways(orig, size, 100 + i, 1500);
        free(orig);
    }
}

/* Events read alternately from two dumps equal the same events read from
 * each dump alone (the event reader caches vtable offsets per thread). */
static void collect(const etp_etdump *d, uint32_t ri, etp_event *out, uint32_t n)
{
    etp_run run;
    etp_etdump_run(d, ri, &run);
    for (uint32_t j = 0; j < n && j < run.event_count; j++)
        etp_etdump_event(d, &run, j, &out[j]);
}

static void test_interleaved_dumps(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    char a_path[4096], b_path[4096];
    snprintf(a_path, sizeof a_path, "%s", generate(dir, 2, 30));
    snprintf(b_path, sizeof b_path, "%s/h.etdp", dir);
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.etdump_path = b_path;
    o.executions = 2;
    o.instructions = 25;
    o.backend = ETP_GEN_VULKAN; /* other delegate ids: other tables */
    etp_error err;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    etp_etdump *a = NULL, *b = NULL;
    assert_int_equal(etp_etdump_open(a_path, &a, &err), ETP_OK);
    assert_int_equal(etp_etdump_open(b_path, &b, &err), ETP_OK);
    enum { N = 40 };
    etp_event ea[N], eb[N];
    memset(ea, 0, sizeof ea);
    memset(eb, 0, sizeof eb);
    collect(a, 1, ea, N);
    collect(b, 1, eb, N);
    etp_run ra, rb;
    etp_etdump_run(a, 1, &ra);
    etp_etdump_run(b, 1, &rb);
    for (uint32_t j = 0; j < N && j < ra.event_count && j < rb.event_count; j++) {
        etp_event x, y;
        etp_etdump_event(a, &ra, j, &x);
        etp_etdump_event(b, &rb, j, &y);
        assert_int_equal(x.offset, ea[j].offset);
        assert_int_equal(x.profile.start_time, ea[j].profile.start_time);
        assert_int_equal(x.profile.end_time, ea[j].profile.end_time);
        assert_int_equal(x.profile.instruction_id, ea[j].profile.instruction_id);
        assert_int_equal(x.profile.delegate_id_int, ea[j].profile.delegate_id_int);
        assert_int_equal(y.offset, eb[j].offset);
        assert_int_equal(y.profile.start_time, eb[j].profile.start_time);
        assert_int_equal(y.profile.end_time, eb[j].profile.end_time);
        assert_int_equal(y.profile.instruction_id, eb[j].profile.instruction_id);
        assert_int_equal(y.profile.delegate_id_int, eb[j].profile.delegate_id_int);
        assert_true(same_str(x.profile.name, ea[j].profile.name));
        assert_true(same_str(y.profile.name, eb[j].profile.name));
    }
    etp_etdump_free(a);
    etp_etdump_free(b);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest gen_tests[] = {
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_first_error),
        cmocka_unit_test(test_interleaved_dumps),
        cmocka_unit_test(test_deferred_damage),
    };
    int rc = cmocka_run_group_tests_name("generated", gen_tests, NULL, NULL);
    if (!tu_have_fixtures()) {
        printf("SKIP (fixture part): ../shared/fixtures is absent\n");
        return rc;
    }
    const struct CMUnitTest fixture_tests[] = {
        cmocka_unit_test(test_real_fixtures),
        cmocka_unit_test(test_deferred_damage_real),
    };
    return rc | cmocka_run_group_tests_name("fixtures", fixture_tests, NULL, NULL);
}
