/* text_numbers.h - readable numbers for the terminal (text_numbers.c): each
 * column of times in the unit that suits its largest value (ns, us, ms or
 * s), cycles as integers with thousands separators. Files (CSV, JSON) keep
 * the analysis' unit and every digit; this is for people reading a table. */
#ifndef ETP_TEXT_NUMBERS_H
#define ETP_TEXT_NUMBERS_H

#include <stddef.h>

#include "etprof/units.h"

/* How one column is shown. */
typedef struct etp_colfmt {
    etp_unit unit;   /* the unit shown */
    double factor;        /* value in the analysis' unit * factor = value shown */
} etp_colfmt;

/* The format for a column of @p n values in @p unit: the largest unit in
 * which the largest |value| is at least 1 (ns when all are below 1 ns);
 * cycles stay cycles. */
etp_colfmt etp_colfmt_for(etp_unit unit, const double *v, size_t n);

/* @p v (in the analysis' unit) as shown: "639.975" (three decimals) for
 * times, "2,016,376" for cycles (rounded to an integer). Writes at most
 * @p cap bytes with the NUL; returns @p buf. */
char *etp_colfmt_value(const etp_colfmt *f, double v, char *buf, size_t cap);

/* An integer with thousands separators ("2,016,376"). */
char *etp_format_thousands(double v, char *buf, size_t cap);

#endif
