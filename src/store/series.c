/* series.c - a quantity of the stored runs over time (etp_store_series):
 * one query for the values (a summary metric, or one statistic of one
 * entity), one for the per-execution values of --detailed runs, then the
 * points grouped (program x method x device by default; never two units in
 * one series), ordered, and handed out from one arena. A long SQLite
 * history is read in two halves at once, on two connections and threads,
 * then merged (read_series_points). */
#include "store/store_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* The statistics a series of an entity may follow: the entities table's
 * columns (their names are constants here, never text from the caller). */
static const char *const entity_stats[] = {"avg", "p10", "p50", "p90", "min", "max", "kernel_avg",
                                           "dispatch_avg"};
/* Those a summary metric name ends with. */
static const char *const metric_stats[] = {"avg", "p50", "min", "max"};

static const char *find_stat(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return list[i];
    return NULL;
}

/* The columns of a point's row: its series_runs head and point, then the
 * value and its executions. */
enum { C_HEAD, C_POINT, C_VALUE, C_SAMPLES };

/* The run fields a run_heads row holds, in the order they are selected;
 * where a group key's value is: one of these (its index), the run's own
 * run id, or a label. */
#define HEAD_FIELDS 6
static const char *const head_columns[HEAD_FIELDS] = {"program_sha256", "etrecord_sha256", "method",
                                                      "time_unit",      "validity",        "tool_version"};
enum { F_TIME_UNIT = 3, F_VALIDITY = 4, KEY_LABEL = -1, KEY_RUN_ID = -2 };

static int key_place(const char *key)
{
    const char *col = etp_store_run_field(key);
    if (!col)
        return KEY_LABEL;
    for (int i = 0; i < HEAD_FIELDS; i++)
        if (!strcmp(col, head_columns[i]))
            return i;
    return KEY_RUN_ID; /* the one run field that is the run's own */
}

/* A run_heads row: its fields (in the result's arena) and its class, the
 * values of the group keys it names (runs of heads of one class may share
 * a series); -1 until first met. */
typedef struct head {
    int64_t id;
    const char *field[HEAD_FIELDS];
    int64_t cls;
} head;

/* A point of a --detailed run, whose per-execution values are read after
 * the points: its series and its place there. */
typedef struct detailed_point {
    uint32_t group, index;
} detailed_point;

typedef struct group_extra {
    uint32_t points_cap;          /* the room of the series' points array */
    const char *kind;             /* the entity kind of its identity ("" for a metric) */
} group_extra;

/* The groups met so far: identity (class, then the other values) -> index.
 * Each series' points go straight into its own array as they are read
 * (doubling, in the result's arena). */
typedef struct groups {
    etp_store_dict index;         /* identity -> series index */
    etp_history_series *series;   /* key, group labels, metric, unit; points as read */
    group_extra *extra;           /* beside each series */
    uint32_t n, cap;
} groups;

typedef struct build {
    etp_store *s;
    const etp_store_series_query *q;
    etp_arena *a;
    const char *metric_name;      /* the name series carry */
    const char *const *group_by;
    uint32_t group_by_count;
    int group_place[32];          /* where each group key's value is (key_place) */
    int order_place;
    head *heads;                  /* run_heads as read, found by id through head_index */
    uint32_t nheads, heads_cap;
    etp_hm head_index;
    etp_store_dict classes;       /* the head-field values of a class -> its number */
    groups g;
    /* Which runs the values query reads: all (0), those below split (1),
     * or from split on (2): the two halves of a split series. */
    int part;
    int64_t split;
    detailed_point *detailed;     /* the points of --detailed runs, in the order read */
    uint32_t ndetailed, detailed_cap;
    char *ident;                  /* scratch for one identity */
    size_t ident_cap;
} build;

static const char *const default_group_by[] = {"program", "method", "device"};

