/* atomic_file.c - temporary file beside the target, fsync, rename (see
 * atomic_file.h). */
#include "util/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A target that exists and is not a regular file or a directory (/dev/null,
 * /dev/stdout's pipe, a FIFO, a terminal): written in place. Renaming a
 * temporary over it would replace the device with a file. */
static int write_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

etp_status etp_atomic_open(etp_atomic_file *f, const char *path, etp_error *err)
{
    f->fp = NULL;
    f->tmp = NULL;
    f->path = path;
    if (write_in_place(path)) {
        if (!(f->fp = fopen(path, "w")))
            return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s", strerror(errno));
        return ETP_OK;
    }
    size_t n = strlen(path);
    f->tmp = malloc(n + 16);
    if (!f->tmp)
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    snprintf(f->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot create: %s", strerror(e));
    }
    /* mkstemp makes the file private; give it the mode fopen would have.
     * If that fails the file keeps its private mode and is still written. */
    mode_t mask = umask(022);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s", strerror(e));
    }
    return ETP_OK;
}

etp_status etp_atomic_commit(etp_atomic_file *f, etp_error *err)
{
    if (!f->tmp) { /* written in place: nothing to sync or rename */
        int failed = fflush(f->fp) != 0, e = errno;
        if (fclose(f->fp) != 0 && !failed) {
            failed = 1;
            e = errno;
        }
        f->fp = NULL;
        return failed ? etp_error_set(err, ETP_E_IO, f->path, ETP_NO_OFFSET, "write error: %s", strerror(e))
                      : ETP_OK;
    }
    int failed = fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0, e = errno;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    f->fp = NULL;
    etp_status s = ETP_OK;
    if (failed)
        s = etp_error_set(err, ETP_E_IO, f->path, ETP_NO_OFFSET, "write error: %s", strerror(e));
    else if (rename(f->tmp, f->path))
        s = etp_error_set(err, ETP_E_IO, f->path, ETP_NO_OFFSET, "cannot write: %s",
                          strerror(errno));
    if (s)
        unlink(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    return s;
}

void etp_atomic_abort(etp_atomic_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    if (f->tmp)
        unlink(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
}
