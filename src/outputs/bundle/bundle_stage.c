/* bundle_stage.c - stage a bundle beside its directory and swap it into
 * place (see bundle_stage.h), and the signal-time undo
 * (etp_bundle_abandon_from_signal). What may be replaced: bundle_target.c. */
#include "outputs/bundle/bundle_stage.h"

#include "outputs/bundle/bundle_target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include <openssl/rand.h>
#include <pthread.h>


/* ---- the signal table ----------------------------------------------------- */

enum {
    SLOT_FREE = 0,
    SLOT_SETUP,    /* claimed, names being filled in: nothing on disk yet */
    SLOT_STAGING,  /* names[0] = staging directory; DIR untouched */
    SLOT_SWAPPING, /* renames in flight (signals blocked on that thread) */
    SLOT_ASIDE     /* new bundle in place; names[1] = the old one, to remove */
};

#define SLOTS 8

typedef struct stage_slot {
    atomic_int state;
    int parentfd;
    char names[2][ETP_BUNDLE_NAME_MAX + 1];
} stage_slot;

static stage_slot g_slots[SLOTS];

static int slot_claim(void)
{
    for (int i = 0; i < SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&g_slots[i].state, &expect, SLOT_SETUP))
            return i;
    }
    return -1; /* more publications at once than slots: they run unprotected */
}

static void slot_set(const etp_stage *st, int state, const char *aside)
{
    if (st->slot < 0)
        return;
    stage_slot *s = &g_slots[st->slot];
    if (state == SLOT_STAGING) {
        s->parentfd = st->parentfd;
        memcpy(s->names[0], st->name, sizeof s->names[0]);
    }
    if (aside)
        memcpy(s->names[1], aside, sizeof s->names[1]);
    atomic_store(&s->state, state);
}


void etp_bundle_abandon_from_signal(void)
{
    int saved = errno;
    for (int i = 0; i < SLOTS; i++) {
        stage_slot *s = &g_slots[i];
        int state = atomic_load(&s->state);
        /* The renames run with signals blocked on their thread, so this can
         * only be another thread: let them finish (bounded). */
        for (int spins = 0; state == SLOT_SWAPPING && spins < 2000; spins++) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            state = atomic_load(&s->state);
        }
        if (state == SLOT_STAGING)
            (void)etp_stage_rm_tree(s->parentfd, s->names[0]);
        else if (state == SLOT_ASIDE)
            (void)etp_stage_rm_tree(s->parentfd, s->names[1]);
        else
            continue;
        atomic_store(&s->state, SLOT_FREE);
    }
    errno = saved;
}

/* ---- staging and swapping ------------------------------------------------- */

/* Block the termination signals a user sends (their handler then runs only
 * after the step is recorded in the signal table); @p old receives the mask
 * to restore. */
static void block_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, old);
}

/* ".LEAF.etprof-WHAT-" + 12 random hex digits, the leaf cut so that the
 * whole name fits in a directory entry. */
static int make_name(char out[ETP_BUNDLE_NAME_MAX + 1], const char *leaf, const char *what)
{
    unsigned char r[6];
    if (RAND_bytes(r, sizeof r) != 1)
        return -1;
    static const char hex[] = "0123456789abcdef";
    char suffix[13];
    for (int i = 0; i < 6; i++) {
        suffix[2 * i] = hex[r[i] >> 4];
        suffix[2 * i + 1] = hex[r[i] & 15];
    }
    suffix[12] = '\0';
    char prefix[ETP_BUNDLE_NAME_MAX + 1];
    etp_stage_prefix(prefix, leaf, what);
    size_t n = strlen(prefix); /* room for the suffix was kept */
    memcpy(out, prefix, n);
    memcpy(out + n, suffix, sizeof suffix);
    return 0;
}

