/* fuzz_log_base64.c - libFuzzer target: the strict base64 decoder, checked
 * against re-encoding (a decode that succeeds must round-trip exactly). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/device_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *out;
    size_t n, bad;
    if (etp_base64_decode((const char *)data, size, &out, &n, &bad))
        return 0;
    /* Re-encode and compare: strict decoding accepts only canonical text. */
    char *enc = malloc(size + 4);
    size_t k = 0;
    for (size_t i = 0; enc && i < n; i += 3) {
        uint32_t w = (uint32_t)out[i] << 16 | (i + 1 < n ? (uint32_t)out[i + 1] << 8 : 0) |
                     (i + 2 < n ? out[i + 2] : 0);
        enc[k++] = alphabet[w >> 18 & 63];
        enc[k++] = alphabet[w >> 12 & 63];
        enc[k++] = i + 1 < n ? alphabet[w >> 6 & 63] : '=';
        enc[k++] = i + 2 < n ? alphabet[w & 63] : '=';
    }
    if (enc && (k != size || memcmp(enc, data, size)))
        abort();
    free(enc);
    free(out);
    return 0;
}
