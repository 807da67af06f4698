/* test_numeric_diff.c - etp_numeric_diff_build() on analyses built by hand:
 * two different programs (a delegated run against a portable one) paired
 * by their last debug handle, a shape and an element-type mismatch as pairs
 * with a reason, a quantized value compared dequantized and by stored
 * integers, the source-operator level, outputs by index, unmatched counts,
 * the first divergence and the largest error, the same-program key level,
 * and the refusals (no tensors, no value in the execution). Every expected
 * figure is computed here from the values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/analysis.h"
#include "etprof/numeric_diff.h"
#include "analysis/numerics/tensor_decode.h"

#define MAXV 8

/* One side: an analysis holding only what the numeric diff reads. */
typedef struct side {
    etp_analysis a;
    etp_tensor_set set;
    etp_logged_tensor items[MAXV];
    etp_entity ents[MAXV];
    int64_t handles[MAXV][4];
    uint8_t bytes[MAXV][64];
} side;

static void side_init(side *s, const char *sha)
{
    memset(s, 0, sizeof *s);
    strcpy(s->a.program_sha256, sha);
    s->a.method = "forward";
    s->a.execution_count = 1;
    s->a.tensors = &s->set;
    s->set.items = s->items;
    s->set.buffer_name = "buf";
}

/* Add a value: @p handles (n of them, 0: no entity handles), @p ops (may be
 * NULL), @p st its ScalarType, @p n values (as doubles, stored as @p st). */
static etp_logged_tensor *add(side *s, const char *key, etp_tensor_origin origin, int32_t instr,
                              const int64_t *handles, uint32_t nh, const char *ops, int st, const double *v,
                              uint32_t n)
{
    uint32_t i = s->set.count++;
    etp_logged_tensor *t = &s->items[i];
    t->key = (char *)key;
    t->origin = origin;
    t->execution = 0;
    t->chain = origin == ETP_TENSOR_PROGRAM_OUTPUT ? -1 : 0;
    t->instruction = origin == ETP_TENSOR_PROGRAM_OUTPUT ? -1 : instr;
    t->source_operators = ops;
    if (origin != ETP_TENSOR_PROGRAM_OUTPUT) {
        etp_entity *e = &s->ents[i];
        if (nh)
            memcpy(s->handles[i], handles, nh * sizeof *handles);
        e->handles = nh ? s->handles[i] : NULL;
        e->handle_count = nh;
        t->entity = e;
    }
    int64_t sizes[1] = {(int64_t)n};
    etp_error err;
    assert_int_equal(etp_tensor_view_init(&t->view, st, 1, sizes, NULL, s->bytes[i], "t", 0, key, &err), ETP_OK);
    for (uint32_t k = 0; k < n; k++) {
        if (st == ETP_ST_FLOAT) {
            float f = (float)v[k];
            memcpy(s->bytes[i] + 4 * k, &f, 4);
        } else if (st == ETP_ST_INT) {
            int32_t x = (int32_t)v[k];
            memcpy(s->bytes[i] + 4 * k, &x, 4);
        } else {
            int8_t x = (int8_t)v[k];
            memcpy(s->bytes[i] + k, &x, 1);
        }
    }
    t->has_bytes = 1;
    t->dtype_class = etp_dtype_class_of(st);
    return t;
}

static const etp_numeric_pair *pair_of(const etp_numeric_diff *d, const char *key)
{
    for (uint32_t i = 0; i < d->pair_count; i++)
        if (!strcmp(d->pairs[i].base->key, key))
            return &d->pairs[i];
    return NULL;
}

static double snr(const double *ref, const double *got, uint32_t n)
{
    double sr = 0, se = 0;
    for (uint32_t k = 0; k < n; k++) {
        sr += ref[k] * ref[k];
        se += (got[k] - ref[k]) * (got[k] - ref[k]);
    }
    return se == 0 ? INFINITY : 10 * log10(sr / se);
}

