/* columns.c - the per-entity columns (see etprof/columns.h): one getter and
 * one presence rule per column, in one table. */
#include "etprof/columns.h"

#include "etprof/device_report.h"

#include <stdio.h>
#include <string.h>

#include "etprof/nx_stats.h"

/* ---- presence rules ---- */

static int always(const etp_entity *e)
{
    (void)e;
    return 1;
}
static int not_operator(const etp_entity *e) { return e->kind != ETP_ENTITY_OPERATOR; }
static int operator_only(const etp_entity *e) { return e->kind == ETP_ENTITY_OPERATOR; }
static int timed(const etp_entity *e) { return e->time.executions > 0; }
/* An instruction measured as VGF NX cycles has no runtime series; its source says why. */
static int timed_or_vgf(const etp_entity *e) { return timed(e) || e->source == ETP_SRC_VGF_NX; }
static int kernel_timed(const etp_entity *e) { return e->has_kernel && e->kernel.executions > 0; }
static int dispatch_timed(const etp_entity *e) { return e->has_kernel && e->dispatch.n > 0; }
static int has_unresolved(const etp_entity *e) { return e->unresolved_count > 0; }

/* Ethos-U split: DelegateCall instructions linked to their call site. */
static int npu_site(const etp_entity *e) { return e->npu != NULL; }
static int npu_run(const etp_entity *e) { return e->npu && e->npu->has_npu; }
static int npu_in(const etp_entity *e) { return e->npu && e->npu->has_input_copy; }
static int npu_out(const etp_entity *e) { return e->npu && e->npu->has_output_copy; }

/* ---- getters ---- */

#define CELL(fn, member, expr)                                                                     \
    static etp_cell fn(const etp_analysis *a, const etp_entity *e)                                \
    {                                                                                              \
        (void)a;                                                                                   \
        (void)e;                                                                                   \
        etp_cell c;                                                                                \
        c.member = (expr);                                                                         \
        return c;                                                                                  \
    }
