/* hist_trend.c - series as JSON and CSV (`etprof db trend --json|--csv`;
 * etprof/history_io.h). */
#include <stdlib.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"

char *etp_history_trend_json(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                             size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.trend");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "series");
    etp_jw_arr_begin(&w);
    hist_sink k = hist_json_sink(&w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_break(&w);
        etp_jw_obj_begin(&w);
        hist_series_fields(&k, &s[i]);
        etp_jw_key(&w, "points");
        etp_jw_arr_begin(&w);
        for (uint32_t p = 0; p < s[i].point_count; p++) {
            etp_jw_break(&w);
            etp_jw_obj_begin(&w);
            hist_point_fields(&k, &s[i].points[p], HIST_LABELS_OBJECT);
            etp_jw_obj_end(&w);
        }
        etp_jw_arr_end(&w);
        if (verdicts) {
            etp_jw_key(&w, "regression");
            hist_verdict_json(&w, &s[i], &verdicts[i]);
        }
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    etp_jw_raw_text(&w, "\n", 1);
    return etp_jw_take(&w, len);
}

char *etp_history_trend_csv(const etp_history_series *s, uint32_t n, size_t *len)
{
    etp_csvw w;
    etp_csvw_init(&w);
    etp_history_series none_s = {0};
    etp_history_point none_p = {0};
    hist_sink h = hist_header_sink(&w), k = hist_csv_sink(&w);
    hist_series_fields(&h, &none_s);
    hist_point_fields(&h, &none_p, HIST_LABELS_FLAT);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t p = 0; p < s[i].point_count; p++) {
            hist_series_fields(&k, &s[i]);
            hist_point_fields(&k, &s[i].points[p], HIST_LABELS_FLAT);
            etp_csvw_end_row(&w);
        }
    return etp_csvw_take(&w, len);
}
