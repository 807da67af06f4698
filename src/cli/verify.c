/* verify.c - `etprof verify` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("verify: not implemented yet");
}
