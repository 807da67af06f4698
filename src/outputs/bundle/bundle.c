/* bundle.c - start a result bundle, record inputs, write artifacts. */
#define _GNU_SOURCE /* sync_file_range */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/hashed_file.h"
#include "util/jsonw_value.h"
#include "util/str.h"
#include "util/thread.h"
#include "util/utc_time.h"

/* Remove @p name from @p dirfd if present. 0 when gone, -1 otherwise. */
static int remove_entry(int dirfd, const char *name)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    return -1;
}

static int make_run_id(char out[37])
{
    unsigned char u[16];
    if (RAND_bytes(u, sizeof u) != 1)
        return -1;
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[u[i] >> 4];
        out[o++] = hex[u[i] & 15];
    }
    out[o] = '\0';
    return 0;
}

etp_status etp_bundle_begin(const char *dir, etp_bundle **out, etp_error *err)
{
    return etp_bundle_begin_ex(dir, 0, out, err);
}

etp_status etp_bundle_begin_ex(const char *dir, unsigned flags, etp_bundle **out, etp_error *err)
{
    *out = NULL;
    etp_stage stage;
    int dfd;
    etp_status s = etp_stage_open(dir, flags, &stage, &dfd, err);
    if (s)
        return s;
    etp_bundle *b = calloc(1, sizeof *b);
    if (!b) {
        close(dfd);
        etp_stage_discard(&stage);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    b->stage = stage;
    b->flags = flags;
    b->fail_after = etp_stage_test_fail_after();
    b->slow_ms = etp_stage_test_slow_ms();
    b->dirfd = dfd;
    b->dir = etp_strdup(dir);
    b->bundle_type = etp_strdup("profile");
    b->issues = json_array();
    b->comparability = json_object();
    b->extensions = json_object();
    if (!b->dir || !b->bundle_type || !b->issues || !b->comparability || !b->extensions) {
        etp_bundle_free(b);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    if (make_run_id(b->run_id)) {
        etp_bundle_free(b);
        return etp_error_set(err, ETP_E_INTERNAL, dir, ETP_NO_OFFSET,
                             "no random bytes for the run id");
    }
    /* The publication time to the millisecond: runs published within one
     * second stay in order in a run history. */
    int64_t now = etp_utc_now_ms();
    if (now < 0 || etp_utc_format_ms(now, b->timestamp, sizeof b->timestamp)) {
        etp_bundle_free(b);
        return etp_error_set(err, ETP_E_INTERNAL, dir, ETP_NO_OFFSET, "cannot read the clock");
    }
    *out = b;
    return ETP_OK;
}

static etp_status refuse_after_commit(const etp_bundle *b, etp_error *err)
{
    return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                         "the bundle is already published; it takes no more changes");
}

/* Open @p path (a regular file) and hash it: the one read of an input. */
static etp_status hash_input(const char *path, uint64_t *size, char sha[ETP_SHA256_HEX],
                             etp_error *err)
{
    if (!path || !*path)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "empty input path");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s",
                             strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "not a regular file");
    }
    if (etp_sha256_fd(fd, sha, size) != 0) {
        int e = errno;
        close(fd);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot read to hash: %s",
                             e ? strerror(e) : "OpenSSL SHA-256 failed");
    }
    close(fd);
    return ETP_OK;
}

static etp_status check_input(const etp_bundle *b, const char *role, const char *path,
                              etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    if (!etp_bundle_is_token(role))
        return etp_error_set(err, ETP_E_USAGE, path, ETP_NO_OFFSET,
                             "input role must be a lowercase name such as \"etdump\"");
    if (!path || !*path)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "empty input path");
    return ETP_OK;
}

