/* me_metrics.h - the metrics a graph is coloured by, defined once: one
 * overlay file each in model_explorer/ (publish_me.c) and the entries of
 * the standalone page's metric menu (outputs/report). Each is a column of
 * the entity table (etprof/columns.h), or that column as a share of
 * Method::execute's average. The table is static: safe from any thread. */
#ifndef ETP_ME_METRICS_H
#define ETP_ME_METRICS_H

#include "etprof/columns.h"

typedef struct etp_me_metric {
    const char *name;   /* the overlay's metric and the menu's entry: "Runtime avg" */
    etp_column_id col;  /* whose value (and presence) it shows */
    int pct;            /* 1: as a percentage of Method::execute's average */
    unsigned hide;      /* ETP_ME_HIDE_* on every graph: p50, min and max never add */
    int on_source;      /* also coloured on the source graph (operators have no kernel time) */
} etp_me_metric;

#define ETP_ME_METRICS 6
extern const etp_me_metric etp_me_metrics[ETP_ME_METRICS];

/* Method::execute's average in @p a's unit; 0 when it has none. */
double etp_me_exec_avg(const etp_analysis *a);

/* The unit of @p m's values: "%" or @p a's time unit (static text). */
const char *etp_me_metric_unit(const etp_me_metric *m, const etp_analysis *a);

/* 1 with *@p v set when @p e (may be NULL) has a value of @p m; 0 when not
 * (no value in the column, or a share with no @p exec_avg > 0). */
int etp_me_metric_value(const etp_me_metric *m, const etp_analysis *a, const etp_entity *e,
                        double exec_avg, double *v);

#endif
