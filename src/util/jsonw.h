/*
 * jsonw.h - streaming JSON writer.
 *
 * jansson builds whole documents in memory; a dump of a 1 GB ETDump cannot
 * afford that, and analysis numbers must print at full precision in their
 * shortest exact form (1.898821, not 1.8988210000000001). This writer streams
 * to a FILE or grows a memory buffer, tracks commas and indentation itself,
 * and prints doubles with the fewest digits that read back bit-identical
 * (util/dtoa.c computes them without printf).
 */
#ifndef ETP_JSONW_H
#define ETP_JSONW_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "etprof/error.h"

#define ETP_JW_MAX_DEPTH 128
/* A FILE writer hands its buffer to the FILE at this size. */
#define ETP_JW_FLUSH_AT (1u << 16)

/* Why a writer failed (etp_jw.cause). */
enum { ETP_JW_OK = 0, ETP_JW_NOMEM, ETP_JW_IO, ETP_JW_DEPTH, ETP_JW_UNBALANCED };

typedef struct etp_jw {
    FILE *fp;          /* destination, or NULL for memory */
    char *buf;         /* pending bytes (FILE) or whole document (memory) */
    size_t len, cap;
    int pretty;        /* 1: two-space indentation, one member per line */
    int depth;
    int failed;        /* sticky: an allocation or write failed */
    int cause;         /* ETP_JW_* of the first failure */
    int err_no;        /* errno of that failure (ETP_JW_IO, ETP_JW_NOMEM) */
    uint8_t first[ETP_JW_MAX_DEPTH]; /* 1 until the container has a member */
    uint8_t is_obj[ETP_JW_MAX_DEPTH];
    int after_key;
    int line_break;    /* 1: put the next member on a new line (compact mode) */
    int escape_lt;     /* 1: write '<' in strings as \u003c, so that the JSON can sit
                          inside an HTML <script> element; set after init */
} etp_jw;

/* Start a writer to @p fp (buffered; call etp_jw_finish). */
void etp_jw_init_file(etp_jw *w, FILE *fp, int pretty);
/* Start a writer into memory; take the text with etp_jw_take(). */
void etp_jw_init_mem(etp_jw *w, int pretty);
/* Flush (FILE) and return 0, or -1 if anything failed. Frees internal memory
 * for FILE writers. */
int etp_jw_finish(etp_jw *w);
/* etp_jw_finish() as a status: ETP_E_IO (a failed write or flush; the
 * message gives the system's reason), ETP_E_NOMEM, ETP_E_LIMIT (nested too
 * deep) or ETP_E_INTERNAL (unbalanced containers), the message saying
 * "cannot write @p what: ...". */
etp_status etp_jw_finish_status(etp_jw *w, const char *what, etp_error *err);
/* Memory writer: return the NUL-terminated document (caller frees) and its
 * length; the writer is reset. Returns NULL on failure. */
char *etp_jw_take(etp_jw *w, size_t *len);
/* Release a memory writer without taking its text. */
void etp_jw_discard(etp_jw *w);

void etp_jw_obj_begin(etp_jw *w);
void etp_jw_obj_end(etp_jw *w);
void etp_jw_arr_begin(etp_jw *w);
void etp_jw_arr_end(etp_jw *w);
/* Start the next member of the current container on a new line (after its
 * comma). Only whitespace is added, so the document stays valid; compact
 * writers use it to put one array element per line. */
void etp_jw_break(etp_jw *w);
/* Member name inside an object; the next value call supplies its value. */
void etp_jw_key(etp_jw *w, const char *key);
/* etp_jw_key for @p n bytes the caller knows need no escaping (no '"',
 * '\\', control or DEL byte): written as they are, without measuring or
 * scanning them. Use it through the *_LIT macros, for string literals. */
void etp_jw_key_plain(etp_jw *w, const char *key, size_t n);
/* etp_jw_key_plain with its common case inline: a compact writer inside an
 * object, with room in its buffer (the same bytes; anything else goes to
 * etp_jw_key_plain). For member names whose length the compiler knows. */
