/* runner_log.c - parse executor_runner / example_runner output lines. */
#include "etprof/runner_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/blob.h"
#include "util/str.h"

#define MAX_LOG ((size_t)64 << 20)
#define MAX_LINE ((size_t)64 << 10)
#define MAX_ITERATIONS 10000000u
#define MAX_BUFFERS 4096u

/* Text after the "file.cpp:LINE] " prefix, or the whole line. */
static const char *message(const char *line)
{
    const char *b = strstr(line, "] ");
    return b ? b + 2 : line;
}

static int parse_double(const char *s, double *out, const char **end)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    if (end)
        *end = e;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out, const char **end)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno)
        return -1;
    *out = v;
    if (end)
        *end = e;
    return 0;
}

static etp_status bad(etp_error *err, const char *name, uint32_t line, const char *what)
{
    return etp_error_set(err, ETP_E_FORMAT, name, ETP_NO_OFFSET, "line %u: %s", line, what);
}

/* Planned-buffer forms other than the portable runner's "planned buffer I,
 * size N": the Arm runner's "planned buffer with mem_id=I, size N." (the
 * same arena, by memory id) is rewritten to that form in @p tmp; device
 * buffers (1.4+ "device planned buffer ...") are not CPU arena and are left
 * to the device-log reader (*skip = 1). Returns the text to parse. */
static const char *other_planned_form(const char *m, const char *pb, char *tmp, size_t cap, int *skip)
{
    *skip = pb - m >= 7 && !strncmp(pb - 7, "device ", 7);
    if (!strncmp(pb + 15, "with mem_id=", 12)) {
        snprintf(tmp, cap, "planned buffer %s", pb + 27);
        return tmp;
    }
    return pb;
}

/* A base64 line of a carried file (`echo "..." | base64 -d >F`) can be far
 * longer than any runner line: it is not the runner's, so it is skipped. */
static int carried_payload(const char *text, size_t n)
{
    while (n && (*text == ' ' || *text == '\t')) {
        text++;
        n--;
    }
    return n > 6 && !memcmp(text, "echo \"", 6);
}

/* One line; returns ETP_OK, or an error for a recognised line with bad values. */
static etp_status parse_line(etp_runner_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *m = message(line);
    const char *p;
    uint64_t a, b;
    double v;
    if (!strncmp(m, "Using method ", 13) || !strncmp(m, "Running method ", 15)) {
        const char *name = m + (m[0] == 'U' ? 13 : 15);
        size_t n = strcspn(name, " \r");
        if (!n || l->method)
            return ETP_OK;
        l->method = etp_strndup(name, n);
        return l->method ? ETP_OK : etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
    }
    if (!strncmp(m, "Model loaded in ", 16)) {
        if (parse_double(m + 16, &v, &p) || strncmp(p, " ms", 3))
            return bad(err, l->path, no, "unreadable load time");
        l->has_load_ms = 1;
        l->load_ms = v;
        return ETP_OK;
    }
    if (!strncmp(m, "Iteration ", 10)) {
        if (parse_u64(m + 10, &a, &p) || strncmp(p, " of ", 4) || parse_u64(p + 4, &b, &p) ||
            strncmp(p, ": ", 2) || parse_double(p + 2, &v, &p) || strncmp(p, " ms", 3))
            return bad(err, l->path, no, "unreadable iteration time");
        if (a != (uint64_t)l->iteration_count + 1 || b > MAX_ITERATIONS || a > b)
            return bad(err, l->path, no, "iterations out of order");
        double *ni = realloc(l->iteration_ms, (l->iteration_count + 1) * sizeof *ni);
        if (!ni)
            return etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
        l->iteration_ms = ni;
        l->iteration_ms[l->iteration_count++] = v;
        l->iterations_declared = (uint32_t)b;
        return ETP_OK;
    }
    if (!strncmp(m, "Model executed successfully ", 28) && m[28] >= '0' && m[28] <= '9') {
        if (parse_u64(m + 28, &a, &p) || strncmp(p, " time(s) in ", 12) ||
            parse_double(p + 12, &v, &p) || a > MAX_ITERATIONS)
            return bad(err, l->path, no, "unreadable run total");
        l->has_total = 1;
        l->total_runs = (uint32_t)a;
        l->total_ms = v;
        return ETP_OK;
    }
    const char *pb = strstr(m, "planned buffer ");
    char form[128];
    int skip = 0;
    if (pb)
        pb = other_planned_form(m, pb, form, sizeof form, &skip);
    if (pb && !skip && !strncmp(m, "Setting up ", 11)) {
        if (parse_u64(pb + 15, &a, &p) || strncmp(p, ", size ", 7) || parse_u64(p + 7, &b, &p))
            return bad(err, l->path, no, "unreadable planned buffer");
        if (a >= MAX_BUFFERS)
            return bad(err, l->path, no, "planned buffer index out of range");
        if (a >= l->buffer_count) {
            uint64_t *nb = realloc(l->buffer_bytes, (size_t)(a + 1) * sizeof *nb);
            if (!nb)
                return etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
            memset(nb + l->buffer_count, 0, (size_t)(a + 1 - l->buffer_count) * sizeof *nb);
            l->buffer_bytes = nb;
            l->buffer_count = (uint32_t)a + 1;
        }
        l->buffer_bytes[a] = b;
        return ETP_OK;
    }
    if (!strncmp(m, "ETDump written to file '", 24) && !l->etdump_name) {
        const char *q = strchr(m + 24, '\'');
        if (q && q > m + 24) {
            l->etdump_name = etp_strndup(m + 24, (size_t)(q - (m + 24)));
            if (!l->etdump_name)
                return etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
        }
    }
    return ETP_OK;
}

