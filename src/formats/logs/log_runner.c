/* log_runner.c - parse executor_runner / example_runner output lines. */
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

/* ---- identity and recognition (cross-checks against the other inputs) ---- */

/* Messages of the runners that say nothing etprof keeps, but show the file
 * is a runner's output even without the ET_LOG prefix (a pasted console). */
static const char *const known_messages[] = {
    "Model file ", "Using method ", "Running method ", "Setting up planned buffer ",
    "Setting up CPU planned buffer ", "Setting up device planned buffer ", "Model loaded in ",
    "Iteration ", "Model executed successfully", "ETDump written to file ", "Method loaded.",
    "Inputs prepared.", "Model verified successfully.", "No ETDump data available!",
    "Resetting threadpool with num threads", "Writing output to file: ",
};

/* "executorch:FILE:LINE] " (POSIX) or "[executorch:FILE:LINE FUNC()] " (Arm
 * bare-metal) anywhere in the line: a serial terminal may prefix anything. */
static int has_et_log_prefix(const char *line)
{
    for (const char *p = strstr(line, "executorch:"); p; p = strstr(p + 1, "executorch:")) {
        const char *q = p + 11;
        size_t f = strcspn(q, ": ]");
        if (!f || q[f] != ':')
            continue;
        q += f + 1;
        if (*q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == ']' || *q == ' ')
            return 1;
    }
    return 0;
}

/* A printed output (runner-logs.md §2): "OutputX I: EVALUE" (1.3+) or
 * "Output[I]..." (older print modes). *index receives I. */
static const char *output_line(const char *line, uint32_t *index)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *q;
    uint64_t i;
    if (!strncmp(p, "OutputX ", 8)) {
        if (parse_u64(p + 8, &i, &q) || strncmp(q, ": ", 2) || i > UINT32_MAX)
            return NULL;
    } else if (!strncmp(p, "Output[", 7)) {
        if (parse_u64(p + 7, &i, &q) || *q != ']' || (q[1] != '[' && q[1] != ':') || i > UINT32_MAX)
            return NULL;
    } else {
        return NULL;
    }
    *index = (uint32_t)i;
    return p;
}

static int is_runner_line(const char *line, const char *msg)
{
    uint32_t unused;
    if (has_et_log_prefix(line) || output_line(line, &unused))
        return 1;
    for (size_t i = 0; i < sizeof known_messages / sizeof known_messages[0]; i++)
        if (!strncmp(msg, known_messages[i], strlen(known_messages[i])))
            return 1;
    return 0;
}

/* "Model file %s is loaded." names the program the runner loaded. */
static etp_status parse_model_file(etp_runner_log *l, const char *m, etp_error *err)
{
    static const char head[] = "Model file ", tail[] = " is loaded.";
    size_t n = strlen(m), hn = sizeof head - 1, tn = sizeof tail - 1;
    while (n && (m[n - 1] == '\r' || m[n - 1] == ' '))
        n--;
    if (l->model_file || strncmp(m, head, hn) || n < hn + tn + 1 || memcmp(m + n - tn, tail, tn))
        return ETP_OK;
    l->model_file = etp_strndup(m + hn, n - hn - tn);
    return l->model_file ? ETP_OK : etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
}

/* The outputs the runner printed: "N outputs:" and each output line,
 * counted, the first few kept as text. */
static etp_status parse_output(etp_runner_log *l, const char *line, const char *m, uint32_t *next_index,
                               etp_error *err)
{
    uint64_t a;
    const char *p;
    if (!parse_u64(m, &a, &p) && !strncmp(p, " outputs:", 9) && a <= MAX_ITERATIONS) {
        l->has_outputs_declared = 1;
        l->outputs_declared = (uint32_t)a;
        return ETP_OK;
    }
    uint32_t index;
    const char *text = output_line(line, &index);
    if (!text)
        return ETP_OK;
    /* "Output[0][0]", "Output[0][1]" print one output element by element. */
    if (!strncmp(text, "OutputX ", 8) || index >= *next_index)
        l->output_count++;
    if (index >= *next_index)
        *next_index = index + 1;
    if (l->output_text_count < ETP_RUNNER_OUTPUTS_KEPT) {
        size_t n = strcspn(text, "\r");
        if (n > ETP_RUNNER_OUTPUT_TEXT_MAX)
            n = ETP_RUNNER_OUTPUT_TEXT_MAX;
        if (!l->output_text && !(l->output_text = calloc(ETP_RUNNER_OUTPUTS_KEPT, sizeof *l->output_text)))
            return etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
        if (!(l->output_text[l->output_text_count] = etp_strndup(text, n)))
            return etp_error_set(err, ETP_E_NOMEM, l->path, ETP_NO_OFFSET, "out of memory");
        l->output_text_count++;
    }
    return ETP_OK;
}

