/* bundle_run_id.c - who a run is: a run id (a random UUID, version 4) and
 * the UTC time the bundle was begun, or the caller's own (e.g. a run
 * re-published). */
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/utc_time.h"

static int make_run_id(char out[37])
{
    unsigned char u[16];
    if (RAND_bytes(u, sizeof u) != 1)
        return -1;
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[u[i] >> 4];
        out[o++] = hex[u[i] & 15];
    }
    out[o] = '\0';
    return 0;
}

etp_status etp_bundle_identity_new(etp_bundle *b, etp_error *err)
{
    if (make_run_id(b->run_id))
        return etp_error_set(err, ETP_E_INTERNAL, b->dir, ETP_NO_OFFSET,
                             "no random bytes for the run id");
    /* The publication time to the millisecond: runs published within one
     * second stay in order in a run history. */
    int64_t now = etp_utc_now_ms();
    if (now < 0 || etp_utc_format_ms(now, b->timestamp, sizeof b->timestamp))
        return etp_error_set(err, ETP_E_INTERNAL, b->dir, ETP_NO_OFFSET, "cannot read the clock");
    return ETP_OK;
}

etp_status etp_bundle_set_identity(etp_bundle *b, const char *run_id, const char *timestamp,
                                   etp_error *err)
{
    if (b->committed)
        return etp_bundle_refuse_after_commit(b, err);
    if (run_id && !etp_bundle_is_uuid(run_id))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "run id must be a lowercase 8-4-4-4-12 hex UUID");
    if (timestamp && !etp_bundle_is_utc_timestamp(timestamp))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "timestamp must be UTC RFC 3339, e.g. 2026-03-01T12:00:00Z");
    if (run_id)
        memcpy(b->run_id, run_id, 37);
    if (timestamp)
        snprintf(b->timestamp, sizeof b->timestamp, "%s", timestamp);
    return ETP_OK;
}

const char *etp_bundle_run_id(const etp_bundle *b) { return b->run_id; }
const char *etp_bundle_timestamp(const etp_bundle *b) { return b->timestamp; }
