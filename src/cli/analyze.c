/* analyze.c - `etprof analyze` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("analyze: not implemented yet");
}
