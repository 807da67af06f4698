/* report_metrics.c - metric values on the page: each drawn node's value of
 * every metric (me_metrics.h, the overlays' set) coloured as the overlay
 * files colour it (Model Explorer's gradient, me_color.h), and a value as
 * the tables print it for people. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "outputs/mexplorer/me_color.h"
#include "outputs/report/report_internal.h"

#define NO_VALUE "#e4e4e4"

typedef struct rp_colors {
    int any;
    double min, max;
} rp_colors;

void rp_num(char *buf, size_t size, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (fabs(v) >= 1e4)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.4g", v);
}

/* Each node's value is looked up once per metric (vals/has), then its
 * range, the values and the colours. */
void rp_write_view_metrics(etp_jw *w, const rp_report *r, const rp_view *v)
{
    double *vals = malloc(((size_t)v->node_count + 1) * sizeof *vals);
    char *has = malloc((size_t)v->node_count + 1);
    char *bgs = malloc((size_t)v->node_count * 7 + 2);
    if (!vals || !has || !bgs)
        w->failed = 1;
    ETP_JW_KEY_LIT(w, "metrics");
    etp_jw_arr_begin(w);
    for (int m = 0; vals && has && bgs && m < ETP_ME_METRICS; m++) {
        const etp_me_metric *mt = &etp_me_metrics[m];
        rp_colors c = {0, INFINITY, -INFINITY};
        int hide_sum = (mt->hide & ETP_ME_HIDE_SUM) != 0;
        for (uint32_t i = 0; i < v->node_count; i++) {
            has[i] = (char)etp_me_metric_value(mt, r->a, v->nodes[i].entity, r->exec_avg, &vals[i]);
            if (!has[i])
                continue;
            c.any = 1;
            c.min = vals[i] < c.min ? vals[i] : c.min;
            c.max = vals[i] > c.max ? vals[i] : c.max;
            hide_sum |= !v->nodes[i].entity->additive;
        }
        /* One value (or all equal): a scale from 0, so the only node is drawn
         * as the costly one it is, not as the cheapest. */
        if (c.any && c.min == c.max && c.max > 0)
            c.min = 0;
        etp_jw_break(w);
        etp_jw_obj_begin(w);
        ETP_JW_KEY_LIT(w, "v");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < v->node_count; i++) {
            if (has[i])
                etp_jw_double(w, vals[i]);
            else
                etp_jw_null(w);
        }
        etp_jw_arr_end(w);
        /* Background colours, 6 hex digits per node, and text colours, one
         * digit per node ('1' white), each one string. */
        etp_me_scale scale;
        etp_me_scale_init(&scale, NULL, 0, c.min, c.max); /* the default gradient fits */
        char *fgs = bgs + (size_t)v->node_count * 6 + 1;
        for (uint32_t i = 0; i < v->node_count; i++) {
            char bg[8] = NO_VALUE, fg[8] = "#1f1f1f";
            if (c.any && has[i])
                etp_me_scale_color(&scale, vals[i], bg, fg);
            memcpy(bgs + (size_t)i * 6, bg + 1, 6);
            fgs[i] = fg[1] == 'f' ? '1' : '0';
        }
        bgs[(size_t)v->node_count * 6] = 0;
        fgs[v->node_count] = 0;
        ETP_JW_KSTR_LIT(w, "bg", bgs);
        ETP_JW_KSTR_LIT(w, "fg", fgs);
        if (c.any) {
            ETP_JW_KDOUBLE_LIT(w, "min", c.min);
            ETP_JW_KDOUBLE_LIT(w, "max", c.max);
        }
        ETP_JW_KBOOL_LIT(w, "noSum", hide_sum);
        etp_jw_obj_end(w);
    }
    free(vals);
    free(has);
    free(bgs);
    etp_jw_arr_end(w);
}
