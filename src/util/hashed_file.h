/*
 * hashed_file.h - a FILE that writes to a descriptor and hashes every byte
 * on the way (SHA-256), so a large artifact is never read back to be hashed.
 *
 * Usage: etp_hashed_file_open(fd) → write with stdio → etp_hashed_file_finish
 * (flushes, fsyncs the descriptor or starts its writeback, closes the FILE,
 * yields size and digest).
 * The descriptor stays the caller's: it is neither closed nor repositioned
 * other than by the writes. One writer per object; different objects may be
 * used from different threads.
 */
#ifndef ETP_HASHED_FILE_H
#define ETP_HASHED_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "util/sha256.h"

typedef struct etp_hashed_file etp_hashed_file;

/* A buffered FILE writing to @p fd; *hf receives the object to finish.
 * NULL when out of memory. */
FILE *etp_hashed_file_open(int fd, etp_hashed_file **hf);

/* What etp_hashed_file_finish() does for durability. */
enum {
    ETP_HF_NO_SYNC = 0,   /* nothing */
    ETP_HF_FSYNC = 1,     /* fsync the descriptor */
    ETP_HF_WRITEBACK = 2  /* start writing the rest to disk, return at once: for a
                             caller that makes the file durable later (fsync at commit) */
};

/* Flush, make the descriptor durable as @p sync says, close the FILE, and free
 * @p hf. On success returns 0 with the bytes written in *size and their
 * SHA-256 in @p hex. On failure returns -1 with errno of the first failing
 * write, flush or fsync (EIO when OpenSSL failed) and *what naming the step
 * ("write", "fsync", "hash"). */
int etp_hashed_file_finish(etp_hashed_file *hf, int sync, uint64_t *size,
                           char hex[ETP_SHA256_HEX], const char **what);

#endif
