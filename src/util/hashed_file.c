/* hashed_file.c - stdio over a descriptor, hashed as written (hashed_file.h).
 * fopencookie() is the glibc way to give stdio's buffering our own sink. */
#define _GNU_SOURCE
#include "util/hashed_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define BUFFER (1u << 18) /* stdio buffer: few write(2) calls for big files */
/* Every this many bytes, start writing them to disk in the background, so
 * that the final sync waits for the tail only, not the whole file. */
#define WRITEBACK_EVERY (4u << 20)

struct etp_hashed_file {
    FILE *fp;
    int fd;
    int err;  /* first errno of a failed write, or 0 */
    int hash_failed;
    uint64_t size;
    uint64_t handed;  /* bytes already handed to the kernel's writeback */
    etp_sha256_ctx *sha;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    etp_hashed_file *h = cookie;
    if (h->err)
        return 0;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(h->fd, buf + done, len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            h->err = errno;
            break;
        }
        if (n == 0) {
            h->err = EIO;
            break;
        }
        done += (size_t)n;
    }
    /* Only what reached the file is hashed, so size and digest describe it. */
    if (done && etp_sha256_update(h->sha, buf, done) != 0)
        h->hash_failed = 1;
    h->size += done;
    if (h->size - h->handed >= WRITEBACK_EVERY) {
        /* A hint, not durability (the final sync is): errors are ignored. */
        (void)sync_file_range(h->fd, (off64_t)h->handed, (off64_t)(h->size - h->handed),
                              SYNC_FILE_RANGE_WRITE);
        h->handed = h->size;
    }
    /* fopencookie's contract: the bytes taken, 0 on error, never negative;
     * the error itself stays in h->err for etp_hashed_file_finish. */
    if (h->err)
        errno = h->err;
    return (ssize_t)done;
}

static int sink_close(void *cookie)
{
    (void)cookie; /* the descriptor is the caller's */
    return 0;
}

FILE *etp_hashed_file_open(int fd, etp_hashed_file **hf)
{
    etp_hashed_file *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->fd = fd;
    h->sha = etp_sha256_begin();
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    h->fp = h->sha ? fopencookie(h, "w", io) : NULL;
    if (!h->fp) {
        etp_sha256_end(h->sha, NULL);
        free(h);
        return NULL;
    }
    setvbuf(h->fp, NULL, _IOFBF, BUFFER);
    *hf = h;
    return h->fp;
}

int etp_hashed_file_finish(etp_hashed_file *h, int sync, uint64_t *size,
                           char hex[ETP_SHA256_HEX], const char **what)
{
    int e = 0;
    const char *step = NULL;
    if (fflush(h->fp) != 0 || ferror(h->fp) || h->err)
        e = h->err ? h->err : (errno ? errno : EIO), step = "write";
    fclose(h->fp);
    if (!step && sync == ETP_HF_FSYNC && fsync(h->fd) != 0)
        e = errno, step = "fsync";
    if (!step && sync == ETP_HF_WRITEBACK && h->size > h->handed)
        (void)sync_file_range(h->fd, (off64_t)h->handed, (off64_t)(h->size - h->handed),
                              SYNC_FILE_RANGE_WRITE); /* a hint; the caller makes it durable */
    if (etp_sha256_end(h->sha, step ? NULL : hex) != 0 || h->hash_failed)
        if (!step)
            e = EIO, step = "hash";
    if (size)
        *size = h->size;
    free(h);
    if (what)
        *what = step;
    errno = e;
    return step ? -1 : 0;
}
