/* rules_boundary.c - delegation.boundary_conversions: quantize, dequantize
 * and layout copies that run on the CPU right next to a delegate call
 * (directly, or through a run of such conversions; moves and frees between
 * them do not break the run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"

/* Neither a kernel nor a delegate call: a move, jump or free, which sits
 * between a conversion and its delegate call without computing. */
static int passive(const etp_entity *e)
{
    return !finding_is_kernel_call(e) && !finding_is_delegate_call(e);
}

/* Mark the conversions on one side of the delegate call at @p at (step -1:
 * before, +1: after), in the same chain. */
static void mark_side(const etp_entity *const *ins, uint32_t n, uint32_t at, int step, uint8_t *mark)
{
    for (int64_t j = (int64_t)at + step; j >= 0 && j < (int64_t)n; j += step) {
        const etp_entity *e = ins[j];
        if (e->chain != ins[at]->chain)
            break;
        if (passive(e))
            continue;
        if (!finding_is_kernel_call(e) || !finding_is_conversion(e->op_type))
            break;
        mark[j] |= step < 0 ? 1 : 2; /* 1: feeds a delegate call, 2: reads one's output */
    }
}

etp_status findings_boundary(finding_ctx *c)
{
    uint32_t n = c->ins_count;
    const etp_entity *const *ins = c->ins;
    uint8_t *mark = calloc(n + 1, 1);
    if (!mark)
        return ETP_E_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (finding_delegate_ran(ins[i])) {
            mark_side(ins, n, i, -1, mark);
            mark_side(ins, n, i, +1, mark);
        }
    uint32_t count = 0, timed = 0, summable = 0;
    double total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!mark[i])
            continue;
        count++;
        if (!ins[i]->time.stats.n)
            continue;
        timed++;
        if (finding_summable(c, ins[i])) {
            summable++;
            total += ins[i]->time.stats.avg;
        }
    }
    etp_status st = ETP_OK;
    if (timed && c->execute) {
        finding_builder b;
        if (summable < timed) {
            finding_begin(&b, c, "delegation.boundary_conversions", ETP_FINDING_WITHHELD);
            finding_message(&b, "%u conversions sit next to delegate calls, but %u of their timings are shared, "
                                "not additive or not measured in every execution: their total is not formed",
                            count, timed - summable);
        } else {
            double share = finding_share(c, total);
            if (!(share >= finding_threshold(c, P_BOUNDARY_MIN_SHARE_PCT)))
                goto done;
            finding_begin(&b, c, "delegation.boundary_conversions", ETP_FINDING_FIRED);
            char v[48];
            finding_message(&b, "%u conversion%s next to delegate calls take %s, %.1f%% of Method::execute",
                            count, count == 1 ? "" : "s", finding_fmt(v, sizeof v, total, c->unit), share);
            finding_value(&b, "conversions_avg", total, c->unit, 1, "sum of the conversion instructions");
            finding_value(&b, "conversions_share", share, "%", 0, "conversions / method_execute");
        }
        finding_value(&b, "conversions", count, "count", 0, "instructions next to delegate calls");
        for (uint32_t i = 0; i < n; i++)
            if (mark[i])
                finding_entity(&b, ETP_FE_INSTRUCTION, ins[i]->id,
                               ins[i]->op_type ? ins[i]->op_type : ins[i]->name,
                               mark[i] == 3 ? "between delegate calls"
                               : mark[i] == 1 ? "before a delegate call"
                                              : "after a delegate call",
                               ins[i]);
        st = finding_end(&b);
    }
done:
    free(mark);
    return st;
}
