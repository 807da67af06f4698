/* bundle_verify.c - check a result bundle against its manifest. */
#include "formats/bundle/bundle_verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "formats/bundle/bundle_rules.h"
#include "util/sha256.h"

/* Undeclared-file listing: how deep and how many entries before stopping. */
#define SCAN_DEPTH_MAX 32
#define SCAN_ENTRIES_MAX 100000u
/* Longest piece of untrusted text quoted in a message. */
#define QUOTE_MAX 200
/* Room for a quoted piece (escapes take 4 bytes), and for "DIR/PATH". */
#define QBUF (QUOTE_MAX * 4 + 16)
#define WHOBUF (2 * QBUF + 2)

typedef struct vctx {
    const char *dir;
    int dirfd;
    char *realdir;          /* realpath of dir, or NULL if unknown */
    etp_verify_report *r;
    uint32_t problem_cap, warning_cap;
    int oom;
    const char **declared;  /* sorted valid artifact paths (views into the JSON) */
    size_t declared_count;
    uint32_t scanned;
} vctx;

/* ---- report lines ------------------------------------------------------ */

/* Copy @p len bytes of untrusted @p s into @p out for a one-line message:
 * control bytes (C0, DEL, and UTF-8 encoded C1) become \xNN, and text past
 * QUOTE_MAX bytes is cut with "...". */
static void quote(char *out, size_t size, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= QUOTE_MAX) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
                   (unsigned char)s[i + 1] <= 0x9f) {
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", (unsigned char)s[i + 1]);
            i++;
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

/* "DIR/REL" (quoted) for messages; DIR loses trailing slashes. */
static void where(const vctx *c, const char *rel, size_t rel_len, char *out, size_t size)
{
    char d[QBUF], q[QBUF];
    size_t dn = strlen(c->dir);
    while (dn > 1 && c->dir[dn - 1] == '/')
        dn--;
    quote(d, sizeof d, c->dir, dn);
    quote(q, sizeof q, rel, rel_len);
    snprintf(out, size, "%s%s%s", d, (dn == 1 && c->dir[0] == '/') ? "" : "/", q);
}

static void vadd(vctx *c, int warning, const char *who, const char *fmt, va_list ap)
{
    if (c->oom)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(who) + 2 + strlen(msg) + 1;
    char *line = malloc(n);
    char ***list = warning ? &c->r->warnings : &c->r->problems;
    uint32_t *count = warning ? &c->r->warning_count : &c->r->problem_count;
    uint32_t *cap = warning ? &c->warning_cap : &c->problem_cap;
    if (line && *count == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        char **nl = ncap > *cap ? realloc(*list, ncap * sizeof *nl) : NULL;
        if (nl) {
            *list = nl;
            *cap = ncap;
        } else {
            free(line);
            line = NULL;
        }
    }
    if (!line) {
        c->oom = 1;
        return;
    }
    snprintf(line, n, "%s: %s", who, msg);
    (*list)[(*count)++] = line;
}

/* A problem with the manifest itself. */
static void manifest_problem(vctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void manifest_problem(vctx *c, const char *fmt, ...)
{
    char who[WHOBUF];
    where(c, ETP_BUNDLE_MANIFEST, strlen(ETP_BUNDLE_MANIFEST), who, sizeof who);
    va_list ap;
    va_start(ap, fmt);
    vadd(c, 0, who, fmt, ap);
    va_end(ap);
}

/* A problem (or warning) about the file at @p rel. */
static void file_line(vctx *c, int warning, const char *rel, size_t rel_len, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));
static void file_line(vctx *c, int warning, const char *rel, size_t rel_len, const char *fmt,
                      ...)
{
    char who[WHOBUF];
    where(c, rel, rel_len, who, sizeof who);
    va_list ap;
    va_start(ap, fmt);
    vadd(c, warning, who, fmt, ap);
    va_end(ap);
}

/* Compact JSON of @p v, quoted for a message. */
static void show_value(const json_t *v, char *out, size_t size)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (!s) {
        snprintf(out, size, "%s", v ? "(unprintable)" : "missing");
        return;
    }
    quote(out, size, s, strlen(s));
    free(s);
}

