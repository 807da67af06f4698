/* test_units.c - the one unit table (etprof/units.h): every unit's printed
 * name reads back, tick units and only they parse as --unit spellings,
 * conversions stay within a dimension and never mix two cycle clocks, and
 * the divisors are the Inspector's (F[source] / F[target]). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/units.h"

static void test_names_read_back(void **state)
{
    (void)state;
    assert_int_equal(etp_unit_count(), ETP_UNIT_LIMIT);
    for (unsigned i = 0; i < etp_unit_count(); i++) {
        etp_unit u = ETP_UNIT_LIMIT;
        assert_int_equal(etp_unit_from_name(etp_unit_name((etp_unit)i), &u), 0);
        assert_int_equal(u, i);
        assert_true(etp_unit_per_base((etp_unit)i) > 0);
    }
    assert_string_equal(etp_unit_name(ETP_UNIT_LIMIT), "?");
    assert_int_equal(etp_unit_from_name("MS", &(etp_unit){0}), -1);
    assert_int_equal(etp_unit_from_name(NULL, &(etp_unit){0}), -1);
}

static void test_tick_units_parse(void **state)
{
    (void)state;
    static const char *const ticks[] = {"ns", "us", "ms", "s", "cycles"};
    for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
        etp_unit u;
        assert_int_equal(etp_unit_parse(ticks[i], &u), 0);
        assert_true(etp_unit_is_tick(u));
        assert_string_equal(etp_unit_name(u), ticks[i]);
    }
    static const char *const others[] = {"bytes", "KiB", "count", "%", "CPU cycles", "NPU cycles", "min"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        etp_unit u = ETP_UNIT_LIMIT;
        assert_int_equal(etp_unit_parse(others[i], &u), -1);
        assert_int_equal(u, ETP_UNIT_LIMIT); /* untouched */
    }
}

static void test_factors(void **state)
{
    (void)state;
    assert_true(etp_unit_factor(ETP_UNIT_MS, ETP_UNIT_US) > 999.9999 &&
                etp_unit_factor(ETP_UNIT_MS, ETP_UNIT_US) < 1000.0001);
    assert_true(etp_unit_factor(ETP_UNIT_NS, ETP_UNIT_MS) == 1e-6);
    assert_true(etp_unit_factor(ETP_UNIT_KIB, ETP_UNIT_BYTES) == 1024.0);
    assert_true(etp_unit_factor(ETP_UNIT_CYCLES, ETP_UNIT_CYCLES) == 1.0);
    /* across dimensions, and between two clocks: no conversion */
    assert_true(etp_unit_factor(ETP_UNIT_MS, ETP_UNIT_BYTES) == 0.0);
    assert_true(etp_unit_factor(ETP_UNIT_CYCLES, ETP_UNIT_MS) == 0.0);
    assert_true(etp_unit_factor(ETP_UNIT_CPU_CYCLES, ETP_UNIT_NPU_CYCLES) == 0.0);
    assert_true(etp_unit_factor(ETP_UNIT_COUNT, ETP_UNIT_PERCENT) == 0.0);
    assert_int_equal(etp_unit_dim(ETP_UNIT_NPU_CYCLES), ETP_DIM_CYCLES);
    assert_int_equal(etp_unit_dim(ETP_UNIT_KIB), ETP_DIM_BYTES);
}

static void test_divisors(void **state)
{
    (void)state;
    assert_true(etp_unit_divisor(ETP_UNIT_NS, ETP_UNIT_MS) == 1e6);
    assert_true(etp_unit_divisor(ETP_UNIT_NS, ETP_UNIT_US) == 1e3);
    assert_true(etp_unit_divisor(ETP_UNIT_S, ETP_UNIT_MS) == 1e-3);
    assert_true(etp_unit_divisor(ETP_UNIT_CYCLES, ETP_UNIT_CYCLES) == 1.0);
    assert_true(etp_unit_divisor(ETP_UNIT_CYCLES, ETP_UNIT_MS) == 0.0);
    assert_true(etp_unit_divisor(ETP_UNIT_MS, ETP_UNIT_CYCLES) == 0.0);
    assert_true(etp_unit_divisor(ETP_UNIT_BYTES, ETP_UNIT_KIB) == 0.0); /* not tick units */
    assert_true(etp_unit_divisor_hz(1e8, ETP_UNIT_MS) == 1e5);
    assert_true(etp_unit_divisor_hz(1e8, ETP_UNIT_CYCLES) == 0.0);
    assert_true(etp_unit_divisor_hz(0, ETP_UNIT_MS) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_read_back),
        cmocka_unit_test(test_tick_units_parse),
        cmocka_unit_test(test_factors),
        cmocka_unit_test(test_divisors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
