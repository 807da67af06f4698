/* nx_settings.c - which layout a record is decoded with: the v2
 * declarations, checked against the layout table, or (v1 and whatever v2
 * leaves undeclared) the caller's fallbacks and the documented defaults,
 * each recorded as a fallback field with a note. */
#include <stdio.h>
#include <string.h>

#include "formats/nx/nx_internal.h"

#define NOMEM(err, where) etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", where)

static etp_status conflict(etp_error *err, const char *where, const char *setting, const char *fmt_what)
{
    return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "%s: VGF neural statistics: unsupported or conflicting setting %s: %s", where,
                         setting, fmt_what);
}

/* "... MC1" (a whole token): a single-core configuration. */
static int names_single_core(const char *name)
{
    if (!name)
        return 0;
    for (const char *p = strstr(name, "MC1"); p; p = strstr(p + 1, "MC1")) {
        int start = p == name || p[-1] == ' ' || p[-1] == '-';
        int end = p[3] == 0 || p[3] == ' ' || p[3] == '-';
        if (start && end)
            return 1;
    }
    return 0;
}

static etp_status resolve_mode(const etp_nx_record *r, const etp_nx_options *o, const char *where,
                               etp_nx_settings *s, etp_error *err)
{
    char what[160];
    if (!r->has_v2_settings) {
        s->mode = o->statistics_mode >= 0 ? o->statistics_mode : 1;
        snprintf(s->mode_source, sizeof s->mode_source, "%s", o->statistics_mode >= 0 ? "fallback" : "default");
        s->fallback_fields |= ETP_NX_FB_MODE;
        return ETP_OK;
    }
    if (r->mode_index != 0 && r->mode_index != 1) {
        snprintf(what, sizeof what, "executorch_index %lld (0 or 1)", (long long)r->mode_index);
        return conflict(err, where, "statistics_mode", what);
    }
    if (r->vulkan_value != r->mode_index + 1) {
        snprintf(what, sizeof what, "vulkan_value %lld with executorch_index %lld (must be index + 1)",
                 (long long)r->vulkan_value, (long long)r->mode_index);
        return conflict(err, where, "statistics_mode", what);
    }
    const char *want = r->mode_index ? "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM"
                                     : "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM";
    if (strcmp(r->vulkan_name, want)) {
        snprintf(what, sizeof what, "vulkan_name \"%.60s\" with executorch_index %lld", r->vulkan_name,
                 (long long)r->mode_index);
        return conflict(err, where, "statistics_mode", what);
    }
    s->mode = (int)r->mode_index;
    snprintf(s->mode_source, sizeof s->mode_source, "statistics_mode");
    if (o->statistics_mode >= 0 && o->statistics_mode != s->mode)
        return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: the statistics_mode fallback %d conflicts with the "
                             "recorded mode %d",
                             where, o->statistics_mode, s->mode);
    return ETP_OK;
}

/* A declared counter layout: every field must be what the table says. */
static etp_status check_declared(const etp_nx_record *r, const char *where, etp_nx_settings *s, etp_error *err)
{
    char what[200];
    if (r->layout_schema_version != 1) {
        snprintf(what, sizeof what, "schema_version %lld (only 1 is supported)", (long long)r->layout_schema_version);
        return conflict(err, where, "counter_layout.schema_version", what);
    }
    etp_nx_device dev = ETP_NX_DEVICE_NONE;
    int mode = -1;
    for (int d = ETP_NX_MALI_G1; d <= ETP_NX_MALI_G2; d++)
        for (int m = 0; m <= 1; m++) {
            const etp_nx_layout *l = etp_nx_layout_get((etp_nx_device)d, m);
            if (l->schema_id && !strcmp(l->schema_id, r->layout_schema_id)) {
                dev = (etp_nx_device)d;
                mode = m;
            }
        }
    if (dev == ETP_NX_DEVICE_NONE) {
        snprintf(what, sizeof what, "schema_id \"%.80s\" is not a known layout", r->layout_schema_id);
        return conflict(err, where, "counter_layout.schema_id", what);
    }
    if (mode != s->mode) {
        snprintf(what, sizeof what, "schema_id \"%s\" declares mode %d, statistics_mode is %d",
                 r->layout_schema_id, mode, s->mode);
        return conflict(err, where, "counter_layout.schema_id", what);
    }
    const etp_nx_layout *l = etp_nx_layout_get(dev, mode);
    if (r->words_per_task != (int64_t)l->words_per_task) {
        snprintf(what, sizeof what,
                 "a declared %s mode-%d layout of %lld words per task is not supported (the mode-%d decoder "
                 "reads %u words per task)",
                 etp_nx_device_name(dev), mode, (long long)r->words_per_task, mode, l->words_per_task);
        return conflict(err, where, "counter_layout.words_per_task", what);
    }
    if (r->leading_block_count != (int64_t)l->leading_blocks) {
        snprintf(what, sizeof what, "%lld (the layout has %u)", (long long)r->leading_block_count, l->leading_blocks);
        return conflict(err, where, "counter_layout.leading_block_count", what);
    }
    if (strcmp(r->endianness, "little"))
        return conflict(err, where, "counter_layout.endianness", "only \"little\" is supported");
    if (strcmp(r->word_type, "uint32"))
        return conflict(err, where, "counter_layout.word_type", "only \"uint32\" is supported");
    if (r->target_available) {
        etp_nx_device t = etp_nx_device_from_target((uint32_t)r->vendor_id, r->device_name);
        if (t != dev) {
            snprintf(what, sizeof what, "a %s layout is declared for target \"%.60s\" (vendor 0x%llX)",
                     etp_nx_device_name(dev), r->device_name, (unsigned long long)r->vendor_id);
            return conflict(err, where, "counter_layout.schema_id", what);
        }
    }
    s->device = dev;
    snprintf(s->device_source, sizeof s->device_source, "counter_layout");
    return ETP_OK;
}

