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

/* Key of an instruction in instr_map. */
uint64_t etp_instr_key(int32_t chain, int32_t instr);
/* Index of the instruction entity (chain, instr), or -1. */
int64_t etp_find_instruction(const etp_abuild *b, int32_t chain, int32_t instr);

/* Source-operator attribution through the ETRecord (attribute.c). */
etp_status etp_attribute_sources(etp_abuild *b);
/* Model-level figures (figures.c). */
etp_status etp_compute_figures(etp_abuild *b);

char *etp_strdup(const char *s);
char *etp_strprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
