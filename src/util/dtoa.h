/*
 * dtoa.h - shortest round-trip decimal form of a double, without printf.
 *
 * Bundles hold millions of numbers; finding the fewest "%.*g" digits that
 * read back by printing and re-reading (snprintf + strtod per precision)
 * cost more than the whole analysis. These functions compute the same text
 * directly, with exact integer arithmetic (the interval of decimals that read
 * back as the double, after Giulietti's Schubfach method), so outputs keep
 * their bytes. Thread-safe: a table of powers of ten is computed once, on
 * first use, with exact big-integer arithmetic.
 */
#ifndef ETP_DTOA_H
#define ETP_DTOA_H

#include <stdint.h>

/* Room for any text etp_dtoa_format() writes, with its NUL. */
#define ETP_DTOA_MAX 32

/* The decimal that "%.*g" prints for finite, nonzero |@p v| at the least
 * precision P (1..17) that strtod reads back as |v|: |v| ~ *digits * 10^*exp10,
 * *digits without trailing zeros. Returns the number of digits. */
int etp_dtoa_digits(double v, uint64_t *digits, int *exp10);

/* Write the text of "%.*g" (@p conv 'g') or "%.*e" (@p conv 'e') of finite
 * @p v at the least precision that strtod reads back as @p v, NUL-terminated,
 * into @p out (at least ETP_DTOA_MAX bytes). Returns its length. */
int etp_dtoa_format(char *out, double v, char conv);

/* etp_dtoa_format(out, v, 'g') with ".0" appended when the text has neither
 * a point nor an exponent ("2" -> "2.0"): how JSON files and tables write a
 * float, so that readers keep its type. */
int etp_dtoa_format_json(char *out, double v);

/* The decimal digits of @p v, written backwards so that they end just
 * before @p end (at most 20 bytes); returns where they start. */
char *etp_u64_digits(uint64_t v, char *end);

/* Room for any text of etp_format_fixed1() (%.1f of DBL_MAX has 310
 * digits), with its NUL. */
#define ETP_FIXED1_MAX 320

/* The text of printf("%.1f", @p v) into @p out (ETP_FIXED1_MAX bytes; a
 * value beyond 1e15 or not finite is printed by snprintf itself). Exact:
 * v * 10 is rounded here only when it is clearly away from a tie, else
 * snprintf decides. Returns the length. */
int etp_format_fixed1(char *out, double v);

#endif
