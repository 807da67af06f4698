/*
 * csvw.h - CSV writer into memory or a FILE (RFC 4180: fields separated by commas,
 * rows ended by CRLF, a field quoted only when it holds a comma, a double
 * quote, CR or LF, with its quotes doubled).
 *
 * The writer puts the separators itself: each field call starts a new field
 * of the current row, etp_csvw_end_row() ends it. Numbers print as in the
 * JSON files (doubles in their shortest exact form). Nothing is allocated per
 * field; the buffer grows geometrically. A failed allocation is sticky and
 * makes etp_csvw_take() return NULL. Not thread-safe: one writer per thread.
 */
#ifndef ETP_CSVW_H
#define ETP_CSVW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct etp_csvw {
    FILE *fp;          /* destination, or NULL for memory */
    char *buf;         /* pending bytes (FILE) or the whole text (memory) */
    size_t len, cap;
    int row_open;      /* 1 once the current row has a field */
    int failed;        /* sticky: an allocation or a write failed */
} etp_csvw;

void etp_csvw_init(etp_csvw *w);
/* A writer to @p fp, through a small buffer (a table of any size costs
 * 64 KiB); end it with etp_csvw_finish(). */
void etp_csvw_init_file(etp_csvw *w, FILE *fp);
/* File writer: write what is pending, release the buffer; 0, or -1 when an
 * allocation or a write failed (errno from the failed write). */
int etp_csvw_finish(etp_csvw *w);
/* The NUL-terminated text (caller frees) and its length; the writer is
 * reset. NULL when anything failed (the buffer is released). */
char *etp_csvw_take(etp_csvw *w, size_t *len);
/* Release the writer without taking its text. */
void etp_csvw_discard(etp_csvw *w);

/* A text field, quoted when needed; NULL writes an empty field. */
void etp_csvw_str(etp_csvw *w, const char *s);
/* An empty field. */
void etp_csvw_empty(etp_csvw *w);
void etp_csvw_uint(etp_csvw *w, uint64_t v);
void etp_csvw_int(etp_csvw *w, int64_t v);
/* Shortest round-trip form (etp_format_double). */
void etp_csvw_double(etp_csvw *w, double v);
/* @p n strings in one field, separated by spaces and quoted as one field
 * (quoting each one would put quotes inside an unquoted field). */
void etp_csvw_strs(etp_csvw *w, const char *const *items, uint32_t n);
/* @p n integers in one field, separated by spaces. */
void etp_csvw_ints(etp_csvw *w, const int64_t *v, uint32_t n);
/* A header or other text already known to need no quoting, copied as is
 * (may hold several fields: "a,b,c"). */
void etp_csvw_raw(etp_csvw *w, const char *text, size_t n);
/* End the current row (CRLF). */
void etp_csvw_end_row(etp_csvw *w);

#endif
