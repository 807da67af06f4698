/*
 * trace_text.h - JSON text appended straight to a byte buffer, for the
 * trace writer's hot path.
 *
 * A trace holds a million slices of a few hundred bytes each, whose keys are
 * known in advance and whose values are mostly integers. Written call by call
 * through etp_jw (separator state per member, strlen per key, snprintf per
 * number) they cost most of the write time. Here a whole object is assembled
 * in one reused buffer and handed to the document's etp_jw at once with
 * etp_jw_raw(), which adds the separator and line break as for any value.
 *
 * The bytes are exactly those of a compact etp_jw (util/jsonw.h): strings
 * that need escaping go through etp_jw itself, integers print as %lld/%llu
 * would, doubles through etp_format_double() as etp_jw_double() does.
 */
#ifndef ETP_TRACE_TEXT_H
#define ETP_TRACE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct etp_tt {
    char *p;
    size_t len, cap;
    int failed;       /* sticky: an allocation failed (the text is incomplete) */
} etp_tt;

void etp_tt_init(etp_tt *b);
void etp_tt_free(etp_tt *b);
/* Make room for @p extra more bytes; 0, or -1 (and failed) when out of memory. */
int etp_tt_grow(etp_tt *b, size_t extra);

/* Append @p n bytes verbatim. */
static inline void etp_tt_put(etp_tt *b, const char *s, size_t n)
{
    if (b->cap - b->len < n && etp_tt_grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* Append a string literal verbatim (its length is known at compile time). */
#define ETP_TT_LIT(b, lit) etp_tt_put((b), "" lit, sizeof(lit) - 1)

void etp_tt_u64(etp_tt *b, uint64_t v);
void etp_tt_i64(etp_tt *b, int64_t v);
/* @p n bytes of @p s as a JSON string (quoted, escaped as etp_jw_strn does;
 * NULL is ""). */
void etp_tt_strn(etp_tt *b, const char *s, size_t n);
/* A NUL-terminated string as a JSON string, or null for NULL (etp_jw_str). */
void etp_tt_str(etp_tt *b, const char *s);
/* As etp_jw_double: shortest round trip, null when not finite. */
void etp_tt_double(etp_tt *b, double v);

#endif
