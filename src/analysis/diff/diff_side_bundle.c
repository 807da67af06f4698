/* diff_side_bundle.c - a diff side from a published result bundle: verified
 * first (etp_bundle_open), then its figures, entities and, when the bundle
 * is --detailed, the per-execution samples behind the entities' statistics. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/diff/diff_internal.h"
#include "analysis/nx/nx_rows.h"
#include "etprof/bundle_read.h"
#include "etprof/nx_stats.h"
#include "formats/bundle/csv_read.h"
#include "util/hashmap.h"
#include "util/sha256.h"
#include "util/str.h"

/* The largest artifact read whole (a 10,000-instruction, 1,000-execution
 * executions.csv is about 400 MB; beyond that, refuse rather than swap). */
#define MAX_ARTIFACT ((uint64_t)1 << 30)

/* Declared artifact @p rel of @p doc, read whole (no symlink at its last
 * component; the tree was checked by the verification) and checked against
 * the manifest's size and SHA-256, so that the bytes used are the verified
 * ones. *data is NULL (ETP_OK) when the manifest does not declare it. */
static etp_status read_verified(const etp_bundle_doc *doc, const char *rel, char **data,
                                size_t *len, etp_error *err)
{
    *data = NULL;
    *len = 0;
    const etp_bundle_artifact_info *a = etp_bundle_doc_artifact(doc, rel);
    if (!a)
        return ETP_OK;
    char *path = etp_strprintf("%s/%s", etp_bundle_doc_dir(doc), rel);
    if (!path)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    if (a->size > MAX_ARTIFACT) {
        etp_status s = etp_error_set(err, ETP_E_LIMIT, path, ETP_NO_OFFSET,
                                     "declared size %llu bytes exceeds the 1 GiB limit",
                                     (unsigned long long)a->size);
        free(path);
        return s;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        etp_status s = etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s",
                                     fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        free(path);
        return s;
    }
    char *buf = malloc((size_t)a->size + 1);
    size_t got = 0;
    while (buf && got < a->size) {
        ssize_t r = read(fd, buf + got, (size_t)a->size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    char extra;
    ssize_t more = buf ? read(fd, &extra, 1) : 0;
    close(fd);
    char hex[ETP_SHA256_HEX];
    etp_status s = ETP_OK;
    if (!buf)
        s = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    else if (got != a->size || more > 0)
        s = etp_error_set(err, ETP_E_FORMAT, path, ETP_NO_OFFSET,
                          "size changed since verification (declared %llu bytes)",
                          (unsigned long long)a->size);
    else if (etp_sha256_buf(buf, got, hex) || strcmp(hex, a->sha256))
        s = etp_error_set(err, ETP_E_FORMAT, path, ETP_NO_OFFSET,
                          "sha256 mismatch (declared %s): changed since verification", a->sha256);
    free(path);
    if (s) {
        free(buf);
        return s;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return ETP_OK;
}

/* ---- identity --------------------------------------------------------- */

typedef struct ident_strings {
    char *method;
    etp_unit time_unit, tick_unit;
    int has_tick_unit, assumed;
} ident_strings;

static etp_status read_summary_identity(const etp_bundle_doc *doc, ident_strings *is, etp_error *err)
{
    char *text;
    size_t len;
    etp_status s = read_verified(doc, "summary.json", &text, &len, err);
    if (s)
        return s;
    const char *dir = etp_bundle_doc_dir(doc);
    if (!text)
        return etp_error_set(err, ETP_E_FORMAT, dir, ETP_NO_OFFSET,
                             "the bundle declares no summary.json: not a profile bundle");
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!json_is_object(j)) {
        json_decref(j);
        return etp_error_set(err, ETP_E_FORMAT, dir, ETP_NO_OFFSET,
                             "summary.json: not a JSON object (line %d)", je.line);
    }
    json_t *m = json_object_get(j, "method"), *u = json_object_get(j, "units");
    const char *method = json_string_value(json_object_get(m, "name"));
    const char *tu = json_string_value(json_object_get(u, "time"));
    const char *tk = json_string_value(json_object_get(u, "etdump_ticks"));
    is->assumed = json_is_true(json_object_get(u, "etdump_ticks_assumed"));
    is->method = method ? etp_strdup(method) : NULL;
    is->has_tick_unit = tk && !etp_unit_parse(tk, &is->tick_unit);
    s = ETP_OK;
    if (!tu)
        s = etp_error_set(err, ETP_E_FORMAT, dir, ETP_NO_OFFSET,
                          "summary.json: no units.time (the unit of its times)");
    else if (etp_unit_parse(tu, &is->time_unit))
        s = etp_error_set(err, ETP_E_FORMAT, dir, ETP_NO_OFFSET,
                          "summary.json: units.time '%s' is not a unit times are reported in "
                          "(ns, us, ms, s or cycles)", tu);
    json_decref(j);
    return s;
}

static double options_cpu_hz(const char *options_json)
{
    if (!options_json)
        return 0;
    json_t *o = json_loads(options_json, 0, NULL);
    double hz = json_number_value(json_object_get(o, "cpu_hz"));
    json_decref(o);
    return hz > 0 ? hz : 0;
}

static const char *input_sha(const etp_bundle_manifest *m, const char *role)
{
    for (uint32_t i = 0; i < m->input_count; i++)
        if (m->inputs[i].role && !strcmp(m->inputs[i].role, role) && m->inputs[i].sha256)
            return m->inputs[i].sha256;
    return NULL;
}

/* ---- entities: the operators table, and detailed/executions.csv ------- */

typedef struct samples {
    etp_hm index;                /* entity id hash -> slot */
    char **ids;
    double **v;
    uint32_t *n, *cap;
    uint32_t count, slots;
} samples;

static void samples_free(samples *sm)
{
    for (uint32_t i = 0; i < sm->count; i++) {
        free(sm->ids[i]);
        free(sm->v[i]);
    }
    free(sm->ids);
    free(sm->v);
    free(sm->n);
    free(sm->cap);
    etp_hm_free(&sm->index);
}

static int samples_slot(samples *sm, const char *id)
{
    uint64_t h = etp_hash_bytes(id, strlen(id), 7);
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&sm->index, h, &cur, &v))
        if (!strcmp(sm->ids[v], id))
            return (int)v;
    if (sm->count == sm->slots) {
        uint32_t nc = sm->slots ? sm->slots * 2 : 64;
        char **ni = realloc(sm->ids, nc * sizeof *ni);
        if (ni)
            sm->ids = ni;
        double **nv = ni ? realloc(sm->v, nc * sizeof *nv) : NULL;
        if (nv)
            sm->v = nv;
        uint32_t *nn = nv ? realloc(sm->n, nc * sizeof *nn) : NULL;
        if (nn)
            sm->n = nn;
        uint32_t *ncap = nn ? realloc(sm->cap, nc * sizeof *ncap) : NULL;
        if (!ncap)
            return -1;
        sm->cap = ncap;
        sm->slots = nc;
    }
    sm->ids[sm->count] = etp_strdup(id);
    if (!sm->ids[sm->count] || etp_hm_put(&sm->index, h, sm->count)) {
        free(sm->ids[sm->count]);
        return -1;
    }
    sm->v[sm->count] = NULL;
    sm->n[sm->count] = sm->cap[sm->count] = 0;
    return (int)sm->count++;
}

