/* vgf_internal.h - the VGF reader's own state behind etp_vgf (vgf.c), read
 * by the JSON writer (vgf_json.c). */
#ifndef ETP_VGF_INTERNAL_H
#define ETP_VGF_INTERNAL_H

#include "etprof/blob.h"
#include "etprof/vgf.h"

struct etp_vgf_internal {
    etp_blob *blob;      /* etp_vgf_open() only */
    const uint8_t *data; /* the VGF's first byte */
    uint32_t roots[4];   /* root table of each FlatBuffers section (0: none) */
};

#endif
