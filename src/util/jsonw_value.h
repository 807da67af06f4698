/*
 * jsonw_value.h - write a parsed jansson value through the streaming writer.
 *
 * Object members come out sorted by key (byte order), so a value supplied as
 * JSON text in any member order serializes to the same bytes.
 */
#ifndef ETP_JSONW_VALUE_H
#define ETP_JSONW_VALUE_H

#include <jansson.h>

#include "util/jsonw.h"

/* Deepest nesting etp_jw_value accepts (well under ETP_JW_MAX_DEPTH). */
#define ETP_JW_VALUE_MAX_DEPTH 64

/* Nesting depth of @p v (a scalar is 0, [] or {} is 1). Stops counting past
 * @p cap and returns cap + 1. */
int etp_json_depth(const json_t *v, int cap);

/* Write @p v (at most ETP_JW_VALUE_MAX_DEPTH deep) as the next value of @p w.
 * Returns 0, or -1 if @p v is too deep or an allocation failed. */
int etp_jw_value(etp_jw *w, const json_t *v);

#endif
