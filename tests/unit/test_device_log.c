/* test_device_log.c - etprof/device_log.h: strict base64 against RFC 4648's
 * test vectors, and each format's fields on small hand-written logs (values
 * derived by hand from the text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/device_log.h"

static void test_base64_vectors(void **state)
{
    (void)state;
    /* RFC 4648 §10. */
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        uint8_t *out;
        size_t n, bad;
        assert_int_equal(etp_base64_decode(enc[i], strlen(enc[i]), &out, &n, &bad), 0);
        assert_int_equal(n, strlen(plain[i]));
        assert_memory_equal(out, plain[i], n);
        free(out);
    }
    static const struct {
        const char *s;
        size_t bad_at;
    } bad[] = {{"Zm9", 3}, {"Zm=v", 2}, {"Zh==", 1}, {"Zm9=", 2}, {"Z m9", 1}, {"====", 0}, {"Zg=", 3}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *out = (uint8_t *)1;
        size_t n, at = 99;
        assert_int_equal(etp_base64_decode(bad[i].s, strlen(bad[i].s), &out, &n, &at), -1);
        assert_null(out);
        assert_int_equal(at, bad[i].bad_at);
    }
}

static etp_device_log *parse(const char *text)
{
    etp_device_log *l = NULL;
    etp_error err;
    assert_int_equal(etp_device_log_parse(text, strlen(text), "t.log", &l, &err), ETP_OK);
    return l;
}

static void test_time_block(void **state)
{
    (void)state;
    etp_device_log *l = parse("x\n\tCommand being timed: \"./r a\"\n\tUser time (seconds): 1.25\n"
                              "\tSystem time (seconds): 0.50\n\tPercent of CPU this job got: 325%\n"
                              "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n"
                              "\tMaximum resident set size (kbytes): 43600\n\tExit status: 0\n");
    assert_true(l->formats & ETP_DL_GNU_TIME);
    assert_string_equal(l->time.command, "./r a");
    assert_true(l->time.user_s == 1.25 && l->time.sys_s == 0.5 && l->time.cpu_percent == 325);
    assert_true(l->time.wall_s == 3723.0); /* 1 h 2 min 3 s */
    assert_int_equal(l->time.max_rss_kb, 43600);
    assert_int_equal(l->time.line, 2);
    etp_device_log_free(l);
}

static void test_arm_and_rtt(void **state)
{
    (void)state;
    etp_device_log *l = parse("I [executorch:arm_perf_monitor.cpp:169 StopMeasurements()] NPU Inferences : 4\r\n"
                              "ethosu_pmu_cycle_cntr :  800 (200.00 per inference)\r\n"
                              "ethosu_pmu_cntr1 : 12 (3.00 per inference)\r\n"
                              "Ethos-U PMU Events:[AXI0_RD_DATA_BEAT_RECEIVED, NPU_IDLE]\r\n"
                              "Inference NPU ratio: ?.?? %\r\n"
                              "00> Inference: 12.345 ms\r\nfoo Inference: 1.000 ms\r\n"
                              "VGF_DATA_GRAPH_DEVICE_TIME ticks=10 duration_ns=2500000.000 duration_ms=2.500000\n");
    assert_int_equal(l->arm.npu_inferences, 4);
    assert_int_equal(l->arm.pmu_cycles, 800);
    assert_int_equal(l->arm.pmu_count, 2);
    assert_int_equal(l->arm.pmu[1], 12);
    assert_int_equal(l->arm.pmu_event_count, 2);
    assert_string_equal(l->arm.pmu_events[1], "NPU_IDLE");
    assert_string_equal(l->arm.npu_type, "Ethos-U55 or U65");
    assert_false(l->arm.has_npu_ratio);
    assert_int_equal(l->rtt_ms.count, 2);
    assert_true(l->rtt_ms.v[0] == 12.345 && l->rtt_ms.v[1] == 1.0);
    assert_int_equal(l->vgf_ns.count, 1);
    assert_true(l->vgf_ns.v[0] == 2500000.0);
    etp_device_log_free(l);
}

static void test_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Inference: x ms\n",
        "VGF_DATA_GRAPH_DEVICE_TIME ticks=10 duration_ns=2500000.000 duration_ms=3.000000\n",
        "#[RUN THIS]\necho \"Zm9v\" | base64 -d >etdump.bin\n",
        "#[RUN THIS]\necho \"Zm9v\" | base64 -d >etdump.bin\necho \"Zm9w\" | base64 -d >etdump.bin\n#[END]\n",
        "\tMaximum resident set size (kbytes): lots\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        etp_device_log *l = (etp_device_log *)1;
        etp_error err;
        assert_int_not_equal(etp_device_log_parse(bad[i], strlen(bad[i]), "t.log", &l, &err), ETP_OK);
        assert_null(l);
        assert_string_equal(err.file, "t.log");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_vectors),
        cmocka_unit_test(test_time_block),
        cmocka_unit_test(test_arm_and_rtt),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
