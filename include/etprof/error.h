/*
 * etprof/error.h - errors as data: what went wrong, in which file, and where.
 *
 * Every reader in libetprof reports failure through an etp_error filled by
 * the callee. The message is one line, suitable for
 *   etprof: FILE: message (offset N)
 *
 * An etp_error is a plain value the caller provides (no pointers, nothing
 * to free). Thread safety: every function here only touches its arguments;
 * use one etp_error per thread.
 */
#ifndef ETPROF_ERROR_H
#define ETPROF_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Error categories. ETP_OK is zero so `if (status)` tests for failure. */
typedef enum etp_status {
    ETP_OK = 0,
    ETP_E_IO,        /**< the file could not be opened or read */
    ETP_E_FORMAT,    /**< bytes do not form a valid file of the expected kind */
    ETP_E_TRUNCATED, /**< the file ends before the data it declares */
    ETP_E_LIMIT,     /**< a size, count or depth cap was exceeded */
    ETP_E_NOMEM,     /**< an allocation failed */
    ETP_E_MISMATCH,  /**< inputs are individually valid but disagree */
    ETP_E_USAGE,     /**< the caller asked for something impossible */
    ETP_E_INTERNAL   /**< a bug in etprof */
} etp_status;

/** Offset value meaning "no byte position applies". */
#define ETP_NO_OFFSET (-1)

/**
 * One error: a category, a constant-style message, the file it concerns and
 * the byte offset in that file (or ETP_NO_OFFSET).
 */
typedef struct etp_error {
    etp_status code;
    int64_t offset;
    char file[512];
    char message[512];
} etp_error;

/** Reset @p err to "no error". Safe on NULL. */
void etp_error_clear(etp_error *err);

/**
 * Record an error. @p file may be NULL (keeps any file already recorded).
 * printf-style @p fmt. Returns @p code so callers can `return etp_error_set(...)`.
 * Safe on a NULL @p err (the error is then dropped).
 */
etp_status etp_error_set(etp_error *err, etp_status code, const char *file, int64_t offset,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/**
 * Format @p err as a single line "FILE: message (offset N)" into @p buf.
 * The file and offset parts are left out when unknown; the text is cut to
 * fit @p size (which must be > 0). Returns @p buf.
 */
const char *etp_error_format(const etp_error *err, char *buf, size_t size);

/** Short name of a status, e.g. "format" (a static string). */
const char *etp_status_name(etp_status code);

#ifdef __cplusplus
}
#endif
#endif
