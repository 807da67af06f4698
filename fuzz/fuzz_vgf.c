/* fuzz_vgf.c - libFuzzer target: VGF reader (header, FlatBuffers sections,
 * constants, SPIR-V graphs), its JSON dump and the Model Explorer graph.
 * Build: CC=clang cmake -S . -B build-fuzz -DETP_FUZZ=ON && cmake --build build-fuzz
 * Run:   ./build-fuzz/fuzz_vgf -max_total_time=60 CORPUS
 * (seed: python3 tests/vgf_synth.py write schema CORPUS/seed.vgf) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/dump.h"
#include "etprof/vgf.h"
#include "outputs/mexplorer/me_vgf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_blob *b;
    /* An aligned copy, as files are loaded. */
    if (etp_blob_from_memory(data, size, "fuzz", &b, &err))
        return 0;
    etp_vgf *v;
    if (etp_vgf_from_memory(b->data, b->size, "fuzz", 0, &v, &err) == ETP_OK) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            etp_vgf_write_json(v, null, 0, NULL);
            etp_me_vgf_graph *g;
            if (etp_me_vgf_build(v, &g, &err) == ETP_OK) {
                etp_me_vgf_write(g, "fuzz", null, 0, NULL);
                etp_me_vgf_free(g);
            }
            fclose(null);
        }
        etp_vgf_free(v);
    }
    etp_blob_free(b);
    return 0;
}
