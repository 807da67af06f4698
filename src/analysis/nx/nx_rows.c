/* nx_rows.c - the operators table's VGF NX rows (etp_nx_row, etprof/columns.h):
 * one per segment, cascade and chain of a->nx, in its order, with the lists
 * the column cells point at (TOSA op ids, linked SPIR-V ids) and the
 * instruction's backend. Kept apart from a->entities on purpose (see
 * etp_nx_row): these are group measurements in cycles, not timed entities. */
#include <stdlib.h>
#include <string.h>

#include "analysis/nx/nx_rows.h"
#include "etprof/columns.h"
#include "etprof/nx_stats.h"

const char *etp_nx_row_kind_name(etp_nx_kind k)
{
    switch (k) {
    case ETP_NX_SEGMENT: return "nx_segment";
    case ETP_NX_CASCADE: return "nx_cascade";
    case ETP_NX_CHAIN: return "nx_chain";
    default: return NULL; /* the model (summary.json) and stripes (nx_hierarchy.json) */
    }
}

/* The delegate backend of DelegateCall instruction @p instr, NULL when the
 * analysis has no such instruction entity (e.g. no program). */
static const char *backend_of(const etp_analysis *a, int32_t instr)
{
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == ETP_ENTITY_INSTRUCTION && e->instruction == instr && e->instr_kind == ETP_INSTR_DELEGATE)
            return e->backend;
    }
    return NULL;
}

static void row_free(etp_nx_row *r)
{
    free(r->covers);
    free(r->spirv_ids);
}

/* Whether TOSA op id @p tosa of @p e is a fill-in chain's placeholder (the
 * aggregation gives a stripe the debug database names no chain for one
 * made-up op, "tosa_<stripe>"): a fill-in chain has only placeholders, and a
 * cascade holds those of the fill-in chains sharing its stripes. Such ids
 * name no TOSA op, so nx_covers leaves them out (nx_filled_in says it). */
static int placeholder(const etp_nx_result *r, const etp_nx_entity *e, const char *tosa)
{
    if (e->kind == ETP_NX_CHAIN)
        return e->filled;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *c = &r->entities[i];
        if (c->kind != ETP_NX_CHAIN || !c->filled || c->instruction_id != e->instruction_id ||
            c->segment_id != e->segment_id)
            continue;
        for (uint32_t k = 0; k < c->op_count; k++)
            if (c->ops[k].tosa_id && !strcmp(c->ops[k].tosa_id, tosa))
                return 1;
    }
    return 0;
}

static int fill(etp_nx_row *row, const etp_nx_result *r, const etp_nx_entity *e)
{
    uint32_t n = e->op_count;
    row->covers = calloc(n ? n : 1, sizeof *row->covers);
    row->spirv_ids = calloc(n ? n : 1, sizeof *row->spirv_ids);
    if (!row->covers || !row->spirv_ids)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        const etp_nx_op *o = &e->ops[k];
        if (!o->tosa_id || placeholder(r, e, o->tosa_id))
            continue;
        row->covers[row->cover_count++] = o->tosa_id;
        if (o->spirv_id < 0)
            continue;
        int seen = 0; /* a few ops per chain: linear */
        for (uint32_t j = 0; j < row->spirv_count && !seen; j++)
            seen = row->spirv_ids[j] == o->spirv_id;
        if (!seen)
            row->spirv_ids[row->spirv_count++] = o->spirv_id;
    }
    return 0;
}

etp_status etp_nx_rows_build(etp_analysis *a, etp_error *err)
{
    const etp_nx_result *r = a->nx;
    if (!r)
        return ETP_OK;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->entity_count; i++)
        n += etp_nx_row_kind_name(r->entities[i].kind) != NULL;
    if (!n)
        return ETP_OK;
    etp_nx_row *rows = calloc(n, sizeof *rows);
    if (!rows)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "NX rows: out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *e = &r->entities[i];
        const char *kind = etp_nx_row_kind_name(e->kind);
        if (!kind)
            continue;
        etp_nx_row *row = &rows[k++];
        row->nx = e;
        row->kind = kind;
        row->backend = backend_of(a, e->instruction_id);
        if (fill(row, r, e)) {
            a->nx_rows = rows;
            a->nx_row_count = k;
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "NX rows: out of memory");
        }
    }
    a->nx_rows = rows;
    a->nx_row_count = n;
    return ETP_OK;
}

void etp_nx_rows_free(etp_analysis *a)
{
    for (uint32_t i = 0; i < a->nx_row_count; i++)
        row_free(&a->nx_rows[i]);
    free(a->nx_rows);
    a->nx_rows = NULL;
    a->nx_row_count = 0;
}
