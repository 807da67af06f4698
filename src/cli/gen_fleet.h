/* gen_fleet.h - `etprof gen fleet` (see gen_fleet.c). */
#ifndef ETP_CLI_GEN_FLEET_H
#define ETP_CLI_GEN_FLEET_H

int cli_gen_fleet(int argc, char **argv);

#endif