/* ---- the envelope ------------------------------------------------------ */

static const json_t *need(vctx *c, const json_t *obj, const char *key, json_type type,
                          const char *ctx)
{
    const json_t *v = json_object_get(obj, key);
    static const char *const names[] = {"an object", "an array", "a string", "an integer",
                                        "a number", "true", "false", "null"};
    if (!v) {
        manifest_problem(c, "%s\"%s\" is missing", ctx, key);
        return NULL;
    }
    if (json_typeof(v) != type) {
        manifest_problem(c, "%s\"%s\" is not %s", ctx, key, names[type]);
        return NULL;
    }
    return v;
}

static void need_nonempty_string(vctx *c, const json_t *obj, const char *key, const char *ctx)
{
    const json_t *v = need(c, obj, key, JSON_STRING, ctx);
    if (v && json_string_length(v) == 0)
        manifest_problem(c, "%s\"%s\" is empty", ctx, key);
}

static void need_enum(vctx *c, const json_t *obj, const char *key, const char *const *set)
{
    const json_t *v = need(c, obj, key, JSON_STRING, "");
    if (!v)
        return;
    for (int i = 0; i < 3; i++)
        if (!strcmp(json_string_value(v), set[i]))
            return;
    char q[QBUF];
    show_value(v, q, sizeof q);
    manifest_problem(c, "\"%s\" is %s, not one of %s, %s, %s", key, q, set[0], set[1], set[2]);
}

static void check_provenance(vctx *c, const json_t *prov)
{
    const json_t *inputs = need(c, prov, "inputs", JSON_ARRAY, "provenance: ");
    size_t i;
    json_t *in;
    json_array_foreach(inputs, i, in) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "provenance.inputs[%zu]: ", i);
        if (!json_is_object(in)) {
            manifest_problem(c, "%snot an object", ctx);
            continue;
        }
        need_nonempty_string(c, in, "role", ctx);
        need_nonempty_string(c, in, "name", ctx);
        const json_t *size = need(c, in, "size_bytes", JSON_INTEGER, ctx);
        if (size && json_integer_value(size) < 0)
            manifest_problem(c, "%s\"size_bytes\" is negative", ctx);
        const json_t *sha = need(c, in, "sha256", JSON_STRING, ctx);
        if (sha && !etp_bundle_is_sha256(json_string_value(sha)))
            manifest_problem(c, "%s\"sha256\" is not 64 lowercase hex digits", ctx);
    }
    const json_t *opts = json_object_get(prov, "options");
    const json_t *osha = json_object_get(prov, "options_sha256");
    if (!opts && !osha)
        return;
    if (!json_is_object(opts) || !json_is_string(osha) ||
        !etp_bundle_is_sha256(json_string_value(osha))) {
        manifest_problem(c, "provenance: \"options\" must be an object and \"options_sha256\" "
                            "its 64-hex-digit digest, both or neither");
        return;
    }
    char *canon = json_dumps(opts, JSON_SORT_KEYS | JSON_COMPACT);
    char actual[ETP_SHA256_HEX];
    if (!canon || etp_sha256_buf(canon, strlen(canon), actual) != 0) {
        free(canon);
        c->oom = 1;
        return;
    }
    free(canon);
    if (strcmp(actual, json_string_value(osha)) != 0)
        manifest_problem(c, "provenance: options_sha256 mismatch (declared %s, actual %s)",
                         json_string_value(osha), actual);
}

static void check_issues(vctx *c, const json_t *issues)
{
    size_t i;
    json_t *issue;
    json_array_foreach(issues, i, issue) {
        const char *why = etp_bundle_issue_problem(issue);
        if (why)
            manifest_problem(c, "issues[%zu] %s", i, why);
    }
}

/* Members every manifest must have, with their types. Returns 0 when the
 * document is not an etprof manifest of a version this code reads (then
 * nothing more is checked). */
