/* columns_read.c - a column of many entities in one call (etprof/columns.h). */
#include <string.h>

#include "etprof/columns.h"

uint32_t etp_analysis_entity_count(const etp_analysis *a) { return a ? a->entity_count : 0; }

etp_status etp_column_read(const etp_analysis *a, etp_column_id id, uint32_t first, uint32_t n,
                           etp_cell *cells, uint8_t *present)
{
    const etp_column *c = etp_column_get(id);
    if (!a || !c || first > a->entity_count || n > a->entity_count - first)
        return ETP_E_USAGE;
    if (n && (!cells || !present))
        return ETP_E_USAGE;
    for (uint32_t k = 0; k < n; k++) {
        const etp_entity *e = &a->entities[first + k];
        uint8_t bits = 0;
        if (etp_column_group_present(c->group, e))
            bits |= ETP_COLREAD_GROUP;
        if (c->present(e))
            bits |= ETP_COLREAD_VALUE;
        present[k] = bits;
        /* A shown group writes all its members (etp_column_group_present). */
        if ((bits & ETP_COLREAD_VALUE) ||
            (c->group != ETP_COLG_ENTITY && (bits & ETP_COLREAD_GROUP)))
            cells[k] = c->get(a, e);
        else
            memset(&cells[k], 0, sizeof cells[k]);
    }
    return ETP_OK;
}

uint32_t etp_analysis_nx_row_count(const etp_analysis *a) { return a ? a->nx_row_count : 0; }

etp_status etp_column_read_nx(const etp_analysis *a, etp_column_id id, uint32_t first, uint32_t n,
                              etp_cell *cells, uint8_t *present)
{
    const etp_column *c = etp_column_get(id);
    if (!a || !c || first > a->nx_row_count || n > a->nx_row_count - first)
        return ETP_E_USAGE;
    if (n && (!cells || !present))
        return ETP_E_USAGE;
    for (uint32_t k = 0; k < n; k++) {
        const etp_nx_row *r = &a->nx_rows[first + k];
        uint8_t bits = 0;
        if (etp_column_group_present_nx(c->group, r))
            bits |= ETP_COLREAD_GROUP;
        if (c->nx_present(r))
            bits |= ETP_COLREAD_VALUE;
        present[k] = bits;
        if ((bits & ETP_COLREAD_VALUE) ||
            (c->group != ETP_COLG_ENTITY && (bits & ETP_COLREAD_GROUP)))
            cells[k] = c->nx_get(a, r);
        else
            memset(&cells[k], 0, sizeof cells[k]);
    }
    return ETP_OK;
}
