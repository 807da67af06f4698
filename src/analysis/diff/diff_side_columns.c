/* diff_side_columns.c - the entity columns a diff side is made of, read
 * through the column table (etprof/columns.h) whether the side comes from
 * an analysis in memory or from a bundle's operators table, and the entry
 * one row of them gives: both sides read the same columns by the same
 * rules, and no column name is spelled here or there. */
#include <string.h>

#include "analysis/diff/diff_internal.h"
#include "etprof/columns.h"

enum { C_ID, C_KIND, C_NAME, C_OP_TYPE, C_BACKEND, C_EXECUTIONS, C_AVG, C_P50, C_MIN, C_MAX,
       C_ADDITIVE, C_SHARED, C_COUNT };

const etp_column_id etp_diff_side_columns[ETP_DIFF_SIDE_COLUMNS] = {
    [C_ID] = ETP_COL_ID,
    [C_KIND] = ETP_COL_KIND,
    [C_NAME] = ETP_COL_NAME,
    [C_OP_TYPE] = ETP_COL_OP_TYPE,
    [C_BACKEND] = ETP_COL_BACKEND,
    [C_EXECUTIONS] = ETP_COL_EXECUTIONS,
    [C_AVG] = ETP_COL_AVG,
    [C_P50] = ETP_COL_P50,
    [C_MIN] = ETP_COL_MIN,
    [C_MAX] = ETP_COL_MAX,
    [C_ADDITIVE] = ETP_COL_ADDITIVE,
    [C_SHARED] = ETP_COL_SHARED,
};

/* The table must list every column of the enum, and nothing else. */
typedef char side_columns_complete[C_COUNT == ETP_DIFF_SIDE_COLUMNS ? 1 : -1];

/* The diff kind of the entity kind named @p s; ETP_DIFF_MODEL when none. */
static etp_diff_kind kind_of(const char *s)
{
    static const struct {
        etp_entity_kind entity;
        etp_diff_kind diff;
    } kinds[] = {
        {ETP_ENTITY_INSTRUCTION, ETP_DIFF_INSTRUCTION},
        {ETP_ENTITY_DELEGATE_EVENT, ETP_DIFF_DELEGATE_EVENT},
        {ETP_ENTITY_OPERATOR, ETP_DIFF_OPERATOR},
    };
    for (size_t i = 0; s && i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(s, etp_entity_kind_name(kinds[i].entity)))
            return kinds[i].diff;
    return ETP_DIFF_MODEL;
}

int etp_diff_entry_from_cells(etp_diff_entry *d, const etp_cell *v, const uint8_t *has)
{
    memset(d, 0, sizeof *d);
    d->kind = kind_of(has[C_KIND] ? v[C_KIND].s : NULL);
    if (d->kind == ETP_DIFF_MODEL)
        return -1;
    d->id = has[C_ID] ? v[C_ID].s : NULL;
    d->name = has[C_NAME] ? v[C_NAME].s : NULL;
    d->op_type = has[C_OP_TYPE] ? v[C_OP_TYPE].s : NULL;
    d->backend = has[C_BACKEND] ? v[C_BACKEND].s : NULL;
    int timed = has[C_EXECUTIONS] && v[C_EXECUTIONS].u > 0;
    for (int k = C_AVG; k <= C_MAX; k++)
        timed = timed && has[k];
    d->available = timed;
    d->reason = timed ? NULL : "no timing";
    if (timed) {
        d->n = v[C_EXECUTIONS].u;
        d->avg = v[C_AVG].d;
        d->p50 = v[C_P50].d;
        d->min = v[C_MIN].d;
        d->max = v[C_MAX].d;
    }
    d->additive = has[C_ADDITIVE] && v[C_ADDITIVE].b;
    d->shared = has[C_SHARED] && v[C_SHARED].b;
    return 0;
}
