/* graph.c - `etprof graph` (not built yet: says so and fails). */
#include "cli/cli.h"

int cmd_graph(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("graph: not implemented yet");
}
