/*
 * bundle_verify.h - the verifier's entry point below etp_bundle_verify(),
 * for manifest text already in memory (used by the fuzz target).
 */
#ifndef ETP_BUNDLE_VERIFY_H
#define ETP_BUNDLE_VERIFY_H

#include <stddef.h>

#include "etprof/bundle_read.h"

/* Largest manifest the verifier reads. */
#define ETP_VERIFY_MANIFEST_MAX (64u << 20)
/* Most artifact entries one manifest may declare. */
#define ETP_VERIFY_ARTIFACTS_MAX 1000000u

/*
 * Verify manifest @p text (@p len bytes, need not be NUL-terminated) against
 * the files under the directory open as @p dirfd, whose path is @p dir (used
 * for messages and the realpath containment check). Problems and warnings
 * are appended to @p r. Returns ETP_OK, or ETP_E_NOMEM if the report could
 * not grow (it then holds what was recorded so far).
 */
etp_status etp_bundle_verify_text(int dirfd, const char *dir, const char *text, size_t len,
                                  etp_verify_report *r);

/*
 * Read the manifest of the bundle open as @p dirfd (path @p dir) as the
 * verifier does: a regular file, not through a symlink, at most
 * ETP_VERIFY_MANIFEST_MAX bytes. Returns a new buffer of *len bytes (caller
 * frees), or NULL after appending the reason to @p r (*oom = 1: no memory).
 */
char *etp_bundle_read_manifest(int dirfd, const char *dir, etp_verify_report *r, size_t *len,
                               int *oom);

/*
 * etp_bundle_verify(), also handing back the manifest bytes it verified
 * (*text: a new buffer of *len bytes, caller frees; NULL when the manifest
 * could not be read, which the report says). @p text may be NULL.
 */
etp_status etp_bundle_verify_keep(const char *dir, etp_verify_report **out, char **text,
                                  size_t *len, etp_error *err);

#endif
