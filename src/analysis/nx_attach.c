/* nx_attach.c - run the VGF NX statistics analysis beside the runtime one
 * and merge its findings into the analysis' issues. */
#include "analysis/nx_attach.h"

etp_status etp_nx_attach(etp_analysis *a, const etp_etdump *d, const etp_nx_options *o, etp_error *err)
{
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
