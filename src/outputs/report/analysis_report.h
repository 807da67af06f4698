/* analysis_report.h - `etprof analyze` output: terminal summary and JSON. */
#ifndef ETP_ANALYSIS_REPORT_H
#define ETP_ANALYSIS_REPORT_H

#include <stdio.h>

#include "etprof/analysis.h"
#include "etprof/columns.h"
#include "util/jsonw.h"

typedef struct etp_text_style {
    int color;        /* ANSI colours (only for a TTY without NO_COLOR) */
    int top;          /* operators listed (default 10) */
} etp_text_style;

/* The terminal summary: validity first, headline figures, top operators with
 * their share of execute time, issues with guidance. */
void etp_analysis_write_text(const etp_analysis *a, const etp_text_style *st, FILE *fp);

/* The "Findings" block of the terminal summary (nothing without findings). */
void etp_findings_write_text(const etp_finding_list *l, const etp_text_style *st, FILE *fp);

/* The document of an analysis (report_doc.c), one writer for both forms:
 * ETP_DOC_SUMMARY is a bundle's summary.json (etprof.summary v1),
 * ETP_DOC_ANALYSIS the whole analysis (etprof.analysis v1: `analyze --json`
 * without -o, etp_analysis_json()). The analysis document holds every member
 * of summary.json under the same name with the same value, and adds
 * "inputs", "executions", "figures" and "entities"; only "schema" differs. */
#define ETP_SUMMARY_SCHEMA "etprof.summary"
#define ETP_ANALYSIS_SCHEMA "etprof.analysis"
typedef enum etp_doc_kind { ETP_DOC_ANALYSIS, ETP_DOC_SUMMARY } etp_doc_kind;
/* The document into @p w; @p entities 0 leaves the analysis document's
 * "entities" array empty (etp_analysis_json() with ETP_JSON_NO_ENTITIES). */
void etp_analysis_json_doc(etp_jw *w, const etp_analysis *a, etp_doc_kind kind, int entities);
/* The whole analysis (ETP_DOC_ANALYSIS) on @p fp, indented. */
int etp_analysis_write_json(const etp_analysis *a, FILE *fp);

/* Pieces reused by the bundle writer. */
void etp_json_figure(etp_jw *w, const etp_analysis *a, const etp_figure *f);
/* An entity as a JSON object: every column of etprof/columns.h. */
void etp_json_entity(etp_jw *w, const etp_analysis *a, const etp_entity *e);
/* The same for an NX row (etprof/columns.h): its entity members,
 * "timing": null and its "nx" group. */
void etp_json_nx_row(etp_jw *w, const etp_analysis *a, const etp_nx_row *r);
/* One cell of column @p c as a JSON value. */
void etp_json_cell(etp_jw *w, const etp_column *c, etp_cell v);
/* "tick_unit": how the ticks' unit is known and the wall-time evidence
 * (etp_tick_evidence), as a JSON object value. */
void etp_json_tick_unit(etp_jw *w, const etp_analysis *a);
/* The warm-up picture as a JSON object value: executions of the method,
 * skipped ones, and the first execution against the rest (cold start). */
void etp_json_warmup(etp_jw *w, const etp_analysis *a);
void etp_json_issues(etp_jw *w, const etp_issue_list *l);
/* The findings (etprof/findings.h) as a JSON array value: each {code,
 * category, severity, status, message, affected_entities [{id, kind, name,
 * role?, value?, share_pct?}], affected_entities_omitted, details {title, next_step, evidence
 * [{name, value, unit, additive, source}], thresholds [{key, value, default,
 * unit, given, why}], specific?}}; one finding alone with etp_json_finding. */
void etp_json_findings(etp_jw *w, const etp_finding_list *l);
void etp_json_finding(etp_jw *w, const etp_finding *f);
/* A finding's "evidence" member: [{name, value, unit, additive, source}]. */
void etp_json_finding_evidence(etp_jw *w, const etp_finding *f);
/* A metric without a value: {name, unit, availability: "unavailable",
 * reason} (summary.json's and mlia-output.json's form). */
void etp_json_metric_unavailable(etp_jw *w, const char *name, const char *unit, const char *reason);
void etp_json_inputs(etp_jw *w, const etp_analysis *a);

#endif
