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
} etp_abuild;

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
/* Model-level figures (figures.c). */
etp_status etp_compute_figures(etp_abuild *b);

#endif
