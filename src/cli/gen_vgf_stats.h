/* gen_vgf_stats.h - `etprof gen vgf-stats` (see gen_vgf_stats.c). */
#ifndef ETP_CLI_GEN_VGF_STATS_H
#define ETP_CLI_GEN_VGF_STATS_H

int cli_gen_vgf_stats(int argc, char **argv);

#endif
