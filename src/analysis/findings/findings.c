/* findings.c - running the finding rules over an analysis: the shared
 * readings once, every rule, then the findings in registry order. */
#include <string.h>

#include "analysis/findings/findings_internal.h"

etp_status finding_rules_run(const etp_analysis *a, const etp_finding_settings *s, etp_finding_list *out,
                            etp_error *err)
{
    finding_ctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.settings = s;
    c.out = out;
    c.unit = etp_unit_name(a->target_unit);
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    if (ex && ex->available && ex->stats.n && ex->stats.avg > 0) {
        c.execute = ex;
        c.execute_avg = ex->stats.avg;
    }
    etp_status (*const rules[])(finding_ctx *) = {findings_delegation, findings_boundary, findings_compute,
                                                  findings_overhead,   findings_stability, findings_accelerator};
    etp_status st = finding_ctx_read(&c);
    for (size_t i = 0; !st && i < sizeof rules / sizeof rules[0]; i++)
        st = rules[i](&c);
    finding_ctx_release(&c);
    if (st)
        return etp_error_set(err, st, NULL, ETP_NO_OFFSET,
                             st == ETP_E_NOMEM ? "out of memory forming the findings"
                                               : "a finding rule recorded an unknown code");
    /* Registry order, the rules' own order within one code (a stable
     * insertion sort: a few dozen findings at most). */
    for (uint32_t i = 1; i < out->count; i++) {
        etp_finding f = out->items[i];
        uint32_t j = i;
        for (; j > 0 && strcmp(out->items[j - 1].rule->code, f.rule->code) > 0; j--)
            out->items[j] = out->items[j - 1];
        out->items[j] = f;
    }
    return ETP_OK;
}