static etp_status record_input(etp_bundle *b, const char *role, const char *path,
                               uint64_t size, const char *sha, etp_error *err)
{
    etp_bundle_input in = {0};
    in.size = size;
    memcpy(in.sha256, sha, ETP_SHA256_HEX);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (b->input_count == b->input_cap) {
        size_t ncap = b->input_cap ? b->input_cap * 2 : 8;
        etp_bundle_input *n = realloc(b->inputs, ncap * sizeof *n);
        if (!n)
            return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
        b->inputs = n;
        b->input_cap = ncap;
    }
    in.role = etp_strdup(role);
    in.name = etp_strdup(base);
    if (!in.role || !in.name) {
        free(in.role);
        free(in.name);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    }
    b->inputs[b->input_count++] = in;
    return ETP_OK;
}

etp_status etp_bundle_add_input(etp_bundle *b, const char *role, const char *path,
                                etp_error *err)
{
    etp_status s = check_input(b, role, path, err);
    uint64_t size = 0;
    char sha[ETP_SHA256_HEX];
    if (!s)
        s = hash_input(path, &size, sha, err);
    return s ? s : record_input(b, role, path, size, sha, err);
}

/* Inputs being hashed on a helper thread (etp_bundle_add_inputs_begin). The
 * thread touches only this structure, never the bundle. */
struct etp_bundle_input_job {
    etp_bundle *b;
    size_t n;
    char **roles, **paths;
    uint64_t *sizes;
    char (*sha)[ETP_SHA256_HEX];
    etp_status status; /* of the first input that failed, in order */
    etp_error err;
    pthread_t thread;
    int threaded;
};

static void *hash_inputs(void *arg)
{
    etp_bundle_input_job *j = arg;
    for (size_t i = 0; i < j->n && !j->status; i++)
        j->status = hash_input(j->paths[i], &j->sizes[i], j->sha[i], &j->err);
    return NULL;
}

static void input_job_free(etp_bundle_input_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free(j->roles[i]);
        free(j->paths[i]);
    }
    free(j->roles);
    free(j->paths);
    free(j->sizes);
    free(j->sha);
    free(j);
}

etp_bundle_input_job *etp_bundle_add_inputs_begin(etp_bundle *b, const char *const *roles,
                                                  const char *const *paths, size_t n,
                                                  etp_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (check_input(b, roles[i], paths[i], err))
            return NULL;
    etp_bundle_input_job *j = calloc(1, sizeof *j);
    if (j) {
        j->b = b;
        j->n = n;
        j->roles = calloc(n + 1, sizeof *j->roles);
        j->paths = calloc(n + 1, sizeof *j->paths);
        j->sizes = calloc(n + 1, sizeof *j->sizes);
        j->sha = calloc(n + 1, sizeof *j->sha);
    }
    int ok = j && j->roles && j->paths && j->sizes && j->sha;
    for (size_t i = 0; ok && i < n; i++) {
        j->roles[i] = etp_strdup(roles[i]);
        j->paths[i] = etp_strdup(paths[i]);
        ok = j->roles[i] && j->paths[i];
    }
    if (!ok) {
        if (j) {
            j->n = n;
            input_job_free(j);
        }
        etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
        return NULL;
    }
    j->threaded = etp_thread_start(&j->thread, hash_inputs, j) == 0;
    return j;
}

etp_status etp_bundle_add_inputs_end(etp_bundle_input_job *j, etp_error *err)
{
    if (!j)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no input job");
    if (j->threaded)
        pthread_join(j->thread, NULL);
    else
        hash_inputs(j); /* no thread to be had: hash them here */
    etp_status s = j->status;
    if (s)
        *err = j->err;
    for (size_t i = 0; i < j->n && !s; i++) {
        s = check_input(j->b, j->roles[i], j->paths[i], err);
        if (!s)
            s = record_input(j->b, j->roles[i], j->paths[i], j->sizes[i], j->sha[i], err);
    }
    input_job_free(j);
    return s;
}

static const char *media_type_for(const char *rel)
{
    const char *dot = strrchr(rel, '.');
    const char *slash = strrchr(rel, '/');
    if (!dot || (slash && dot < slash))
        return "application/octet-stream";
    if (!strcmp(dot, ".json"))
        return "application/json";
    if (!strcmp(dot, ".csv"))
        return "text/csv";
    if (!strcmp(dot, ".txt") || !strcmp(dot, ".log"))
        return "text/plain";
    return "application/octet-stream";
}

