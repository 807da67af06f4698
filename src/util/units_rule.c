/* units_rule.c - which tick and result units go together (etp_units_check,
 * etprof/units.h): one rule and one text for the CLI, Python and inspect. */
#include "etprof/units.h"

etp_status etp_units_check(etp_unit source, etp_unit target, double cpu_hz, etp_error *err)
{
    int sc = source == ETP_UNIT_CYCLES, tc = target == ETP_UNIT_CYCLES, hz = cpu_hz > 0;
    if (sc != tc && !(sc && hz))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "cycles must be both --source-unit and --unit (or give --cpu-hz to "
                             "convert cycles to time)");
    if (hz && !sc)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--cpu-hz only applies to --source-unit cycles");
    return ETP_OK;
}
