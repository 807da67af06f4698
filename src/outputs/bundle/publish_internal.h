/* publish_internal.h - the writers etp_publish() puts together, each in its
 * own file: operators (publish_operators.c),
 * run metadata and manifest members (publish_metadata.c), detailed/
 * (publish_detailed.c), model_explorer/ (publish_me.c). */
#ifndef ETP_PUBLISH_INTERNAL_H
#define ETP_PUBLISH_INTERNAL_H

#include "etprof/bundle.h"
#include "outputs/bundle/publish.h"
#include "util/csvw.h"
#include "util/jsonw.h"

/* One input file of the bundle. Each file is hashed once, when the bundle
 * records it (etp_bundle_add_input); every other file that names its digest
 * takes it from here. */
typedef struct etp_publish_input {
    const char *path;             /* NULL: not given */
    const char *sha256;           /* NULL when not given; owned by the bundle */
    uint64_t size;
} etp_publish_input;

typedef struct etp_publish_inputs {
    etp_publish_input etdump, pte, etrecord, log, debug_buffer;
} etp_publish_inputs;

/* Each text writer returns a malloc'd text (the caller frees it), NULL when
 * out of memory; *len (if given) receives its length. */
/* etp_summary_json() is public (etprof/publish.h), written by
 * outputs/report/report_doc.c with `analyze --json`'s document. */
char *etp_operators_csv(const etp_analysis *a, size_t *len);
/* The same table into @p w (a memory or a file writer). */
void etp_operators_csv_write(const etp_analysis *a, etp_csvw *w);
char *etp_operators_json(const etp_analysis *a, size_t *len);
char *etp_run_metadata_json(const etp_analysis *a, const etp_publish_options *po,
                            const etp_publish_inputs *in, const char *run_id, const char *timestamp);
/* mlia-output.json: the analysis as MLIA's standardized result, schema
 * 1.1.0 (mlia_output.c; its run_id and timestamp are the bundle's). */
#define ETP_MLIA_OUTPUT_PATH "mlia-output.json"
char *etp_mlia_output_json(const etp_analysis *a, const etp_publish_options *po, const etp_publish_inputs *in,
                           const char *run_id, const char *timestamp);
/* The labels of @p po checked (ETP_E_USAGE naming the first bad one), and
 * written as run_metadata.json's "labels" member when there are any
 * (publish_labels.c). */
etp_status etp_publish_labels_check(const etp_publish_options *po, etp_error *err);
void etp_publish_labels_json(etp_jw *w, const etp_publish_options *po);
/* The manifest's "issues" and "comparability" members. */
char *etp_manifest_issues_json(const etp_analysis *a);
char *etp_comparability_json(const etp_analysis *a, const etp_publish_inputs *in);

/* detailed/: per-execution samples, per-delegate breakdown, unresolved handles. */
etp_status etp_publish_detailed(etp_bundle *b, const etp_analysis *a, etp_error *err);
/* detailed/memory.json (publish_memory.c). */
#define ETP_MEMORY_SCHEMA "etprof.memory"
etp_status etp_publish_memory(etp_bundle *b, const etp_analysis *a, etp_error *err);
/* model_explorer/: graphs, overlays, the standalone page (publish_me.c),
 * in three steps so that its files are written together with the core ones:
 * prepare builds everything they draw (*out NULL: nothing to draw); streams
 * lists the files to write (at most ETP_PUBLISH_ME_STREAMS, into @p jobs,
 * which point into @p m); finish, once the inputs are hashed, checks that
 * the program drawn is the file recorded and adds the VGF overlays. */
typedef struct etp_publish_me etp_publish_me;
#define ETP_PUBLISH_ME_STREAMS 12
etp_status etp_publish_me_prepare(const etp_analysis *a, const etp_publish_options *po,
                                  etp_publish_me **out, etp_error *err);
size_t etp_publish_me_streams(etp_publish_me *m, etp_bundle_stream *jobs);
etp_status etp_publish_me_finish(etp_bundle *b, const etp_publish_me *m,
                                 const etp_publish_inputs *in, etp_error *err);
void etp_publish_me_free(etp_publish_me *m);

#endif
