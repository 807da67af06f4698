/* method_select.h - which method of the inputs the analysis is about, and
 * which ETDump runs are its executions (method_select.c). */
#ifndef ETP_METHOD_SELECT_H
#define ETP_METHOD_SELECT_H

#include "analysis/attribution/analysis_internal.h"
#include "etprof/etrecord.h"

/* Set b->a->method and its basis: --method, else the runner log's, else the
 * program's only method or the one its Execute blocks match, else the
 * ETRecord's only method or the one whose maps know every timed instruction.
 * ETP_E_USAGE / ETP_E_MISMATCH when none can be told (the message lists the
 * candidates). */
etp_status etp_select_method(etp_abuild *b, const etp_program *p, const etp_etrecord *r);

/* The selected method's Execute blocks' runs become the executions
 * (b->exec_of_run, b->nexec, a->executions). Needs b->a->plan when @p p. */
etp_status etp_select_executions(etp_abuild *b, const etp_program *p);

#endif
