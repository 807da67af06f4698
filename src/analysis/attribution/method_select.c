/* method_select.c - the method an analysis is about (given, reported by the
 * runner log, or inferred from the program or the ETRecord) and the ETDump
 * runs that are its executions (method_select.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/method_match.h"
#include "analysis/attribution/method_select.h"
#include "etprof/runner_log.h"
#include "util/str.h"

static int is_execute_block(const etp_inspect_block *blk)
{
    return blk->name && !strcmp(blk->name, "Execute");
}

static int block_has_plan(const etp_inspect_block *blk, const etp_plan *pl)
{
    for (uint32_t i = 0; i < blk->candidate_count; i++)
        if (blk->candidates[i] == pl)
            return 1;
    return 0;
}

static int has_instruction_rows(const etp_inspect_block *blk)
{
    return blk->summary.instructions_observed > 0;
}

static int etrecord_has_method(const etp_etrecord *r, const char *m)
{
    return etp_etrecord_maps(r, m) != NULL || etp_etrecord_edge_program(r, m) != NULL;
}

/* Methods named by the ETRecord (maps first, then edge programs). */
static uint32_t etrecord_methods(const etp_etrecord *r, const char **out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->method_count && n < cap; i++)
        out[n++] = r->methods[i].method;
    for (uint32_t i = 0; i < r->program_count && n < cap; i++) {
        const etp_exported_program *ep = &r->programs[i];
        if (!ep->is_edge || !ep->method)
            continue;
        int dup = 0;
        for (uint32_t k = 0; k < n && !dup; k++)
            dup = !strcmp(out[k], ep->method);
        if (!dup)
            out[n++] = ep->method;
    }
    return n;
}

etp_status etp_select_method(etp_abuild *b, const etp_program *p, const etp_etrecord *r)
{
    etp_analysis *a = b->a;
    const char *dpath = etp_etdump_path(a->etdump);
    const etp_inspect *in = a->inspect;
    if (b->opt->method) {
        const char *m = b->opt->method;
        if (p && !etp_program_find_plan(p, m)) {
            char list[400];
            etp_join_names(list, sizeof list, p->plans, p->plan_count, etp_plan_name_at);
            return etp_error_set(b->err, ETP_E_USAGE, p->path, ETP_NO_OFFSET,
                                 "no method named '%s' (methods: %s)", m, list);
        }
        if (!p && r && !etrecord_has_method(r, m))
            return etp_error_set(b->err, ETP_E_USAGE, r->path, ETP_NO_OFFSET,
                                 "no method named '%s' in the ETRecord", m);
        a->method = m;
        a->method_basis = "given (--method)";
        return ETP_OK;
    }
    const etp_runner_log *log = b->opt->runner_log;
    if (log && log->method) {
        if ((p && !etp_program_find_plan(p, log->method)) || (!p && r && !etrecord_has_method(r, log->method)))
            return etp_error_set(b->err, ETP_E_MISMATCH, log->path, ETP_NO_OFFSET,
                                 "the runner ran method %s, which %s does not have", log->method,
                                 p ? p->path : r->path);
        a->method = log->method;
        a->method_basis = "reported by the runner log";
        return ETP_OK;
    }
    if (p) {
        if (p->plan_count == 1) {
            a->method = p->plans[0].name;
            a->method_basis = "the program's only method";
            return ETP_OK;
        }
        const char *found = NULL;
        uint32_t found_runs = 0;
        for (uint32_t i = 0; i < in->block_count; i++) {
            const etp_inspect_block *blk = &in->blocks[i];
            if (!is_execute_block(blk) || !has_instruction_rows(blk))
                continue;
            if (!blk->plan) {
                char list[400];
                etp_join_names(list, sizeof list, blk->candidates, blk->candidate_count,
                               etp_plan_ref_name_at);
                return etp_error_set(b->err, ETP_E_MISMATCH, dpath, ETP_NO_OFFSET,
                                     "cannot tell which method of %s ran in block %u (candidates: "
                                     "%s); pass --method",
                                     p->path, i, list);
            }
            if (found && strcmp(found, blk->plan->name))
                return etp_error_set(b->err, ETP_E_USAGE, dpath, ETP_NO_OFFSET,
                                     "the ETDump holds executions of several methods of %s (%s: %u "
                                     "runs, %s: %u runs, ...); pass --method",
                                     p->path, found, found_runs, blk->plan->name, blk->run_count);
            found = blk->plan->name;
            found_runs += blk->run_count;
        }
        if (!found)
            return etp_error_set(b->err, ETP_E_USAGE, dpath, ETP_NO_OFFSET,
                                 "no instruction-level events say which of the %u methods of %s ran; "
                                 "pass --method",
                                 p->plan_count, p->path);
        a->method = found;
        a->method_basis = "inferred from the program";
        return ETP_OK;
    }
    const char *ms[64];
    uint32_t n = etrecord_methods(r, ms, 64);
    if (n == 1) {
        a->method = ms[0];
        a->method_basis = "the ETRecord's only method";
        return ETP_OK;
    }
    /* Keep the methods whose maps know every timed instruction of every
     * Execute block (and every delegate event's instruction as a delegate). */
    const char *fit = NULL;
    uint32_t nfit = 0;
    for (uint32_t k = 0; k < n; k++) {
        const etp_method_maps *mm = etp_etrecord_maps(r, ms[k]);
        int ok = mm && mm->handle_count > 0, any = 0;
        for (uint32_t i = 0; ok && i < in->block_count; i++) {
            const etp_inspect_block *blk = &in->blocks[i];
            if (!is_execute_block(blk))
                continue;
            for (uint32_t q = 0; ok && q < blk->row_count; q++) {
                const etp_inspect_row *row = &blk->rows[q];
                if (row->chain_index < 0)
                    continue;
                any = 1;
                if (row->chain_index != 0 || !etp_etrecord_instr_handles(mm, row->instruction_id))
                    ok = 0;
                else if (row->is_delegated && mm->in_delegate_map &&
                         !etp_etrecord_instr_delegate(mm, row->instruction_id))
                    ok = 0;
            }
        }
        if (ok && any) {
            fit = ms[k];
            nfit++;
        }
    }
    if (nfit == 1) {
        a->method = fit;
        a->method_basis = "inferred from the ETRecord's maps";
        return ETP_OK;
    }
    char list[400];
    etp_join_names(list, sizeof list, ms, n, etp_string_at);
    return etp_error_set(b->err, ETP_E_USAGE, r->path, ETP_NO_OFFSET,
                         n ? "cannot tell which of the ETRecord's methods ran (%s); pass --method "
                             "or --pte"
                           : "the ETRecord names no method%s; pass --method",
                         list);
}

