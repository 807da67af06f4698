/* inspect_program.c - give each block its method and each row its operator. */
#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/inspect_internal.h"
#include "analysis/inspect/method_match.h"

/* Instruction-level rows of a block as observations for method matching. */
static etp_observed *observe(const etp_inspect_block *blk, size_t *n, uint32_t *distinct)
{
    etp_observed *ev = calloc(blk->row_count ? blk->row_count : 1, sizeof *ev);
    if (!ev)
        return NULL;
    size_t k = 0;
    for (uint32_t r = 0; r < blk->row_count; r++) {
        const etp_inspect_row *row = &blk->rows[r];
        if (row->chain_index < 0)
            continue;
        ev[k].name = row->event_name;
        ev[k].name_len = row->event_name ? (uint32_t)strlen(row->event_name) : 0;
        ev[k].chain = row->chain_index;
        ev[k].instr = row->instruction_id;
        ev[k].delegated = row->is_delegated;
        ev[k].offset = row->first_offset;
        k++;
    }
    *n = k;
    *distinct = blk->summary.instructions_observed;
    return ev;
}

static void name_rows(etp_inspect_block *blk)
{
    const etp_plan *pl = blk->plan;
    for (uint32_t r = 0; r < blk->row_count; r++) {
        etp_inspect_row *row = &blk->rows[r];
        if (row->chain_index < 0 || (uint32_t)row->chain_index >= pl->chain_count)
            continue;
        const etp_chain *ch = &pl->chains[row->chain_index];
        if (row->instruction_id < 0 || (uint32_t)row->instruction_id >= ch->instruction_count)
            continue;
        const etp_instruction *in = &ch->instructions[row->instruction_id];
        row->has_instruction = 1;
        row->instr_kind = in->kind;
        if (in->kind == ETP_INSTR_KERNEL && in->a >= 0 && (uint32_t)in->a < pl->operator_count)
            row->op_name = pl->operators[in->a].full_name;
        else if (in->kind == ETP_INSTR_DELEGATE && in->a >= 0 && (uint32_t)in->a < pl->delegate_count)
            row->op_name = pl->delegates[in->a].id;
    }
}

etp_status etp_inspect_attach_program(etp_inspect *res, const etp_etdump *d, const etp_program *p,
                                      const char *method, int lenient, etp_error *err)
{
    if (!p)
        return ETP_OK;
    for (uint32_t i = 0; i < res->block_count; i++) {
        etp_inspect_block *blk = &res->blocks[i];
        size_t n;
        uint32_t distinct;
        etp_observed *ev = observe(blk, &n, &distinct);
        if (!ev)
            return etp_error_set(err, ETP_E_NOMEM, etp_etdump_path(d), ETP_NO_OFFSET, "out of memory");
        if (n == 0 && !method && p->plan_count != 1) {
            /* No instruction events (a load block, or method-level profiling):
             * nothing observable says which method this is. */
            free(ev);
            continue;
        }
        const etp_plan **cands;
        uint32_t nc;
        etp_status s = etp_select_plan(p, method ? method : (n == 0 ? p->plans[0].name : NULL), ev,
                                       n, distinct, etp_etdump_path(d), lenient, &cands, &nc, err);
        free(ev);
        if (s)
            return s;
        blk->candidates = cands;
        blk->candidate_count = nc;
        int same = 1;
        for (uint32_t k = 1; k < nc && same; k++)
            same = etp_plans_equivalent(cands[0], cands[k]);
        if (same) {
            blk->plan = cands[0];
            name_rows(blk);
        }
    }
    return ETP_OK;
}
