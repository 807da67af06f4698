/* hist_export.c - runs and their metrics for other tools (`etprof db
 * export`; etprof/history_io.h): CSV and JSON Lines with the columns of
 * hist_fields.c, and one PyTorch `oss_ci_benchmark_v3` record per metric
 * (the mapping is hist_v3.c's). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"
#include "outputs/history/hist_v3.h"

struct etp_history_export {
    FILE *fp;
    etp_history_export_format format;
    etp_csvw csv;           /* CSV: the file writer */
    etp_status failed;      /* sticky: the first failure */
};

static const char *const FORMAT_NAMES[] = {"csv", "jsonl", "pytorch-v3"};

int etp_history_export_format_parse(const char *name, etp_history_export_format *out)
{
    for (int f = 0; name && f < (int)(sizeof FORMAT_NAMES / sizeof FORMAT_NAMES[0]); f++)
        if (!strcmp(name, FORMAT_NAMES[f])) {
            *out = (etp_history_export_format)f;
            return 0;
        }
    return -1;
}

etp_status etp_history_export_begin(FILE *fp, etp_history_export_format format,
                                    etp_history_export **out, etp_error *err)
{
    *out = NULL;
    if ((unsigned)format > ETP_HISTORY_EXPORT_PYTORCH_V3)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "unknown export format %d", (int)format);
    etp_history_export *x = calloc(1, sizeof *x);
    if (!x)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory starting an export");
    x->fp = fp;
    x->format = format;
    if (format == ETP_HISTORY_EXPORT_CSV) {
        etp_csvw_init_file(&x->csv, fp);
        etp_history_run none_r = {0};
        etp_history_metric none_m = {0};
        hist_sink h = hist_header_sink(&x->csv);
        hist_run_fields(&h, &none_r, HIST_LABELS_FLAT);
        hist_metric_fields(&h, &none_m);
        etp_csvw_end_row(&x->csv);
    }
    *out = x;
    return ETP_OK;
}

static etp_status write_failed(etp_history_export *x, etp_status st, etp_error *err)
{
    if (!x->failed)
        x->failed = st;
    if (st == ETP_E_NOMEM)
        return etp_error_set(err, st, NULL, ETP_NO_OFFSET, "out of memory writing the export");
    return etp_error_set(err, st, NULL, ETP_NO_OFFSET, "cannot write the export: %s", strerror(errno));
}

/* One JSON object per line for metric @p m of run @p r. */
static etp_status json_line(etp_history_export *x, const etp_history_run *r, const etp_history_metric *m,
                            etp_error *err)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    if (x->format == ETP_HISTORY_EXPORT_PYTORCH_V3) {
        hist_v3_record(&w, r, m);
    } else {
        hist_sink k = hist_json_sink(&w);
        etp_jw_obj_begin(&w);
        hist_run_fields(&k, r, HIST_LABELS_FLAT);
        hist_metric_fields(&k, m);
        etp_jw_obj_end(&w);
    }
    etp_jw_raw_text(&w, "\n", 1);
    size_t len;
    char *t = etp_jw_take(&w, &len);
    if (!t)
        return write_failed(x, ETP_E_NOMEM, err);
    size_t put = fwrite(t, 1, len, x->fp);
    free(t);
    return put == len ? ETP_OK : write_failed(x, ETP_E_IO, err);
}

etp_status etp_history_export_run(etp_history_export *x, const etp_history_run *run,
                                  const etp_history_metric *metrics, uint32_t n, etp_error *err)
{
    if (x->failed)
        return etp_error_set(err, x->failed, NULL, ETP_NO_OFFSET, "the export failed earlier");
    for (uint32_t i = 0; i < n; i++) {
        if (x->format != ETP_HISTORY_EXPORT_CSV) {
            etp_status st = json_line(x, run, &metrics[i], err);
            if (st)
                return st;
            continue;
        }
        hist_sink k = hist_csv_sink(&x->csv);
        hist_run_fields(&k, run, HIST_LABELS_FLAT);
        hist_metric_fields(&k, &metrics[i]);
        etp_csvw_end_row(&x->csv);
        if (x->csv.failed)
            return write_failed(x, ETP_E_IO, err);
    }
    return ETP_OK;
}

etp_status etp_history_export_end(etp_history_export *x, etp_error *err)
{
    if (!x)
        return ETP_OK;
    etp_status st = x->failed;
    if (x->format == ETP_HISTORY_EXPORT_CSV && etp_csvw_finish(&x->csv) && !st)
        st = ETP_E_IO;
    if (!st && (fflush(x->fp) || ferror(x->fp)))
        st = ETP_E_IO;
    free(x);
    if (st)
        return etp_error_set(err, st, NULL, ETP_NO_OFFSET, "cannot write the export%s%s",
                             st == ETP_E_IO ? ": " : "", st == ETP_E_IO ? strerror(errno) : "");
    return ETP_OK;
}
