/* nx_attach.c - run the VGF NX statistics analysis beside the runtime one
 * and merge its findings into the analysis' issues. */
#include "analysis/nx/nx_attach.h"

#include <string.h>

/* Whether the grouping saw an event etp_nx_analyze() would take: one with
 * delegate metadata (which may claim the schema whatever its name) or one
 * named VGF_NEURAL_STATISTICS. Without one, the dump is not read a second
 * time (on the reference run that pass re-faulted the whole 71 MB file). */
static int may_have_nx(const etp_inspect *in)
{
    if (!in)
        return 1;
    static const char name[] = ETP_NX_EVENT_NAME;
    for (uint32_t b = 0; b < in->block_count; b++) {
        const etp_inspect_block *blk = &in->blocks[b];
        if (blk->metadata_events)
            return 1;
        for (uint32_t i = 0; i < blk->row_count; i++) {
            const etp_inspect_row *r = &blk->rows[i];
            if (r->delegate_id_str && !strcmp(r->delegate_id_str, name))
                return 1;
        }
    }
    return 0;
}

etp_status etp_nx_attach(etp_analysis *a, const etp_etdump *d, const etp_nx_options *o, etp_error *err)
{
    if (!may_have_nx(a->inspect))
        return ETP_OK;
    etp_status s = etp_nx_analyze(d, o, &a->nx, err);
    if (s || !a->nx)
        return s;
    if (a->program) {
        s = etp_nx_companion_check(a->nx, a->program, a->plan, a->method, a->program_sha256, err);
        if (s)
            return s;
    }
    /* Source-operator links where the ETRecord's delegate map names them. */
    s = etp_nx_link_sources(a->nx, a->etrecord, a->method, err);
    if (s)
        return s;
    for (size_t i = 0; i < a->nx->issues.count; i++) {
        const etp_issue *it = &a->nx->issues.items[i];
        if (etp_issue_add(&a->issues, it->code->code, it->context_json, "%s", it->message))
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    return ETP_OK;
}
