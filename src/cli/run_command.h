/* run_command.h - what `etprof run` reads from the runner's command line:
 * the wrappers in front of it (time, taskset, nice, adb shell, ...), which
 * runner it is, and the flags that name its program, ETDump, debug buffer,
 * method, test case and execution count, with the runner's own defaults
 * where it is one of ExecuTorch's (../shared/fixtures/real-runs/
 * *_flags.txt list them). */
#ifndef ETP_CLI_RUN_COMMAND_H
#define ETP_CLI_RUN_COMMAND_H

/* The runners whose flags and defaults are known. */
typedef enum run_runner_kind {
    RUN_RUNNER_OTHER = 0,    /* flags read as given; no defaults */
    RUN_RUNNER_EXECUTOR,     /* examples/portable/executor_runner (any build) */
    RUN_RUNNER_EXAMPLE,      /* examples/devtools/example_runner (bundled programs) */
} run_runner_kind;

/* Where a path came from: the runner's flag, or its default. */
typedef enum run_source { RUN_FROM_NONE = 0, RUN_FROM_FLAG, RUN_FROM_DEFAULT } run_source;

#define RUN_MAX_WRAPPERS 8

typedef struct run_command {
    int runner_index;              /* argv index of the runner program (after the wrappers) */
    const char *runner;            /* argv[runner_index] */
    run_runner_kind kind;
    int remote;                    /* adb: the runner runs on a device */
    int wrapper_count;
    const char *wrappers[RUN_MAX_WRAPPERS]; /* base names, outermost first */
    /* Pointers into argv (or the static defaults); owned strings for adb
     * (flags inside one shell string) are in owned[]. */
    const char *program, *etdump, *debug_output, *method, *testset_idx, *num_executions;
    int testset_idx_given;        /* --testset_idx was on the command line (else a default) */
    const char *program_flag;      /* "--model_path" or "--bundled_program_path" */
    run_source program_from, etdump_from, debug_from;
    char *owned[6];
} run_command;

/* Read @p argv (@p argc words: the runner command after `--`). Never fails:
 * what it cannot tell stays NULL. Release with run_command_free(). */
void run_command_read(char **argv, int argc, run_command *rc);
void run_command_free(run_command *rc);

/* The runner kind's name ("executor_runner", "example_runner", "other"). */
const char *run_runner_kind_name(run_runner_kind k);

#endif
