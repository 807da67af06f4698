/* test_formats.c - ETDump/.pte/.bpte decoding on real files, and bad input:
 * truncation at every byte, random byte flips, wrong identifiers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/dump.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/gen.h"
#include "etprof/program.h"
#include "testutil.h"

static etp_etdump *open_dump(const char *rel)
{
    etp_error err;
    etp_etdump *d = NULL;
    etp_status s = etp_etdump_open(tu_fixture(rel), &d, &err);
    if (s)
        fail_msg("%s: %s", rel, err.message);
    return d;
}

static void tutorial_blocks(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    assert_int_equal(etp_etdump_run_count(d), 2);
    assert_int_equal(etp_etdump_version(d), 0);
    etp_run r;
    etp_etdump_run(d, 0, &r);
    assert_string_equal(r.name, "Default");
    assert_int_equal(r.event_count, 2);
    assert_int_equal(r.bundled_input_index, -1);
    etp_event e;
    etp_etdump_event(d, &r, 0, &e);
    assert_int_equal(e.kinds, ETP_EV_PROFILE);
    assert_string_equal(e.profile.name, "Method::init");
    assert_int_equal(e.profile.chain_index, -1);
    assert_int_equal(e.profile.instruction_id, 0);
    assert_int_equal(e.profile.delegate_id_int, -1);
    assert_null(e.profile.delegate_id_str);
    assert_int_equal(e.profile.has_metadata, 0);
    assert_int_equal(e.profile.start_time, 399054);
    assert_int_equal(e.profile.end_time, 421538);
    etp_etdump_run(d, 1, &r);
    assert_string_equal(r.name, "Execute");
    assert_int_equal(r.event_count, 29);
    etp_etdump_event(d, &r, 28, &e);
    assert_string_equal(e.profile.name, "Method::execute");
    assert_int_equal(e.profile.end_time - e.profile.start_time, 1898821);
    etp_etdump_event(d, &r, 0, &e);
    assert_string_equal(e.profile.name, "native_call_convolution.out");
    assert_int_equal(e.profile.chain_index, 0);
    assert_int_equal(e.profile.end_time - e.profile.start_time, 544783);
    etp_etdump_free(d);
}

static void synthetic_kinds(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/synthetic_multi_run.etdp");
    assert_int_equal(etp_etdump_run_count(d), 4);
    etp_run r;
    etp_etdump_run(d, 0, &r);
    assert_int_equal(r.allocator_count, 1);
    assert_string_equal(etp_etdump_allocator_name(d, &r, 0), "method_allocator");
    etp_event e;
    etp_etdump_event(d, &r, 0, &e);
    assert_int_equal(e.kinds, ETP_EV_ALLOCATION);
    assert_int_equal(e.allocation.allocator_id, 1);
    assert_int_equal(e.allocation.allocation_size, 4096);
    /* A delegate event with an int id and metadata bytes "cycles=123". */
    etp_etdump_run(d, 1, &r);
    int seen_int = 0, seen_str = 0, seen_output = 0;
    for (uint32_t j = 0; j < r.event_count; j++) {
        etp_etdump_event(d, &r, j, &e);
        if ((e.kinds & ETP_EV_PROFILE) && e.profile.delegate_id_int == 0) {
            seen_int = 1;
            assert_null(e.profile.name);
            assert_int_equal(e.profile.metadata_len, 10);
            assert_memory_equal(e.profile.metadata, "cycles=123", 10);
        }
        if ((e.kinds & ETP_EV_PROFILE) && e.profile.delegate_id_str)
            seen_str = !strcmp(e.profile.delegate_id_str, "fused_op_1_2");
        if ((e.kinds & ETP_EV_DEBUG) && e.debug.is_output)
            seen_output = 1;
    }
    assert_true(seen_int);
    assert_true(seen_str);
    assert_true(seen_output);
    etp_etdump_free(d);
}

