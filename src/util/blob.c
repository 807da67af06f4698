/* blob.c - load an input file once: mmap when possible, else read. */
#include "etprof/blob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/str.h"

/* What a blob is allocated as: the public part first (an etp_blob pointer
 * is its box's address), then how its bytes are held. */
typedef struct blob_box {
    etp_blob pub;
    int mapped;   /* 1: data is an mmap of size bytes */
    void *owned;  /* heap buffer holding data, or NULL */
} blob_box;

static blob_box *box_of(etp_blob *b)
{
    return (blob_box *)(void *)b;
}

static etp_blob *blob_new(const char *name)
{
    blob_box *box = calloc(1, sizeof *box);
    if (!box)
        return NULL;
    etp_blob *b = &box->pub;
    b->path = etp_strdup(name ? name : "(memory)");
    if (!b->path) {
        free(box);
        return NULL;
    }
    return b;
}

etp_status etp_blob_from_memory(const void *data, size_t size, const char *name, etp_blob **out,
                                etp_error *err)
{
    *out = NULL;
    etp_blob *b = blob_new(name);
    /* aligned_alloc needs a non-zero multiple of the alignment. */
    size_t cap = (size + 15) & ~(size_t)15;
    void *buf = b ? aligned_alloc(16, cap ? cap : 16) : NULL;
    if (!buf) {
        etp_blob_free(b);
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory loading %zu bytes",
                             size);
    }
    if (size)
        memcpy(buf, data, size);
    b->data = buf;
    box_of(b)->owned = buf;
    b->size = size;
    *out = b;
    return ETP_OK;
}

static etp_status blob_open(const char *path, size_t max_size, int populate, etp_blob **out,
                            etp_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "not a regular file");
    }
    size_t size = (size_t)st.st_size;
    if (max_size && size > max_size) {
        close(fd);
        return etp_error_set(err, ETP_E_LIMIT, path, ETP_NO_OFFSET,
                             "file is %zu bytes, larger than the %zu-byte limit", size, max_size);
    }
    etp_blob *b = blob_new(path);
    if (!b) {
        close(fd);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    }
    if (size > 0) {
        void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (m != MAP_FAILED) {
            /* Streamed: read ahead into the page cache, not into our pages. */
            if (!populate)
                (void)madvise(m, size, MADV_WILLNEED);
            b->data = m;
            box_of(b)->mapped = 1;
            b->size = size;
            close(fd);
            *out = b;
            return ETP_OK;
        }
    }
    /* Fallback: read into an aligned heap buffer. */
    size_t cap = (size + 15) & ~(size_t)15;
    uint8_t *buf = aligned_alloc(16, cap ? cap : 16);
    if (!buf) {
        close(fd);
        etp_blob_free(b);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory reading %zu bytes",
                             size);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            free(buf);
            close(fd);
            etp_blob_free(b);
            return etp_error_set(err, ETP_E_IO, path, (int64_t)got, "read failed: %s",
                                 n < 0 ? strerror(e) : "unexpected end of file");
        }
        got += (size_t)n;
    }
    close(fd);
    b->data = buf;
    box_of(b)->owned = buf;
    b->size = size;
    *out = b;
    return ETP_OK;
}

void etp_blob_free(etp_blob *blob)
{
    if (!blob)
        return;
    blob_box *box = box_of(blob);
    if (box->mapped)
        munmap((void *)blob->data, blob->size);
    free(box->owned);
    free(blob->path);
    free(blob);
}

etp_status etp_blob_open(const char *path, size_t max_size, etp_blob **out, etp_error *err)
{
    return blob_open(path, max_size, 1, out, err);
}

etp_status etp_blob_open_streamed(const char *path, size_t max_size, etp_blob **out,
                                  etp_error *err)
{
    return blob_open(path, max_size, 0, out, err);
}

void etp_blob_release(const etp_blob *blob, size_t offset, size_t len)
{
    if (!blob || !box_of((etp_blob *)blob)->mapped || offset >= blob->size || !len)
        return;
    if (len > blob->size - offset)
        len = blob->size - offset;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
    uintptr_t lo = (uintptr_t)blob->data + offset, hi = lo + len;
    lo = (lo + page - 1) & ~(page - 1); /* whole pages only: neighbours stay */
    hi &= ~(page - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
