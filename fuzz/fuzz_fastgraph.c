/* fuzz_fastgraph.c - differential target for the one-pass exported-program
 * decoder: any bytes, squeezed as the reader does (by the first byte's
 * choice with a tiny huge-string threshold) and as stored, go to
 * etr_program_decode_fast and, squeezed and pruned as the reader does for
 * it (or, by that byte's choice, not pruned), to json_loadb +
 * etr_program_decode. The
 * process aborts if the fast path says OK where jansson fails, if the two
 * programs differ, or if a declining fast path touched the program.
 * Seeds: program entries of real ETRecords (fuzz_smoke.sh extracts them)
 * and fuzz/fuzz_fastgraph.dict. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord/etrecord_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fast decoder on @p text (squeezed when @p raw is NULL, else as
 * stored under the huge-string rule) against jansson on @p slow_sq. */
static void check(const char *text, size_t len, etr_fast_raw *raw, const etr_squeeze *slow_sq)
{
    char buf[512];
    const char *why = etr_fast_check(text, len, raw, slow_sq, NULL, buf, sizeof buf);
    if (why) {
        fprintf(stderr, "%s\n", why);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    /* bit 0: prune jansson's copy as for program entries; bit 1: drop
     * strings over 24 bytes */
    size_t huge = (data[0] & 2) ? 24 : ETP_ETRECORD_HUGE_STRING;
    etr_squeeze sq[2];
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        etr_squeeze_init(&sq[k], huge, 1u << 22);
        ok = ok && etr_squeeze_feed(&sq[k], (const char *)data + 1, size - 1) == 0 &&
             etr_squeeze_finish(&sq[k]) == 0;
    }
    if (ok) {
        if (data[0] & 1)
            etr_squeeze_prune(&sq[1]);
        check(sq[0].buf, sq[0].len, NULL, &sq[1]);
        /* as stored, the way the reader decodes entries read whole */
        char *text = malloc(size);
        if (text) {
            memcpy(text, data + 1, size - 1);
            text[size - 1] = '\0';
            etr_fast_raw raw = {huge, 0, 0};
            check(text, size - 1, &raw, &sq[1]);
            free(text);
        }
    }
    etr_squeeze_free(&sq[0]);
    etr_squeeze_free(&sq[1]);
    return 0;
}
