/*
 * etprof/tensor_columns.h - the columns of a logged-tensor table, defined
 * once: `etprof tensors` (text, --csv, --json), detailed/tensors.csv and
 * the Python package read a logged value through this table only, so a
 * value is named, unit-labelled and formatted the same way everywhere.
 *
 * Every statistic of a tensor is in the tensor's own values (which carry no
 * unit etprof knows: "value"), counts are elements, sizes bytes; none of
 * them may be added across tensors except the counts and byte sizes
 * (additive 1), and a sum of those only counts elements, never a figure.
 *
 * The table is static and read-only: safe from any thread. Reading a cell
 * allocates nothing except the text cells noted (shape, debug handles,
 * dtype), which are formatted into the caller's buffer.
 */
#ifndef ETPROF_TENSOR_COLUMNS_H
#define ETPROF_TENSOR_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/tensors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_tcol_id {
    ETP_TCOL_KEY = 0, ETP_TCOL_ORIGIN, ETP_TCOL_RUN, ETP_TCOL_EXECUTION, ETP_TCOL_EVENT, ETP_TCOL_ITEM,
    ETP_TCOL_POSITION, ETP_TCOL_CHAIN, ETP_TCOL_INSTRUCTION, ETP_TCOL_DELEGATE_ID, ETP_TCOL_NAME,
    ETP_TCOL_VALUE_INDEX, ETP_TCOL_ENTITY, ETP_TCOL_DEBUG_HANDLES, ETP_TCOL_SOURCE_OPERATORS,
    ETP_TCOL_DTYPE, ETP_TCOL_SHAPE, ETP_TCOL_STRIDES, ETP_TCOL_DIM_ORDER, ETP_TCOL_NUMEL, ETP_TCOL_NBYTES, ETP_TCOL_BUFFER_OFFSET,
    ETP_TCOL_DECODED, ETP_TCOL_COUNT, ETP_TCOL_FINITE, ETP_TCOL_NAN, ETP_TCOL_POS_INF, ETP_TCOL_NEG_INF,
    ETP_TCOL_ZERO, ETP_TCOL_MIN, ETP_TCOL_MAX, ETP_TCOL_MEAN, ETP_TCOL_STD, ETP_TCOL_MAX_ABS,
    ETP_TCOL_QUANT_SCALE, ETP_TCOL_QUANT_ZERO_POINT,
    ETP_TCOL_COUNT_OF_COLUMNS
} etp_tcol_id;

/** What a cell holds. */
typedef enum etp_tcell_kind {
    ETP_TCELL_NONE = 0,          /**< no value (CSV: empty; JSON: null) */
    ETP_TCELL_STR, ETP_TCELL_INT, ETP_TCELL_UINT, ETP_TCELL_DOUBLE, ETP_TCELL_BOOL
} etp_tcell_kind;

typedef struct etp_tcell {
    etp_tcell_kind kind;
    const char *s;               /**< STR: borrowed from the set or the caller's buffer */
    int64_t i;
    uint64_t u;
    double d;                    /**< DOUBLE: may be NaN/Inf only where a column says so */
} etp_tcell;

typedef struct etp_tcol {
    etp_tcol_id id;
    const char *name;            /**< CSV header and JSON member */
    const char *unit;            /**< "elements", "bytes", "value" (the tensor's own), or NULL */
    int additive;                /**< 1: may be added across tensors */
    const char *meaning;         /**< one line, for --help and docs */
} etp_tcol;

/** The columns, in etp_tcol_id order (ETP_TCOL_COUNT_OF_COLUMNS of them; static). */
const etp_tcol *etp_tensor_columns(void);

/** ETP_TCOL_COUNT_OF_COLUMNS: how many etp_tensor_columns() returns, for
 *  bindings that cannot read the enum. */
size_t etp_tensor_column_count(void);

/** Cell @p id of @p t; text cells may be formatted into @p buf (@p cap bytes). */
etp_tcell etp_tensor_cell(const etp_logged_tensor *t, etp_tcol_id id, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
