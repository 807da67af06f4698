/* jsonw_bytes.h - bytes that may not be UTF-8 in a JSON document: a string
 * when they are (as jansson reads strings back), else {"base64": "..."}
 * (standard alphabet, padded), so that the exact bytes read back. Used for
 * run labels, whose values may be any bytes. */
#ifndef ETP_JSONW_BYTES_H
#define ETP_JSONW_BYTES_H

#include "util/jsonw.h"

/* Mark @p w failed for want of memory (what its own calls do when they
 * cannot grow), for callers that allocate while writing. */
void etp_jw_out_of_memory(etp_jw *w);

/* Write @p s (NUL-terminated) as a string or a {"base64": ...} object. */
void etp_jw_bytes(etp_jw *w, const char *s);

#endif