static void program_operators(void **state)
{
    (void)state;
    etp_error err;
    etp_program *p;
    assert_int_equal(etp_program_open(tu_fixture("real-runs/cm_et_arduino_kws_x10.pte"), &p, &err), 0);
    assert_int_equal(p->plan_count, 1);
    const etp_plan *pl = etp_program_find_plan(p, "forward");
    assert_non_null(pl);
    assert_int_equal(pl->chains[0].instruction_count, 16);
    assert_int_equal(p->has_extended_header, 1);
    assert_int_equal(p->header_program_size, 14904);
    assert_int_equal(p->segment_base_offset, 14976);
    assert_int_equal(p->segment_data_size, 39216);
    const etp_instruction *in = &pl->chains[0].instructions[14];
    assert_int_equal(in->kind, ETP_INSTR_KERNEL);
    assert_string_equal(pl->operators[in->a].full_name, "cortex_m::quantized_linear.out");
    assert_string_equal(pl->operators[in->a].kernel_suffix, "quantized_linear.out");
    assert_int_equal(pl->value_count, 289);
    assert_int_equal(pl->values[83].kind, ETP_EV_TENSOR);
    assert_int_equal(pl->values[83].count, 4);
    etp_program_free(p);

    assert_int_equal(etp_program_open(tu_fixture("real-runs/xnn_np_add_x10.pte"), &p, &err), 0);
    pl = &p->plans[0];
    assert_int_equal(pl->chains[0].instructions[0].kind, ETP_INSTR_DELEGATE);
    assert_string_equal(pl->delegates[0].id, "XnnpackBackend");
    assert_int_equal(pl->delegates[0].size_known, 1);
    assert_int_equal(pl->delegates[0].processed_size, 432);
    etp_program_free(p);

    assert_int_equal(etp_program_open(tu_fixture("real-runs/np_multi_forward_x10.pte"), &p, &err), 0);
    assert_true(p->plan_count > 1);
    etp_program_free(p);
}

static void bundled_program(void **state)
{
    (void)state;
    etp_error err;
    etp_program *p;
    assert_int_equal(
        etp_program_open(tu_fixture("real-runs/et_bundled_program_debug_intermediate.bpte"), &p, &err), 0);
    assert_true(p->bundled);
    assert_int_equal(p->suite_count, 1);
    assert_string_equal(p->suites[0].method_name, "forward");
    assert_int_equal(p->suites[0].case_count, 10);
    assert_int_equal(p->plan_count, 1);
    assert_int_equal(p->plans[0].chains[0].instruction_count, 3);
    etp_program_free(p);
}

/* Decode @p data as whatever its identifier says; returns the status. */
static etp_status decode_any(const uint8_t *data, size_t n, int is_dump, etp_error *err)
{
    etp_blob *b;
    etp_status s = etp_blob_from_memory(data, n, "mem", &b, err);
    if (s)
        return s;
    if (is_dump) {
        etp_etdump *d;
        s = etp_etdump_from_blob(b, &d, err);
        if (!s) {
            /* Touch everything a consumer would. */
            for (uint32_t i = 0; i < etp_etdump_run_count(d); i++) {
                etp_run r;
                etp_etdump_run(d, i, &r);
                for (uint32_t j = 0; j < r.event_count; j++) {
                    etp_event e;
                    etp_etdump_event(d, &r, j, &e);
                    etp_dbg_tensor t;
                    for (uint32_t k = 0; (e.kinds & ETP_EV_DEBUG) && k < e.debug.tensor_count; k++)
                        etp_etdump_debug_tensor(d, &e.debug, k, &t);
                }
            }
            FILE *null = fopen("/dev/null", "w");
            etp_etdump_write_json(d, null, 1, NULL);
            fclose(null);
            etp_etdump_free(d);
        }
    } else {
        etp_program *p;
        s = etp_program_from_blob(b, &p, err);
        if (!s) {
            FILE *null = fopen("/dev/null", "w");
            etp_program_write_json(p, null, 1, NULL);
            fclose(null);
            etp_program_free(p);
        }
    }
    return s;
}

static const struct {
    const char *rel;
    int is_dump;
} bad_input_files[] = {
    {"executorch/tutorial.etdp", 1},
    {"executorch/synthetic_multi_run.etdp", 1},
    {"real-runs/xnn_np_add_x10.etdp", 1},
    {"real-runs/et_bundled_program_debug_intermediate.etdp", 1},
    {"executorch/add.pte", 0},
    {"executorch/arduino_add.pte", 0},
    {"real-runs/xnn_np_add_x10.pte", 0},
    {"real-runs/et_bundled_program_debug_intermediate.bpte", 0},
};

static void truncation_every_byte(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof bad_input_files / sizeof bad_input_files[0]; f++) {
        size_t n;
        uint8_t *data = tu_read_file(tu_fixture(bad_input_files[f].rel), &n);
        assert_non_null(data);
        etp_error err;
        assert_int_equal(decode_any(data, n, bad_input_files[f].is_dump, &err), ETP_OK);
        for (size_t cut = 0; cut < n; cut++) {
            etp_error_clear(&err);
            etp_status s = decode_any(data, cut, bad_input_files[f].is_dump, &err);
            if (s == ETP_OK)
                fail_msg("%s truncated to %zu of %zu bytes decoded without error",
                         bad_input_files[f].rel, cut, n);
            /* One line, with a position. */
            assert_null(strchr(err.message, '\n'));
            assert_true(err.message[0] != '\0');
        }
        free(data);
    }
}

