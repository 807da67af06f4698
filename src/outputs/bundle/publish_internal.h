/* publish_internal.h - pieces of the bundle writer that live in their own files. */
#ifndef ETP_PUBLISH_INTERNAL_H
#define ETP_PUBLISH_INTERNAL_H

#include "etprof/bundle.h"
#include "outputs/bundle/publish.h"

char *etp_summary_json(const etp_analysis *a);
char *etp_operators_csv(const etp_analysis *a, size_t *len);
char *etp_operators_json(const etp_analysis *a, size_t *len);
char *etp_run_metadata_json(const etp_analysis *a, const etp_publish_options *po, const char *run_id,
                            const char *timestamp);

/* detailed/: per-execution samples, per-delegate breakdown, unresolved handles. */
etp_status etp_publish_detailed(etp_bundle *b, const etp_analysis *a, etp_error *err);
/* model_explorer/: graphs, overlays, the standalone page. */
etp_status etp_publish_model_explorer(etp_bundle *b, const etp_analysis *a,
                                      const etp_publish_options *po, etp_error *err);

#endif
