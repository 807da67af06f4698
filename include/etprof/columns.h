/*
 * etprof/columns.h - the per-entity columns of an analysis, defined once.
 *
 * Every value an output shows for an entity (operators.csv, operators.json,
 * the analysis JSON, the terminal and HTML tables) is a column of this
 * table: its JSON member name, its table header, whether it is a time in
 * the analysis' unit, how to read it from an etp_entity and whether the
 * entity has it. Outputs choose columns and lay them out; they do not read
 * entity fields themselves, so a new column appears everywhere it is chosen
 * and a value is formatted the same way in every file. The operators table
 * also has rows that are not entities, the VGF NX cycle groups (etp_nx_row,
 * below): each column says how to read those too (nx_present / nx_get).
 *
 * The table is static and read-only: safe to use from any thread. Reading a
 * cell allocates nothing; string and list cells point into the entity (valid
 * while the analysis lives).
 */
#ifndef ETPROF_COLUMNS_H
#define ETPROF_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which column. The table lists them in this order: the order of the
 *  members of an entity in the JSON files. */
typedef enum etp_column_id {
    ETP_COL_ID = 0,            /**< stable id ("forward_0_3", node name, ...) */
    ETP_COL_KIND,              /**< instruction | delegate_event | operator */
    ETP_COL_NAME,              /**< display name */
    ETP_COL_OP_TYPE,
    ETP_COL_BACKEND,           /**< delegate backend id, when delegated */
    ETP_COL_CHAIN,             /**< not for operators */
    ETP_COL_INSTRUCTION,       /**< not for operators */
    ETP_COL_INSTRUCTION_KIND,  /**< not for operators; no value when unknown */
    ETP_COL_DEBUG_HANDLES,
    ETP_COL_TIMING_SOURCE,     /**< where the time comes from (timed entities) */
    ETP_COL_TIMING_UNIT,
    ETP_COL_EXECUTIONS,        /**< executions with events */
    ETP_COL_EVENTS,            /**< contributing event records */
    ETP_COL_AVG,               /**< statistics of the per-execution sums (timed entities) */
    ETP_COL_P10,
    ETP_COL_P50,
    ETP_COL_P90,
    ETP_COL_MIN,
    ETP_COL_MAX,
    ETP_COL_ADDITIVE,          /**< its avg may be added to other additive entities' */
    ETP_COL_SHARED,            /**< shares its events with co-attributed entities */
    ETP_COL_CO_ATTRIBUTED,     /**< ids of the entities sharing its timing */
    ETP_COL_KERNEL_UNIT,       /**< kernel (native_call_*) time of KernelCall instructions */
    ETP_COL_KERNEL_EXECUTIONS,
    ETP_COL_KERNEL_EVENTS,
    ETP_COL_KERNEL_AVG,
    ETP_COL_KERNEL_P10,
    ETP_COL_KERNEL_P50,
    ETP_COL_KERNEL_P90,
    ETP_COL_KERNEL_MIN,
    ETP_COL_KERNEL_MAX,
    ETP_COL_DISPATCH_UNIT,     /**< OPERATOR_CALL minus kernel, per execution */
    ETP_COL_DISPATCH_EXECUTIONS,
    ETP_COL_DISPATCH_AVG,
    ETP_COL_DISPATCH_P10,
    ETP_COL_DISPATCH_P50,
    ETP_COL_DISPATCH_P90,
    ETP_COL_DISPATCH_MIN,
    ETP_COL_DISPATCH_MAX,
    ETP_COL_UNRESOLVED,        /**< handles of its events that match no node (when any) */
    ETP_COL_MODULE_PATH,       /**< operators only */
    ETP_COL_MODULE_TYPE,
    ETP_COL_SOURCE_FN,
    ETP_COL_STACK_TRACE,
    ETP_COL_INSTRUCTIONS,      /**< ids of the instructions that ran it */
    /* Ethos-U split of a DelegateCall instruction with EthosUBackend events
     * (etp_entity.npu; etprof/device_report.h): per execution, the sum over
     * its calls, averaged over the executions with such events. */
    ETP_COL_NPU_EXECUTE_AVG,   /**< EthosUBackend::execute() as a whole */
    ETP_COL_NPU_AVG,           /**< the NPU run ("+EthosUBackend::execute()NPU") */
    ETP_COL_NPU_INPUT_COPY_AVG,  /**< input copy on the CPU (handles.input.memcpy()) */
    ETP_COL_NPU_OUTPUT_COPY_AVG, /**< output copy on the CPU (1.0 only) */
    ETP_COL_NPU_REST_AVG,      /**< execute() minus NPU and copies: the rest on the CPU */
    /* VGF NX cycle groups (etprof/nx_stats.h): the group "nx" of the NX rows
     * (etp_nx_row: segments, cascades, chains), absent for entities. Group
     * measurements in cycles: never a time, never a per-operator cost. */
    ETP_COL_NX_UNIT,           /**< "cycles" */
    ETP_COL_NX_EXECUTIONS,     /**< executions the group was measured in */
    ETP_COL_NX_TOTAL_AVG,      /**< mean total cycles over those executions */
    ETP_COL_NX_OP_AVG,         /**< mean op cycles */
    ETP_COL_NX_TOTAL_MIN,
    ETP_COL_NX_TOTAL_MEDIAN,
    ETP_COL_NX_TOTAL_MAX,
    ETP_COL_NX_FULL_COVERAGE,  /**< measured in every execution with VGF statistics: its means
                                    add to other full-coverage groups' (of one level) */
    ETP_COL_NX_PARENT,         /**< id of the parent segment / cascade row */
    ETP_COL_NX_SEGMENT,        /**< VGF segment index */
    ETP_COL_NX_STRIPES,        /**< stripes recorded in it */
    ETP_COL_NX_FILLED,         /**< a fill-in chain/cascade (no debug-database entry) */
    ETP_COL_NX_COVERS,         /**< the debug-database TOSA op ids it covers (fill-in placeholders
                                    left out: nx_filled_in) */
    ETP_COL_NX_SPIRV_IDS,      /**< the SPIR-V result ids (VGF graph operations) they link to */
    ETP_COL_NX_SOURCE_OPERATORS, /**< chains and cascades: the source operators the ETRecord's
                                      delegate map names for their ops (links, not costs; why an
                                      op has none: detailed/nx_hierarchy.json) */
    ETP_COL_COUNT
} etp_column_id;

