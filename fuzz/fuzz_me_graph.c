/* fuzz_me_graph.c - any bytes -> program decoder -> Model Explorer graph and
 * its JSON: must never crash, hang or leak, whatever the program holds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/mexplorer.h"
#include "etprof/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_blob *blob;
    if (etp_blob_from_memory(data, size, "fuzz.pte", &blob, &err))
        return 0;
    etp_program *p;
    if (etp_program_from_blob(blob, &p, &err))
        return 0;
    etp_me_collection *c;
    if (etp_me_build(p, NULL, NULL, &c, &err) == ETP_OK) {
        FILE *fp = fopen("/dev/null", "wb");
        if (fp) {
            etp_me_write(c, fp, ETP_ME_PRETTY, &err);
            fclose(fp);
        }
        etp_me_free(c);
    }
    etp_program_free(p);
    return 0;
}
