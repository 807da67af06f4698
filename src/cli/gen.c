/* gen.c - `etprof gen` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_gen(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("gen: not implemented yet");
}
