/* bundle_files.c - an artifact's file in the staging directory: created
 * safely (bundle_rules' walk, no symlink followed), and written whole from
 * memory with its SHA-256, writeback started at once (made durable at
 * commit). The test hooks (bundle.h) act here: a pause before each
 * artifact, a full disk after the first N. */
#define _GNU_SOURCE /* sync_file_range */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/str.h"

/* Remove @p name from @p dirfd if present. 0 when gone, -1 otherwise. */
static int remove_entry(int dirfd, const char *name)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    return -1;
}

etp_status etp_bundle_create_file(etp_bundle *b, const char *rel, int *parent_fd, int *fd,
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
    etp_status s = etp_bundle_artifact_check(b, rel, &media_type, role, schema_id, schema_version, &slot, err);
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
    if ((s = etp_bundle_create_file(b, rel, &parent_fd, &fd, &leaf, err)))
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
    return etp_bundle_artifact_add(b, slot, rel, media_type, role, schema_id, schema_version, len, sha, err);
}