/* Read the run_heads rows not read yet. */
static etp_status load_heads(build *b, etp_error *err)
{
    etp_db_query *q;
    etp_status st = etp_db_prepare(b->s->db,
                                   "SELECT id, program_sha256, etrecord_sha256, method, time_unit, "
                                   "validity, tool_version FROM run_heads WHERE id > $1 ORDER BY id",
                                   &q, err);
    if (st)
        return st;
    etp_db_bind_int(q, 1, b->nheads ? b->heads[b->nheads - 1].id : 0);
    int row;
    while (!(st = etp_db_step(q, &row, err)) && row) {
        if (b->nheads == b->heads_cap) {
            uint32_t cap = b->heads_cap ? b->heads_cap * 2 : 64;
            head *h = realloc(b->heads, cap * sizeof *h);
            if (!h) {
                st = etp_store_nomem(b->s, err);
                break;
            }
            b->heads = h;
            b->heads_cap = cap;
        }
        head *h = &b->heads[b->nheads];
        h->id = etp_db_col_int(q, 0);
        h->cls = -1;
        int ok = 1;
        for (int i = 0; i < HEAD_FIELDS; i++)
            ok &= (h->field[i] = etp_arena_strdup(b->a, etp_db_col_bytes(q, i + 1, NULL))) != NULL;
        if (!ok || etp_hm_put(&b->head_index, (uint64_t)h->id, b->nheads)) {
            st = etp_store_nomem(b->s, err);
            break;
        }
        b->nheads++;
    }
    etp_db_finalize(q);
    return st;
}

/* The run_heads row @p id into *@p out (the table read again once when a
 * run stored since names one not seen yet). */
static etp_status find_head(build *b, int64_t id, head **out, etp_error *err)
{
    for (int again = 0; again < 2; again++) {
        size_t cur = 0;
        uint32_t i;
        while (etp_hm_next(&b->head_index, (uint64_t)id, &cur, &i))
            if (b->heads[i].id == id) {
                *out = &b->heads[i];
                return ETP_OK;
            }
        etp_status st = again ? ETP_OK : load_heads(b, err);
        if (st)
            return st;
    }
    return etp_error_set(err, ETP_E_INTERNAL, etp_db_shown(b->s->db), ETP_NO_OFFSET,
                         "a run names run_heads row %lld, which is not there", (long long)id);
}

/* The value of group key @p key at @p place (key_place) for the row: a
 * field of its head, its run id, or a label ("" when the run has none). */
static const char *group_value(const char *run_id, const head *h, int place, const char *key,
                               const etp_history_label *labels, uint32_t nlabels)
{
    if (place >= 0)
        return h->field[place];
    if (place == KEY_RUN_ID)
        return run_id;
    for (uint32_t i = 0; i < nlabels; i++)
        if (!strcmp(labels[i].key, key))
            return labels[i].value;
    return "";
}

static int ident_put_bytes(build *b, size_t *len, const void *s, size_t n)
{
    if (*len + n > b->ident_cap) {
        size_t cap = (*len + n) * 2;
        char *p = realloc(b->ident, cap);
        if (!p)
            return -1;
        b->ident = p;
        b->ident_cap = cap;
    }
    memcpy(b->ident + *len, s, n);
    *len += n;
    return 0;
}

static int ident_put(build *b, size_t *len, const char *s) { return ident_put_bytes(b, len, s, strlen(s) + 1); }

/* The class of @p h: the values of the group keys its fields hold, numbered
 * in the order met; -1 when out of memory. */
static int64_t class_of(build *b, head *h)
{
    if (h->cls >= 0)
        return h->cls;
    size_t len = 0;
    for (uint32_t i = 0; i < b->group_by_count; i++)
        if (b->group_place[i] >= 0 && ident_put(b, &len, h->field[b->group_place[i]]))
            return -1;
    int added;
    int64_t *slot = etp_store_dict_slot(&b->classes, b->ident ? b->ident : "", len, &added);
    if (!slot)
        return -1;
    if (added)
        *slot = (int64_t)b->classes.count - 1;
    return h->cls = *slot;
}

/* Room for one more series in @p g. */
static int group_room(groups *g)
{
    if (g->n < g->cap)
        return 0;
    uint32_t cap = g->cap ? g->cap * 2 : 16;
    etp_history_series *s = realloc(g->series, cap * sizeof *s);
    if (s)
        g->series = s;
    group_extra *x = s ? realloc(g->extra, cap * sizeof *x) : NULL;
    if (!x)
        return -1;
    g->extra = x;
    g->cap = cap;
    return 0;
}

