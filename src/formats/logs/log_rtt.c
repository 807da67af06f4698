/* log_rtt.c - per-inference latency lines `Inference: 12.345 ms` printed by
 * MLEK-style firmware over SEGGER RTT or a serial console (specs/runner-logs.md
 * §6), with any prefix. */
#include <string.h>

#include "formats/logs/device_log_internal.h"

int etp_dl_rtt_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *p = etp_ls_after(line, "Inference: ");
    if (!p)
        return 0;
    double v;
    if (etp_ls_double(&p, &v) || etp_ls_lit(&p, "ms"))
        return etp_ls_bad(err, l->path, no, "unreadable \"Inference: X ms\" line");
    if (etp_ls_push(&l->rtt_ms, v, no))
        return etp_ls_bad(err, l->path, no, "too many Inference lines (or out of memory)");
    l->formats |= ETP_DL_RTT;
    return 1;
}