static int is_artifact_role(const char *role)
{
    static const char *const roles[] = {"core", "projection", "extension", "export",
                                        "diagnostic"};
    for (size_t i = 0; role && i < sizeof roles / sizeof roles[0]; i++)
        if (!strcmp(role, roles[i]))
            return 1;
    return 0;
}

/* A media type as in RFC 6838: type "/" subtype, printable, no spaces. */
static int is_media_type(const char *s)
{
    size_t n = strlen(s);
    const char *slash = strchr(s, '/');
    if (n == 0 || n > 127 || !slash || slash == s || !slash[1])
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

/* Binary search of the sorted artifact list: index of @p rel, or where it
 * would go (with *found = 0). */
static size_t find_artifact(const etp_bundle *b, const char *rel, int *found)
{
    size_t lo = 0, hi = b->artifact_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(b->artifacts[mid].path, rel);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

/* Everything about an artifact that can be checked before touching disk.
 * *slot receives the sorted-list position for the new entry. */
static etp_status check_artifact(etp_bundle *b, const char *rel, const char **media_type,
                                 const char *role, const char *schema_id, int schema_version,
                                 size_t *slot, etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    const char *why = etp_bundle_path_problem(rel, rel ? strlen(rel) : 0);
    if (why)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "artifact '%s': %s",
                             rel ? rel : "", why);
    if (!strcmp(rel, ETP_BUNDLE_MANIFEST) || !strcmp(rel, ETP_BUNDLE_MANIFEST_TMP))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': that name is reserved for the manifest", rel);
    if (!*media_type)
        *media_type = media_type_for(rel);
    if (!is_media_type(*media_type))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': bad media type '%s'", rel, *media_type);
    if (!is_artifact_role(role))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': role must be core, projection, extension, export "
                             "or diagnostic",
                             rel);
    if (schema_id && (!etp_bundle_is_token(schema_id) || schema_version < 1))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': schema id must be a lowercase name and its "
                             "version an integer >= 1",
                             rel);
    int found;
    *slot = find_artifact(b, rel, &found);
    if (found)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s' is already in the bundle", rel);
    /* A file cannot also be a directory of other artifacts, and vice versa.
     * Binary searches keep this cheap for bundles of many files. */
    char prefix[ETP_BUNDLE_PATH_MAX + 2];
    size_t n = strlen(rel);
    for (size_t i = 0; i < n; i++) {
        if (rel[i] != '/')
            continue;
        memcpy(prefix, rel, i);
        prefix[i] = '\0';
        int hit;
        size_t at = find_artifact(b, prefix, &hit);
        if (hit)
            return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                                 "artifact '%s' clashes with artifact '%s' (file vs directory)",
                                 rel, b->artifacts[at].path);
    }
    memcpy(prefix, rel, n);
    memcpy(prefix + n, "/", 2);
    int hit;
    size_t at = find_artifact(b, prefix, &hit); /* first path >= "rel/" */
    if (at < b->artifact_count && !strncmp(b->artifacts[at].path, prefix, n + 1))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s' clashes with artifact '%s' (file vs directory)", rel,
                             b->artifacts[at].path);
    return ETP_OK;
}

static etp_status add_artifact(etp_bundle *b, size_t slot, const char *rel,
                               const char *media_type, const char *role, const char *schema_id,
                               int schema_version, uint64_t size, const char *sha256,
                               etp_error *err)
{
    if (b->artifact_count == b->artifact_cap) {
        size_t ncap = b->artifact_cap ? b->artifact_cap * 2 : 16;
        etp_bundle_artifact *n = realloc(b->artifacts, ncap * sizeof *n);
        if (!n)
            return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
        b->artifacts = n;
        b->artifact_cap = ncap;
    }
    etp_bundle_artifact a = {0};
    a.path = etp_strdup(rel);
    a.media_type = etp_strdup(media_type);
    a.role = etp_strdup(role);
    a.schema = schema_id ? etp_strdup(schema_id) : NULL;
    a.schema_version = schema_id ? schema_version : 0;
    a.size = size;
    memcpy(a.sha256, sha256, ETP_SHA256_HEX);
    if (!a.path || !a.media_type || !a.role || (schema_id && !a.schema)) {
        free(a.path);
        free(a.media_type);
        free(a.role);
        free(a.schema);
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    }
    memmove(&b->artifacts[slot + 1], &b->artifacts[slot],
            (b->artifact_count - slot) * sizeof *b->artifacts);
    b->artifacts[slot] = a;
    b->artifact_count++;
    b->written++;
    return ETP_OK;
}

