/* cli_logs.h - the `--log` files of analyze (and run): every log is read as
 * a device log (etprof/device_log.h); the first one with runner lines is
 * also the runner log; a log-carried ETDump stands in for a missing
 * --etdump (cli_logs.c). */
#ifndef ETP_CLI_LOGS_H
#define ETP_CLI_LOGS_H

#include "cli/cli.h"
#include "etprof/device_log.h"

#define CLI_MAX_LOGS 16

typedef struct cli_logs {
    const char *paths[CLI_MAX_LOGS];  /* argv's */
    uint32_t n;
    etp_device_log *logs[CLI_MAX_LOGS]; /* the logs read (not "-": stdin is the runner log's alone) */
    uint32_t nloaded;
    const char *runner;               /* the log also read as the runner log, or NULL */
    const char *etdump_log;           /* the log whose carried ETDump is analysed, or NULL */
    char *tmpdir, *tmp_etdump;        /* where that ETDump was written (removed by cli_logs_free) */
    char *tmp_debug;                  /* a carried debug buffer written there, or NULL */
    char *debug_name;                 /* how the analysis names the buffer (owned), or NULL */
    struct etp_blob *debug_blob;      /* --debug-buffer's bytes, kept for the analysis (owned) */
} cli_logs;

/* The debug buffer of an analysis: --debug-buffer's file or, without one,
 * the one a log carries. */
typedef struct cli_debug_buffer {
    const char *path;                 /* the file (a temporary one for a carried buffer), or NULL */
    const char *name;                 /* for messages and outputs */
    uint64_t size;
    const uint8_t *data;              /* its bytes (owned by the cli_logs: live until cli_logs_free) */
} cli_debug_buffer;

/* The runner output `etprof run` captured, carried in the bundle it
 * publishes through cmd_analyze (NULL otherwise). */
extern const char *cli_run_embed_log;
/* The command `etprof run` was given, recorded in its bundle instead of
 * the analyze command it builds (NULL otherwise). */
extern const char *cli_run_command_line;
/* What `etprof run` read of the runner's command (a JSON object, recorded
 * as run_metadata.json "runner"; NULL otherwise). */
extern const char *cli_run_runner_json;
/* How `etprof run` knows the test case it passes as --testset (the
 * runner's --testset_idx, or example_runner's default); NULL otherwise. */
extern const char *cli_run_testset_basis;

/* The name log @p path goes by in messages and records: "logs/runner.log"
 * for `etprof run`'s capture (a temporary file; the bundle carries it under
 * that name), else @p path. */
const char *cli_log_shown_name(const char *path);

/* `etprof view`: input @p real is shown as @p shown (the path the bundle
 * recorded), so that the analysis made again is the one published. Both
 * strings must outlive the analysis. -1 when the table is full. */
int cli_path_alias(const char *real, const char *shown);
void cli_path_aliases_clear(void);

/* etprof run's own measurements (`etprof-run:` lines), carried in the
 * bundle as logs/run.log beside the capture (NULL otherwise). */
extern const char *cli_run_embed_measurements;

/* One more --log; ETP_EXIT_USAGE past CLI_MAX_LOGS. */
int cli_logs_add(cli_logs *c, const char *path);
/* Read the logs; when *@p etdump is NULL, point it at a carried ETDump
 * written to a private temporary file; when both exist, check they are the
 * same bytes. With tick-unit evidence and no --source-unit, read ticks as
 * cycles (and report cycles unless --unit or --cpu-hz says otherwise).
 * Returns ETP_EXIT_OK or the exit status after printing why. */
int cli_logs_load(cli_logs *c, const char **etdump, cli_units *u, int unit_given);
/* After cli_logs_load(): the debug buffer. @p given is --debug-buffer's
 * path (NULL: absent). A log's carried buffer stands in for it (written to
 * a private temporary file, which the bundle records); when both exist
 * they must be the same bytes. A given file must not be an ETDump,
 * program or ETRecord. *@p out's path is NULL when there is none.
 * Returns ETP_EXIT_OK or the exit status after printing why. */
int cli_logs_debug_buffer(cli_logs *c, const char *given, cli_debug_buffer *out);
/* Release the logs and remove the temporary files. Safe on a zeroed struct. */
void cli_logs_free(cli_logs *c);

#endif
