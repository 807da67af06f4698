/* store_internal.h - what the run-history store's files share: the open
 * store, a bundle read for storing, the schema steps, the run filters and
 * the arena that owns every query result. */
#ifndef ETP_STORE_INTERNAL_H
#define ETP_STORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/bundle_read.h"
#include "etprof/columns.h"
#include "etprof/store.h"
#include "store/db.h"
#include "util/hashmap.h"

/* ---- the open store ------------------------------------------------------ */

/* Texts (any bytes: identities built of NUL-ended fields) mapped to 64-bit
 * values: the ids of dictionary rows (metric kinds, entity keys, run heads) this
 * connection has seen committed, a series' groups, gc's runs per group. */
typedef struct etp_store_dict {
    etp_hm index;
    char **texts;
    size_t *lens;
    int64_t *values;
    uint32_t count, cap;
} etp_store_dict;

struct etp_store {
    etp_db *db;
    etp_store_dict metric_kinds, entity_keys, run_heads;
};

void etp_store_dict_init(etp_store_dict *d);
/* The value of @p text (of @p len bytes), or 0 when absent. */
int64_t etp_store_dict_get(const etp_store_dict *d, const char *text, size_t len);
/* The value slot of @p text, or NULL when absent; valid until the next
 * addition. */
int64_t *etp_store_dict_find(etp_store_dict *d, const char *text, size_t len);
/* The value slot of @p text, added holding 0 when absent (*@p added 1, else
 * 0; may be NULL); valid until the next addition. NULL when out of memory. */
int64_t *etp_store_dict_slot(etp_store_dict *d, const char *text, size_t len, int *added);
void etp_store_dict_free(etp_store_dict *d);

/* ---- schema (schema.c) ---------------------------------------------------- */

/* The version of the schema in @p db (0: none). */
etp_status etp_store_read_version(etp_db *db, uint32_t *version, etp_error *err);
/* Migrate @p db to @p to (0: current), see etp_store_migrate(). */
etp_status etp_store_migrate_db(etp_db *db, uint32_t to, uint32_t *from, etp_error *err);
/* The "newer than this etprof" error. */
etp_status etp_store_newer(const etp_db *db, uint32_t version, etp_error *err);

/* ---- a bundle read for storing (ingest_load.c) ---------------------------- */

/* The entity columns the store keeps: the column table's timing columns
 * (etprof/columns.h); the entities table has one column of the same name
 * (the column's header) for each, in this order. */
#define ETP_STORE_ENTITY_COLUMNS 12
extern const etp_column_id etp_store_entity_columns[ETP_STORE_ENTITY_COLUMNS];

/* The NX group columns kept (nx_groups), besides the id, kind and parent;
 * the table's column of each is named by the column's key. */
#define ETP_STORE_NX_COLUMNS 9
extern const etp_column_id etp_store_nx_columns[ETP_STORE_NX_COLUMNS];

/* The per-execution values of one model figure (detailed/figures.csv). */
typedef struct etp_store_figure_samples {
    const char *figure;           /* e.g. "method_execute" (points into the doc) */
    uint32_t count;
    double *values;
} etp_store_figure_samples;

struct etp_store_bundle {
    etp_bundle_doc *doc;
    etp_history_run run;          /* strings point into doc or are owned below */
    etp_history_label *labels;    /* sorted by key: run.labels */
    char *labels_blob;            /* "key\0value\0..." as runs.labels stores them */
    size_t labels_blob_len;
    char *bundle_path;
    const char *timestamp, *status, *etrecord_sha256, *etdump_sha256;
    /* The operators table's rows: entities (timed or not) and NX groups,
     * with where each stored column is (-1: absent). */
    const etp_bundle_table *table;
    uint32_t *entity_rows, entity_count;
    uint32_t *nx_rows, nx_count;
    int col_id, col_kind, col_name, col_op_type, col_backend, col_nx_parent;
    int entity_cols[ETP_STORE_ENTITY_COLUMNS];
    int nx_cols[ETP_STORE_NX_COLUMNS];
    etp_store_figure_samples *figures;
    uint32_t figure_count;
    char **owned;                 /* label strings made for this record */
    uint32_t owned_count;
};

/* ---- run filters (runs.c) ------------------------------------------------- */

/* The run field a filter or group key names ("program" -> runs.program_sha256),
 * or NULL for a label. */
const char *etp_store_run_field(const char *key);

/* SQL of the condition @p f puts on runs aliased @p alias ("" when none),
 * starting with " AND ", its parameters numbered from *@p next (advanced);
 * bind them with etp_store_filter_bind(). @p narrow: @p alias is
 * series_runs (run fields through its run_heads row). malloc'd; NULL when
 * out of memory. */
char *etp_store_filter_sql(const etp_store_filter *f, const char *alias, int narrow, int *next);
void etp_store_filter_bind(const etp_store_filter *f, etp_db_query *q, int first);