/* Forget artifact @p rel again (a batch that failed): as if never written. */
static void drop_artifact(etp_bundle *b, const char *rel)
{
    int found;
    size_t at = find_artifact(b, rel, &found);
    if (!found)
        return;
    etp_bundle_artifact *a = &b->artifacts[at];
    free(a->path);
    free(a->media_type);
    free(a->role);
    free(a->schema);
    memmove(a, a + 1, (b->artifact_count - at - 1) * sizeof *a);
    b->artifact_count--;
    b->written--;
}

/* Open a fresh file for @p rel: parent directories made without following
 * symlinks, any existing entry replaced (never written through). */
static etp_status create_file(etp_bundle *b, const char *rel, int *parent_fd, int *fd,
                              const char **leaf, etp_error *err)
{
    char bad[ETP_BUNDLE_PATH_MAX + 1];
    etp_walk_result w = etp_bundle_walk_parent(b->dirfd, rel, 1, parent_fd, leaf, bad, sizeof bad);
    if (w == ETP_WALK_SYMLINK)
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': '%s' is a symlink; refusing to follow it", rel, bad);
    if (w == ETP_WALK_NOTDIR)
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': '%s' exists and is not a directory", rel, bad);
    if (w != ETP_WALK_OK)
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': '%s': %s",
                             rel, bad, strerror(errno));
    if (remove_entry(*parent_fd, *leaf) != 0) {
        int e = errno;
        close(*parent_fd);
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': cannot replace the existing entry: %s", rel,
                             strerror(e));
    }
    *fd = openat(*parent_fd, *leaf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (*fd < 0) {
        int e = errno;
        close(*parent_fd);
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': create: %s",
                             rel, strerror(e));
    }
    return ETP_OK;
}

/* The test hooks (bundle.h): a pause before each artifact, and a write
 * failure after the first N artifacts. 1 when this artifact must fail. */
static int test_hooks(const etp_bundle *b)
{
    if (b->slow_ms > 0)
        etp_stage_test_sleep(b->slow_ms);
    return b->fail_after >= 0 && b->written >= (size_t)b->fail_after;
}

/* What the failure hook does instead of a write: half the bytes, then "no
 * space left on device", as a full disk would. */
static int injected_write_failure(int fd, const void *data, size_t len)
{
    (void)etp_write_all(fd, data, len / 2);
    errno = ENOSPC;
    return -1;
}

etp_status etp_bundle_write(etp_bundle *b, const char *rel, const void *data, size_t len,
                            const char *media_type, const char *role, const char *schema_id,
                            int schema_version, etp_error *err)
{
    size_t slot;
    etp_status s = check_artifact(b, rel, &media_type, role, schema_id, schema_version, &slot, err);
    if (s)
        return s;
    if (!data && len)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': no data", rel);
    char sha[ETP_SHA256_HEX];
    if (etp_sha256_buf(data ? data : "", len, sha) != 0)
        return etp_error_set(err, ETP_E_INTERNAL, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': OpenSSL SHA-256 failed", rel);
    int parent_fd, fd;
    const char *leaf;
    if ((s = create_file(b, rel, &parent_fd, &fd, &leaf, err)))
        return s;
    int wrote = test_hooks(b) ? injected_write_failure(fd, data, len)
                              : etp_write_all(fd, data, len);
    if (wrote == 0) /* made durable at commit (etp_bundle_commit); start it now */
        (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    if (wrote != 0) {
        int e = errno;
        close(fd);
        unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': write: %s",
                             rel, strerror(e));
    }
    int closed = close(fd);
    int e = errno;
    if (closed != 0) {
        unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': close: %s",
                             rel, strerror(e));
    }
    close(parent_fd);
    return add_artifact(b, slot, rel, media_type, role, schema_id, schema_version, len, sha, err);
}

