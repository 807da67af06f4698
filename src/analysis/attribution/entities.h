/* entities.h - the instruction and delegate-event entities of an analysis
 * (entities.c): built from the grouped events, their statistics, their
 * release. Attribution and figures read them; nothing here calls back into
 * those steps. */
#ifndef ETP_ENTITIES_H
#define ETP_ENTITIES_H

#include "analysis/attribution/analysis_internal.h"

/* Key of an instruction in instr_map. */
uint64_t etp_instr_key(int32_t chain, int32_t instr);
/* Index of the instruction entity (chain, instr), or -1. */
int64_t etp_find_instruction(const etp_abuild *b, int32_t chain, int32_t instr);

/* One entity per instruction of the selected plan and per delegate event id
 * seen, with their per-execution series from the selected executions' rows.
 * Reserves room for the operator entities attribution adds, so that the
 * table does not move afterwards. */
etp_status etp_build_instruction_entities(etp_abuild *b);

/* Statistics of entities [lo, hi) of the etp_abuild @p ctx (an
 * etp_parallel_begin task: each entity touches only its own series).
 * 0, or -1 on allocation failure. */
int etp_entity_stats_range(void *ctx, size_t lo, size_t hi);

/* The detail of each DelegateCall instruction (etp_entity.detail_*), from
 * its delegate-event entities' statistics. */
void etp_delegate_details(etp_abuild *b);

/* Release what entity @p e owns (not @p e itself). */
void etp_entity_free(etp_entity *e);

#endif
