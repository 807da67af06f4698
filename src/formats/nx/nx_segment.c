/* nx_segment.c - one VGF segment's three blobs into stripe rows
 * with their chain and cascade (from the debug database, or the fill-ins
 * "chain_<s>" / "cascade_<s>" when it has none for a stripe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_record.h"
#include "util/str.h"

static etp_status own(etp_nx_decoded *d, char *s, const char **out)
{
    if (!s)
        return ETP_E_NOMEM;
    char **v = realloc(d->strings, (d->string_count + 1) * sizeof *v);
    if (!v) {
        free(s);
        return ETP_E_NOMEM;
    }
    d->strings = v;
    v[d->string_count++] = s;
    *out = s;
    return ETP_OK;
}

etp_status etp_nx_segment_decode(const etp_nx_segment *seg, const etp_nx_settings *s, const etp_nx_ddb *ddb,
                                 const char *where, etp_nx_decoded **out, etp_error *err)
{
    *out = NULL;
    if (!where)
        where = "VGF_NEURAL_STATISTICS";
    for (int k = 0; k < ETP_NX_BLOBS; k++) {
        const etp_nx_blob *b = &seg->blob[k];
        if (!b->available)
            return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                 "%s segment %lld: %s is missing (unavailable: %s)", where,
                                 (long long)seg->segment_id, etp_nx_blob_name(k), *b->reason ? b->reason : "no reason");
        if (!b->len)
            return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "%s segment %lld: %s is empty", where,
                                 (long long)seg->segment_id, etp_nx_blob_name(k));
    }
    char w[256];
    snprintf(w, sizeof w, "%s segment %lld", where, (long long)seg->segment_id);
    etp_nx_ddb *own_ddb = NULL;
    etp_status st = ETP_OK;
    if (!ddb) {
        st = etp_nx_ddb_parse(seg->blob[0].data, seg->blob[0].len, NULL, 0, w, &own_ddb, err);
        if (st)
            return st;
        ddb = own_ddb;
    }
    uint32_t *ids = NULL, nids = 0;
    const etp_nx_blob *info = &seg->blob[ETP_NX_STATISTICS_INFO], *mem = &seg->blob[ETP_NX_STATISTICS_MEMORY];
    etp_nx_decoded *d = NULL;
    st = etp_nx_info_parse(info->data, info->len, info->is_text, w, &ids, &nids, err);
    if (st == ETP_OK)
        st = etp_nx_memory_decode(mem->data, mem->len, ids, nids, s, w, &d, err);
    for (uint32_t i = 0; st == ETP_OK && i < d->stripe_count; i++) {
        etp_nx_stripe *r = &d->stripes[i];
        etp_nx_strlist ch = etp_nx_ddb_stripe_chains(ddb, r->id), ca = etp_nx_ddb_stripe_cascades(ddb, r->id);
        if (ch.n > 1 || ca.n > 1) {
            st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                               "%s: debug_database gives stripe %u %u chains and %u cascades (at most one each)",
                               w, r->id, ch.n, ca.n);
            break;
        }
        if (ch.n) {
            r->chain = ch.v[0];
        } else if ((st = own(d, etp_strprintf("chain_%u", r->id), &r->chain)) == ETP_OK) {
            r->chain_filled = 1;
        }
        if (st == ETP_OK && ca.n)
            r->cascade = ca.v[0];
        else if (st == ETP_OK && (st = own(d, etp_strprintf("cascade_%u", r->id), &r->cascade)) == ETP_OK)
            r->cascade_filled = 1;
        if (st == ETP_E_NOMEM)
            etp_error_set(err, st, NULL, ETP_NO_OFFSET, "%s: out of memory", w);
    }
    free(ids);
    /* Chain and cascade names point into the database: only a database the
     * caller keeps may be referenced after return. */
    if (st == ETP_OK && own_ddb) {
        for (uint32_t i = 0; st == ETP_OK && i < d->stripe_count; i++) {
            etp_nx_stripe *r = &d->stripes[i];
            if (!r->chain_filled)
                st = own(d, etp_strdup(r->chain), &r->chain);
            if (st == ETP_OK && !r->cascade_filled)
                st = own(d, etp_strdup(r->cascade), &r->cascade);
        }
        if (st)
            etp_error_set(err, st, NULL, ETP_NO_OFFSET, "%s: out of memory", w);
    }
    etp_nx_ddb_free(own_ddb);
    if (st != ETP_OK) {
        etp_nx_decoded_free(d);
        return st;
    }
    *out = d;
    return ETP_OK;
}