/**
 * One row of the operators table that is not an entity: a VGF NX cycle
 * group (segment, cascade or chain of a->nx; the model is summary.json's,
 * stripes are detailed/nx_hierarchy.json's only). These rows are kept out of
 * a->entities on purpose: every consumer of entities (ranking, graphs,
 * overlays, diff, page tables, bindings) treats an entity as a timed
 * operator or instruction, and a group measured in accelerator cycles must
 * not be ranked, summed or matched with them. Only the table writers append
 * them, through the same column table (etp_column.nx_present / nx_get).
 * Built by etp_analyze(); owned by the analysis (a->nx_rows).
 */
typedef struct etp_nx_row {
    const struct etp_nx_entity *nx;  /**< the group (points into a->nx) */
    const char *kind;                /**< "nx_segment" | "nx_cascade" | "nx_chain" (static) */
    const char *backend;             /**< its instruction's delegate backend, NULL when unknown */
    const char **covers;             /**< TOSA op ids (point into nx) */
    uint32_t cover_count;
    int64_t *spirv_ids;              /**< linked SPIR-V result ids, first-seen, distinct */
    uint32_t spirv_count;
} etp_nx_row;

/** The type of a column's cells, i.e. which member of etp_cell holds it. */
typedef enum etp_column_type {
    ETP_COLT_STR = 0,  /**< s; NULL: no text (JSON null, empty CSV field) */
    ETP_COLT_INT,      /**< i */
    ETP_COLT_UINT,     /**< u */
    ETP_COLT_NUM,      /**< d: a number; a time in the analysis' target unit when the
                            column's in_unit is set (the NX columns hold cycles) */
    ETP_COLT_BOOL,     /**< b */
    ETP_COLT_INTS,     /**< ints: a list of integers */
    ETP_COLT_STRS      /**< strs: a list of strings */
} etp_column_type;

/**
 * Which part of an entity a column belongs to. In the JSON files a group
 * other than ETP_COLG_ENTITY is one nested object ("timing", "kernel",
 * "dispatch_overhead") that is written whole when the entity has the group
 * (etp_column_group_present()) and then holds every one of its columns.
 */
typedef enum etp_column_group {
    ETP_COLG_ENTITY = 0,
    ETP_COLG_TIMING,   /**< entities with executions; otherwise "timing": null */
    ETP_COLG_KERNEL,   /**< KernelCall instructions; otherwise absent */
    ETP_COLG_DISPATCH, /**< KernelCall instructions; otherwise absent */
    ETP_COLG_NX        /**< "nx": NX rows only; otherwise absent */
} etp_column_group;

/** One cell's value. Pointers point into the entity (or static text). */
typedef struct etp_cell {
    union {
        const char *s;
        int64_t i;
        uint64_t u;
        double d;
        int b;
        struct {
            const int64_t *v;
            uint32_t n;
        } ints;
        struct {
            const char *const *v;
            uint32_t n;
        } strs;
    };
} etp_cell;

