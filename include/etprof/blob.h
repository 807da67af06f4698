/*
 * etprof/blob.h - the bytes of one input file, loaded once, read in place.
 *
 * A blob is immutable after loading. Its data pointer is at least 16-byte
 * aligned (FlatBuffers written by FlatCC align relative to the file start).
 *
 * Ownership: a blob owns its bytes (a private read-only mapping of the
 * file, or a heap copy) and its path; how they are held is kept behind the
 * public struct (blob.c), so only etp_blob_open() and
 * etp_blob_from_memory() make blobs etp_blob_free() can release. Readers
 * that take a blob (etp_etdump_from_blob(), etp_program_from_blob()) take
 * it over, on failure too.
 *
 * Thread safety: a loaded blob may be read by any number of threads at
 * once; etp_blob_free() must not run beside any other use of it. Loading
 * is independent per call.
 */
#ifndef ETPROF_BLOB_H
#define ETPROF_BLOB_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Loaded file contents. Fields are read-only for users. */
typedef struct etp_blob {
    const uint8_t *data; /**< file bytes, 16-byte aligned (owned by the blob) */
    size_t size;         /**< number of bytes */
    char *path;          /**< path as given (owned by the blob) */
} etp_blob;

/**
 * Map or read the file at @p path. On success *out owns the bytes and must be
 * released with etp_blob_free(); on failure *out is NULL. Files larger than
 * @p max_size (0 = no cap) are rejected with ETP_E_LIMIT; a file that cannot
 * be opened or read is ETP_E_IO with the system's reason.
 */
etp_status etp_blob_open(const char *path, size_t max_size, etp_blob **out, etp_error *err);

/**
 * As etp_blob_open(), for a file read mostly once front to back (an ETDump):
 * a mapping's pages are brought in as they are first read instead of all at
 * once, so that with etp_blob_release() only a window of the file need be
 * resident. Same ownership and thread safety.
 */
etp_status etp_blob_open_streamed(const char *path, size_t max_size, etp_blob **out,
                                  etp_error *err);
/**
 * Hint that bytes [@p offset, @p offset + @p len) of @p blob will not be read
 * again soon. For a mapped file the whole pages inside the range leave the
 * process's resident set; the bytes stay readable and the same (a later read
 * faults them back in from the page cache; inputs must not change while
 * they are analysed, as for any reader). No-op for heap copies and empty or
 * out-of-range spans. Thread safety: may run beside readers of the blob.
 */
void etp_blob_release(const etp_blob *blob, size_t offset, size_t len);
/**
 * Copy @p size bytes at @p data into a new aligned blob named @p name (used by
 * tests and fuzzers). @p data is only read during the call. Release with
 * etp_blob_free().
 */
etp_status etp_blob_from_memory(const void *data, size_t size, const char *name, etp_blob **out,
                                etp_error *err);

/** Release a blob: unmap or free its bytes, free its path and itself.
 *  Pointers into its data die with it. Safe on NULL. */
void etp_blob_free(etp_blob *blob);

#ifdef __cplusplus
}
#endif
#endif
