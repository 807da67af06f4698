/* test_jsonw.c - number formatting of the JSON writer and of Python's float
 * repr: the shortest round-trip digits (util/dtoa.c) are exactly those of a
 * plain upward scan over "%.*g" precisions (the definition), on every power
 * of two, subnormals, random bit patterns, and timing-like values; and every
 * text reads back; strings are escaped as a byte-at-a-time reference does,
 * and a two-member object writes what its six calls do. test_dtoa.c compares with the former printf search. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/jsonw.h"
#include "outputs/mexplorer/me_pystr.h"
#include "testutil.h"

/* The definition: the first precision from 1 up whose text reads back. */
static void reference(double v, char *out, size_t size)
{
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
    if (!strpbrk(out, ".eEn")) {
        out[n++] = '.';
        out[n++] = '0';
        out[n] = '\0';
    }
}

/* Python repr digits the old way: the first %.*e precision from 0 up that
 * reads back; then the same layout code as etp_py_repr_double uses, so only
 * the digit search differs. */
static int py_precision_scan(double v)
{
    char e[40];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, v);
        if (strtod(e, NULL) == v)
            return prec;
    }
    return 16;
}

static unsigned long checked;

static void check_py(double v)
{
    char got[64], want_e[40];
    etp_py_repr_double(got, sizeof got, v);
    assert_true(strtod(got, NULL) == v);
    /* Same significant digits as the scan's text. */
    snprintf(want_e, sizeof want_e, "%.*e", py_precision_scan(v), v);
    char a[24], b[24];
    size_t na = 0, nb = 0;
    int seen_e = 0;
    for (const char *p = want_e; *p && !seen_e; p++) {
        if (*p == 'e')
            seen_e = 1;
        else if (*p >= '0' && *p <= '9')
            a[na++] = *p;
    }
    while (na > 1 && a[na - 1] == '0')
        na--;
    /* Digits of the repr text, without leading zeros and the exponent. */
    int started = 0;
    for (const char *p = got; *p && *p != 'e'; p++) {
        if (*p < '0' || *p > '9')
            continue;
        if (*p == '0' && !started)
            continue;
        started = 1;
        if (nb < sizeof b)
            b[nb++] = *p;
    }
    while (nb > 1 && b[nb - 1] == '0')
        nb--;
    if (na == 1 && a[0] == '0')
        return; /* zero: nothing to compare */
    if (na != nb || memcmp(a, b, na))
        fail_msg("%a: repr %s, the scan's digits %.*s", v, got, (int)na, a);
}

static void check(double v)
{
    if (!isfinite(v))
        return;
    check_py(v);
    char got[64], want[64];
    int n = etp_format_double(got, sizeof got, v);
    reference(v, want, sizeof want);
    if (strcmp(got, want))
        fail_msg("%a: got %s, the upward scan gives %s", v, got, want);
    assert_int_equal((size_t)n, strlen(got));
    assert_true(strtod(got, NULL) == v);
    checked++;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
    return tu_rand(&rng);
}

static void test_powers_of_two(void **state)
{
    (void)state;
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        check(p);
        check(-p);
        check(nextafter(p, 0));
        check(nextafter(p, INFINITY));
    }
}

static void test_random_bits(void **state)
{
    (void)state;
    for (int i = 0; i < 50000; i++) {
        uint64_t b = next();
        double v;
        memcpy(&v, &b, sizeof v);
        check(v);
    }
}

static void test_timing_like(void **state)
{
    (void)state;
    /* Averages and percentiles: tick sums divided by counts and units. */
    for (int i = 0; i < 50000; i++) {
        uint64_t ticks = next() % 100000000000ull;
        uint64_t n = 1 + next() % 1000;
        check((double)ticks / 1e6);
        check((double)ticks / (double)n / 1e6);
        check((double)(ticks % 100000) / 1e3);
    }
    check(0.0);
    check(-0.0);
    check(1.0);
    check(1000.0);
    check(0.1);
    check(1e21);
    check(123456789012345678.0);
    char b[64];
    etp_format_double(b, sizeof b, NAN);
    assert_string_equal(b, "null");
    printf("%lu values formatted as the upward scan does\n", checked);
}

