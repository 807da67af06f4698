/* log_vgf.c - the VGF backend's GPU time, which only its log carries:
 * `VGF_DATA_GRAPH_DEVICE_TIME ticks=%llu duration_ns=%.3f duration_ms=%.6f`
 * (specs/runner-logs.md §5). duration_ns is kept; duration_ms must agree. */
#include <math.h>
#include <string.h>

#include "etprof/units.h"
#include "formats/logs/device_log_internal.h"

int etp_dl_vgf_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *p = etp_ls_after(line, "VGF_DATA_GRAPH_DEVICE_TIME");
    if (!p)
        return 0;
    uint64_t ticks;
    double ns, ms;
    if (etp_ls_lit(&p, "ticks=") || etp_ls_u64(&p, &ticks) || etp_ls_lit(&p, "duration_ns=") ||
        etp_ls_double(&p, &ns) || etp_ls_lit(&p, "duration_ms=") || etp_ls_double(&p, &ms))
        return etp_ls_bad(err, l->path, no, "unreadable VGF_DATA_GRAPH_DEVICE_TIME line");
    /* duration_ms is printed with 6 decimals: it must round from duration_ns. */
    if (fabs(ns * etp_unit_factor(ETP_UNIT_NS, ETP_UNIT_MS) - ms) > 0.5e-6 + 1e-9 * ms)
        return etp_ls_bad(err, l->path, no, "VGF device time: duration_ns and duration_ms disagree");
    if (etp_ls_push(&l->vgf_ns, ns, no))
        return etp_ls_bad(err, l->path, no, "too many VGF device-time lines (or out of memory)");
    l->formats |= ETP_DL_VGF;
    return 1;
}