static void test_different_programs(void **state)
{
    (void)state;
    static side b, n;
    side_init(&b, "aaaa");
    side_init(&n, "bbbb");
    const double x[4] = {1, 2, 3, 4}, y[4] = {2, 4, 6, 8}, z[4] = {2, 4, 6, 8.5};
    const int64_t h1[] = {1}, h2[] = {2}, h3[] = {3}, hd[] = {1, 2, 3}, h4[] = {4}, h5[] = {5}, h6[] = {6};
    /* Base: portable kernels, one node each. */
    add(&b, "forward_0_0/0", ETP_TENSOR_INSTRUCTION, 0, h1, 1, NULL, ETP_ST_FLOAT, x, 4);
    add(&b, "forward_0_1/0", ETP_TENSOR_INSTRUCTION, 1, h2, 1, NULL, ETP_ST_FLOAT, y, 4);
    add(&b, "forward_0_2/0", ETP_TENSOR_INSTRUCTION, 2, h3, 1, NULL, ETP_ST_FLOAT, y, 4);
    add(&b, "forward_0_3/0", ETP_TENSOR_INSTRUCTION, 3, h4, 1, NULL, ETP_ST_FLOAT, x, 4);
    add(&b, "forward_0_4/0", ETP_TENSOR_INSTRUCTION, 4, h5, 1, NULL, ETP_ST_FLOAT, x, 2);
    const double q_ref[2] = {1, 2};
    etp_logged_tensor *bq = add(&b, "forward_0_5/0", ETP_TENSOR_INSTRUCTION, 5, h6, 1, NULL, ETP_ST_CHAR,
                                (const double[]){2, 4}, 2);
    bq->quant = (etp_quant_params){1, 0.5, 0};
    add(&b, "forward_0_6/0", ETP_TENSOR_INSTRUCTION, 6, NULL, 0, "aten.relu", ETP_ST_FLOAT, x, 2);
    add(&b, "output/0", ETP_TENSOR_PROGRAM_OUTPUT, -1, NULL, 0, NULL, ETP_ST_FLOAT, y, 4);
    /* New: one delegate call covering handles 1..3 logging its input, then
     * its output; the rest differ in shape, type or quantization. */
    add(&n, "forward_0_0/0", ETP_TENSOR_INSTRUCTION, 0, hd, 3, NULL, ETP_ST_FLOAT, x, 4);
    add(&n, "forward_0_0/1", ETP_TENSOR_INSTRUCTION, 0, hd, 3, NULL, ETP_ST_FLOAT, z, 4);
    add(&n, "forward_0_1/0", ETP_TENSOR_INSTRUCTION, 1, h4, 1, NULL, ETP_ST_FLOAT, x, 3);
    add(&n, "forward_0_2/0", ETP_TENSOR_INSTRUCTION, 2, h5, 1, NULL, ETP_ST_INT, x, 2);
    etp_logged_tensor *nq = add(&n, "forward_0_3/0", ETP_TENSOR_INSTRUCTION, 3, h6, 1, NULL, ETP_ST_CHAR,
                                (const double[]){4, 8}, 2);
    nq->quant = (etp_quant_params){1, 0.25, 0};
    add(&n, "forward_0_4/0", ETP_TENSOR_INSTRUCTION, 4, NULL, 0, "aten.relu", ETP_ST_FLOAT, x, 2);
    add(&n, "output/0", ETP_TENSOR_PROGRAM_OUTPUT, -1, NULL, 0, NULL, ETP_ST_FLOAT, z, 4);

    etp_numeric_diff *d;
    etp_error err;
    assert_int_equal(etp_numeric_diff_build(&b.a, &n.a, NULL, &d, &err), ETP_OK);
    assert_false(d->same_program);
    assert_string_equal(d->level, "debug_handle");
    /* Handles 1 and 2 end inside the delegate: unmatched; handle 3 is its
     * last: paired with the delegate's last value of the same shape. */
    assert_null(pair_of(d, "forward_0_0/0"));
    assert_null(pair_of(d, "forward_0_1/0"));
    const etp_numeric_pair *p = pair_of(d, "forward_0_2/0");
    assert_non_null(p);
    assert_string_equal(p->new_->key, "forward_0_0/1");
    assert_int_equal(p->level, ETP_NUMERIC_MATCH_DEBUG_HANDLE);
    assert_true(p->compared && p->diverged);
    assert_true(fabs(p->gap.snr_db - snr(y, z, 4)) < 1e-9);
    assert_true(fabs(p->gap.mse - 0.25 / 4) < 1e-12);
    /* Shape and element-type mismatches: pairs with a reason. */
    p = pair_of(d, "forward_0_3/0");
    assert_non_null(p);
    assert_false(p->compared);
    assert_non_null(strstr(p->reason, "shapes differ"));
    p = pair_of(d, "forward_0_4/0");
    assert_non_null(p);
    assert_false(p->compared);
    assert_non_null(strstr(p->reason, "element types differ"));
    /* Quantized both sides: dequantized equal (1, 2), stored integers not. */
    p = pair_of(d, "forward_0_5/0");
    assert_non_null(p);
    assert_true(p->compared && p->quantized && p->has_stored);
    assert_string_equal(p->primary, "dequantized");
    assert_true(isinf(p->gap.snr_db) && p->gap.snr_db > 0);
    assert_true(fabs(p->stored.snr_db - snr((const double[]){2, 4}, (const double[]){4, 8}, 2)) < 1e-9);
    assert_false(p->diverged);
    (void)q_ref;
    /* No handles: the source-operator level. */
    p = pair_of(d, "forward_0_6/0");
    assert_non_null(p);
    assert_int_equal(p->level, ETP_NUMERIC_MATCH_SOURCE_OPERATOR);
    assert_true(p->compared && !p->diverged);
    p = pair_of(d, "output/0");
    assert_non_null(p);
    assert_int_equal(p->level, ETP_NUMERIC_MATCH_OUTPUT_INDEX);
    assert_true(p->diverged);
    /* Counts, first divergence in base order, largest error. */
    assert_int_equal(d->pair_count, 6);
    assert_int_equal(d->base_unmatched, 2);
    assert_int_equal(d->new_unmatched, 1);
    assert_int_equal(d->incomparable, 2);
    assert_int_equal(d->diverged, 2);
    assert_string_equal(d->first_divergence->base->key, "forward_0_2/0");
    assert_string_equal(d->largest->base->key, "forward_0_2/0"); /* equal SNRs: the earlier */
    assert_true(etp_numeric_diff_min_snr(d) == snr(y, z, 4));
    etp_numeric_diff_free(d);
}