static int check_envelope(vctx *c, const json_t *root)
{
    static const char *const STATUSES[] = {"complete", "incomplete", "failed"};
    static const char *const VALIDITIES[] = {"valid", "degraded", "invalid"};
    char q[QBUF];
    const json_t *schema = json_object_get(root, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), ETP_BUNDLE_SCHEMA) != 0) {
        show_value(schema, q, sizeof q);
        manifest_problem(c, "\"schema\" is %s, expected \"%s\": not an etprof result manifest", q,
                         ETP_BUNDLE_SCHEMA);
        return 0;
    }
    const json_t *ver = json_object_get(root, "schema_version");
    if (!json_is_integer(ver) || json_integer_value(ver) != ETP_BUNDLE_SCHEMA_VERSION) {
        show_value(ver, q, sizeof q);
        manifest_problem(c, "\"schema_version\" is %s; this etprof reads version %d", q,
                         ETP_BUNDLE_SCHEMA_VERSION);
        return 0;
    }
    need_nonempty_string(c, root, "bundle_type", "");
    const json_t *run_id = need(c, root, "run_id", JSON_STRING, "");
    if (run_id && !etp_bundle_is_uuid(json_string_value(run_id)))
        manifest_problem(c, "\"run_id\" is not a lowercase 8-4-4-4-12 hex UUID");
    const json_t *ts = need(c, root, "timestamp", JSON_STRING, "");
    if (ts && !etp_bundle_is_utc_timestamp(json_string_value(ts)))
        manifest_problem(c, "\"timestamp\" is not a UTC RFC 3339 time (YYYY-MM-DDTHH:MM:SSZ)");
    const json_t *tool = need(c, root, "tool", JSON_OBJECT, "");
    if (tool) {
        need_nonempty_string(c, tool, "name", "tool: ");
        need_nonempty_string(c, tool, "version", "tool: ");
    }
    need_enum(c, root, "status", STATUSES);
    need_enum(c, root, "validity", VALIDITIES);
    const json_t *issues = need(c, root, "issues", JSON_ARRAY, "");
    if (issues)
        check_issues(c, issues);
    const json_t *prov = need(c, root, "provenance", JSON_OBJECT, "");
    if (prov)
        check_provenance(c, prov);
    need(c, root, "comparability", JSON_OBJECT, "");
    need(c, root, "extensions", JSON_OBJECT, "");
    return 1;
}

/* ---- artifacts --------------------------------------------------------- */

typedef struct entry {
    const char *path;
    size_t len;
    size_t index;       /* position in the manifest's artifacts array */
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->path, y->path, n);
    if (r)
        return r;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Open the artifact at @p rel without following any symlink; -1 after
 * recording why not. */
