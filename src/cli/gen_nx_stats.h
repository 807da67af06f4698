/* gen_nx_stats.h - `etprof gen vgf-stats` (see gen_nx_stats.c). */
#ifndef ETP_CLI_GEN_VGF_STATS_H
#define ETP_CLI_GEN_VGF_STATS_H

int cli_gen_nx_stats(int argc, char **argv);

#endif
