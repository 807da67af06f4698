/* fuzz_tensors.c - libFuzzer target: tensor decoding. The input is an
 * ETDump and a debug buffer behind a 4-byte little-endian length of the
 * ETDump part; every logged value is read from that buffer
 * (etp_tensors_build on an analysis that holds only the dump), its
 * statistics computed, and each tensor compared with itself (which must
 * give no mismatch: a NaN matches a NaN, an infinity itself). A bare buffer
 * is also read as one tensor of each element type.
 * Build: CC=clang cmake -S . -B build-fuzz -DETP_FUZZ=ON && cmake --build build-fuzz
 * Run:   ./build-fuzz/fuzz_tensors -max_total_time=60 corpus/  */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/tensor.h"
#include "etprof/tensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void self_compare(const etp_tensor_view *v)
{
    etp_dtype_class c = etp_dtype_class_of(v->scalar_type);
    if (!v->data || (c != ETP_DTYPE_INTEGER && c != ETP_DTYPE_FLOAT))
        return;
    etp_tensor_gap g;
    etp_error err;
    etp_error_clear(&err);
    if (etp_tensor_compare(v, NULL, v, NULL, ETP_TOLERANCE_DEFAULT, "fuzz", "self", &g, &err) || g.mismatches)
        abort();
}

/* The raw bytes as a 1-D tensor of every element type. */
static void every_type(const uint8_t *data, size_t size)
{
    for (int st = -1; st < 32; st++) {
        uint32_t es = etp_scalar_type_size(st);
        if (!es)
            continue;
        int64_t n = (int64_t)(size / es);
        etp_tensor_view v;
        etp_error err;
        etp_error_clear(&err);
        if (etp_tensor_view_init(&v, st, 1, &n, NULL, data, "fuzz", 0, "raw", &err))
            abort(); /* a non-negative size of a known type always makes a view */
        etp_tensor_stats s;
        etp_tensor_stats_compute(&v, &s);
        if (s.count && s.finite + s.nan + s.pos_inf + s.neg_inf != s.count)
            abort();
        self_compare(&v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    every_type(data + 4, size - 4 > 4096 ? 4096 : size - 4);
    if (n > size - 4)
        return 0;
    etp_blob *b;
    etp_etdump *d = NULL;
    etp_error err;
    etp_error_clear(&err);
    if (etp_blob_from_memory(data + 4, n, "fuzz.etdp", &b, &err) || etp_etdump_from_blob(b, &d, &err))
        return 0;
    /* An analysis holding only the dump: no program, no entities, no executions. */
    etp_analysis a;
    memset(&a, 0, sizeof a);
    a.etdump = d;
    etp_tensors_options o;
    etp_tensors_options_init(&o);
    o.buffer = data + 4 + n;
    o.buffer_size = size - 4 - n;
    o.buffer_name = "fuzz.bin";
    etp_tensor_set *s = NULL;
    if (!etp_tensors_build(&a, &o, &s, &err)) {
        for (uint32_t i = 0; i < s->count; i++) {
            const etp_logged_tensor *t = &s->items[i];
            if (t->has_bytes && t->buffer_offset >= 0 &&
                ((uint64_t)t->buffer_offset + t->view.nbytes > o.buffer_size))
                abort(); /* every value read lies inside the buffer */
            self_compare(&t->view);
        }
        etp_tensor_set_free(s);
    }
    etp_etdump_free(d);
    return 0;
}