/* The escaping rules one byte at a time (the writer checks eight at once). */
static size_t reference_escape(const unsigned char *p, size_t n, char *out, int escape_lt)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '<' && escape_lt) {
            memcpy(out + o, "\\u003c", 6);
            o += 6;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)sprintf(out + o, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else if (c >= 0x80) {
            size_t need = (c >= 0xf0 && c <= 0xf4) ? 3 : (c >= 0xe0) ? 2 : (c >= 0xc2 && c < 0xe0) ? 1 : 0;
            int ok = need > 0 && i + need < n;
            for (size_t k = 1; ok && k <= need; k++)
                if ((p[i + k] & 0xc0) != 0x80)
                    ok = 0;
            if (ok) {
                memcpy(out + o, p + i, need + 1);
                o += need + 1;
                i += need;
            } else {
                o += (size_t)sprintf(out + o, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            }
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    return o;
}

static void test_string_escapes(void **state)
{
    (void)state;
    static const unsigned char pick[] = {'a', 'Z', ' ', '~', '"', '\\', '\n', '\t', 1, 0x1f, 0x7f, '<',
                                         0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0xff};
    unsigned char in[48];
    char want[48 * 6 + 3];
    for (int t = 0; t < 60000; t++) {
        size_t n = next() % sizeof in;
        int plain = (int)(next() % 3); /* mostly plain text, as in bundles */
        for (size_t i = 0; i < n; i++)
            in[i] = plain ? (unsigned char)(0x20 + next() % 0x5f) : pick[next() % sizeof pick];
        if (n && plain)
            in[next() % n] = pick[next() % sizeof pick];
        /* every other string as for a page's <script> element */
        int lt = t & 1;
        etp_jw w;
        etp_jw_init_mem(&w, 0);
        w.escape_lt = lt;
        etp_jw_strn(&w, (const char *)in, n);
        size_t len;
        char *got = etp_jw_take(&w, &len);
        assert_non_null(got);
        size_t wn = reference_escape(in, n, want, lt);
        assert_int_equal(len, wn);
        assert_memory_equal(got, want, wn);
        free(got);
        /* The two-member object writes what its six calls write, inside a
         * container (a separator before it), compact and indented. */
        char *text[2];
        for (int way = 0; way < 2; way++) {
            etp_jw_init_mem(&w, t % 4 == 3);
            w.escape_lt = lt;
            etp_jw_arr_begin(&w);
            etp_jw_int(&w, 1);
            const char *v1 = t % 7 == 0 ? NULL : (const char *)in, *v2 = "plain";
            char v1z[sizeof in + 1];
            if (v1) {
                memcpy(v1z, in, n);
                v1z[n] = 0; /* as a C string: up to a NUL it may hold */
                v1 = v1z;
            }
            if (way)
                ETP_JW_OBJ2S_LIT(&w, "key", v1, "value", v2);
            else {
                etp_jw_obj_begin(&w);
                ETP_JW_KSTR_LIT(&w, "key", v1);
                ETP_JW_KSTR_LIT(&w, "value", v2);
                etp_jw_obj_end(&w);
            }
            etp_jw_arr_end(&w);
            text[way] = etp_jw_take(&w, NULL);
            assert_non_null(text[way]);
        }
        assert_string_equal(text[1], text[0]);
        free(text[0]);
        free(text[1]);
    }
}

/* A document of many small objects, its member names given as literals
 * (inline path) or through etp_jw_key, the two branches alike on purpose:
 * the same bytes in compact and
 * indented writers, in memory and through a FILE (across its flushes), with
 * line breaks asked for. */
static void doc(etp_jw *w, int lit)
{
    etp_jw_obj_begin(w);
    if (lit)
        ETP_JW_KEY_LIT(w, "rows");
    else
        etp_jw_key(w, "rows");
    etp_jw_arr_begin(w);
    for (int i = 0; i < 20000; i++) {
        if (i % 7 == 0)
            etp_jw_break(w);
        etp_jw_obj_begin(w);
        if (lit) {
            ETP_JW_KINT_LIT(w, "id", i);
            ETP_JW_KSTR_LIT(w, "name", "node");
            ETP_JW_KEY_LIT(w, "empty");
            etp_jw_obj_begin(w);
            etp_jw_obj_end(w);
            ETP_JW_KDOUBLE_LIT(w, "a_longer_member_name_than_most", i / 3.0);
        } else {
            etp_jw_kint(w, "id", i);
            etp_jw_kstr(w, "name", "node");
            etp_jw_key(w, "empty");
            etp_jw_obj_begin(w);
            etp_jw_obj_end(w);
            etp_jw_kdouble(w, "a_longer_member_name_than_most", i / 3.0);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static char *doc_text(int lit, int pretty, int file)
{
    etp_jw w;
    if (!file) {
        etp_jw_init_mem(&w, pretty);
        doc(&w, lit);
        return etp_jw_take(&w, NULL);
    }
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_jw_init_file(&w, fp, pretty);
    doc(&w, lit);
    assert_int_equal(etp_jw_finish(&w), 0);
    char *t = tu_stream_text(fp, NULL);
    assert_non_null(t);
    fclose(fp);
    return t;
}

static void test_literal_keys(void **state)
{
    (void)state;
    for (int pretty = 0; pretty < 2; pretty++)
        for (int file = 0; file < 2; file++) {
            char *a = doc_text(1, pretty, file), *b = doc_text(0, pretty, file);
            assert_non_null(a);
            assert_non_null(b);
            assert_true(strlen(a) > 2 * ETP_JW_FLUSH_AT);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
}

/* Integers print as printf("%lld") does: every power of ten and its
 * neighbours, the extremes and random values. */
static void check_int(int64_t v)
{
    char want[32], got[32];
    snprintf(want, sizeof want, "%lld", (long long)v);
    int n = etp_format_int(got, v);
    assert_string_equal(got, want);
    assert_int_equal(n, (int)strlen(want));
}

static void test_integers(void **state)
{
    (void)state;
    check_int(INT64_MIN);
    check_int(INT64_MAX);
    check_int(0);
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10)
        for (int64_t d = -1; d <= 1; d++) {
            check_int(p + d);
            check_int(-(p + d));
        }
    for (int i = 0; i < 200000; i++) {
        int64_t v = (int64_t)next();
        check_int(v);
        check_int(v >> (next() % 64));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_timing_like),
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_literal_keys),
        cmocka_unit_test(test_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
