/* fuzz_program.c - libFuzzer target: .pte / .bpte reader and JSON dump.
 * Build: CC=clang cmake -S . -B build-fuzz -DETP_FUZZ=ON && cmake --build build-fuzz
 * Run:   ./build-fuzz/fuzz_program -max_total_time=60 fuzz/corpus-program  */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/dump.h"
#include "etprof/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_blob *b;
    if (etp_blob_from_memory(data, size, "fuzz", &b, &err))
        return 0;
    etp_program *p;
    if (etp_program_from_blob(b, &p, &err))
        return 0;
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        etp_program_write_json(p, null, 0, NULL);
        fclose(null);
    }
    etp_program_free(p);
    return 0;
}