static void test_same_program_by_key(void **state)
{
    (void)state;
    static side b, n;
    side_init(&b, "cccc");
    side_init(&n, "cccc");
    const double x[3] = {1, -2, 3}, y[3] = {1, -2, 3.00001}, w[3] = {1, -2, 4};
    const int64_t h[] = {9};
    add(&b, "forward_0_0/0", ETP_TENSOR_INSTRUCTION, 0, h, 1, NULL, ETP_ST_FLOAT, x, 3);
    add(&b, "forward_0_1/0", ETP_TENSOR_INSTRUCTION, 1, h, 1, NULL, ETP_ST_FLOAT, x, 3);
    add(&b, "forward_0_2/0", ETP_TENSOR_INSTRUCTION, 2, h, 1, NULL, ETP_ST_FLOAT, x, 3);
    add(&n, "forward_0_2/0", ETP_TENSOR_INSTRUCTION, 2, h, 1, NULL, ETP_ST_FLOAT, w, 3);
    add(&n, "forward_0_1/0", ETP_TENSOR_INSTRUCTION, 1, h, 1, NULL, ETP_ST_FLOAT, y, 3);
    add(&n, "forward_0_0/0", ETP_TENSOR_INSTRUCTION, 0, h, 1, NULL, ETP_ST_FLOAT, x, 3);
    etp_numeric_diff_options o;
    etp_numeric_diff_options_init(&o);
    etp_numeric_diff *d;
    etp_error err;
    assert_int_equal(etp_numeric_diff_build(&b.a, &n.a, &o, &d, &err), ETP_OK);
    assert_true(d->same_program);
    assert_string_equal(d->level, "key");
    assert_int_equal(d->pair_count, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_string_equal(d->pairs[i].base->key, d->pairs[i].new_->key);
    /* 3.00001 as float32 is within rtol 1e-5 of 3: the first divergence
     * is instruction 2, the largest error too. */
    assert_false(pair_of(d, "forward_0_1/0")->diverged);
    assert_string_equal(d->first_divergence->base->key, "forward_0_2/0");
    assert_string_equal(d->largest->base->key, "forward_0_2/0");
    etp_numeric_diff_free(d);
    /* A tighter tolerance moves the first divergence earlier. */
    o.tol.rtol = 0;
    o.tol.atol = 0;
    assert_int_equal(etp_numeric_diff_build(&b.a, &n.a, &o, &d, &err), ETP_OK);
    assert_string_equal(d->first_divergence->base->key, "forward_0_1/0");
    assert_string_equal(d->largest->base->key, "forward_0_2/0");
    etp_numeric_diff_free(d);
    /* Refusals. */
    o.execution = 1;
    assert_int_equal(etp_numeric_diff_build(&b.a, &n.a, &o, &d, &err), ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "execution 1"));
    n.a.tensors = NULL;
    assert_int_equal(etp_numeric_diff_build(&b.a, &n.a, NULL, &d, &err), ETP_E_USAGE);
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_different_programs),
        cmocka_unit_test(test_same_program_by_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
