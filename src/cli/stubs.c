/* stubs.c - subcommands not built yet. Each says so and fails. */
#include "cli/cli.h"

int cmd_inspect(int argc, char **argv) { (void)argc; (void)argv; return cli_error("inspect: not implemented yet"); }
int cmd_analyze(int argc, char **argv) { (void)argc; (void)argv; return cli_error("analyze: not implemented yet"); }
int cmd_gen(int argc, char **argv) { (void)argc; (void)argv; return cli_error("gen: not implemented yet"); }
int cmd_verify(int argc, char **argv) { (void)argc; (void)argv; return cli_error("verify: not implemented yet"); }
int cmd_graph(int argc, char **argv) { (void)argc; (void)argv; return cli_error("graph: not implemented yet"); }
int cmd_trace(int argc, char **argv) { (void)argc; (void)argv; return cli_error("trace: not implemented yet"); }
