/* run_command.c - see run_command.h. */
#include "cli/run_command.h"

#include <stdlib.h>
#include <string.h>

static const char *base_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* A program that runs the rest of its command line: how to step over its
 * own options. @c value_opts lists the short and long options that take a
 * separate value; @c operands is how many words follow the options before
 * the command (taskset's mask, timeout's duration, chrt's priority). */
typedef struct wrapper {
    const char *name;
    const char *const *value_opts;
    int operands;
} wrapper;

static const char *const TIME_V[] = {"-o", "--output", "-f", "--format", NULL};
static const char *const NONE_V[] = {NULL};
static const char *const NICE_V[] = {"-n", "--adjustment", NULL};
static const char *const IONICE_V[] = {"-c", "--class", "-n", "--classdata", "-p", "-P", "-u", NULL};
static const char *const ENV_V[] = {"-u", "--unset", "-C", "--chdir", "-S", NULL};
static const char *const STDBUF_V[] = {"-i", "-o", "-e", NULL};
static const char *const NUMACTL_V[] = {"-C", "-N", "-m", "-p", "-i", "-l", NULL};
static const char *const TIMEOUT_V[] = {"-s", "--signal", "-k", "--kill-after", NULL};
static const char *const CHRT_V[] = {NULL};

static const wrapper WRAPPERS[] = {
    {"time", TIME_V, 0},    {"taskset", NONE_V, 1},       {"nice", NICE_V, 0},
    {"ionice", IONICE_V, 0}, {"env", ENV_V, 0},           {"stdbuf", STDBUF_V, 0},
    {"numactl", NUMACTL_V, 0}, {"timeout", TIMEOUT_V, 1}, {"chrt", CHRT_V, 1},
    {"nohup", NONE_V, 0},   {"sudo", NONE_V, 0},
};

static const wrapper *wrapper_of(const char *word)
{
    const char *b = base_of(word);
    for (size_t i = 0; i < sizeof WRAPPERS / sizeof WRAPPERS[0]; i++)
        if (!strcmp(b, WRAPPERS[i].name))
            return &WRAPPERS[i];
    return NULL;
}

static int takes_value(const wrapper *w, const char *opt)
{
    for (int i = 0; w->value_opts[i]; i++)
        if (!strcmp(opt, w->value_opts[i]))
            return 1;
    return 0;
}

/* Index of the word after wrapper @p w's options and operands at @p i. */
static int step_over(const wrapper *w, char **argv, int argc, int i)
{
    i++;
    while (i < argc && argv[i][0] == '-' && argv[i][1]) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        /* taskset -p PID has no command; -c LIST is the one operand */
        int v = takes_value(w, argv[i]) && !strchr(argv[i], '=');
        i += v ? 2 : 1;
    }
    if (!strcmp(w->name, "env"))
        while (i < argc && strchr(argv[i], '=') && argv[i][0] != '-')
            i++; /* VAR=VALUE */
    return i + w->operands;
}

static run_runner_kind kind_of(const char *word)
{
    const char *b = base_of(word);
    if (strstr(b, "example_runner"))
        return RUN_RUNNER_EXAMPLE;
    if (strstr(b, "executor_runner"))
        return RUN_RUNNER_EXECUTOR;
    return RUN_RUNNER_OTHER;
}

const char *run_runner_kind_name(run_runner_kind k)
{
    return k == RUN_RUNNER_EXECUTOR ? "executor_runner" : k == RUN_RUNNER_EXAMPLE ? "example_runner" : "other";
}

/* gflags spellings: --name V, --name=V, -name V, -name=V. */
static const char *flag_value(char **argv, int argc, int from, const char *name)
{
    for (int i = from; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-')
            continue;
        a += a[1] == '-' ? 2 : 1;
        size_t n = strlen(name);
        if (strncmp(a, name, n))
            continue;
        if (a[n] == '=')
            return a + n + 1;
        if (!a[n] && i + 1 < argc)
            return argv[i + 1];
    }
    return NULL;
}

/* In an adb command the runner's flags may sit inside one "shell" string:
 * the value after "--name " or "--name=" there (owned). */
static char *flag_in_strings(char **argv, int argc, int from, const char *name)
{
    size_t n = strlen(name);
    for (int i = from; i < argc; i++) {
        for (const char *p = strstr(argv[i], name); p; p = strstr(p + 1, name)) {
            if (p == argv[i] || p[-1] != '-' || (p[n] != '=' && p[n] != ' '))
                continue;
            const char *v = p + n + 1;
            size_t k = strcspn(v, " ;&|'\"");
            if (k)
                return strndup(v, k);
        }
    }
    return NULL;
}

