/* device_log_internal.h - what the per-format log readers share: the line
 * scanning helpers (log_scan.c) and one line handler per format. Each handler
 * looks for its messages anywhere in a line (terminals add prefixes), returns
 * 1 when the line was its, 0 when not, and -1 with @p err set on a line of its
 * format with unreadable values. */
#ifndef ETP_DEVICE_LOG_INTERNAL_H
#define ETP_DEVICE_LOG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/device_log.h"

/* Counts of repeated lines are capped (a hostile log cannot grow without end). */
#define ETP_DL_MAX_REPEAT 10000000u

/* Pointer just after @p key in @p line, or NULL. */
const char *etp_ls_after(const char *line, const char *key);
/* Read an unsigned decimal (leading blanks skipped) and advance *p. 0 ok, -1 not a number. */
int etp_ls_u64(const char **p, uint64_t *v);
/* As etp_ls_u64, but a negative value printed from a 32-bit counter with %d
 * (Arm runner 1.0) is read back as the unsigned value it was. */
int etp_ls_u64_or_wrapped(const char **p, uint64_t *v);
/* Read a finite non-negative decimal (leading blanks skipped) and advance *p. */
int etp_ls_double(const char **p, double *v);
/* Skip blanks, then the literal @p lit; 0 when it was there. */
int etp_ls_lit(const char **p, const char *lit);
/* Append @p x to a series (capped at ETP_DL_MAX_REPEAT); 0 ok, -1 out of memory or over the cap. */
int etp_ls_push(etp_dl_series *s, double x, uint32_t line);
/* Set @p err: "line N: what" in log @p name (ETP_E_FORMAT); returns -1. */
int etp_ls_bad(etp_error *err, const char *name, uint32_t line, const char *what);
/* Out of memory for log @p name; returns -1. */
int etp_ls_oom(etp_error *err, const char *name);

/* One handler per format (log_gnu_time.c, log_arm_runner.c, log_rtt.c, log_vgf.c, log_run.c). */
int etp_dl_gnu_time_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err);
int etp_dl_arm_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err);
int etp_dl_rtt_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err);
int etp_dl_vgf_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err);
int etp_dl_run_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err);

/* The carried-file reader (log_etdump_b64.c): a state machine over the lines. */
typedef struct etp_b64_state {
    int in_block;            /* inside #[RUN THIS] ... #[END] */
    uint32_t block_line;
    int cycles_hint;         /* the block's inspector line says --source_time_scale cycles */
    int64_t announced;       /* "[base64] buffer size: N" (-1: none) */
    uint32_t announced_line;
    int bare_pending;        /* the last line named etdump.bin outside a block */
    int in_bare;             /* collecting a bare base64 body */
    uint32_t bare_line;
    char *bare;              /* collected body (owned) */
    size_t bare_len, bare_cap;
} etp_b64_state;

void etp_b64_init(etp_b64_state *st);
/* 1 when the line belonged to a carried file, 0 when not, -1 on error. */
int etp_b64_line(etp_b64_state *st, etp_device_log *l, const char *line, size_t len, uint32_t no,
                 etp_error *err);
/* At the end of the log: a block or body still open is truncated (-1). Frees @p st's memory. */
int etp_b64_finish(etp_b64_state *st, etp_device_log *l, etp_error *err);

#endif
