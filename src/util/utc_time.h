/* utc_time.h - UTC times as milliseconds since 1970-01-01 and their RFC 3339
 * text ("2026-03-01T12:00:00.123Z"): what a bundle records as its
 * publication time and what a run history orders and filters by. Pure
 * functions (no time zone, no locale): safe from any thread. */
#ifndef ETP_UTC_TIME_H
#define ETP_UTC_TIME_H

#include <stddef.h>
#include <stdint.h>

/* The current time, in ms since the epoch; -1 when the clock cannot be read. */
int64_t etp_utc_now_ms(void);

/* @p ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" (24 characters) into @p out (at least
 * 25 bytes). 0, or -1 for a time before year 0 or after year 9999. */
int etp_utc_format_ms(int64_t ms, char *out, size_t size);

/* Parse an RFC 3339 time: "YYYY-MM-DD" (midnight UTC), or
 * "YYYY-MM-DDTHH:MM[:SS[.fraction]]" followed by "Z" or an offset "+HH:MM" /
 * "-HH:MM" (a space may stand for the 'T'). Fractions beyond the millisecond
 * are truncated. 0 and *@p ms set, or -1 when @p s is not such a time (field
 * ranges checked: month 1-12, day within its month, hour 0-23, ...). */
int etp_utc_parse_ms(const char *s, int64_t *ms);

#endif
