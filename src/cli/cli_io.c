/* cli_io.c - how the commands write their output files and turn a failed
 * library call into an exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "etprof/store.h"
#include "util/atomic_file.h"

char *cli_join_command(const char *verb, int argc, char **argv)
{
    size_t n = strlen("etprof ") + strlen(verb) + 1;
    for (int i = 1; i < argc; i++)
        n += strlen(argv[i]) + 8; /* a space, quotes, and a short password shown as "***" */
    char *s = malloc(n);
    if (!s)
        return NULL;
    snprintf(s, n, "etprof %s", verb);
    for (int i = 1; i < argc; i++) {
        char shown[4096];
        etp_store_redact(argv[i], shown, sizeof shown);
        const char *a = strlen(argv[i]) < sizeof shown ? shown : argv[i];
        strcat(s, " ");
        int q = strpbrk(a, " \t'\"") != NULL;
        if (q)
            strcat(s, "'");
        strcat(s, a);
        if (q)
            strcat(s, "'");
    }
    return s;
}

int cli_fail_status(etp_status s, const etp_error *err)
{
    cli_fail(err);
    return (int)etp_exit_status_of(s);
}

/* The result of a failed @p fill: a write error is the output file's, any
 * other failure is what @p err says (a bad input found while writing). */
static int fill_failed(const char *path, etp_status s, const etp_error *err)
{
    if (s == ETP_E_IO) /* the writer's reason when it gave one ("...: No space left on device") */
        return cli_error("%s: %s", path, err->message[0] ? err->message : "write error");
    return cli_fail_status(s, err);
}

etp_status cli_put_text(FILE *fp, char *text, size_t len, etp_error *err)
{
    if (!text)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory writing the output");
    size_t put = fwrite(text, 1, len, fp);
    free(text);
    return put == len ? ETP_OK : etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "write error: %s", strerror(errno));
}

static int write_stdout(cli_fill_fn fill, void *ctx)
{
    etp_error err;
    etp_error_clear(&err);
    etp_status s = fill(stdout, ctx, &err);
    if (s)
        return cli_fail_status(s, &err);
    if (fflush(stdout))
        return cli_error("write error on standard output");
    return ETP_EXIT_OK;
}

int cli_write_atomic(const char *path, cli_fill_fn fill, void *ctx)
{
    if (!strcmp(path, "-"))
        return write_stdout(fill, ctx);
    etp_error err;
    etp_error_clear(&err);
    etp_atomic_file f;
    if (etp_atomic_open(&f, path, &err))
        return cli_fail(&err);
    etp_status s = fill(f.fp, ctx, &err);
    if (s) {
        etp_atomic_abort(&f);
        return fill_failed(path, s, &err);
    }
    if (etp_atomic_commit(&f, &err))
        return cli_fail(&err);
    return ETP_EXIT_OK;
}

void cli_open_page(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/model_explorer/index.html", dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "etprof: %s: no page to open\n", path);
        return;
    }
    printf("page: %s\n", path);
    if (access("/usr/bin/xdg-open", X_OK) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/usr/bin/xdg-open", "xdg-open", path, (char *)NULL);
            _exit(127);
        }
    } else {
        fprintf(stderr, "etprof: xdg-open is not installed; open the page yourself\n");
    }
}