/* The series @p g (of b->g.n) made for the values @p vals. */
static int make_group(build *b, const char *const *vals, const char *unit, const char *kind)
{
    groups *g = &b->g;
    if (group_room(g))
        return -1;
    etp_history_series *s = &g->series[g->n];
    memset(s, 0, sizeof *s);
    g->extra[g->n] = (group_extra){0, kind ? kind : ""};
    etp_history_label *gl = etp_arena_alloc(b->a, (b->group_by_count + 1) * sizeof *gl);
    size_t key_len = strlen(unit) + 8;
    for (uint32_t i = 0; i < b->group_by_count; i++)
        key_len += strlen(b->group_by[i]) + strlen(vals[i]) + 2;
    char *key = etp_arena_alloc(b->a, key_len + 1);
    if (!gl || !key)
        return -1;
    size_t k = 0;
    for (uint32_t i = 0; i < b->group_by_count; i++) {
        gl[i].key = etp_arena_strdup(b->a, b->group_by[i]);
        gl[i].value = etp_arena_strdup(b->a, vals[i]);
        if (!gl[i].key || !gl[i].value)
            return -1;
        k += (size_t)sprintf(key + k, "%s%s=", i ? "|" : "", b->group_by[i]);
        memcpy(key + k, vals[i], strlen(vals[i]));
        k += strlen(vals[i]);
    }
    sprintf(key + k, "%sunit=%s", b->group_by_count ? "|" : "", unit);
    s->key = key;
    s->group_count = b->group_by_count;
    s->group = gl;
    s->metric = b->metric_name;
    s->entity = b->q->entity ? etp_arena_strdup(b->a, b->q->entity) : NULL;
    s->unit = etp_arena_strdup(b->a, unit);
    s->lower_is_better = 1; /* times, cycles, bytes: every stored quantity so far */
    if ((b->q->entity && !s->entity) || !s->unit)
        return -1;
    g->n++;
    return 0;
}

/* The group of the row: found or made. Its identity is the class of the
 * run's head, then the values of the other keys, the unit and the kind. */
static int group_of(build *b, const char *run_id, head *h, const etp_history_label *labels,
                    uint32_t nlabels, const char *unit, const char *kind, uint32_t *out)
{
    int64_t cls = class_of(b, h);
    size_t len = 0;
    if (cls < 0 || ident_put_bytes(b, &len, &cls, sizeof cls))
        return -1;
    for (uint32_t i = 0; i < b->group_by_count; i++)
        if (b->group_place[i] < 0 &&
            ident_put(b, &len, group_value(run_id, h, b->group_place[i], b->group_by[i], labels, nlabels)))
            return -1;
    if (ident_put(b, &len, unit) || ident_put(b, &len, kind ? kind : ""))
        return -1;
    int added;
    int64_t *slot = etp_store_dict_slot(&b->g.index, b->ident, len, &added);
    if (!slot)
        return -1;
    if (added) {
        const char *vals[32];
        for (uint32_t i = 0; i < b->group_by_count; i++)
            vals[i] = group_value(run_id, h, b->group_place[i], b->group_by[i], labels, nlabels);
        *slot = b->g.n;
        if (make_group(b, vals, unit, kind))
            return -1;
    }
    *out = (uint32_t)*slot;
    return 0;
}

/* A numeric label value (the whole text a finite number), for ordering. */
static int numeric(const char *s, double *v)
{
    char *end;
    if (!*s)
        return 0;
    *v = strtod(s, &end);
    return !*end && isfinite(*v);
}

/* Room for one more point in series @p g: its new last slot, or NULL. */
static etp_history_point *point_slot(build *b, uint32_t g)
{
    etp_history_series *s = &b->g.series[g];
    uint32_t *cap = &b->g.extra[g].points_cap;
    if (s->point_count == *cap) {
        if (*cap > UINT32_MAX / 2)
            return NULL;
        uint32_t ncap = *cap ? *cap * 2 : 8;
        /* From the arena (huge pages where the system has them: on a VM a
         * fault per 4 KiB of fresh heap cost more than the copies); the
         * smaller array left behind is at most as big as the final one. */
        etp_history_point *v = etp_arena_alloc(b->a, ncap * sizeof *v);
        if (!v)
            return NULL;
        if (s->point_count)
            memcpy(v, s->points, s->point_count * sizeof *v);
        s->points = v;
        *cap = ncap;
    }
    return &s->points[s->point_count];
}

static int note_detailed(build *b, uint32_t g, uint32_t index)
{
    if (b->ndetailed == b->detailed_cap) {
        uint32_t cap = b->detailed_cap ? b->detailed_cap * 2 : 256;
        detailed_point *v = cap > b->detailed_cap ? realloc(b->detailed, cap * sizeof *v) : NULL;
        if (!v)
            return -1;
        b->detailed = v;
        b->detailed_cap = cap;
    }
    b->detailed[b->ndetailed++] = (detailed_point){g, index};
    return 0;
}

/* The points of one metric kind or entity key: @p unit is the kind's (NULL:
 * the run's time unit), @p kind the entity's (NULL for a metric). */
