/*
 * etprof/store.h - the run-history store: published result bundles kept in
 * a database, one row set per run, queried as runs, series and exports.
 *
 * A TARGET is a SQLite file path (the embedded engine: one machine) or a
 * PostgreSQL URL "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB" (also
 * "postgres://"; the shared server many CI machines write to). Both hold
 * the same versioned schema (docs/history.md). A password in a target never
 * appears in a message, a log or a file: etp_store_redact() is what every
 * message shows.
 *
 * What goes in comes from the bundle, read through the verifier
 * (etp_bundle_open with verification): a tampered or unpublished bundle is
 * refused. A run is identified by the SHA-256 of its result_manifest.json:
 * storing the same bundle twice changes nothing. Per-program data (graphs,
 * pages) stays in the bundles; the store keeps their digests.
 *
 * Ownership: results are owned by the object a query returns and freed in
 * one call (etp_store_runs_free, etp_history_series_free); every string and
 * array they point to lives inside it.
 *
 * Thread safety: an etp_store is one database connection: use it from one
 * thread at a time (open one per thread). etp_store_bundle_load() and the
 * etp_store_bundle accessors touch no store: any number of threads may load
 * bundles at once (`db ingest --jobs N`).
 */
#ifndef ETPROF_STORE_H
#define ETPROF_STORE_H

#include <stdint.h>

#include "etprof/error.h"
#include "etprof/history.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The schema version this library reads and writes. */
#define ETP_STORE_SCHEMA_VERSION 3

/** An open store (one connection). */
typedef struct etp_store etp_store;

/** How etp_store_open() treats the database. */
typedef enum etp_store_mode {
    /** Read: the database must exist and hold the current schema (an older
     *  one: "run `etprof db migrate`"; a newer one: refused). */
    ETP_STORE_READ = 0,
    /** Write: a missing SQLite file or an empty PostgreSQL database is
     *  created, an older schema migrated; a newer one refused. A read-only
     *  database is refused here, before anything is written. */
    ETP_STORE_WRITE = 1,
    /** Open whatever is there without looking at the schema (for
     *  etp_store_migrate() and etp_store_schema_version()). */
    ETP_STORE_RAW = 2
} etp_store_mode;

/**
 * Open @p target. Errors are one line naming the redacted target: no such
 * database, an unreachable server, a read-only database (ETP_STORE_WRITE),
 * a schema newer than ETP_STORE_SCHEMA_VERSION ("schema version N is newer
 * than this etprof's M"), an older one in ETP_STORE_READ.
 * @return ETP_OK; ETP_E_IO (the database); ETP_E_FORMAT (its schema);
 *         ETP_E_USAGE (no target); ETP_E_NOMEM.
 */
etp_status etp_store_open(const char *target, etp_store_mode mode, etp_store **out, etp_error *err);

/** Close. Safe on NULL. */
void etp_store_close(etp_store *s);

/** "sqlite" or "postgresql" (static). */
const char *etp_store_engine(const etp_store *s);

/** The target as messages show it: the password replaced by "***". */
const char *etp_store_display(const etp_store *s);

/** @p target with its password (URL user information, a "password="
 *  parameter) replaced by "***", into @p out (cut to @p size, terminated). */
void etp_store_redact(const char *target, char *out, size_t size);

/** The database's schema version: 0 for an empty database. */
etp_status etp_store_schema_version(etp_store *s, uint32_t *version, etp_error *err);

/**
 * Migrate the schema to version @p to (0: ETP_STORE_SCHEMA_VERSION), one
 * step at a time in one transaction, serialised with every other client.
 * *@p from (may be NULL) receives the version found. Migrating down is
 * refused (ETP_E_USAGE); a newer database is refused (ETP_E_FORMAT).
 */
etp_status etp_store_migrate(etp_store *s, uint32_t to, uint32_t *from, etp_error *err);

/* ---- ingest --------------------------------------------------------------- */

/** A verified bundle, read and ready to store. */
typedef struct etp_store_bundle etp_store_bundle;

/**
 * Verify and read the bundle in @p dir (etp_bundle_open with verification)
 * into a record: its manifest digest, run, labels (run_metadata.json's,
 * then @p extra: the same key overrides, for this ingest only; the bundle
 * is not changed), inputs, metrics, entities, issues, NX groups, device
 * figures and, for a --detailed bundle, the per-execution values of its
 * model figures. Touches no store: thread-safe.
 * @return ETP_OK; ETP_E_FORMAT (not a published, verifying profile bundle,
 *         or content the store cannot take, the message naming the file);
 *         ETP_E_IO; ETP_E_USAGE (an invalid extra label); ETP_E_NOMEM.
 */
etp_status etp_store_bundle_load(const char *dir, const etp_history_label *extra,
                                 uint32_t extra_count, etp_store_bundle **out, etp_error *err);

/** The run as it will be stored (run is 0 until stored). Owned by @p b. */
const etp_history_run *etp_store_bundle_run(const etp_store_bundle *b);

/** Release a record. Safe on NULL. */
void etp_store_bundle_free(etp_store_bundle *b);

/** What storing a bundle did. */
typedef struct etp_store_ingest_result {
    int64_t run;                  /**< the store's run id (new or existing) */
    int added;                    /**< 1: stored now; 0: the manifest digest was already stored */
    uint64_t rows;                /**< rows written (0 when already stored) */
} etp_store_ingest_result;

