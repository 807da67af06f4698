/*
 * etprof/blob.h - the bytes of one input file, loaded once, read in place.
 *
 * A blob is immutable after loading. Its data pointer is at least 16-byte
 * aligned (FlatBuffers written by FlatCC align relative to the file start).
 */
#ifndef ETPROF_BLOB_H
#define ETPROF_BLOB_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Loaded file contents. Fields are read-only for users. */
typedef struct etp_blob {
    const uint8_t *data; /**< file bytes, 16-byte aligned */
    size_t size;         /**< number of bytes */
    char *path;          /**< path as given (owned) */
    int mapped;          /**< internal: 1 if data is an mmap */
    void *owned;         /**< internal: buffer to free */
} etp_blob;

/**
 * Map or read the file at @p path. On success *out owns the bytes and must be
 * released with etp_blob_free(). Files larger than @p max_size (0 = no cap)
 * are rejected with ETP_E_LIMIT.
 */
etp_status etp_blob_open(const char *path, size_t max_size, etp_blob **out, etp_error *err);

/**
 * Copy @p size bytes at @p data into a new aligned blob named @p name (used by
 * tests and fuzzers). Release with etp_blob_free().
 */
etp_status etp_blob_from_memory(const void *data, size_t size, const char *name, etp_blob **out,
                                etp_error *err);

/** Release a blob. Safe on NULL. */
void etp_blob_free(etp_blob *blob);

#ifdef __cplusplus
}
#endif
#endif
