/* str.c - heap strings and joined name lists (str.h). */
#include "util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *etp_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *etp_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *etp_strprintf(const char *fmt, ...)
{
    /* One formatting pass for the usual short ids; a second only when the
     * text does not fit the stack buffer (entity ids are made per
     * instruction, so this is on the hot path). */
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    if ((size_t)n < sizeof buf) {
        memcpy(s, buf, (size_t)n + 1);
        return s;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Append @p len bytes of @p s at buf[*used], keeping room for the
 * terminator; what does not fit is dropped. */
static void put(char *buf, size_t cap, size_t *used, const char *s, size_t len)
{
    size_t room = cap - 1 - *used;
    if (len > room)
        len = room;
    memcpy(buf + *used, s, len);
    *used += len;
}

char *etp_join_names(char *buf, size_t cap, const void *items, size_t n, etp_name_at_fn *name_at)
{
    size_t used = 0;
    for (size_t i = 0; i < n && used < cap - 1; i++) {
        const char *name = name_at(items, i);
        if (!name)
            name = "?";
        if (i)
            put(buf, cap, &used, ", ", 2);
        put(buf, cap, &used, name, strlen(name));
    }
    buf[used] = '\0';
    return buf;
}

const char *etp_string_at(const void *strings, size_t i)
{
    return ((const char *const *)strings)[i];
}

int etp_strs_push(char ***v, uint32_t *n, const char *s, size_t len)
{
    char **nv = realloc(*v, ((size_t)*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = etp_strndup(s, len)))
        return -1;
    (*n)++;
    return 0;
}
