/* nx_analyze.c - find the VGF_NEURAL_STATISTICS records of an ETDump,
 * decode them and feed the aggregation (one execution per run block). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_stats.h"

static int is_vgf_event(const etp_profile_event *p)
{
    if (p->delegate_id_str && p->delegate_id_str_len == sizeof ETP_NX_EVENT_NAME - 1 &&
        !memcmp(p->delegate_id_str, ETP_NX_EVENT_NAME, sizeof ETP_NX_EVENT_NAME - 1))
        return 1;
    /* Metadata that claims the schema must parse, whatever the event's name. */
    return p->metadata && etp_nx_claims_schema(p->metadata, p->metadata_len);
}

static etp_status add_notes(etp_nx_result *r, const etp_nx_notes *n, etp_error *err)
{
    for (size_t i = 0; i < n->count; i++) {
        /* One issue per distinct message: the same assumption for 1,000 runs is one finding. */
        int dup = 0;
        for (size_t k = 0; k < r->issues.count && !dup; k++)
            dup = !strcmp(r->issues.items[k].code->code, n->items[i].code) &&
                  !strcmp(r->issues.items[k].message, n->items[i].message);
        if (!dup && etp_issue_add(&r->issues, n->items[i].code, NULL, "%s", n->items[i].message))
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    return ETP_OK;
}

/* Strip the run-and-instruction prefix so one assumption reads the same for every event. */
static void generic_where(etp_nx_notes *n, const char *where)
{
    size_t wl = strlen(where);
    for (size_t i = 0; i < n->count; i++) {
        char *m = n->items[i].message;
        if (!strncmp(m, where, wl) && m[wl] == ':') {
            char tmp[sizeof n->items[i].message];
            snprintf(tmp, sizeof tmp, "VGF statistics%s", m + wl);
            memcpy(m, tmp, sizeof tmp);
        }
    }
}

static etp_status one_record(etp_nx_result *r, const etp_etdump *d, uint32_t exec, const etp_run *run,
                             const etp_profile_event *p, const etp_nx_options *o, etp_error *err)
{
    char where[160];
    snprintf(where, sizeof where, "%s: run %u instruction %d VGF_NEURAL_STATISTICS", etp_etdump_path(d),
             run->index, (int)p->instruction_id);
    etp_nx_record *rec = NULL;
    etp_status st = etp_nx_record_parse(p->metadata, p->has_metadata ? p->metadata_len : 0, where, &rec, err);
    if (st)
        return st;
    r->events++;
    etp_nx_settings s;
    etp_nx_notes notes = {0};
    st = etp_nx_settings_resolve(rec, o, where, &s, &notes, err);
    if (st == ETP_OK) {
        generic_where(&notes, where);
        if (!r->have_settings) {
            r->settings = s;
            r->have_settings = 1;
        } else if (s.layout != r->settings.layout || s.leading_blocks != r->settings.leading_blocks) {
            st = etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                               "%s: decoded as %s mode %d, earlier records as %s mode %d", where,
                               etp_nx_device_name(s.device), s.mode, etp_nx_device_name(r->settings.device),
                               r->settings.mode);
        } else {
            r->settings.fallback_fields |= s.fallback_fields;
        }
    }
    if (st == ETP_OK)
        st = add_notes(r, &notes, err);
    etp_nx_notes_free(&notes);
    if (st == ETP_OK && !rec->data_available) {
        r->events_unavailable++;
        if (etp_issue_add(&r->issues, "vgf.data_unavailable", NULL,
                          "run %u instruction %d: VGF statistics unavailable: %s", run->index,
                          (int)p->instruction_id, *rec->reason ? rec->reason : "(no reason given)"))
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        etp_nx_record_free(rec);
        return st;
    }
    if (st == ETP_OK && rec->segment_count == 0)
        st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                           "%s: data_available is true but the record has no segments", where);
    for (uint32_t k = 0; st == ETP_OK && k < rec->segment_count; k++) {
        const etp_nx_segment *seg = &rec->segments[k];
        if (!seg->is_data_graph_pipeline) {
            int dup = 0;
            char msg[160];
            snprintf(msg, sizeof msg, "instruction %d: VGF compute segment %lld has no NX statistics",
                     (int)p->instruction_id, (long long)seg->segment_id);
            for (size_t q = 0; q < r->issues.count && !dup; q++)
                dup = !strcmp(r->issues.items[q].message, msg);
            if (!dup && etp_issue_add(&r->issues, "vgf.compute_segment", NULL, "%s", msg))
                st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            continue;
        }
        char w[200];
        snprintf(w, sizeof w, "%s segment %lld", where, (long long)seg->segment_id);
        etp_nx_ddb *ddb = NULL;
        etp_nx_decoded *dec = NULL;
        const etp_nx_blob *db = &seg->blob[ETP_NX_DEBUG_DATABASE];
        if (db->available && db->len)
            st = etp_nx_ddb_parse(db->data, db->len, NULL, 0, w, &ddb, err);
        if (st == ETP_OK)
            st = etp_nx_segment_decode(seg, &r->settings, ddb, where, &dec, err);
        if (st == ETP_OK)
            st = etp_nx_add_segment(r, exec, p->instruction_id, seg->segment_id, dec, ddb, err);
        etp_nx_decoded_free(dec);
        etp_nx_ddb_free(ddb);
        if (st == ETP_E_FORMAT && (r->settings.fallback_fields & (ETP_NX_FB_MODE | ETP_NX_FB_DEVICE))) {
            /* The layout was assumed: say so where the user reads the failure. */
            size_t l = strlen(err->message);
            snprintf(err->message + l, sizeof err->message - l,
                     " [decoded as %s mode %d, assumed: the record states no %s; check the capture's settings, "
                     "see --nx-statistics-mode / --nx-profiling-device]",
                     etp_nx_device_name(r->settings.device), r->settings.mode,
                     r->settings.fallback_fields & ETP_NX_FB_MODE ? "statistics mode" : "device");
        }
    }
    etp_nx_record_free(rec);
    return st;
}

etp_status etp_nx_analyze(const etp_etdump *d, const etp_nx_options *o, etp_nx_result **out, etp_error *err)
{
    *out = NULL;
    etp_nx_result *r = NULL;
    if (etp_nx_result_new(&r))
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_status st = ETP_OK;
    uint32_t exec = 0, runs = etp_etdump_run_count(d);
    int found = 0;
    for (uint32_t i = 0; st == ETP_OK && i < runs; i++) {
        etp_run run;
        etp_etdump_run(d, i, &run);
        int here = 0;
        for (uint32_t j = 0; st == ETP_OK && j < run.event_count; j++) {
            etp_event ev;
            etp_etdump_event(d, &run, j, &ev);
            if (!(ev.kinds & ETP_EV_PROFILE) || !is_vgf_event(&ev.profile))
                continue;
            found = here = 1;
            st = one_record(r, d, exec, &run, &ev.profile, o, err);
        }
        if (here)
            exec++;
    }
    if (st == ETP_OK && found)
        st = etp_nx_finish(r, err);
    if (st != ETP_OK || !found) {
        etp_nx_result_free(r);
        return st;
    }
    *out = r;
    return ETP_OK;
}