etp_status etp_runner_log_parse(const char *text, size_t size, const char *name, etp_runner_log **out,
                                etp_error *err)
{
    *out = NULL;
    if (size > MAX_LOG)
        return etp_error_set(err, ETP_E_LIMIT, name, ETP_NO_OFFSET, "log larger than %zu bytes", MAX_LOG);
    etp_runner_log *l = calloc(1, sizeof *l);
    char *line = malloc(MAX_LINE + 1);
    if (!l || !line || !(l->path = etp_strdup(name))) {
        free(line);
        etp_runner_log_free(l);
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    }
    size_t i = 0;
    etp_status st = ETP_OK;
    while (i < size && !st) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : size - i;
        l->lines++;
        if (n > MAX_LINE && carried_payload(text + i, n)) {
            i += n + 1;
            continue;
        }
        if (n > MAX_LINE) {
            st = bad(err, name, l->lines, "line longer than 64 KiB");
            break;
        }
        memcpy(line, text + i, n);
        line[n] = '\0';
        if (memchr(line, '\0', n)) {
            st = bad(err, name, l->lines, "NUL byte in a text log");
            break;
        }
        st = parse_line(l, line, l->lines, err);
        i += n + 1;
    }
    free(line);
    for (uint32_t k = 0; k < l->buffer_count; k++)
        l->planned_bytes += l->buffer_bytes[k];
    if (st) {
        etp_runner_log_free(l);
        return st;
    }
    *out = l;
    return ETP_OK;
}

etp_status etp_runner_log_open(const char *path, etp_runner_log **out, etp_error *err)
{
    etp_blob *b;
    *out = NULL;
    etp_status st = etp_blob_open(path, MAX_LOG, &b, err);
    if (st)
        return st;
    st = etp_runner_log_parse((const char *)b->data, b->size, path, out, err);
    etp_blob_free(b);
    return st;
}

void etp_runner_log_free(etp_runner_log *l)
{
    if (!l)
        return;
    free(l->path);
    free(l->method);
    free(l->iteration_ms);
    free(l->buffer_bytes);
    free(l->etdump_name);
    free(l);
}