static int open_artifact(vctx *c, const char *rel, size_t len)
{
    int parent;
    const char *leaf;
    char bad[ETP_BUNDLE_PATH_MAX + 1];
    etp_walk_result w = etp_bundle_walk_parent(c->dirfd, rel, 0, &parent, &leaf, bad, sizeof bad);
    if (w != ETP_WALK_OK) {
        char q[QBUF];
        quote(q, sizeof q, bad, strlen(bad));
        if (w == ETP_WALK_MISSING)
            file_line(c, 0, rel, len, "missing (directory '%s' does not exist)", q);
        else if (w == ETP_WALK_SYMLINK)
            file_line(c, 0, rel, len, "directory '%s' is a symlink (not followed)", q);
        else if (w == ETP_WALK_NOTDIR)
            file_line(c, 0, rel, len, "'%s' is not a directory", q);
        else
            file_line(c, 0, rel, len, "cannot open '%s': %s", q, strerror(errno));
        return -1;
    }
    struct stat st;
    int fd = -1;
    if (fstatat(parent, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            file_line(c, 0, rel, len, "missing");
        else
            file_line(c, 0, rel, len, "cannot stat: %s", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        file_line(c, 0, rel, len, "is a symlink (not followed)");
    } else if (!S_ISREG(st.st_mode)) {
        file_line(c, 0, rel, len, "not a regular file");
    } else {
        /* O_NONBLOCK: should the entry turn into a FIFO after the stat
         * above, opening it must not hang. */
        fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            file_line(c, 0, rel, len, "cannot open: %s", strerror(errno));
        else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            file_line(c, 0, rel, len, "not a regular file");
            close(fd);
            fd = -1;
        }
    }
    close(parent);
    return fd;
}

/* Belt and braces: the resolved path must lie inside the resolved bundle. */
static void check_containment(vctx *c, const char *rel, size_t len)
{
    if (!c->realdir)
        return;
    size_t dn = strlen(c->dir);
    char *full = malloc(dn + 1 + len + 1);
    if (!full) {
        c->oom = 1;
        return;
    }
    snprintf(full, dn + 1 + len + 1, "%s/%s", c->dir, rel);
    char *real = realpath(full, NULL);
    free(full);
    size_t rn = strlen(c->realdir);
    const char *root = c->realdir;
    if (!real) {
        file_line(c, 0, rel, len, "cannot resolve: %s", strerror(errno));
        return;
    }
    int inside = !strncmp(real, root, rn) && (real[rn] == '/' || (rn == 1 && root[0] == '/'));
    if (!inside)
        file_line(c, 0, rel, len, "resolves outside the bundle directory");
    free(real);
}

static void check_file(vctx *c, const char *rel, size_t len, const json_t *size,
                       const json_t *sha)
{
    int fd = open_artifact(c, rel, len);
    if (fd < 0)
        return;
    check_containment(c, rel, len);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        file_line(c, 0, rel, len, "cannot stat: %s", strerror(errno));
        close(fd);
        return;
    }
    if (size && (uint64_t)st.st_size != (uint64_t)json_integer_value(size)) {
        file_line(c, 0, rel, len, "size mismatch (declared %" PRIu64 ", actual %" PRIu64 ")",
                  (uint64_t)json_integer_value(size), (uint64_t)st.st_size);
        close(fd);
        return; /* the digest cannot match either; one line says it */
    }
    if (sha) {
        char actual[ETP_SHA256_HEX];
        uint64_t n;
        if (etp_sha256_fd(fd, actual, &n) != 0)
            file_line(c, 0, rel, len, "cannot read to hash: %s",
                      errno ? strerror(errno) : "OpenSSL SHA-256 failed");
        else if (strcmp(actual, json_string_value(sha)) != 0)
            file_line(c, 0, rel, len, "sha256 mismatch (declared %s, actual %s)",
                      json_string_value(sha), actual);
    }
    close(fd);
}

/* Field checks of one artifact entry; returns 0 if its path is unusable. */
static int check_entry_fields(vctx *c, const json_t *a, size_t i, const json_t **size,
                              const json_t **sha)
{
    const json_t *path = json_object_get(a, "path");
    if (!json_is_string(path) || json_string_length(path) == 0) {
        manifest_problem(c, "artifacts[%zu]: \"path\" is missing or not a non-empty string", i);
        return 0;
    }
    const char *p = json_string_value(path);
    size_t len = json_string_length(path);
    const char *why = etp_bundle_path_problem(p, len);
    if (why) {
        char q[QBUF];
        quote(q, sizeof q, p, len);
        manifest_problem(c, "artifacts[%zu] '%s': %s", i, q, why);
        return 0;
    }
    if (!strcmp(p, ETP_BUNDLE_MANIFEST) || !strcmp(p, ETP_BUNDLE_MANIFEST_TMP)) {
        manifest_problem(c, "artifacts[%zu] '%s': the manifest cannot declare itself", i, p);
        return 0;
    }
    const json_t *mt = json_object_get(a, "media_type");
    if (!json_is_string(mt) || json_string_length(mt) == 0)
        file_line(c, 0, p, len, "\"media_type\" is missing or not a non-empty string");
    *size = json_object_get(a, "size_bytes");
    if (!json_is_integer(*size) || json_integer_value(*size) < 0) {
        file_line(c, 0, p, len, "\"size_bytes\" is missing or not a non-negative integer");
        *size = NULL;
    }
    *sha = json_object_get(a, "sha256");
    if (!json_is_string(*sha) || !etp_bundle_is_sha256(json_string_value(*sha))) {
        file_line(c, 0, p, len, "\"sha256\" is missing or not 64 lowercase hex digits");
        *sha = NULL;
    }
    static const char *const optional_strings[] = {"role", "schema", "name", "producer"};
    for (size_t k = 0; k < 4; k++) {
        const json_t *v = json_object_get(a, optional_strings[k]);
        if (v && (!json_is_string(v) || json_string_length(v) == 0))
            file_line(c, 0, p, len, "\"%s\" is not a non-empty string", optional_strings[k]);
    }
    const json_t *sv = json_object_get(a, "schema_version");
    if (sv && (!json_is_integer(sv) || json_integer_value(sv) < 1))
        file_line(c, 0, p, len, "\"schema_version\" is not an integer >= 1");
    const json_t *opt = json_object_get(a, "optional");
    if (opt && !json_is_boolean(opt))
        file_line(c, 0, p, len, "\"optional\" is not a boolean");
    return 1;
}

