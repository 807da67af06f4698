/* hist_regressions.c - regression verdicts as text and JSON
 * (`etprof db regressions`; etprof/history_io.h). */
#include <stdlib.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"

/* Verdicts in the order the text lists them: most urgent first. */
static const etp_regression_class ORDER[] = {ETP_REGRESSION_REGRESSION, ETP_REGRESSION_SUSPICIOUS,
                                             ETP_REGRESSION_INSUFFICIENT_DATA, ETP_REGRESSION_OK};
#define NCLASS (sizeof ORDER / sizeof ORDER[0])

static void verdict_line(FILE *fp, const etp_history_series *s, const etp_regression *r)
{
    hist_text_cell(fp, etp_regression_class_name(r->verdict), 17);
    if (r->verdict == ETP_REGRESSION_INSUFFICIENT_DATA) {
        fprintf(fp, " %-40s ", "");
    } else {
        fprintf(fp, " %+7.1f%%  %10.4g -> %-10.4g ", r->change_pct, r->baseline_value, r->new_value);
        hist_text_cell(fp, s->unit, 6);
        fprintf(fp, " conf %.3f", r->confidence);
        if (r->has_interval)
            fprintf(fp, " [%.3f, %.3f]", r->ratio_lo, r->ratio_hi);
    }
    fputs("  ", fp);
    hist_text_put(fp, s->key);
    fputc(' ', fp);
    hist_text_put(fp, s->metric);
    if (s->entity) {
        fputc(' ', fp);
        hist_text_put(fp, s->entity);
    }
    if (r->change_index >= 0 && (uint64_t)r->change_index < s->point_count) {
        const etp_history_point *p = &s->points[r->change_index];
        fprintf(fp, "  since run %lld (", (long long)p->run);
        hist_text_put(fp, p->run_id);
        const char *commit = hist_label(p->labels, p->label_count, "commit");
        if (commit) {
            fputs(", commit ", fp);
            hist_text_put(fp, commit);
        }
        fputc(')', fp);
    }
    fputs("\n", fp);
}

etp_status etp_history_regressions_text(const etp_history_series *s, const etp_regression *verdicts,
                                        uint32_t n, FILE *fp, etp_error *err)
{
    uint32_t count[NCLASS] = {0};
    for (size_t c = 0; c < NCLASS; c++)
        for (uint32_t i = 0; i < n; i++)
            if (verdicts[i].verdict == ORDER[c]) {
                verdict_line(fp, &s[i], &verdicts[i]);
                count[c]++;
            }
    fprintf(fp, "%u series: %u regression, %u suspicious, %u insufficient_data, %u ok\n", n, count[0], count[1],
            count[2], count[3]);
    if (fflush(fp) || ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write the regression report");
    return ETP_OK;
}

char *etp_history_regressions_json(const etp_history_series *s, const etp_regression *verdicts,
                                   uint32_t n, const etp_regression_options *o, size_t *len)
{
    etp_regression_options defaults;
    if (!o) {
        etp_regression_options_init(&defaults);
        o = &defaults;
    }
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.regressions");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "options");
    etp_jw_obj_begin(&w);
    etp_jw_kuint(&w, "window", o->window);
    etp_jw_kuint(&w, "baseline", o->baseline);
    etp_jw_kuint(&w, "min_baseline", o->min_baseline);
    etp_jw_kdouble(&w, "threshold_pct", o->threshold_pct);
    etp_jw_kdouble(&w, "z_threshold", o->z_threshold);
    etp_jw_kdouble(&w, "confidence", o->confidence);
    etp_jw_kuint(&w, "resamples", o->resamples);
    etp_jw_kuint(&w, "seed", o->seed);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "counts");
    etp_jw_obj_begin(&w);
    for (size_t c = 0; c < NCLASS; c++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            k += verdicts[i].verdict == ORDER[c];
        etp_jw_kuint(&w, etp_regression_class_name(ORDER[c]), k);
    }
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "series");
    etp_jw_arr_begin(&w);
    hist_sink k = hist_json_sink(&w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_obj_begin(&w);
        hist_series_fields(&k, &s[i]);
        k.i64(&k, "points", s[i].point_count);
        etp_jw_key(&w, "regression");
        hist_verdict_json(&w, &s[i], &verdicts[i]);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    etp_jw_raw_text(&w, "\n", 1);
    return etp_jw_take(&w, len);
}
