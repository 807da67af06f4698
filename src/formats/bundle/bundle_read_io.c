/* bundle_read_io.c - what the bundle readers share: memory owned by the
 * document, errors naming the artifact, typed JSON members, and reading an
 * artifact (see bundle_read_internal.h). */
#include "formats/bundle/bundle_read_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bundle/bundle_rules.h"
#include "util/sha256.h"

/* Biggest artifact read into memory (summary, operators, run metadata). */
#define READ_MAX ((size_t)1 << 31)

/* ---- memory ----------------------------------------------------------- */

/* Keep @p p (may be NULL: then out of memory) until the document closes. */
void *etp_bread_own(etp_bundle_reader *r, void *p)
{
    etp_bundle_doc *d = r->doc;
    if (!p)
        return NULL;
    if (d->owned_count == d->owned_cap) {
        size_t cap = d->owned_cap ? d->owned_cap * 2 : 64;
        void **n = realloc(d->owned, cap * sizeof *n);
        if (!n) {
            free(p);
            return NULL;
        }
        d->owned = n;
        d->owned_cap = cap;
    }
    d->owned[d->owned_count++] = p;
    return p;
}

void *etp_bread_calloc(etp_bundle_reader *r, size_t n, size_t size)
{
    return etp_bread_own(r, calloc(n ? n : 1, size));
}

const char *etp_bread_strndup(etp_bundle_reader *r, const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return etp_bread_own(r, p);
}

etp_status etp_bread_nomem(etp_bundle_reader *r)
{
    return etp_error_set(r->err, ETP_E_NOMEM, r->doc->dir, ETP_NO_OFFSET,
                         "out of memory reading the bundle");
}

/* ETP_E_FORMAT naming DIR/@p rel. */
etp_status etp_bread_bad(etp_bundle_reader *r, const char *rel, const char *fmt, ...)
{
    char file[600], msg[512];
    snprintf(file, sizeof file, "%s/%s", r->doc->dir, rel);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return etp_error_set(r->err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "%s", msg);
}

/* ETP_E_IO naming DIR/@p rel: "what: why" (or "what" when @p why is NULL). */
static etp_status io_error(etp_bundle_reader *r, const char *rel, const char *what,
                           const char *why)
{
    char file[600];
    snprintf(file, sizeof file, "%s/%s", r->doc->dir, rel);
    return etp_error_set(r->err, ETP_E_IO, file, ETP_NO_OFFSET, "%s%s%s", what, why ? ": " : "",
                         why ? why : "");
}

/* ---- JSON members ----------------------------------------------------- */

/* *out = the string member @p key of @p obj, NULL when absent or null; a
 * member of another type is an error of @p rel. */
etp_status etp_bread_str(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *obj,
                         const char *key, const char **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!json_is_string(v))
        return etp_bread_bad(r, rel, "%s\"%s\" is not a string", ctx, key);
    *out = json_string_value(v);
    return ETP_OK;
}

/* A non-negative integer member; *present 0 when absent. */
etp_status etp_bread_uint(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *obj,
                          const char *key, uint64_t *out, int *present)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (present)
        *present = 0;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return etp_bread_bad(r, rel, "%s\"%s\" is not a non-negative integer", ctx, key);
    *out = (uint64_t)json_integer_value(v);
    if (present)
        *present = 1;
    return ETP_OK;
}

/* An object or array member as compact JSON with sorted keys (the form the
 * manifest's options digest is taken over); NULL when absent or null. */
etp_status etp_bread_json_text(etp_bundle_reader *r, const json_t *obj, const char *key,
                               const char **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!(*out = etp_bread_own(r, json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS))))
        return etp_bread_nomem(r);
    return ETP_OK;
}

etp_status etp_bread_parse_json(etp_bundle_reader *r, const char *rel, const char *text, size_t len,
                                json_t **out)
{
    json_error_t je;
    *out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return etp_bread_bad(r, rel, "not valid JSON: %s (line %d, column %d)", je.text, je.line,
                             je.column);
    if (!json_is_object(*out))
        return etp_bread_bad(r, rel, "not a JSON object");
    return ETP_OK;
}

/* ---- artifacts -------------------------------------------------------- */

/* Read artifact @p a into a new buffer (caller frees). Never through a
 * symlink; when verifying, the bytes must still be the verified ones. */
etp_status etp_bread_artifact(etp_bundle_reader *r, const etp_bundle_artifact_info *a, char **data,
                              size_t *len)
{
    int parent;
    const char *leaf;
    char badpart[ETP_BUNDLE_PATH_MAX + 1];
    *data = NULL;
    if (etp_bundle_path_problem(a->path, strlen(a->path)))
        return etp_bread_bad(r, a->path, "not a safe relative path");
    if (etp_bundle_walk_parent(r->dirfd, a->path, 0, &parent, &leaf, badpart, sizeof badpart))
        return etp_bread_bad(r, a->path, "cannot be reached without a symlink ('%s')", badpart);
    int fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int e = errno;
    close(parent);
    if (fd < 0)
        return io_error(r, a->path, "cannot open", strerror(e));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > READ_MAX) {
        close(fd);
        return etp_bread_bad(r, a->path, "not a regular file of at most %zu bytes", READ_MAX);
    }
    size_t cap = (size_t)st.st_size, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return etp_bread_nomem(r);
    }
    while (n < cap) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    if (n != cap) {
        free(buf);
        return io_error(r, a->path, "short read", NULL);
    }
    if (r->verify) {
        char hex[ETP_SHA256_HEX];
        if (etp_sha256_buf(buf, n, hex) != 0) {
            free(buf);
            return etp_bread_nomem(r);
        }
        if (n != a->size || !a->sha256 || strcmp(hex, a->sha256)) {
            free(buf);
            return etp_bread_bad(r, a->path, "changed since it was verified");
        }
    }
    *data = buf;
    *len = n;
    return ETP_OK;
}

etp_status etp_bread_artifact_json(etp_bundle_reader *r, const etp_bundle_artifact_info *a,
                                   json_t **out)
{
    char *text;
    size_t len;
    etp_status s = etp_bread_artifact(r, a, &text, &len);
    if (s)
        return s;
    s = etp_bread_parse_json(r, a->path, text, len, out);
    free(text);
    return s;
}
