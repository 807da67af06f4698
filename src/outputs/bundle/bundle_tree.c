/* bundle_tree.c - what the staging code and the sweep both use: the
 * names of a bundle's sibling directories and their removal with
 * async-signal-safe calls only (also from the signal handler). Kept apart
 * so that bundle_stage.c and bundle_sweep.c call down into it, never into
 * each other. */
#include "outputs/bundle/bundle_stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/* Nesting followed when removing a directory tree. A bundle is two or three
 * levels deep; a directory replaced with ETP_BUNDLE_FORCE may be deeper. */
#define RM_DEPTH_MAX 64

/* ---- removing a tree with async-signal-safe calls only ------------------- */

#if defined(__linux__)
struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};
#endif

static int is_dot(const char *n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

static int rm_tree_at(int dirfd, const char *name, int depth);

/* Remove every entry of the open directory @p fd. Linux: getdents64 into a
 * stack buffer (no allocation, safe in a signal handler). Elsewhere:
 * readdir (not async-signal-safe, but correct outside a handler). */
static int rm_entries(int fd, int depth)
{
    int bad = 0;
#if defined(__linux__)
    _Alignas(8) char buf[4096];
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0)
                bad = 1;
            break;
        }
        for (long off = 0; off < n;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
            off += d->reclen;
            if (!is_dot(d->name) && rm_tree_at(fd, d->name, depth + 1) != 0)
                bad = 1;
        }
    }
#else
    int dfd = dup(fd);
    DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!dp) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    struct dirent *d;
    while ((d = readdir(dp)) != NULL)
        if (!is_dot(d->d_name) && rm_tree_at(fd, d->d_name, depth + 1) != 0)
            bad = 1;
    closedir(dp);
#endif
    return bad ? -1 : 0;
}

/* rm -rf of @p name in @p dirfd, never following a symlink (a link is
 * removed, not what it points to). 0 when gone. */
static int rm_tree_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (depth >= RM_DEPTH_MAX)
        return -1;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1; /* removed meanwhile (a sweep): gone */
    /* Entries removed while reading may make a file system skip others;
     * a second pass picks them up. */
    int rc = -1;
    for (int pass = 0; pass < 3 && rc != 0; pass++) {
        if (pass && lseek(fd, 0, SEEK_SET) != 0)
            break;
        (void)rm_entries(fd, depth);
        rc = unlinkat(dirfd, name, AT_REMOVEDIR);
        if (rc != 0 && errno == ENOENT)
            rc = 0;
        if (rc != 0 && errno != ENOTEMPTY && errno != EEXIST)
            break;
    }
    close(fd);
    return rc;
}

int etp_stage_rm_tree(int dirfd, const char *name) { return rm_tree_at(dirfd, name, 0); }

void etp_stage_prefix(char out[ETP_BUNDLE_NAME_MAX + 1], const char *leaf, const char *what)
{
    int room = ETP_BUNDLE_NAME_MAX - (int)(strlen(".") + strlen(".etprof-") + strlen(what) +
                                            strlen("-") + ETP_STAGE_SUFFIX_LEN);
    snprintf(out, ETP_BUNDLE_NAME_MAX + 1, ".%.*s.etprof-%s-", room, leaf, what);
}
