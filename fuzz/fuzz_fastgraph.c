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

#include "formats/etrecord_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fast decoder on @p text (squeezed when @p raw is NULL, else as
 * stored under the huge-string rule) against jansson on @p slow_sq. */
static void check(const char *text, size_t len, etr_fast_raw *raw, const etr_squeeze *slow_sq)
{
    etp_exported_program fast, slow;
    memset(&fast, 0, sizeof fast);
    memset(&slow, 0, sizeof slow);
    fast.entry = slow.entry = "fuzz";
    etr_arena fa = {0}, sa = {0};
    etr_fast_status fs = etr_program_decode_fast(text, len, &fast, &fa, raw);

    json_t *doc = NULL;
    etp_error err;
    etp_error_clear(&err);
    etp_status st = etr_json_load(slow_sq, "fuzz", "fuzz", &doc, &err);
    if (!st)
        st = etr_program_decode(doc, &slow, &sa, "fuzz", &err);
    json_decref(doc);

    if (fs == ETR_FAST_OK) {
        if (st) {
            fprintf(stderr, "fast path OK, jansson path failed: %s\n", err.message);
            abort();
        }
        char buf[256];
        const char *d = etr_program_diff(&fast, &slow, buf, sizeof buf);
        if (d) {
            fprintf(stderr, "fast and jansson results differ: %s\n", d);
            abort();
        }
        if (raw && (raw->skipped_strings != slow_sq->skipped_strings ||
                    raw->skipped_bytes != slow_sq->skipped_bytes)) {
            fprintf(stderr, "huge strings counted differently from squeezing\n");
            abort();
        }
    } else if (fs != ETR_FAST_DECLINE || fast.nodes || fast.node_count || fast.inputs ||
               fast.outputs || fast.schema_version || fast.handle_index_) {
        fprintf(stderr, "fast path: status %d, or it declined but changed the program\n", (int)fs);
        abort();
    }
    etr_arena_free(&fa);
    etr_arena_free(&sa);
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