/* Find flag @p name; adb: also inside the shell strings. */
static const char *find_flag(run_command *rc, char **argv, int argc, const char *name)
{
    const char *v = flag_value(argv, argc, rc->runner_index + 1, name);
    if (v || !rc->remote)
        return v;
    for (int k = 0; k < 6; k++)
        if (!rc->owned[k]) {
            rc->owned[k] = flag_in_strings(argv, argc, rc->runner_index, name);
            return rc->owned[k];
        }
    return NULL;
}

/* adb [-s SERIAL | -d | -e | -t ID ...] shell ...: the index of the first
 * word of the remote command, and its runner kind read from any word. */
static int adb_command(char **argv, int argc, int i, run_runner_kind *kind)
{
    int j = i + 1;
    while (j < argc && argv[j][0] == '-')
        j += (!strcmp(argv[j], "-s") || !strcmp(argv[j], "-t") || !strcmp(argv[j], "-H") || !strcmp(argv[j], "-P"))
                 ? 2
                 : 1;
    if (j < argc && !strcmp(argv[j], "shell"))
        j++;
    *kind = RUN_RUNNER_OTHER;
    for (int k = j; k < argc && *kind == RUN_RUNNER_OTHER; k++) {
        /* "cd /data/local/tmp && ./executor_runner --model_path m.pte": each word */
        char *copy = strdup(argv[k]);
        for (char *s = copy ? strtok(copy, " ;&|") : NULL; s; s = strtok(NULL, " ;&|"))
            if ((*kind = kind_of(s)) != RUN_RUNNER_OTHER)
                break;
        free(copy);
    }
    return j < argc ? j : i;
}

void run_command_read(char **argv, int argc, run_command *rc)
{
    memset(rc, 0, sizeof *rc);
    int i = 0;
    const wrapper *w;
    while (i < argc && (w = wrapper_of(argv[i])) != NULL) {
        if (rc->wrapper_count < RUN_MAX_WRAPPERS)
            rc->wrappers[rc->wrapper_count++] = w->name;
        i = step_over(w, argv, argc, i);
    }
    if (i >= argc)
        i = 0; /* only wrappers: read the whole command as the runner's */
    rc->runner_index = i;
    rc->runner = argv[i];
    if (!strcmp(base_of(argv[i]), "adb")) {
        rc->remote = 1;
        if (rc->wrapper_count < RUN_MAX_WRAPPERS)
            rc->wrappers[rc->wrapper_count++] = "adb";
        adb_command(argv, argc, i, &rc->kind);
    } else {
        rc->kind = kind_of(argv[i]);
    }
    rc->program_flag = "--model_path";
    rc->program = find_flag(rc, argv, argc, "model_path");
    if (!rc->program && (rc->program = find_flag(rc, argv, argc, "bundled_program_path")) != NULL)
        rc->program_flag = "--bundled_program_path";
    rc->etdump = find_flag(rc, argv, argc, "etdump_path");
    rc->debug_output = find_flag(rc, argv, argc, "debug_output_path");
    rc->method = find_flag(rc, argv, argc, "method_name");
    rc->testset_idx = find_flag(rc, argv, argc, "testset_idx");
    rc->testset_idx_given = rc->testset_idx != NULL;
    rc->num_executions = find_flag(rc, argv, argc, "num_executions");
    rc->program_from = rc->program ? RUN_FROM_FLAG : RUN_FROM_NONE;
    rc->etdump_from = rc->etdump ? RUN_FROM_FLAG : RUN_FROM_NONE;
    rc->debug_from = rc->debug_output ? RUN_FROM_FLAG : RUN_FROM_NONE;
    /* The runners' defaults (their --help): what they read and write when
     * the flag is left out. */
    if (rc->kind == RUN_RUNNER_EXECUTOR) {
        if (!rc->program)
            rc->program = "model.pte", rc->program_from = RUN_FROM_DEFAULT;
        if (!rc->etdump)
            rc->etdump = "model.etdump", rc->etdump_from = RUN_FROM_DEFAULT;
    } else if (rc->kind == RUN_RUNNER_EXAMPLE) {
        if (!rc->program)
            rc->program = "model_bundled.bpte", rc->program_from = RUN_FROM_DEFAULT,
            rc->program_flag = "--bundled_program_path";
        if (!rc->etdump)
            rc->etdump = "etdump.etdp", rc->etdump_from = RUN_FROM_DEFAULT;
        if (!rc->debug_output)
            rc->debug_output = "debug_output.bin", rc->debug_from = RUN_FROM_DEFAULT;
        if (!rc->testset_idx)
            rc->testset_idx = "0";
    }
}

void run_command_free(run_command *rc)
{
    for (int k = 0; k < 6; k++)
        free(rc->owned[k]);
    memset(rc, 0, sizeof *rc);
}