/* The samples of @p id in @p sm: @p sm with *v / *n set, or NULL. */
static const samples *samples_of(const samples *sm, const char *id, const double **v, uint32_t *n)
{
    uint64_t h = etp_hash_bytes(id, strlen(id), 7);
    size_t cur = 0;
    uint32_t k;
    while (etp_hm_next(&sm->index, h, &cur, &k))
        if (!strcmp(sm->ids[k], id)) {
            *v = sm->v[k];
            *n = sm->n[k];
            return sm;
        }
    return NULL;
}

/* ---- figures: summary.json's metrics, "NAME.avg" ... "NAME.max" -------- */

typedef struct fig {
    char *name;
    etp_diff_entry e;
    int have;
} fig;

static etp_status add_figures(const etp_bundle_doc *doc, etp_diff_side *s, etp_unit time_unit,
                              const samples *fsm, etp_error *err)
{
    uint32_t n;
    const etp_bundle_metric *mt = etp_bundle_doc_metrics(doc, &n);
    fig *f = calloc(n + 1, sizeof *f);
    if (!f)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    uint32_t nf = 0;
    etp_status st = ETP_OK;
    static const char *const stats[] = {"avg", "p50", "min", "max"};
    for (uint32_t i = 0; i < n && !st; i++) {
        const char *dot = strrchr(mt[i].name, '.');
        int k = -1;
        for (int j = 0; dot && j < 4; j++)
            if (!strcmp(dot + 1, stats[j]))
                k = j;
        if (k < 0)
            continue; /* "executions" and other plain counts */
        size_t bl = (size_t)(dot - mt[i].name);
        uint32_t x;
        for (x = 0; x < nf; x++)
            if (strlen(f[x].name) == bl && !strncmp(f[x].name, mt[i].name, bl))
                break;
        if (x == nf) {
            f[nf].name = etp_strndup(mt[i].name, bl);
            if (!f[nf].name) {
                st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
                break;
            }
            etp_diff_entry *e = &f[nf].e;
            e->kind = ETP_DIFF_MODEL;
            e->id = f[nf].name;
            e->available = 1;
            e->unit = mt[i].unit && strcmp(mt[i].unit, etp_unit_name(time_unit)) ? mt[i].unit : NULL;
            const char *agg = mt[i].aggregation ? mt[i].aggregation : "";
            e->basis = strstr(agg, "occurrences")       ? "per occurrence"
                       : strstr(agg, "reported values") ? "runner reported"
                                                        : "per execution";
            if (!strncmp(e->id, "delegate_time:", 14))
                e->backend = e->id + 14;
            nf++;
        }
        etp_diff_entry *e = &f[x].e;
        if (!mt[i].available) {
            e->available = 0;
            e->reason = mt[i].reason;
            continue;
        }
        double v = mt[i].value;
        if (k == 0) {
            e->avg = v;
            e->additive = mt[i].additive;
            e->n = mt[i].samples;
        } else if (k == 1)
            e->p50 = v;
        else if (k == 2)
            e->min = v;
        else
            e->max = v;
        f[x].have |= 1 << k;
    }
    for (uint32_t x = 0; x < nf && !st; x++) {
        if (f[x].e.available && f[x].have != 0xf) {
            f[x].e.available = 0;
            f[x].e.reason = "summary.json lacks one of its avg, p50, min, max";
        }
        if (f[x].e.available && samples_of(fsm, f[x].e.id, &f[x].e.samples, &f[x].e.sample_count) &&
            f[x].e.sample_count != f[x].e.n)
            st = etp_error_set(err, ETP_E_FORMAT, etp_bundle_doc_dir(doc), ETP_NO_OFFSET,
                               "detailed/figures.csv has %u values of %s, summary.json says %llu",
                               f[x].e.sample_count, f[x].e.id, (unsigned long long)f[x].e.n);
        if (!st)
            st = etp_diff_side_add(s, &f[x].e, err);
    }
    for (uint32_t x = 0; x < nf; x++)
        free(f[x].name);
    free(f);
    return st;
}