static etp_status resolve_device(const etp_nx_record *r, const etp_nx_options *o, const char *where,
                                 etp_nx_settings *s, etp_error *err)
{
    if (r->has_v2_settings && r->layout_available) {
        etp_status st = check_declared(r, where, s, err);
        if (st != ETP_OK)
            return st;
    } else if (r->has_v2_settings && r->target_available &&
               etp_nx_device_from_target((uint32_t)r->vendor_id, r->device_name) != ETP_NX_DEVICE_NONE) {
        s->device = etp_nx_device_from_target((uint32_t)r->vendor_id, r->device_name);
        snprintf(s->device_source, sizeof s->device_source, "target");
    } else {
        s->device = o->profiling_device != ETP_NX_DEVICE_NONE ? o->profiling_device : ETP_NX_MALI_G2;
        snprintf(s->device_source, sizeof s->device_source, "%s",
                 o->profiling_device != ETP_NX_DEVICE_NONE ? "fallback" : "default");
        s->fallback_fields |= ETP_NX_FB_DEVICE;
        return ETP_OK;
    }
    if (o->profiling_device != ETP_NX_DEVICE_NONE && o->profiling_device != s->device)
        return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: the profiling_device fallback %s conflicts with the "
                             "recorded %s",
                             where, etp_nx_device_name(o->profiling_device), etp_nx_device_name(s->device));
    return ETP_OK;
}

etp_status etp_nx_settings_resolve(const etp_nx_record *r, const etp_nx_options *o, const char *where,
                                   etp_nx_settings *s, etp_nx_notes *notes, etp_error *err)
{
    etp_nx_options dflt;
    if (!o) {
        etp_nx_options_defaults(&dflt);
        o = &dflt;
    }
    if (!where)
        where = "VGF_NEURAL_STATISTICS";
    memset(s, 0, sizeof *s);
    if (o->statistics_mode > 1 || o->leading_blocks > 1)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "VGF statistics options: mode must be 0 or 1 and leading blocks 0 or 1");
    etp_status st = resolve_mode(r, o, where, s, err);
    if (st == ETP_OK)
        st = resolve_device(r, o, where, s, err);
    if (st != ETP_OK)
        return st;
    s->layout = etp_nx_layout_get(s->device, s->mode);
    if (!s->layout)
        return etp_error_set(err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET, "%s: no layout for %s mode %d", where,
                             etp_nx_device_name(s->device), s->mode);
    if (o->leading_blocks >= 0) {
        s->leading_blocks = (uint32_t)o->leading_blocks;
    } else {
        s->leading_blocks = s->layout->leading_blocks;
        if (!(r->has_v2_settings && r->layout_available))
            s->fallback_fields |= ETP_NX_FB_LEADING;
    }
    s->core_key = o->core_key;
    s->single_core_target = r->has_v2_settings && r->target_available && names_single_core(r->device_name);
    if (s->mode == 1 && s->core_key == ETP_NX_CORE_SINGLE && !s->single_core_target)
        s->fallback_fields |= ETP_NX_FB_CORE;

    if (s->fallback_fields & (ETP_NX_FB_MODE | ETP_NX_FB_DEVICE)) {
        if (etp_nx_note_add(notes, "vgf.decoder_fallback",
                            "%s: schema v%d records no %s%s%s; decoded as %s mode %d (%s), which the capture "
                            "cannot confirm",
                            where, r->schema_version,
                            s->fallback_fields & ETP_NX_FB_MODE ? "statistics mode" : "",
                            (s->fallback_fields & ETP_NX_FB_MODE) && (s->fallback_fields & ETP_NX_FB_DEVICE)
                                ? " or " : "",
                            s->fallback_fields & ETP_NX_FB_DEVICE ? "profiling device" : "",
                            etp_nx_device_name(s->device), s->mode,
                            s->fallback_fields & ETP_NX_FB_DEVICE ? s->device_source : s->mode_source))
            return NOMEM(err, where);
    }
    /* Which block holds stripe 0 is not public: say which reading decoded it. */
    if (etp_nx_note_add(notes, "vgf.layout_assumption",
                        "%s: %u leading block(s) (%s) skipped before stripe 0's block: stripe s is read from "
                        "block s + %u; the leading block's layout is not public",
                        where, s->leading_blocks,
                        o->leading_blocks >= 0 ? "chosen by the caller"
                        : (s->fallback_fields & ETP_NX_FB_LEADING) ? "assumed from the layout table"
                                                                     : "declared by counter_layout",
                        s->leading_blocks))
        return NOMEM(err, where);
    if (s->mode == 1 && s->core_key == ETP_NX_CORE_WORD0) {
        if (etp_nx_note_add(notes, "vgf.layout_assumption",
                            "%s: mode 1 per-core maximum with word 0 of each task taken as its core index "
                            "(chosen by the caller; not a public fact)",
                            where))
            return NOMEM(err, where);
    } else if (s->fallback_fields & ETP_NX_FB_CORE) {
        if (etp_nx_note_add(notes, "vgf.layout_assumption",
                            "%s: mode 1 per-core maximum: the core of a task is not public and the target is "
                            "not known to be single-core; all tasks of a stripe were summed as one core "
                            "(larger than the per-core maximum on a multi-core NX)",
                            where))
            return NOMEM(err, where);
    }
    return ETP_OK;
}
