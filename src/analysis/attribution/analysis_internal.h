/* analysis_internal.h - state shared by the steps of etp_analyze(). */
#ifndef ETP_ANALYSIS_INTERNAL_H
#define ETP_ANALYSIS_INTERNAL_H

#include "etprof/analysis.h"
#include "util/hashmap.h"
#include "util/vec.h"

typedef struct etp_abuild {
    etp_analysis *a;
    const etp_analysis_options *opt;
    etp_error *err;
    uint32_t nexec;
    uint32_t *exec_of_run;        /* RunData index -> execution index, UINT32_MAX if not one */
    uint32_t nruns;
    VEC(etp_entity) ents;
    etp_hm instr_map;             /* (chain, instr) -> entity index */
    etp_hm deleg_map;             /* (chain, instr, delegate id) -> entity index */
    uint32_t other_instr_events;  /* named events at instructions that are not timed (ignored) */
    uint32_t *method_runs;        /* RunData indices of all the method's executions, before
                                     --skip-executions (a->method_executions of them) */
    double all_execute_ticks;     /* Method::execute ticks over method_runs (warmup.c) */
    uint32_t all_execute_count;   /* how many of method_runs have a Method::execute */
    /* Instructions measured as VGF NX cycles (a->nx, known before the
     * entities are built): their runtime events stay out of the runtime
     * result, so that nothing is counted twice (entities.c). */
    int has_vgf_excluded;         /* vgf_excluded is allocated */
    etp_series vgf_excluded;      /* their DELEGATE_CALL time per execution (figures.c) */
    uint32_t vgf_excluded_instructions;
    uint64_t vgf_excluded_events; /* every runtime event record of theirs that was left out */
} etp_abuild;

/* Whether block @p blk holds at least one selected execution. */
static inline int etp_abuild_block_taken(const etp_abuild *b, const etp_inspect_block *blk)
{
    for (uint32_t i = 0; i < blk->run_count; i++)
        if (b->exec_of_run[blk->runs[i]] != UINT32_MAX)
            return 1;
    return 0;
}

/* The error every step reports when an allocation fails (inline: each step's
 * file has it without calling into another). */
static inline etp_status etp_abuild_oom(etp_abuild *b)
{
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory during analysis");
}

/* Source-operator attribution (attribute.c), in three steps so that the
 * instructions' statistics can be computed meanwhile:
 * - prepare: checks the ETRecord's maps against the method and makes room
 *   for the operator entities; *out stays NULL when there is nothing to
 *   attribute (no ETRecord, or empty maps: an issue is recorded);
 * - collect: maps timed events to graph nodes and builds the operator
 *   entities' series; it reads the instruction and delegate entities'
 *   series but not their statistics, and never moves the entity table;
 * - finish: operator statistics (needs the instructions' statistics) and
 *   the attribution issues. */
typedef struct etp_attribution etp_attribution;
etp_status etp_attribute_prepare(etp_abuild *b, etp_attribution **out);
etp_status etp_attribute_collect(etp_attribution *t);
etp_status etp_attribute_finish(etp_attribution *t);
void etp_attribution_free(etp_attribution *t);
/* Model-level figures with each execution's value, Method::execute of every
 * execution of the method (a->method_execute_*) and the backend totals
 * (figures.c). */
etp_status etp_compute_figures(etp_abuild *b);
/* Totals per operator type (op_type_totals.c); needs the figures and every
 * entity's statistics. */
etp_status etp_compute_op_type_totals(etp_abuild *b);
/* The first execution against the rest, over every execution of the method
 * (warmup.c, from a->method_execute_*: needs etp_compute_figures() first);
 * also fills all_execute_ticks / all_execute_count. */
etp_status etp_compute_cold_start(etp_abuild *b);
/* Test the tick unit against reported wall times (unit_evidence.c); needs
 * etp_compute_cold_start() first. Records a->tick_unit and its issue. */
etp_status etp_check_tick_unit(etp_abuild *b);
/* Coverage and identity cross-checks between the inputs (crosscheck.c). */
etp_status etp_crosscheck_inputs(etp_abuild *b);

#endif
