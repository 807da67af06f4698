/* detect.c - identify an input from its leading bytes. */
#include "etprof/detect.h"

#include <string.h>

#include "etprof/vgf.h"

etp_file_kind etp_detect_kind(const uint8_t *h, size_t n)
{
    if (n >= 4 && memcmp(h, "PK\x03\x04", 4) == 0)
        return ETP_KIND_ZIP;
    if (n >= 12 && memcmp(h + 8, "ED00", 4) == 0)
        return ETP_KIND_ETDUMP;
    if (n >= 8 && memcmp(h + 4, "BP08", 4) == 0)
        return ETP_KIND_BPTE;
    if (n >= 8 && h[4] == 'E' && h[5] == 'T')
        return ETP_KIND_PTE;
    if (etp_vgf_detect(h, n))
        return ETP_KIND_VGF;
    return ETP_KIND_UNKNOWN;
}

const char *etp_file_kind_name(etp_file_kind k)
{
    switch (k) {
    case ETP_KIND_ETDUMP: return "ETDump";
    case ETP_KIND_PTE: return "program (.pte)";
    case ETP_KIND_BPTE: return "bundled program (.bpte)";
    case ETP_KIND_ZIP: return "zip archive";
    case ETP_KIND_VGF: return "VGF (.vgf)";
    case ETP_KIND_UNKNOWN: break;
    }
    return "unknown";
}
