/* units.c - the one table of units: printed name, dimension, and how many
 * of each make one base unit of its dimension (etprof/units.h). */
#include "etprof/units.h"

#include <string.h>

static const struct unit_def {
    const char *name;
    etp_unit_dimension dim;
    double per_base;
    int tick; /* ticks can be read in it and analyses report in it */
} units[ETP_UNIT_LIMIT] = {
    [ETP_UNIT_NS] = {"ns", ETP_DIM_TIME, 1e9, 1},
    [ETP_UNIT_US] = {"us", ETP_DIM_TIME, 1e6, 1},
    [ETP_UNIT_MS] = {"ms", ETP_DIM_TIME, 1e3, 1},
    [ETP_UNIT_S] = {"s", ETP_DIM_TIME, 1.0, 1},
    [ETP_UNIT_CYCLES] = {"cycles", ETP_DIM_CYCLES, 1.0, 1},
    [ETP_UNIT_CPU_CYCLES] = {"CPU cycles", ETP_DIM_CYCLES, 1.0, 0},
    [ETP_UNIT_NPU_CYCLES] = {"NPU cycles", ETP_DIM_CYCLES, 1.0, 0},
    [ETP_UNIT_BYTES] = {"bytes", ETP_DIM_BYTES, 1.0, 0},
    [ETP_UNIT_KIB] = {"KiB", ETP_DIM_BYTES, 1.0 / 1024, 0},
    [ETP_UNIT_COUNT] = {"count", ETP_DIM_COUNT, 1.0, 0},
    [ETP_UNIT_PERCENT] = {"%", ETP_DIM_PERCENT, 1.0, 0},
};

static int valid(etp_unit u) { return (unsigned)u < ETP_UNIT_LIMIT; }

unsigned etp_unit_count(void) { return ETP_UNIT_LIMIT; }

const char *etp_unit_name(etp_unit u) { return valid(u) ? units[u].name : "?"; }

etp_unit_dimension etp_unit_dim(etp_unit u) { return valid(u) ? units[u].dim : ETP_DIM_COUNT; }

double etp_unit_per_base(etp_unit u) { return valid(u) ? units[u].per_base : 0.0; }

int etp_unit_is_tick(etp_unit u) { return valid(u) && units[u].tick; }

int etp_unit_from_name(const char *s, etp_unit *out)
{
    for (unsigned i = 0; s && i < ETP_UNIT_LIMIT; i++)
        if (!strcmp(s, units[i].name)) {
            *out = (etp_unit)i;
            return 0;
        }
    return -1;
}

int etp_unit_parse(const char *s, etp_unit *out)
{
    etp_unit u;
    if (etp_unit_from_name(s, &u) || !units[u].tick)
        return -1;
    *out = u;
    return 0;
}

double etp_unit_factor(etp_unit from, etp_unit to)
{
    if (!valid(from) || !valid(to))
        return 0.0;
    if (from == to)
        return 1.0;
    if (units[from].dim != units[to].dim || units[from].dim == ETP_DIM_CYCLES)
        return 0.0;
    /* The ratio of the two sizes in base units (1 / per_base: 1e-9 s for
     * ns), the way times were always scaled for display and comparison. */
    return (1.0 / units[from].per_base) / (1.0 / units[to].per_base);
}

double etp_unit_divisor(etp_unit source, etp_unit target)
{
    if (!etp_unit_is_tick(source) || !etp_unit_is_tick(target) ||
        (source == ETP_UNIT_CYCLES) != (target == ETP_UNIT_CYCLES))
        return 0.0;
    return units[source].per_base / units[target].per_base;
}

double etp_unit_divisor_hz(double cpu_hz, etp_unit target)
{
    if (!(cpu_hz > 0) || !etp_unit_is_tick(target) || target == ETP_UNIT_CYCLES)
        return 0.0;
    /* cycles / hz = seconds; seconds * per_base[target] = target units. */
    return cpu_hz / units[target].per_base;
}