static inline void etp_jw_key_plain_inline(etp_jw *w, const char *key, size_t n)
{
    if (w->after_key || w->pretty || w->line_break || w->failed || w->depth <= 0 ||
        w->len + n + 4 >= w->cap || (w->fp && w->len + n + 4 >= ETP_JW_FLUSH_AT)) {
        etp_jw_key_plain(w, key, n);
        return;
    }
    char *o = w->buf + w->len;
    if (!w->first[w->depth - 1])
        *o++ = ',';
    w->first[w->depth - 1] = 0;
    *o++ = '"';
    memcpy(o, key, n);
    o += n;
    *o++ = '"';
    *o++ = ':';
    w->len = (size_t)(o - w->buf);
    w->after_key = 1;
}
/* Member names that are string literals of plain ASCII (hot writers). */
#define ETP_JW_KEY_LIT(w, lit) etp_jw_key_plain_inline((w), "" lit, sizeof(lit) - 1)
#define ETP_JW_KSTR_LIT(w, lit, v) (ETP_JW_KEY_LIT(w, lit), etp_jw_str((w), (v)))
#define ETP_JW_KINT_LIT(w, lit, v) (ETP_JW_KEY_LIT(w, lit), etp_jw_int((w), (v)))
#define ETP_JW_KUINT_LIT(w, lit, v) (ETP_JW_KEY_LIT(w, lit), etp_jw_uint((w), (v)))
#define ETP_JW_KDOUBLE_LIT(w, lit, v) (ETP_JW_KEY_LIT(w, lit), etp_jw_double((w), (v)))
#define ETP_JW_KBOOL_LIT(w, lit, v) (ETP_JW_KEY_LIT(w, lit), etp_jw_bool((w), (v)))
#define ETP_JW_KNULL_LIT(w, lit) (ETP_JW_KEY_LIT(w, lit), etp_jw_null(w))

/* An object of two string members, {"k1":v1,"k2":v2}: the same bytes as
 * the six calls it stands for, written at once when compact and plain (the
 * key/value pairs of Model Explorer graphs). Member names of @p n1 / @p n2
 * bytes must need no escaping; a NULL value is written as null. */
void etp_jw_obj2s(etp_jw *w, const char *k1, size_t n1, const char *v1, const char *k2, size_t n2,
                  const char *v2);
#define ETP_JW_OBJ2S_LIT(w, k1, v1, k2, v2) \
    etp_jw_obj2s((w), "" k1, sizeof(k1) - 1, (v1), "" k2, sizeof(k2) - 1, (v2))
void etp_jw_str(etp_jw *w, const char *s);
void etp_jw_strn(etp_jw *w, const char *s, size_t n);
void etp_jw_int(etp_jw *w, int64_t v);
void etp_jw_uint(etp_jw *w, uint64_t v);
/* Shortest round-trip form; non-finite values are written as null. */
void etp_jw_double(etp_jw *w, double v);
/* As etp_jw_double, but a float32 value printed in its shortest float form
 * (printf + strtof: only dumps of .pte constants use it). */
void etp_jw_float(etp_jw *w, float v);
void etp_jw_bool(etp_jw *w, int v);
void etp_jw_null(etp_jw *w);
/* Append bytes verbatim: no separator, no escaping (for CSV and other text
 * built with the same buffer). */
void etp_jw_raw_text(etp_jw *w, const char *text, size_t n);
/* Insert already-serialised JSON text as one value. */
void etp_jw_raw(etp_jw *w, const char *json, size_t n);

/* Member @p key holding an array of @p n strings. */
void etp_jw_kstrs(etp_jw *w, const char *key, char *const *strs, uint32_t n);
/* Member @p key holding an array of @p n integers. */
void etp_jw_ku32s(etp_jw *w, const char *key, const uint32_t *v, uint32_t n);
void etp_jw_ku64s(etp_jw *w, const char *key, const uint64_t *v, uint32_t n);
void etp_jw_ki64s(etp_jw *w, const char *key, const int64_t *v, uint32_t n);
/* Convenience: key + value. */
void etp_jw_kstr(etp_jw *w, const char *k, const char *v);
void etp_jw_kint(etp_jw *w, const char *k, int64_t v);
void etp_jw_kuint(etp_jw *w, const char *k, uint64_t v);
void etp_jw_kdouble(etp_jw *w, const char *k, double v);
void etp_jw_kbool(etp_jw *w, const char *k, int v);
void etp_jw_knull(etp_jw *w, const char *k);

/* The decimal text of @p v ("%lld"), NUL-terminated, into @p out (at least
 * 21 bytes); returns its length. */
int etp_format_int(char *out, int64_t v);

/* Format @p v in shortest round-trip form into @p out (>= 32 bytes). */
int etp_format_double(char *out, size_t size, double v);
/* The text of "%.*g" (@p conv 'g') or "%.*e" ('e') of finite @p v at the
 * least precision that strtod reads back as @p v; returns its length. */
int etp_format_shortest(char *out, size_t size, double v, char conv);

#endif
