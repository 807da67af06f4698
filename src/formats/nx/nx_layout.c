/* nx_layout.c - the table of NX statistics-memory layouts
 * (device, mode) -> words per task, tasks per block, leading blocks and the
 * counter carried by each word, and the small name tables around it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/nx/nx_internal.h"

/* Mode 0: every word is one hardware section's active cycles. */
static const uint8_t mode0_words[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const char *const mode0_names[16] = {
    "section_0", "section_1", "section_2",  "section_3",  "section_4",  "section_5",
    "section_6", "section_7", "section_8",  "section_9",  "section_10", "section_11",
    "section_12", "section_13", "section_14", "section_15"};

/* Mode 1: words 1..29 are named on both generations; Mali-G2 adds 31 and 32
 * (30 is reserved). Word 0 and every other word are not counters. */
static const uint8_t mode1_words[31] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32};
static const char *const mode1_names[31] = {
    "nx_active",        "dl_active",        "ir_active",        "wf_active",        "ce_active",
    "ve_active",        "tu_active",        "ow_active",        "task_init_stall",  "rd_ll_stall",
    "rd_hl_stall",      "dma_wr_stall",     "ir_idx_stall",     "ce_src0_stall",    "ce_src1_stall",
    "ve_src0_ir_stall", "ve_src0_ce_stall", "ve_src0_ve_stall", "ve_src0_tu_stall", "ve_src1_ir_stall",
    "ve_src1_ve_stall", "ve_src1_tu_stall", "tu_src0_ir_stall", "tu_src0_ve_stall", "tu_src0_tu_stall",
    "ow_src0_ir_stall", "ow_src0_ve_stall", "ow_src0_tu_stall", "ow_idx_stall",     "me_src0_stall",
    "me_src1_stall"};

static const etp_nx_layout layouts[4] = {
    {ETP_NX_MALI_G1, 0, 16, 512, 1, NULL, 16, mode0_words, mode0_names, -1},
    {ETP_NX_MALI_G1, 1, 32, 256, 1, NULL, 29, mode1_words, mode1_names, 0},
    {ETP_NX_MALI_G2, 0, 16, 1024, 1, "arm.mali-g2.neural-statistics.mode0", 16, mode0_words, mode0_names, -1},
    {ETP_NX_MALI_G2, 1, 64, 256, 1, "arm.mali-g2.neural-statistics.mode1", 31, mode1_words, mode1_names, 0},
};

const etp_nx_layout *etp_nx_layout_get(etp_nx_device device, int mode)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].device == device && layouts[i].mode == mode)
            return &layouts[i];
    return NULL;
}

const char *etp_nx_device_name(etp_nx_device device)
{
    return device == ETP_NX_MALI_G1 ? "Mali-G1" : device == ETP_NX_MALI_G2 ? "Mali-G2" : "none";
}

etp_nx_device etp_nx_device_parse(const char *s)
{
    if (!s)
        return ETP_NX_DEVICE_NONE;
    if (!strcmp(s, "Mali-G1"))
        return ETP_NX_MALI_G1;
    if (!strcmp(s, "Mali-G2"))
        return ETP_NX_MALI_G2;
    return ETP_NX_DEVICE_NONE;
}

etp_nx_device etp_nx_device_from_target(uint32_t vendor_id, const char *name)
{
    if (vendor_id != 0x13B5u || !name || strncmp(name, "Mali-G", 6) != 0)
        return ETP_NX_DEVICE_NONE;
    char g = name[6], after = g ? name[7] : 0;
    if ((g != '1' && g != '2') || !(after == 0 || after == '-' || after == ' '))
        return ETP_NX_DEVICE_NONE;
    return g == '1' ? ETP_NX_MALI_G1 : ETP_NX_MALI_G2;
}

const char *etp_nx_blob_name(int which)
{
    static const char *const names[ETP_NX_BLOBS] = {"debug_database", "statistics_info", "statistics_memory"};
    return which >= 0 && which < ETP_NX_BLOBS ? names[which] : "?";
}

const char *etp_nx_fallback_name(unsigned bit)
{
    switch (bit) {
    case ETP_NX_FB_MODE: return "statistics_mode";
    case ETP_NX_FB_DEVICE: return "profiling_device";
    case ETP_NX_FB_LEADING: return "leading_block_count";
    case ETP_NX_FB_CORE: return "core_key";
    default: return NULL;
    }
}

void etp_nx_options_defaults(etp_nx_options *o)
{
    o->statistics_mode = -1;
    o->profiling_device = ETP_NX_DEVICE_NONE;
    o->leading_blocks = -1;
    o->core_key = ETP_NX_CORE_SINGLE;
}

int etp_nx_note_add(etp_nx_notes *n, const char *code, const char *fmt, ...)
{
    if (!n)
        return 0;
    if (n->count == n->cap) {
        size_t cap = n->cap ? n->cap * 2 : 4;
        etp_nx_note *items = realloc(n->items, cap * sizeof *items);
        if (!items)
            return -1;
        n->items = items;
        n->cap = cap;
    }
    etp_nx_note *it = &n->items[n->count++];
    it->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->message, sizeof it->message, fmt, ap);
    va_end(ap);
    return 0;
}

void etp_nx_notes_free(etp_nx_notes *n)
{
    if (!n)
        return;
    free(n->items);
    n->items = NULL;
    n->count = n->cap = 0;
}

etp_status etp_nx_unframe(const uint8_t *data, size_t n, uint32_t magic, const char *what, const char *where,
                          const uint8_t **payload, size_t *plen, etp_error *err)
{
    *payload = data;
    *plen = n;
    if (n < 12 || etp_nx_le32(data) != magic)
        return ETP_OK; /* unframed: the whole buffer is the payload */
    uint32_t version = etp_nx_le32(data + 4), size = etp_nx_le32(data + 8);
    if (version != 1)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "%s: %s uses unsupported format version %u (frame byte 4)", where, what,
                             version);
    if ((uint64_t)size != (uint64_t)n - 12)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: %s frame declares %u payload bytes, %zu follow the header", where, what, size,
                             n - 12);
    *payload = data + 12;
    *plen = n - 12;
    return ETP_OK;
}
