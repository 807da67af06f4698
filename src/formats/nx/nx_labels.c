/* nx_labels.c - splitting a debug database api_labels cell. The
 * producers join labels with ';' without escaping the ones inside a label,
 * so known labels (SPIR-V debug names) and whole JSON values are taken
 * before a plain split. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_record.h"
#include "util/str.h"

static int push(char ***out, uint32_t *n, uint32_t *cap, const char *s, size_t len)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 4;
        char **v = realloc(*out, c * sizeof *v);
        if (!v)
            return -1;
        *out = v;
        *cap = c;
    }
    char *d = etp_strndup(s, len);
    if (!d)
        return -1;
    (*out)[(*n)++] = d;
    return 0;
}

/* Length of the complete JSON value at @p p (n bytes) when it is followed
 * by end or ';' (after optional spaces), else 0. */
static size_t json_value_len(const char *p, size_t n)
{
    json_error_t je;
    json_t *v = json_loadb(p, n, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v)
        return 0;
    json_decref(v);
    size_t used = (size_t)je.position;
    if (used == 0 || used > n)
        return 0;
    size_t k = used;
    while (k < n && isspace((unsigned char)p[k]))
        k++;
    return k == n || p[k] == ';' ? used : 0;
}

etp_status etp_nx_split_labels(const char *cell, size_t len, const char *const *known, size_t known_count,
                               char ***out, uint32_t *count)
{
    *out = NULL;
    *count = 0;
    uint32_t cap = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (cell[i] == ';' || isspace((unsigned char)cell[i])))
            i++;
        if (i >= len)
            break;
        size_t best = 0;
        for (size_t k = 0; k < known_count; k++) {
            size_t kl = strlen(known[k]);
            if (kl > best && kl <= len - i && !memcmp(cell + i, known[k], kl) &&
                (i + kl == len || cell[i + kl] == ';'))
                best = kl;
        }
        if (!best && (cell[i] == '{' || cell[i] == '[' || cell[i] == '"'))
            best = json_value_len(cell + i, len - i);
        size_t take = best, next = i + best;
        if (!best) {
            const char *semi = memchr(cell + i, ';', len - i);
            size_t end = semi ? (size_t)(semi - cell) : len;
            take = end - i;
            while (take && isspace((unsigned char)cell[i + take - 1]))
                take--;
            next = end;
        }
        if (take && push(out, count, &cap, cell + i, take)) {
            for (uint32_t k = 0; k < *count; k++)
                free((*out)[k]);
            free(*out);
            *out = NULL;
            *count = 0;
            return ETP_E_NOMEM;
        }
        i = next;
    }
    return ETP_OK;
}
