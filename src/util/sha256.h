/*
 * sha256.h - SHA-256 with OpenSSL's EVP interface, as lowercase hex.
 *
 * Files are streamed in fixed-size chunks, so hashing a multi-gigabyte input
 * costs no more memory than hashing a small one.
 */
#ifndef ETP_SHA256_H
#define ETP_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* 64 hex digits + NUL. */
#define ETP_SHA256_HEX 65

/* Hash @p len bytes at @p data into @p hex. Returns 0, or -1 if OpenSSL fails. */
int etp_sha256_buf(const void *data, size_t len, char hex[ETP_SHA256_HEX]);

/* Hash everything readable from @p fd, starting at its current position,
 * into @p hex; *size receives the number of bytes hashed. Returns 0, or -1
 * with errno set (read error) or errno 0 (OpenSSL failure). */
int etp_sha256_fd(int fd, char hex[ETP_SHA256_HEX], uint64_t *size);

/* Incremental hashing, for bytes hashed as they are produced. */
typedef struct etp_sha256_ctx etp_sha256_ctx;

/* A new context, or NULL (out of memory, OpenSSL failure). */
etp_sha256_ctx *etp_sha256_begin(void);
/* Add @p len bytes. Returns 0, or -1 if OpenSSL fails. */
int etp_sha256_update(etp_sha256_ctx *c, const void *data, size_t len);
/* The digest of everything added, into @p hex; frees @p c (NULL is a
 * no-op returning -1). Pass @p hex NULL to only free. Returns 0 or -1. */
int etp_sha256_end(etp_sha256_ctx *c, char hex[ETP_SHA256_HEX]);

#endif