/* One job of etp_bundle_write_streams while it runs. */
typedef struct stream_job {
    const etp_bundle_stream *spec;
    etp_bundle *b;
    int inject;       /* test hook: this artifact fails as a full disk would */
    etp_status status;
    etp_error err;
    uint64_t size;
    char sha[ETP_SHA256_HEX];
} stream_job;

/* Create, fill and hash one artifact, its writeback started (made durable
 * at commit); the file is removed again when
 * anything fails. Touches only its own job and file: runs on any thread. */
static void run_stream_job(stream_job *j)
{
    etp_bundle *b = j->b;
    const char *rel = j->spec->rel;
    etp_error *err = &j->err;
    int parent_fd, fd;
    const char *leaf;
    if ((j->status = create_file(b, rel, &parent_fd, &fd, &leaf, err)))
        return;
    etp_hashed_file *hf = NULL;
    FILE *fp = etp_hashed_file_open(fd, &hf);
    if (!fp) {
        close(fd);
        unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        j->status = etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET,
                                  "artifact '%s': out of memory", rel);
        return;
    }
    if (b->slow_ms > 0)
        etp_stage_test_sleep(b->slow_ms);
    etp_error_clear(err);
    int filled = j->spec->fill(fp, j->spec->ctx, err);
    const char *what = NULL;
    int e = 0;
    if (etp_hashed_file_finish(hf, ETP_HF_WRITEBACK, &j->size, j->sha, &what) != 0)
        e = errno;
    /* A writer that failed because its file did (a full disk) is reported
     * by the file's own error, which says why. */
    if (filled != 0 && !what)
        what = "the writer failed", e = 0;
    else if (j->inject && !what)
        what = "write", e = ENOSPC;
    if (close(fd) != 0 && !what)
        e = errno, what = "close";
    if (what) {
        (void)unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        if (filled != 0 && err->code != ETP_OK)
            j->status = err->code;
        else
            j->status = etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': %s%s%s",
                                      rel, what, e ? ": " : "", e ? strerror(e) : "");
        return;
    }
    close(parent_fd);
    j->status = ETP_OK;
}

typedef struct stream_batch {
    stream_job *jobs;
    etp_claims claims;
} stream_batch;

/* Worker: take jobs from one end of the list until none are left or one
 * before them failed (then the rest cannot matter). */
static void run_claimed(stream_batch *sb, int back)
{
    uint32_t from, to;
    while (etp_claim(&sb->claims, back, 1, &from, &to)) {
        run_stream_job(&sb->jobs[from]);
        if (sb->jobs[from].status && !back)
            etp_claims_stop(&sb->claims);
    }
}

static void *stream_worker(void *arg)
{
    run_claimed(arg, 1);
    return NULL;
}

