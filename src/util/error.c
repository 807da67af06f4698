/* error.c - etp_error helpers. */
#include "etprof/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void etp_error_clear(etp_error *err)
{
    if (!err)
        return;
    err->code = ETP_OK;
    err->offset = ETP_NO_OFFSET;
    err->file[0] = '\0';
    err->message[0] = '\0';
}

etp_status etp_error_set(etp_error *err, etp_status code, const char *file, int64_t offset,
                         const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->offset = offset;
    if (file)
        snprintf(err->file, sizeof err->file, "%s", file);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* Keep the message on one line whatever the caller passed in. */
    for (char *p = err->message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

const char *etp_error_format(const etp_error *err, char *buf, size_t size)
{
    if (!buf || size == 0)
        return buf;
    if (!err) {
        snprintf(buf, size, "unknown error");
        return buf;
    }
    char where[48] = "";
    if (err->offset >= 0)
        snprintf(where, sizeof where, " (offset %lld)", (long long)err->offset);
    if (err->file[0])
        snprintf(buf, size, "%s: %s%s", err->file, err->message, where);
    else
        snprintf(buf, size, "%s%s", err->message, where);
    return buf;
}

const char *etp_status_name(etp_status code)
{
    switch (code) {
    case ETP_OK: return "ok";
    case ETP_E_IO: return "io";
    case ETP_E_FORMAT: return "format";
    case ETP_E_TRUNCATED: return "truncated";
    case ETP_E_LIMIT: return "limit";
    case ETP_E_NOMEM: return "nomem";
    case ETP_E_MISMATCH: return "mismatch";
    case ETP_E_USAGE: return "usage";
    case ETP_E_INTERNAL: return "internal";
    }
    return "unknown";
}
