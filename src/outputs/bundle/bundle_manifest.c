/* bundle_manifest.c - serialize result_manifest.json, write it last into the
 * staging directory, and swap the whole bundle into place. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/jsonw_value.h"

#ifndef ETP_VERSION
#define ETP_VERSION "unknown"
#endif

static int one_of(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, set[i]))
            return 1;
    return 0;
}

static const char *const STATUSES[] = {"complete", "incomplete", "failed"};
static const char *const VALIDITIES[] = {"valid", "degraded", "invalid"};

const char *etp_bundle_derived_validity(const json_t *issues)
{
    size_t i;
    json_t *issue;
    int any = 0;
    json_array_foreach(issues, i, issue) {
        any = 1;
        const char *sev = json_string_value(json_object_get(issue, "severity"));
        if (sev && !strcmp(sev, "error"))
            return "invalid";
    }
    return any ? "degraded" : "valid";
}

char *etp_bundle_manifest_text(const etp_bundle *b, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    int bad = 0;
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_BUNDLE_SCHEMA);
    etp_jw_kint(&w, "schema_version", ETP_BUNDLE_SCHEMA_VERSION);
    etp_jw_kstr(&w, "bundle_type", b->bundle_type);
    etp_jw_kstr(&w, "run_id", b->run_id);
    etp_jw_kstr(&w, "timestamp", b->timestamp);
    etp_jw_key(&w, "tool");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "name", "etprof");
    etp_jw_kstr(&w, "version", ETP_VERSION);
    etp_jw_obj_end(&w);
    etp_jw_kstr(&w, "status", b->status ? b->status : "complete");
    etp_jw_kstr(&w, "validity",
                b->validity ? b->validity : etp_bundle_derived_validity(b->issues));
    etp_jw_key(&w, "issues");
    bad |= etp_jw_value(&w, b->issues);

    etp_jw_key(&w, "provenance");
    etp_jw_obj_begin(&w);
    etp_jw_key(&w, "inputs");
    etp_jw_arr_begin(&w);
    for (size_t i = 0; i < b->input_count; i++) {
        const etp_bundle_input *in = &b->inputs[i];
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "role", in->role);
        etp_jw_kstr(&w, "name", in->name);
        etp_jw_kuint(&w, "size_bytes", in->size);
        etp_jw_kstr(&w, "sha256", in->sha256);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    if (b->options) {
        etp_jw_key(&w, "options");
        bad |= etp_jw_value(&w, b->options);
        etp_jw_kstr(&w, "options_sha256", b->options_sha256);
    }
    etp_jw_obj_end(&w);

    etp_jw_key(&w, "comparability");
    bad |= etp_jw_value(&w, b->comparability);

    /* b->artifacts is kept sorted by path, so the order never depends on
     * the order the analysis happened to write files in. */
    etp_jw_key(&w, "artifacts");
    etp_jw_arr_begin(&w);
    for (size_t i = 0; i < b->artifact_count; i++) {
        const etp_bundle_artifact *a = &b->artifacts[i];
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "path", a->path);
        etp_jw_kstr(&w, "media_type", a->media_type);
        etp_jw_kuint(&w, "size_bytes", a->size);
        etp_jw_kstr(&w, "sha256", a->sha256);
        etp_jw_kstr(&w, "role", a->role);
        if (a->schema) {
            etp_jw_kstr(&w, "schema", a->schema);
            etp_jw_kint(&w, "schema_version", a->schema_version);
        }
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);

    etp_jw_key(&w, "extensions");
    bad |= etp_jw_value(&w, b->extensions);
    etp_jw_obj_end(&w);
    if (bad) {
        etp_jw_discard(&w);
        return NULL;
    }
    return etp_jw_take(&w, len);
}

/* Each artifact must still be on disk as written: catches a file removed
 * or rewritten behind the bundle's back before it is vouched for. */
static etp_status recheck_sizes(const etp_bundle *b, etp_error *err)
{
    for (size_t i = 0; i < b->artifact_count; i++) {
        const etp_bundle_artifact *a = &b->artifacts[i];
        struct stat st;
        if (fstatat(b->dirfd, a->path, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                                 "artifact '%s' vanished before publication: %s", a->path,
                                 strerror(errno));
        if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != a->size)
            return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                                 "artifact '%s' changed on disk before publication", a->path);
    }
    return ETP_OK;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Make every artifact and directory entry written so far durable before
 * the manifest vouches for them. Why here and not as each file is
 * written: on ext4 an fsync of a new file commits the journal, 20-40 ms
 * each, and fsyncs interleaved with writing put every file in a commit of
 * its own (18 per bundle). Done together at the end, the first fsync
 * commits the metadata of all of them and the others only wait for their
 * data, whose writeback started when they were written. (syncfs would be
 * one call, but it also waits for every other process' dirty data on that
 * file system: slower on a busy machine.) */
