/*
 * etprof/publish.h - turn an analysis into a verifiable result bundle
 * (summary.json, operators.csv|json, run_metadata.json, detailed/ on
 * request, model_explorer/ views, result_manifest.json written last), and
 * the bundle's summary and table on their own.
 *
 * Ownership: every string in etp_publish_options is the caller's and is only
 * read during etp_publish(). Texts returned here are malloc'd: release them
 * with etp_text_free() (etprof/json.h) or free().
 *
 * Thread safety: etp_publish() only reads the analysis, so several threads
 * may publish one finished analysis at once (to different directories);
 * etp_bundle_abandon_from_signal() covers at most 8 publications at once
 * (etprof/bundle.h). The other functions are pure reads.
 */
#ifndef ETPROF_PUBLISH_H
#define ETPROF_PUBLISH_H

#include <stddef.h>

#include "etprof/analysis.h"
#include "etprof/columns.h"
#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What to publish and where. Fill it from zero (memset) so that fields
 *  added later keep their defaults. */
typedef struct etp_publish_options {
    const char *dir;             /**< bundle directory (see etp_bundle_begin_ex) */
    unsigned bundle_flags;       /**< ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS (etprof/bundle.h) */
    int operators_csv;           /**< 1: operators.csv, 0: operators.json */
    int detailed;                /**< write detailed/ */
    int model_explorer;          /**< write model_explorer/ (graph, overlays, page) */
    const char *command_line;    /**< as typed, for run_metadata.json */
    const char *options_json;    /**< the analysis options as a JSON object; NULL: none recorded */
    /** The input files the analysis read (NULL: not given; the ETDump is
     *  required). Each is hashed once, when the manifest records it; the run
     *  metadata, the comparability member and the companion-program gate of
     *  the views use that digest. */
    const char *etdump_path, *pte_path, *etrecord_path, *log_path;
    const char *run_id, *timestamp; /**< fixed identity (tests); NULL: fresh */
    /** More device logs read (role "device_log" in the manifest), and a log to
     *  carry inside the bundle as logs/runner.log (`etprof run`'s capture). */
    const char *const *device_log_paths;
    uint32_t device_log_count;
    const char *embed_log_path;
    /** The debug buffer the analysis checked (etp_analysis.debug_buffer),
     *  recorded as input "debug_buffer"; NULL: none. Publishing fails with
     *  ETP_E_MISMATCH when its size is no longer the one checked. */
    const char *debug_buffer_path;
    /** The run's labels (`--label KEY=VALUE`): label_keys[i] = label_values[i]
     *  for i < label_count, recorded in run_metadata.json's "labels" object
     *  (sorted by key) only when label_count > 0, so a bundle without labels
     *  keeps its bytes. Keys must be valid and distinct, values at most
     *  ETP_LABEL_VALUE_MAX bytes (etp_label_key_problem(),
     *  etp_label_value_problem() in etprof/bundle_read.h): otherwise
     *  etp_publish() fails with ETP_E_USAGE before writing anything. */
    const char *const *label_keys;
    const char *const *label_values;
    uint32_t label_count;
    /** With model_explorer: the "overlays" level, for CI: keep the overlays,
     *  link status, findings, mapping and sync navigation, leave out the
     *  per-program graph.json and index.html (which depend on the program
     *  and ETRecord only, and are the bulk of a bundle). */
    int model_explorer_overlays_only;
    /** What log_path is called in the records (etprof run's capture: the
     *  bundle's own "logs/runner.log"); NULL: log_path. */
    const char *log_name;
    /** `etprof run`'s account of the runner command (a JSON object: the
     *  runner, its wrappers, where its program, ETDump and debug buffer came
     *  from), written as run_metadata.json "runner"; NULL: no member. */
    const char *runner_json;
    /** `etprof run`'s measurement lines, carried as logs/run.log (the
     *  device log of that name the manifest records); NULL: none. */
    const char *embed_measurements_path;
} etp_publish_options;

/**
 * Write the bundle of @p a: staged beside po->dir and swapped into place at
 * the end (etprof/bundle.h). On failure po->dir is as it was. On success
 * *@p summary_json (if non-NULL) receives the summary.json text (caller
 * frees). The model_explorer/ views need the analysis made with
 * etp_analysis_options.hash_program when a program was given.
 * @return ETP_OK; ETP_E_IO, ETP_E_USAGE (see etp_bundle_begin_ex()),
 *         ETP_E_NOMEM, or an input file's error when hashing it fails.
 */
etp_status etp_publish(const etp_analysis *a, const etp_publish_options *po, char **summary_json,
                       etp_error *err);

/**
 * The analysis options a bundle records (run_metadata.json's "options",
 * also hashed into the manifest's provenance), as one compact JSON object:
 * what shaped the result, from @p o (method, tick unit and whether it was
 * given, unit, the clock rate when one was given, executions skipped,
 * ranking), then the publication's choices from @p po (operators table
 * format, detailed/, Model Explorer views: "files", "open" when
 * @p open_page, "overlays" (po->model_explorer_overlays_only), or "none"). Paths are left out: the manifest records the
 * inputs by content. Give the text as po->options_json; the CLI and the
 * Python package both record it this way. malloc'd (etp_text_free() or
 * free()); NULL when out of memory. Pure: safe from any thread.
 */
char *etp_analysis_options_json(const etp_analysis_options *o, const etp_publish_options *po,
                                int open_page);

/**
 * The text summary.json of a bundle of @p a would hold (schema
 * etprof.summary v1: validity, headline figures, metrics, top operators,
 * issues, vgf_cycles with VGF statistics), without writing anything. It is
 * etp_analysis_json()'s document without "inputs", "executions", "figures"
 * and "entities", and with "schema" etprof.summary: every other member has
 * the same name and value in both. malloc'd (caller frees); NULL when out
 * of memory.
 */
char *etp_summary_json(const etp_analysis *a);

/**
 * The columns of operators.csv, in its order (its schema): a static array
 * of *@p count ids. Their headers are etp_column_header() with the
 * analysis' unit.
 */
const etp_column_id *etp_operators_csv_columns(size_t *count);

#ifdef __cplusplus
}
#endif
#endif
