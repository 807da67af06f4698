/* diff_match.h - whether two sides can be compared, and at which level. */
#ifndef ETP_DIFF_MATCH_H
#define ETP_DIFF_MATCH_H

#include "analysis/diff/diff_internal.h"

/* Refuse (ETP_E_MISMATCH with the reason) or accept the pair, appending
 * warnings to *w / *wn (grown with realloc; messages owned by @p ar) and
 * setting *new_factor, the factor turning the new side's times into the
 * base side's unit. */
etp_status etp_diff_check(const etp_diff_side *base, const etp_diff_side *nw,
                          const etp_diff_options *opt, etp_diff_arena *ar, etp_diff_warning **w,
                          uint32_t *wn, double *new_factor, etp_error *err);

/* The finest level both sides support, and why (owned by @p ar). */
etp_diff_level etp_diff_choose_level(const etp_diff_side *b, const etp_diff_side *n,
                                     etp_diff_arena *ar, const char **reason);

/* Factor turning times in unit @p from into unit @p to (1 when equal
 * names); 0 when either is cycles (and they differ) or unknown. */
double etp_diff_unit_factor(const char *from, const char *to);

#endif
