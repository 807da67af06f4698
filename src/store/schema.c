/* schema.c - the run-history schema, one version at a time: each step's DDL
 * (the same for both engines, types as db.h tokens) and the migration that
 * applies the steps a database lacks, in one transaction, serialised with
 * every other client (docs/history.md describes the tables).
 *
 * A step is never edited once released: a change is a new step. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utc_time.h"

/* Version 1: runs, their labels, inputs, summary metrics, entities and
 * issues. */
static const char step1[] =
    "CREATE TABLE schema_version ("
    " version {INT} NOT NULL PRIMARY KEY,"
    " migrated_ms {INT} NOT NULL,"
    " tool_version TEXT NOT NULL);"
    /* One row per stored bundle. Strings a bundle's JSON carried are TEXT;
     * the bundle path and labels may be any bytes. labels repeats the
     * run's labels (key NUL value NUL ..., sorted by key) so that a series
     * reads them with its points. */
    "CREATE TABLE runs ("
    " id {ID},"
    " manifest_sha256 TEXT NOT NULL UNIQUE,"
    " run_id TEXT NOT NULL,"
    " published_ms {INT} NOT NULL,"
    " timestamp TEXT NOT NULL,"
    " tool_version TEXT NOT NULL,"
    " status TEXT NOT NULL,"
    " validity TEXT NOT NULL,"
    " method TEXT NOT NULL,"
    " time_unit TEXT NOT NULL,"
    " executions {INT} NOT NULL,"
    " program_sha256 TEXT NOT NULL,"
    " etrecord_sha256 TEXT NOT NULL,"
    " etdump_sha256 TEXT NOT NULL,"
    " bundle {BYTES} NOT NULL,"
    " detailed {INT} NOT NULL,"
    " labels {BYTES} NOT NULL,"
    " ingested_ms {INT} NOT NULL);"
    "CREATE INDEX runs_published ON runs (published_ms, id);"
    "CREATE INDEX runs_group ON runs (program_sha256, method, published_ms);"
    "CREATE TABLE labels ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " key TEXT NOT NULL,"
    " value {BYTES} NOT NULL,"
    " PRIMARY KEY (run, key)){NOROWID};"
    "CREATE INDEX labels_value ON labels (key, value, run);"
    "CREATE TABLE inputs ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " role TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " size_bytes {INT},"
    " sha256 TEXT);"
    "CREATE INDEX inputs_run ON inputs (run);"
    /* A metric's identity: its name with the unit, aggregation and
     * additivity it was published with (one row for many runs). */
    "CREATE TABLE metric_kinds ("
    " id {ID},"
    " name TEXT NOT NULL,"
    " unit TEXT NOT NULL,"
    " aggregation TEXT NOT NULL,"
    " additive {INT} NOT NULL,"
    " UNIQUE (name, unit, aggregation, additive));"
    /* Every summary.json metric of a run: value NULL when unavailable
     * (reason says why). */
    "CREATE TABLE metrics ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " kind {INT} NOT NULL REFERENCES metric_kinds (id),"
    " value {REAL},"
    " samples {INT} NOT NULL,"
    " reason TEXT,"
    " PRIMARY KEY (run, kind)){NOROWID};"
    "CREATE INDEX metrics_kind ON metrics (kind, run, value, samples);"
    /* An entity's identity: its stable key (operators.csv's entity_id) with
     * its kind, name, type and backend. */
    "CREATE TABLE entity_keys ("
    " id {ID},"
    " key {BYTES} NOT NULL,"
    " kind TEXT NOT NULL,"
    " name {BYTES} NOT NULL,"
    " op_type {BYTES} NOT NULL,"
    " backend {BYTES} NOT NULL,"
    " UNIQUE (key, kind, name, op_type, backend));"
    /* The column table's timing columns (etprof/columns.h), times in the
     * run's time_unit. */
    "CREATE TABLE entities ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " entity {INT} NOT NULL REFERENCES entity_keys (id),"
    " executions {INT},"
    " events {INT},"
    " avg {REAL},"
    " p10 {REAL},"
    " p50 {REAL},"
    " p90 {REAL},"
    " min {REAL},"
    " max {REAL},"
    " additive {INT},"
    " shared {INT},"
    " kernel_avg {REAL},"
    " dispatch_avg {REAL},"
    " PRIMARY KEY (run, entity)){NOROWID};"
    "CREATE INDEX entities_entity ON entities (entity, run);"
    "CREATE TABLE issues ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " code TEXT NOT NULL,"
    " severity TEXT NOT NULL,"
    " message TEXT NOT NULL);"
    "CREATE INDEX issues_run ON issues (run);";

/* Version 2: VGF NX cycle groups, device and runner figures, and the
 * per-execution values of the model figures of --detailed bundles. Runs
 * stored at version 1 have none of these rows. */
static const char step2[] =
    "CREATE TABLE nx_groups ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " group_id {BYTES} NOT NULL,"
    " kind TEXT NOT NULL,"
    " parent {BYTES},"
    " segment {INT},"
    " executions {INT},"
    " total_cycles_avg {REAL},"
    " op_cycles_avg {REAL},"
    " total_cycles_min {REAL},"
    " total_cycles_median {REAL},"
    " total_cycles_max {REAL},"
    " full_coverage {INT},"
    " stripes {INT},"
    " PRIMARY KEY (run, group_id)){NOROWID};"
    "CREATE TABLE device_figures ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " name TEXT NOT NULL,"
    " unit TEXT NOT NULL,"
    " source TEXT NOT NULL,"
    " log TEXT,"
    " summable {INT} NOT NULL,"
    " per_inference {INT} NOT NULL,"
    " n {INT} NOT NULL,"
    " total {REAL},"
    " avg {REAL},"
    " p50 {REAL},"
    " min {REAL},"
    " max {REAL});"
    "CREATE INDEX device_figures_run ON device_figures (run);"
    /* value_le: the values in execution order, each an IEEE 754 double of 8
     * little-endian bytes. */
    "CREATE TABLE figure_samples ("
    " run {INT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " figure TEXT NOT NULL,"
    " unit TEXT NOT NULL,"
    " count {INT} NOT NULL,"
    " value_le {BYTES} NOT NULL,"
    " PRIMARY KEY (run, figure)){NOROWID};";

