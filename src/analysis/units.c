/* units.c - tick units and conversion divisors. */
#include "etprof/units.h"

#include <string.h>

static const char *const names[] = {"ns", "us", "ms", "s", "cycles"};
static const double per_second[] = {1e9, 1e6, 1e3, 1.0, 1.0};

int etp_unit_parse(const char *s, etp_time_unit *out)
{
    for (int i = 0; s && i < 5; i++)
        if (!strcmp(s, names[i])) {
            *out = (etp_time_unit)i;
            return 0;
        }
    return -1;
}

const char *etp_unit_name(etp_time_unit u) { return (unsigned)u < 5 ? names[u] : "?"; }

double etp_unit_divisor(etp_time_unit source, etp_time_unit target)
{
    if ((source == ETP_UNIT_CYCLES) != (target == ETP_UNIT_CYCLES))
        return 0.0;
    return per_second[source] / per_second[target];
}

double etp_unit_divisor_hz(double cpu_hz, etp_time_unit target)
{
    if (!(cpu_hz > 0) || target == ETP_UNIT_CYCLES)
        return 0.0;
    /* cycles / hz = seconds; seconds * per_second[target] = target units. */
    return cpu_hz / per_second[target];
}
