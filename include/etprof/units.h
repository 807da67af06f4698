/*
 * etprof/units.h - time units of ETDump ticks and of reported statistics.
 *
 * An ETDump does not record its tick unit. The default POSIX runtime ticks
 * in nanoseconds; embedded ports may tick in CPU cycles. The user says which
 * (--source-unit); results are reported in a target unit (--unit).
 * Cycles cannot be converted to time without a clock rate, so `cycles` is
 * used for both source and target or for neither (unless a CPU frequency is
 * given, see etp_unit_divisor_hz).
 *
 * Every function is pure and safe from any thread.
 */
#ifndef ETPROF_UNITS_H
#define ETPROF_UNITS_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_time_unit {
    ETP_UNIT_NS = 0,
    ETP_UNIT_US,
    ETP_UNIT_MS,
    ETP_UNIT_S,
    ETP_UNIT_CYCLES
} etp_time_unit;

/** Parse "ns", "us", "ms", "s" or "cycles". A lookup, not a failure status:
 *  returns 0 and sets *@p out when @p s names a unit, -1 (*@p out untouched)
 *  when it does not. */
int etp_unit_parse(const char *s, etp_time_unit *out);

/** Short name: "ns", "us", "ms", "s", "cycles" (a static string). */
const char *etp_unit_name(etp_time_unit u);

/**
 * Divisor turning a tick count in @p source into @p target units
 * (value_in_target = ticks / divisor), as the Inspector defines it:
 * F[source]/F[target] with F = {ns 1e9, us 1e6, ms 1e3, s 1, cycles 1}.
 * Returns 0 (invalid) when exactly one of the two is cycles.
 */
double etp_unit_divisor(etp_time_unit source, etp_time_unit target);

/**
 * Divisor turning cycles into @p target time units at @p cpu_hz cycles per
 * second (> 0). Returns 0 for an invalid request.
 */
double etp_unit_divisor_hz(double cpu_hz, etp_time_unit target);

/**
 * The units rule, checked before any tick is converted: cycles are the unit
 * of both the ticks (@p source) and the results (@p target) or of neither,
 * unless a clock rate @p cpu_hz (> 0; 0 or less: none) converts cycle ticks
 * to time; a clock rate applies only to cycle ticks. Every caller (the CLI,
 * the Python package, etp_inspect_run()) applies this one rule.
 * @return ETP_OK, or ETP_E_USAGE with @p err saying which part is broken,
 *         in one text for every caller (it names the CLI's options).
 */
etp_status etp_units_check(etp_time_unit source, etp_time_unit target, double cpu_hz, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
