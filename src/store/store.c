/* store.c - opening a run-history store (the schema checked or migrated on
 * the way in), its size, and the small pieces every store file uses: the
 * dictionary caches and the result arenas. */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

etp_status etp_store_nomem(const etp_store *s, etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, s ? etp_db_shown(s->db) : NULL, ETP_NO_OFFSET,
                         "out of memory");
}

void etp_store_redact(const char *target, char *out, size_t size) { etp_db_redact(target, out, size); }

etp_status etp_store_prepare_text(etp_store *s, char *sql, etp_db_query **q, etp_error *err)
{
    *q = NULL;
    etp_status st = sql ? etp_db_prepare(s->db, sql, q, err) : etp_store_nomem(s, err);
    free(sql);
    return st;
}

char *etp_store_in_list_sql(const char *head, size_t k)
{
    size_t cap = strlen(head) + 16 + k * 12, len = strlen(head);
    char *sql = malloc(cap);
    if (!sql)
        return NULL;
    memcpy(sql, head, len);
    for (size_t i = 0; i < k; i++)
        len += (size_t)snprintf(sql + len, cap - len, "%s$%zu", i ? "," : "", i + 1);
    snprintf(sql + len, cap - len, ")");
    return sql;
}

etp_status etp_store_open(const char *target, etp_store_mode mode, etp_store **out, etp_error *err)
{
    *out = NULL;
    etp_store *s = calloc(1, sizeof *s);
    if (!s)
        return etp_store_nomem(NULL, err);
    etp_store_dict_init(&s->metric_kinds);
    etp_store_dict_init(&s->entity_keys);
    etp_store_dict_init(&s->run_heads);
    etp_status st = etp_db_open(target, mode == ETP_STORE_READ ? ETP_DB_READ : ETP_DB_CREATE, &s->db, err);
    if (st) {
        free(s);
        return st;
    }
    const char *shown = etp_db_shown(s->db);
    uint32_t v = 0;
    if (mode == ETP_STORE_WRITE && etp_db_readonly(s->db))
        st = etp_error_set(err, ETP_E_IO, shown, ETP_NO_OFFSET,
                           "the database is read-only: nothing can be stored");
    if (!st && mode != ETP_STORE_RAW)
        st = etp_store_read_version(s->db, &v, err);
    if (!st && mode != ETP_STORE_RAW && v > ETP_STORE_SCHEMA_VERSION)
        st = etp_store_newer(s->db, v, err);
    else if (!st && mode == ETP_STORE_WRITE && v < ETP_STORE_SCHEMA_VERSION)
        st = etp_store_migrate_db(s->db, 0, NULL, err);
    else if (!st && mode == ETP_STORE_READ && v == 0)
        st = etp_error_set(err, ETP_E_FORMAT, shown, ETP_NO_OFFSET,
                           "holds no etprof run history (no schema_version table)");
    else if (!st && mode == ETP_STORE_READ && v < ETP_STORE_SCHEMA_VERSION)
        st = etp_error_set(err, ETP_E_FORMAT, shown, ETP_NO_OFFSET,
                           "schema version %u is older than this etprof's (%u): run `etprof db "
                           "migrate --db TARGET`",
                           v, ETP_STORE_SCHEMA_VERSION);
    if (st) {
        etp_store_close(s);
        return st;
    }
    *out = s;
    return ETP_OK;
}

void etp_store_close(etp_store *s)
{
    if (!s)
        return;
    etp_db_close(s->db);
    etp_store_dict_free(&s->metric_kinds);
    etp_store_dict_free(&s->entity_keys);
    etp_store_dict_free(&s->run_heads);
    free(s);
}

const char *etp_store_engine(const etp_store *s)
{
    return etp_db_engine_get(s->db) == ETP_DB_POSTGRES ? "postgresql" : "sqlite";
}

const char *etp_store_display(const etp_store *s) { return etp_db_shown(s->db); }

etp_status etp_store_schema_version(etp_store *s, uint32_t *version, etp_error *err)
{
    return etp_store_read_version(s->db, version, err);
}

etp_status etp_store_migrate(etp_store *s, uint32_t to, uint32_t *from, etp_error *err)
{
    return etp_store_migrate_db(s->db, to, from, err);
}

etp_status etp_store_get_stats(etp_store *s, etp_store_stats *out, etp_error *err)
{
    memset(out, 0, sizeof *out);
    etp_status st = etp_store_read_version(s->db, &out->schema_version, err);
    int64_t runs = 0, bytes = 0;
    if (!st && out->schema_version)
        st = etp_db_query_int(s->db, "SELECT count(*) FROM runs", &runs, NULL, err);
    /* SQLite: the pages in use; PostgreSQL: the store's tables with their
     * indexes and TOAST data. */
    const char *size_sql =
        etp_db_engine_get(s->db) == ETP_DB_SQLITE
            ? "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count, "
              "pragma_freelist_count, pragma_page_size"
            : "SELECT CAST(sum(pg_total_relation_size(c.oid)) AS BIGINT) FROM pg_class c "
              "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
              "AND c.relkind = 'r' AND c.relname IN ('schema_version', 'runs', 'labels', "
              "'inputs', 'metric_kinds', 'metrics', 'entity_keys', 'entities', 'issues', "
              "'nx_groups', 'device_figures', 'figure_samples', 'run_heads', 'series_runs')";
    if (!st)
        st = etp_db_query_int(s->db, size_sql, &bytes, NULL, err);
    out->runs = runs > 0 ? (uint64_t)runs : 0;
    out->bytes = bytes > 0 ? (uint64_t)bytes : 0;
    return st;
}