static void check_artifacts(vctx *c, const json_t *arts)
{
    size_t n = json_array_size(arts);
    c->r->artifact_count = (uint32_t)n;
    entry *sorted = malloc((n ? n : 1) * sizeof *sorted);
    const char **declared = malloc((n ? n : 1) * sizeof *declared);
    uint8_t *usable = calloc(n ? n : 1, 1);
    if (!sorted || !declared || !usable) {
        free(sorted);
        free(declared);
        free(usable);
        c->oom = 1;
        return;
    }
    /* Pass 1: fields and paths; collect usable paths for duplicate search. */
    size_t m = 0;
    for (size_t i = 0; i < n && !c->oom; i++) {
        const json_t *a = json_array_get(arts, i);
        const json_t *size, *sha;
        if (!json_is_object(a)) {
            manifest_problem(c, "artifacts[%zu] is not an object", i);
            continue;
        }
        if (!check_entry_fields(c, a, i, &size, &sha))
            continue;
        const json_t *path = json_object_get(a, "path");
        usable[i] = 1;
        sorted[m++] = (entry){json_string_value(path), json_string_length(path), i};
    }
    qsort(sorted, m, sizeof *sorted, cmp_entry);
    for (size_t k = 0; k < m; k++) {
        declared[k] = sorted[k].path;
        if (k > 0 && sorted[k].len == sorted[k - 1].len &&
            !memcmp(sorted[k].path, sorted[k - 1].path, sorted[k].len)) {
            /* Find the first occurrence for the message. */
            size_t first = k - 1;
            while (first > 0 && sorted[first - 1].len == sorted[k].len &&
                   !memcmp(sorted[first - 1].path, sorted[k].path, sorted[k].len))
                first--;
            file_line(c, 0, sorted[k].path, sorted[k].len,
                      "declared more than once (artifacts[%zu] and artifacts[%zu])",
                      sorted[first].index, sorted[k].index);
            usable[sorted[k].index] = 0; /* check the file once, for its first entry */
        }
    }
    /* Pass 2: the files, in manifest order. */
    for (size_t i = 0; i < n && !c->oom; i++) {
        if (!usable[i])
            continue;
        const json_t *a = json_array_get(arts, i);
        const json_t *path = json_object_get(a, "path");
        const json_t *size = json_object_get(a, "size_bytes");
        const json_t *sha = json_object_get(a, "sha256");
        if (!json_is_integer(size) || json_integer_value(size) < 0)
            size = NULL;
        if (!json_is_string(sha) || !etp_bundle_is_sha256(json_string_value(sha)))
            sha = NULL;
        check_file(c, json_string_value(path), json_string_length(path), size, sha);
    }
    free(sorted);
    free(usable);
    /* declared[] is already sorted and duplicate-adjacent: fine for bsearch. */
    c->declared = declared;
    c->declared_count = m;
}