static void random_byte_flips(void **state)
{
    (void)state;
    srand(12345);
    for (size_t f = 0; f < sizeof bad_input_files / sizeof bad_input_files[0]; f++) {
        size_t n;
        uint8_t *data = tu_read_file(tu_fixture(bad_input_files[f].rel), &n);
        assert_non_null(data);
        uint8_t *copy = malloc(n);
        int failures = 0;
        for (int trial = 0; trial < 3000; trial++) {
            memcpy(copy, data, n);
            int flips = 1 + rand() % 4;
            for (int k = 0; k < flips; k++)
                copy[(size_t)rand() % n] ^= (uint8_t)(1 + rand() % 255);
            etp_error err;
            etp_error_clear(&err);
            /* Must never crash or hang; either outcome is legitimate for a
             * flip inside a timestamp or a name. */
            if (decode_any(copy, n, bad_input_files[f].is_dump, &err) != ETP_OK) {
                failures++;
                assert_true(err.message[0] != '\0');
            }
        }
        assert_true(failures > 0); /* the checks do reject corruption */
        free(copy);
        free(data);
    }
}

static void wrong_identifier(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = tu_read_file(tu_fixture("executorch/tutorial.etdp"), &n);
    etp_error err;
    /* An ETDump is not a program, and vice versa. */
    assert_int_equal(decode_any(data, n, 0, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "ET12"));
    data[8] = 'X';
    assert_int_equal(decode_any(data, n, 1, &err), ETP_E_FORMAT);
    assert_int_equal(err.offset, 8);
    free(data);
    data = tu_read_file(tu_fixture("executorch/add.pte"), &n);
    data[7] = '9';
    assert_int_equal(decode_any(data, n, 0, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "unsupported program version"));
    free(data);
}

/* A vector whose length claims far more elements than the file holds must
 * be rejected before anything allocates for it. */
static void oversized_vector(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = tu_read_file(tu_fixture("executorch/tutorial.etdp"), &n);
    /* The root table's run_data vector: find its length word (2) and make it huge. */
    uint32_t root, vt, off, vec;
    memcpy(&root, data + 4, 4);
    root += 4;
    int32_t so;
    memcpy(&so, data + root, 4);
    vt = (uint32_t)((int64_t)root - so);
    uint16_t foff;
    memcpy(&foff, data + vt + 6, 2);
    memcpy(&off, data + root + foff, 4);
    vec = root + foff + off;
    uint32_t huge = 0x7fffffff;
    memcpy(data + vec, &huge, 4);
    etp_error err;
    assert_int_equal(decode_any(data, n, 1, &err), ETP_E_TRUNCATED);
    assert_int_equal(err.offset, vec);
    free(data);
}

/* Large ETDumps are verified by two threads (one takes runs from the front,
 * the other from the back); the error reported must not depend on which
 * thread gets where first: the first bad run wins. */
static void parallel_verification(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/big.etdp", dir);
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.etdump_path = path;
    o.executions = 8;
    o.instructions = 10000;
    etp_error err;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    size_t n;
    uint8_t *data = tu_read_file(path, &n);
    assert_true(n >= (8u << 20));
    assert_int_equal(decode_any(data, n, 1, &err), ETP_OK);
    /* Break the root offsets of the second and the last run. */
    etp_etdump *d;
    assert_int_equal(etp_etdump_open(path, &d, &err), ETP_OK);
    etp_run r1, rlast;
    etp_etdump_run(d, 2, &r1);
    etp_etdump_run(d, etp_etdump_run_count(d) - 1, &rlast);
    etp_etdump_free(d);
    uint8_t *bad = malloc(n);
    memcpy(bad, data, n);
    memset(bad + rlast.offset, 0xff, 4); /* its vtable offset: out of the buffer */
    assert_int_not_equal(decode_any(bad, n, 1, &err), ETP_OK);
    int64_t last_off = err.offset;
    memset(bad + r1.offset, 0xff, 4);
    for (int rep = 0; rep < 5; rep++) {
        etp_error_clear(&err);
        assert_int_not_equal(decode_any(bad, n, 1, &err), ETP_OK);
        assert_int_equal(err.offset, r1.offset); /* the earlier run, every time */
    }
    assert_true(last_off != r1.offset);
    /* The last two runs (the second thread takes runs from the back): the
     * earlier of them. */
    etp_run rprev;
    assert_int_equal(etp_etdump_open(path, &d, &err), ETP_OK);
    etp_etdump_run(d, etp_etdump_run_count(d) - 2, &rprev);
    etp_etdump_free(d);
    memcpy(bad, data, n);
    memset(bad + rlast.offset, 0xff, 4);
    memset(bad + rprev.offset, 0xff, 4);
    for (int rep = 0; rep < 5; rep++) {
        etp_error_clear(&err);
        assert_int_not_equal(decode_any(bad, n, 1, &err), ETP_OK);
        assert_int_equal(err.offset, rprev.offset);
    }
    free(bad);
    free(data);
    tu_rmrf(dir);
    free(dir);
}

