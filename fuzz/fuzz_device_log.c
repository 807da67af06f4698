/* fuzz_device_log.c - libFuzzer target: the whole device-log reader (every
 * format's lines and the carried base64 files together). */
#include <stddef.h>
#include <stdint.h>

#include "etprof/device_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_device_log *l;
    if (etp_device_log_parse((const char *)data, size, "fuzz", &l, &err) == ETP_OK)
        etp_device_log_free(l);
    return 0;
}