static int parse_number(const char *s, double *out)
{
    char *end;
    if (!*s)
        return -1;
    *out = strtod(s, &end);
    return *end ? -1 : 0;
}

/* detailed/executions.csv (entity_id, execution, run_index, value_<unit>,
 * ticks) or detailed/figures.csv (figure, execution, run_index,
 * value_<unit>): the rows of one entity or figure together, in execution
 * order. */
static etp_status read_samples(const etp_bundle_doc *doc, const char *rel, const char *first,
                               etp_unit time_unit, samples *sm, etp_error *err)
{
    char *text;
    size_t len;
    etp_status s = read_verified(doc, rel, &text, &len, err);
    if (s || !text)
        return s;
    char *where = etp_strprintf("%s/%s", etp_bundle_doc_dir(doc), rel);
    char *want = etp_strprintf("value_%s", etp_unit_name(time_unit));
    etp_csvr r;
    etp_csvr_init(&r, text, len);
    int rc = etp_csvr_next(&r);
    if (!where || !want) {
        s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        goto done;
    }
    if (rc != 1 || r.nfields < 4 || strcmp(r.fields[0], first) ||
        strcmp(r.fields[1], "execution") || strcmp(r.fields[3], want)) {
        s = etp_error_set(err, ETP_E_FORMAT, where, ETP_NO_OFFSET,
                          "line 1: expected the header %s,execution,run_index,%s", first, want);
        goto done;
    }
    int last = -1;
    unsigned long long last_exec = 0;
    while ((rc = etp_csvr_next(&r)) == 1) {
        double v;
        char *end;
        unsigned long long exec = r.nfields >= 4 ? strtoull(r.fields[1], &end, 10) : 0;
        if (r.nfields < 4 || !*r.fields[1] || *end || *r.fields[1] == '-' ||
            parse_number(r.fields[3], &v)) {
            s = etp_error_set(err, ETP_E_FORMAT, where, ETP_NO_OFFSET,
                              "line %zu: not %s,execution,run_index,value", r.line, first);
            goto done;
        }
        int k = last >= 0 && !strcmp(sm->ids[last], r.fields[0]) ? last : samples_slot(sm, r.fields[0]);
        if (k < 0) {
            s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            goto done;
        }
        if (k == last && exec <= last_exec) {
            s = etp_error_set(err, ETP_E_FORMAT, where, ETP_NO_OFFSET,
                              "line %zu: executions of '%s' out of order", r.line, r.fields[0]);
            goto done;
        }
        if (k != last && sm->n[k]) {
            s = etp_error_set(err, ETP_E_FORMAT, where, ETP_NO_OFFSET,
                              "line %zu: the rows of '%s' are not together", r.line, r.fields[0]);
            goto done;
        }
        if (sm->n[k] == sm->cap[k]) {
            uint32_t nc = sm->cap[k] ? sm->cap[k] * 2 : 16;
            double *nv = realloc(sm->v[k], nc * sizeof *nv);
            if (!nv) {
                s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
                goto done;
            }
            sm->v[k] = nv;
            sm->cap[k] = nc;
        }
        sm->v[k][sm->n[k]++] = v;
        last = k;
        last_exec = exec;
    }
    if (rc < 0)
        s = rc == -2 ? etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory")
                     : etp_error_set(err, ETP_E_FORMAT, where, ETP_NO_OFFSET,
                                     "line %zu: malformed CSV record", r.line);
done:
    etp_csvr_free(&r);
    free(text);
    free(where);
    free(want);
    return s;
}

