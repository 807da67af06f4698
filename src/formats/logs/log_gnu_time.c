/* log_gnu_time.c - GNU / toybox `time -v` blocks (specs/runner-logs.md §3):
 * "\t<Label>: <value>" lines. A "Command being timed" line starts a block;
 * the last block is kept and the number of blocks counted. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"
#include "util/str.h"

/* "h:mm:ss" or "m:ss[.cc]" to seconds; 0 ok. */
static int wall_clock(const char *p, double *out)
{
    double part[3];
    int n = 0;
    for (;;) {
        if (n == 3 || etp_ls_double(&p, &part[n]))
            return -1;
        n++;
        if (*p != ':')
            break;
        p++;
    }
    if (n < 2)
        return -1;
    double s = 0;
    for (int i = 0; i < n; i++)
        s = s * 60 + part[i];
    *out = s;
    return 0;
}

/* A new block: reset the fields (keeping nothing of an earlier block). */
static void begin_block(etp_device_log *l, uint32_t no)
{
    free(l->time.command);
    memset(&l->time, 0, sizeof l->time);
    l->time.line = no;
    l->time_blocks++;
    l->formats |= ETP_DL_GNU_TIME;
}

int etp_dl_gnu_time_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *p;
    uint64_t u;
    /* The other device-side peak RSS (specs/runner-logs.md §7): a
     * /proc/<pid>/status dump's "VmHWM:   N kB" line. */
    if ((p = etp_ls_after(line, "VmHWM:"))) {
        if (etp_ls_u64(&p, &u) || etp_ls_lit(&p, "kB"))
            return etp_ls_bad(err, l->path, no, "unreadable VmHWM line");
        l->has_vmhwm = 1;
        l->vmhwm_kb = u;
        l->vmhwm_line = no;
        return 1;
    }
    if ((p = etp_ls_after(line, "Command being timed: "))) {
        begin_block(l, no);
        size_t n = strlen(p);
        if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
            p++;
            n -= 2;
        }
        l->time.command = etp_strndup(p, n);
        return l->time.command ? 1 : etp_ls_oom(err, l->path);
    }
    static const struct {
        const char *label;
        int kind; /* 0 seconds, 1 wall clock, 2 count, 3 percent */
        size_t has, val;
    } labels[] = {
        {"User time (seconds): ", 0, offsetof(etp_dl_time, has_user), offsetof(etp_dl_time, user_s)},
        {"System time (seconds): ", 0, offsetof(etp_dl_time, has_sys), offsetof(etp_dl_time, sys_s)},
        {"Elapsed (wall clock) time (h:mm:ss or m:ss): ", 1, offsetof(etp_dl_time, has_wall),
         offsetof(etp_dl_time, wall_s)},
        {"Percent of CPU this job got: ", 3, offsetof(etp_dl_time, has_cpu_percent),
         offsetof(etp_dl_time, cpu_percent)},
        {"Maximum resident set size (kbytes): ", 2, offsetof(etp_dl_time, has_max_rss),
         offsetof(etp_dl_time, max_rss_kb)},
        {"Major (requiring I/O) page faults: ", 2, 0, offsetof(etp_dl_time, major_faults)},
        {"Minor (reclaiming a frame) page faults: ", 2, 0, offsetof(etp_dl_time, minor_faults)},
        {"Voluntary context switches: ", 2, 0, offsetof(etp_dl_time, voluntary_cs)},
        {"Involuntary context switches: ", 2, 0, offsetof(etp_dl_time, involuntary_cs)},
        {"Exit status: ", 4, offsetof(etp_dl_time, has_exit_status), offsetof(etp_dl_time, exit_status)},
    };
    /* Every label ends with ": ": look at each ": " once and compare what
     * precedes it with the labels (instead of searching the line per label). */
    size_t i = 0;
    const char *at = NULL;
    for (const char *c = strstr(line, ": "); c && !at; c = strstr(c + 1, ": "))
        for (i = 0; i < sizeof labels / sizeof labels[0]; i++) {
            size_t n = strlen(labels[i].label) - 2;
            if ((size_t)(c - line) < n)
                continue;
            const char *b = c - n;
            /* A label counts at the start of a line or after blanks (time -v
             * indents with a tab; terminal prefixes come before it), not
             * inside another message. */
            if (!memcmp(b, labels[i].label, n) && (b == line || b[-1] == '\t' || b[-1] == ' ')) {
                at = b;
                p = c + 2;
                break;
            }
        }
    if (at) {
        if (!l->time.line)
            begin_block(l, no);
        char *t = (char *)&l->time;
        double d;
        int bad = 0;
        switch (labels[i].kind) {
        case 0: bad = etp_ls_double(&p, &d); if (!bad) *(double *)(t + labels[i].val) = d; break;
        case 1: bad = wall_clock(p, &d); if (!bad) *(double *)(t + labels[i].val) = d; break;
        case 2: bad = etp_ls_u64(&p, &u); if (!bad) *(uint64_t *)(t + labels[i].val) = u; break;
        case 3:
            if (!strncmp(p, "?%", 2)) /* GNU time prints "?%" for a zero elapsed time */
                return 1;
            bad = etp_ls_double(&p, &d) || *p != '%';
            if (!bad)
                *(double *)(t + labels[i].val) = d;
            break;
        default:
            bad = etp_ls_u64(&p, &u) || u > 255;
            if (!bad)
                *(int *)(t + labels[i].val) = (int)u;
            break;
        }
        if (bad) {
            char what[96];
            snprintf(what, sizeof what, "unreadable value of time -v's \"%.*s\"",
                     (int)strlen(labels[i].label) - 2, labels[i].label);
            return etp_ls_bad(err, l->path, no, what);
        }
        if (labels[i].has)
            *(int *)(t + labels[i].has) = 1;
        return 1;
    }
    return 0;
}
