/* report_json.c - the analysis, summary and inspect documents as text in
 * memory (etprof/json.h, etprof/publish.h), the same writers the CLI's
 * --json and a bundle's summary.json use. */
#include "etprof/json.h"
#include "etprof/publish.h"

#include <stdio.h>
#include <stdlib.h>

#include "outputs/report/analysis_report.h"
#include "outputs/report/inspect_report.h"
#include "util/jsonw.h"

char *etp_analysis_json(const etp_analysis *a, unsigned flags, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_analysis_json_doc(&w, a, ETP_DOC_ANALYSIS, !(flags & ETP_JSON_NO_ENTITIES));
    return etp_jw_take(&w, len);
}

/* summary.json: the same document without the analysis-only members. */
char *etp_summary_json(const etp_analysis *a)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_analysis_json_doc(&w, a, ETP_DOC_SUMMARY, 0);
    return etp_jw_take(&w, NULL);
}

/* The inspect writer writes to a FILE: here a memory stream. */
char *etp_inspect_json(const etp_inspect *in, const etp_etdump *d, const etp_program *p, int raw,
                       size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&text, &n);
    if (!fp)
        return NULL;
    int bad = etp_inspect_write_json(in, d, p, raw, fp);
    if (fclose(fp) || bad) {
        free(text);
        return NULL;
    }
    if (len)
        *len = n;
    return text;
}

void etp_text_free(char *text) { free(text); }
