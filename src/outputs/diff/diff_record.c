/* diff_record.c - what a diff records beside its rows: the CI gate's
 * outcome and the options it was made with (etprof/diff_io.h). One writer
 * for the CLI and the Python package, so both publish the same bytes. */
#include "etprof/diff_io.h"
#include "etprof/units.h"
#include "util/jsonw.h"

char *etp_diff_gate_json(const etp_diff_gate_outcome *g)
{
    const etp_diff_row *r = g->row;
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "metric", g->metric);
    etp_jw_kstr(&w, "kind", etp_diff_kind_name(r->kind));
    etp_jw_kdouble(&w, "threshold_pct", g->threshold_pct);
    etp_jw_kbool(&w, "no_significance", g->no_significance);
    if (r->has_ratio)
        etp_jw_kdouble(&w, "ratio", r->ratio);
    else
        etp_jw_knull(&w, "ratio");
    etp_jw_kbool(&w, "has_interval", r->has_ci);
    etp_jw_kbool(&w, "failed", g->failed);
    etp_jw_kstr(&w, "reason", g->reason);
    etp_jw_kint(&w, "exit_status", g->exit_status);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

char *etp_diff_options_json(const etp_diff_options *o, etp_diff_rank rank, uint32_t top,
                            const etp_diff_gate_outcome *gate, const etp_analysis_options *ao)
{
    etp_analysis_options defaults;
    if (!ao) {
        etp_analysis_options_init(&defaults);
        ao = &defaults;
    }
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "statistic", o->statistic == ETP_DIFF_STAT_AVG ? "avg" : "p50");
    etp_jw_kdouble(&w, "confidence", o->confidence);
    etp_jw_kuint(&w, "resamples", o->resamples);
    etp_jw_kuint(&w, "seed", o->seed);
    etp_jw_kbool(&w, "any_method", o->compare_methods);
    etp_jw_kuint(&w, "interval_rows", o->interval_rows);
    etp_jw_kstr(&w, "rank_by", etp_diff_rank_name(rank));
    etp_jw_kuint(&w, "top", top);
    if (gate) {
        etp_jw_kdouble(&w, "fail_if_slower_pct", gate->threshold_pct);
        etp_jw_kstr(&w, "metric", gate->metric);
        etp_jw_kbool(&w, "no_significance", gate->no_significance);
    }
    etp_jw_kstr(&w, "unit", etp_unit_name(ao->target_unit));
    etp_jw_kstr(&w, "method", ao->method);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}