etp_status etp_bundle_write_streams(etp_bundle *b, const etp_bundle_stream *streams, size_t n,
                                    etp_error *err)
{
    if (!n)
        return ETP_OK;
    if (!streams || n > UINT32_MAX)
        return etp_error_set(err, ETP_E_USAGE, b ? b->dir : NULL, ETP_NO_OFFSET,
                             "no streams to write");
    stream_job *jobs = calloc(n, sizeof *jobs);
    if (!jobs)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    /* Reserve every path first, in order, as separate writes would: the
     * checks, the duplicate and file/directory clashes among the batch
     * itself, and the failure hook's count all stay as they were. */
    etp_status s = ETP_OK;
    size_t reserved = 0;
    for (; reserved < n; reserved++) {
        const etp_bundle_stream *st = &streams[reserved];
        const char *mt = st->media_type;
        size_t slot;
        if ((s = check_artifact(b, st->rel, &mt, st->role, st->schema_id, st->schema_version,
                                &slot, err)))
            break;
        if (!st->fill) {
            s = etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                              "artifact '%s': no fill function", st->rel);
            break;
        }
        jobs[reserved].spec = st;
        jobs[reserved].b = b;
        jobs[reserved].inject = b->fail_after >= 0 && b->written >= (size_t)b->fail_after;
        if ((s = add_artifact(b, slot, st->rel, mt, st->role, st->schema_id, st->schema_version,
                              0, "", err)))
            break;
    }
    if (!s) {
        stream_batch sb;
        memset(&sb, 0, sizeof sb);
        sb.jobs = jobs;
        pthread_t helper;
        int threaded = 0;
        if (etp_claims_init(&sb.claims, 0, (uint32_t)n) == 0) {
            threaded = n > 1 && etp_thread_start(&helper, stream_worker, &sb) == 0;
            run_claimed(&sb, 0);
            if (threaded)
                pthread_join(helper, NULL);
            etp_claims_fini(&sb.claims);
        } else {
            for (size_t i = 0; i < n && !jobs[i].status; i++)
                run_stream_job(&jobs[i]);
        }
        /* The first failure in the given order is the one reported. */
        for (size_t i = 0; i < n && !s; i++) {
            if (!jobs[i].spec)
                continue;
            if (jobs[i].status) {
                s = jobs[i].status;
                *err = jobs[i].err;
            }
        }
        for (size_t i = 0; i < n && !s; i++) {
            int found;
            size_t at = find_artifact(b, streams[i].rel, &found);
            b->artifacts[at].size = jobs[i].size;
            memcpy(b->artifacts[at].sha256, jobs[i].sha, ETP_SHA256_HEX);
        }
    }
    if (s) {
        /* Nothing of a failed batch is recorded; files written by its other
         * jobs go with the staging directory. */
        for (size_t i = 0; i < reserved; i++)
            drop_artifact(b, streams[i].rel);
    }
    free(jobs);
    return s;
}

etp_status etp_bundle_write_stream(etp_bundle *b, const char *rel, const char *media_type,
                                   const char *role, const char *schema_id, int schema_version,
                                   int (*fill)(FILE *fp, void *ctx, etp_error *err), void *ctx,
                                   etp_error *err)
{
    etp_bundle_stream one = {rel, media_type, role, schema_id, schema_version, fill, ctx};
    return etp_bundle_write_streams(b, &one, 1, err);
}

void etp_bundle_set_status(etp_bundle *b, const char *status, const char *validity)
{
    if (!b || b->committed)
        return;
    free(b->status);
    free(b->validity);
    b->status = status ? etp_strdup(status) : NULL;
    b->validity = validity ? etp_strdup(validity) : NULL;
}

/* Parse @p json with duplicate keys refused; NULL with @p err filled. */
static json_t *parse_value(const etp_bundle *b, const char *what, const char *json,
                           etp_error *err)
{
    if (!json) {
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: no JSON text", what);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loads(json, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!v) {
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: not JSON: %s (offset %d)",
                      what, je.text, je.position);
        return NULL;
    }
    if (etp_json_depth(v, ETP_JW_VALUE_MAX_DEPTH) > ETP_JW_VALUE_MAX_DEPTH) {
        json_decref(v);
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: nested deeper than %d", what,
                      ETP_JW_VALUE_MAX_DEPTH);
        return NULL;
    }
    return v;
}