/* A run's labels from runs.labels (key NUL value NUL ...) into @p out (at
 * most @p max; the strings point into @p blob, which must stay). Returns
 * how many, or the count needed when more than @p max. */
uint32_t etp_store_labels_parse(const char *blob, size_t len, etp_history_label *out, uint32_t max);

/* ---- series_runs (series_runs.c, ingest_insert.c) ------------------------ */

/* What a series reads of a run: series_runs.point (series_runs.c gives its
 * bytes). Strings are not NUL-terminated. */
typedef struct etp_store_point {
    int64_t run, published_ms;
    int detailed;
    const char *run_id, *labels;  /* labels as runs.labels holds them */
    size_t run_id_len, labels_len;
} etp_store_point;

/* The point column's bytes (malloc'd, *@p len their count; NULL: out of memory). */
unsigned char *etp_store_point_pack(const etp_store_point *pt, size_t *len);
/* Read @p n bytes of a point column; -1 when they are not one. The strings
 * point into @p bytes. */
int etp_store_point_unpack(const char *bytes, size_t n, etp_store_point *pt);
/* Bind a series_runs row (ETP_STORE_SERIES_RUNS_COLUMNS) from parameter @p p:
 * @p pt with its run_heads row @p head. */
#define ETP_STORE_SERIES_RUNS_COLUMNS "run, head, published_ms, point"
void etp_store_point_bind(etp_db_query *q, int p, const etp_store_point *pt, int64_t head);

/* Give every run without a series_runs row its row (and its run_heads row):
 * schema step 3 for the runs stored before it; tools that write runs rows
 * themselves (bench/bench_ingest.c) call it after. */
etp_status etp_store_series_backfill(etp_db *db, etp_error *err);

/* ---- results: one arena per result ---------------------------------------- */

typedef struct etp_arena {
    struct etp_arena_chunk *chunks;
    size_t used, cap;
} etp_arena;

/* malloc, but a block of 2 MiB or more is aligned to and advised for huge
 * pages (free() it as usual). */
void *etp_store_big_alloc(size_t n);
/* Move every block of @p from into @p into (what was allocated from @p from
 * now lives as long as @p into); @p from is left empty. */
void etp_arena_adopt(etp_arena *into, etp_arena *from);
void *etp_arena_alloc(etp_arena *a, size_t n);     /* 16-byte aligned; NULL: OOM */
void *etp_arena_calloc(etp_arena *a, size_t n);    /* the same, zeroed */
char *etp_arena_strndup(etp_arena *a, const char *s, size_t n);
char *etp_arena_strdup(etp_arena *a, const char *s);
void etp_arena_free(etp_arena *a);

/* A run row read by etp_store_select_runs() into @p r, its strings in @p a. */
#define ETP_STORE_RUN_COLUMNS                                                                   \
    "r.id, r.run_id, r.manifest_sha256, r.published_ms, r.tool_version, r.validity, r.method, " \
    "r.program_sha256, r.time_unit, r.executions, r.detailed, r.bundle, r.labels"
#define ETP_STORE_RUN_COLUMN_COUNT 13
etp_status etp_store_read_run(etp_db_query *q, int first, etp_arena *a, etp_history_run *r,
                              etp_error *err);
/* Only the labels of runs.labels in column @p c into r->labels / label_count. */
etp_status etp_store_read_run_labels(etp_db_query *q, int c, etp_arena *a, etp_history_run *r);
/* The same from the @p len bytes at @p blob. */
etp_status etp_store_labels_read(const char *blob, size_t len, etp_arena *a, etp_history_run *r);
/* etp_store_labels_read of a blob already in @p a (@p copy, @p len bytes
 * and a NUL after them): the labels point into it. */
etp_status etp_store_labels_in(char *copy, size_t len, etp_arena *a, etp_history_run *r);

/* The runs @p f selects, in publication order, into *@p runs (from @p a). */
etp_status etp_store_select_runs(etp_store *s, const etp_store_filter *f, etp_arena *a,
                                 etp_history_run **runs, uint32_t *count, etp_error *err);

/* Decode @p n bytes of value_le (8-byte little-endian doubles) into @p a;
 * NULL when @p n is not a multiple of 8 or out of memory. */
double *etp_store_values_decode(etp_arena *a, const char *le, size_t n, uint32_t *count);

/* "@p head$1,$2,...,$@p k)": the SQL of an IN list of @p k parameters
 * (@p head ends with "IN ("). malloc'd; NULL when out of memory. */
char *etp_store_in_list_sql(const char *head, size_t k);

/* Prepare @p sql (malloc'd SQL text, freed here; NULL: out of memory). */
etp_status etp_store_prepare_text(etp_store *s, char *sql, etp_db_query **q, etp_error *err);

/* "out of memory" naming the store. */
etp_status etp_store_nomem(const etp_store *s, etp_error *err);

#endif
