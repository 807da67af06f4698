/* device_logs_view.c - what a run's device logs say together (see
 * etp_device_logs_view_read in etprof/device_log.h): one reading for the
 * CLI and the Python package. */
#include <string.h>

#include "etprof/device_log.h"

/* Formats of other tools: a log of only these is not the runner's output. */
#define OTHER_TOOLS (ETP_DL_GNU_TIME | ETP_DL_RTT | ETP_DL_VGF | ETP_DL_ETPROF_RUN | ETP_DL_PROC_STATUS)

static int same_blob(const etp_dl_blob *a, const etp_dl_blob *b)
{
    return a->size == b->size && !memcmp(a->data, b->data, a->size);
}

etp_status etp_device_logs_view_read(const etp_device_log *const *logs, uint32_t n, etp_device_logs_view *out,
                                     etp_error *err)
{
    memset(out, 0, sizeof *out);
    out->runner = -1;
    for (uint32_t i = 0; i < n; i++) {
        const etp_device_log *l = logs[i];
        if (out->runner < 0 && ((l->formats & (ETP_DL_PORTABLE_RUNNER | ETP_DL_ARM_RUNNER)) || !(l->formats & OTHER_TOOLS)))
            out->runner = (int)i;
        if (l->etdump.data) {
            if (out->etdump_carrier && !same_blob(&out->etdump_carrier->etdump, &l->etdump))
                return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                                     "%s and %s carry different ETDumps: which run is it?",
                                     out->etdump_carrier->path, l->path);
            if (!out->etdump_carrier)
                out->etdump_carrier = l;
        }
        if (l->debug_buffer.data) {
            if (out->debug_carrier && !same_blob(&out->debug_carrier->debug_buffer, &l->debug_buffer))
                return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                                     "%s and %s carry different debug buffers: which run is it?",
                                     out->debug_carrier->path, l->path);
            if (!out->debug_carrier)
                out->debug_carrier = l;
        }
    }
    if (out->etdump_carrier && out->etdump_carrier->has_etdump_tick_unit) {
        out->has_tick_unit = 1;
        out->tick_unit = out->etdump_carrier->etdump_tick_unit;
    }
    return ETP_OK;
}

const uint8_t *etp_device_log_etdump(const etp_device_log *l, size_t *size)
{
    *size = l && l->etdump.data ? l->etdump.size : 0;
    return l ? l->etdump.data : NULL;
}

const uint8_t *etp_device_log_debug_buffer(const etp_device_log *l, size_t *size)
{
    *size = l && l->debug_buffer.data ? l->debug_buffer.size : 0;
    return l ? l->debug_buffer.data : NULL;
}
