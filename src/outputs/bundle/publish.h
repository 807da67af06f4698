/*
 * publish.h - turn an analysis into a verifiable result bundle:
 *   summary.json, operators.csv|json, run_metadata.json, detailed/ (opt-in),
 *   model_explorer/ (views), result_manifest.json written last.
 */
#ifndef ETP_PUBLISH_H
#define ETP_PUBLISH_H

#include "etprof/analysis.h"
#include "etprof/error.h"

/* What to publish and where. The strings are the caller's and are only read
 * during etp_publish(). Fill it from zero (memset) so that fields added later
 * keep their defaults. */
typedef struct etp_publish_options {
    const char *dir;             /* bundle directory (see etp_bundle_begin_ex) */
    unsigned bundle_flags;       /* ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS (etprof/bundle.h) */
    int operators_csv;           /* 1: operators.csv, 0: operators.json */
    int detailed;                /* write detailed/ */
    int model_explorer;          /* write model_explorer/ (graph, overlays, page) */
    const char *command_line;    /* as typed, for run_metadata.json */
    const char *options_json;    /* the analysis options as a JSON object; NULL: none recorded */
    /* The input files the analysis read (NULL: not given; the ETDump is
     * required). Each is hashed once, when the manifest records it; the run
     * metadata, the comparability member and the companion-program gate of
     * the views use that digest. */
    const char *etdump_path, *pte_path, *etrecord_path, *log_path;
    const char *run_id, *timestamp; /* fixed identity (tests); NULL: fresh */
    /* More device logs read (role "device_log" in the manifest), and a log to
     * carry inside the bundle as logs/runner.log (`etprof run`'s capture). */
    const char *const *device_log_paths;
    uint32_t device_log_count;
    const char *embed_log_path;
    /* The ETDump came out of a log: its name in the manifest says so. */
    int etdump_from_log;
} etp_publish_options;

/* Write the bundle: staged beside po->dir and swapped into place at the end
 * (etprof/bundle.h). On failure po->dir is as it was. On success
 * *summary_json (if non-NULL) receives the summary.json text (caller frees). */
etp_status etp_publish(const etp_analysis *a, const etp_publish_options *po, char **summary_json,
                       etp_error *err);

/* Bundle artifact schemas. */
#define ETP_SUMMARY_SCHEMA "etprof.summary"
#define ETP_OPERATORS_SCHEMA "etprof.operators"
#define ETP_RUN_METADATA_SCHEMA "etprof.run-metadata"

#endif
