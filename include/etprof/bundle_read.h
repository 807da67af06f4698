/*
 * etprof/bundle_read.h - verify a published result bundle and read it back.
 *
 * A result bundle is a directory of artifacts plus result_manifest.json, the
 * publication marker, which lists every artifact with its relative path,
 * media type, size and SHA-256 (writing one: etprof/bundle.h). Everything
 * here treats the directory as untrusted input: paths are resolved without
 * following symlinks, sizes are capped, every artifact read is hashed again.
 *
 * Thread safety: the functions share no state; a document read back is
 * immutable (see etp_bundle_doc).
 */
#ifndef ETPROF_BUNDLE_READ_H
#define ETPROF_BUNDLE_READ_H

#include "etprof/error.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Manifest file name inside a bundle directory. */
#define ETP_BUNDLE_MANIFEST "result_manifest.json"
/** Hidden temp name the manifest is written under before the rename. */
#define ETP_BUNDLE_MANIFEST_TMP ".result_manifest.json.tmp"
/** Identity of the manifest's own schema and its (integer) version. */
#define ETP_BUNDLE_SCHEMA "etprof.result-manifest"
#define ETP_BUNDLE_SCHEMA_VERSION 1

/**
 * Outcome of verifying a bundle. problems[i] is one line, "DIR/PATH: what is
 * wrong" (untrusted text from the manifest is escaped: no control bytes).
 * warnings[i] is one line each for files under DIR that the manifest does
 * not declare (and a leftover temp manifest); they do not fail verification
 * unless the caller chooses so (`etprof verify --strict`).
 */
typedef struct etp_verify_report {
    uint32_t problem_count;
    char **problems;
    uint32_t warning_count;
    char **warnings;
    uint32_t artifact_count; /**< artifacts declared in the manifest */
} etp_verify_report;

/**
 * Verify the bundle in @p dir. Checks: the manifest exists, is a regular
 * file (not a symlink), at most 64 MiB, parses as JSON (duplicate keys
 * rejected), has schema "etprof.result-manifest" and integer schema_version 1
 * and the required envelope members with the right types; every artifact
 * entry is well formed, has a safe relative path (see etp_bundle_write),
 * is declared once, exists as a regular file reached from @p dir without
 * following any symlink (every component opened with O_NOFOLLOW, plus a
 * realpath containment check), and has the declared size and SHA-256.
 * Undeclared files are listed as warnings.
 *
 * @param out  receives the report (release with etp_verify_report_free());
 *             set whenever ETP_OK is returned. The bundle is good iff
 *             problem_count == 0.
 * @return ETP_OK when verification ran (whatever it found); ETP_E_IO if
 *         @p dir cannot be opened as a directory; ETP_E_NOMEM.
 */
etp_status etp_bundle_verify(const char *dir, etp_verify_report **out, etp_error *err);

/** Release a report. Safe on NULL. */
void etp_verify_report_free(etp_verify_report *r);

/* ---- reading a published bundle back ------------------------------------ */

/**
 * A published bundle, read back: its manifest, and the content of the
 * artifacts a consumer compares (summary.json's metrics, the operators
 * table, run_metadata.json). Opaque and immutable once opened: every pointer
 * an accessor returns is owned by the document and valid until
 * etp_bundle_close(). Any number of threads may read one document at once.
 */
typedef struct etp_bundle_doc etp_bundle_doc;

/**
 * Open the published bundle in @p dir.
 *
 * The manifest must exist (a directory without one is not published: an
 * error), be a regular file reached without a symlink and an etprof result
 * manifest of schema version 1. With @p verify, the bundle must also pass
 * etp_bundle_verify() without a problem (every declared artifact present,
 * unmodified, inside @p dir, no symlink on the way; undeclared files are
 * only warnings there and here), and each artifact read below must still
 * have its declared SHA-256 when it is read.
 *
 * Read when the manifest declares them (absent ones read as empty):
 * summary.json's "metrics", method, units and device figures, operators.csv
 * or operators.json as a table, run_metadata.json (with its labels) and
 * detailed/figures.csv. Unknown members are ignored; a member of the wrong type
 * is an error.
 *
 * Thread safety: reads only @p dir; several documents may be opened at once
 * on different threads.
 *
 * @param out  receives the document on ETP_OK (NULL otherwise); release with
 *             etp_bundle_close()
 * @return ETP_OK; ETP_E_IO (@p dir or an artifact cannot be opened or read);
 *         ETP_E_FORMAT (no manifest, a problem found by verification, an
 *         artifact that is not what it claims), the message naming the file
 *         and the first problem; ETP_E_NOMEM; ETP_E_USAGE (no @p dir).
 */
etp_status etp_bundle_open(const char *dir, int verify, etp_bundle_doc **out, etp_error *err);

