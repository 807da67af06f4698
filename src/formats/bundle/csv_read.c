/* csv_read.c - RFC 4180 records from untrusted text, never reading
 * past its end and never growing past the limits in the header. */
#include <stdlib.h>
#include <string.h>

#include "formats/bundle/csv_read.h"

void etp_csvr_init(etp_csvr *r, const char *text, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = text;
    r->len = len;
}

void etp_csvr_free(etp_csvr *r)
{
    free(r->buf);
    free(r->offs);
    free(r->fields);
    memset(r, 0, sizeof *r);
}

static int put_byte(etp_csvr *r, size_t *n, char c)
{
    if (*n >= ETP_CSVR_MAX_RECORD)
        return -1;
    if (*n + 1 >= r->buf_cap) {
        size_t nc = r->buf_cap ? r->buf_cap * 2 : 256;
        char *nb = realloc(r->buf, nc);
        if (!nb)
            return -2;
        r->buf = nb;
        r->buf_cap = nc;
    }
    r->buf[(*n)++] = c;
    return 0;
}

/* @p k bytes at once (the common case: an unquoted field). */
static int put_bytes(etp_csvr *r, size_t *n, const char *src, size_t k)
{
    if (k > ETP_CSVR_MAX_RECORD || *n + k > ETP_CSVR_MAX_RECORD)
        return -1;
    if (*n + k + 1 >= r->buf_cap) {
        size_t nc = r->buf_cap ? r->buf_cap : 256;
        while (nc <= *n + k + 1)
            nc *= 2;
        char *nb = realloc(r->buf, nc);
        if (!nb)
            return -2;
        r->buf = nb;
        r->buf_cap = nc;
    }
    memcpy(r->buf + *n, src, k);
    *n += k;
    return 0;
}

static int end_field(etp_csvr *r, size_t *n, size_t start)
{
    int rc = put_byte(r, n, '\0');
    if (rc)
        return rc;
    if (r->nfields >= ETP_CSVR_MAX_FIELDS)
        return -1;
    if (r->nfields == r->fcap) {
        size_t nc = r->fcap ? r->fcap * 2 : 16;
        size_t *no = realloc(r->offs, nc * sizeof *no);
        if (!no)
            return -2;
        r->offs = no;
        const char **nf = realloc(r->fields, nc * sizeof *nf);
        if (!nf)
            return -2;
        r->fields = nf;
        r->fcap = nc;
    }
    r->offs[r->nfields++] = start;
    return 0;
}

int etp_csvr_next(etp_csvr *r)
{
    r->nfields = 0;
    if (r->pos >= r->len)
        return 0;
    r->line++;
    size_t n = 0, start = 0;
    int rc;
    for (;;) {
        /* One field. */
        if (r->pos < r->len && r->p[r->pos] == '"') {
            r->pos++;
            for (;;) {
                if (r->pos >= r->len)
                    return -1; /* unterminated quote */
                char c = r->p[r->pos++];
                if (c == '"') {
                    if (r->pos < r->len && r->p[r->pos] == '"') {
                        r->pos++;
                    } else
                        break;
                }
                if ((rc = put_byte(r, &n, c)))
                    return rc;
            }
            if (r->pos < r->len && r->p[r->pos] != ',' && r->p[r->pos] != '\r' &&
                r->p[r->pos] != '\n')
                return -1; /* text after the closing quote */
        } else {
            size_t s0 = r->pos;
            while (r->pos < r->len && r->p[r->pos] != ',' && r->p[r->pos] != '\r' &&
                   r->p[r->pos] != '\n') {
                if (r->p[r->pos] == '"')
                    return -1; /* a quote inside an unquoted field */
                r->pos++;
            }
            if ((rc = put_bytes(r, &n, r->p + s0, r->pos - s0)))
                return rc;
        }
        if ((rc = end_field(r, &n, start)))
            return rc;
        start = n;
        if (r->pos >= r->len)
            break;
        char c = r->p[r->pos++];
        if (c == ',')
            continue;
        if (c == '\r') {
            if (r->pos >= r->len || r->p[r->pos] != '\n')
                return -1; /* a bare CR */
            r->pos++;
        }
        break;
    }
    for (size_t i = 0; i < r->nfields; i++)
        r->fields[i] = r->buf + r->offs[i];
    return 1;
}