/**
 * Store @p b in one transaction: all of it or nothing (a crash or a failure
 * half-way leaves the database as it was). Idempotent on the manifest
 * digest, also against concurrent writers.
 */
etp_status etp_store_insert(etp_store *s, const etp_store_bundle *b, etp_store_ingest_result *res,
                            etp_error *err);

/** etp_store_bundle_load() then etp_store_insert(). */
etp_status etp_store_ingest(etp_store *s, const char *dir, const etp_history_label *extra,
                            uint32_t extra_count, etp_store_ingest_result *res, etp_error *err);

/* ---- queries -------------------------------------------------------------- */

/**
 * Which runs a query looks at. Keys of @p where are label keys, or one of
 * the run's own fields: "program" (its program's SHA-256), "etrecord",
 * "method", "unit", "validity", "tool_version", "run_id" (these names are
 * not label keys: etp_label_key_problem() refuses them). Every condition
 * must hold.
 */
typedef struct etp_store_filter {
    const etp_history_label *where;
    uint32_t where_count;
    int has_since;
    int64_t since_ms;             /**< with has_since: published at or after, ms since 1970 UTC */
} etp_store_filter;

/** Runs listed by etp_store_list_runs(), in publication order (ties by run id). */
typedef struct etp_store_runs {
    uint32_t count;
    const etp_history_run *runs;
} etp_store_runs;

/** The runs @p f selects (NULL: all). Free with etp_store_runs_free(). */
etp_status etp_store_list_runs(etp_store *s, const etp_store_filter *f, etp_store_runs **out,
                               etp_error *err);

/** Release a listing. Safe on NULL. */
void etp_store_runs_free(etp_store_runs *r);

/** What etp_store_series() gathers. Fill from zero (memset) so that fields
 *  added later keep their defaults. */
typedef struct etp_store_series_query {
    /** A summary metric ("method_execute.avg"), or with @p stat its base name
     *  ("method_execute"). With @p entity: ignored unless @p stat is NULL, when
     *  a statistic name here ("avg", "p50", ...) is taken as the stat. */
    const char *metric;
    /** avg, p50, min, max (entities also p10, p90, kernel_avg, dispatch_avg); NULL:
     *  the metric as named (an entity: avg). */
    const char *stat;
    /** An entity's stable key (the entity_id of operators.csv); NULL: a model metric. */
    const char *entity;
    etp_store_filter filter;
    /** The groups: run fields or labels (see etp_store_filter); none: "program",
     *  "method", "device". Points of different units never share a series. */
    const char *const *group_by;
    uint32_t group_by_count;
    /** NULL: order by publication time; else a label holding numbers (e.g.
     *  "seq"): runs without a numeric value of it are left out. */
    const char *order_by;
    int include_invalid;          /**< 1: also runs whose validity is "invalid" */
    int no_samples;               /**< 1: leave the per-execution values out */
} etp_store_series_query;

/** The series of a query, sorted by key. */
typedef struct etp_history_series_set {
    uint32_t count;
    etp_history_series *series;
} etp_history_series_set;

/**
 * The series of @p q: one per group, its points ascending by order (ties by
 * run id), each with its run, labels, value and, where the run stored them
 * (a --detailed bundle; model metrics only), the per-execution values behind
 * the value. Free with etp_history_series_free().
 * @return ETP_OK (possibly no series); ETP_E_USAGE (no metric, an unknown
 *         stat); ETP_E_IO; ETP_E_NOMEM.
 */
etp_status etp_store_series(etp_store *s, const etp_store_series_query *q,
                            etp_history_series_set **out, etp_error *err);

/** Release a series set and everything in it. Safe on NULL. */
void etp_history_series_free(etp_history_series_set *set);

/**
 * Called once per run by etp_store_each_run() with the run and every
 * summary metric it stored with a value (sorted by name), with their
 * per-execution values where stored. The pointers are valid during the
 * call. Return ETP_OK to go on; any other status (with @p err set) stops
 * the iteration, which returns it.
 */
typedef etp_status (*etp_store_run_fn)(void *ctx, const etp_history_run *run,
                                       const etp_history_metric *metrics, uint32_t metric_count,
                                       etp_error *err);

/** Every run @p f selects, in publication order, with its metrics (exports). */
etp_status etp_store_each_run(etp_store *s, const etp_store_filter *f, etp_store_run_fn fn,
                              void *ctx, etp_error *err);

/* ---- housekeeping --------------------------------------------------------- */

/** What etp_store_gc() removes. */
typedef struct etp_store_gc_options {
    /** Keep the newest N runs of each group (program digest x method x
     *  `device` label, the default series); 0: no such limit. */
    uint32_t keep_last;
    /** Keep runs published in the last D days (whatever their group); 0: no
     *  such limit. With both, a run goes when either says so. */
    uint32_t keep_days;
    int dry_run;                  /**< count only */
} etp_store_gc_options;

/** Remove runs (with every row that belongs to them) in one transaction;
 *  *@p removed and *@p kept receive the counts. */
etp_status etp_store_gc(etp_store *s, const etp_store_gc_options *o, uint64_t *removed,
                        uint64_t *kept, etp_error *err);

/** Size of what the store holds. */
typedef struct etp_store_stats {
    uint32_t schema_version;
    uint64_t runs;
    uint64_t bytes;               /**< the database's size on disk (SQLite: pages in use;
                                       PostgreSQL: its tables and indexes) */
} etp_store_stats;

etp_status etp_store_get_stats(etp_store *s, etp_store_stats *out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