static etp_status read_points(build *b, etp_db_query *q, const char *unit_of_kind, const char *kind,
                              etp_error *err)
{
    etp_status st;
    int row;
    while (!(st = etp_db_step(q, &row, err)) && row) {
        if (etp_db_col_null(q, C_VALUE))
            continue;
        head *h = NULL;
        if ((st = find_head(b, etp_db_col_int(q, C_HEAD), &h, err)))
            return st;
        if (!b->q->include_invalid && !strcmp(h->field[F_VALIDITY], "invalid"))
            continue;
        size_t n;
        const char *bytes = etp_db_col_bytes(q, C_POINT, &n);
        etp_store_point pt;
        etp_history_run run;
        if (etp_store_point_unpack(bytes, n, &pt))
            return etp_error_set(err, ETP_E_FORMAT, etp_db_shown(b->s->db), ETP_NO_OFFSET,
                                 "a series_runs row is not a point (%zu bytes)", n);
        /* One copy of the run id and the labels after it (point layout:
         * series_runs.c); the labels point into it. */
        char *run_id = etp_arena_strndup(b->a, pt.run_id, (size_t)(pt.labels - pt.run_id) + pt.labels_len);
        if (!run_id || etp_store_labels_in(run_id + pt.run_id_len + 1, pt.labels_len, b->a, &run))
            return etp_store_nomem(b->s, err);
        double order = (double)pt.published_ms;
        if (b->q->order_by) {
            const char *v = group_value(pt.run_id, h, b->order_place, b->q->order_by, run.labels,
                                        run.label_count);
            if (!numeric(v, &order))
                continue; /* no numeric value to stand at */
        }
        const char *unit = unit_of_kind ? unit_of_kind : h->field[F_TIME_UNIT];
        uint32_t g;
        if (group_of(b, pt.run_id, h, run.labels, run.label_count, unit, kind, &g))
            return etp_store_nomem(b->s, err);
        etp_history_point *p = point_slot(b, g);
        if (!p || (pt.detailed && note_detailed(b, g, b->g.series[g].point_count)))
            return etp_store_nomem(b->s, err);
        memset(p, 0, sizeof *p);
        p->run = pt.run;
        p->run_id = run_id;
        p->published_ms = pt.published_ms;
        p->order = order;
        p->value = etp_db_col_double(q, C_VALUE);
        int64_t samples = etp_db_col_int(q, C_SAMPLES);
        p->samples = samples > 0 && samples <= UINT32_MAX ? (uint32_t)samples : 0;
        p->label_count = run.label_count;
        p->labels = run.labels;
        b->g.series[g].point_count++;
    }
    return st;
}

static etp_history_point *detailed_at(const build *b, uint32_t i)
{
    return &b->g.series[b->detailed[i].group].points[b->detailed[i].index];
}

/* The per-execution values of the points' runs (model metrics of --detailed
 * runs): figure NAME of metric "NAME.stat", in the series' unit. */
static etp_status attach_samples(build *b, const char *figure, etp_error *err)
{
    if (!b->ndetailed)
        return ETP_OK;
    etp_hm by_run;
    etp_hm_init(&by_run);
    for (uint32_t i = 0; i < b->ndetailed; i++)
        if (etp_hm_put(&by_run, (uint64_t)detailed_at(b, i)->run, i)) {
            etp_hm_free(&by_run);
            return etp_store_nomem(b->s, err);
        }
    int next = 2;
    char *cond = etp_store_filter_sql(&b->q->filter, "k", 1, &next);
    /* Runs are joined only to apply a filter: the points' runs are looked
     * up below anyway. */
    etp_db_query *q;
    etp_status st = etp_store_prepare_text(
        b->s, cond ? etp_strprintf("SELECT f.run, f.unit, f.value_le FROM figure_samples f%s "
                                   "WHERE f.figure = $1%s",
                                   *cond ? " JOIN series_runs k ON k.run = f.run" : "", cond)
                   : NULL,
        &q, err);
    free(cond);
    if (!st) {
        etp_db_bind_text(q, 1, figure);
        etp_store_filter_bind(&b->q->filter, q, 2);
        int row;
        while (!(st = etp_db_step(q, &row, err)) && row) {
            int64_t run = etp_db_col_int(q, 0);
            const char *unit = etp_db_col_bytes(q, 1, NULL);
            size_t len;
            const char *le = etp_db_col_bytes(q, 2, &len);
            size_t cur = 0;
            uint32_t i;
            double *v = NULL;
            uint32_t n = 0;
            while (etp_hm_next(&by_run, (uint64_t)run, &cur, &i)) {
                etp_history_point *p = detailed_at(b, i);
                if (p->run != run || strcmp(b->g.series[b->detailed[i].group].unit, unit))
                    continue;
                if (!v && !(v = etp_store_values_decode(b->a, le, len, &n)))
                    break; /* malformed or out of memory: no samples for it */
                p->sample_count = n;
                p->execution_values = v;
            }
        }
        etp_db_finalize(q);
    }
    etp_hm_free(&by_run);
    return st;
}