/**
 * etp_bundle_open() with verification, also handing back the verifier's
 * whole report (`etprof verify` prints it): *report is set whenever
 * verification ran, whether or not the bundle passed (release with
 * etp_verify_report_free()); *out only on ETP_OK.
 */
etp_status etp_bundle_open_report(const char *dir, etp_bundle_doc **out,
                                  etp_verify_report **report, etp_error *err);

/** Release a document. Safe on NULL. */
void etp_bundle_close(etp_bundle_doc *b);

/** One artifact as the manifest declares it. */
typedef struct etp_bundle_artifact_info {
    const char *path;        /**< relative, forward slashes */
    const char *media_type;
    const char *role;        /**< or NULL */
    const char *schema;      /**< content schema id, or NULL */
    int schema_version;      /**< 0 without a schema */
    uint64_t size;
    const char *sha256;      /**< 64 lowercase hex digits */
} etp_bundle_artifact_info;

/** One issue of the manifest. */
typedef struct etp_bundle_issue {
    const char *code, *severity, *message;
    const char *context_json; /**< the context object as compact JSON, or NULL */
} etp_bundle_issue;

/** One input file of the run (the manifest's provenance, or run_metadata's). */
typedef struct etp_bundle_input_info {
    const char *role;        /**< "etdump", "pte", "etrecord", "log", ... */
    const char *name;        /**< base name */
    const char *path;        /**< as given on the command line (run_metadata only), or NULL */
    int has_digest;          /**< size and sha256 are known */
    uint64_t size;
    const char *sha256;      /**< or NULL */
} etp_bundle_input_info;

/** The manifest: envelope, issues, artifacts (sorted by path), inputs. */
typedef struct etp_bundle_manifest {
    const char *bundle_type, *run_id, *timestamp;
    const char *tool_name, *tool_version;
    const char *status;      /**< "complete", "incomplete", "failed" */
    const char *validity;    /**< "valid", "degraded", "invalid" */
    uint32_t issue_count;
    const etp_bundle_issue *issues;
    uint32_t artifact_count;
    const etp_bundle_artifact_info *artifacts;
    uint32_t input_count;
    const etp_bundle_input_info *inputs;
    const char *options_json;   /**< provenance options, compact JSON, or NULL */
    const char *options_sha256; /**< or NULL */
    const char *manifest_sha256; /**< SHA-256 of result_manifest.json's bytes as read: the
                                      bundle's identity (64 lowercase hex digits) */
} etp_bundle_manifest;

/** One metric of summary.json. */
typedef struct etp_bundle_metric {
    const char *name;        /**< e.g. "method_execute.avg" */
    int available;           /**< 0: "availability": "unavailable" (no value) */
    double value;
    const char *unit;
    const char *aggregation; /**< e.g. "mean over executions"; NULL when unavailable */
    int additive;
    uint64_t samples;
    const char *reason;      /**< why unavailable, else NULL */
} etp_bundle_metric;

/** What a table cell holds. */
typedef enum etp_cell_type {
    ETP_CELL_NULL = 0,       /**< empty CSV field, JSON null, absent member or empty list */
    ETP_CELL_BOOL,           /**< true / false */
    ETP_CELL_NUMBER,         /**< a finite decimal number */
    ETP_CELL_STRING          /**< anything else (a list: its items joined by spaces) */
} etp_cell_type;

/** One cell: its type, the typed value, and the text it was read from. */
typedef struct etp_bundle_cell {
    etp_cell_type type;
    int boolean;
    double number;
    const char *text;        /**< the cell as text ("" for NULL); always set */
} etp_bundle_cell;

/**
 * The operators table: operators.csv (header row = columns) or
 * operators.json (one row per entity; nested objects flattened to
 * "parent.member" columns, in first-seen order).
 */
typedef struct etp_bundle_table {
    const char *source;      /**< "operators.csv" or "operators.json"; NULL: none */
    uint32_t column_count;
    const char *const *columns;
    uint32_t row_count;
    const etp_bundle_cell *cells; /**< row-major: cells[row * column_count + col] */
} etp_bundle_table;

/* ---- run labels -------------------------------------------------------- */

/** Longest label key, in bytes. */
#define ETP_LABEL_KEY_MAX 64
/** Longest label value, in bytes. */
#define ETP_LABEL_VALUE_MAX 65536

/**
 * One KEY=VALUE label of a run (`--label`, `--labels-from-ci`), as
 * run_metadata.json's "labels" object records it. A key is 1 to
 * ETP_LABEL_KEY_MAX bytes of [A-Za-z0-9_.:-] starting with a letter, and
 * not one of the run's own fields a history filters by (program, etrecord,
 * method, unit, validity, tool_version, run_id); a value
 * is any bytes but NUL, at most ETP_LABEL_VALUE_MAX of them (the JSON file
 * holds a value that is not UTF-8 as {"base64": "..."}).
 */
