/* inspect.c - `etprof inspect` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_inspect(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("inspect: not implemented yet");
}
