/* log_scan.c - number and literal scanning shared by the device-log readers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"

const char *etp_ls_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? p + strlen(key) : NULL;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int etp_ls_u64(const char **p, uint64_t *v)
{
    const char *s = skip_blanks(*p);
    if (*s < '0' || *s > '9')
        return -1;
    char *e;
    errno = 0;
    unsigned long long x = strtoull(s, &e, 10);
    if (errno)
        return -1;
    *v = x;
    *p = e;
    return 0;
}

int etp_ls_u64_or_wrapped(const char **p, uint64_t *v)
{
    const char *s = skip_blanks(*p);
    if (*s != '-')
        return etp_ls_u64(p, v);
    const char *d = s + 1;
    uint64_t m;
    if (etp_ls_u64(&d, &m) || m == 0 || m > 2147483648ull)
        return -1;
    *v = 4294967296ull - m;
    *p = d;
    return 0;
}

int etp_ls_double(const char **p, double *v)
{
    const char *s = skip_blanks(*p);
    if (!((*s >= '0' && *s <= '9') || *s == '.'))
        return -1;
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (e == s || errno || !isfinite(x) || x < 0)
        return -1;
    *v = x;
    *p = e;
    return 0;
}

int etp_ls_lit(const char **p, const char *lit)
{
    const char *s = skip_blanks(*p);
    size_t n = strlen(lit);
    if (strncmp(s, lit, n))
        return -1;
    *p = s + n;
    return 0;
}

int etp_ls_push(etp_dl_series *s, double x, uint32_t line)
{
    if (s->count >= ETP_DL_MAX_REPEAT)
        return -1;
    if (!(s->count & (s->count - 1)) || !s->count) { /* grow at powers of two */
        uint32_t cap = s->count ? s->count * 2 : 8;
        double *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
    }
    if (!s->count)
        s->first_line = line;
    s->v[s->count++] = x;
    return 0;
}

int etp_ls_bad(etp_error *err, const char *name, uint32_t line, const char *what)
{
    etp_error_set(err, ETP_E_FORMAT, name, ETP_NO_OFFSET, "line %u: %s", line, what);
    return -1;
}

int etp_ls_oom(etp_error *err, const char *name)
{
    etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    return -1;
}