typedef struct etp_bundle_label {
    const char *key;
    const char *value;
} etp_bundle_label;

/** NULL when @p key is a valid label key, else why not (static text). */
const char *etp_label_key_problem(const char *key);
/** NULL when @p value is a valid label value (its length), else why not (static). */
const char *etp_label_value_problem(const char *value);

/** run_metadata.json. Absent members are NULL (counts 0). */
typedef struct etp_bundle_run_metadata {
    const char *run_id, *timestamp;
    const char *tool_name, *tool_version;
    const char *command_line;
    const char *options_json;  /**< the options object, compact JSON, or NULL */
    uint32_t input_count;
    const etp_bundle_input_info *inputs;
    uint32_t label_count;      /**< "labels": 0 when the bundle has none */
    const etp_bundle_label *labels; /**< sorted by key, keys distinct */
} etp_bundle_run_metadata;

/** One device or runner figure of summary.json's "device" member (what
 *  runner and device logs measured, kept apart from the ETDump's numbers). */
typedef struct etp_bundle_device_figure {
    const char *name;        /**< e.g. "run.wall", "arm.npu_active_cycles" */
    const char *unit;        /**< its unit's name: "ms", "KiB", "CPU cycles", ... */
    const char *source;      /**< e.g. "GNU time -v", "etprof run (wait4)" */
    const char *log;         /**< the log's base name, or NULL */
    int summable;            /**< its avg may be added to other summable figures of its unit */
    int per_inference;       /**< 1: a total over n inferences, avg = total / n */
    uint64_t n;              /**< values summarised */
    double total, avg, p50, min, max;
} etp_bundle_device_figure;

/** One finding of summary.json's "findings" (etprof/findings.h), as far as
 *  a comparison of runs needs it. */
typedef struct etp_bundle_finding {
    const char *code;        /**< e.g. "delegation.fragmented" */
    const char *severity;    /**< "info" or "warning" (NULL when absent) */
    const char *status;      /**< "fired" or "withheld" */
    const char *message;     /**< NULL when absent */
    uint32_t entity_count;
    const char *const *entity_ids; /**< affected_entities[].id, in file order */
} etp_bundle_finding;

/** What summary.json says about the run besides its metrics. */
typedef struct etp_bundle_summary_info {
    const char *method;      /**< method.name, or NULL */
    const char *time_unit;   /**< units.time: the unit of its times ("ms", "cycles", ...), or NULL */
    uint32_t device_figure_count;
    const etp_bundle_device_figure *device_figures;
    int has_findings;        /**< 0: the summary has no "findings" (written before etprof had them) */
    uint32_t finding_count;
    const etp_bundle_finding *findings; /**< in file order */
} etp_bundle_summary_info;

/** The bundle directory as given. */
const char *etp_bundle_doc_dir(const etp_bundle_doc *b);
/** The manifest (never NULL). */
const etp_bundle_manifest *etp_bundle_doc_manifest(const etp_bundle_doc *b);
/** Declared artifact at @p path, or NULL. Binary search. */
const etp_bundle_artifact_info *etp_bundle_doc_artifact(const etp_bundle_doc *b, const char *path);
/** summary.json's metrics in file order (*count 0 and NULL without them). */
const etp_bundle_metric *etp_bundle_doc_metrics(const etp_bundle_doc *b, uint32_t *count);
/** The metric named @p name, or NULL. Linear search. */
const etp_bundle_metric *etp_bundle_doc_metric(const etp_bundle_doc *b, const char *name);
/** The operators table (never NULL; source NULL and no rows without one). */
const etp_bundle_table *etp_bundle_doc_operators(const etp_bundle_doc *b);
/** Index of column @p name in @p t, or -1. */
int etp_bundle_table_column(const etp_bundle_table *t, const char *name);
/** Cell at @p row, @p col (both in range). */
const etp_bundle_cell *etp_bundle_table_cell(const etp_bundle_table *t, uint32_t row, uint32_t col);
/** run_metadata.json (never NULL; all empty without one). */
const etp_bundle_run_metadata *etp_bundle_doc_run_metadata(const etp_bundle_doc *b);
/** summary.json's method, time unit, device figures and findings (never
 *  NULL; all empty without a summary). */
const etp_bundle_summary_info *etp_bundle_doc_summary(const etp_bundle_doc *b);
/**
 * detailed/figures.csv of a --detailed bundle: the per-execution values of
 * the model figures (columns figure, execution, run_index, value_<unit>), as
 * a table of typed cells (never NULL; source NULL and no rows without one).
 */
const etp_bundle_table *etp_bundle_doc_figure_samples(const etp_bundle_doc *b);

#ifdef __cplusplus
}
#endif
#endif