/* Bundled-program checks: executor_runner's "TEST: BundleIO index[I]
 * Test_result: PASS|FAIL", example_runner's "Model verified successfully." */
static void parse_verification(etp_runner_log *l, const char *m)
{
    const char *r = !strncmp(m, "TEST: BundleIO index[", 21) ? strstr(m, "] Test_result: ") : NULL;
    if (r && !strncmp(r + 15, "PASS", 4))
        l->bundleio_pass++;
    else if (r && !strncmp(r + 15, "FAIL", 4))
        l->bundleio_fail++;
    else if (!strncmp(m, "Model verified successfully.", 28))
        l->verified = 1;
}

/* A "$ COMMAND" line naming the test case: --testset_idx N, --testset_idx=N
 * or -testset_idx N (gflags' spellings). */
static void parse_command(etp_runner_log *l, const char *line)
{
    if (strncmp(line, "$ ", 2) || l->testset_idx >= 0)
        return;
    for (const char *f = strstr(line, "testset_idx"); f; f = strstr(f + 1, "testset_idx")) {
        if (f - line < 3 || f[-1] != '-' || (f[-2] != '-' && f[-2] != ' ') || (f[11] != '=' && f[11] != ' '))
            continue;
        const char *v = f + 12;
        char *end;
        long n = strtol(v, &end, 10);
        if (end > v && n >= 0 && n <= INT32_MAX && (*end == ' ' || *end == '\0' || *end == '\r'))
            l->testset_idx = (int32_t)n;
        return;
    }
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
    l->testset_idx = -1;
    size_t i = 0;
    uint32_t next_output = 0; /* one past the highest "Output[i]" index seen */
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
        l->recognised_lines += is_runner_line(line, message(line)) ? 1 : 0;
        st = parse_model_file(l, message(line), err);
        if (!st)
            st = parse_line(l, line, l->lines, err);
        if (!st)
            st = parse_output(l, line, message(line), &next_output, err);
        if (!st)
            parse_verification(l, message(line));
        parse_command(l, line);
        if (strstr(line, "example_runner.cpp:"))
            l->example_runner = 1;
        i += n + 1;
    }
    free(line);
    if (!st && !l->recognised_lines && !size)
        st = etp_error_set(err, ETP_E_FORMAT, name, ETP_NO_OFFSET, "not a runner log: the file is empty");
    else if (!st && !l->recognised_lines)
        st = etp_error_set(err, ETP_E_FORMAT, name, ETP_NO_OFFSET,
                           "not a runner log: none of its %u line%s is an ExecuTorch runner's", l->lines,
                           l->lines == 1 ? "" : "s");
    for (uint32_t k = 0; k < l->buffer_count; k++)
        l->planned_bytes += l->buffer_bytes[k];
    if (st) {
        etp_runner_log_free(l);
        return st;
    }
    *out = l;
    return ETP_OK;
}

/* "-": the whole of standard input (a pipe from the runner), capped. */
static etp_status read_stdin(etp_runner_log **out, etp_error *err)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap > MAX_LOG) {
                free(buf);
                return etp_error_set(err, ETP_E_LIMIT, "(stdin)", ETP_NO_OFFSET,
                                     "log larger than %zu bytes", MAX_LOG);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) {
            if (ferror(stdin)) {
                free(buf);
                return etp_error_set(err, ETP_E_IO, "(stdin)", ETP_NO_OFFSET, "read error");
            }
            etp_status st = etp_runner_log_parse(buf, n, "(stdin)", out, err);
            free(buf);
            return st;
        }
    }
    free(buf);
    return etp_error_set(err, ETP_E_NOMEM, "(stdin)", ETP_NO_OFFSET, "out of memory");
}

etp_status etp_runner_log_open_as(const char *path, const char *name, etp_runner_log **out,
                                  etp_error *err)
{
    etp_blob *b;
    *out = NULL;
    if (!strcmp(path, "-"))
        return read_stdin(out, err);
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
    st = etp_runner_log_parse((const char *)b->data, b->size, name, out, err);
    etp_blob_free(b);
    return st;
}

etp_status etp_runner_log_open(const char *path, etp_runner_log **out, etp_error *err)
{
    return etp_runner_log_open_as(path, NULL, out, err);
}

int etp_runner_log_has_run_lines(const etp_runner_log *l)
{
    return l->model_file || l->method || l->has_load_ms || l->iteration_count || l->has_total ||
           l->buffer_count || l->etdump_name;
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
    free(l->model_file);
    for (uint32_t i = 0; i < l->output_text_count; i++)
        free(l->output_text[i]);
    free(l->output_text);
    free(l);
}