#define STATS(prefix, st)                                                                          \
    CELL(prefix##_avg, d, (st).avg)                                                                \
    CELL(prefix##_p10, d, (st).p10)                                                                \
    CELL(prefix##_p50, d, (st).p50)                                                                \
    CELL(prefix##_p90, d, (st).p90)                                                                \
    CELL(prefix##_min, d, (st).min)                                                                \
    CELL(prefix##_max, d, (st).max)

CELL(get_id, s, e->id)
CELL(get_kind, s, etp_entity_kind_name(e->kind))
CELL(get_name, s, e->name)
CELL(get_op_type, s, e->op_type)
CELL(get_backend, s, e->backend)
CELL(get_chain, i, e->chain)
CELL(get_instruction, i, e->instruction)
CELL(get_instr_kind, s, e->instr_kind == ETP_INSTR_NONE ? NULL : etp_instr_kind_name(e->instr_kind))
CELL(get_source, s, etp_timing_source_name(e->source))
CELL(get_unit, s, etp_unit_name(a->target_unit))
CELL(get_executions, u, e->time.executions)
CELL(get_events, u, e->time.events)
STATS(get_time, e->time.stats)
CELL(get_additive, b, e->additive)
CELL(get_shared, b, e->shared)
CELL(get_kernel_executions, u, e->kernel.executions)
CELL(get_kernel_events, u, e->kernel.events)
STATS(get_kernel, e->kernel.stats)
CELL(get_dispatch_executions, u, e->dispatch.n)
STATS(get_dispatch, e->dispatch)
CELL(get_module_path, s, e->module_path)
CELL(get_module_type, s, e->module_type)
CELL(get_source_fn, s, e->source_fn)
CELL(get_stack_trace, s, e->stack_trace)
/* (read only when present: e->npu is set) */
CELL(get_npu_execute, d, e->npu ? e->npu->execute_avg : 0)
CELL(get_npu_run, d, e->npu ? e->npu->npu_avg : 0)
CELL(get_npu_in, d, e->npu ? e->npu->input_copy_avg : 0)
CELL(get_npu_out, d, e->npu ? e->npu->output_copy_avg : 0)
CELL(get_npu_rest, d, e->npu ? e->npu->rest_avg : 0)

/* A list cell: @p count items at @p items. */
#define LIST(fn, member, items, count)                                                                     \
    static etp_cell fn(const etp_analysis *a, const etp_entity *e)                                \
    {                                                                                              \
        (void)a;                                                                                   \
        etp_cell c;                                                                                \
        c.member.v = (items);                                                                      \
        c.member.n = (count);                                                                      \
        return c;                                                                                  \
    }

LIST(get_handles, ints, e->handles, e->handle_count)
LIST(get_unresolved, ints, e->unresolved, e->unresolved_count)
LIST(get_co_attributed, strs, (const char *const *)e->co_attributed, e->co_count)
LIST(get_instructions, strs, (const char *const *)e->instructions, e->instruction_count)

/* ---- NX rows (etp_nx_row): group measurements in cycles ---- */

static int never(const etp_entity *e)
{
    (void)e;
    return 0;
}
static int nx_always(const etp_nx_row *r)
{
    (void)r;
    return 1;
}
static int nx_never(const etp_nx_row *r)
{
    (void)r;
    return 0;
}
static int nx_has_backend(const etp_nx_row *r) { return r->backend != NULL; }
static int nx_has_instruction(const etp_nx_row *r) { return r->nx->instruction_id >= 0; }
/* Chains and cascades: the TOSA ops they cover (segments have none listed). */
static int nx_group(const etp_nx_row *r) { return r->nx->kind == ETP_NX_CHAIN || r->nx->kind == ETP_NX_CASCADE; }

/* The parent when it is a row itself (a segment's parent is the model,
 * which summary.json holds), else NULL. */
static const etp_nx_entity *nx_parent_row(const etp_analysis *a, const etp_nx_row *r)
{
    const etp_nx_result *x = a ? a->nx : NULL;
    int p = r->nx->parent;
    if (!x || p < 0 || (uint32_t)p >= x->entity_count || x->entities[p].kind == ETP_NX_MODEL)
        return NULL;
    return &x->entities[p];
}
static int nx_has_parent(const etp_nx_row *r) { return r->nx->kind != ETP_NX_SEGMENT && r->nx->parent >= 0; }

#define NXCELL(fn, member, expr)                                                                   \
    static etp_cell fn(const etp_analysis *a, const etp_nx_row *r)                                \
    {                                                                                              \
        (void)a;                                                                                   \
        etp_cell c;                                                                                \
        memset(&c, 0, sizeof c);                                                                   \
        c.member = (expr);                                                                         \
        return c;                                                                                  \
    }
/* A list cell of an NX row. */
#define NXLIST(fn, member, items, count)                                                                   \
    static etp_cell fn(const etp_analysis *a, const etp_nx_row *r)                                \
    {                                                                                              \
        (void)a;                                                                                   \
        etp_cell c;                                                                                \
        memset(&c, 0, sizeof c);                                                                   \
        c.member.v = (items);                                                                      \
        c.member.n = (count);                                                                      \
        return c;                                                                                  \
    }

/* The (unread) cells of columns a row or an entity never has. */
static etp_cell get_none(const etp_analysis *a, const etp_entity *e)
{
    (void)a;
    (void)e;
    etp_cell c;
    memset(&c, 0, sizeof c);
    return c;
}
NXCELL(nx_zero, i, 0)

NXCELL(nx_get_id, s, r->nx->id)
NXCELL(nx_get_kind, s, r->kind)
NXCELL(nx_get_name, s, r->nx->name)
NXCELL(nx_get_backend, s, r->backend)
NXCELL(nx_get_instruction, i, r->nx->instruction_id)
NXCELL(nx_get_unit, s, "cycles")
NXCELL(nx_get_executions, u, r->nx->s.count)
NXCELL(nx_get_total_avg, d, r->nx->s.mean_total)
NXCELL(nx_get_op_avg, d, r->nx->s.mean_op)
NXCELL(nx_get_total_min, u, r->nx->s.min_total)
NXCELL(nx_get_total_median, d, r->nx->s.median_total)
NXCELL(nx_get_total_max, u, r->nx->s.max_total)
NXCELL(nx_get_full_coverage, b, r->nx->full_coverage)
NXCELL(nx_get_segment, i, r->nx->segment_id)
NXCELL(nx_get_stripes, u, r->nx->stripe_count)
NXCELL(nx_get_filled, b, r->nx->filled)

static etp_cell nx_get_parent(const etp_analysis *a, const etp_nx_row *r)
{
    const etp_nx_entity *p = nx_parent_row(a, r);
    etp_cell c;
    memset(&c, 0, sizeof c);
    c.s = p ? p->id : NULL;
    return c;
}

NXLIST(nx_get_covers, strs, r->covers, r->cover_count)
NXLIST(nx_get_spirv, ints, r->spirv_ids, r->spirv_count)
NXLIST(nx_get_sources, strs, (const char *const *)r->nx->source_nodes, r->nx->source_node_count)

/* ---- the table ---- */

#define E ETP_COLG_ENTITY
#define T ETP_COLG_TIMING
#define K ETP_COLG_KERNEL
#define D ETP_COLG_DISPATCH
#define N ETP_COLG_NX
/* An entity column NX rows do not have (times, kernels, source metadata). */
#define COL(id, key, header, label, unit, type, group, present, get)                               \
    COLX(id, key, header, label, unit, type, group, present, get, nx_never, nx_zero)
#define COLX(id, key, header, label, unit, type, group, present, get, nx_present, nx_get)         \
    [ETP_COL_##id] = {ETP_COL_##id, key, header, label, unit, ETP_COLT_##type, group, present, get,  \
                      nx_present, nx_get}

static const etp_column columns[ETP_COL_COUNT] = {
    COLX(ID, "id", "entity_id", "id", 0, STR, E, always, get_id, nx_always, nx_get_id),
    COLX(KIND, "kind", "kind", "kind", 0, STR, E, always, get_kind, nx_always, nx_get_kind),
    COLX(NAME, "name", "name", "name", 0, STR, E, always, get_name, nx_always, nx_get_name),
    COL(OP_TYPE, "op_type", "op_type", "type", 0, STR, E, always, get_op_type),
    COLX(BACKEND, "backend", "backend", "backend", 0, STR, E, always, get_backend, nx_has_backend,
         nx_get_backend),
    COL(CHAIN, "chain", "chain", "chain", 0, INT, E, not_operator, get_chain),
    COLX(INSTRUCTION, "instruction", "instruction", "instruction",
         0, INT, E, not_operator, get_instruction, nx_has_instruction, nx_get_instruction),
    COL(INSTRUCTION_KIND, "instruction_kind", "instruction_kind", "instruction kind",
        0, STR, E, not_operator, get_instr_kind),
    COL(DEBUG_HANDLES, "debug_handles", "debug_handles", "debug handles",
        0, INTS, E, always, get_handles),
    COL(TIMING_SOURCE, "source", "timing_source", "timing source", 0, STR, T, timed_or_vgf, get_source),
    COL(TIMING_UNIT, "unit", "unit", "unit", 0, STR, T, always, get_unit),
    COL(EXECUTIONS, "executions", "executions", "executions", 0, UINT, T, always, get_executions),
    COL(EVENTS, "events", "events", "events", 0, UINT, T, always, get_events),
    COL(AVG, "avg", "avg", "avg", 1, NUM, T, timed, get_time_avg),
    COL(P10, "p10", "p10", "p10", 1, NUM, T, timed, get_time_p10),
    COL(P50, "p50", "p50", "p50", 1, NUM, T, timed, get_time_p50),
    COL(P90, "p90", "p90", "p90", 1, NUM, T, timed, get_time_p90),
    COL(MIN, "min", "min", "min", 1, NUM, T, timed, get_time_min),
    COL(MAX, "max", "max", "max", 1, NUM, T, timed, get_time_max),
    COL(ADDITIVE, "additive", "additive", "additive", 0, BOOL, T, timed, get_additive),
    COL(SHARED, "shared", "shared", "shared", 0, BOOL, T, timed, get_shared),
    COL(CO_ATTRIBUTED, "co_attributed", "co_attributed", "co-attributed",
        0, STRS, T, always, get_co_attributed),
    COL(KERNEL_UNIT, "unit", "kernel_unit", "kernel unit", 0, STR, K, always, get_unit),
    COL(KERNEL_EXECUTIONS, "executions", "kernel_executions", "kernel executions",
        0, UINT, K, always,
        get_kernel_executions),
    COL(KERNEL_EVENTS, "events", "kernel_events", "kernel events",
        0, UINT, K, always, get_kernel_events),
    COL(KERNEL_AVG, "avg", "kernel_avg", "kernel avg", 1, NUM, K, kernel_timed, get_kernel_avg),
    COL(KERNEL_P10, "p10", "kernel_p10", "kernel p10", 1, NUM, K, kernel_timed, get_kernel_p10),
    COL(KERNEL_P50, "p50", "kernel_p50", "kernel p50", 1, NUM, K, kernel_timed, get_kernel_p50),
    COL(KERNEL_P90, "p90", "kernel_p90", "kernel p90", 1, NUM, K, kernel_timed, get_kernel_p90),
    COL(KERNEL_MIN, "min", "kernel_min", "kernel min", 1, NUM, K, kernel_timed, get_kernel_min),
    COL(KERNEL_MAX, "max", "kernel_max", "kernel max", 1, NUM, K, kernel_timed, get_kernel_max),
    COL(DISPATCH_UNIT, "unit", "dispatch_unit", "dispatch unit", 0, STR, D, always, get_unit),
    COL(DISPATCH_EXECUTIONS, "executions", "dispatch_executions", "dispatch executions",
        0, UINT, D, always,
        get_dispatch_executions),
    COL(DISPATCH_AVG, "avg", "dispatch_avg", "dispatch avg",
        1, NUM, D, dispatch_timed, get_dispatch_avg),
    COL(DISPATCH_P10, "p10", "dispatch_p10", "dispatch p10",
        1, NUM, D, dispatch_timed, get_dispatch_p10),
    COL(DISPATCH_P50, "p50", "dispatch_p50", "dispatch p50",
        1, NUM, D, dispatch_timed, get_dispatch_p50),
    COL(DISPATCH_P90, "p90", "dispatch_p90", "dispatch p90",
        1, NUM, D, dispatch_timed, get_dispatch_p90),
    COL(DISPATCH_MIN, "min", "dispatch_min", "dispatch min",
        1, NUM, D, dispatch_timed, get_dispatch_min),
    COL(DISPATCH_MAX, "max", "dispatch_max", "dispatch max",
        1, NUM, D, dispatch_timed, get_dispatch_max),
    COL(UNRESOLVED, "unresolved_debug_handles", "unresolved_debug_handles",
        "unresolved debug handles", 0, INTS, E, has_unresolved, get_unresolved),
    COL(MODULE_PATH, "module_path", "module_path", "module path",
        0, STR, E, operator_only, get_module_path),
    COL(MODULE_TYPE, "module_type", "module_type", "module type",
        0, STR, E, operator_only, get_module_type),
    COL(SOURCE_FN, "source_fn", "source_fn", "source function",
        0, STR, E, operator_only, get_source_fn),
    COL(STACK_TRACE, "stack_trace", "stack_trace", "stack trace",
        0, STR, E, operator_only, get_stack_trace),
    COL(INSTRUCTIONS, "instructions", "instructions", "instructions",
        0, STRS, E, operator_only, get_instructions),
    COL(NPU_EXECUTE_AVG, "npu_execute_avg", "npu_execute_avg", "Ethos-U execute avg",
        1, NUM, E, npu_site, get_npu_execute),
    COL(NPU_AVG, "npu_avg", "npu_avg", "NPU avg", 1, NUM, E, npu_run, get_npu_run),
    COL(NPU_INPUT_COPY_AVG, "npu_input_copy_avg", "npu_input_copy_avg", "input copy avg",
        1, NUM, E, npu_in, get_npu_in),
    COL(NPU_OUTPUT_COPY_AVG, "npu_output_copy_avg", "npu_output_copy_avg", "output copy avg",
        1, NUM, E, npu_out, get_npu_out),
    COL(NPU_REST_AVG, "npu_rest_avg", "npu_rest_avg", "rest of the call avg",
        1, NUM, E, npu_site, get_npu_rest),
    /* VGF NX cycle groups: entities never have them; NX rows have no times. */
    COLX(NX_UNIT, "unit", "nx_unit", "NX unit", 0, STR, N, never, get_none, nx_always, nx_get_unit),
    COLX(NX_EXECUTIONS, "executions", "nx_executions", "NX executions",
         0, UINT, N, never, get_none, nx_always, nx_get_executions),
    COLX(NX_TOTAL_AVG, "total_cycles_avg", "nx_total_cycles_avg", "NX total cycles avg",
         0, NUM, N, never, get_none, nx_always, nx_get_total_avg),
    COLX(NX_OP_AVG, "op_cycles_avg", "nx_op_cycles_avg", "NX op cycles avg",
         0, NUM, N, never, get_none, nx_always, nx_get_op_avg),
    COLX(NX_TOTAL_MIN, "total_cycles_min", "nx_total_cycles_min", "NX total cycles min",
         0, UINT, N, never, get_none, nx_always, nx_get_total_min),
    COLX(NX_TOTAL_MEDIAN, "total_cycles_median", "nx_total_cycles_median", "NX total cycles median",
         0, NUM, N, never, get_none, nx_always, nx_get_total_median),
    COLX(NX_TOTAL_MAX, "total_cycles_max", "nx_total_cycles_max", "NX total cycles max",
         0, UINT, N, never, get_none, nx_always, nx_get_total_max),
    COLX(NX_FULL_COVERAGE, "full_coverage", "nx_full_coverage", "NX full coverage",
         0, BOOL, N, never, get_none, nx_always, nx_get_full_coverage),
    COLX(NX_PARENT, "parent", "nx_parent", "NX parent", 0, STR, N, never, get_none, nx_has_parent,
         nx_get_parent),
    COLX(NX_SEGMENT, "segment", "nx_segment", "VGF segment", 0, INT, N, never, get_none, nx_always,
         nx_get_segment),
    COLX(NX_STRIPES, "stripes", "nx_stripes", "NX stripes", 0, UINT, N, never, get_none, nx_always,
         nx_get_stripes),
    COLX(NX_FILLED, "filled_in", "nx_filled_in", "NX filled in", 0, BOOL, N, never, get_none,
         nx_group, nx_get_filled),
    COLX(NX_COVERS, "covers", "nx_covers", "NX covers (TOSA op ids)", 0, STRS, N, never, get_none,
         nx_group, nx_get_covers),
    COLX(NX_SPIRV_IDS, "spirv_ids", "nx_spirv_ids", "NX SPIR-V result ids", 0, INTS, N, never,
         get_none, nx_group, nx_get_spirv),
    COLX(NX_SOURCE_OPERATORS, "source_operators", "nx_source_operators", "NX source operators (links)",
         0, STRS, N, never, get_none, nx_group, nx_get_sources),
};

#undef COL
#undef COLX
#undef N
#undef E
#undef T
#undef K
#undef D

const etp_column *etp_columns(size_t *count)
{
    if (count)
        *count = ETP_COL_COUNT;
    return columns;
}

const etp_column *etp_column_get(etp_column_id id)
{
    return (unsigned)id < ETP_COL_COUNT ? &columns[id] : NULL;
}

int etp_column_group_present(etp_column_group g, const etp_entity *e)
{
    switch (g) {
    case ETP_COLG_ENTITY: return 1;
    case ETP_COLG_TIMING: return e->time.executions > 0;
    case ETP_COLG_KERNEL:
    case ETP_COLG_DISPATCH: return e->has_kernel;
    case ETP_COLG_NX: return 0;
    }
    return 0;
}

int etp_column_group_present_nx(etp_column_group g, const etp_nx_row *r)
{
    (void)r;
    return g == ETP_COLG_ENTITY || g == ETP_COLG_NX;
}

const char *etp_column_group_key(etp_column_group g)
{
    switch (g) {
    case ETP_COLG_ENTITY: return NULL;
    case ETP_COLG_TIMING: return "timing";
    case ETP_COLG_KERNEL: return "kernel";
    case ETP_COLG_DISPATCH: return "dispatch_overhead";
    case ETP_COLG_NX: return "nx";
    }
    return NULL;
}

int etp_column_header(const etp_column *c, etp_unit unit, char *out, size_t size)
{
    if (c->in_unit)
        return snprintf(out, size, "%s_%s", c->header, etp_unit_name(unit));
    return snprintf(out, size, "%s", c->header);
}

int etp_column_label(const etp_column *c, etp_unit unit, char *out, size_t size)
{
    if (c->in_unit)
        return snprintf(out, size, "%s (%s)", c->label, etp_unit_name(unit));
    return snprintf(out, size, "%s", c->label);
}