double *etp_store_values_decode(etp_arena *a, const char *le, size_t n, uint32_t *count)
{
    if (n % 8 || n / 8 > UINT32_MAX)
        return NULL;
    double *v = etp_arena_alloc(a, n ? n : 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    defined(__FLOAT_WORD_ORDER__) && __FLOAT_WORD_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The stored bytes are this machine's own doubles. */
    if (v && n)
        memcpy(v, le, n);
#else
    for (size_t i = 0; v && i < n / 8; i++) {
        uint64_t bits = 0;
        for (int j = 7; j >= 0; j--)
            bits = bits << 8 | (unsigned char)le[i * 8 + (size_t)j];
        memcpy(&v[i], &bits, 8);
    }
#endif
    if (v)
        *count = (uint32_t)(n / 8);
    return v;
}

static int cmp_point(const void *x, const void *y)
{
    const etp_history_point *a = x, *b = y;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

static int cmp_series(const void *x, const void *y)
{
    return strcmp(((const etp_history_series *)x)->key, ((const etp_history_series *)y)->key);
}

typedef struct series_result {
    etp_history_series_set pub;   /* first: the pointer handed out */
    etp_arena arena;              /* everything handed out */
} series_result;

void etp_history_series_free(etp_history_series_set *set)
{
    if (!set)
        return;
    series_result *r = (series_result *)set;
    etp_arena_free(&r->arena);
    free(r);
}

/* The SQL of the values of one metric kind or entity key ($1), the filter's
 * parameters from $2: the run's head and point, then the value and its
 * executions (invalid runs are left out as their heads are met). In run
 * order: both sides are read in it from their indexes, so PostgreSQL joins
 * them as they come instead of building a hash table of the whole history.
 * @p entity_col is one of entity_stats (a constant column name, never text
 * from the caller); every value is a bound parameter. */
static char *values_sql(const build *b, const char *entity_col, int *range_param)
{
    int next = 2;
    char *cond = etp_store_filter_sql(&b->q->filter, "k", 1, &next);
    const char *alias = entity_col ? "e" : "m";
    char range[64] = "";
    *range_param = b->part ? next : 0;
    if (b->part) /* the half of a split series (etp_store_series) */
        snprintf(range, sizeof range, " AND %s.run %s $%d", alias, b->part == 1 ? "<" : ">=", next);
    char *sql = NULL;
    if (cond && !entity_col)
        sql = etp_strprintf("SELECT k.head, k.point, m.value, m.samples FROM metrics m "
                            "JOIN series_runs k ON k.run = m.run "
                            "WHERE m.kind = $1 AND m.value IS NOT NULL%s%s ORDER BY m.run",
                            cond, range);
    else if (cond)
        sql = etp_strprintf("SELECT k.head, k.point, e.%s, e.executions FROM entities e "
                            "JOIN series_runs k ON k.run = e.run "
                            "WHERE e.entity = $1 AND e.%s IS NOT NULL%s%s ORDER BY e.run",
                            entity_col, entity_col, cond, range);
    free(cond);
    return sql;
}

/* The dictionary rows the series reads: the metric kinds of @p name (one
 * per unit, aggregation and additivity it was published with), or the
 * entity keys of @p entity (one per kind, name, type and backend); then
 * the points of each. A dictionary id first keeps each value query on its
 * index, whatever the engine's planner would make of a join. */
static etp_status read_all_points(build *b, const char *name, const char *entity_col, etp_error *err)
{
    etp_store *s = b->s;
    const etp_store_series_query *q = b->q;
    etp_db_query *dq = NULL;
    etp_status st = etp_db_prepare(s->db,
                                   q->entity ? "SELECT id, '', kind FROM entity_keys WHERE key = $1"
                                             : "SELECT id, unit, '' FROM metric_kinds WHERE name = $1",
                                   &dq, err);
    if (st)
        return st;
    if (q->entity)
        etp_db_bind_bytes(dq, 1, q->entity, strlen(q->entity));
    else
        etp_db_bind_text(dq, 1, name);
    struct dict_row {
        int64_t id;
        const char *unit, *kind;
    } *rows = NULL;
    uint32_t n = 0;
    int row;
    while (!(st = etp_db_step(dq, &row, err)) && row) {
        struct dict_row *nr = realloc(rows, (n + 1) * sizeof *nr);
        if (!nr) {
            st = etp_store_nomem(s, err);
            break;
        }
        rows = nr;
        rows[n].id = etp_db_col_int(dq, 0);
        rows[n].unit = etp_arena_strdup(b->a, etp_db_col_bytes(dq, 1, NULL));
        rows[n].kind = etp_arena_strdup(b->a, etp_db_col_bytes(dq, 2, NULL));
        if (!rows[n].unit || !rows[n].kind) {
            st = etp_store_nomem(s, err);
            break;
        }
        n++;
    }
    etp_db_finalize(dq);
    int range_param = 0;
    char *sql = !st && n ? values_sql(b, entity_col, &range_param) : NULL;
    if (!st && n && !sql)
        st = etp_store_nomem(s, err);
    for (uint32_t i = 0; !st && i < n; i++) {
        etp_db_query *vq;
        if ((st = etp_db_prepare(s->db, sql, &vq, err)))
            break;
        etp_db_bind_int(vq, 1, rows[i].id);
        etp_store_filter_bind(&q->filter, vq, 2);
        if (range_param)
            etp_db_bind_int(vq, range_param, b->split);
        st = read_points(b, vq, q->entity ? NULL : rows[i].unit, q->entity ? rows[i].kind : NULL, err);
        etp_db_finalize(vq);
    }
    free(sql);
    free(rows);
    return st;
}

static void make_series(build *b)
{
    groups *g = &b->g;
    /* Read in run order, the points of a series usually are in order already. */
    for (uint32_t i = 0; i < g->n; i++) {
        etp_history_point *p = g->series[i].points;
        uint32_t n = g->series[i].point_count, k = 1;
        while (k < n && cmp_point(&p[k - 1], &p[k]) <= 0)
            k++;
        if (k < n)
            qsort(p, n, sizeof *p, cmp_point);
    }
    if (g->n)
        qsort(g->series, g->n, sizeof *g->series, cmp_series);
}

/* ---- a series read in two halves ------------------------------------------ */

/* A history at least this many runs long is read in two halves at once, the
 * newer on a second connection and thread, where the engine offers one
 * (etp_db_open_reader). ETPROF_SERIES_SPLIT_MIN sets another length (tests
 * split small histories with it); 0 never splits. */
#define SPLIT_MIN_RUNS 20000

static void build_init(build *b, etp_store *s, const etp_store_series_query *q, etp_arena *a)
{
    memset(b, 0, sizeof *b);
    b->s = s;
    b->q = q;
    b->a = a;
    etp_store_dict_init(&b->g.index);
    b->group_by = q->group_by_count ? q->group_by : default_group_by;
    b->group_by_count = q->group_by_count ? q->group_by_count : 3;
    for (uint32_t i = 0; i < b->group_by_count; i++)
        b->group_place[i] = key_place(b->group_by[i]);
    b->order_place = q->order_by ? key_place(q->order_by) : KEY_LABEL;
    etp_hm_init(&b->head_index);
    etp_store_dict_init(&b->classes);
}

static void build_free(build *b)
{
    free(b->ident);
    free(b->g.series);
    free(b->g.extra);
    free(b->detailed);
    etp_store_dict_free(&b->g.index);
    etp_store_dict_free(&b->classes);
    etp_hm_free(&b->head_index);
    free(b->heads);
}

/* The newer half: its own connection, build and arena. */
typedef struct half {
    etp_store store;              /* only its db is used */
    etp_arena arena;
    build b;
    const char *name, *entity_col;
    etp_status st;
    etp_error err;
} half;

static void *read_half(void *arg)
{
    half *h = arg;
    h->st = load_heads(&h->b, &h->err);
    if (!h->st)
        h->st = read_all_points(&h->b, h->name, h->entity_col, &h->err);
    return NULL;
}

/* Where to split the runs of @p s in two (0: do not). */
static int64_t split_point(etp_store *s)
{
    const char *env = getenv("ETPROF_SERIES_SPLIT_MIN");
    long long min_runs = SPLIT_MIN_RUNS;
    if (env && *env) {
        char *end;
        min_runs = strtoll(env, &end, 10);
        if (*end || min_runs < 0)
            min_runs = SPLIT_MIN_RUNS;
    }
    if (!min_runs || !etp_db_offers_reader(s->db))
        return 0;
    etp_db_query *q;
    etp_error ignored;
    int64_t lo = 0, hi = -1;
    int row = 0;
    /* Two subqueries: SQLite reads a lone min() or max() of a key off the
     * end of its index, but both in one SELECT scan the table. */
    if (etp_db_prepare(s->db,
                       "SELECT (SELECT min(run) FROM series_runs), (SELECT max(run) FROM series_runs)",
                       &q, &ignored))
        return 0;
    if (!etp_db_step(q, &row, &ignored) && row && !etp_db_col_null(q, 0)) {
        lo = etp_db_col_int(q, 0);
        hi = etp_db_col_int(q, 1);
    }
    etp_db_finalize(q);
    if (hi < lo || hi - lo + 1 < (int64_t)min_runs || hi - lo < 1)
        return 0;
    return lo + (hi - lo + 1) / 2;
}

/* The slot of series @p i of @p g in @p d, by its identity beyond the
 * build that made it: its key, a NUL, its entity kind (@p scratch holds
 * the text). NULL when out of memory. */
static int64_t *series_slot(etp_store_dict *d, const groups *g, uint32_t i, char **scratch,
                            size_t *cap, int *added)
{
    const char *key = g->series[i].key, *kind = g->extra[i].kind;
    size_t kl = strlen(key), tl = strlen(kind), len = kl + 1 + tl;
    if (len > *cap) {
        char *nk = realloc(*scratch, len * 2);
        if (!nk)
            return NULL;
        *scratch = nk;
        *cap = len * 2;
    }
    memcpy(*scratch, key, kl + 1);
    memcpy(*scratch + kl + 1, kind, tl);
    return etp_store_dict_slot(d, *scratch, len, added);
}

/* The series of @p h's build merged into @p b's: the same series (key and
 * entity kind) gets the newer points after its own (both halves are in run
 * order, the newer all after the older), a series met only in the newer
 * half is moved over; the --detailed places follow. @p h's arena becomes
 * @p b's. 0, or -1 when out of memory. */
static int merge_half(build *b, half *h)
{
    groups *g = &b->g, *hg = &h->b.g;
    etp_store_dict by_key;
    etp_store_dict_init(&by_key);
    /* where each of h's series went in b's, and how many points it found there */
    uint32_t *to = hg->n ? malloc(hg->n * sizeof *to) : NULL;
    uint32_t *offset = hg->n ? malloc(hg->n * sizeof *offset) : NULL;
    char *k = NULL;
    size_t kcap = 0;
    int added, rc = hg->n && (!to || !offset) ? -1 : 0;
    for (uint32_t i = 0; !rc && i < g->n; i++) {
        int64_t *slot = series_slot(&by_key, g, i, &k, &kcap, &added);
        if (slot)
            *slot = i;
        else
            rc = -1;
    }
    for (uint32_t i = 0; !rc && i < hg->n; i++) {
        int64_t *slot = series_slot(&by_key, hg, i, &k, &kcap, &added);
        if (!slot || (added && group_room(g))) {
            rc = -1;
        } else if (added) { /* only in the newer half: moved over */
            *slot = g->n;
            g->series[g->n] = hg->series[i];
            g->extra[g->n] = hg->extra[i];
            to[i] = g->n++;
            offset[i] = 0;
        } else {
            etp_history_series *mine = &g->series[*slot];
            const etp_history_series *theirs = &hg->series[i];
            uint32_t total = mine->point_count + theirs->point_count;
            etp_history_point *v = total ? etp_arena_alloc(b->a, total * sizeof *v) : NULL;
            if (total && !v) {
                rc = -1;
                break;
            }
            if (mine->point_count)
                memcpy(v, mine->points, mine->point_count * sizeof *v);
            if (theirs->point_count)
                memcpy(v + mine->point_count, theirs->points, theirs->point_count * sizeof *v);
            to[i] = (uint32_t)*slot;
            offset[i] = mine->point_count;
            mine->points = v;
            mine->point_count = total;
            g->extra[*slot].points_cap = total;
        }
    }
    for (uint32_t j = 0; !rc && j < h->b.ndetailed; j++) {
        detailed_point d = h->b.detailed[j];
        rc = note_detailed(b, to[d.group], offset[d.group] + d.index);
    }
    etp_arena_adopt(b->a, &h->arena);
    free(k);
    free(to);
    free(offset);
    etp_store_dict_free(&by_key);
    return rc;
}

/* The points of the series: all on this connection, or the older half here
 * while a second connection reads the newer one. */
static etp_status read_series_points(build *b, const char *name, const char *entity_col,
                                     etp_error *err)
{
    int64_t split = split_point(b->s);
    half *h = split ? calloc(1, sizeof *h) : NULL;
    etp_db *reader = NULL;
    if (h && etp_db_open_reader(b->s->db, &reader, &h->err) != 1) {
        free(h); /* a failed second connection only costs the speed-up */
        h = NULL;
    }
    pthread_t thread;
    if (h) {
        h->store.db = reader;
        etp_store_dict_init(&h->store.metric_kinds);
        etp_store_dict_init(&h->store.entity_keys);
        etp_store_dict_init(&h->store.run_heads);
        build_init(&h->b, &h->store, b->q, &h->arena);
        h->b.metric_name = b->metric_name;
        h->b.part = 2;
        h->b.split = split;
        h->name = name;
        h->entity_col = entity_col;
        etp_error_clear(&h->err);
        if (pthread_create(&thread, NULL, read_half, h)) {
            build_free(&h->b);
            etp_db_close(reader);
            free(h);
            h = NULL;
        } else {
            b->part = 1;
            b->split = split;
        }
    }
    etp_status st = read_all_points(b, name, entity_col, err);
    if (h) {
        pthread_join(thread, NULL);
        if (!st && h->st) {
            st = h->st;
            *err = h->err;
        }
        if (!st && merge_half(b, h))
            st = etp_store_nomem(b->s, err);
        b->part = 0;
        build_free(&h->b);
        etp_arena_free(&h->arena); /* empty once merged */
        etp_db_close(reader);
        free(h);
    }
    return st;
}

etp_status etp_store_series(etp_store *s, const etp_store_series_query *q,
                            etp_history_series_set **out, etp_error *err)
{
    *out = NULL;
    const char *shown = etp_db_shown(s->db);
    if (!q || (!q->metric && !q->entity))
        return etp_error_set(err, ETP_E_USAGE, shown, ETP_NO_OFFSET, "a series needs a metric");
    if (q->group_by_count > 32)
        return etp_error_set(err, ETP_E_USAGE, shown, ETP_NO_OFFSET, "at most 32 group keys");
    const char *entity_col = NULL;
    char name[512];
    if (q->entity) {
        const char *stat = q->stat ? q->stat : find_stat(q->metric, entity_stats, 8) ? q->metric : "avg";
        if (!(entity_col = find_stat(stat, entity_stats, 8)))
            return etp_error_set(err, ETP_E_USAGE, shown, ETP_NO_OFFSET,
                                 "an entity's statistic is avg, p10, p50, p90, min, max, kernel_avg "
                                 "or dispatch_avg, not '%.64s'",
                                 stat);
        snprintf(name, sizeof name, "%s", entity_col);
    } else if (q->stat && !find_stat(q->stat, metric_stats, 4)) {
        return etp_error_set(err, ETP_E_USAGE, shown, ETP_NO_OFFSET,
                             "--stat is avg, p50, min or max, not '%.64s'", q->stat);
    } else if ((size_t)snprintf(name, sizeof name, "%s%s%s", q->metric, q->stat ? "." : "",
                                q->stat ? q->stat : "") >= sizeof name) {
        return etp_error_set(err, ETP_E_USAGE, shown, ETP_NO_OFFSET, "metric name too long");
    }
    series_result *r = calloc(1, sizeof *r);
    if (!r)
        return etp_store_nomem(s, err);
    build b;
    build_init(&b, s, q, &r->arena);
    b.metric_name = etp_arena_strdup(&r->arena, name);
    etp_status st = b.metric_name ? load_heads(&b, err) : etp_store_nomem(s, err);
    if (!st)
        st = read_series_points(&b, name, entity_col, err);
    /* A summary metric "FIGURE.stat" has the figure's per-execution values. */
    const char *dot = strrchr(name, '.');
    if (!st && !q->entity && !q->no_samples && dot && find_stat(dot + 1, metric_stats, 4)) {
        char figure[512];
        snprintf(figure, sizeof figure, "%.*s", (int)(dot - name), name);
        st = attach_samples(&b, figure, err);
    }
    if (!st) {
        make_series(&b);
        r->pub.series = b.g.n ? etp_arena_alloc(&r->arena, b.g.n * sizeof *r->pub.series) : NULL;
        if (b.g.n && !r->pub.series)
            st = etp_store_nomem(s, err);
        else if (b.g.n)
            memcpy(r->pub.series, b.g.series, b.g.n * sizeof *r->pub.series);
    }
    if (!st)
        r->pub.count = b.g.n;
    build_free(&b);
    if (st) {
        etp_history_series_free(&r->pub);
        return st;
    }
    *out = &r->pub;
    return ETP_OK;
}
