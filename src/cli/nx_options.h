/* nx_options.h - the --nx-* options of `etprof analyze` (nx_options.c). */
#ifndef ETP_CLI_NX_OPTIONS_H
#define ETP_CLI_NX_OPTIONS_H

#include "etprof/nx_record.h"

/* Apply option @p which (0 mode, 1 device, 2 leading blocks, 3 core key)
 * with value @p v to @p o. Returns 0, or 1 after printing a usage error. */
int cli_nx_option(etp_nx_options *o, int which, const char *v);

#endif
