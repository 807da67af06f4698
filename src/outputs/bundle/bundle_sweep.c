/* bundle_sweep.c - remove the staging and moved-aside directories of
 * publications whose writer is gone (etp_stage_sweep in bundle_stage.h).
 *
 * A writer holds a lock (flock) on its staging directory from its creation
 * to the swap, and on the old directory it moves aside until it is removed
 * (bundle_stage.c). A process killed with SIGKILL leaves
 * ".DIR.etprof-staging-*", ".DIR.etprof-old-*" or ".DIR.etprof-init-*"
 * behind with nobody holding its lock: those are what is removed here. */
#include "outputs/bundle/bundle_stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* At most this many leftovers are removed by one publication (the rest by
 * the next ones). */
#define SWEEP_MAX 64

static const char *const KINDS[] = {"staging", "old", "init"};

/* Whether @p name is ".LEAF.etprof-KIND-" + 12 lowercase hex digits. */
static int is_leftover(const char *name, const char *leaf)
{
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
        char prefix[ETP_BUNDLE_NAME_MAX + 1];
        etp_stage_prefix(prefix, leaf, KINDS[k]);
        size_t n = strlen(prefix);
        if (strncmp(name, prefix, n) != 0 || strlen(name + n) != ETP_STAGE_SUFFIX_LEN)
            continue;
        if (strspn(name + n, "0123456789abcdef") == ETP_STAGE_SUFFIX_LEN)
            return 1;
    }
    return 0;
}

/* Remove @p name if its lock can be taken and the name still holds the
 * directory locked. 1 when removed. */
static int sweep_one(int parentfd, const char *name)
{
    int fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int removed = 0;
    struct stat a, b;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &a) == 0 &&
        fstatat(parentfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        removed = etp_stage_rm_tree(parentfd, name) == 0;
    close(fd); /* the lock goes with it */
    return removed;
}

int etp_stage_sweep(int parentfd, const char *leaf)
{
    int dfd = openat(parentfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!dp) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    /* Names first, removal after: the parent is not changed under readdir. */
    char (*names)[ETP_BUNDLE_NAME_MAX + 1] = malloc(SWEEP_MAX * sizeof *names);
    size_t count = 0;
    struct dirent *d;
    while (names && count < SWEEP_MAX && (d = readdir(dp)) != NULL)
        if (strlen(d->d_name) <= ETP_BUNDLE_NAME_MAX && is_leftover(d->d_name, leaf))
            memcpy(names[count++], d->d_name, strlen(d->d_name) + 1);
    closedir(dp);
    int removed = 0;
    for (size_t i = 0; i < count; i++)
        removed += sweep_one(parentfd, names[i]);
    free(names);
    return removed;
}
