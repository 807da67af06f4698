/* run.c - `etprof run [analysis options] -o DIR -- RUNNER ARGS...`: run the
 * runner (fork/exec, no shell), show its output live and keep it, measure
 * the child with wait4 (wall, user/system CPU, peak RSS), find the program
 * and the ETDump from what it ran, then analyse and publish as `analyze`
 * does with the captured output as a --log, the measurements as a second
 * --log (`etprof-run:` lines) and the capture inside the bundle. */
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_logs.h"
#include "cli/run_command.h"
#include "etprof/runner_log.h"
#include "util/str.h"

#define TAIL_LINES 15
#define MAX_REPEAT 1000

static void help(void)
{
    printf("usage: etprof run [analyze options] -o DIR [--repeat K] [--timeout S]\n"
           "                  -- RUNNER [ARGS...]\n\n"
           "Run an ExecuTorch runner (no shell), show and keep its output, measure it with\n"
           "wait4 (wall time, user/system CPU, peak RSS), then analyse and publish as\n"
           "`etprof analyze -o DIR` does: the program is --pte (or --companion-model) or the\n"
           "runner's --model_path, the ETDump its --etdump_path or the \"ETDump written to\n"
           "file\" line, the debug buffer its --debug_output_path when the run wrote it\n"
           "(unless --debug-buffer is given). The runner's output is a --log of the analysis\n"
           "and is kept in the bundle as logs/runner.log; the measurements are reported as\n"
           "process.* device figures.\n\n"
           "  --repeat K     run K times (process wall/CPU/RSS over the K runs; the last\n"
           "                 run's output and ETDump are analysed)\n"
           "  --timeout S    kill the runner's process group after S seconds (exit 1)\n"
           "  (any other option before `--` is passed to analyze: see `etprof analyze --help`)\n\n"
           "Over adb (RUNNER is adb) the host's peak RSS is adb's, not the model's: it is\n"
           "reported unavailable unless the device ran the runner under `time -v`; the\n"
           "ETDump is fetched with `adb pull` into the working directory (under its device\n"
           "file name), and --pte must name the program on the host.\n"
           "A runner that fails (non-zero exit, signal, timeout, no ETDump) -> exit 1 with\n"
           "its last lines, no bundle.\n"
           "Exit status: 0 published, 1 failed runner or bad input, 2 usage.\n");
}

/* The last lines of the runner's output, for the failure message. */
typedef struct tail {
    char *buf;
    size_t len, cap;
} tail;

