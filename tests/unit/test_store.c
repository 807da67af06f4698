/* test_store.c - the pieces of the run-history store that need no server:
 * UTC milliseconds and RFC 3339 text (against the C library's own
 * conversion, and every calendar edge), a target's password redacted in
 * every form, an engine's error made one line without its secret, label
 * rules, the runs.labels encoding, the schema of both engines' DDL tokens,
 * and the store API over SQLite: open modes, a migration step by step, a
 * newer schema refused, a read-only file refused for writing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "etprof/bundle_read.h"
#include "etprof/store.h"
#include "store/db_internal.h"
#include "store/store_internal.h"
#include "util/utc_time.h"
#include "testutil.h"

static void test_utc_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 7;
    char text[32];
    for (int i = 0; i < 20000; i++) {
        /* any ms between 1970 and 2200 */
        int64_t ms = (int64_t)(tu_rand(&seed) % 7258118400000ULL);
        assert_int_equal(etp_utc_format_ms(ms, text, sizeof text), 0);
        assert_int_equal(strlen(text), 24);
        int64_t back = -1;
        assert_int_equal(etp_utc_parse_ms(text, &back), 0);
        assert_int_equal(back, ms);
        /* the C library agrees on the civil time */
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        char want[32];
        strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
        assert_memory_equal(text, want, 19);
    }
}