static etp_status sync_subdirs(const etp_bundle *b, etp_error *err);
static etp_status sync_artifacts(const etp_bundle *b, etp_error *err)
{
    for (size_t i = 0; i < b->artifact_count; i++) {
        const char *path = b->artifacts[i].path;
        int fd = openat(b->dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                                 "artifact '%s': cannot make it durable: %s", path, strerror(e));
        }
        close(fd);
    }
    return sync_subdirs(b, err);
}

/* fsync every subdirectory that holds artifacts or other artifact
 * directories, once each, so the new directory entries are durable before
 * the manifest vouches for them (the root is fsynced after the rename). */
static etp_status sync_subdirs(const etp_bundle *b, etp_error *err)
{
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < b->artifact_count; i++)
        for (const char *p = b->artifacts[i].path; *p; p++)
            cap += *p == '/';
    if (cap == 0)
        return ETP_OK;
    char **dirs = malloc(cap * sizeof *dirs);
    if (!dirs)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    etp_status s = ETP_OK;
    for (size_t i = 0; i < b->artifact_count && !s; i++) {
        const char *path = b->artifacts[i].path;
        for (const char *p = path; *p && !s; p++) {
            if (*p != '/')
                continue;
            size_t len = (size_t)(p - path);
            if (!(dirs[n] = malloc(len + 1)))
                s = etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
            else {
                memcpy(dirs[n], path, len);
                dirs[n++][len] = '\0';
            }
        }
    }
    if (n > 1)
        qsort(dirs, n, sizeof *dirs, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (!s && (i == 0 || strcmp(dirs[i], dirs[i - 1]) != 0)) {
            int fd = openat(b->dirfd, dirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0 || fsync(fd) != 0)
                s = etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                                  "cannot fsync directory '%s': %s", dirs[i], strerror(errno));
            if (fd >= 0)
                close(fd);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    return s;
}

etp_status etp_bundle_commit(etp_bundle *b, etp_error *err)
{
    if (b->committed)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "the bundle is already published");
    if (b->status && !one_of(b->status, STATUSES, 3))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "status '%s' is not complete, incomplete or failed", b->status);
    if (b->validity && !one_of(b->validity, VALIDITIES, 3))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "validity '%s' is not valid, degraded or invalid", b->validity);
    etp_status s = recheck_sizes(b, err);
    if (!s)
        s = sync_artifacts(b, err);
    if (s)
        return s;
    size_t len;
    char *text = etp_bundle_manifest_text(b, &len);
    if (!text)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET,
                             "cannot serialize the manifest");
    const char *step = NULL;
    int fd = -1, e = 0;
    if (unlinkat(b->dirfd, ETP_BUNDLE_MANIFEST_TMP, 0) != 0 && errno != ENOENT)
        e = errno, step = "remove the old temp manifest";
    if (!step) {
        fd = openat(b->dirfd, ETP_BUNDLE_MANIFEST_TMP,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            e = errno, step = "create the temp manifest";
    }
    if (!step && etp_write_all(fd, text, len) != 0)
        e = errno, step = "write the temp manifest";
    if (!step && fsync(fd) != 0)
        e = errno, step = "fsync the temp manifest";
    if (fd >= 0 && close(fd) != 0 && !step)
        e = errno, step = "close the temp manifest";
    free(text);
    /* Inside the staging directory too, a manifest is either absent or
     * whole: nothing that reads the staging directory sees half of one. */
    if (!step && renameat(b->dirfd, ETP_BUNDLE_MANIFEST_TMP, b->dirfd, ETP_BUNDLE_MANIFEST) != 0)
        e = errno, step = "rename the manifest into place";
    if (step) {
        (void)unlinkat(b->dirfd, ETP_BUNDLE_MANIFEST_TMP, 0);
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "cannot %s: %s", step,
                             strerror(e));
    }
    if (fsync(b->dirfd) != 0)
        return etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET,
                             "cannot fsync the staging directory: %s", strerror(errno));
    /* The swap is the publication: before it DIR holds what it held, after
     * it the complete new bundle. */
    int swapped;
    etp_status st = etp_stage_swap(&b->stage, b->dir, b->flags, &swapped, err);
    if (swapped)
        b->committed = 1;
    return st;
}
