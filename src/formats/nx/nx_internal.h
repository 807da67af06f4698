/* nx_internal.h - helpers shared by the VGF statistics decoder's files. */
#ifndef ETP_VGF_STATS_INTERNAL_H
#define ETP_VGF_STATS_INTERNAL_H

#include "etprof/nx_record.h"

/* Append a note (message cut to fit). Returns 0, -1 when out of memory. */
int etp_nx_note_add(etp_nx_notes *n, const char *code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The optional 12-byte frame (LE magic, version 1, payload size) of a debug
 * database or binary statistics info. Sets *payload / *plen to the bytes
 * after a frame, or to the whole buffer when it is not framed. ETP_E_FORMAT
 * on a frame of another version or a size that is not exactly the rest. */
etp_status etp_nx_unframe(const uint8_t *data, size_t n, uint32_t magic, const char *what, const char *where,
                          const uint8_t **payload, size_t *plen, etp_error *err);

static inline uint32_t etp_nx_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
