/* fuzz_runner_log.c - libFuzzer target: the runner log parser. */
#include <stddef.h>
#include <stdint.h>

#include "etprof/runner_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_runner_log *l;
    if (etp_runner_log_parse((const char *)data, size, "fuzz", &l, &err) == ETP_OK)
        etp_runner_log_free(l);
    return 0;
}
