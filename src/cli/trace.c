/* trace.c - `etprof trace` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_trace(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("trace: not implemented yet");
}
