/* diff_compute.c - the rows of a comparison: model figures always, then the
 * entities at the level both sides support; base, new, delta, ratio, share
 * and the bootstrap interval of each row. */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_match.h"
#include "util/str.h"

/* One side's contribution to a row, before conversion to the diff's unit:
 * an entry of the side, or an operator-type group summed from several. */
typedef struct src_vals {
    int available;
    const char *reason;
    double avg, p50, min, max;
    int has_avg, has_p50, has_min, has_max;
    uint64_t n;
    const double *samples;
    uint32_t sample_count;
    int additive, shared;
    uint32_t members;
    const char *unit;              /* NULL: the side's time unit */
    const char *name, *op_type, *backend, *basis;
} src_vals;

/* A row waiting for its interval: both sides' samples in the diff's unit. */
typedef struct pending {
    uint32_t row;
    double *sb, *sn;
    uint32_t nb, nn;
} pending;

typedef struct build {
    etp_diff *d;
    etp_diff_arena *ar;
    const etp_diff_options *opt;
    const etp_diff_side *side[2];
    double factor[2];              /* side's time unit -> the diff's */
    etp_diff_row *rows;
    uint32_t count, cap;
    double exec_avg[2];
    int has_exec[2];
    pending *pend;
    uint32_t npend, pcap;
} build;

void etp_diff_options_init(etp_diff_options *o)
{
    memset(o, 0, sizeof *o);
    o->statistic = ETP_DIFF_STAT_AVG;
    o->confidence = 0.95;
    o->resamples = 2000;
    o->seed = 0x6574707266646966ull; /* "etprfdif" */
    o->interval_rows = 200;
}

static src_vals from_entry(const etp_diff_entry *e)
{
    src_vals v;
    memset(&v, 0, sizeof v);
    v.available = e->available;
    v.reason = e->reason;
    v.avg = e->avg;
    v.p50 = e->p50;
    v.min = e->min;
    v.max = e->max;
    v.has_avg = v.has_p50 = v.has_min = v.has_max = e->available;
    v.n = e->n;
    v.samples = e->samples;
    v.sample_count = e->sample_count;
    v.additive = e->additive;
    v.shared = e->shared;
    v.unit = e->unit;
    v.name = e->name ? e->name : e->id;
    v.op_type = e->op_type;
    v.backend = e->backend;
    v.basis = e->basis;
    return v;
}

