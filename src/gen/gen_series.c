/* gen_series.c - run-history series in memory (gen_series.h). */
#include <string.h>

#include "gen/gen_series.h"

void gen_history_init(gen_history *h)
{
    memset(h, 0, sizeof *h);
    gen_vec_init(&h->series, sizeof(etp_history_series));
}

void gen_history_free(gen_history *h)
{
    gen_arena_free(&h->arena);
    gen_vec_free(&h->series);
    memset(h, 0, sizeof *h);
}

etp_history_series *gen_history_all(gen_history *h, uint32_t *count)
{
    *count = (uint32_t)h->series.len;
    return h->series.items;
}

double gen_normal(gen_rng *r)
{
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += gen_unif(r);
    return s - 6.0;
}

static const char *copy(gen_arena *a, const char *s)
{
    return s ? gen_printf(a, "%s", s) : NULL;
}

/* The labels of point @p i: the group's, plus branch, commit and seq, sorted
 * by key (insertion: a handful of labels). */
static etp_history_label *point_labels(gen_arena *a, const gen_series_spec *sp, const etp_history_series *s,
                                       uint32_t i, uint32_t *count)
{
    uint32_t n = s->group_count + 3;
    etp_history_label *l = gen_alloc(a, n * sizeof *l);
    if (!l)
        return NULL;
    for (uint32_t g = 0; g < s->group_count; g++)
        l[g] = s->group[g];
    gen_rng r = gen_rng_make(sp->seed, 0x636f6d6d6974ull + i); /* "commit" */
    l[s->group_count] = (etp_history_label){"branch", "main"};
    l[s->group_count + 1] = (etp_history_label){"commit", gen_printf(a, "%016llx", (unsigned long long)gen_next(&r))};
    l[s->group_count + 2] = (etp_history_label){"seq", gen_printf(a, "%u", i)};
    for (uint32_t k = 1; k < n; k++)
        for (uint32_t m = k; m > 0 && strcmp(l[m - 1].key, l[m].key) > 0; m--) {
            etp_history_label t = l[m];
            l[m] = l[m - 1];
            l[m - 1] = t;
        }
    *count = n;
    return l;
}

static double point_value(const gen_series_spec *sp, double level, uint32_t i, gen_rng *r)
{
    double v = level * (1.0 + sp->creep_pct / 100.0 * i);
    if (sp->step_factor != 0 && i >= sp->step_at)
        v *= sp->step_factor;
    v *= 1.0 + sp->noise_pct / 100.0 * gen_normal(r);
    if (sp->spike_rate > 0 && gen_unif(r) < sp->spike_rate)
        v *= sp->spike_factor;
    return v;
}

int64_t gen_history_add(gen_history *h, const gen_series_spec *sp)
{
    gen_arena *a = &h->arena;
    etp_history_series *s = gen_vec_push(&h->series);
    if (!s)
        return -1;
    s->group_count = sp->group_count;
    etp_history_label *group = gen_alloc(a, (sp->group_count + 1) * sizeof *group);
    for (uint32_t g = 0; group && g < sp->group_count; g++)
        group[g] = (etp_history_label){copy(a, sp->group[g].key), copy(a, sp->group[g].value)};
    s->group = group;
    s->metric = copy(a, sp->metric ? sp->metric : "method_execute.avg");
    s->unit = copy(a, sp->unit ? sp->unit : "ms");
    s->lower_is_better = !sp->higher_is_better;
    if (sp->key) {
        s->key = copy(a, sp->key);
    } else {
        char *k = gen_printf(a, "%s", "");
        for (uint32_t g = 0; group && k && g < sp->group_count; g++)
            k = gen_printf(a, "%s%s%s=%s", k, g ? "|" : "", group[g].key, group[g].value);
        s->key = k;
    }
    double level = sp->level != 0 ? sp->level : 10.0;
    int64_t start = sp->start_ms ? sp->start_ms : 1735689600000; /* 2025-01-01T00:00:00Z */
    int64_t every = sp->every_ms ? sp->every_ms : 3600000;
    int64_t run0 = sp->first_run ? sp->first_run : 1;
    s->point_count = sp->points;
    s->points = gen_alloc(a, ((size_t)sp->points + 1) * sizeof *s->points);
    gen_rng values = gen_rng_make(sp->seed, 0x76616c7565ull);     /* "value" */
    gen_rng execs = gen_rng_make(sp->seed, 0x65786563ull);        /* "exec" */
    for (uint32_t i = 0; s->points && i < sp->points; i++) {
        etp_history_point *p = &s->points[i];
        p->run = run0 + i;
        p->run_id = gen_printf(a, "run-%llu-%u", (unsigned long long)sp->seed, i);
        p->published_ms = start + every * i;
        p->order = (double)p->published_ms;
        p->value = point_value(sp, level, i, &values);
        p->samples = sp->executions ? sp->executions : 1;
        p->labels = point_labels(a, sp, s, i, &p->label_count);
        if (sp->executions) {
            /* The point's value is then the mean of its executions, as a
             * summary's ".avg" is. */
            double *ev = gen_alloc(a, (size_t)sp->executions * sizeof *ev), sum = 0;
            for (uint32_t e = 0; ev && e < sp->executions; e++) {
                ev[e] = p->value * (1.0 + sp->execution_noise_pct / 100.0 * gen_normal(&execs));
                sum += ev[e];
            }
            if (ev)
                p->value = sum / sp->executions;
            p->execution_values = ev;
            p->sample_count = ev ? sp->executions : 0;
        }
    }
    if (a->failed || !group || !s->points) {
        h->series.len--;
        return -1;
    }
    return (int64_t)h->series.len - 1;
}