/* The index in @p t of column @p c: its operators.csv header ("avg_ms"),
 * else its operators.json member path ("timing.avg"); -1 with neither. */
static int table_column(const etp_bundle_table *t, const etp_column *c, etp_unit unit)
{
    char name[96];
    etp_column_header(c, unit, name, sizeof name);
    int k = etp_bundle_table_column(t, name);
    const char *group = etp_column_group_key(c->group);
    if (k < 0 && group) {
        snprintf(name, sizeof name, "%s.%s", group, c->key);
        k = etp_bundle_table_column(t, name);
    } else if (k < 0) {
        k = etp_bundle_table_column(t, c->key);
    }
    return k;
}

/* The cell of column @p c (table column @p k) in @p row, as the column's
 * type; 0 when the row has no such value. */
static int bundle_cell(const etp_bundle_table *t, uint32_t row, int k, const etp_column *c, etp_cell *v)
{
    const etp_bundle_cell *b = k >= 0 ? etp_bundle_table_cell(t, row, (uint32_t)k) : NULL;
    if (!b || b->type == ETP_CELL_NULL)
        return 0;
    switch (c->type) {
    case ETP_COLT_STR: v->s = b->text; return 1;
    case ETP_COLT_UINT:
        if (b->type != ETP_CELL_NUMBER || !(b->number >= 0 && b->number < 18446744073709551616.0))
            return 0;
        v->u = (uint64_t)b->number;
        return 1;
    case ETP_COLT_NUM: v->d = b->number; return b->type == ETP_CELL_NUMBER;
    case ETP_COLT_BOOL: v->b = b->boolean; return b->type == ETP_CELL_BOOL;
    default: return 0;
    }
}