/* Create a new directory named like make_name() in @p parentfd. */
static int make_sibling(int parentfd, const char *leaf, const char *what,
                        char name[ETP_BUNDLE_NAME_MAX + 1])
{
    for (int tries = 0; tries < 16; tries++) {
        if (make_name(name, leaf, what) != 0) {
            errno = EIO;
            return -1;
        }
        if (mkdirat(parentfd, name, 0777) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* renameat2(RENAME_NOREPLACE) where there is one, else a check and a
 * rename (the names are random, so the check only guards a coincidence). */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
#if defined(__linux__) && defined(SYS_renameat2)
    if (syscall(SYS_renameat2, dirfd, from, dirfd, to, 1 /* RENAME_NOREPLACE */) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
#endif
    struct stat sb;
    if (fstatat(dirfd, to, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        errno = EEXIST;
        return -1;
    }
    return renameat(dirfd, from, dirfd, to);
}

/* The staging directory, locked (flock) for the writer's life on *fd: made
 * as ".LEAF.etprof-init-*", opened and locked, then renamed to its
 * ".LEAF.etprof-staging-*" name, so that no staging directory is ever seen
 * unlocked while its writer lives (bundle_sweep.c takes the unlocked ones).
 * A sweep may take the fresh init directory before it is locked: then the
 * rename finds it gone and another is made. */
static int make_locked_staging(int parentfd, const char *leaf, char name[ETP_BUNDLE_NAME_MAX + 1],
                               int *fd)
{
    for (int tries = 0; tries < 16; tries++) {
        char init[ETP_BUNDLE_NAME_MAX + 1];
        if (make_sibling(parentfd, leaf, "init", init) != 0)
            return -1;
        int dfd = openat(parentfd, init, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        if (dfd < 0 && e == ENOENT)
            continue;
        int rc = dfd < 0 ? -1 : 0;
        while (rc == 0 && flock(dfd, LOCK_EX) != 0)
            if ((e = errno) != EINTR)
                rc = -1;
        if (rc == 0 && make_name(name, leaf, "staging") != 0)
            rc = -1, e = EIO;
        if (rc == 0 && rename_noreplace(parentfd, init, name) == 0) {
            *fd = dfd;
            return 0;
        }
        if (rc == 0)
            e = errno;
        if (dfd >= 0)
            close(dfd);
        if (e == ENOENT)
            continue; /* swept before it was locked: make another */
        (void)unlinkat(parentfd, init, AT_REMOVEDIR);
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

etp_status etp_stage_open(const char *dir, unsigned flags, etp_stage *st, int *stage_fd,
                          etp_error *err)
{
    st->parentfd = -1;
    st->slot = -1;
    st->dirfd = -1;
    st->name[0] = '\0';
    *stage_fd = -1;
    etp_status s = etp_target_open_parent(dir, flags, &st->parentfd, st->leaf, NULL, err);
    if (s)
        return s;
    etp_bundle_target kind;
    mode_t mode = 0;
    if ((s = etp_target_classify(st->parentfd, st->leaf, dir, flags, &kind, &mode, err))) {
        close(st->parentfd);
        st->parentfd = -1;
        return s;
    }
    /* What killed publications (SIGKILL, power loss) left beside DIR. */
    etp_stage_sweep(st->parentfd, st->leaf);
    st->slot = slot_claim();
    /* Signals wait until the new directory is in the table, so that a
     * handler can never miss it. */
    sigset_t old;
    block_signals(&old);
    int made = make_locked_staging(st->parentfd, st->leaf, st->name, stage_fd);
    int e = errno;
    if (made == 0) {
        st->dirfd = *stage_fd;
        slot_set(st, SLOT_STAGING, NULL);
    }
    else
        st->name[0] = '\0';
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (made != 0) {
        etp_stage_discard(st);
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot create the staging directory beside it: %s", strerror(e));
    }
    /* The new directory keeps the permissions of the one it replaces. */
    if (kind != ETP_BUNDLE_TARGET_MISSING && fchmod(*stage_fd, mode) != 0) {
        e = errno;
        close(*stage_fd);
        *stage_fd = st->dirfd = -1;
        etp_stage_discard(st);
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot set the staging directory's permissions: %s", strerror(e));
    }
    return ETP_OK;
}

/* renameat2(RENAME_EXCHANGE): 0, or -1 with errno (EINVAL / ENOSYS where
 * the kernel or file system has none). ETPROF_TEST_NO_EXCHANGE=1 forces the
 * fallback, so that tests cover it. */
static int exchange(int dirfd, const char *a, const char *b)
{
#if defined(__linux__) && defined(SYS_renameat2)
    const char *off = getenv("ETPROF_TEST_NO_EXCHANGE");
    if (!off || strcmp(off, "1") != 0)
        return (int)syscall(SYS_renameat2, dirfd, a, dirfd, b, 2 /* RENAME_EXCHANGE */);
#else
    (void)dirfd, (void)a, (void)b;
#endif
    errno = ENOSYS;
    return -1;
}

/* The renames. On success *aside names the old directory (empty string
 * when there was none). On failure DIR is as before. */
static etp_status swap_in(etp_stage *st, const char *dir, etp_bundle_target kind,
                          char aside[ETP_BUNDLE_NAME_MAX + 1], etp_error *err)
{
    aside[0] = '\0';
    if (kind == ETP_BUNDLE_TARGET_MISSING) {
        if (renameat(st->parentfd, st->name, st->parentfd, st->leaf) != 0)
            return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                                 "cannot move the new bundle into place: %s", strerror(errno));
        return ETP_OK;
    }
    if (exchange(st->parentfd, st->name, st->leaf) == 0) {
        memcpy(aside, st->name, ETP_BUNDLE_NAME_MAX + 1); /* the old one now has that name */
        return ETP_OK;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot swap the new bundle into place: %s", strerror(errno));
    /* Two renames: DIR onto a reserved empty sibling, the staging directory
     * to DIR; if the second fails, the first is undone. */
    if (make_sibling(st->parentfd, st->leaf, "old", aside) != 0)
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot reserve a name to move the old bundle aside: %s",
                             strerror(errno));
    if (renameat(st->parentfd, st->leaf, st->parentfd, aside) != 0) {
        int e = errno;
        (void)unlinkat(st->parentfd, aside, AT_REMOVEDIR);
        aside[0] = '\0';
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot move the old bundle aside: %s", strerror(e));
    }
    if (renameat(st->parentfd, st->name, st->parentfd, st->leaf) != 0) {
        int e = errno;
        (void)renameat(st->parentfd, aside, st->parentfd, st->leaf);
        aside[0] = '\0';
        return etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                             "cannot move the new bundle into place: %s", strerror(e));
    }
    return ETP_OK;
}

/* DIR, opened and locked (flock) like a staging directory, so that no sweep
 * takes it once it is moved aside, and no other publication swaps it away
 * meanwhile; -1 when there is no directory there (or the lock could not be
 * had within LOCK_WAIT_MS: the publication goes on without it, as removal
 * tolerates a sweep doing it too). Another publication holds that lock only
 * from just before its swap to just after its old directory is removed. */
#define LOCK_WAIT_MS 30000
static int lock_target(int parentfd, const char *leaf)
{
    for (int tries = 0; tries < 64; tries++) {
        int fd = openat(parentfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -1;
        int got = 0;
        for (long waited = 0; waited <= LOCK_WAIT_MS && !got; waited += 5) {
            if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                got = 1;
            else if (errno != EWOULDBLOCK && errno != EINTR)
                break;
            else
                etp_stage_test_sleep(5);
        }
        struct stat a, b;
        if (got && fstat(fd, &a) == 0 &&
            fstatat(parentfd, leaf, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return fd;
        close(fd);
        if (!got)
            return -1;
        /* swapped away while we waited: lock what is there now */
    }
    return -1;
}

/* The parent directory, locked (flock) around the check of DIR and the
 * renames, so that two publications into one DIR take turns: without it, a
 * second could find DIR missing in the gap of the two-rename swap (or both
 * find a missing DIR) and rename its own bundle there first, and the other's
 * rename would fail with ENOTEMPTY. Always taken after DIR's lock, never
 * before, so the two locks cannot deadlock. Best effort: where the file
 * system has no such lock (EBADF/ENOLCK/EINVAL, e.g. some NFS mounts), or
 * another holds it past LOCK_WAIT_MS, the publication goes on unlocked. */
static int lock_parent(int parentfd)
{
    for (long waited = 0; waited <= LOCK_WAIT_MS; waited += 1) {
        if (flock(parentfd, LOCK_EX | LOCK_NB) == 0)
            return 1;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return 0;
        etp_stage_test_sleep(1);
    }
    return 0;
}

etp_status etp_stage_swap(etp_stage *st, const char *dir, unsigned flags, int *swapped,
                          etp_error *err)
{
    *swapped = 0;
    etp_stage_test_pause("before-swap");
    sigset_t old;
    etp_bundle_target kind;
    etp_status s;
    int lockfd, parent_locked;
    for (int tries = 0;; tries++) {
        lockfd = lock_target(st->parentfd, st->leaf);
        parent_locked = lock_parent(st->parentfd);
        block_signals(&old);
        /* The target may have changed while the bundle was written. */
        s = etp_target_classify(st->parentfd, st->leaf, dir, flags, &kind, NULL, err);
        if (s || kind == ETP_BUNDLE_TARGET_MISSING || lockfd >= 0 || tries >= 4)
            break;
        /* a directory appeared meanwhile: lock it first, then the parent */
        if (parent_locked)
            (void)flock(st->parentfd, LOCK_UN);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    char aside[ETP_BUNDLE_NAME_MAX + 1] = "";
    if (!s) {
        slot_set(st, SLOT_SWAPPING, NULL);
        s = swap_in(st, dir, kind, aside, err);
        *swapped = s == ETP_OK;
        if (*swapped) {
            st->name[0] = '\0'; /* the staging directory is gone (it is DIR now) */
            if (st->dirfd >= 0)
                (void)flock(st->dirfd, LOCK_UN); /* DIR is no sweep's business */
        }
        slot_set(st, !*swapped ? SLOT_STAGING : aside[0] ? SLOT_ASIDE : SLOT_FREE, aside);
    }
    if (parent_locked)
        (void)flock(st->parentfd, LOCK_UN);
    if (*swapped && fsync(st->parentfd) != 0)
        s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                          "published, but the parent directory's fsync failed: %s",
                          strerror(errno));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (aside[0])
        etp_stage_test_pause("after-swap");
    if (aside[0] && etp_stage_rm_tree(st->parentfd, aside) != 0 && !s)
        s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                          "published, but the old directory moved aside could not be "
                          "removed: %s",
                          aside);
    if (lockfd >= 0)
        close(lockfd);
    if (*swapped && st->slot >= 0) {
        atomic_store(&g_slots[st->slot].state, SLOT_FREE);
        st->slot = -1;
    }
    if (*swapped)
        etp_stage_sweep(st->parentfd, st->leaf); /* writers killed while this one ran */
    return s;
}

void etp_stage_discard(etp_stage *st)
{
    if (st->parentfd >= 0 && st->name[0])
        (void)etp_stage_rm_tree(st->parentfd, st->name);
    st->name[0] = '\0';
    st->dirfd = -1; /* not ours: closed by the bundle */
    if (st->slot >= 0)
        atomic_store(&g_slots[st->slot].state, SLOT_FREE);
    st->slot = -1;
    if (st->parentfd >= 0)
        close(st->parentfd);
    st->parentfd = -1;
}

/* ---- test hooks ----------------------------------------------------------- */

static long env_long(const char *name, long unset)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return unset;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 0 ? unset : n;
}

long etp_stage_test_fail_after(void) { return env_long("ETPROF_TEST_FAIL_AFTER_ARTIFACTS", -1); }
long etp_stage_test_slow_ms(void) { return env_long("ETPROF_TEST_SLOW_ARTIFACTS_MS", 0); }

void etp_stage_test_pause(const char *at)
{
    const char *want = getenv("ETPROF_TEST_PAUSE_AT");
    if (!want || strcmp(want, at) != 0)
        return;
    long ms = env_long("ETPROF_TEST_PAUSE_MS", 0);
    char line[96];
    int n = snprintf(line, sizeof line, "etprof: test pause at %s\n", at);
    if (n > 0 && n < (int)sizeof line)
        (void)!write(2, line, (size_t)n);
    etp_stage_test_sleep(ms);
}

void etp_stage_test_sleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
