/* device_log.c - read a device log (etprof/device_log.h): split it into
 * lines (any length, `\r` ends dropped), hand each line to the carried-file
 * reader first (a base64 line is nothing else), then to the per-format
 * readers, and settle what follows from the whole log (tick-unit evidence). */
#include "etprof/device_log.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/blob.h"
#include "formats/logs/device_log_internal.h"
#include "util/str.h"

#define MAX_LOG ((size_t)64 << 20)

/* Portable runner 1.4+: "Setting up device planned buffer I, size N, device_type D." */
static int device_buffer(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *p = etp_ls_after(line, "Setting up device planned buffer ");
    if (!p)
        return 0;
    uint64_t i, n, t;
    if (etp_ls_u64(&p, &i) || etp_ls_lit(&p, ", size") || etp_ls_u64(&p, &n) ||
        etp_ls_lit(&p, ", device_type") || etp_ls_u64(&p, &t) || t > 1000)
        return etp_ls_bad(err, l->path, no, "unreadable device planned buffer");
    if (l->device_buffer_count >= 4096)
        return etp_ls_bad(err, l->path, no, "too many device planned buffers");
    etp_dl_device_buffer *nb = realloc(l->device_buffers, (l->device_buffer_count + 1) * sizeof *nb);
    if (!nb)
        return etp_ls_oom(err, l->path);
    l->device_buffers = nb;
    nb[l->device_buffer_count++] = (etp_dl_device_buffer){i, n, (int)t};
    return 1;
}

static int one_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    int r;
    int had_hwm = l->has_vmhwm;
    if ((r = etp_dl_run_line(l, line, no, err)) != 0 || (r = etp_dl_gnu_time_line(l, line, no, err)) != 0 ||
        (r = etp_dl_arm_line(l, line, no, err)) != 0 || (r = etp_dl_rtt_line(l, line, no, err)) != 0 ||
        (r = etp_dl_vgf_line(l, line, no, err)) != 0 || (r = device_buffer(l, line, no, err)) != 0) {
        if (l->has_vmhwm && !had_hwm)
            l->formats |= ETP_DL_PROC_STATUS;
        return r < 0 ? -1 : 0;
    }
    /* The portable runner's prefix ("executorch:file.cpp:N] "). */
    if (strstr(line, "executorch:") && strstr(line, ".cpp:") && !strstr(line, "[executorch:"))
        l->formats |= ETP_DL_PORTABLE_RUNNER;
    /* Its printed outputs: all that a build without logging prints. */
    if (!strncmp(line, "OutputX ", 8) || !strncmp(line, "Output[", 7))
        l->formats |= ETP_DL_PORTABLE_RUNNER;
    return 0;
}

etp_status etp_device_log_parse(const char *text, size_t size, const char *name, etp_device_log **out,
                                etp_error *err)
{
    *out = NULL;
    if (size > MAX_LOG)
        return etp_error_set(err, ETP_E_LIMIT, name, ETP_NO_OFFSET, "log larger than %zu bytes", MAX_LOG);
    if (!size)
        return etp_error_set(err, ETP_E_FORMAT, name, ETP_NO_OFFSET,
                             "empty log (0 bytes): not a runner log nor a device capture; nothing "
                             "was captured (was the board reset after the terminal was attached?)");
    etp_device_log *l = calloc(1, sizeof *l);
    if (!l || !(l->path = etp_strdup(name))) {
        free(l);
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    }
    etp_b64_state st;
    etp_b64_init(&st);
    char *buf = NULL;
    size_t cap = 0, i = 0;
    int bad = 0;
    while (i < size && !bad) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : size - i;
        uint32_t no = ++l->lines;
        if (memchr(text + i, '\0', n)) {
            bad = etp_ls_bad(err, name, no, "NUL byte in a text log");
            break;
        }
        if (n + 1 > cap) {
            size_t nc = n + 1 > 256 ? n + 1 : 256;
            char *nb = realloc(buf, nc);
            if (!nb) {
                bad = etp_ls_oom(err, name);
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t m = n;
        while (m && text[i + m - 1] == '\r')
            m--;
        memcpy(buf, text + i, m);
        buf[m] = '\0';
        int r = etp_b64_line(&st, l, buf, m, no, err);
        if (r < 0)
            bad = -1;
        else if (!r)
            bad = one_line(l, buf, no, err);
        i += n + 1;
    }
    free(buf);
    if (!bad)
        bad = etp_b64_finish(&st, l, err);
    else
        etp_b64_finish(&st, l, NULL);
    if (!bad && l->etdump.data && !l->has_etdump_tick_unit && l->arm.line) {
        /* The Arm runner's ETDump clock is the CPU's cycle counter. */
        l->has_etdump_tick_unit = 1;
        l->etdump_tick_unit = ETP_UNIT_CYCLES;
        l->etdump_tick_unit_line = l->arm.line;
    }
    if (bad) {
        etp_device_log_free(l);
        return err && err->code ? err->code : ETP_E_FORMAT;
    }
    *out = l;
    return ETP_OK;
}

etp_status etp_device_log_open_as(const char *path, const char *name, etp_device_log **out,
                                  etp_error *err)
{
    etp_blob *b;
    *out = NULL;
    if (!name)
        name = path;
    etp_status st = etp_blob_open(path, MAX_LOG, &b, err);
    if (st) {
        if (err && strcmp(name, path)) { /* the file as the user knows it */
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            etp_error_set(err, err->code, name, err->offset, "%s", msg);
        }
        return st;
    }
    st = etp_device_log_parse((const char *)b->data, b->size, name, out, err);
    etp_blob_free(b);
    return st;
}

etp_status etp_device_log_open(const char *path, etp_device_log **out, etp_error *err)
{
    return etp_device_log_open_as(path, NULL, out, err);
}

static void blob_free(etp_dl_blob *b)
{
    free(b->name);
    free(b->data);
}

void etp_device_log_free(etp_device_log *l)
{
    if (!l)
        return;
    free(l->path);
    free(l->time.command);
    free(l->arm.planned_bytes);
    for (uint32_t i = 0; i < l->arm.pmu_event_count; i++)
        free(l->arm.pmu_events[i]);
    free(l->rtt_ms.v);
    free(l->vgf_ns.v);
    free(l->device_buffers);
    free(l->runs);
    free(l->run_adb);
    blob_free(&l->etdump);
    blob_free(&l->debug_buffer);
    free(l);
}