typedef struct etp_column {
    etp_column_id id;
    const char *key;           /**< JSON member name inside its group: "id", "avg" */
    const char *header;        /**< table header: "entity_id", "kernel_avg" (unit not included) */
    const char *label;         /**< what tables for people call it: "type", "kernel avg" */
    int in_unit;               /**< 1: a time in the analysis' unit (see etp_column_header()) */
    etp_column_type type;
    etp_column_group group;
    /** 1 when @p e has a value in this column (tables leave the cell empty,
     *  top-level JSON members are left out otherwise). */
    int (*present)(const etp_entity *e);
    /** The value of @p e (meaningful when present). */
    etp_cell (*get)(const etp_analysis *a, const etp_entity *e);
    /** The same two for an NX row (etp_nx_row): which columns such a row
     *  has (never the time columns) and their values. */
    int (*nx_present)(const etp_nx_row *r);
    etp_cell (*nx_get)(const etp_analysis *a, const etp_nx_row *r);
} etp_column;

/** The whole table, in etp_column_id order; *@p count receives ETP_COL_COUNT. */
const etp_column *etp_columns(size_t *count);

/** Column @p id (NULL when out of range). */
const etp_column *etp_column_get(etp_column_id id);

/** Whether @p e has the group @p g at all (ETP_COLG_ENTITY: always). */
int etp_column_group_present(etp_column_group g, const etp_entity *e);

/** Whether an NX row has the group @p g (the entity part and "nx" only;
 *  "timing" is written as null). */
int etp_column_group_present_nx(etp_column_group g, const etp_nx_row *r);

/** The JSON member name of group @p g ("timing", ...; NULL for the entity). */
const char *etp_column_group_key(etp_column_group g);

/**
 * The table header of @p c for times in @p unit: "avg_ms" for a column in
 * the unit, else the header itself. Writes at most @p size bytes (NUL
 * included) and returns the length it needed, as snprintf.
 */
int etp_column_header(const etp_column *c, etp_unit unit, char *out, size_t size);

/** The label of @p c for tables people read: "avg (ms)" for a column in
 *  @p unit, else the label itself. As etp_column_header(). */
int etp_column_label(const etp_column *c, etp_unit unit, char *out, size_t size);

/** The number of entities of @p a (the rows etp_column_read() reads); 0 for
 *  NULL. A pure read. */
uint32_t etp_analysis_entity_count(const etp_analysis *a);

/** etp_column_read() presence bits. */
#define ETP_COLREAD_VALUE 0x1u       /**< the column's present() holds for the entity */
#define ETP_COLREAD_GROUP 0x2u       /**< the entity has the column's group at all */

/**
 * Read column @p id of the entities [@p first, @p first + @p n) of @p a in
 * one call, for callers to whom a call per cell is dear (language bindings
 * over ctypes): cells[k] receives entity first + k's value when it has
 * one or, for a column of a group (timing, kernel, dispatch), when it has
 * the group (the JSON files write a shown group whole); else it is zeroed.
 * present[k] receives its ETP_COLREAD_VALUE and ETP_COLREAD_GROUP bits. A table cell is filled when ETP_COLREAD_VALUE is set; the JSON files
 * write a group's column when ETP_COLREAD_GROUP is set (and an entity
 * member when ETP_COLREAD_VALUE is).
 * @return ETP_OK; ETP_E_USAGE for an unknown @p id, a range past
 *         a->entity_count or NULL arrays (with @p n > 0); nothing is
 *         written then. Pointers in cells point into @p a (valid while it
 *         lives). A pure read: safe from any thread while @p a is not freed.
 */
etp_status etp_column_read(const etp_analysis *a, etp_column_id id, uint32_t first, uint32_t n,
                           etp_cell *cells, uint8_t *present);

/** The number of NX rows of @p a (a->nx_row_count; 0 for NULL or an
 *  analysis without VGF statistics). A pure read. */
uint32_t etp_analysis_nx_row_count(const etp_analysis *a);

/**
 * etp_column_read() for the NX rows [@p first, @p first + @p n) of @p a
 * (the rows operators.csv writes after the entities): the same cells and
 * presence bits, by nx_present / nx_get and etp_column_group_present_nx().
 * Same errors and thread safety.
 */
etp_status etp_column_read_nx(const etp_analysis *a, etp_column_id id, uint32_t first, uint32_t n,
                              etp_cell *cells, uint8_t *present);

#ifdef __cplusplus
}
#endif
#endif
