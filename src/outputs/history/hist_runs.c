/* hist_runs.c - the stored runs as a terminal table, JSON and CSV
 * (`etprof db runs`; etprof/history_io.h). */
#include <stdlib.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"

etp_status etp_history_runs_text(const etp_history_run *runs, uint32_t n, FILE *fp, etp_error *err)
{
    fprintf(fp, "%-8s %-24s %-9s %-12s %10s %-6s  %s\n", "run", "published", "validity", "method", "executions",
            "unit", "labels / run id");
    for (uint32_t i = 0; i < n; i++) {
        const etp_history_run *r = &runs[i];
        char iso[32];
        hist_iso_time(r->published_ms, iso);
        fprintf(fp, "%-8lld %-24s ", (long long)r->run, iso);
        hist_text_cell(fp, r->validity, 9);
        fputc(' ', fp);
        hist_text_cell(fp, r->method, 12);
        fprintf(fp, " %10u ", r->executions);
        hist_text_cell(fp, r->time_unit, 6);
        fputs("  ", fp);
        for (uint32_t l = 0; l < r->label_count; l++) {
            hist_text_put(fp, r->labels[l].key);
            fputc('=', fp);
            hist_text_put(fp, r->labels[l].value);
            fputc(' ', fp);
        }
        fputs("/ ", fp);
        hist_text_put(fp, r->run_id);
        fputc('\n', fp);
    }
    fprintf(fp, "%u run%s\n", n, n == 1 ? "" : "s");
    if (fflush(fp) || ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write the list of runs");
    return ETP_OK;
}

char *etp_history_runs_json(const etp_history_run *runs, uint32_t n, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.history-runs");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "runs");
    etp_jw_arr_begin(&w);
    hist_sink k = hist_json_sink(&w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_obj_begin(&w);
        hist_run_fields(&k, &runs[i], HIST_LABELS_OBJECT);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

char *etp_history_runs_csv(const etp_history_run *runs, uint32_t n, size_t *len)
{
    etp_csvw w;
    etp_csvw_init(&w);
    etp_history_run none = {0};
    hist_sink h = hist_header_sink(&w), k = hist_csv_sink(&w);
    hist_run_fields(&h, &none, HIST_LABELS_FLAT);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < n; i++) {
        hist_run_fields(&k, &runs[i], HIST_LABELS_FLAT);
        etp_csvw_end_row(&w);
    }
    return etp_csvw_take(&w, len);
}