/* Is @p kind one of the operators table's VGF NX cycle groups? Those are
 * group measurements in cycles, not timed entities: never matched. */
static int nx_row_kind(const char *kind)
{
    static const etp_nx_kind groups[] = {ETP_NX_SEGMENT, ETP_NX_CASCADE, ETP_NX_CHAIN};
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(kind, etp_nx_row_kind_name(groups[i])))
            return 1;
    return 0;
}

static etp_status add_entities(const etp_bundle_doc *doc, etp_diff_side *s, etp_unit unit,
                               const samples *sm, etp_error *err)
{
    const etp_bundle_table *t = etp_bundle_doc_operators(doc);
    if (!t->source)
        return ETP_OK;
    const etp_column *col[ETP_DIFF_SIDE_COLUMNS];
    int at[ETP_DIFF_SIDE_COLUMNS];
    int c_id = 0, c_kind = 0, c_avg = 0; /* where those three are among the side's columns */
    for (int c = 0; c < ETP_DIFF_SIDE_COLUMNS; c++) {
        col[c] = etp_column_get(etp_diff_side_columns[c]);
        at[c] = table_column(t, col[c], unit);
        c_id = col[c]->id == ETP_COL_ID ? c : c_id;
        c_kind = col[c]->id == ETP_COL_KIND ? c : c_kind;
        c_avg = col[c]->id == ETP_COL_AVG ? c : c_avg;
    }
    if (at[c_id] < 0 || at[c_kind] < 0 || at[c_avg] < 0) {
        char avg[64];
        etp_column_header(etp_column_get(ETP_COL_AVG), unit, avg, sizeof avg);
        return etp_error_set(err, ETP_E_FORMAT, etp_bundle_doc_dir(doc), ETP_NO_OFFSET,
                             "%s: no %s, %s or %s column", t->source, etp_column_get(ETP_COL_ID)->header,
                             etp_column_get(ETP_COL_KIND)->header, avg);
    }
    for (uint32_t row = 0; row < t->row_count; row++) {
        etp_cell cells[ETP_DIFF_SIDE_COLUMNS];
        uint8_t has[ETP_DIFF_SIDE_COLUMNS];
        for (int c = 0; c < ETP_DIFF_SIDE_COLUMNS; c++)
            has[c] = (uint8_t)bundle_cell(t, row, at[c], col[c], &cells[c]);
        const char *id = has[c_id] ? cells[c_id].s : NULL, *kind = has[c_kind] ? cells[c_kind].s : NULL;
        if (!id || !kind)
            return etp_error_set(err, ETP_E_FORMAT, etp_bundle_doc_dir(doc), ETP_NO_OFFSET,
                                 "%s: row %u has no entity id or kind", t->source, row + 1);
        if (nx_row_kind(kind))
            continue;
        etp_diff_entry e;
        if (etp_diff_entry_from_cells(&e, cells, has))
            return etp_error_set(err, ETP_E_FORMAT, etp_bundle_doc_dir(doc), ETP_NO_OFFSET,
                                 "%s: row %u: unknown entity kind '%s'", t->source, row + 1, kind);
        if (e.available)
            samples_of(sm, id, &e.samples, &e.sample_count);
        if (e.samples && e.sample_count != e.n)
            return etp_error_set(err, ETP_E_FORMAT, etp_bundle_doc_dir(doc), ETP_NO_OFFSET,
                                 "detailed/executions.csv has %u samples of '%s', %s says %llu "
                                 "executions",
                                 e.sample_count, id, t->source, (unsigned long long)e.n);
        etp_status st = etp_diff_side_add(s, &e, err);
        if (st)
            return st;
    }
    return ETP_OK;
}

