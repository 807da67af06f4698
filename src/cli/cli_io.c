/* cli_io.c - how the commands write their output files and turn a failed
 * library call into an exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_fail_status(etp_status s, const etp_error *err)
{
    cli_fail(err);
    return s == ETP_E_USAGE ? EXIT_USAGE : EXIT_INPUT;
}

/* The result of a failed @p fill: a write error is the output file's, any
 * other failure is what @p err says (a bad input found while writing). */
static int fill_failed(const char *path, etp_status s, const etp_error *err)
{
    if (s == ETP_E_IO)
        return cli_error("%s: write error", path);
    return cli_fail_status(s, err);
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
    return EXIT_OK;
}

int cli_write_atomic(const char *path, cli_fill_fn fill, void *ctx)
{
    if (!strcmp(path, "-"))
        return write_stdout(fill, ctx);
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return cli_error("out of memory");
    /* Beside the target, so the rename stays on one file system. */
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return cli_error("%s: cannot create: %s", path, strerror(e));
    }
    /* mkstemp makes the file private; give it the mode fopen would have. */
    mode_t mask = umask(022);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask)) {
        /* Keep the private mode: the output is still written. */
    }
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return cli_error("%s: cannot open: %s", path, strerror(e));
    }
    etp_error err;
    etp_error_clear(&err);
    etp_status s = fill(fp, ctx, &err);
    int write_failed = fflush(fp) != 0 || fsync(fileno(fp)) != 0;
    write_failed |= fclose(fp) != 0;
    int rc = EXIT_OK;
    if (s)
        rc = fill_failed(path, s, &err);
    else if (write_failed)
        rc = cli_error("%s: write error", path);
    else if (rename(tmp, path))
        rc = cli_error("%s: cannot write: %s", path, strerror(errno));
    if (rc != EXIT_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}
