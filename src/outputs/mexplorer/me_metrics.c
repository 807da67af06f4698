/* me_metrics.c - the metrics graphs are coloured by (me_metrics.h). */
#include "outputs/mexplorer/me_metrics.h"

#include "etprof/mexplorer.h"

const etp_me_metric etp_me_metrics[ETP_ME_METRICS] = {
    {"Runtime avg", ETP_COL_AVG, 0, 0, 1},
    {"Runtime p50", ETP_COL_P50, 0, ETP_ME_HIDE_SUM, 1},
    {"Runtime min", ETP_COL_MIN, 0, ETP_ME_HIDE_SUM, 1},
    {"Runtime max", ETP_COL_MAX, 0, ETP_ME_HIDE_SUM, 1},
    {"Kernel avg", ETP_COL_KERNEL_AVG, 0, 0, 0},
    {"Share of execute avg", ETP_COL_AVG, 1, 0, 1},
};

double etp_me_exec_avg(const etp_analysis *a)
{
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    return ex && ex->available ? ex->stats.avg : 0;
}

const char *etp_me_metric_unit(const etp_me_metric *m, const etp_analysis *a)
{
    return m->pct ? "%" : etp_unit_name(a->target_unit);
}

int etp_me_metric_value(const etp_me_metric *m, const etp_analysis *a, const etp_entity *e,
                        double exec_avg, double *v)
{
    const etp_column *c = etp_column_get(m->col);
    if (!e || !c->present(e))
        return 0;
    double x = c->get(a, e).d;
    if (!m->pct) {
        *v = x;
        return 1;
    }
    if (exec_avg <= 0)
        return 0;
    *v = 100.0 * x / exec_avg;
    return 1;
}
