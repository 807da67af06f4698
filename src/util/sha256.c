/* sha256.c - SHA-256 of buffers and file descriptors (see sha256.h). */
#include "util/sha256.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#define CHUNK (1u << 20)

static void to_hex(const unsigned char *md, char hex[ETP_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
}

int etp_sha256_buf(const void *data, size_t len, char hex[ETP_SHA256_HEX])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
             EVP_DigestUpdate(ctx, data, len) && EVP_DigestFinal_ex(ctx, md, &mdlen) &&
             mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    to_hex(md, hex);
    return 0;
}

int etp_sha256_fd(int fd, char hex[ETP_SHA256_HEX], uint64_t *size)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    uint64_t total = 0;
    int rc = -1, saved = 0;
    unsigned char *buf = malloc(CHUNK);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!buf || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        saved = buf ? 0 : ENOMEM;
        goto out;
    }
    for (;;) {
        ssize_t n = read(fd, buf, CHUNK);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            saved = errno;
            goto out;
        }
        if (n == 0)
            break;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
            goto out;
        total += (uint64_t)n;
    }
    if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32)
        goto out;
    to_hex(md, hex);
    if (size)
        *size = total;
    rc = 0;
out:
    EVP_MD_CTX_free(ctx);
    free(buf);
    errno = saved;
    return rc;
}

struct etp_sha256_ctx {
    EVP_MD_CTX *md;
};

etp_sha256_ctx *etp_sha256_begin(void)
{
    etp_sha256_ctx *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    c->md = EVP_MD_CTX_new();
    if (!c->md || !EVP_DigestInit_ex(c->md, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(c->md);
        free(c);
        return NULL;
    }
    return c;
}

int etp_sha256_update(etp_sha256_ctx *c, const void *data, size_t len)
{
    return c && EVP_DigestUpdate(c->md, data, len) ? 0 : -1;
}

int etp_sha256_end(etp_sha256_ctx *c, char hex[ETP_SHA256_HEX])
{
    if (!c)
        return -1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int ok = !hex || (EVP_DigestFinal_ex(c->md, md, &mdlen) && mdlen == 32);
    if (ok && hex)
        to_hex(md, hex);
    EVP_MD_CTX_free(c->md);
    free(c);
    return ok ? 0 : -1;
}
