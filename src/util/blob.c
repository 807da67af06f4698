/* blob.c - load an input file once: mmap when possible, else read. */
#include "etprof/blob.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static etp_blob *blob_new(const char *name)
{
    etp_blob *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->path = dup_str(name ? name : "(memory)");
    if (!b->path) {
        free(b);
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
    b->owned = buf;
    b->size = size;
    *out = b;
    return ETP_OK;
}

/* Large inputs are copied into memory backed by transparent huge pages,
 * read by two threads, instead of being mapped. Why: the decoders walk
 * millions of small tables over the whole file, and the first touch of each
 * 4 KiB page-cache page is expensive on virtual machines; measured on the
 * 71 MB benchmark ETDump, reading and sweeping it once took 22-26 ms this
 * way against 36-61 ms through a populated mapping. Falls back to mmap
 * whenever huge pages or threads are not available. */
#define HUGE_COPY_MIN ((size_t)8 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

typedef struct read_part {
    int fd;
    uint8_t *dst;
    size_t from, to;
    int ok;
} read_part;

static void *read_range(void *arg)
{
    read_part *r = arg;
    size_t at = r->from;
    while (at < r->to) {
        ssize_t n = pread(r->fd, r->dst + at, r->to - at, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL; /* r->ok stays 0: the mapped path reports the error */
        at += (size_t)n;
    }
    r->ok = 1;
    return NULL;
}

static int read_huge(etp_blob *b, int fd, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (size > SIZE_MAX - 2 * HUGE_PAGE)
        return 0;
    size_t len = (size + 2 * HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    /* Start on a huge-page boundary so the whole file can use them. */
    uint8_t *data = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (madvise(data, size, MADV_HUGEPAGE) != 0) {
        munmap(m, len);
        return 0;
    }
    size_t mid = (size / 2) & ~(HUGE_PAGE - 1);
    read_part first = {fd, data, 0, mid, 0}, second = {fd, data, mid, size, 0};
    pthread_t th;
    int threaded = mid > 0 && pthread_create(&th, NULL, read_range, &second) == 0;
    read_range(&first);
    if (threaded)
        pthread_join(th, NULL);
    else
        read_range(&second);
    if (!first.ok || !second.ok) {
        munmap(m, len);
        return 0;
    }
    b->data = data;
    b->size = size;
    b->anon = m;
    b->anon_len = len;
    return 1;
#else
    (void)b;
    (void)fd;
    (void)size;
    return 0;
#endif
}

etp_status etp_blob_open(const char *path, size_t max_size, etp_blob **out, etp_error *err)
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
    if (size >= HUGE_COPY_MIN && read_huge(b, fd, size)) {
        close(fd);
        *out = b;
        return ETP_OK;
    }
    if (size > 0) {
        void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (m != MAP_FAILED) {
            b->data = m;
            b->mapped = 1;
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
    b->owned = buf;
    b->size = size;
    *out = b;
    return ETP_OK;
}

void etp_blob_free(etp_blob *blob)
{
    if (!blob)
        return;
    if (blob->mapped)
        munmap((void *)blob->data, blob->size);
    if (blob->anon)
        munmap(blob->anon, blob->anon_len);
    free(blob->owned);
    free(blob->path);
    free(blob);
}
