/* bundle_inputs.c - the inputs a bundle records: role, base name, size and
 * SHA-256 of each file, read once to hash it; several can be hashed on a
 * helper thread while the caller does other work (the analysis). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/str.h"
#include "util/thread.h"

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
        return etp_bundle_refuse_after_commit(b, err);
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
