/* hist_trend.c - series as JSON and CSV (`etprof db trend --json|--csv`;
 * etprof/history_io.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"

/* The document into @p w (memory or a FILE: one text either way). */
static void trend_json(etp_jw *w, const etp_history_series *s, uint32_t n, const etp_regression *verdicts)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "schema", "etprof.trend");
    etp_jw_kint(w, "schema_version", 1);
    etp_jw_key(w, "series");
    etp_jw_arr_begin(w);
    hist_sink k = hist_json_sink(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_break(w);
        etp_jw_obj_begin(w);
        hist_series_fields(&k, &s[i]);
        etp_jw_key(w, "points");
        etp_jw_arr_begin(w);
        for (uint32_t p = 0; p < s[i].point_count; p++) {
            etp_jw_break(w);
            etp_jw_obj_begin(w);
            hist_point_fields(&k, &s[i].points[p], HIST_LABELS_OBJECT);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        if (verdicts) {
            etp_jw_key(w, "regression");
            hist_verdict_json(w, &s[i], &verdicts[i]);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
    etp_jw_raw_text(w, "\n", 1);
}

char *etp_history_trend_json(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                             size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    trend_json(&w, s, n, verdicts);
    return etp_jw_take(&w, len);
}

etp_status etp_history_trend_json_write(const etp_history_series *s, uint32_t n,
                                        const etp_regression *verdicts, FILE *fp, etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    trend_json(&w, s, n, verdicts);
    return etp_jw_finish_status(&w, "the trend", err);
}

/* The table into @p wp (memory or a FILE). */
static void trend_csv(etp_csvw *w, const etp_history_series *s, uint32_t n)
{
    etp_history_series none_s = {0};
    etp_history_point none_p = {0};
    hist_sink h = hist_header_sink(w), k = hist_csv_sink(w);
    hist_series_fields(&h, &none_s);
    hist_point_fields(&h, &none_p, HIST_LABELS_FLAT);
    etp_csvw_end_row(w);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t p = 0; p < s[i].point_count; p++) {
            hist_series_fields(&k, &s[i]);
            hist_point_fields(&k, &s[i].points[p], HIST_LABELS_FLAT);
            etp_csvw_end_row(w);
        }
}

char *etp_history_trend_csv(const etp_history_series *s, uint32_t n, size_t *len)
{
    etp_csvw w;
    etp_csvw_init(&w);
    trend_csv(&w, s, n);
    return etp_csvw_take(&w, len);
}

etp_status etp_history_trend_csv_write(const etp_history_series *s, uint32_t n, FILE *fp, etp_error *err)
{
    etp_csvw w;
    etp_csvw_init_file(&w, fp);
    trend_csv(&w, s, n);
    if (etp_csvw_finish(&w) || fflush(fp) || ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write the trend: %s",
                             strerror(errno));
    return ETP_OK;
}

etp_status etp_history_trend_text(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                                  FILE *fp, etp_error *err)
{
    uint64_t points = 0;
    for (uint32_t i = 0; i < n; i++) {
        const etp_history_series *x = &s[i];
        points += x->point_count;
        hist_text_put(fp, x->metric);
        if (x->entity) {
            fputc(' ', fp);
            hist_text_put(fp, x->entity);
        }
        fputs(" (", fp);
        hist_text_put(fp, x->unit);
        fprintf(fp, ", %s is better)  ", x->lower_is_better ? "lower" : "higher");
        hist_text_put(fp, x->key);
        fprintf(fp, "  %u point%s", x->point_count, x->point_count == 1 ? "" : "s");
        if (verdicts) {
            fputs("  ", fp);
            hist_text_put(fp, etp_regression_class_name(verdicts[i].verdict));
            if (verdicts[i].change_index >= 0 && (uint64_t)verdicts[i].change_index < x->point_count)
                fprintf(fp, " %+.1f%% from run %lld", verdicts[i].change_pct,
                        (long long)x->points[verdicts[i].change_index].run);
        }
        fprintf(fp, "\n  %-8s %-24s %14s  %-12s %s\n", "run", "published", "value", "commit", "seq");
        for (uint32_t p = 0; p < x->point_count; p++) {
            const etp_history_point *pt = &x->points[p];
            char iso[32];
            hist_iso_time(pt->published_ms, iso);
            fprintf(fp, "  %-8lld %-24s %14.6g  ", (long long)pt->run, iso, pt->value);
            const char *commit = hist_label(pt->labels, pt->label_count, "commit");
            const char *seq = hist_label(pt->labels, pt->label_count, "seq");
            char shortc[13];
            snprintf(shortc, sizeof shortc, "%s", commit ? commit : "-");
            hist_text_cell(fp, shortc, 12);
            fputc(' ', fp);
            hist_text_put(fp, seq ? seq : "-");
            fputc('\n', fp);
        }
    }
    fprintf(fp, "%u series, %llu points\n", n, (unsigned long long)points);
    if (fflush(fp) || ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write the trend");
    return ETP_OK;
}
