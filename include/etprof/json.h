/*
 * etprof/json.h - an analysis or an inspect table as JSON text in memory,
 * the documents `etprof analyze --json` and `etprof inspect --json` print,
 * for callers that want the text rather than a FILE (language bindings).
 *
 * Ownership: each function returns a malloc'd, NUL-terminated text that the
 * caller releases with etp_text_free(); it points into nothing.
 *
 * Thread safety: pure reads of finished results; any number of threads may
 * call these at once on one analysis or table.
 */
#ifndef ETPROF_JSON_H
#define ETPROF_JSON_H

#include <stddef.h>

#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/inspect.h"
#include "etprof/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/** etp_analysis_json() flag: leave out the "entities" array (an empty
 *  array in its place). Read entities column by column instead
 *  (etp_column_read() in etprof/columns.h): for a run of many instructions
 *  that skips most of the text. */
#define ETP_JSON_NO_ENTITIES 0x1u

/**
 * The analysis as the document `etprof analyze --json` prints (schema
 * etprof.analysis v1), compact (no indentation; the values are the same).
 * It holds every member of etp_summary_json() (a bundle's summary.json) by
 * the same name with the same value, "schema" aside, plus "inputs",
 * "executions", "figures" and "entities".
 * @param flags  0 or ETP_JSON_NO_ENTITIES
 * @param len    receives the length (may be NULL)
 * @return the text, or NULL when out of memory
 */
char *etp_analysis_json(const etp_analysis *a, unsigned flags, size_t *len);

/**
 * The inspect table as the document `etprof inspect --json [--raw]` prints
 * (schema etprof.inspect v1). @p d and @p p are what @p in was built from
 * (@p p may be NULL); @p raw adds every sample of every event.
 * @return the text, or NULL when out of memory
 */
char *etp_inspect_json(const etp_inspect *in, const etp_etdump *d, const etp_program *p, int raw,
                       size_t *len);

/**
 * The run's logged values as the document `etprof tensors --json [--values
 * N]` prints (schema etprof.tensors v1: inputs, counts, the columns with
 * their units, "bundled_check", and each value with its first @p values
 * elements; 0: none), compact. Needs the analysis' tensor set (the options'
 * debug_buffer_data, etprof/tensors.h).
 * @param len    receives the length (may be NULL)
 * @return the text, or NULL when @p a has no tensor set or out of memory
 */
char *etp_analysis_tensors_json(const etp_analysis *a, uint64_t values, size_t *len);

/** Release a text returned by libetprof (these functions, etp_summary_json(),
 *  etp_publish()'s summary). Safe on NULL. */
void etp_text_free(char *text);

#ifdef __cplusplus
}
#endif
#endif
