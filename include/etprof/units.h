/*
 * etprof/units.h - every unit a number of etprof is stated in, with one
 * table of names and scales (src/util/units.c).
 *
 * Times (ns, us, ms, s) and ETDump cycles are what ticks are read in and
 * analyses report in: an ETDump does not record its tick unit, the user
 * says which (--source-unit) and results are reported in a target unit
 * (--unit). Cycles cannot be converted to time without a clock rate, so
 * `cycles` is used for both source and target or for neither (unless a CPU
 * frequency is given, see etp_unit_divisor_hz). The other units are those
 * of device and runner figures (CPU and NPU cycles, bytes, KiB, counts,
 * percentages).
 *
 * Each unit has a printed name, a dimension, and a scale within its
 * dimension; conversions exist only within one dimension (and never
 * between two different cycle clocks).
 *
 * Every function is pure and safe from any thread.
 */
#ifndef ETPROF_UNITS_H
#define ETPROF_UNITS_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A unit. The first five are the tick / report units (etp_unit_is_tick()). */
typedef enum etp_unit {
    ETP_UNIT_NS = 0,
    ETP_UNIT_US,
    ETP_UNIT_MS,
    ETP_UNIT_S,
    ETP_UNIT_CYCLES,      /**< ETDump ticks of an unknown clock ("cycles") */
    ETP_UNIT_CPU_CYCLES,  /**< a device's CPU clock, as its runner prints it ("CPU cycles") */
    ETP_UNIT_NPU_CYCLES,  /**< a neural accelerator's clock ("NPU cycles") */
    ETP_UNIT_BYTES,
    ETP_UNIT_KIB,         /**< 1024 bytes ("KiB") */
    ETP_UNIT_COUNT,       /**< a number of things ("count") */
    ETP_UNIT_PERCENT,     /**< "%" */
    ETP_UNIT_LIMIT        /**< one past the last unit (not a unit) */
} etp_unit;

/** What a unit measures; values convert only within one dimension. */
typedef enum etp_unit_dimension {
    ETP_DIM_TIME = 0,
    ETP_DIM_CYCLES,
    ETP_DIM_BYTES,
    ETP_DIM_COUNT,
    ETP_DIM_PERCENT
} etp_unit_dimension;

/** The number of units (ETP_UNIT_LIMIT): units are 0 .. etp_unit_count() - 1. */
unsigned etp_unit_count(void);

/** Printed name: "ns", "us", "ms", "s", "cycles", "CPU cycles", "NPU cycles",
 *  "bytes", "KiB", "count", "%" (a static string; "?" out of range). */
const char *etp_unit_name(etp_unit u);

/** The dimension of @p u (ETP_DIM_COUNT out of range). */
etp_unit_dimension etp_unit_dim(etp_unit u);

/** How many of @p u make one base unit of its dimension (second, byte, one
 *  cycle, one thing, one percent): 1e9 for ns, 1/1024 for KiB; 0 out of
 *  range. */
double etp_unit_per_base(etp_unit u);

/** 1 for the units ticks can be read in and analyses report in (ns, us, ms,
 *  s, cycles), else 0. */
int etp_unit_is_tick(etp_unit u);

/** Parse a tick / report unit: "ns", "us", "ms", "s" or "cycles". A lookup,
 *  not a failure status: returns 0 and sets *@p out when @p s names one, -1
 *  (*@p out untouched) when it does not (other units' names included). */
int etp_unit_parse(const char *s, etp_unit *out);

/** Any unit by its printed name (etp_unit_name()); 0 and *@p out set, or
 *  -1 (*@p out untouched). */
int etp_unit_from_name(const char *s, etp_unit *out);

/**
 * The factor turning a value in @p from into @p to (value_to = value_from *
 * factor): 1 when they are the same unit; within one dimension the ratio of
 * their sizes in base units, (1 / per_base(from)) / (1 / per_base(to));
 * 0 across dimensions and between two different cycle clocks (they do not
 * convert).
 */
double etp_unit_factor(etp_unit from, etp_unit to);

/**
 * Divisor turning a tick count in @p source into @p target units
 * (value_in_target = ticks / divisor), as the Inspector defines it:
 * F[source]/F[target] with F = {ns 1e9, us 1e6, ms 1e3, s 1, cycles 1}
 * (etp_unit_per_base()). Returns 0 (invalid) when exactly one of the two is
 * cycles, or either is not a tick unit.
 */
double etp_unit_divisor(etp_unit source, etp_unit target);

/**
 * Divisor turning cycles into @p target time units at @p cpu_hz cycles per
 * second (> 0). Returns 0 for an invalid request.
 */
double etp_unit_divisor_hz(double cpu_hz, etp_unit target);

/**
 * The units rule, checked before any tick is converted: cycles are the unit
 * of both the ticks (@p source) and the results (@p target) or of neither,
 * unless a clock rate @p cpu_hz (> 0; 0 or less: none) converts cycle ticks
 * to time; a clock rate applies only to cycle ticks. Every caller (the CLI,
 * the Python package, etp_inspect_run()) applies this one rule.
 * @return ETP_OK, or ETP_E_USAGE with @p err saying which part is broken,
 *         in one text for every caller (it names the CLI's options).
 */
etp_status etp_units_check(etp_unit source, etp_unit target, double cpu_hz, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
