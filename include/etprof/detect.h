/*
 * etprof/detect.h - tell input kinds apart by their bytes, never their names.
 *
 * Both functions are pure (they read only their arguments) and safe from
 * any thread.
 */
#ifndef ETPROF_DETECT_H
#define ETPROF_DETECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_file_kind {
    ETP_KIND_UNKNOWN = 0,
    ETP_KIND_ETDUMP,   /**< size-prefixed FlatBuffer, identifier ED00 */
    ETP_KIND_PTE,      /**< program FlatBuffer, identifier ET12 (or another ET??) */
    ETP_KIND_BPTE,     /**< bundled program, identifier BP08 */
    ETP_KIND_ZIP,      /**< a zip archive (ETRecord candidate) */
    ETP_KIND_VGF       /**< a VGF file (magic VGF1 or the old C3 D2 E1 F0), format 0.x */
} etp_file_kind;

/** Classify the first @p n bytes of a file (n >= 12 recommended). */
etp_file_kind etp_detect_kind(const uint8_t *head, size_t n);

/** Human name of a kind: "ETDump", "program (.pte)", ... (a static string). */
const char *etp_file_kind_name(etp_file_kind k);

#ifdef __cplusplus
}
#endif
#endif