static void test_utc_parse(void **state)
{
    (void)state;
    int64_t ms;
    assert_int_equal(etp_utc_parse_ms("1970-01-01T00:00:00Z", &ms), 0);
    assert_int_equal(ms, 0);
    assert_int_equal(etp_utc_parse_ms("2026-03-01", &ms), 0);
    assert_int_equal(ms, 1772323200000LL);
    assert_int_equal(etp_utc_parse_ms("2026-03-01T12:00:00.5Z", &ms), 0);
    assert_int_equal(ms, 1772366400500LL);
    assert_int_equal(etp_utc_parse_ms("2026-03-01T12:00:00.123456Z", &ms), 0);
    assert_int_equal(ms, 1772366400123LL); /* beyond the ms: truncated */
    assert_int_equal(etp_utc_parse_ms("2026-03-01T13:30+01:30", &ms), 0);
    assert_int_equal(ms, 1772366400000LL);
    assert_int_equal(etp_utc_parse_ms("2026-03-01 12:00:00z", &ms), 0);
    assert_int_equal(etp_utc_parse_ms("2024-02-29", &ms), 0); /* leap year */
    static const char *const bad[] = {"", "2026", "2026-13-01", "2026-02-29", "2025-04-31",
                                      "2026-03-01T24:00Z", "2026-03-01T12:60Z", "2026-03-01T12:00",
                                      "2026-03-01T12:00:00.Z", "2026-03-01T12:00:00Zx", "1900-02-29",
                                      "2026-03-01T12:00+1:00", "26-03-01", "2026/03/01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_not_equal(etp_utc_parse_ms(bad[i], &ms), 0);
    char text[32];
    assert_int_equal(etp_utc_format_ms(-1, text, sizeof text), 0);
    assert_string_equal(text, "1969-12-31T23:59:59.999Z");
    assert_int_not_equal(etp_utc_format_ms(1772366400000LL, text, 10), 0);
}

static void test_redact(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgresql://u:secret@host/db", "postgresql://u:***@host/db"},
        {"postgres://u:s%40cr%2Ft@h:5432/db?sslmode=require", "postgres://u:***@h:5432/db?sslmode=require"},
        {"postgresql://u:p@ss/w:rd@h/db", "postgresql://u:***@h/db"}, /* unencoded '@', '/', ':' */
        {"postgresql://u@h/db?password=secret&x=1", "postgresql://u@h/db?password=***&x=1"},
        {"postgresql://u:a@h/db?password=b", "postgresql://u:***@h/db?password=***"},
        {"postgresql://h/db", "postgresql://h/db"},
        {"postgresql://u:@h/db", "postgresql://u:@h/db"},
        {"/var/lib/runs.db", "/var/lib/runs.db"},
        {"host=h password=secret dbname=d", "host=h password=*** dbname=d"},
    };
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        etp_store_redact(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
    etp_store_redact("postgresql://u:secret@host/db", out, 20); /* cut, still terminated */
    assert_int_equal(strlen(out), 19);
    size_t off, len;
    assert_int_equal(etp_db_password_at("postgresql://u:p@ss@h/d", &off, &len), 1);
    assert_int_equal(off, 15);
    assert_int_equal(len, 4);
}

static void test_one_line(void **state)
{
    (void)state;
    char out[128];
    etp_db_one_line("connection failed: x\n\tIs the server running?\n", NULL, out, sizeof out);
    assert_string_equal(out, "connection failed: x; Is the server running?");
    etp_db_one_line("password for pw-123 rejected\r\n", "pw-123", out, sizeof out);
    assert_string_equal(out, "password for *** rejected");
    etp_db_one_line("a\tb", NULL, out, sizeof out);
    assert_string_equal(out, "a b");
}

static void test_label_rules(void **state)
{
    (void)state;
    assert_null(etp_label_key_problem("device"));
    assert_null(etp_label_key_problem("a.b:c-d_9"));
    char key[70];
    memset(key, 'k', sizeof key);
    key[64] = '\0';
    assert_null(etp_label_key_problem(key));
    key[64] = 'k';
    key[65] = '\0';
    assert_non_null(etp_label_key_problem(key));
    static const char *const bad[] = {"", "9lives", "_x", "a b", "a=b", "a/b", "caf\xc3\xa9", "method",
                                      "program", "run_id", "unit"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_non_null(etp_label_key_problem(bad[i]));
    char *v = malloc(ETP_LABEL_VALUE_MAX + 2);
    memset(v, 'x', ETP_LABEL_VALUE_MAX + 1);
    v[ETP_LABEL_VALUE_MAX] = '\0';
    assert_null(etp_label_value_problem(v));
    v[ETP_LABEL_VALUE_MAX] = 'x';
    v[ETP_LABEL_VALUE_MAX + 1] = '\0';
    assert_non_null(etp_label_value_problem(v));
    free(v);
}

static void test_labels_blob(void **state)
{
    (void)state;
    static const char blob[] = "a\0" "1\0" "bb\0" "\xff;'\0" "c\0" "\0";
    etp_history_label l[4];
    assert_int_equal(etp_store_labels_parse(blob, sizeof blob - 1, l, 4), 3);
    assert_string_equal(l[0].key, "a");
    assert_string_equal(l[1].value, "\xff;'");
    assert_string_equal(l[2].key, "c");
    assert_string_equal(l[2].value, "");
    assert_int_equal(etp_store_labels_parse(blob, sizeof blob - 1, NULL, 0), 3);
    /* cut short: only whole pairs */
    assert_int_equal(etp_store_labels_parse(blob, 5, l, 4), 1);
    assert_int_equal(etp_store_labels_parse(blob, 3, l, 4), 0);
    assert_int_equal(etp_store_labels_parse("", 0, l, 4), 0);
}

/* etp_store_labels_in parses a few labels on the stack and many in two
 * passes: both give every pair, pointing into the copy. */
static void test_labels_in(void **state)
{
    (void)state;
    for (int count = 0; count <= 40; count += 3) {
        char blob[40 * 8];
        size_t len = 0;
        for (int i = 0; i < count; i++)
            len += (size_t)sprintf(blob + len, "k%02d%cv%d%c", i, 0, i, 0);
        etp_arena a = {0};
        char *copy = etp_arena_strndup(&a, blob, len);
        assert_non_null(copy);
        etp_history_run r;
        assert_int_equal(etp_store_labels_in(copy, len, &a, &r), ETP_OK);
        assert_int_equal(r.label_count, count);
        for (int i = 0; i < count; i++) {
            char k[8], v[8];
            sprintf(k, "k%02d", i);
            sprintf(v, "v%d", i);
            assert_string_equal(r.labels[i].key, k);
            assert_string_equal(r.labels[i].value, v);
            assert_true(r.labels[i].key >= copy && r.labels[i].value < copy + len);
        }
        etp_arena_free(&a);
    }
}

/* Stored per-execution values are little-endian doubles, whatever the host. */
static void test_values_decode(void **state)
{
    (void)state;
    static const unsigned char le[] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f,  /* 1.0 */
                                       0, 0, 0, 0, 0, 0, 0x04, 0xc0}; /* -2.5 */
    etp_arena a = {0};
    uint32_t n = 0;
    double *v = etp_store_values_decode(&a, (const char *)le, sizeof le, &n);
    assert_non_null(v);
    assert_int_equal(n, 2);
    assert_true(v[0] == 1.0 && v[1] == -2.5);
    assert_null(etp_store_values_decode(&a, (const char *)le, 7, &n)); /* not whole values */
    etp_arena_free(&a);
}

static void test_ddl_tokens(void **state)
{
    (void)state;
    struct {
        etp_db head;
    } fake;
    fake.head.ops = &etp_db_sqlite_ops;
    char *s = etp_db_ddl(&fake.head, "CREATE TABLE t (id {ID}, v {BYTES}, n {INT}, r {REAL}, PRIMARY KEY (n)){NOROWID}");
    assert_string_equal(s, "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB, n INTEGER, r REAL, PRIMARY KEY (n)) WITHOUT ROWID");
    free(s);
    fake.head.ops = &etp_db_pg_ops;
    s = etp_db_ddl(&fake.head, "x {BYTES} {NOROWID}{INT}");
    assert_string_equal(s, "x BYTEA BIGINT");
    free(s);
    assert_int_equal(etp_db_engine_of_target("postgres://x"), ETP_DB_POSTGRES);
    assert_int_equal(etp_db_engine_of_target("postgresql://x"), ETP_DB_POSTGRES);
    assert_int_equal(etp_db_engine_of_target("postgresql.db"), ETP_DB_SQLITE);
}

/* The store's entity columns are the column table's: their headers name
 * the entities table's columns, and each is a timing column. */
static void test_entity_columns(void **state)
{
    (void)state;
    static const char *const names[] = {"executions", "events", "avg", "p10", "p50", "p90",
                                        "min", "max", "additive", "shared", "kernel_avg",
                                        "dispatch_avg"};
    assert_int_equal(ETP_STORE_ENTITY_COLUMNS, sizeof names / sizeof names[0]);
    for (int i = 0; i < ETP_STORE_ENTITY_COLUMNS; i++) {
        const etp_column *c = etp_column_get(etp_store_entity_columns[i]);
        assert_string_equal(c->header, names[i]);
        assert_true(c->group == ETP_COLG_TIMING || c->group == ETP_COLG_KERNEL ||
                    c->group == ETP_COLG_DISPATCH);
    }
    for (int i = 0; i < ETP_STORE_NX_COLUMNS; i++)
        assert_int_equal(etp_column_get(etp_store_nx_columns[i])->group, ETP_COLG_NX);
}

static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t v = -1;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* A statement finalized and prepared again comes back from the
 * connection's cache: reset, with no binding of its last use, and one left
 * mid-result starts over. A failed one is not kept. */
static void test_statement_reuse(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/r.db", dir);
    etp_error err;
    etp_error_clear(&err);
    etp_db *db = NULL;
    assert_int_equal(etp_db_open(path, ETP_DB_CREATE, &db, &err), ETP_OK);
    assert_int_equal(etp_db_exec(db, "CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)", &err), ETP_OK);
    for (int round = 0; round < 3; round++) {
        etp_db_query *q;
        int row;
        assert_int_equal(etp_db_prepare(db, "SELECT $1, $2", &q, &err), ETP_OK);
        if (round == 0) {
            etp_db_bind_int(q, 1, 7);
            etp_db_bind_int(q, 2, 8);
        }
        assert_int_equal(etp_db_step(q, &row, &err), ETP_OK);
        assert_int_equal(row, 1);
        assert_int_equal(etp_db_col_null(q, 0), round != 0); /* no binding carried over */
        etp_db_finalize(q);
        /* stepped once of two rows, then finalized */
        assert_int_equal(etp_db_prepare(db, "SELECT 1 UNION ALL SELECT 2 ORDER BY 1", &q, &err), ETP_OK);
        assert_int_equal(etp_db_step(q, &row, &err), ETP_OK);
        assert_int_equal(etp_db_col_int(q, 0), 1);
        etp_db_finalize(q);
        /* a failing INSERT (the second of a duplicate key) */
        assert_int_equal(etp_db_prepare(db, "INSERT INTO t (k, v) VALUES (1, $1)", &q, &err), ETP_OK);
        etp_db_bind_int(q, 1, round);
        etp_status st = etp_db_step(q, &row, &err);
        assert_int_equal(st, round == 0 ? ETP_OK : ETP_E_IO);
        etp_db_finalize(q);
    }
    int64_t v = -1;
    int found = 0;
    assert_int_equal(etp_db_query_int(db, "SELECT v FROM t WHERE k = 1", &v, &found, &err), ETP_OK);
    assert_true(found && v == 0);
    etp_db_close(db);
    tu_rmrf(dir);
    free(dir);
}

static void test_open_modes(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/h.db", dir);
    etp_error err;
    etp_error_clear(&err);
    etp_store *s = NULL;
    /* reading a missing database: an error, and no file made */
    assert_int_equal(etp_store_open(path, ETP_STORE_READ, &s, &err), ETP_E_IO);
    assert_null(s);
    assert_non_null(strstr(err.message, "no such database"));
    assert_int_not_equal(access(path, F_OK), 0);
    /* raw: created, empty; a step at a time */
    assert_int_equal(etp_store_open(path, ETP_STORE_RAW, &s, &err), ETP_OK);
    uint32_t v = 99, from = 99;
    assert_int_equal(etp_store_schema_version(s, &v, &err), ETP_OK);
    assert_int_equal(v, 0);
    assert_int_equal(etp_store_migrate(s, 1, &from, &err), ETP_OK);
    assert_int_equal(from, 0);
    assert_int_equal(etp_store_migrate(s, 1, &from, &err), ETP_OK); /* nothing to do */
    assert_int_equal(from, 1);
    assert_string_equal(etp_store_engine(s), "sqlite");
    etp_store_close(s);
    /* read: version 1 is older: refused with the way out */
    assert_int_equal(etp_store_open(path, ETP_STORE_READ, &s, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "older"));
    /* write: migrated */
    assert_int_equal(etp_store_open(path, ETP_STORE_WRITE, &s, &err), ETP_OK);
    etp_store_stats st;
    assert_int_equal(etp_store_get_stats(s, &st, &err), ETP_OK);
    assert_int_equal(st.schema_version, ETP_STORE_SCHEMA_VERSION);
    assert_int_equal(st.runs, 0);
    assert_true(st.bytes > 0);
    assert_int_equal(etp_store_migrate(s, 1, &from, &err), ETP_E_USAGE); /* never back */
    etp_store_runs *r = NULL;
    assert_int_equal(etp_store_list_runs(s, NULL, &r, &err), ETP_OK);
    assert_int_equal(r->count, 0);
    etp_store_runs_free(r);
    etp_history_series_set *set = NULL;
    etp_store_series_query q;
    memset(&q, 0, sizeof q);
    q.metric = "method_execute.avg";
    assert_int_equal(etp_store_series(s, &q, &set, &err), ETP_OK);
    assert_int_equal(set->count, 0);
    etp_history_series_free(set);
    q.stat = "p99";
    q.metric = "method_execute";
    assert_int_equal(etp_store_series(s, &q, &set, &err), ETP_E_USAGE);
    etp_store_close(s);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM schema_version"), ETP_STORE_SCHEMA_VERSION);
    /* a newer schema: refused in every mode, naming both versions */
    sql_exec(path, "INSERT INTO schema_version VALUES (7, 0, 'future')");
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(etp_store_open(path, (etp_store_mode)mode, &s, &err), ETP_E_FORMAT);
        assert_non_null(strstr(err.message, "schema version 7 is newer than this etprof's (3)"));
    }
    assert_int_equal(etp_store_open(path, ETP_STORE_RAW, &s, &err), ETP_OK);
    assert_int_equal(etp_store_migrate(s, 0, NULL, &err), ETP_E_FORMAT);
    etp_store_close(s);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utc_round_trip), cmocka_unit_test(test_utc_parse),
        cmocka_unit_test(test_redact),         cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_label_rules),    cmocka_unit_test(test_labels_blob),
        cmocka_unit_test(test_labels_in),      cmocka_unit_test(test_values_decode),
        cmocka_unit_test(test_ddl_tokens),     cmocka_unit_test(test_entity_columns),
        cmocka_unit_test(test_open_modes),
        cmocka_unit_test(test_statement_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
