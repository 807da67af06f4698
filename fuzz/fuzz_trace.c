/* fuzz_trace.c - libFuzzer target for the trace writer.
 *
 * The input is an ETDump. Whatever the reader accepts is laid out and
 * written as a trace (with debug instants on), which exercises the timeline
 * step's sorting, lane assignment and delegate time-base checks on
 * arbitrary intervals; the output must always be produced or refused
 * cleanly. */
#include <stdint.h>
#include <stdlib.h>

#include "etprof/blob.h"
#include "etprof/etdump.h"
#include "etprof/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    etp_error err;
    etp_blob *blob = NULL;
    if (etp_blob_from_memory(data, size, "fuzz.etdp", &blob, &err))
        return 0;
    etp_etdump *d = NULL;
    if (etp_etdump_from_blob(blob, &d, &err))
        return 0;
    etp_trace_options o;
    etp_trace_options_init(&o);
    char *text = NULL;
    size_t len = 0;
    etp_trace_counts c;
    if (etp_trace_to_string(d, &o, "fuzz.etdp", &text, &len, &c, &err) == ETP_OK) {
        /* Every ProfileEvent is written or counted as dropped. */
        if (c.slices + c.dropped != c.profile_events)
            abort();
        free(text);
    }
    etp_etdump_free(d);
    return 0;
}