etp_status etp_diff_side_from_bundle(const char *dir, etp_diff_side **out, etp_error *err)
{
    *out = NULL;
    etp_bundle_doc *doc = NULL;
    etp_status st = etp_bundle_open(dir, 1, &doc, err);
    if (st)
        return st;
    const etp_bundle_manifest *m = etp_bundle_doc_manifest(doc);
    ident_strings is;
    memset(&is, 0, sizeof is);
    samples sm, fsm;
    memset(&sm, 0, sizeof sm);
    memset(&fsm, 0, sizeof fsm);
    etp_hm_init(&sm.index);
    etp_hm_init(&fsm.index);
    etp_diff_side *s = NULL;
    if (m->bundle_type && strcmp(m->bundle_type, "profile")) {
        st = etp_error_set(err, ETP_E_FORMAT, dir, ETP_NO_OFFSET,
                           "a '%s' bundle, not a profile: only profile bundles can be compared",
                           m->bundle_type);
        goto done;
    }
    st = read_summary_identity(doc, &is, err);
    if (st)
        goto done;
    etp_diff_identity id;
    memset(&id, 0, sizeof id);
    id.label = dir;
    id.origin = "bundle";
    id.program_sha256 = input_sha(m, "pte");
    id.etrecord_sha256 = input_sha(m, "etrecord");
    id.method = is.method;
    id.time_unit = is.time_unit;
    id.has_tick_unit = is.has_tick_unit;
    id.tick_unit = is.tick_unit;
    id.ticks_assumed = is.assumed;
    id.cpu_hz = options_cpu_hz(m->options_json);
    id.status = m->status;
    id.validity = m->validity;
    const etp_bundle_metric *ex = etp_bundle_doc_metric(doc, "executions");
    id.executions = ex && ex->available && ex->value > 0 && ex->value < 4e9 ? (uint32_t)ex->value : 0;
    const etp_bundle_summary_info *si = etp_bundle_doc_summary(doc);
    id.has_findings = si->has_findings;
    st = etp_diff_side_new(&id, &s, err);
    for (uint32_t i = 0; !st && i < si->finding_count; i++) {
        const etp_bundle_finding *bf = &si->findings[i];
        etp_diff_side_finding f = {bf->code, bf->severity, bf->status, bf->message, bf->entity_count,
                                   bf->entity_ids};
        st = etp_diff_side_add_finding(s, &f, err);
    }
    if (!st)
        st = read_samples(doc, "detailed/figures.csv", "figure", is.time_unit, &fsm, err);
    if (!st)
        st = add_figures(doc, s, is.time_unit, &fsm, err);
    if (!st)
        st = read_samples(doc, "detailed/executions.csv", etp_column_get(ETP_COL_ID)->header,
                          is.time_unit, &sm, err);
    if (!st)
        st = add_entities(doc, s, is.time_unit, &sm, err);
done:
    samples_free(&sm);
    samples_free(&fsm);
    free(is.method);
    etp_bundle_close(doc);
    if (st) {
        etp_diff_side_free(s);
        return st;
    }
    *out = s;
    return ETP_OK;
}