/* ---- files the manifest does not mention ------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int is_declared(const vctx *c, const char *rel)
{
    return c->declared &&
           bsearch(&rel, c->declared, c->declared_count, sizeof *c->declared, cmp_str) != NULL;
}

/* List undeclared entries under the directory open as @p fd (consumed),
 * whose bundle-relative path is rel[0..len). Entries are visited in sorted
 * order so the warnings are deterministic. */
static void scan(vctx *c, int fd, char *rel, size_t len, int depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        file_line(c, 1, rel, len, "cannot list directory: %s", strerror(errno));
        return;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (++c->scanned > SCAN_ENTRIES_MAX)
            break;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (!nn) {
                c->oom = 1;
                break;
            }
            names = nn;
            cap = ncap;
        }
        size_t nl = strlen(de->d_name) + 1;
        if (!(names[count] = malloc(nl))) {
            c->oom = 1;
            break;
        }
        memcpy(names[count++], de->d_name, nl);
    }
    if (count > 1)
        qsort(names, count, sizeof *names, cmp_str);
    for (size_t i = 0; i < count; i++) {
        size_t nl = strlen(names[i]);
        size_t sub = len + (len ? 1 : 0) + nl;
        if (c->oom || sub > ETP_BUNDLE_PATH_MAX * 4) {
            free(names[i]);
            continue;
        }
        if (len)
            rel[len] = '/';
        memcpy(rel + len + (len ? 1 : 0), names[i], nl + 1);
        struct stat st;
        if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
            file_line(c, 1, rel, sub, "cannot stat: %s", strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            int sfd = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (depth >= SCAN_DEPTH_MAX)
                file_line(c, 1, rel, sub, "not searched for undeclared files (deeper than %d)",
                          SCAN_DEPTH_MAX);
            else if (sfd < 0)
                file_line(c, 1, rel, sub, "cannot open directory: %s", strerror(errno));
            if (sfd >= 0 && depth < SCAN_DEPTH_MAX)
                scan(c, sfd, rel, sub, depth + 1);
            else if (sfd >= 0)
                close(sfd);
        } else if (!(len == 0 && !strcmp(rel, ETP_BUNDLE_MANIFEST)) && !is_declared(c, rel)) {
            const char *what = S_ISLNK(st.st_mode)   ? " (a symlink)"
                               : S_ISREG(st.st_mode) ? ""
                                                     : " (not a regular file)";
            file_line(c, 1, rel, sub, "not declared in the manifest%s", what);
        }
        rel[len] = '\0';
        free(names[i]);
    }
    free(names);
    closedir(d);
}

static void scan_undeclared(vctx *c)
{
    int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *rel = malloc(ETP_BUNDLE_PATH_MAX * 4 + ETP_BUNDLE_NAME_MAX + 2);
    if (fd < 0 || !rel) {
        if (fd >= 0)
            close(fd);
        free(rel);
        c->oom |= !rel;
        return;
    }
    rel[0] = '\0';
    scan(c, fd, rel, 0, 0);
    if (c->scanned > SCAN_ENTRIES_MAX)
        file_line(c, 1, ".", 1, "stopped looking for undeclared files after %u entries",
                  SCAN_ENTRIES_MAX);
    free(rel);
}

/* ---- entry points ------------------------------------------------------ */

