/* fuzz_diff_csv.c - libFuzzer target: the CSV record reader `etprof diff`
 * reads detailed/executions.csv with. Every record's fields must lie inside
 * the reader's buffer and be NUL-terminated; the reader must stop. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/bundle/csv_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_csvr r;
    etp_csvr_init(&r, (const char *)data, size);
    size_t records = 0, bytes = 0;
    int rc;
    while ((rc = etp_csvr_next(&r)) == 1) {
        for (size_t i = 0; i < r.nfields; i++)
            bytes += strlen(r.fields[i]); /* ASan checks each field is terminated in bounds */
        if (++records > size + 1)
            __builtin_trap(); /* a record per byte at most: no loop without progress */
    }
    (void)bytes;
    etp_csvr_free(&r);
    return 0;
}
