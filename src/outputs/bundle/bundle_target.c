/* bundle_target.c - what a bundle may replace (etp_bundle_probe, and the
 * checks etp_stage_open / etp_stage_swap make): see bundle_target.h. */
#include "outputs/bundle/bundle_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

/* The largest manifest read to tell whether a directory is a bundle (the
 * verifier's limit). */
#define MANIFEST_MAX (64u << 20)

/* mkdir -p: create @p path and its missing parents. Existing parents may be
 * symlinks (e.g. /tmp on some systems). */
static int mkdir_p(const char *path)
{
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        buf[i] = saved;
    }
    free(buf);
    return 0;
}

/* Split @p dir into its parent (new string, "." for a bare name) and its
 * last component (into @p leaf). Trailing slashes are ignored. */
static etp_status split_dir(const char *dir, char **parent, char leaf[ETP_BUNDLE_NAME_MAX + 1],
                            etp_error *err)
{
    *parent = NULL;
    if (!dir || !*dir)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "empty bundle directory");
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    size_t len = n - start;
    if (len == 0 || (len == 1 && dir[start] == '.') ||
        (len == 2 && dir[start] == '.' && dir[start + 1] == '.'))
        return etp_error_set(err, ETP_E_USAGE, dir, ETP_NO_OFFSET,
                             "name the bundle directory itself (not '/', '.' or '..')");
    if (len > ETP_BUNDLE_NAME_MAX)
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET, "name too long");
    memcpy(leaf, dir + start, len);
    leaf[len] = '\0';
    size_t plen = start;
    while (plen > 1 && dir[plen - 1] == '/')
        plen--;
    *parent = plen ? strndup(dir, plen) : strdup(".");
    if (!*parent)
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    return ETP_OK;
}

/* Open the parent of @p dir (created first with ETP_BUNDLE_PARENTS);
 * *missing (if non-NULL) is set when it failed because the parent does not
 * exist. */
etp_status etp_target_open_parent(const char *dir, unsigned flags, int *parentfd,
                                  char leaf[ETP_BUNDLE_NAME_MAX + 1], int *missing,
                                  etp_error *err)
{
    if (missing)
        *missing = 0;
    char *parent;
    etp_status s = split_dir(dir, &parent, leaf, err);
    if (s)
        return s;
    if ((flags & ETP_BUNDLE_PARENTS) && mkdir_p(parent) != 0) {
        s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                          "cannot create the parent directory %s: %s", parent, strerror(errno));
        free(parent);
        return s;
    }
    *parentfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*parentfd < 0) {
        int e = errno;
        if (missing)
            *missing = e == ENOENT;
        if (e == ENOENT)
            s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                              "parent directory does not exist: %s", parent);
        else if (e == ENOTDIR)
            s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                              "parent is not a directory: %s", parent);
        else
            s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                              "cannot open the parent directory %s: %s", parent, strerror(e));
    }
    free(parent);
    return s;
}

/* 1 when the open directory @p fd holds a result_manifest.json (a regular
 * file, not a symlink) whose "schema" is the etprof result manifest's. */
static int holds_manifest(int fd)
{
    int mfd = openat(fd, ETP_BUNDLE_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (mfd < 0)
        return 0;
    struct stat st;
    int yes = 0;
    if (fstat(mfd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= MANIFEST_MAX) {
        size_t n = (size_t)st.st_size, got = 0;
        char *buf = malloc(n);
        while (buf && got < n) {
            ssize_t r = read(mfd, buf + got, n - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        json_t *m = buf && got == n ? json_loadb(buf, n, 0, NULL) : NULL;
        const char *schema = json_string_value(json_object_get(m, "schema"));
        yes = schema && !strcmp(schema, ETP_BUNDLE_SCHEMA);
        json_decref(m);
        free(buf);
    }
    close(mfd);
    return yes;
}

static int is_empty_dir(int fd)
{
    int dfd = dup(fd);
    DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!dp) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    struct dirent *d;
    int empty = 1;
    while (empty && (d = readdir(dp)) != NULL)
        empty = !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..");
    closedir(dp);
    return empty;
}

/* What @p leaf in @p parentfd is, by the rules of etp_bundle_probe();
 * *mode receives an existing directory's permission bits. */
etp_status etp_target_classify(int parentfd, const char *leaf, const char *dir, unsigned flags,
                               etp_bundle_target *kind, mode_t *mode, etp_error *err)
{
    struct stat st;
    int fd = -1;
    /* Another publication's two-rename swap may move DIR away between the
     * stat and the open: then look again (it is missing, or the new one). */
    for (int tries = 0; fd < 0; tries++) {
        *kind = ETP_BUNDLE_TARGET_MISSING;
        if (fstatat(parentfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                return ETP_OK;
            return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET, "cannot inspect: %s",
                                 strerror(errno));
        }
        if (!S_ISDIR(st.st_mode))
            break;
        fd = openat(parentfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && (errno != ENOENT || tries >= 8))
            return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET, "cannot open directory: %s",
                                 strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "bundle directory is a symlink; give the real directory");
    if (!S_ISDIR(st.st_mode))
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "exists and is not a directory");
    struct stat opened; /* the directory opened may be newer than the stat */
    if (mode)
        *mode = (fstat(fd, &opened) == 0 ? opened.st_mode : st.st_mode) & 07777;
    *kind = holds_manifest(fd) ? ETP_BUNDLE_TARGET_BUNDLE
            : is_empty_dir(fd) ? ETP_BUNDLE_TARGET_EMPTY
                               : ETP_BUNDLE_TARGET_OTHER;
    close(fd);
    if (*kind == ETP_BUNDLE_TARGET_OTHER && !(flags & ETP_BUNDLE_FORCE))
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "not empty and not an etprof bundle (no etprof "
                             "result_manifest.json); refusing to replace it");
    return ETP_OK;
}

etp_status etp_bundle_probe(const char *dir, unsigned flags, etp_bundle_target *kind,
                            etp_error *err)
{
    etp_bundle_target k = ETP_BUNDLE_TARGET_MISSING;
    char leaf[ETP_BUNDLE_NAME_MAX + 1];
    int parentfd = -1;
    /* Probing never creates anything: a missing parent that
     * ETP_BUNDLE_PARENTS would create is fine. */
    int missing;
    etp_status s = etp_target_open_parent(dir, flags & ~ETP_BUNDLE_PARENTS, &parentfd, leaf, &missing, err);
    if (s && missing && (flags & ETP_BUNDLE_PARENTS)) {
        etp_error_clear(err);
        s = ETP_OK;
    } else if (!s) {
        s = etp_target_classify(parentfd, leaf, dir, flags, &k, NULL, err);
        close(parentfd);
    }
    if (kind)
        *kind = k;
    return s;
}
