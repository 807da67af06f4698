/*
 * bundle_stage.h - where a bundle is written before it is published, and how
 * it takes the place of the directory it was asked for.
 *
 * A bundle for DIR is written into a fresh sibling directory
 * ".DIR.etprof-staging-XXXXXXXXXXXX" (same parent, so the same file system)
 * and swapped into place by etp_stage_swap(): one renameat2(RENAME_EXCHANGE)
 * where the file system supports it, else two renames (DIR aside, staging to
 * DIR). The old directory is removed only once the new one is in place. Until
 * the swap DIR is never touched, so a failed or interrupted run leaves it as
 * it was.
 *
 * The staging directory is locked (flock) by its writer from its creation
 * to the swap; a publication first removes the siblings of DIR whose lock
 * can be taken, left by writers that are gone (etp_stage_sweep()).
 *
 * Every publication in progress is recorded in a small process-wide table
 * (parent descriptor and entry names in fixed buffers) so that
 * etp_bundle_abandon_from_signal() can undo it from a signal handler with
 * async-signal-safe calls only.
 */
#ifndef ETP_BUNDLE_STAGE_H
#define ETP_BUNDLE_STAGE_H

#include <sys/types.h>

#include "etprof/bundle.h"
#include "formats/bundle/bundle_rules.h"

typedef struct etp_stage {
    int parentfd;                          /* DIR's parent, open */
    int slot;                              /* entry of the signal table, or -1 */
    int dirfd;                             /* the staging directory's descriptor, locked
                                              (owned by the caller), or -1 */
    char leaf[ETP_BUNDLE_NAME_MAX + 1];    /* DIR's name in its parent */
    char name[ETP_BUNDLE_NAME_MAX + 1];    /* the staging directory's name there */
} etp_stage;

/*
 * Check the target (etp_bundle_probe() rules), create the staging directory
 * (mode of the directory it will replace, else 0777 & ~umask) and open it:
 * *stage_fd receives its descriptor (caller closes). On failure nothing was
 * created (except parents, with ETP_BUNDLE_PARENTS) and @p st holds nothing.
 */
etp_status etp_stage_open(const char *dir, unsigned flags, etp_stage *st, int *stage_fd,
                          etp_error *err);

/*
 * Publish: check the target again, swap the staging directory into its
 * place, fsync the parent, then remove the old directory. Termination
 * signals are blocked during the swap itself, so a handler sees either the
 * old directory in place (and removes the staging one) or the new one in
 * place (and finishes removing the old). On failure before the swap, DIR is
 * unchanged and the staging directory is still there (etp_stage_discard()
 * removes it). *swapped tells whether DIR now holds the new bundle.
 */
etp_status etp_stage_swap(etp_stage *st, const char *dir, unsigned flags, int *swapped,
                          etp_error *err);

/* Length of the random suffix of staging and moved-aside names. */
#define ETP_STAGE_SUFFIX_LEN 12

/* ".LEAF.etprof-WHAT-", the leaf cut as in every such name. */
void etp_stage_prefix(char out[ETP_BUNDLE_NAME_MAX + 1], const char *leaf, const char *what);

/* rm -rf @p name in @p dirfd, never following a symlink; a tree removed
 * meanwhile by another process counts as removed. 0 when gone. */
int etp_stage_rm_tree(int dirfd, const char *name);

/* bundle_sweep.c (the two above: bundle_tree.c): remove every sibling of @p leaf in @p parentfd named like
 * a staging, moved-aside or fresh (".LEAF.etprof-init-*") directory of it
 * whose lock can be taken, that is, left by a writer that is gone (SIGKILL,
 * power loss); never one whose lock is held. Best effort: what cannot be
 * removed is left. Returns how many were removed. */
int etp_stage_sweep(int parentfd, const char *leaf);

/* Remove the staging directory (if still there) and release @p st. */
void etp_stage_discard(etp_stage *st);

/* The test hooks read at etp_bundle_begin() time (documented in bundle.h):
 * ETPROF_TEST_FAIL_AFTER_ARTIFACTS (-1 when unset) and
 * ETPROF_TEST_SLOW_ARTIFACTS_MS (0 when unset). */
long etp_stage_test_fail_after(void);
long etp_stage_test_slow_ms(void);
/* ETPROF_TEST_PAUSE_AT=before-swap|after-swap with ETPROF_TEST_PAUSE_MS=MS:
 * at that point print "etprof: test pause at POINT" to stderr and sleep
 * MS milliseconds (for the SIGKILL tests). */
void etp_stage_test_pause(const char *at);
/* Sleep @p ms milliseconds (the slow-artifact hook). */
void etp_stage_test_sleep(long ms);

#endif