etp_status etp_bundle_set_json(etp_bundle *b, const char *member, const char *json,
                               etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    json_t **slot;
    int want_array = 0;
    if (member && !strcmp(member, "issues"))
        slot = &b->issues, want_array = 1;
    else if (member && !strcmp(member, "comparability"))
        slot = &b->comparability;
    else if (member && !strcmp(member, "extensions"))
        slot = &b->extensions;
    else
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "manifest member '%s' cannot be set (issues, comparability, "
                             "extensions)",
                             member ? member : "");
    json_t *v = parse_value(b, member, json, err);
    if (!v)
        return ETP_E_USAGE;
    if (want_array ? !json_is_array(v) : !json_is_object(v)) {
        json_decref(v);
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: must be a JSON %s",
                             member, want_array ? "array" : "object");
    }
    if (want_array) {
        size_t i;
        json_t *issue;
        json_array_foreach(v, i, issue) {
            const char *why = etp_bundle_issue_problem(issue);
            if (why) {
                json_decref(v);
                return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "issues[%zu] %s",
                                     i, why);
            }
        }
    }
    json_decref(*slot);
    *slot = v;
    return ETP_OK;
}

etp_status etp_bundle_set_options(etp_bundle *b, const char *options_json, etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    json_t *v = parse_value(b, "options", options_json, err);
    if (!v)
        return ETP_E_USAGE;
    if (!json_is_object(v)) {
        json_decref(v);
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "options: must be a JSON object");
    }
    char *canon = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
    if (!canon) {
        json_decref(v);
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    }
    int rc = etp_sha256_buf(canon, strlen(canon), b->options_sha256);
    free(canon);
    if (rc) {
        json_decref(v);
        return etp_error_set(err, ETP_E_INTERNAL, b->dir, ETP_NO_OFFSET,
                             "OpenSSL SHA-256 failed");
    }
    json_decref(b->options);
    b->options = v;
    return ETP_OK;
}

etp_status etp_bundle_set_type(etp_bundle *b, const char *bundle_type, etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    if (!etp_bundle_is_token(bundle_type))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "bundle type must be a lowercase name such as \"profile\"");
    char *t = etp_strdup(bundle_type);
    if (!t)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    free(b->bundle_type);
    b->bundle_type = t;
    return ETP_OK;
}

etp_status etp_bundle_set_identity(etp_bundle *b, const char *run_id, const char *timestamp,
                                   etp_error *err)
{
    if (b->committed)
        return refuse_after_commit(b, err);
    if (run_id && !etp_bundle_is_uuid(run_id))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "run id must be a lowercase 8-4-4-4-12 hex UUID");
    if (timestamp && !etp_bundle_is_utc_timestamp(timestamp))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "timestamp must be UTC RFC 3339, e.g. 2026-03-01T12:00:00Z");
    if (run_id)
        memcpy(b->run_id, run_id, 37);
    if (timestamp)
        snprintf(b->timestamp, sizeof b->timestamp, "%s", timestamp);
    return ETP_OK;
}

const char *etp_bundle_input_sha256(const etp_bundle *b, const char *role, uint64_t *size)
{
    for (size_t i = 0; i < b->input_count; i++)
        if (!strcmp(b->inputs[i].role, role)) {
            if (size)
                *size = b->inputs[i].size;
            return b->inputs[i].sha256;
        }
    return NULL;
}

const char *etp_bundle_run_id(const etp_bundle *b) { return b->run_id; }
const char *etp_bundle_timestamp(const etp_bundle *b) { return b->timestamp; }
const char *etp_bundle_dir(const etp_bundle *b) { return b->dir; }

void etp_bundle_free(etp_bundle *b)
{
    if (!b)
        return;
    if (b->dirfd >= 0)
        close(b->dirfd);
    etp_stage_discard(&b->stage); /* uncommitted: the staging directory goes */
    for (size_t i = 0; i < b->artifact_count; i++) {
        free(b->artifacts[i].path);
        free(b->artifacts[i].media_type);
        free(b->artifacts[i].role);
        free(b->artifacts[i].schema);
    }
    free(b->artifacts);
    for (size_t i = 0; i < b->input_count; i++) {
        free(b->inputs[i].role);
        free(b->inputs[i].name);
    }
    free(b->inputs);
    json_decref(b->issues);
    json_decref(b->comparability);
    json_decref(b->extensions);
    json_decref(b->options);
    free(b->status);
    free(b->validity);
    free(b->bundle_type);
    free(b->dir);
    free(b);
}