/* Version 3: what a series reads of each run, narrow. A series reads every
 * run of the history; from runs (hundreds of bytes a row, digests as text)
 * that is tens of MB per query, from series_runs a few. The fields a group
 * key or filter names are in run_heads, one row for the many runs that
 * share them. Ingest writes both with the run; the runs stored before get
 * theirs after the DDL (etp_store_series_backfill). */
static const char step3[] =
    "CREATE TABLE run_heads ("
    " id {ID},"
    " program_sha256 TEXT NOT NULL,"
    " etrecord_sha256 TEXT NOT NULL,"
    " method TEXT NOT NULL,"
    " time_unit TEXT NOT NULL,"
    " validity TEXT NOT NULL,"
    " tool_version TEXT NOT NULL,"
    " UNIQUE (program_sha256, etrecord_sha256, method, time_unit, validity, tool_version));"
    /* point: the run's id, publication time, detailed flag, run id and
     * labels in one value (series_runs.c): a series reads it, the head and
     * the value, three columns a row. published_ms is also a column of its
     * own for --since. */
    "CREATE TABLE series_runs ("
    " run {INT} NOT NULL PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
    " head {INT} NOT NULL REFERENCES run_heads (id),"
    " published_ms {INT} NOT NULL,"
    " point {BYTES} NOT NULL);";

static const char *const steps[ETP_STORE_SCHEMA_VERSION] = {step1, step2, step3};
/* What a step does after its DDL (NULL: nothing). */
static etp_status (*const after_step[ETP_STORE_SCHEMA_VERSION])(etp_db *, etp_error *) = {
    NULL, NULL, etp_store_series_backfill};

etp_status etp_store_read_version(etp_db *db, uint32_t *version, etp_error *err)
{
    *version = 0;
    int has = etp_db_has_table(db, "schema_version", err);
    if (has <= 0)
        return has < 0 ? ETP_E_IO : ETP_OK;
    int64_t v = 0;
    int found = 0;
    etp_status s = etp_db_query_int(db, "SELECT max(version) FROM schema_version", &v, &found, err);
    if (!s && found)
        *version = v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    return s;
}

etp_status etp_store_newer(const etp_db *db, uint32_t version, etp_error *err)
{
    return etp_error_set(err, ETP_E_FORMAT, etp_db_shown(db), ETP_NO_OFFSET,
                         "schema version %u is newer than this etprof's (%u): use a newer etprof",
                         version, ETP_STORE_SCHEMA_VERSION);
}

/* Apply step @p k (1-based) and record it. */
static etp_status apply(etp_db *db, uint32_t k, etp_error *err)
{
    char *ddl = etp_db_ddl(db, steps[k - 1]);
    if (!ddl)
        return etp_error_set(err, ETP_E_NOMEM, etp_db_shown(db), ETP_NO_OFFSET, "out of memory");
    etp_status s = etp_db_exec(db, ddl, err);
    free(ddl);
    if (!s && after_step[k - 1])
        s = after_step[k - 1](db, err);
    etp_db_query *q = NULL;
    if (!s)
        s = etp_db_prepare(db,
                           "INSERT INTO schema_version (version, migrated_ms, tool_version) "
                           "VALUES ($1, $2, $3)",
                           &q, err);
    if (!s) {
        etp_db_bind_int(q, 1, k);
        etp_db_bind_int(q, 2, etp_utc_now_ms());
        etp_db_bind_text(q, 3, ETP_VERSION);
        int row;
        s = etp_db_step(q, &row, err);
    }
    etp_db_finalize(q);
    return s;
}

etp_status etp_store_migrate_db(etp_db *db, uint32_t to, uint32_t *from, etp_error *err)
{
    if (to == 0)
        to = ETP_STORE_SCHEMA_VERSION;
    if (to > ETP_STORE_SCHEMA_VERSION)
        return etp_error_set(err, ETP_E_USAGE, etp_db_shown(db), ETP_NO_OFFSET,
                             "no schema version %u: this etprof knows versions 1 to %u", to,
                             ETP_STORE_SCHEMA_VERSION);
    if (etp_db_readonly(db))
        return etp_error_set(err, ETP_E_IO, etp_db_shown(db), ETP_NO_OFFSET,
                             "the database is read-only");
    etp_status s = etp_db_begin_schema(db, err);
    if (s)
        return s;
    /* Read again under the lock: another client may have migrated meanwhile. */
    uint32_t v;
    s = etp_store_read_version(db, &v, err);
    if (!s && from)
        *from = v;
    if (!s && v > ETP_STORE_SCHEMA_VERSION)
        s = etp_store_newer(db, v, err);
    else if (!s && v > to)
        s = etp_error_set(err, ETP_E_USAGE, etp_db_shown(db), ETP_NO_OFFSET,
                          "schema version %u is newer than the %u asked for: versions are never "
                          "taken back",
                          v, to);
    for (uint32_t k = v + 1; !s && k <= to; k++)
        s = apply(db, k, err);
    if (!s)
        s = etp_db_commit(db, err);
    if (s)
        etp_db_rollback(db);
    return s;
}
