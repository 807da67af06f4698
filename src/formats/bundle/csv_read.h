/* csv_read.h - an RFC 4180 record reader for the CSV artifacts a diff
 * reads back (detailed/executions.csv): untrusted text, bounded. */
#ifndef ETP_DIFF_CSV_READ_H
#define ETP_DIFF_CSV_READ_H

#include <stddef.h>

typedef struct etp_csvr {
    const char *p;
    size_t len, pos;
    size_t line;            /* 1-based line of the record just read */
    char *buf;              /* the record's fields, unquoted, each NUL-terminated */
    size_t buf_cap;
    size_t *offs;
    const char **fields;
    size_t nfields, fcap;
} etp_csvr;

/* Records longer than this (bytes) or wider than this (fields) are errors. */
#define ETP_CSVR_MAX_RECORD (1u << 20)
#define ETP_CSVR_MAX_FIELDS 4096u

void etp_csvr_init(etp_csvr *r, const char *text, size_t len);
/* Read the next record into r->fields / r->nfields: 1 read, 0 at the end,
 * -1 malformed (an unterminated quote, text after a closing quote, a record
 * or field count over the limits), -2 out of memory. CRLF or LF ends a
 * record; a last record without a line end is accepted. */
int etp_csvr_next(etp_csvr *r);
void etp_csvr_free(etp_csvr *r);

#endif