etp_status etp_bundle_verify_text(int dirfd, const char *dir, const char *text, size_t len,
                                  etp_verify_report *r)
{
    vctx c = {.dir = dir, .dirfd = dirfd, .r = r};
    c.problem_cap = r->problem_count;
    c.warning_cap = r->warning_count;
    c.realdir = realpath(dir, NULL);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        char q[QBUF];
        quote(q, sizeof q, je.text, strlen(je.text));
        manifest_problem(&c, "not valid JSON: %s (line %d, column %d, offset %d)", q, je.line,
                         je.column, je.position);
    } else if (!json_is_object(root)) {
        manifest_problem(&c, "not a JSON object");
    } else if (check_envelope(&c, root)) {
        const json_t *arts = need(&c, root, "artifacts", JSON_ARRAY, "");
        if (arts && json_array_size(arts) > ETP_VERIFY_ARTIFACTS_MAX)
            manifest_problem(&c, "declares %zu artifacts; the limit is %u",
                             json_array_size(arts), ETP_VERIFY_ARTIFACTS_MAX);
        else if (arts)
            check_artifacts(&c, arts);
        if (!c.oom)
            scan_undeclared(&c);
    }
    free(c.declared);
    json_decref(root);
    free(c.realdir);
    return c.oom ? ETP_E_NOMEM : ETP_OK;
}

/* Read the manifest (a regular file, not through a symlink, capped in size)
 * into a new buffer; NULL after recording a problem. */
static char *read_manifest(vctx *c, size_t *len)
{
    struct stat st;
    if (fstatat(c->dirfd, ETP_BUNDLE_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            manifest_problem(c, "missing: the bundle is not published");
        else
            manifest_problem(c, "cannot stat: %s", strerror(errno));
        return NULL;
    }
    if (S_ISLNK(st.st_mode)) {
        manifest_problem(c, "is a symlink (not followed)");
        return NULL;
    }
    int fd = openat(c->dirfd, ETP_BUNDLE_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        manifest_problem(c, fd < 0 ? "cannot open" : "not a regular file");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > ETP_VERIFY_MANIFEST_MAX) {
        manifest_problem(c, "%" PRIu64 " bytes; the limit is %u", (uint64_t)st.st_size,
                         ETP_VERIFY_MANIFEST_MAX);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        c->oom = 1;
        return NULL;
    }
    for (;;) {
        if (n == cap) { /* the file grew since fstat: stop at the cap */
            manifest_problem(c, "changed while being read");
            free(buf);
            close(fd);
            return NULL;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            manifest_problem(c, "read error: %s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    *len = n;
    return buf;
}

char *etp_bundle_read_manifest(int dirfd, const char *dir, etp_verify_report *r, size_t *len,
                               int *oom)
{
    vctx c = {.dir = dir, .dirfd = dirfd, .r = r};
    c.problem_cap = r->problem_count;
    c.warning_cap = r->warning_count;
    char *text = read_manifest(&c, len);
    *oom = c.oom;
    return text;
}

etp_status etp_bundle_verify_keep(const char *dir, etp_verify_report **out, char **text_out,
                                  size_t *len_out, etp_error *err)
{
    *out = NULL;
    if (text_out)
        *text_out = NULL;
    if (!dir || !*dir)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no bundle directory given");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot open the bundle directory: %s", strerror(errno));
    etp_verify_report *r = calloc(1, sizeof *r);
    if (!r) {
        close(dfd);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    vctx c = {.dir = dir, .dirfd = dfd, .r = r};
    size_t len = 0;
    char *text = read_manifest(&c, &len);
    etp_status s = c.oom ? ETP_E_NOMEM : ETP_OK;
    if (text)
        s = etp_bundle_verify_text(dfd, dir, text, len, r);
    close(dfd);
    if (s) {
        free(text);
        etp_verify_report_free(r);
        return etp_error_set(err, s, dir, ETP_NO_OFFSET, "out of memory while verifying");
    }
    if (text_out) {
        *text_out = text;
        *len_out = len;
    } else {
        free(text);
    }
    *out = r;
    return ETP_OK;
}

etp_status etp_bundle_verify(const char *dir, etp_verify_report **out, etp_error *err)
{
    return etp_bundle_verify_keep(dir, out, NULL, NULL, err);
}

void etp_verify_report_free(etp_verify_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->problem_count; i++)
        free(r->problems[i]);
    for (uint32_t i = 0; i < r->warning_count; i++)
        free(r->warnings[i]);
    free(r->problems);
    free(r->warnings);
    free(r);
}