/* Execute blocks of the selected method become the analysis' executions. */
etp_status etp_select_executions(etp_abuild *b, const etp_program *p)
{
    etp_analysis *a = b->a;
    const etp_inspect *in = a->inspect;
    b->nruns = etp_etdump_run_count(a->etdump);
    b->exec_of_run = malloc((b->nruns ? b->nruns : 1) * sizeof *b->exec_of_run);
    if (!b->exec_of_run)
        return etp_abuild_oom(b);
    for (uint32_t i = 0; i < b->nruns; i++)
        b->exec_of_run[i] = UINT32_MAX;
    uint32_t total = 0;
    for (uint32_t i = 0; i < in->block_count; i++) {
        const etp_inspect_block *blk = &in->blocks[i];
        if (!is_execute_block(blk))
            continue;
        int take;
        if (!p)
            take = 1;
        else if (!has_instruction_rows(blk))
            take = 1; /* nothing in it contradicts the selected method */
        else
            take = block_has_plan(blk, a->plan);
        if (!take)
            continue;
        for (uint32_t k = 0; k < blk->run_count; k++) {
            b->exec_of_run[blk->runs[k]] = 0;
            total++;
        }
    }
    if (total == 0)
        return etp_error_set(b->err, ETP_E_MISMATCH, etp_etdump_path(a->etdump), ETP_NO_OFFSET,
                             "no Execute block of the ETDump belongs to method %s%s%s", a->method,
                             p ? " of " : "", p ? p->path : "");
    /* The method's executions in run order; the first --skip-executions of
     * them (warm-up) are left out of every statistic from here on. */
    uint32_t skip = b->opt->skip_executions;
    if (skip >= total)
        return etp_error_set(b->err, ETP_E_USAGE, etp_etdump_path(a->etdump), ETP_NO_OFFSET,
                             "--skip-executions %u leaves none of the %u executions of method %s",
                             skip, total, a->method);
    b->method_runs = malloc(total * sizeof *b->method_runs);
    a->executions = malloc((total - skip) * sizeof *a->executions);
    if (!a->executions || !b->method_runs)
        return etp_abuild_oom(b);
    uint32_t e = 0, m = 0;
    for (uint32_t ri = 0; ri < b->nruns; ri++)
        if (b->exec_of_run[ri] == 0) {
            b->method_runs[m++] = ri;
            if (m <= skip) {
                b->exec_of_run[ri] = UINT32_MAX;
                continue;
            }
            b->exec_of_run[ri] = e;
            a->executions[e++] = ri;
        }
    a->method_executions = total;
    a->skipped_executions = skip;
    a->execution_count = b->nexec = total - skip;
    return ETP_OK;
}

uint32_t etp_analysis_execution_of_run(const etp_analysis *a, uint32_t run)
{
    uint32_t lo = 0, hi = a->execution_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->executions[mid] < run)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->execution_count && a->executions[lo] == run ? lo : UINT32_MAX;
}
