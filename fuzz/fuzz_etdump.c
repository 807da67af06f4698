/* fuzz_etdump.c - libFuzzer target: ETDump reader + inspect grouping, and
 * a differential check of the deferred open (events checked while they are
 * decoded) against the verifying one: the same result or the same error;
 * and the debug-buffer check, whose verdict must follow the buffer's size:
 * every tensor fits a buffer of exactly bytes_referenced bytes, one byte
 * less is a mismatch.
 * Build: CC=clang cmake -S . -B build-fuzz -DETP_FUZZ=ON && cmake --build build-fuzz
 * Run:   ./build-fuzz/fuzz_etdump -max_total_time=60 fuzz/corpus-etdump  */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/dump.h"
#include "etprof/etdump.h"
#include "etprof/inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Open @p data one way and group its events; NULL and *err on failure. */
static etp_inspect *outcome(const uint8_t *data, size_t size, int deferred, etp_etdump **d,
                            etp_error *err)
{
    etp_blob *b;
    *d = NULL;
    etp_error_clear(err);
    if (etp_blob_from_memory(data, size, "fuzz", &b, err))
        return NULL;
    if ((deferred ? etp_etdump_from_blob_deferred : etp_etdump_from_blob)(b, d, err))
        return NULL;
    etp_inspect *in = NULL;
    if (etp_inspect_run(*d, NULL, &in, err) != ETP_OK)
        return NULL;
    return in;
}

static void same_or_die(const etp_inspect *a, const etp_inspect *b)
{
    int same = a->block_count == b->block_count && a->runs_without_events == b->runs_without_events;
    for (uint32_t i = 0; same && i < a->block_count; i++) {
        const etp_inspect_block *x = &a->blocks[i], *y = &b->blocks[i];
        same = x->run_count == y->run_count && x->row_count == y->row_count &&
               x->debug_events == y->debug_events && x->allocation_events == y->allocation_events &&
               x->empty_events == y->empty_events;
        for (uint32_t r = 0; same && r < x->row_count; r++)
            same = x->rows[r].sample_count == y->rows[r].sample_count &&
                   x->rows[r].first_offset == y->rows[r].first_offset &&
                   !memcmp(x->rows[r].ticks, y->rows[r].ticks,
                           x->rows[r].sample_count * sizeof *x->rows[r].ticks);
    }
    if (!same) {
        fprintf(stderr, "deferred open grouped the events differently\n");
        abort();
    }
}

/* The debug-buffer check of a verified dump at the sizes that decide it. */
static void debug_buffer_or_die(const etp_etdump *d)
{
    etp_debug_buffer_check big, exact, less;
    etp_error err;
    etp_status s = etp_etdump_check_debug_buffer(d, UINT64_MAX, "fuzz.bin", &big, &err);
    if (s == ETP_E_FORMAT)
        return; /* a tensor whose size cannot be known: refused at every size */
    if (s != ETP_OK) {
        fprintf(stderr, "debug buffer of unbounded size refused: %s\n", err.message);
        abort();
    }
    if (etp_etdump_check_debug_buffer(d, big.bytes_referenced, "fuzz.bin", &exact, &err) != ETP_OK) {
        fprintf(stderr, "a buffer of bytes_referenced bytes refused: %s\n", err.message);
        abort();
    }
    if (big.bytes_referenced > 0 &&
        etp_etdump_check_debug_buffer(d, big.bytes_referenced - 1, "fuzz.bin", &less, &err) != ETP_E_MISMATCH) {
        fprintf(stderr, "a buffer one byte short of bytes_referenced passed\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_etdump *d, *dd;
    etp_error err, derr;
    etp_inspect *in = outcome(data, size, 0, &d, &err);
    etp_inspect *din = outcome(data, size, 1, &dd, &derr);
    if ((in == NULL) != (din == NULL) ||
        (!in && (err.code != derr.code || err.offset != derr.offset ||
                 strcmp(err.message, derr.message)))) {
        fprintf(stderr, "deferred open disagrees:\n  %s\n  %s\n", in ? "ok" : err.message,
                din ? "ok" : derr.message);
        abort();
    }
    if (in)
        same_or_die(in, din);
    etp_inspect_free(in);
    etp_inspect_free(din);
    if (d) {
        debug_buffer_or_die(d);
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            etp_etdump_write_json(d, null, 0, NULL);
            fclose(null);
        }
    }
    etp_etdump_free(d);
    etp_etdump_free(dd);
    return 0;
}
