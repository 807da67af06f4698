/* publish_operators.c - the per-entity table of a bundle: operators.csv
 * (RFC 4180, CRLF) or operators.json (schema etprof.operators), both from
 * the column table of etprof/columns.h. The entities come first; an
 * analysis with VGF statistics adds its NX rows (segments, cascades,
 * chains: cycle groups, etp_nx_row) after them in operators.csv and as
 * "nx_groups" in operators.json. */
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/report/analysis_report.h"
#include "util/csvw.h"
#include "util/jsonw.h"

/* The columns of operators.csv, in its order (its schema: do not reorder). */
static const etp_column_id csv_columns[] = {
    ETP_COL_ID,          ETP_COL_KIND,       ETP_COL_NAME,          ETP_COL_OP_TYPE,
    ETP_COL_BACKEND,     ETP_COL_CHAIN,      ETP_COL_INSTRUCTION,   ETP_COL_INSTRUCTION_KIND,
    ETP_COL_DEBUG_HANDLES, ETP_COL_TIMING_SOURCE, ETP_COL_EXECUTIONS, ETP_COL_EVENTS,
    ETP_COL_AVG,         ETP_COL_P10,        ETP_COL_P50,           ETP_COL_P90,
    ETP_COL_MIN,         ETP_COL_MAX,        ETP_COL_ADDITIVE,      ETP_COL_SHARED,
    ETP_COL_CO_ATTRIBUTED, ETP_COL_UNRESOLVED, ETP_COL_KERNEL_AVG,  ETP_COL_DISPATCH_AVG,
    ETP_COL_MODULE_PATH,
    /* appended: the Ethos-U split of DelegateCall instructions */
    ETP_COL_NPU_EXECUTE_AVG, ETP_COL_NPU_AVG, ETP_COL_NPU_INPUT_COPY_AVG,
    ETP_COL_NPU_OUTPUT_COPY_AVG, ETP_COL_NPU_REST_AVG,
    /* VGF NX cycle groups (the NX rows after the entities; empty for entities). */
    ETP_COL_NX_UNIT,     ETP_COL_NX_EXECUTIONS, ETP_COL_NX_TOTAL_AVG, ETP_COL_NX_OP_AVG,
    ETP_COL_NX_TOTAL_MIN, ETP_COL_NX_TOTAL_MEDIAN, ETP_COL_NX_TOTAL_MAX, ETP_COL_NX_FULL_COVERAGE,
    ETP_COL_NX_PARENT,   ETP_COL_NX_SEGMENT,    ETP_COL_NX_STRIPES,   ETP_COL_NX_FILLED,
    ETP_COL_NX_COVERS,   ETP_COL_NX_SPIRV_IDS,  ETP_COL_NX_SOURCE_OPERATORS,
};
#define CSV_COLUMNS (sizeof csv_columns / sizeof csv_columns[0])

const etp_column_id *etp_operators_csv_columns(size_t *count)
{
    *count = CSV_COLUMNS;
    return csv_columns;
}

/* One cell: empty when the row has no value in the column. */
static void csv_value(etp_csvw *w, const etp_column *c, etp_cell v)
{
    switch (c->type) {
    case ETP_COLT_STR: etp_csvw_str(w, v.s); break;
    case ETP_COLT_INT: etp_csvw_int(w, v.i); break;
    case ETP_COLT_UINT: etp_csvw_uint(w, v.u); break;
    case ETP_COLT_NUM: etp_csvw_double(w, v.d); break;
    case ETP_COLT_BOOL: etp_csvw_str(w, v.b ? "true" : "false"); break;
    case ETP_COLT_INTS: etp_csvw_ints(w, v.ints.v, v.ints.n); break;
    case ETP_COLT_STRS: etp_csvw_strs(w, v.strs.v, v.strs.n); break;
    }
}

static void csv_cell(etp_csvw *w, const etp_analysis *a, const etp_column *c, const etp_entity *e)
{
    if (!c->present(e))
        etp_csvw_empty(w);
    else
        csv_value(w, c, c->get(a, e));
}

static void csv_nx_cell(etp_csvw *w, const etp_analysis *a, const etp_column *c, const etp_nx_row *r)
{
    if (!c->nx_present(r))
        etp_csvw_empty(w);
    else
        csv_value(w, c, c->nx_get(a, r));
}

void etp_operators_csv_write(const etp_analysis *a, etp_csvw *w)
{
    const etp_column *cols[CSV_COLUMNS];
    for (size_t k = 0; k < CSV_COLUMNS; k++)
        cols[k] = etp_column_get(csv_columns[k]);
    for (size_t k = 0; k < CSV_COLUMNS; k++) {
        char h[96];
        int n = etp_column_header(cols[k], a->target_unit, h, sizeof h);
        etp_csvw_raw(w, h, (size_t)n < sizeof h ? (size_t)n : sizeof h - 1);
    }
    etp_csvw_end_row(w);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        for (size_t k = 0; k < CSV_COLUMNS; k++)
            csv_cell(w, a, cols[k], &a->entities[i]);
        etp_csvw_end_row(w);
    }
    /* The NX rows (kinds nx_segment / nx_cascade / nx_chain) after every
     * entity: cycle groups with empty time columns (etprof/columns.h). */
    for (uint32_t i = 0; i < a->nx_row_count; i++) {
        for (size_t k = 0; k < CSV_COLUMNS; k++)
            csv_nx_cell(w, a, cols[k], &a->nx_rows[i]);
        etp_csvw_end_row(w);
    }
}

char *etp_operators_csv(const etp_analysis *a, size_t *len)
{
    etp_csvw w;
    etp_csvw_init(&w);
    etp_operators_csv_write(a, &w);
    return etp_csvw_take(&w, len);
}

char *etp_operators_json(const etp_analysis *a, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_OPERATORS_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(&w, "method", a->method);
    etp_jw_kuint(&w, "executions", a->execution_count);
    etp_jw_key(&w, "entities");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->entity_count; i++)
        etp_json_entity(&w, a, &a->entities[i]);
    etp_jw_arr_end(&w);
    /* The NX rows as their own array: "entities" keeps its v1 kinds (the
     * schema fixes them), and readers that do not know "nx_groups" ignore
     * it. Written only when the analysis has VGF statistics. */
    if (a->nx_row_count) {
        etp_jw_key(&w, "nx_groups");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < a->nx_row_count; i++)
            etp_json_nx_row(&w, a, &a->nx_rows[i]);
        etp_jw_arr_end(&w);
    }
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}
