/* test_debug_buffer.c - the ETDump's debug events against a debug buffer
 * (etp_etdump_check_debug_buffer) on the real intermediate-output run, whose
 * four logged tensors are int32 2x2 (16 bytes) at offsets 48, 112, 176 and
 * 240 (read off `etprof dump --json` of the fixture, 2026-12): a buffer of
 * 256 bytes holds them all, one of 255 bytes cuts the last one; the element
 * sizes of the runtime's ScalarType enum; and the Ethos-U columns of a
 * DelegateCall instruction linked to its call site. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/columns.h"
#include "etprof/device_report.h"
#include "etprof/etdump.h"
#include "testutil.h"

#define DUMP "real-runs/et_bundled_program_debug_intermediate.etdp"

static etp_etdump *open_dump(void)
{
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open(tu_fixture(DUMP), &d, &err), ETP_OK);
    return d;
}

static void tensors_inside(void **state)
{
    (void)state;
    etp_etdump *d = open_dump();
    etp_debug_buffer_check c;
    etp_error err;
    /* The real buffer (262,144 bytes) and the smallest that holds them all. */
    for (uint64_t size = 256; size <= 262144; size *= 1024) {
        etp_error_clear(&err);
        assert_int_equal(etp_etdump_check_debug_buffer(d, size, "buf.bin", &c, &err), ETP_OK);
        assert_int_equal(c.debug_events, 4);
        assert_int_equal(c.tensors, 4);
        assert_int_equal(c.empty_tensors, 0);
        assert_int_equal(c.bytes_referenced, 240 + 16);
    }
    etp_etdump_free(d);
}

static void buffer_too_short(void **state)
{
    (void)state;
    etp_etdump *d = open_dump();
    etp_debug_buffer_check c;
    etp_error err;
    etp_error_clear(&err);
    assert_int_equal(etp_etdump_check_debug_buffer(d, 255, "short.bin", &c, &err), ETP_E_MISMATCH);
    char line[1200];
    etp_error_format(&err, line, sizeof line);
    assert_null(strchr(line, '\n'));
    /* The run (RunData 1), the event (its 11th), the tensor's offset and the buffer. */
    assert_non_null(strstr(line, "run 1 event 10"));
    assert_non_null(strstr(line, "offset 240"));
    assert_non_null(strstr(line, "255-byte debug buffer short.bin"));
    assert_true(err.offset > 0);
    /* Cut before the first tensor's end: the first one fails (run 1 event 0). */
    etp_error_clear(&err);
    assert_int_equal(etp_etdump_check_debug_buffer(d, 63, "b", &c, &err), ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "run 1 event 0:"));
    etp_error_clear(&err);
    assert_int_equal(etp_etdump_check_debug_buffer(d, 0, "b", &c, &err), ETP_E_MISMATCH);
    etp_etdump_free(d);
}

static void unverified_dump_refused(void **state)
{
    (void)state;
    etp_etdump *d = NULL;
    etp_error err;
    assert_int_equal(etp_etdump_open_deferred(tu_fixture(DUMP), &d, &err), ETP_OK);
    etp_debug_buffer_check c;
    assert_int_equal(etp_etdump_check_debug_buffer(d, 1 << 20, "b", &c, &err), ETP_E_USAGE);
    assert_int_equal(etp_etdump_verify(d, &err), ETP_OK);
    assert_int_equal(etp_etdump_check_debug_buffer(d, 1 << 20, "b", &c, &err), ETP_OK);
    assert_int_equal(c.tensors, 4);
    etp_etdump_free(d);
}

static void scalar_type_sizes(void **state)
{
    (void)state;
    /* c10::elementSize: Byte, Int, Long, Half, Float, Double, ComplexDouble,
     * Bool, QInt32, BFloat16, Bits16, Float8_e4m3fn, UInt16, UInt32, UInt64. */
    static const int type[] = {0, 3, 4, 5, 6, 7, 10, 11, 14, 15, 22, 24, 27, 28, 29};
    static const uint32_t size[] = {1, 4, 8, 2, 4, 8, 16, 1, 4, 2, 2, 1, 2, 4, 8};
    for (size_t i = 0; i < sizeof type / sizeof type[0]; i++)
        assert_int_equal(etp_scalar_type_size(type[i]), size[i]);
    assert_int_equal(etp_scalar_type_size(30), 0);
    assert_int_equal(etp_scalar_type_size(-1), 0);
    assert_int_equal(etp_scalar_type_size(127), 0);
}

static void npu_columns(void **state)
{
    (void)state;
    etp_npu_call_site site;
    memset(&site, 0, sizeof site);
    site.execute_avg = 10;
    site.npu_avg = 7;
    site.input_copy_avg = 2;
    site.rest_avg = 1;
    site.has_npu = site.has_input_copy = 1;
    etp_entity call, other;
    memset(&call, 0, sizeof call);
    memset(&other, 0, sizeof other);
    call.kind = other.kind = ETP_ENTITY_INSTRUCTION;
    call.npu = &site;
    const etp_column *x = etp_column_get(ETP_COL_NPU_EXECUTE_AVG), *n = etp_column_get(ETP_COL_NPU_AVG),
                     *in = etp_column_get(ETP_COL_NPU_INPUT_COPY_AVG),
                     *out = etp_column_get(ETP_COL_NPU_OUTPUT_COPY_AVG), *r = etp_column_get(ETP_COL_NPU_REST_AVG);
    const etp_column *all[] = {x, n, in, out, r};
    for (size_t k = 0; k < 5; k++) {
        assert_false(all[k]->present(&other));
        assert_true(all[k]->in_unit);
        assert_int_equal(all[k]->type, ETP_COLT_NUM);
    }
    assert_true(x->present(&call) && n->present(&call) && in->present(&call) && r->present(&call));
    assert_false(out->present(&call)); /* no output copy event: left empty, not 0 */
    assert_true(x->get(NULL, &call).d == 10 && n->get(NULL, &call).d == 7 &&
                in->get(NULL, &call).d == 2 && r->get(NULL, &call).d == 1);
    site.has_output_copy = 1;
    site.output_copy_avg = 0.5;
    assert_true(out->present(&call) && out->get(NULL, &call).d == 0.5);
    char h[48];
    etp_column_header(in, ETP_UNIT_CYCLES, h, sizeof h);
    assert_string_equal(h, "npu_input_copy_avg_cycles");
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tensors_inside),
        cmocka_unit_test(buffer_too_short),
        cmocka_unit_test(unverified_dump_refused),
        cmocka_unit_test(scalar_type_sizes),
        cmocka_unit_test(npu_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
