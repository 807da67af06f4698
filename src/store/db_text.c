/* db_text.c - the texts of the store's database interface that the engines
 * share: which engine a target names, where its password is, the target
 * redacted for messages, an engine's error as one line, and DDL in an
 * engine's types. */
#include "store/db_internal.h"

#include <stdlib.h>
#include <string.h>

etp_db_engine etp_db_engine_of_target(const char *target)
{
    if (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11))
        return ETP_DB_POSTGRES;
    return ETP_DB_SQLITE;
}

/* Append @p n bytes of @p s to out[*k] (cut at @p size - 1). */
static void put(char *out, size_t size, size_t *k, const char *s, size_t n)
{
    for (size_t i = 0; i < n && *k + 1 < size; i++)
        out[(*k)++] = s[i];
}

int etp_db_password_at(const char *target, size_t *off, size_t *len)
{
    /* The user information ends at the last '@' before the query: a password
     * may hold '@' or '/' that its writer did not percent-encode. */
    const char *scheme = strstr(target, "://"), *query = strchr(target, '?');
    const char *end = query ? query : target + strlen(target), *at = NULL;
    if (!scheme)
        return 0;
    for (const char *p = scheme + 3; p < end; p++)
        if (*p == '@')
            at = p;
    const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - (scheme + 3))) : NULL;
    if (!colon || at == colon + 1)
        return 0;
    *off = (size_t)(colon + 1 - target);
    *len = (size_t)(at - colon - 1);
    return 1;
}

void etp_db_redact(const char *target, char *out, size_t size)
{
    size_t k = 0, n = strlen(target), pw_off = 0, pw_len = 0;
    int has_pw = etp_db_password_at(target, &pw_off, &pw_len);
    for (size_t i = 0; i < n;) {
        const char *p = target + i;
        if (has_pw && i == pw_off) {
            put(out, size, &k, "***", 3);
            i += pw_len;
            continue;
        }
        /* "password=VALUE" in the query (or in a keyword/value string). */
        if ((p == target || p[-1] == '?' || p[-1] == '&' || p[-1] == ' ') &&
            !strncmp(p, "password=", 9)) {
            put(out, size, &k, "password=***", 12);
            i += 9;
            while (i < n && target[i] != '&' && target[i] != ' ')
                i++;
            continue;
        }
        put(out, size, &k, p, 1);
        i++;
    }
    if (size)
        out[k < size ? k : size - 1] = '\0';
}

void etp_db_one_line(const char *text, const char *secret, char *out, size_t size)
{
    size_t k = 0, sl = secret ? strlen(secret) : 0;
    for (const char *p = text ? text : ""; *p;) {
        if (sl && !strncmp(p, secret, sl)) {
            put(out, size, &k, "***", 3);
            p += sl;
        } else if (*p == '\n' || *p == '\r') {
            while (*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ')
                p++;
            if (*p)
                put(out, size, &k, "; ", 2);
        } else {
            put(out, size, &k, *p == '\t' ? " " : p, 1);
            p++;
        }
    }
    while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == ';'))
        k--;
    if (size)
        out[k < size ? k : size - 1] = '\0';
}

char *etp_db_ddl(const etp_db *db, const char *ddl)
{
    const etp_db_ops *o = db->ops;
    const char *tokens[][2] = {{"{ID}", o->id},       {"{INT}", o->int_type},
                               {"{REAL}", o->real},   {"{BYTES}", o->bytes},
                               {"{NOROWID}", o->norowid}};
    size_t cap = strlen(ddl) * 4 + 1, k = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    for (const char *p = ddl; *p;) {
        size_t t;
        for (t = 0; t < sizeof tokens / sizeof tokens[0]; t++)
            if (!strncmp(p, tokens[t][0], strlen(tokens[t][0])))
                break;
        if (t < sizeof tokens / sizeof tokens[0]) {
            put(s, cap, &k, tokens[t][1], strlen(tokens[t][1]));
            p += strlen(tokens[t][0]);
        } else {
            put(s, cap, &k, p++, 1);
        }
    }
    s[k] = '\0';
    return s;
}