/* ---- dictionaries --------------------------------------------------------- */

/* Eight bytes at a time (etp_hash_bytes takes one: a series hashes the
 * identity of every point's group). */
static uint64_t text_hash(const char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

void etp_store_dict_init(etp_store_dict *d)
{
    memset(d, 0, sizeof *d);
    etp_hm_init(&d->index);
}

static int64_t find(const etp_store_dict *d, const char *text, size_t len, uint64_t h)
{
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&d->index, h, &cur, &v))
        if (d->lens[v] == len && !memcmp(d->texts[v], text, len))
            return v;
    return -1;
}

int64_t etp_store_dict_get(const etp_store_dict *d, const char *text, size_t len)
{
    int64_t k = find(d, text, len, text_hash(text, len));
    return k < 0 ? 0 : d->values[k];
}

int64_t *etp_store_dict_find(etp_store_dict *d, const char *text, size_t len)
{
    int64_t k = find(d, text, len, text_hash(text, len));
    return k < 0 ? NULL : &d->values[k];
}

int64_t *etp_store_dict_slot(etp_store_dict *d, const char *text, size_t len, int *added)
{
    uint64_t h = text_hash(text, len);
    int64_t k = find(d, text, len, h);
    if (added)
        *added = k < 0;
    if (k >= 0)
        return &d->values[k];
    if (d->count == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 256;
        char **t = realloc(d->texts, cap * sizeof *t);
        if (!t)
            return NULL;
        d->texts = t;
        size_t *l = realloc(d->lens, cap * sizeof *l);
        if (!l)
            return NULL;
        d->lens = l;
        int64_t *v = realloc(d->values, cap * sizeof *v);
        if (!v)
            return NULL;
        d->values = v;
        d->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy || etp_hm_put(&d->index, h, d->count)) {
        free(copy);
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    d->texts[d->count] = copy;
    d->lens[d->count] = len;
    d->values[d->count] = 0;
    return &d->values[d->count++];
}

void etp_store_dict_free(etp_store_dict *d)
{
    for (uint32_t i = 0; i < d->count; i++)
        free(d->texts[i]);
    free(d->texts);
    free(d->lens);
    free(d->values);
    etp_hm_free(&d->index);
    etp_store_dict_init(d);
}

/* ---- arenas --------------------------------------------------------------- */

struct etp_arena_chunk {
    struct etp_arena_chunk *next;
    size_t size;
    max_align_t data[];
};

/* Large blocks on 2 MiB pages where the kernel has them: a query's result
 * of 100,000 points fills tens of MB, and faulting that in 4 KiB at a time
 * costs as much as the query. */
#define HUGE_PAGE ((size_t)2 << 20)

void *etp_store_big_alloc(size_t n)
{
    void *p = NULL;
    if (n < HUGE_PAGE)
        return malloc(n);
    if (posix_memalign(&p, HUGE_PAGE, n))
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
    return p;
}

void *etp_arena_alloc(etp_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->chunks || a->used + n > a->cap) {
        size_t size = n > ((size_t)4 << 20) ? n : ((size_t)4 << 20) - sizeof(struct etp_arena_chunk);
        struct etp_arena_chunk *c = etp_store_big_alloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->next = a->chunks;
        c->size = size;
        a->chunks = c;
        a->used = 0;
        a->cap = size;
    }
    char *p = (char *)a->chunks->data + a->used;
    a->used += n;
    return p;
}

void *etp_arena_calloc(etp_arena *a, size_t n)
{
    void *p = etp_arena_alloc(a, n);
    if (p)
        memset(p, 0, n);
    return p;
}

char *etp_arena_strndup(etp_arena *a, const char *s, size_t n)
{
    char *p = etp_arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *etp_arena_strdup(etp_arena *a, const char *s) { return s ? etp_arena_strndup(a, s, strlen(s)) : NULL; }

void etp_arena_adopt(etp_arena *into, etp_arena *from)
{
    struct etp_arena_chunk *tail = from->chunks;
    if (!tail)
        return;
    while (tail->next)
        tail = tail->next;
    if (into->chunks) { /* behind the chunk being filled, which stays first */
        tail->next = into->chunks->next;
        into->chunks->next = from->chunks;
    } else {
        into->chunks = from->chunks;
        into->used = from->used;
        into->cap = from->cap;
    }
    from->chunks = NULL;
    from->used = from->cap = 0;
}

void etp_arena_free(etp_arena *a)
{
    for (struct etp_arena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->chunks = NULL;
    a->used = a->cap = 0;
}
