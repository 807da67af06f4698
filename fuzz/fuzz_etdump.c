/* fuzz_etdump.c - libFuzzer target: ETDump reader + inspect grouping.
 * Build: CC=clang cmake -S . -B build-fuzz -DETP_FUZZ=ON && cmake --build build-fuzz
 * Run:   ./build-fuzz/fuzz_etdump -max_total_time=60 fuzz/corpus-etdump  */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/etdump.h"
#include "etprof/inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_blob *b;
    if (etp_blob_from_memory(data, size, "fuzz", &b, &err))
        return 0;
    etp_etdump *d;
    if (etp_etdump_from_blob(b, &d, &err))
        return 0;
    etp_inspect *in;
    if (etp_inspect_run(d, NULL, &in, &err) == ETP_OK)
        etp_inspect_free(in);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        etp_etdump_write_json(d, null, 0);
        fclose(null);
    }
    etp_etdump_free(d);
    return 0;
}