static etp_diff_row *new_row(build *bd, etp_diff_kind kind, const char *key)
{
    if (bd->count == bd->cap) {
        uint32_t nc = bd->cap ? bd->cap * 2 : 64;
        etp_diff_row *nr = realloc(bd->rows, (size_t)nc * sizeof *nr);
        if (!nr)
            return NULL;
        bd->rows = nr;
        bd->cap = nc;
    }
    etp_diff_row *r = &bd->rows[bd->count++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->key = etp_diff_strdup(bd->ar, key);
    return r;
}

/* Fill one side of @p r from @p s; returns the unit its times are in. */
static const char *fill_side(build *bd, int k, const src_vals *s, etp_diff_value *v, double *f)
{
    const char *u = s->unit ? s->unit : etp_unit_name(bd->side[k]->id.time_unit);
    *f = etp_diff_unit_factor(u, bd->d->unit);
    const char *unit = bd->d->unit;
    if (!(*f > 0)) { /* not a time ("bytes", "count"): compared as it is */
        *f = 1.0;
        unit = u;
    }
    v->present = 1;
    v->available = s->available;
    v->reason = etp_diff_strdup(bd->ar, s->reason);
    v->n = s->n;
    v->additive = s->additive;
    v->shared = s->shared;
    v->members = s->members;
    v->sample_count = s->sample_count;
    if (!s->available)
        return unit;
    v->has_avg = s->has_avg;
    v->has_p50 = s->has_p50;
    v->has_min = s->has_min;
    v->has_max = s->has_max;
    v->avg = s->avg * *f;
    v->p50 = s->p50 * *f;
    v->min = s->min * *f;
    v->max = s->max * *f;
    int has = bd->opt->statistic == ETP_DIFF_STAT_AVG ? v->has_avg : v->has_p50;
    if (!has) {
        v->available = 0;
        v->reason = bd->opt->statistic == ETP_DIFF_STAT_AVG
                        ? "no mean: its members' times may not be added"
                        : "no median: medians are never added, and not every member has "
                          "per-execution samples of the same executions";
        return unit;
    }
    v->value = bd->opt->statistic == ETP_DIFF_STAT_AVG ? v->avg : v->p50;
    int timed = unit == bd->d->unit;
    int per_exec = !s->basis || !strcmp(s->basis, "per execution");
    if (timed && per_exec && v->has_avg && bd->has_exec[k] && bd->exec_avg[k] > 0) {
        v->has_share = 1;
        v->share = v->avg / bd->exec_avg[k];
    }
    return unit;
}

/* Samples of @p s scaled by @p f (a new array the caller frees), or NULL. */
static double *scaled(const src_vals *s, double f)
{
    if (!s || !s->available || s->sample_count < 2)
        return NULL;
    double *v = malloc((size_t)s->sample_count * sizeof *v);
    if (v)
        for (uint32_t i = 0; i < s->sample_count; i++)
            v[i] = s->samples[i] * f;
    return v;
}

/* One row from the sides' values (either may be NULL: only on one side). */
static int add_row(build *bd, etp_diff_kind kind, const char *key, const src_vals *b,
                   const src_vals *n)
{
    etp_diff_row *r = new_row(bd, kind, key);
    if (!r)
        return -1;
    const src_vals *any = b ? b : n;
    r->name = etp_diff_strdup(bd->ar, any->name);
    r->op_type = etp_diff_strdup(bd->ar, any->op_type);
    r->backend = etp_diff_strdup(bd->ar, any->backend);
    r->basis = etp_diff_strdup(bd->ar, any->basis);
    const char *ub = NULL, *un = NULL;
    double fb = 1, fn = 1;
    if (b)
        ub = fill_side(bd, 0, b, &r->base, &fb);
    if (n)
        un = fill_side(bd, 1, n, &r->new_, &fn);
    r->unit = etp_diff_strdup(bd->ar, ub ? ub : un);
    r->matched = b && n;
    if (!b || !n) {
        r->note = b ? "only in base" : "only in new";
        return 0;
    }
    if (strcmp(ub, un)) {
        r->note = etp_diff_own(bd->ar, etp_strprintf("units differ (base %s, new %s)", ub, un));
        return 0;
    }
    if (!r->base.available || !r->new_.available) {
        r->note = !r->base.available ? "no value on the base side" : "no value on the new side";
        return 0;
    }
    r->has_delta = 1;
    r->delta = r->new_.value - r->base.value;
    if (r->base.value > 0) {
        r->has_ratio = 1;
        r->ratio = r->new_.value / r->base.value;
        r->speedup = r->new_.value > 0 ? r->base.value / r->new_.value : 0;
    } else {
        r->note = "base is 0: no ratio";
        return 0;
    }
    if (b->sample_count < 2 || n->sample_count < 2) {
        r->note = b->sample_count < 2 && n->sample_count < 2 ? "no per-execution samples: no interval"
                  : b->sample_count < 2 ? "no per-execution samples on the base side: no interval"
                                        : "no per-execution samples on the new side: no interval";
        return 0;
    }
    if (!bd->opt->resamples) {
        r->note = "intervals not computed (no resamples)";
        return 0;
    }
    /* The interval is drawn later, for the rows that get one (etp_diff_options
     * .interval_rows): keep the samples, in the diff's unit. */
    pending *p = NULL;
    if (bd->npend == bd->pcap) {
        uint32_t nc = bd->pcap ? bd->pcap * 2 : 64;
        pending *np = realloc(bd->pend, (size_t)nc * sizeof *np);
        if (!np)
            return -1;
        bd->pend = np;
        bd->pcap = nc;
    }
    p = &bd->pend[bd->npend];
    p->row = bd->count - 1;
    p->nb = b->sample_count;
    p->nn = n->sample_count;
    p->sb = scaled(b, fb);
    p->sn = scaled(n, fn);
    if (!p->sb || !p->sn) {
        free(p->sb);
        free(p->sn);
        return -1;
    }
    bd->npend++;
    r->note = "interval not computed (outside the rows that get one; see --interval-rows)";
    return 0;
}

/* Rows of @p kind: the base side's entries in order, then the new side's
 * that the base lacks. */
static int rows_of_kind(build *bd, etp_diff_kind kind)
{
    const etp_diff_side *b = bd->side[0], *n = bd->side[1];
    for (uint32_t i = 0; i < b->count; i++) {
        const etp_diff_entry *e = &b->ents[i];
        if (e->kind != kind)
            continue;
        const etp_diff_entry *o = etp_diff_side_lookup(n, kind, e->id);
        src_vals vb = from_entry(e), vn;
        if (o)
            vn = from_entry(o);
        if (add_row(bd, kind, e->id, &vb, o ? &vn : NULL))
            return -1;
    }
    for (uint32_t i = 0; i < n->count; i++) {
        const etp_diff_entry *e = &n->ents[i];
        if (e->kind != kind || etp_diff_side_lookup(b, kind, e->id))
            continue;
        src_vals vn = from_entry(e);
        if (add_row(bd, kind, e->id, NULL, &vn))
            return -1;
    }
    return 0;
}

/* ---- operator-type groups -------------------------------------------- */

typedef struct group {
    char *key;
    src_vals v;
    double *sums;                  /* per-execution sums (NULL: not every member has them) */
} group;

typedef struct groups {
    group *g;
    uint32_t count, cap;
    etp_hm index;
} groups;

static char *group_key(const etp_diff_entry *e)
{
    const char *op = e->op_type ? e->op_type : "(unknown type)";
    if (e->backend && strcmp(e->backend, op))
        return etp_strprintf("%s/%s", e->backend, op);
    return etp_strdup(op);
}

static group *group_find(groups *gs, const char *key)
{
    size_t cur = 0;
    uint32_t v;
    uint64_t h = etp_diff_key_hash(ETP_DIFF_OP_TYPE, key);
    while (etp_hm_next(&gs->index, h, &cur, &v))
        if (!strcmp(gs->g[v].key, key))
            return &gs->g[v];
    return NULL;
}

static void groups_free(groups *gs)
{
    for (uint32_t i = 0; i < gs->count; i++) {
        free(gs->g[i].key);
        free(gs->g[i].sums);
    }
    free(gs->g);
    etp_hm_free(&gs->index);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Instructions of @p s grouped by operator type and backend. The mean of a
 * group is the sum of its members' means (only when all are additive);
 * p50/min/max come from per-execution sums, only when every member has a
 * sample for each of the side's executions. */
static int build_groups(const etp_diff_side *s, groups *gs)
{
    memset(gs, 0, sizeof *gs);
    etp_hm_init(&gs->index);
    uint32_t nexec = s->id.executions;
    for (uint32_t i = 0; i < s->count; i++) {
        const etp_diff_entry *e = &s->ents[i];
        if (e->kind != ETP_DIFF_INSTRUCTION)
            continue;
        char *key = group_key(e);
        if (!key)
            return -1;
        group *g = group_find(gs, key);
        if (g) {
            free(key);
        } else {
            if (gs->count == gs->cap) {
                uint32_t nc = gs->cap ? gs->cap * 2 : 32;
                group *ng = realloc(gs->g, (size_t)nc * sizeof *ng);
                if (!ng) {
                    free(key);
                    return -1;
                }
                gs->g = ng;
                gs->cap = nc;
            }
            g = &gs->g[gs->count];
            memset(g, 0, sizeof *g);
            g->key = key;
            g->v.available = 1;
            g->v.has_avg = 1;
            g->v.additive = 1;
            g->v.name = g->key;
            g->v.op_type = e->op_type;
            g->v.backend = e->backend;
            g->v.unit = e->unit;
            g->v.basis = "per execution";
            g->sums = nexec ? calloc(nexec, sizeof *g->sums) : NULL;
            g->v.sample_count = nexec;
            if (etp_hm_put(&gs->index, etp_diff_key_hash(ETP_DIFF_OP_TYPE, key), gs->count)) {
                free(key);
                free(g->sums);
                return -1;
            }
            gs->count++;
            if (nexec && !g->sums)
                return -1;
        }
        g->v.members++;
        if (!e->available) /* untimed instructions add nothing and take nothing */
            continue;
        if (!e->additive || e->shared) {
            g->v.has_avg = 0;
            g->v.additive = 0;
        }
        if (e->shared)
            g->v.shared = 1;
        g->v.avg += e->avg;
        if (e->n > g->v.n)
            g->v.n = e->n;
        if (g->sums && e->sample_count == nexec && e->samples) {
            for (uint32_t x = 0; x < nexec; x++)
                g->sums[x] += e->samples[x];
        } else {
            free(g->sums);
            g->sums = NULL;
            g->v.sample_count = 0;
        }
    }
    for (uint32_t i = 0; i < gs->count; i++) {
        group *g = &gs->g[i];
        if (!g->v.n) {
            g->v.available = 0;
            g->v.reason = "no timed instruction";
            continue;
        }
        if (g->v.has_avg && g->v.members > 1 && g->v.n != nexec) {
            g->v.has_avg = 0; /* members may cover different executions */
        }
        if (!g->sums)
            continue;
        double *t = malloc((size_t)nexec * sizeof *t);
        if (!t)
            return -1;
        memcpy(t, g->sums, (size_t)nexec * sizeof *t);
        qsort(t, nexec, sizeof *t, cmp_d);
        g->v.has_p50 = g->v.has_min = g->v.has_max = 1;
        g->v.p50 = nexec % 2 ? t[nexec / 2] : (t[nexec / 2 - 1] + t[nexec / 2]) / 2.0;
        g->v.min = t[0];
        g->v.max = t[nexec - 1];
        free(t);
        g->v.samples = g->sums;
    }
    return 0;
}

static int op_type_rows(build *bd)
{
    groups gb, gn;
    int rc = build_groups(bd->side[0], &gb);
    int rc2 = rc ? -1 : build_groups(bd->side[1], &gn);
    if (rc || rc2) {
        groups_free(&gb);
        if (!rc)
            groups_free(&gn);
        return -1;
    }
    for (uint32_t i = 0; i < gb.count && !rc; i++) {
        group *o = group_find(&gn, gb.g[i].key);
        rc = add_row(bd, ETP_DIFF_OP_TYPE, gb.g[i].key, &gb.g[i].v, o ? &o->v : NULL);
    }
    for (uint32_t i = 0; i < gn.count && !rc; i++)
        if (!group_find(&gb, gn.g[i].key))
            rc = add_row(bd, ETP_DIFF_OP_TYPE, gn.g[i].key, NULL, &gn.g[i].v);
    groups_free(&gb);
    groups_free(&gn);
    return rc;
}

/* ---- intervals ---------------------------------------------------------- */

typedef struct ranked {
    double key;
    uint32_t kind;
    const char *name;
    uint32_t p;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int draw_interval(build *bd, const pending *p)
{
    etp_diff_row *r = &bd->rows[p->row];
    int rc = etp_diff_bootstrap(p->sb, p->nb, p->sn, p->nn, bd->opt->statistic, bd->opt->resamples,
                                bd->opt->confidence, etp_diff_row_seed(bd->opt->seed, r->kind, r->key),
                                &r->ci_low, &r->ci_high);
    if (rc == -2)
        return -1;
    if (rc) {
        r->note = "a resample's base statistic is 0: no interval";
        return 0;
    }
    r->has_ci = 1;
    r->significant = r->ci_low > 1.0 || r->ci_high < 1.0;
    r->note = r->significant ? NULL : "not significant (the interval contains 1)";
    return 0;
}

/* Model rows and the named row always get an interval; entity rows the
 * first interval_rows by |delta| (ties by kind and key), or all. */
static int intervals(build *bd)
{
    const etp_diff_options *o = bd->opt;
    ranked *rk = malloc((bd->npend + 1) * sizeof *rk);
    if (!rk)
        return -1;
    uint32_t n = 0;
    int bad = 0;
    for (uint32_t i = 0; i < bd->npend && !bad; i++) {
        const etp_diff_row *r = &bd->rows[bd->pend[i].row];
        if (r->kind == ETP_DIFF_MODEL || !o->interval_rows ||
            (o->interval_key && !strcmp(o->interval_key, r->key)))
            bad = draw_interval(bd, &bd->pend[i]);
        else
            rk[n++] = (ranked){r->delta < 0 ? -r->delta : r->delta, (uint32_t)r->kind, r->key, i};
    }
    qsort(rk, n, sizeof *rk, cmp_ranked);
    for (uint32_t i = 0; i < n && i < o->interval_rows && !bad; i++)
        bad = draw_interval(bd, &bd->pend[rk[i].p]);
    free(rk);
    return bad;
}

/* ---- the whole comparison ---------------------------------------------- */

static const char *level_name(etp_diff_level l)
{
    static const char *const names[] = {"model", "op_type", "source_operator", "instruction"};
    return names[l];
}

static int copy_identity(etp_diff_arena *ar, etp_diff_identity *dst, const etp_diff_identity *src)
{
    *dst = *src;
    dst->label = etp_diff_strdup(ar, src->label);
    dst->origin = etp_diff_strdup(ar, src->origin);
    dst->program_sha256 = etp_diff_strdup(ar, src->program_sha256);
    dst->etrecord_sha256 = etp_diff_strdup(ar, src->etrecord_sha256);
    dst->method = etp_diff_strdup(ar, src->method);
    dst->status = etp_diff_strdup(ar, src->status);
    dst->validity = etp_diff_strdup(ar, src->validity);
    return ar->failed ? -1 : 0;
}

etp_status etp_diff_compute(const etp_diff_side *base, const etp_diff_side *new_side,
                            const etp_diff_options *opt, etp_diff **out, etp_error *err)
{
    *out = NULL;
    etp_diff_options defaults;
    if (!opt) {
        etp_diff_options_init(&defaults);
        opt = &defaults;
    }
    if (!(opt->confidence > 0 && opt->confidence < 1) || opt->statistic > ETP_DIFF_STAT_P50)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the confidence must be between 0 and 1");
    etp_diff *d = calloc(1, sizeof *d);
    etp_diff_arena *ar = calloc(1, sizeof *ar);
    if (!d || !ar) {
        free(d);
        free(ar);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    d->arena_ = ar;
    double nf = 1;
    etp_status s = etp_diff_check(base, new_side, opt, ar, &d->warnings, &d->warning_count, &nf, err);
    if (s) {
        etp_diff_free(d);
        return s;
    }
    build bd;
    memset(&bd, 0, sizeof bd);
    bd.d = d;
    bd.ar = ar;
    bd.opt = opt;
    bd.side[0] = base;
    bd.side[1] = new_side;
    d->statistic = opt->statistic;
    d->statistic_name = opt->statistic == ETP_DIFF_STAT_AVG ? "avg" : "p50";
    d->confidence = opt->confidence;
    d->resamples = opt->resamples;
    d->seed = opt->seed;
    d->unit = etp_diff_strdup(ar, etp_unit_name(base->id.time_unit));
    d->level = etp_diff_choose_level(base, new_side, ar, &d->level_reason);
    d->level_name = level_name(d->level);
    int bad = copy_identity(ar, &d->base, &base->id) || copy_identity(ar, &d->new_, &new_side->id);
    for (int k = 0; k < 2; k++) {
        const etp_diff_entry *ex = etp_diff_side_lookup(bd.side[k], ETP_DIFF_MODEL, "method_execute");
        if (ex && ex->available && !ex->unit) {
            bd.has_exec[k] = 1;
            bd.exec_avg[k] = ex->avg * etp_unit_factor(bd.side[k]->id.time_unit, base->id.time_unit);
        }
    }
    if (!bad)
        bad = rows_of_kind(&bd, ETP_DIFF_MODEL);
    if (!bad && d->level == ETP_DIFF_LEVEL_INSTRUCTION)
        bad = rows_of_kind(&bd, ETP_DIFF_INSTRUCTION) || rows_of_kind(&bd, ETP_DIFF_DELEGATE_EVENT) ||
              rows_of_kind(&bd, ETP_DIFF_OPERATOR);
    else if (!bad && d->level == ETP_DIFF_LEVEL_SOURCE_OPERATOR)
        bad = rows_of_kind(&bd, ETP_DIFF_OPERATOR);
    else if (!bad && d->level == ETP_DIFF_LEVEL_OP_TYPE)
        bad = op_type_rows(&bd);
    if (!bad && opt->resamples)
        bad = intervals(&bd);
    if (!bad)
        bad = etp_diff_compare_findings(base, new_side, d, ar);
    for (uint32_t i = 0; i < bd.npend; i++) {
        free(bd.pend[i].sb);
        free(bd.pend[i].sn);
    }
    free(bd.pend);
    d->rows = bd.rows;
    d->row_count = bd.count;
    if (bad || ar->failed || !d->level_reason) {
        etp_diff_free(d);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    *out = d;
    return ETP_OK;
}

void etp_diff_free(etp_diff *d)
{
    if (!d)
        return;
    if (d->arena_) {
        etp_diff_arena_free(d->arena_);
        free(d->arena_);
    }
    free(d->rows);
    free(d->warnings);
    free(d);
}

const etp_diff_row *etp_diff_find(const etp_diff *d, etp_diff_kind kind, const char *key)
{
    for (uint32_t i = 0; i < d->row_count; i++)
        if (d->rows[i].kind == kind && d->rows[i].key && !strcmp(d->rows[i].key, key))
            return &d->rows[i];
    return NULL;
}