/* A failed write is ETP_E_IO with the system's reason and the input named. */
static void assert_write_failed(etp_status st, const etp_error *err, const char *input)
{
    assert_int_equal(st, ETP_E_IO);
    assert_non_null(strstr(err->message, "No space left on device"));
    assert_non_null(strstr(err->message, input));
}

static void write_errors(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    etp_error err;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    assert_write_failed(etp_etdump_write_json(d, full, 1, &err), &err, "tutorial.etdp");
    etp_program *p;
    assert_int_equal(etp_program_open(tu_fixture("executorch/add.pte"), &p, &err), ETP_OK);
    assert_write_failed(etp_program_write_json(p, full, 1, &err), &err, "add.pte");
    etp_etrecord *r;
    assert_int_equal(etp_etrecord_open(tu_fixture("executorch/sample_etrecord.bin"), &r, &err),
                     ETP_OK);
    assert_write_failed(etp_etrecord_write_json(r, full, 1, &err), &err, "sample_etrecord.bin");
    /* The same writers succeed on a working stream. */
    FILE *null = fopen("/dev/null", "w");
    assert_non_null(null);
    assert_int_equal(etp_etdump_write_json(d, null, 0, &err), ETP_OK);
    assert_int_equal(etp_program_write_json(p, null, 0, &err), ETP_OK);
    assert_int_equal(etp_etrecord_write_json(r, null, 0, &err), ETP_OK);
    char hex[65];
    assert_int_equal(etp_program_sha256(p, hex, &err), ETP_OK);
    assert_int_equal(strlen(hex), 64);
    fclose(null);
    fclose(full);
    etp_etrecord_free(r);
    etp_program_free(p);
    etp_etdump_free(d);
}

/* etp_run says which run it is and whether it has an events vector. */
static void run_index(void **state)
{
    (void)state;
    etp_etdump *d = open_dump("executorch/tutorial.etdp");
    for (uint32_t i = 0; i < etp_etdump_run_count(d); i++) {
        etp_run r;
        etp_etdump_run(d, i, &r);
        assert_int_equal(r.index, i);
        assert_true(r.has_events || r.event_count == 0);
    }
    etp_etdump_free(d);
}

/* A released span of a streamed blob reads back the same, and release
 * ignores spans it cannot apply to. */
static void blob_release(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/bytes.bin", dir);
    size_t n = 5 * 65536 + 123;
    unsigned char *want = malloc(n);
    assert_non_null(want);
    for (size_t i = 0; i < n; i++)
        want[i] = (unsigned char)(i * 2654435761u >> 13);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(want, 1, n, fp), n);
    fclose(fp);
    etp_blob *b;
    etp_error err;
    assert_int_equal(etp_blob_open_streamed(path, 0, &b, &err), ETP_OK);
    assert_int_equal(b->size, n);
    assert_memory_equal(b->data, want, n);
    etp_blob_release(b, 1000, 3 * 65536);
    etp_blob_release(b, 0, n);
    etp_blob_release(b, n + 10, 5);   /* past the end */
    etp_blob_release(b, n - 10, 1000); /* clipped */
    etp_blob_release(NULL, 0, 10);
    assert_memory_equal(b->data, want, n);
    etp_blob_free(b);
    etp_blob *m;
    assert_int_equal(etp_blob_from_memory(want, 100, "mem", &m, &err), ETP_OK);
    etp_blob_release(m, 0, 100); /* a heap copy keeps its bytes */
    assert_memory_equal(m->data, want, 100);
    etp_blob_free(m);
    free(want);
    remove(path);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tutorial_blocks),       cmocka_unit_test(synthetic_kinds),
        cmocka_unit_test(program_operators),     cmocka_unit_test(bundled_program),
        cmocka_unit_test(truncation_every_byte), cmocka_unit_test(random_byte_flips),
        cmocka_unit_test(wrong_identifier),      cmocka_unit_test(oversized_vector),
        cmocka_unit_test(parallel_verification), cmocka_unit_test(write_errors),
        cmocka_unit_test(run_index), cmocka_unit_test(blob_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
