/* diff_figure_csv.c - detailed/figures.csv of a --detailed bundle: each
 * execution's value of every model-level figure (Method::execute, the
 * totals, each backend), the samples behind the figures' statistics, so
 * that `etprof diff` of two bundles can put an interval on them. */
#include <stdio.h>
#include <stdlib.h>

#include "etprof/bundle.h"
#include "etprof/diff.h"
#include "etprof/diff_io.h"
#include "util/csvw.h"

etp_status etp_diff_publish_figure_samples(etp_bundle *b, const etp_analysis *a, etp_error *err)
{
    etp_diff_figure_samples *fs = NULL;
    etp_status s = etp_diff_figure_values(a, &fs, err);
    if (s)
        return s;
    etp_csvw w;
    etp_csvw_init(&w);
    char h[64];
    snprintf(h, sizeof h, "value_%s", etp_unit_name(a->target_unit));
    etp_csvw_str(&w, "figure");
    etp_csvw_str(&w, "execution");
    etp_csvw_str(&w, "run_index");
    etp_csvw_str(&w, h);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < a->figure_count; i++)
        for (uint32_t k = 0; k < fs[i].count; k++) {
            uint32_t x = fs[i].executions[k];
            etp_csvw_str(&w, a->figures[i].name);
            etp_csvw_uint(&w, x);
            etp_csvw_uint(&w, a->executions[x]);
            etp_csvw_double(&w, fs[i].values[k]);
            etp_csvw_end_row(&w);
        }
    etp_diff_figure_samples_free(fs, a->figure_count);
    size_t len = 0;
    char *text = etp_csvw_take(&w, &len);
    if (!text)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    s = etp_bundle_write(b, "detailed/figures.csv", text, len, "text/csv", "diagnostic", NULL, 0, err);
    free(text);
    return s;
}
