/* block_summary.c - per-execution totals of a block: execute time, operator
 * and delegate calls, native kernels, dispatch and framework overhead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/inspect_internal.h"
#include "util/hashmap.h"

static uint64_t instr_key(const etp_inspect_row *r)
{
    return etp_hash_u64((uint64_t)(uint32_t)r->chain_index, (uint64_t)(uint32_t)r->instruction_id);
}

static int is(const etp_inspect_row *r, const char *name)
{
    return r->event_name && !strcmp(r->event_name, name);
}

/* Add each run's occurrences of @p row into acc[run] (sign +1/-1). Sets
 * *overflow when a sum leaves the int64 range: only absurd tick values (a
 * damaged or hostile ETDump) get there, and then no figure is computed from
 * these sums rather than a wrapped one. */
static void accumulate(const etp_inspect_row *row, uint32_t nruns, int64_t *acc, int sign,
                       int *overflow)
{
    if (row->max_per_run == 1 && row->sample_count == nruns) {
        /* The usual row: one sample per run, sample r in run r. */
        for (uint32_t r = 0; r < nruns; r++) {
            uint64_t t = row->ticks[r];
            int64_t v = t > INT64_MAX ? 0 : (sign < 0 ? -(int64_t)t : (int64_t)t);
            if (t > INT64_MAX || __builtin_add_overflow(acc[r], v, &acc[r]))
                *overflow = 1;
        }
        return;
    }
    uint64_t k = 0;
    for (uint32_t r = 0; r < nruns; r++)
        for (uint32_t c = 0; c < row->per_run[r]; c++) {
            uint64_t t = row->ticks[k++];
            int64_t v = t > INT64_MAX ? 0 : (sign < 0 ? -(int64_t)t : (int64_t)t);
            if (t > INT64_MAX || __builtin_add_overflow(acc[r], v, &acc[r]))
                *overflow = 1;
        }
}

etp_status etp_inspect_summarize(etp_inspect *res, etp_inspect_block *blk, etp_error *err)
{
    etp_block_summary *s = &blk->summary;
    memset(s, 0, sizeof *s);
    uint32_t n = blk->run_count;
    if (n == 0)
        return ETP_OK;
    enum { EXEC, OPS, DELS, OTHER, NATIVE, DISPATCH, OVERHEAD, NACC };
    int64_t *acc = calloc((size_t)n * NACC, sizeof *acc);
    if (!acc)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    int64_t *a[NACC];
    for (int i = 0; i < NACC; i++)
        a[i] = acc + (size_t)i * n;

    /* Index kernel rows and count distinct instructions in one pass. */
    etp_hm kernels, instrs;
    etp_hm_init(&kernels);
    etp_hm_init(&instrs);
    for (uint32_t r = 0; r < blk->row_count; r++) {
        const etp_inspect_row *row = &blk->rows[r];
        if (row->chain_index < 0)
            continue;
        uint64_t key = instr_key(row);
        size_t cur = 0;
        uint32_t q;
        int seen = 0;
        while (!seen && etp_hm_next(&instrs, key, &cur, &q))
            seen = blk->rows[q].chain_index == row->chain_index &&
                   blk->rows[q].instruction_id == row->instruction_id;
        if (!seen) {
            s->instructions_observed++;
            if (etp_hm_put(&instrs, key, r))
                goto oom;
        }
        if (!row->is_delegated && row->event_name && !strncmp(row->event_name, "native_call_", 12) &&
            etp_hm_put(&kernels, key, r))
            goto oom;
    }

    int execute_rows = 0, execute_ok = 1, overflow = 0;
    for (uint32_t r = 0; r < blk->row_count; r++) {
        const etp_inspect_row *row = &blk->rows[r];
        if (row->is_framework) {
            if (is(row, "Method::execute")) {
                execute_rows++;
                for (uint32_t k = 0; k < n; k++)
                    execute_ok &= row->per_run[k] == 1;
                accumulate(row, n, a[EXEC], 1, &overflow);
            }
            continue;
        }
        if (row->is_delegated)
            continue; /* nested inside a DELEGATE_CALL; never added on top */
        if (is(row, "OPERATOR_CALL")) {
            accumulate(row, n, a[OPS], 1, &overflow);
            /* Pair it with the same instruction's kernel event, if any. */
            const etp_inspect_row *kernel = NULL;
            size_t cur = 0;
            uint32_t q;
            while (!kernel && etp_hm_next(&kernels, instr_key(row), &cur, &q))
                if (blk->rows[q].chain_index == row->chain_index &&
                    blk->rows[q].instruction_id == row->instruction_id)
                    kernel = &blk->rows[q];
            if (kernel) {
                accumulate(row, n, a[DISPATCH], 1, &overflow);
                accumulate(kernel, n, a[DISPATCH], -1, &overflow);
            } else
                s->operator_calls_without_kernel++;
        } else if (is(row, "DELEGATE_CALL")) {
            accumulate(row, n, a[DELS], 1, &overflow);
        } else if (is(row, "JF_CALL") || is(row, "MOVE_CALL") || is(row, "FREE_CALL")) {
            accumulate(row, n, a[OTHER], 1, &overflow);
        } else if (row->event_name && !strncmp(row->event_name, "native_call_", 12)) {
            accumulate(row, n, a[NATIVE], 1, &overflow);
        }
    }
    etp_hm_free(&kernels);
    etp_hm_free(&instrs);
    for (uint32_t k = 0; k < n; k++) {
        int64_t o;
        if (__builtin_sub_overflow(a[EXEC][k], a[OPS][k], &o) ||
            __builtin_sub_overflow(o, a[DELS][k], &o) || __builtin_sub_overflow(o, a[OTHER][k], &o))
            overflow = 1;
        a[OVERHEAD][k] = o;
    }
    if (overflow) {
        /* Sums beyond 64 bits: leave every figure without samples. */
        free(acc);
        return ETP_OK;
    }
    s->has_execute = execute_rows == 1 && execute_ok;
    double dv = res->divisor;
    if (s->has_execute) {
        etp_stats_from_signed(a[EXEC], n, dv, &s->execute);
        etp_stats_from_signed(a[OVERHEAD], n, dv, &s->execute_overhead);
    }
    etp_stats_from_signed(a[OPS], n, dv, &s->operator_calls);
    etp_stats_from_signed(a[DELS], n, dv, &s->delegate_calls);
    etp_stats_from_signed(a[OTHER], n, dv, &s->other_calls);
    etp_stats_from_signed(a[NATIVE], n, dv, &s->native_kernels);
    etp_stats_from_signed(a[DISPATCH], n, dv, &s->dispatch);
    free(acc);
    return ETP_OK;
oom:
    etp_hm_free(&kernels);
    etp_hm_free(&instrs);
    free(acc);
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}
