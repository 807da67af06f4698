/*
 * method_match.h - which method (ExecutionPlan) produced a block of runs.
 *
 * ETDump blocks do not name their method. An instruction-level event refers
 * to chains[c].instructions[i] of whatever plan ran; a plan is consistent
 * with a block when every such event exists in it and fits its kind:
 * OPERATOR_CALL <-> KernelCall, DELEGATE_CALL and delegate-internal events
 * <-> DelegateCall, JF/MOVE/FREE_CALL <-> their kinds, native_call_<op> <->
 * a KernelCall of that operator.
 */
#ifndef ETP_METHOD_MATCH_H
#define ETP_METHOD_MATCH_H

#include "etprof/error.h"
#include "etprof/program.h"

/* One distinct instruction-level event observed in a block. */
typedef struct etp_observed {
    const char *name;     /* NULL for delegate-internal events */
    uint32_t name_len;
    int32_t chain;
    int32_t instr;
    int delegated;        /* has a delegate id */
    int64_t offset;       /* file offset of an occurrence, for messages */
} etp_observed;

/* 0 when @p pl accepts every observed event; otherwise 1 and a one-line
 * reason (and the offending event's offset) in @p why / *bad_offset. */
int etp_plan_accepts(const etp_plan *pl, const etp_observed *ev, size_t n, char *why, size_t whylen,
                     int64_t *bad_offset);

/* 1 when two plans have the same chains, instruction kinds, operators and
 * delegate ids (nothing observable in an ETDump can tell them apart). */
int etp_plans_equivalent(const etp_plan *a, const etp_plan *b);

/*
 * Pick the plan for a block. @p requested (may be NULL) forces a method.
 * On success *cands (malloc'd, caller frees) holds the selected plan first,
 * followed by any structurally identical alternatives; *ncands >= 1.
 * Errors (ETP_E_MISMATCH / ETP_E_USAGE) name @p dump_path and the program.
 */
etp_status etp_select_plan(const etp_program *p, const char *requested, const etp_observed *ev,
                           size_t n, uint32_t distinct_instructions, const char *dump_path,
                           int lenient, const etp_plan ***cands, uint32_t *ncands, etp_error *err);
/* With @p lenient, several non-equivalent candidates are returned (all of
 * them, caller decides) instead of an error. */

/* Method names for etp_join_names (util/str.h): of an array of plans
 * (const etp_plan *), and of an array of plan pointers (const etp_plan **,
 * e.g. a block's candidates). */
const char *etp_plan_name_at(const void *plans, size_t i);
const char *etp_plan_ref_name_at(const void *plan_refs, size_t i);

#endif
