/* bench_ingest.c - the run-history store's speed (bench/store.sh drives it):
 *
 *   bench_ingest ingest TARGET BUNDLE...        store the bundles through the
 *       ingest API, one transaction each, as `etprof db ingest` does: bundles/s
 *       (verify + read + store), then bytes stored per run
 *   bench_ingest fill TARGET BUNDLE SERIES POINTS
 *       SERIES x POINTS runs of BUNDLE's metrics (values jittered, every tenth
 *       run with per-execution values), written with multi-row INSERTs of bound
 *       parameters through the store's database interface: a history of
 *       100,000 runs in seconds instead of 100,000 bundles on disk; their
 *       series_runs rows after, as schema step 3 writes those of older runs
 *   bench_ingest series TARGET METRIC REPEAT
 *       the series query (default groups, publication order, samples) over
 *       the whole history, in a process with the CLI's malloc settings: best
 *       and median ms of REPEAT, and the first (on a new connection and a
 *       fresh heap, as `etprof db trend` runs it), points, series, the client's CPU ms
 *       and, for a PostgreSQL server on this machine, the server process's
 *
 * Output: one line of JSON per measurement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/child.h"
#include "cli/cli.h"
#include "etprof/bundle_read.h"
#include "etprof/store.h"
#include "store/store_internal.h"

static int fail(const etp_error *err)
{
    char buf[1200];
    fprintf(stderr, "bench_ingest: %s\n", etp_error_format(err, buf, sizeof buf));
    return 1;
}

static void stats_line(etp_store *s, const char *what)
{
    etp_error err;
    etp_store_stats st;
    if (etp_store_get_stats(s, &st, &err) == ETP_OK)
        printf("{\"measure\": \"%s\", \"engine\": \"%s\", \"runs\": %llu, \"bytes\": %llu, "
               "\"bytes_per_run\": %.0f}\n",
               what, etp_store_engine(s), (unsigned long long)st.runs, (unsigned long long)st.bytes,
               st.runs ? (double)st.bytes / (double)st.runs : 0.0);
}

static int cmd_ingest(const char *target, char **dirs, int n)
{
    etp_error err;
    etp_error_clear(&err);
    etp_store *s;
    if (etp_store_open(target, ETP_STORE_WRITE, &s, &err))
        return fail(&err);
    double t0 = bench_now();
    uint64_t rows = 0;
    for (int i = 0; i < n; i++) {
        etp_store_ingest_result res;
        if (etp_store_ingest(s, dirs[i], NULL, 0, &res, &err)) {
            etp_store_close(s);
            return fail(&err);
        }
        rows += res.rows;
    }
    double t = bench_now() - t0;
    printf("{\"measure\": \"ingest\", \"engine\": \"%s\", \"bundles\": %d, \"seconds\": %.3f, "
           "\"bundles_per_s\": %.1f, \"rows_per_bundle\": %.1f}\n",
           etp_store_engine(s), n, t, n / t, n ? (double)rows / n : 0.0);
    stats_line(s, "stored");
    etp_store_close(s);
    return 0;
}

/* ---- fill -------------------------------------------------------------------- */

#define RUNS_PER_TX 500

