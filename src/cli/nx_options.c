/* nx_options.c - parse the VGF statistics decoder options of analyze. */
#include <string.h>

#include "cli/cli.h"
#include "cli/nx_options.h"

int cli_nx_option(etp_nx_options *o, int which, const char *v)
{
    switch (which) {
    case 0:
        if (strcmp(v, "0") && strcmp(v, "1"))
            return cli_usage("analyze", "--nx-statistics-mode is 0 or 1, got '%s'", v) != 0;
        o->statistics_mode = v[0] - '0';
        return 0;
    case 1:
        o->profiling_device = etp_nx_device_parse(v);
        if (o->profiling_device == ETP_NX_DEVICE_NONE)
            return cli_usage("analyze", "--nx-profiling-device is Mali-G1 or Mali-G2, got '%s'", v) != 0;
        return 0;
    case 2:
        if (strcmp(v, "0") && strcmp(v, "1"))
            return cli_usage("analyze", "--nx-leading-blocks is 0 or 1, got '%s'", v) != 0;
        o->leading_blocks = v[0] - '0';
        return 0;
    default:
        if (!strcmp(v, "single"))
            o->core_key = ETP_NX_CORE_SINGLE;
        else if (!strcmp(v, "word0"))
            o->core_key = ETP_NX_CORE_WORD0;
        else
            return cli_usage("analyze", "--nx-core-key is single or word0, got '%s'", v) != 0;
        return 0;
    }
}
