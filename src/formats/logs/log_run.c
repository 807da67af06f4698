/* log_run.c - the measurement lines `etprof run` writes beside the runner's
 * output: `etprof-run: exit=S wall_s=W user_s=U sys_s=Y max_rss_kb=K|unavailable`
 * (one per run, from wait4) and `etprof-run: remote NOTE` when the runner ran
 * elsewhere (adb: the host's figures are adb's, not the model's). */
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"
#include "util/str.h"

int etp_dl_run_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    if (strncmp(line, "etprof-run: ", 12))
        return 0;
    const char *p = line + 12;
    l->formats |= ETP_DL_ETPROF_RUN;
    if (!strncmp(p, "remote ", 7)) {
        free(l->run_adb);
        l->run_adb = etp_strdup(p + 7);
        return l->run_adb ? 1 : etp_ls_oom(err, l->path);
    }
    etp_dl_run r = {0};
    uint64_t ex;
    if (etp_ls_lit(&p, "exit=") || etp_ls_u64(&p, &ex) || ex > 255 || etp_ls_lit(&p, "wall_s=") ||
        etp_ls_double(&p, &r.wall_s) || etp_ls_lit(&p, "user_s=") || etp_ls_double(&p, &r.user_s) ||
        etp_ls_lit(&p, "sys_s=") || etp_ls_double(&p, &r.sys_s) || etp_ls_lit(&p, "max_rss_kb="))
        return etp_ls_bad(err, l->path, no, "unreadable etprof-run line");
    r.exit_status = (int)ex;
    if (!etp_ls_u64(&p, &r.max_rss_kb))
        r.has_max_rss = 1;
    else if (etp_ls_lit(&p, "unavailable"))
        return etp_ls_bad(err, l->path, no, "unreadable etprof-run max_rss_kb");
    if (l->run_count >= 100000)
        return etp_ls_bad(err, l->path, no, "too many etprof-run lines");
    etp_dl_run *nr = realloc(l->runs, (l->run_count + 1) * sizeof *nr);
    if (!nr)
        return etp_ls_oom(err, l->path);
    l->runs = nr;
    l->runs[l->run_count++] = r;
    return 1;
}
