/*
 * atomic_file.h - write a file so that a reader sees either the file that was
 * there before or the whole new one, never a part: the bytes go to a
 * temporary file beside the target (same directory, so the final rename
 * stays on one file system), which is flushed, fsync'ed and renamed over the
 * target only when everything was written. On any failure the temporary is
 * removed and the target is left as it was. A target that exists and is
 * not a regular file or directory (/dev/null, a pipe such as /dev/stdout, a
 * FIFO) is written in place instead: there is nothing to replace atomically,
 * and renaming over it would turn the device into a file.
 *
 * Thread safety: one etp_atomic_file belongs to one thread at a time;
 * different files may be written concurrently.
 */
#ifndef ETP_ATOMIC_FILE_H
#define ETP_ATOMIC_FILE_H

#include <stdio.h>

#include "etprof/error.h"

typedef struct etp_atomic_file {
    FILE *fp;          /* where the caller writes */
    char *tmp;         /* the temporary file's path (owned); NULL: written in place */
    const char *path;  /* the target (borrowed: must outlive commit/abort) */
} etp_atomic_file;

/* Create the temporary file for @p path, with the mode fopen() would give a
 * new file. On failure: ETP_E_IO "cannot create: REASON" naming @p path, and
 * @p f holds nothing to release. */
etp_status etp_atomic_open(etp_atomic_file *f, const char *path, etp_error *err);

/* Flush, fsync and close the temporary, then rename it over the target.
 * Errors (ETP_E_IO, naming the target): "write error" when the bytes could
 * not be written, "cannot write: REASON" when the rename failed; the
 * temporary is removed either way. @p f is released in every case. */
etp_status etp_atomic_commit(etp_atomic_file *f, etp_error *err);

/* Give up: close and remove the temporary; the target is untouched. */
void etp_atomic_abort(etp_atomic_file *f);

#endif