/* splitmix64: the jitter's random numbers (fixed seed: the same history). */
static uint64_t rnd(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int exec_sql(etp_db_query *q, etp_error *err)
{
    int row;
    return etp_db_step(q, &row, err) != ETP_OK;
}

/* "INSERT INTO t (cols) VALUES ($1..),(..)" for @p rows rows of @p ncols. */
static char *insert_sql(const char *head, int ncols, int rows)
{
    size_t cap = strlen(head) + (size_t)rows * ncols * 10 + 16, k = strlen(head);
    char *s = malloc(cap);
    strcpy(s, head);
    int p = 1;
    for (int r = 0; r < rows; r++) {
        k += (size_t)sprintf(s + k, "%s(", r ? "," : " ");
        for (int c = 0; c < ncols; c++)
            k += (size_t)sprintf(s + k, "%s$%d", c ? "," : "", p++);
        s[k++] = ')';
    }
    s[k] = '\0';
    return s;
}

static int cmd_fill(const char *target, const char *bundle, int nseries, int npoints)
{
    etp_error err;
    etp_error_clear(&err);
    etp_bundle_doc *doc;
    if (etp_bundle_open(bundle, 1, &doc, &err))
        return fail(&err);
    uint32_t nm;
    const etp_bundle_metric *m = etp_bundle_doc_metrics(doc, &nm);
    etp_store *s;
    if (etp_store_open(target, ETP_STORE_WRITE, &s, &err)) {
        etp_bundle_close(doc);
        return fail(&err);
    }
    etp_db *db = s->db;
    int64_t *kind = calloc(nm, sizeof *kind);
    int rc = 0;
    /* The metric kinds, as ingest makes them. */
    for (uint32_t i = 0; !rc && i < nm; i++) {
        etp_db_query *q;
        rc = etp_db_prepare(db, "INSERT INTO metric_kinds (name, unit, aggregation, additive) "
                                "VALUES ($1, $2, $3, $4) ON CONFLICT (name, unit, aggregation, "
                                "additive) DO NOTHING",
                            &q, &err) != ETP_OK;
        if (rc)
            break;
        etp_db_bind_text(q, 1, m[i].name);
        etp_db_bind_text(q, 2, m[i].unit ? m[i].unit : "");
        etp_db_bind_text(q, 3, m[i].aggregation ? m[i].aggregation : "");
        etp_db_bind_int(q, 4, m[i].additive != 0);
        rc = exec_sql(q, &err);
        etp_db_finalize(q);
        if (!rc && etp_db_prepare(db, "SELECT id FROM metric_kinds WHERE name = $1 AND unit = $2 AND "
                                      "aggregation = $3 AND additive = $4",
                                  &q, &err) == ETP_OK) {
            etp_db_bind_text(q, 1, m[i].name);
            etp_db_bind_text(q, 2, m[i].unit ? m[i].unit : "");
            etp_db_bind_text(q, 3, m[i].aggregation ? m[i].aggregation : "");
            etp_db_bind_int(q, 4, m[i].additive != 0);
            int row;
            rc = etp_db_step(q, &row, &err) != ETP_OK || !row;
            kind[i] = rc ? 0 : etp_db_col_int(q, 0);
            etp_db_finalize(q);
        }
    }
    int64_t first = 0;
    int found = 0;
    if (!rc)
        rc = etp_db_query_int(db, "SELECT max(id) FROM runs", &first, &found, &err) != ETP_OK;
    first = found ? first + 1 : 1;
    const int64_t total = (int64_t)nseries * npoints, t0 = 1767225600000LL; /* 2026-01-01 */
    uint64_t seed = 1;
    double start = bench_now();
    char *runs_sql = insert_sql("INSERT INTO runs (id, manifest_sha256, run_id, published_ms, timestamp, "
                                "tool_version, status, validity, method, time_unit, executions, "
                                "program_sha256, etrecord_sha256, etdump_sha256, bundle, detailed, "
                                "labels, ingested_ms) VALUES",
                                18, RUNS_PER_TX);
    char *labels_sql = insert_sql("INSERT INTO labels (run, key, value) VALUES", 3, RUNS_PER_TX * 2);
    int metrics_rows = 30000 / 5 / (int)nm * (int)nm; /* whole runs per statement */
    for (int64_t lo = 0; !rc && lo < total; lo += RUNS_PER_TX) {
        int n = total - lo < RUNS_PER_TX ? (int)(total - lo) : RUNS_PER_TX;
        rc = etp_db_begin_write(db, &err) != ETP_OK;
        etp_db_query *q = NULL;
        char *sql = n == RUNS_PER_TX ? runs_sql : insert_sql("INSERT INTO runs (id, manifest_sha256, run_id, "
                                                              "published_ms, timestamp, tool_version, status, "
                                                              "validity, method, time_unit, executions, "
                                                              "program_sha256, etrecord_sha256, "
                                                              "etdump_sha256, bundle, detailed, labels, "
                                                              "ingested_ms) VALUES",
                                                              18, n);
        if (!rc)
            rc = etp_db_prepare(db, sql, &q, &err) != ETP_OK;
        for (int r = 0; !rc && r < n; r++) {
            int64_t i = lo + r, id = first + i;
            /* run i belongs to series i % nseries: program (i % nseries) / 10, device i % 10 */
            int64_t series = i % nseries;
            char sha[65], prog[65], rid[40], labels[96];
            snprintf(sha, sizeof sha, "%064llx", (unsigned long long)(id * 2654435761ULL));
            snprintf(prog, sizeof prog, "%064llx", (unsigned long long)(series / 10 + 1));
            snprintf(rid, sizeof rid, "00000000-0000-4000-8000-%012llx", (unsigned long long)id);
            /* runs.labels: key NUL value NUL, sorted by key (device, seq) */
            int ll = snprintf(labels, sizeof labels, "device%cdev%lld%cseq%c%lld%c", 0,
                              (long long)(series % 10), 0, 0, (long long)(i / nseries), 0);
            int p = 1 + r * 18;
            etp_db_bind_int(q, p, id);
            etp_db_bind_text(q, p + 1, sha);
            etp_db_bind_text(q, p + 2, rid);
            etp_db_bind_int(q, p + 3, t0 + i * 60000);
            etp_db_bind_text(q, p + 4, "2026-01-01T00:00:00.000Z");
            etp_db_bind_text(q, p + 5, "0.1.0");
            etp_db_bind_text(q, p + 6, "complete");
            etp_db_bind_text(q, p + 7, "valid");
            etp_db_bind_text(q, p + 8, "forward");
            etp_db_bind_text(q, p + 9, "ms");
            etp_db_bind_int(q, p + 10, 50);
            etp_db_bind_text(q, p + 11, prog);
            etp_db_bind_text(q, p + 12, "");
            etp_db_bind_text(q, p + 13, sha);
            etp_db_bind_bytes(q, p + 14, "/bench/bundle", 13);
            etp_db_bind_int(q, p + 15, i % 10 == 0);
            etp_db_bind_bytes(q, p + 16, labels, (size_t)ll);
            etp_db_bind_int(q, p + 17, t0);
        }
        if (!rc)
            rc = exec_sql(q, &err);
        etp_db_finalize(q);
        if (sql != runs_sql)
            free(sql);
        /* labels: device and seq */
        q = NULL;
        sql = n == RUNS_PER_TX ? labels_sql : insert_sql("INSERT INTO labels (run, key, value) VALUES", 3, n * 2);
        if (!rc)
            rc = etp_db_prepare(db, sql, &q, &err) != ETP_OK;
        for (int r = 0; !rc && r < n; r++) {
            int64_t i = lo + r, id = first + i;
            char dev[32], seq[32];
            int dl = snprintf(dev, sizeof dev, "dev%lld", (long long)(i % nseries % 10));
            int sl = snprintf(seq, sizeof seq, "%lld", (long long)(i / nseries));
            etp_db_bind_int(q, 1 + r * 6, id);
            etp_db_bind_text(q, 2 + r * 6, "device");
            etp_db_bind_bytes(q, 3 + r * 6, dev, (size_t)dl);
            etp_db_bind_int(q, 4 + r * 6, id);
            etp_db_bind_text(q, 5 + r * 6, "seq");
            etp_db_bind_bytes(q, 6 + r * 6, seq, (size_t)sl);
        }
        if (!rc)
            rc = exec_sql(q, &err);
        etp_db_finalize(q);
        if (sql != labels_sql)
            free(sql);
        /* metrics: every metric of the bundle, jittered by up to 2% */
        int64_t rows = (int64_t)n * nm;
        for (int64_t mlo = 0; !rc && mlo < rows; mlo += metrics_rows) {
            int k = rows - mlo < metrics_rows ? (int)(rows - mlo) : metrics_rows;
            char *msql = insert_sql("INSERT INTO metrics (run, kind, value, samples, reason) VALUES", 5, k);
            rc = etp_db_prepare(db, msql, &q, &err) != ETP_OK;
            free(msql);
            for (int r = 0; !rc && r < k; r++) {
                int64_t x = mlo + r, run = first + lo + x / nm;
                const etp_bundle_metric *mt = &m[x % nm];
                double jitter = 1 + ((double)(rnd(&seed) % 4001) - 2000) / 100000.0;
                etp_db_bind_int(q, 1 + r * 5, run);
                etp_db_bind_int(q, 2 + r * 5, kind[x % nm]);
                if (mt->available)
                    etp_db_bind_double(q, 3 + r * 5, mt->value * jitter);
                else
                    etp_db_bind_null(q, 3 + r * 5);
                etp_db_bind_int(q, 4 + r * 5, (int64_t)mt->samples);
                etp_db_bind_null(q, 5 + r * 5);
            }
            if (!rc)
                rc = exec_sql(q, &err);
            etp_db_finalize(q);
        }
        /* per-execution values of method_execute for the detailed runs */
        int ndet = 0;
        for (int r = 0; r < n; r++)
            ndet += (lo + r) % 10 == 0;
        char *fsql = ndet ? insert_sql("INSERT INTO figure_samples (run, figure, unit, count, value_le) "
                                       "VALUES", 5, ndet)
                          : NULL;
        if (!rc && fsql)
            rc = etp_db_prepare(db, fsql, &q, &err) != ETP_OK;
        for (int r = 0, d = 0; !rc && fsql && r < n; r++) {
            if ((lo + r) % 10)
                continue;
            unsigned char le[50 * 8];
            for (int e = 0; e < 50; e++) {
                double v = 0.6 * (1 + ((double)(rnd(&seed) % 4001) - 2000) / 100000.0);
                uint64_t bits;
                memcpy(&bits, &v, 8);
                for (int j = 0; j < 8; j++)
                    le[e * 8 + j] = (unsigned char)(bits >> (8 * j));
            }
            etp_db_bind_int(q, 1 + d * 5, first + lo + r);
            etp_db_bind_text(q, 2 + d * 5, "method_execute");
            etp_db_bind_text(q, 3 + d * 5, "ms");
            etp_db_bind_int(q, 4 + d * 5, 50);
            etp_db_bind_bytes(q, 5 + d * 5, le, sizeof le);
            d++;
        }
        if (!rc && fsql)
            rc = exec_sql(q, &err);
        if (fsql)
            etp_db_finalize(q);
        free(fsql);
        if (!rc)
            rc = etp_db_commit(db, &err) != ETP_OK;
        else
            etp_db_rollback(db);
    }
    /* What ingest writes beside each run: its series_runs row. */
    if (!rc)
        rc = etp_store_series_backfill(db, &err) != ETP_OK;
    /* PostgreSQL: the id sequence past the ids given here. */
    if (!rc && etp_db_engine_get(db) == ETP_DB_POSTGRES)
        rc = etp_db_exec(db, "SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT max(id) FROM runs))",
                         &err) != ETP_OK;
    /* What autovacuum does in time: statistics, and the visibility map that
     * lets index-only scans skip the table. */
    if (!rc && etp_db_engine_get(db) == ETP_DB_POSTGRES)
        rc = etp_db_exec(db, "VACUUM ANALYZE", &err) != ETP_OK;
    /* Write the fill's dirty pages now, not while a series is measured (a
     * superuser's statement: elsewhere the checkpointer does it in time). */
    if (!rc && etp_db_engine_get(db) == ETP_DB_POSTGRES) {
        etp_error ignored;
        etp_error_clear(&ignored);
        (void)etp_db_exec(db, "CHECKPOINT", &ignored);
    }
    double t = bench_now() - start;
    if (!rc) {
        printf("{\"measure\": \"fill\", \"engine\": \"%s\", \"runs\": %lld, \"series\": %d, "
               "\"metric_rows\": %lld, \"seconds\": %.2f}\n",
               etp_store_engine(s), (long long)total, nseries, (long long)total * nm, t);
        stats_line(s, "filled");
    }
    free(runs_sql);
    free(labels_sql);
    free(kind);
    etp_store_close(s);
    etp_bundle_close(doc);
    return rc ? fail(&err) : 0;
}

/* ---- series ------------------------------------------------------------------- */

/* CPU seconds of this process (on a loaded machine, wall time measures the
 * scheduler as much as the query). */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU ms the PostgreSQL server process @p pid has used (/proc/PID/schedstat:
 * a server on this machine), or -1. With the client's CPU time it says
 * where a query's time goes when the machine is shared. */
static double server_cpu_ms(long pid)
{
    char path[64];
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "/proc/%ld/schedstat", pid);
    FILE *f = pid > 0 ? fopen(path, "r") : NULL;
    int ok = f && fscanf(f, "%llu", &ns) == 1;
    if (f)
        fclose(f);
    return ok ? (double)ns / 1e6 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmd_series(const char *target, const char *metric, int repeat, const char *where)
{
    etp_error err;
    etp_error_clear(&err);
    etp_store *s;
    if (etp_store_open(target, ETP_STORE_READ, &s, &err))
        return fail(&err);
    etp_store_series_query q;
    memset(&q, 0, sizeof q);
    q.metric = metric;
    etp_history_label w = {"device", where};
    if (where) {
        q.filter.where = &w;
        q.filter.where_count = 1;
    }
    double *t = calloc((size_t)repeat, sizeof *t), *c = calloc((size_t)repeat, sizeof *c);
    double *sc = calloc((size_t)repeat, sizeof *sc);
    int64_t pid = 0;
    if (etp_db_engine_get(s->db) == ETP_DB_POSTGRES &&
        etp_db_query_int(s->db, "SELECT pg_backend_pid()", &pid, NULL, &err) != ETP_OK)
        pid = 0;
    uint64_t points = 0, samples = 0;
    uint32_t series = 0;
    int rc = 0;
    for (int r = 0; r < repeat && !rc; r++) {
        etp_history_series_set *set;
        double t0 = bench_now(), c0 = cpu_now(), s0 = server_cpu_ms((long)pid);
        if (etp_store_series(s, &q, &set, &err)) {
            rc = fail(&err);
            break;
        }
        t[r] = (bench_now() - t0) * 1000;
        c[r] = (cpu_now() - c0) * 1000;
        sc[r] = s0 < 0 ? -1 : server_cpu_ms((long)pid) - s0;
        points = samples = 0;
        series = set->count;
        for (uint32_t i = 0; i < set->count; i++) {
            points += set->series[i].point_count;
            for (uint32_t k = 0; k < set->series[i].point_count; k++)
                samples += set->series[i].points[k].sample_count;
        }
        etp_history_series_free(set);
    }
    if (!rc) {
        double first = t[0], first_server = sc[0];
        qsort(t, (size_t)repeat, sizeof *t, cmp_double);
        qsort(c, (size_t)repeat, sizeof *c, cmp_double);
        qsort(sc, (size_t)repeat, sizeof *sc, cmp_double);
        printf("{\"measure\": \"series\", \"engine\": \"%s\", \"metric\": \"%s\", \"where\": \"%s\", "
               "\"series\": %u, \"points\": %llu, \"execution_values\": %llu, \"best_ms\": %.1f, "
               "\"median_ms\": %.1f, \"best_cpu_ms\": %.1f",
               etp_store_engine(s), metric, where ? where : "", series, (unsigned long long)points,
               (unsigned long long)samples, t[0], t[repeat / 2], c[0]);
        printf(", \"first_ms\": %.1f", first);
        if (sc[0] >= 0)
            printf(", \"best_server_cpu_ms\": %.1f, \"first_server_cpu_ms\": %.1f", sc[0], first_server);
        printf("}\n");
    }
    free(t);
    free(c);
    free(sc);
    etp_store_close(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "ingest"))
        return cmd_ingest(argv[2], argv + 3, argc - 3);
    if (argc == 6 && !strcmp(argv[1], "fill"))
        return cmd_fill(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    if ((argc == 5 || argc == 6) && !strcmp(argv[1], "series")) {
        cli_tune_malloc(argv + 2); /* the heap `etprof db trend` has */
        return cmd_series(argv[2], argv[3], atoi(argv[4]) > 0 ? atoi(argv[4]) : 1,
                          argc == 6 ? argv[5] : NULL);
    }
    fprintf(stderr, "usage: bench_ingest ingest TARGET BUNDLE... | fill TARGET BUNDLE SERIES POINTS |\n"
                    "       series TARGET METRIC REPEAT [DEVICE]\n");
    return 2;
}
