/* fuzz_nx_record.c - libFuzzer target: the VGF neural-statistics decoder.
 * The first byte picks what the rest is: 0 the wrapper JSON (then every
 * segment decoded with the resolved settings), 1 a debug database, 2 a
 * statistics info (binary), 3 text info, 4.. statistics memory under the
 * layout (device, mode, leading blocks, core key) the byte selects. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "etprof/nx_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void wrapper(const uint8_t *p, size_t n)
{
    etp_error err;
    etp_nx_record *r;
    if (etp_nx_record_parse(p, n, "fuzz", &r, &err) != ETP_OK)
        return;
    etp_nx_settings s;
    etp_nx_notes notes = {0};
    if (etp_nx_settings_resolve(r, NULL, "fuzz", &s, &notes, &err) == ETP_OK)
        for (uint32_t i = 0; i < r->segment_count; i++) {
            etp_nx_decoded *d;
            if (etp_nx_segment_decode(&r->segments[i], &s, NULL, "fuzz", &d, &err) == ETP_OK)
                etp_nx_decoded_free(d);
        }
    etp_nx_notes_free(&notes);
    etp_nx_record_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    uint8_t mode = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    etp_error err;
    if (mode == 0) {
        wrapper(p, n);
    } else if (mode == 1) {
        etp_nx_ddb *d;
        const char *known[] = {"known;label", "TOSACONV2D_spirv_id_504"};
        if (etp_nx_ddb_parse(p, n, known, 2, "fuzz", &d, &err) == ETP_OK) {
            for (uint32_t s = 0; s < 4; s++) {
                etp_nx_strlist c = etp_nx_ddb_stripe_chains(d, s);
                for (uint32_t k = 0; k < c.n; k++) {
                    etp_nx_strlist f = etp_nx_ddb_chain_fused(d, c.v[k]);
                    for (uint32_t j = 0; j < f.n; j++) {
                        etp_nx_strlist t = etp_nx_ddb_fused_tosa(d, f.v[j]);
                        for (uint32_t q = 0; q < t.n; q++)
                            (void)etp_nx_ddb_tosa_labels(d, t.v[q]);
                    }
                }
            }
            etp_nx_ddb_free(d);
        }
    } else if (mode == 2 || mode == 3) {
        uint32_t *ids, count;
        if (etp_nx_info_parse(p, n, mode == 3, "fuzz", &ids, &count, &err) == ETP_OK)
            free(ids);
    } else {
        /* memory: ids are the first 4 words' low bytes */
        etp_nx_settings s = {0};
        s.device = (mode & 1) ? ETP_NX_MALI_G2 : ETP_NX_MALI_G1;
        s.mode = (mode >> 1) & 1;
        s.layout = etp_nx_layout_get(s.device, s.mode);
        s.leading_blocks = (mode >> 2) & 1;
        s.core_key = (mode >> 3) & 1 ? ETP_NX_CORE_WORD0 : ETP_NX_CORE_SINGLE;
        uint32_t ids[4];
        uint32_t nids = 0;
        for (size_t k = 0; k < 4 && k < n; k++) {
            int dup = 0;
            for (uint32_t j = 0; j < nids; j++)
                dup |= ids[j] == p[k];
            if (!dup)
                ids[nids++] = p[k];
        }
        etp_nx_decoded *d;
        if (etp_nx_memory_decode(p, n, ids, nids, &s, "fuzz", &d, &err) == ETP_OK)
            etp_nx_decoded_free(d);
    }
    return 0;
}
