/* test_str.c - util/str.h: joined name lists against the snprintf loop they
 * replace (same bytes, cut included), and the heap string helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/str.h"

/* What the call sites wrote before etp_join_names: one snprintf per name
 * into a fixed buffer. */
static void reference_join(char *buf, size_t cap, const char *const *names, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", i ? ", " : "", names[i] ? names[i] : "?");
    }
}

static void test_join_matches_reference(void **state)
{
    (void)state;
    static const char *const names[] = {"forward", "", "get_tensor", NULL, "a_rather_long_method_name",
                                        "x"};
    size_t count = sizeof names / sizeof *names;
    for (size_t n = 0; n <= count; n++)
        for (size_t cap = 1; cap <= 64; cap++) {
            char want[64], got[64];
            memset(got, 'Z', sizeof got);
            reference_join(want, cap, names, n);
            assert_ptr_equal(etp_join_names(got, cap, names, n, etp_string_at), got);
            assert_string_equal(got, want);
        }
}

static void test_join_plain(void **state)
{
    (void)state;
    static const char *const names[] = {"a", "b", "c"};
    char buf[16];
    assert_string_equal(etp_join_names(buf, sizeof buf, names, 3, etp_string_at), "a, b, c");
    assert_string_equal(etp_join_names(buf, sizeof buf, names, 0, etp_string_at), "");
    assert_string_equal(etp_join_names(buf, 6, names, 3, etp_string_at), "a, b,");
}

static void test_strings(void **state)
{
    (void)state;
    assert_null(etp_strdup(NULL));
    char *s = etp_strdup("abc");
    assert_string_equal(s, "abc");
    free(s);
    s = etp_strndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    s = etp_strprintf("%s_%d", "m", 7);
    assert_string_equal(s, "m_7");
    free(s);
    /* longer than the stack buffer: the second formatting pass */
    char big[301];
    memset(big, 'q', 300);
    big[300] = '\0';
    s = etp_strprintf("<%s>", big);
    assert_int_equal(strlen(s), 302);
    assert_true(s[0] == '<' && s[301] == '>' && !memcmp(s + 1, big, 300));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_matches_reference),
        cmocka_unit_test(test_join_plain),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