static void tail_add(tail *t, const char *s, size_t n)
{
    if (t->len + n > t->cap) {
        size_t cap = (t->len + n) * 2 + 4096;
        char *nb = realloc(t->buf, cap);
        if (!nb)
            return;
        t->buf = nb;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    if (t->len > ((size_t)1 << 20)) { /* keep the last 512 KiB */
        size_t drop = t->len - ((size_t)1 << 19);
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
    }
}

static void tail_print(const tail *t)
{
    size_t start = t->len, lines = 0;
    while (start > 0) {
        if (t->buf[start - 1] == '\n' && start != t->len && ++lines == TAIL_LINES)
            break;
        start--;
    }
    fprintf(stderr, "etprof: the runner's last lines:\n");
    fwrite(t->buf + start, 1, t->len - start, stderr);
    if (t->len && t->buf[t->len - 1] != '\n')
        fputc('\n', stderr);
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A stream's line not yet complete: the log receives whole lines only, so
 * the runner's stdout and stderr cannot interleave inside a line (Python's
 * print, for one, writes a line's text and its newline separately). */
typedef struct partial_line {
    char *buf;
    size_t len, cap;
} partial_line;

/* A line longer than this goes to the log unfinished rather than held. */
#define PARTIAL_MAX ((size_t)1 << 20)

static void log_out(int log_fd, tail *t, const char *s, size_t n)
{
    write_all(log_fd, s, n);
    tail_add(t, s, n);
}

/* Send the whole lines of @p s (after what @p pl holds) to the log; keep the rest. */
static void log_lines(int log_fd, tail *t, partial_line *pl, const char *s, size_t n)
{
    const char *nl = NULL; /* the last newline of s */
    for (size_t i = n; i > 0 && !nl; i--)
        if (s[i - 1] == '\n')
            nl = s + i - 1;
    if (!nl && pl->len + n <= PARTIAL_MAX) {
        if (pl->len + n > pl->cap) {
            size_t cap = (pl->len + n) * 2;
            char *nb = realloc(pl->buf, cap);
            if (nb) {
                pl->buf = nb;
                pl->cap = cap;
            }
        }
        if (pl->len + n <= pl->cap) {
            memcpy(pl->buf + pl->len, s, n);
            pl->len += n;
            return;
        }
    }
    size_t whole = nl ? (size_t)(nl - s) + 1 : n; /* no newline: flushed as it is */
    if (pl->len)
        log_out(log_fd, t, pl->buf, pl->len);
    pl->len = 0;
    log_out(log_fd, t, s, whole);
    if (whole < n)
        log_lines(log_fd, t, pl, s + whole, n - whole);
}

typedef struct run_result {
    int status;          /* wait status */
    int timed_out;
    double wall_s, user_s, sys_s;
    long max_rss_kb;
} run_result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @p argv once: output live to our stdout/stderr and into @p log_fd (and @p t). */
static int run_once(char **argv, double timeout_s, int log_fd, tail *t, run_result *r)
{
    int po[2], pe[2];
    if (pipe(po) || pipe(pe))
        return cli_error("cannot create pipes: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return cli_error("cannot fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0); /* its own process group: --timeout kills all of it */
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]);
        close(pe[0]);
        close(po[1]);
        close(pe[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "etprof run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first */
    close(po[1]);
    close(pe[1]);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[65536];
    memset(r, 0, sizeof *r);
    int killed = 0;
    partial_line pending[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    while (open_fds) {
        int wait_ms = -1;
        if (timeout_s > 0) {
            double left = t0 + timeout_s - now_s();
            if (left <= 0) {
                if (!killed) {
                    kill(-pid, SIGKILL);
                    killed = 1;
                    r->timed_out = 1;
                }
                wait_ms = 200; /* drain what is left, then give up on the pipes */
            } else {
                wait_ms = (int)(left * 1000) + 1;
            }
        }
        int n = poll(fds, 2, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && killed)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t k = read(fds[i].fd, buf, sizeof buf);
            if (k <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            write_all(i ? STDERR_FILENO : STDOUT_FILENO, buf, (size_t)k);
            log_lines(log_fd, t, &pending[i], buf, (size_t)k);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (fds[i].fd >= 0)
            close(fds[i].fd);
        if (pending[i].len) /* a last line without its newline */
            log_out(log_fd, t, pending[i].buf, pending[i].len);
        free(pending[i].buf);
    }
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &r->status, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (w < 0)
        return cli_error("wait4: %s", strerror(errno));
    kill(-pid, SIGKILL); /* leftovers of its group (a runner's own children) */
    r->wall_s = now_s() - t0;
    r->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    r->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    r->max_rss_kb = ru.ru_maxrss; /* KiB on Linux */
    return ETP_EXIT_OK;
}

/* Analysis options before `--` that take a value (to tell values from flags). */
static int takes_value(const char *a)
{
    static const char *const with[] = {"--pte", "--companion-model", "--method", "--source-unit", "--unit", "--cpu-hz",
                                       "--top", "-o", "--output", "--format", "--model-explorer",
                                       "--log", "--etdump", "--debug-buffer", "--label", "--db", "--finding", "--skip-executions",
                                       "--rank-by", "--fail-on", "--etrecord", "--testset", "--rtol", "--atol", NULL};
    for (int i = 0; with[i]; i++)
        if (!strcmp(a, with[i]))
            return 1;
    return 0;
}

typedef struct run_plan {
    int repeat;
    double timeout_s;
    int nargs;            /* analyze options kept */
    char **args;
    const char *pte, *etdump, *outdir;
    int has_debug_buffer; /* --debug-buffer given: the runner's debug output is not looked for */
    int has_method;       /* --method given: the runner's --method_name is not passed on */
    int has_testset;      /* --testset given: the runner's --testset_idx is not passed on */
    char **runner;
    int runner_argc;
} run_plan;

static int parse(int argc, char **argv, run_plan *p)
{
    int dd = -1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            dd = i;
            break;
        }
    for (int i = 1; i < (dd < 0 ? argc : dd); i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            help();
            return -1;
        }
    if (dd < 0 || dd + 1 >= argc)
        return cli_usage("run", "give the runner after `--`: etprof run -o DIR -- RUNNER ARGS...");
    p->repeat = 1;
    p->args = calloc((size_t)argc + 16, sizeof *p->args);
    if (!p->args)
        return cli_error("out of memory");
    for (int i = 1; i < dd; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--repeat") || !strcmp(a, "--timeout")) && i + 1 < dd) {
            const char *v = argv[++i];
            char *end;
            double x = strtod(v, &end);
            if (*end || !(x > 0))
                return cli_usage("run", "%s needs a positive number, got '%s'", a, v);
            if (a[2] == 'r') {
                if (x != (int)x || x > MAX_REPEAT)
                    return cli_usage("run", "--repeat needs a count from 1 to %d, got '%s'", MAX_REPEAT, v);
                p->repeat = (int)x;
            } else {
                p->timeout_s = x;
            }
            continue;
        }
        if (!strcmp(a, "--etdump"))
            return cli_usage("run", "--etdump comes from the runner (its --etdump_path)");
        if (takes_value(a) && i + 1 < dd) {
            if (!strcmp(a, "--pte") || !strcmp(a, "--companion-model")) /* the same (analyze) */
                p->pte = argv[i + 1];
            if (!strcmp(a, "-o") || !strcmp(a, "--output"))
                p->outdir = argv[i + 1];
            if (!strcmp(a, "--debug-buffer"))
                p->has_debug_buffer = 1;
            if (!strcmp(a, "--method"))
                p->has_method = 1;
            if (!strcmp(a, "--testset"))
                p->has_testset = 1;
            p->args[p->nargs++] = argv[i++];
        }
        p->args[p->nargs++] = argv[i];
    }
    if (!p->outdir)
        return cli_usage("run", "-o DIR is required");
    p->runner = argv + dd + 1;
    p->runner_argc = argc - dd - 1;
    return ETP_EXIT_OK;
}

/* Whether @p path exists and was modified at or after @p t (file times are
 * coarse: a few ms of slack). */
static int written_since(const char *path, const struct timespec *t)
{
    struct stat st;
    if (stat(path, &st))
        return 0;
    double mt = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
    return mt >= (double)t->tv_sec + t->tv_nsec / 1e9 - 0.05;
}

/* Fetch @p remote from the device with the same adb (and its -s SERIAL). */
static int adb_pull(char **runner, int rargc, const char *remote, const char *local)
{
    char *av[8];
    int k = 0;
    av[k++] = runner[0];
    for (int i = 1; i + 1 < rargc && k < 3; i++)
        if (!strcmp(runner[i], "-s")) {
            av[k++] = runner[i];
            av[k++] = runner[i + 1];
            break;
        }
    av[k++] = "pull";
    av[k++] = (char *)remote;
    av[k++] = (char *)local;
    av[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO);
        execvp(av[0], av);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return cli_error("adb pull %s failed: the runner wrote no ETDump there", remote);
    return ETP_EXIT_OK;
}

/* What the bundle records about the runner (run_metadata.json "runner"):
 * which one, through which wrappers, and where its program, ETDump and
 * debug buffer came from. */
static char *runner_json(const run_command *rc, const run_plan *p, const char *etdump_src)
{
    json_t *o = json_object(), *w = json_array();
    for (int i = 0; i < rc->wrapper_count; i++)
        json_array_append_new(w, json_string(rc->wrappers[i]));
    static const char *const from[] = {NULL, "flag", "default"};
    json_object_set_new(o, "program", json_string(rc->runner));
    json_object_set_new(o, "kind", json_string(run_runner_kind_name(rc->kind)));
    json_object_set_new(o, "wrappers", w);
    json_object_set_new(o, "program_file", rc->program && !p->pte ? json_string(rc->program) : json_null());
    json_object_set_new(o, "program_file_from",
                        p->pte ? json_string("--pte") : rc->program_from ? json_string(rc->program_from ==
                                                                                   RUN_FROM_FLAG
                                                                               ? rc->program_flag
                                                                               : "default")
                                                       : json_null());
    json_object_set_new(o, "etdump_from", json_string(etdump_src));
    json_object_set_new(o, "debug_output", rc->debug_output ? json_string(rc->debug_output) : json_null());
    json_object_set_new(o, "debug_output_from", rc->debug_from ? json_string(from[rc->debug_from]) : json_null());
    json_object_set_new(o, "method_name", rc->method ? json_string(rc->method) : json_null());
    json_object_set_new(o, "testset_idx", rc->testset_idx ? json_string(rc->testset_idx) : json_null());
    json_object_set_new(o, "num_executions", rc->num_executions ? json_string(rc->num_executions) : json_null());
    json_object_set_new(o, "repeat", json_integer(p->repeat));
    json_object_set_new(o, "remote", json_boolean(rc->remote));
    char *t = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    return t;
}

int cmd_run(int argc, char **argv)
{
    run_plan p;
    memset(&p, 0, sizeof p);
    int rc = parse(argc, argv, &p);
    if (rc) {
        free(p.args);
        return rc < 0 ? ETP_EXIT_OK : rc;
    }
    run_command cmd;
    run_command_read(p.runner, p.runner_argc, &cmd);
    int remote = cmd.remote;
    /* The program: --pte, else the runner's --model_path or
     * --bundled_program_path (or its default), checked before running it. */
    const char *model = p.pte || remote ? NULL : cmd.program;
    if (!p.pte && (!model || remote)) {
        free(p.args);
        run_command_free(&cmd);
        return cli_usage("run", remote ? "over adb, give --pte PROGRAM (the program on this host)"
                                       : "give --pte PROGRAM: the runner has no --model_path or "
                                         "--bundled_program_path");
    }
    if (model && cmd.program_from == RUN_FROM_DEFAULT && access(model, R_OK)) {
        rc = cli_usage("run", "give --pte PROGRAM or the runner's %s: without it %s reads %s, which is "
                              "not here",
                       cmd.program_flag, run_runner_kind_name(cmd.kind), model);
        free(p.args);
        run_command_free(&cmd);
        return rc;
    }
    char *command_line = cli_join_command("run", argc, argv);
    const char *tmpbase = getenv("TMPDIR");
    char dirbuf[4096];
    snprintf(dirbuf, sizeof dirbuf, "%s/etprof-run-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    char *tmpdir = mkdtemp(dirbuf);
    if (!tmpdir || !command_line) {
        free(p.args);
        free(command_line);
        run_command_free(&cmd);
        return cli_error("cannot create a temporary directory: %s", strerror(errno));
    }
    char log_path[4200], run_path[4200], pulled[4200];
    snprintf(log_path, sizeof log_path, "%s/runner.log", tmpdir);
    snprintf(run_path, sizeof run_path, "%s/run.log", tmpdir);
    snprintf(pulled, sizeof pulled, "%s/etdump.bin", tmpdir);
    char *written_copy = NULL, *rjson = NULL;
    int pulled_kept = 0; /* adb: the ETDump pulled into the working directory stays */
    const char *etdump = NULL;
    tail t = {0};
    FILE *runs = fopen(run_path, "w");
    if (!runs) {
        rc = cli_error("%s: cannot create: %s", run_path, strerror(errno));
        goto out;
    }
    if (remote)
        fprintf(runs, "etprof-run: remote adb: the host's wait4 measures adb, not the model\n");
    const char *etdump_flag = cmd.etdump;
    struct timespec started;
    clock_gettime(CLOCK_REALTIME, &started);
    for (int k = 0; k < p.repeat; k++) {
        /* Only the last run's output is the runner log analysed (the
         * runner's lines of one run); every run is measured. */
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = cli_error("%s: cannot create: %s", log_path, strerror(errno));
            goto out;
        }
        run_result r;
        /* A dump left by an earlier run must not pass for this run's. */
        if (etdump_flag && !remote)
            unlink(etdump_flag);
        clock_gettime(CLOCK_REALTIME, &started);
        rc = run_once(p.runner, p.timeout_s, fd, &t, &r);
        close(fd);
        if (rc)
            goto out;
        if (r.timed_out) {
            tail_print(&t);
            rc = cli_error("%s: timed out after %g s (its process group was killed); no bundle",
                           cmd.runner, p.timeout_s);
            goto out;
        }
        if (WIFSIGNALED(r.status)) {
            tail_print(&t);
            rc = cli_error("%s: killed by signal %d (run %d of %d); no bundle", cmd.runner,
                           WTERMSIG(r.status), k + 1, p.repeat);
            goto out;
        }
        if (WEXITSTATUS(r.status)) {
            tail_print(&t);
            rc = cli_error("%s: exited with status %d (run %d of %d); no bundle", cmd.runner,
                           WEXITSTATUS(r.status), k + 1, p.repeat);
            goto out;
        }
        if (remote)
            fprintf(runs, "etprof-run: exit=0 wall_s=%.6f user_s=%.6f sys_s=%.6f max_rss_kb=unavailable\n",
                    r.wall_s, r.user_s, r.sys_s);
        else
            fprintf(runs, "etprof-run: exit=0 wall_s=%.6f user_s=%.6f sys_s=%.6f max_rss_kb=%ld\n", r.wall_s,
                    r.user_s, r.sys_s, r.max_rss_kb);
    }
    if (fclose(runs)) {
        runs = NULL;
        rc = cli_error("%s: write error", run_path);
        goto out;
    }
    runs = NULL;
    /* The ETDump: --etdump_path, else the "ETDump written to file" line,
     * else the runner's default. */
    etp_runner_log *rl = NULL;
    etp_error err;
    etp_error_clear(&err);
    const char *written = NULL;
    if (etp_runner_log_open(log_path, &rl, &err) == ETP_OK && rl->etdump_name)
        written = written_copy = etp_strdup(rl->etdump_name);
    etp_runner_log_free(rl);
    const char *src = cmd.etdump_from == RUN_FROM_FLAG ? etdump_flag : written ? written : etdump_flag;
    const char *src_how = cmd.etdump_from == RUN_FROM_FLAG ? "--etdump_path"
                          : written                       ? "the runner's \"ETDump written to file\" line"
                          : src                           ? "the runner's default --etdump_path"
                                                          : NULL;
    if (!src) {
        tail_print(&t);
        rc = cli_error("%s: no ETDump: the runner has no --etdump_path and printed no \"ETDump written "
                       "to file\" line; no bundle",
                       cmd.runner);
        goto out;
    }
    if (remote) {
        /* Into the working directory under the device file's name, as
         * `adb pull REMOTE` does: the bundle then records a file the user
         * has (and the runner log's name for it still matches). */
        const char *base = strrchr(src, '/');
        base = base ? base + 1 : src;
        if (!*base || base[0] == '.' || strlen(base) >= 200) {
            rc = cli_error("%s: the ETDump's device path %s has no usable file name; no bundle", cmd.runner, src);
            goto out;
        }
        snprintf(pulled, sizeof pulled, "%s", base);
        rc = adb_pull(p.runner + cmd.runner_index, p.runner_argc - cmd.runner_index, src, pulled);
        etdump = pulled;
        pulled_kept = 1;
    } else {
        etdump = src;
        /* A file older than the last run is an earlier run's: not this one's. */
        if (!written_since(etdump, &started)) {
            tail_print(&t);
            rc = cli_error("%s: the runner did not write its ETDump %s (%s); no bundle", cmd.runner, etdump,
                           src_how);
        }
    }
    if (rc)
        goto out;
    /* analyze [options] --etdump E [--pte P] [--method M] --log runner.log --log run.log */
    char **av = p.args;
    memmove(av + 1, av, (size_t)p.nargs * sizeof *av);
    av[0] = "analyze";
    int n = p.nargs + 1;
    av[n++] = "--etdump";
    av[n++] = (char *)etdump;
    if (model) {
        av[n++] = "--pte";
        av[n++] = (char *)model;
    }
    if (cmd.method && *cmd.method && !p.has_method) {
        av[n++] = "--method";
        av[n++] = (char *)cmd.method;
    }
    /* The test case a bundled program's runner ran (its --testset_idx, or
     * example_runner's documented default): what its logged outputs are
     * checked against. */
    if (cmd.testset_idx && *cmd.testset_idx && !p.has_testset) {
        av[n++] = "--testset";
        av[n++] = (char *)cmd.testset_idx;
        cli_run_testset_basis = cmd.testset_idx_given ? "the runner's --testset_idx"
                                                      : "example_runner's default --testset_idx 0";
    }
    av[n++] = "--log";
    av[n++] = log_path;
    av[n++] = "--log";
    av[n++] = run_path;
    /* The debug buffer: the runner's --debug_output_path (example_runner
     * writes the outputs' bytes there), when this run wrote it. */
    const char *dbg = p.has_debug_buffer || remote ? NULL : cmd.debug_output;
    if (dbg && written_since(dbg, &started)) {
        av[n++] = "--debug-buffer";
        av[n++] = (char *)dbg;
    } else {
        dbg = NULL;
    }
    av[n] = NULL;
    rjson = runner_json(&cmd, &p, src_how);
    cli_run_embed_log = log_path;
    cli_run_embed_measurements = run_path;
    cli_run_command_line = command_line;
    cli_run_runner_json = rjson;
    rc = cmd_analyze(n, av);
    cli_run_embed_log = NULL;
    cli_run_embed_measurements = NULL;
    cli_run_command_line = NULL;
    cli_run_runner_json = NULL;
    cli_run_testset_basis = NULL;
out:
    if (runs)
        fclose(runs);
    free(t.buf);
    free(written_copy);
    free(rjson);
    free(command_line);
    run_command_free(&cmd);
    unlink(log_path);
    unlink(run_path);
    if (!pulled_kept)
        unlink(pulled);
    rmdir(tmpdir);
    free(p.args);
    return rc;
}
