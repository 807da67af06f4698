/*
 * cli.h - the etprof command line: one file per subcommand, shared helpers.
 *
 * Every command returns one of the exit statuses of etprof/exit_status.h
 * (ETP_EXIT_OK, _INPUT, _USAGE, _GATE).
 */
#ifndef ETP_CLI_H
#define ETP_CLI_H

#include <stdio.h>

#include "etprof/error.h"
#include "etprof/exit_status.h"

int cmd_dump(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_tensors(int argc, char **argv);
int cmd_db(int argc, char **argv);

/* Print "etprof: FILE: message (offset N)" to stderr; return ETP_EXIT_INPUT. */
int cli_fail(const etp_error *err);
/* Print @p err as cli_fail() does; return the exit status of a library call
 * that failed with @p s: ETP_EXIT_USAGE for ETP_E_USAGE, else ETP_EXIT_INPUT. */
int cli_fail_status(etp_status s, const etp_error *err);
/* Writes a command's output into @p fp; ETP_OK, or a status with @p err set
 * (ETP_E_IO: the write itself failed). */
typedef etp_status (*cli_fill_fn)(FILE *fp, void *ctx, etp_error *err);
/* Write the output file @p path through @p fill, atomically: into a
 * temporary file beside it, fsynced, then renamed over @p path, so a failed
 * run never leaves a partial file nor clobbers an existing one. "-" writes to
 * standard output. Returns ETP_EXIT_OK, or the exit status after printing why
 * ("PATH: write error" for ETP_E_IO, else as cli_fail_status). */
int cli_write_atomic(const char *path, cli_fill_fn fill, void *ctx);
/* For a cli_fill_fn: write @p text (@p len bytes, malloc'd by a writer that
 * returns NULL when out of memory) to @p fp and free it. ETP_OK, ETP_E_NOMEM
 * or ETP_E_IO with @p err set. */
etp_status cli_put_text(FILE *fp, char *text, size_t len, etp_error *err);
/* "etprof VERB ARGS..." as typed, for run_metadata.json, an argument with
 * blanks or quotes in single quotes and any password of a database URL
 * (--db) replaced by "***": a bundle never carries one. Malloc'd; NULL when
 * out of memory. */
char *cli_join_command(const char *verb, int argc, char **argv);
/* Show DIR/model_explorer/index.html in the desktop's browser (xdg-open),
 * or say why not. */
void cli_open_page(const char *dir);
/* Print "etprof: <message>" and a hint to stderr; return ETP_EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Print "etprof: <message>" to stderr; return ETP_EXIT_INPUT. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* After getopt_long() returned '?' (main() turns getopt's own messages off):
 * one line naming the option that is unknown or lacks its value; ETP_EXIT_USAGE. */
int cli_bad_option(const char *cmd, char **argv);
/* --source-unit / --unit / --cpu-hz, shared by inspect and analyze. */
typedef struct cli_units {
    int source, target;         /* etp_unit */
    int source_given;
    double cpu_hz;
} cli_units;
/* Handle one of the unit options (@p opt is its name without dashes).
 * Returns 0, or ETP_EXIT_USAGE after printing why. */
int cli_units_option(const char *cmd, cli_units *u, const char *opt, const char *val);
/* Check the combination once all options are read; 0 or ETP_EXIT_USAGE. */
int cli_units_check(const char *cmd, const cli_units *u);
/* Parse a non-negative integer option value; -1 on error. */
long long cli_parse_count(const char *s);
/* A command's input files (cli_inputs.c): positional ones sorted by their
 * bytes, in any order; --etdump/--pte/--etrecord/--log ones checked to be of
 * that kind. Paths are argv's. */
typedef enum cli_input_role { CLI_IN_ETDUMP = 0, CLI_IN_PTE, CLI_IN_ETRECORD, CLI_IN_LOG, CLI_IN_COUNT } cli_input_role;
#define CLI_ACCEPT(r) (1u << (r))
typedef struct cli_inputs {
    const char *path[CLI_IN_COUNT];
    unsigned explicit_mask;     /* roles given with their option (checked by cli_inputs_check) */
} cli_inputs;
/* Sort positional @p path into @p in by its bytes; @p accept is a mask of
 * CLI_ACCEPT(role). ETP_EXIT_OK, or the status after printing one line: a file
 * of a kind the command does not take, or unreadable, is ETP_EXIT_INPUT; two
 * files of one kind are ETP_EXIT_USAGE. */
int cli_inputs_add(const char *cmd, cli_inputs *in, const char *path, unsigned accept);
/* Record @p path given with the option of @p role (ETP_EXIT_USAGE when another
 * file already has that role). */
int cli_inputs_set(const char *cmd, cli_inputs *in, cli_input_role role, const char *path);
/* Check every file given with an option is of its option's kind; ETP_EXIT_OK or
 * ETP_EXIT_INPUT after printing what the file is instead. */
int cli_inputs_check(const cli_inputs *in);
/* ETP_EXIT_OK when @p role was given. Otherwise: when other files were, one line
 * saying what the first is instead (ETP_EXIT_INPUT: "run.pte is a program, not an
 * ETDump"); when none was, a usage error showing @p usage (ETP_EXIT_USAGE). */
int cli_inputs_require(const char *cmd, const cli_inputs *in, cli_input_role role, const char *usage);
/* For inputs of raw bytes (a debug buffer), which have no identifier: refuse
 * @p path when its bytes say it is an ETDump, program or ETRecord ("run.etdp
 * is an ETDump, not a debug buffer (--debug-buffer)"). ETP_EXIT_OK or ETP_EXIT_INPUT
 * after printing why. */
int cli_input_not_executorch(const char *path, const char *what_it_is, const char *option);
/* Print the issue code registry as Markdown (issue_codes.c): the analysis's
 * codes, then the diff's; docs/issue-codes.md is this output. */
void cli_list_issue_codes(void);
/* `analyze --list-finding-codes`: the finding registry as Markdown. */
void cli_list_finding_codes(void);
/* Back the heap with huge pages, sized from the input files among @p argv
 * (NULL-terminated), and make malloc reuse freed memory rather than ask the
 * kernel for more (see malloc_tuning.c). Call before any thread starts. */
void cli_tune_malloc(char **argv);
/* Progress on stderr for steps that take a while (cli_progress.c): one
 * line, "etprof: LABEL... N%", redrawn in place at most 10 times a second
 * and cleared by cli_progress_done() (also before any error or warning).
 * Nothing is printed unless cli_progress_init() found stderr to be a
 * terminal and @p quiet 0. Not thread-safe: call from the main thread. */
void cli_progress_init(int quiet);
/* Show @p label (a string that outlives the step), replacing any earlier. */
void cli_progress_start(const char *label);
/* The fraction (0..1) of the current step done. */
void cli_progress_update(double fraction);
/* Clear the line. */
void cli_progress_done(void);
/* Whether a command should free its inputs and results before it returns
 * (1 under sanitizers or ETPROF_FREE_AT_EXIT=1), or leave them to exit. */
int cli_free_before_exit(void);

#endif
