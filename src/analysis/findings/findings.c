/* findings.c - running the finding rules over an analysis, and recording
 * their findings (etprof/findings.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"
#include "util/str.h"

static void *grow(void *p, uint32_t *cap, uint32_t count, size_t size)
{
    if (count < *cap)
        return p;
    uint32_t ncap = *cap ? *cap * 2 : 4;
    void *np = realloc(p, (size_t)ncap * size);
    if (np)
        *cap = ncap;
    return np;
}

static void finding_free(etp_finding *f)
{
    free(f->message);
    free(f->evidence);
    free(f->thresholds);
    for (uint32_t i = 0; i < f->entity_count; i++) {
        free(f->entities[i].id);
        free(f->entities[i].name);
        free(f->entities[i].role);
    }
    free(f->entities);
    free(f->details_json);
}

void etp_finding_list_free(etp_finding_list *l)
{
    for (uint32_t i = 0; i < l->count; i++)
        finding_free(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

uint32_t etp_finding_list_count(const etp_finding_list *l, etp_finding_status st)
{
    uint32_t n = 0;
    for (uint32_t i = 0; l && i < l->count; i++)
        n += l->items[i].status == st;
    return n;
}

void finding_begin(finding_builder *b, finding_ctx *c, const char *code, etp_finding_status st)
{
    b->c = c;
    b->f = NULL;
    b->status = ETP_OK;
    const etp_finding_rule *r = etp_finding_lookup(code);
    etp_finding_list *l = c->out;
    etp_finding *items = r ? grow(l->items, &l->cap, l->count, sizeof *items) : NULL;
    if (!items) {
        b->status = r ? ETP_E_NOMEM : ETP_E_USAGE;
        return;
    }
    l->items = items;
    etp_finding *f = &items[l->count];
    memset(f, 0, sizeof *f);
    f->rule = r;
    f->status = st;
    if (r->param_count && !(f->thresholds = calloc(r->param_count, sizeof *f->thresholds))) {
        b->status = ETP_E_NOMEM;
        return;
    }
    for (uint32_t k = 0; k < r->param_count; k++) {
        const etp_finding_param *p = &r->params[k];
        f->thresholds[k].param = p;
        f->thresholds[k].value = etp_finding_setting(c->settings, p);
        f->thresholds[k].given = c->settings && p->index < ETP_FINDING_PARAM_MAX && c->settings->given[p->index];
    }
    f->threshold_count = r->param_count;
    b->f = f;
}

void finding_message(finding_builder *b, const char *fmt, ...)
{
    if (b->status)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(b->f->message);
    if (!(b->f->message = etp_strdup(buf)))
        b->status = ETP_E_NOMEM;
}

void finding_value(finding_builder *b, const char *name, double value, const char *unit, int additive,
                   const char *source)
{
    if (b->status)
        return;
    etp_finding *f = b->f;
    uint32_t cap = f->evidence_count; /* grown one at a time: a handful per finding */
    etp_finding_value *v = realloc(f->evidence, (size_t)(cap + 1) * sizeof *v);
    if (!v) {
        b->status = ETP_E_NOMEM;
        return;
    }
    f->evidence = v;
    v[f->evidence_count++] = (etp_finding_value){name, value, unit, additive, source};
}

void finding_entity_values(finding_builder *b, etp_finding_entity_kind kind, const char *id,
                           const char *name, const char *role, double value, double share_pct)
{
    if (b->status)
        return;
    etp_finding *f = b->f;
    etp_finding_entity *e = realloc(f->entities, (size_t)(f->entity_count + 1) * sizeof *e);
    if (!e) {
        b->status = ETP_E_NOMEM;
        return;
    }
    f->entities = e;
    etp_finding_entity *n = &e[f->entity_count];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->id = etp_strdup(id ? id : "");
    n->name = etp_strdup(name ? name : (id ? id : ""));
    n->role = role ? etp_strdup(role) : NULL;
    n->has_value = !isnan(value);
    n->value = n->has_value ? value : 0;
    n->has_share = !isnan(share_pct);
    n->share_pct = n->has_share ? share_pct : 0;
    f->entity_count++;
    if (!n->id || !n->name || (role && !n->role))
        b->status = ETP_E_NOMEM;
}

void finding_entity(finding_builder *b, etp_finding_entity_kind kind, const char *id, const char *name,
                    const char *role, const etp_entity *timed)
{
    double v = NAN, share = NAN;
    if (timed && timed->time.stats.n) {
        v = timed->time.stats.avg;
        if (finding_summable(b->c, timed))
            share = finding_share(b->c, v);
    }
    finding_entity_values(b, kind, id, name, role, v, share);
}

void finding_details(finding_builder *b, char *json)
{
    if (b->status) {
        free(json);
        return;
    }
    free(b->f->details_json);
    b->f->details_json = json;
    if (!json)
        b->status = ETP_E_NOMEM;
}

etp_status finding_end(finding_builder *b)
{
    if (b->status == ETP_OK && !b->f->message)
        b->status = ETP_E_USAGE; /* a rule that forgot its message: a bug, never published */
    if (b->f) {
        if (b->status)
            finding_free(b->f);
        else
            b->c->out->count++;
    }
    return b->status;
}

etp_status finding_rules_run(const etp_analysis *a, const etp_finding_settings *s, etp_finding_list *out,
                            etp_error *err)
{
    finding_ctx c = {a, s, out, NULL, 0, etp_unit_name(a->target_unit)};
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    if (ex && ex->available && ex->stats.n && ex->stats.avg > 0) {
        c.execute = ex;
        c.execute_avg = ex->stats.avg;
    }
    etp_status (*const rules[])(finding_ctx *) = {findings_delegation, findings_boundary, findings_compute,
                                                  findings_overhead,   findings_stability, findings_accelerator};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        etp_status st = rules[i](&c);
        if (st)
            return etp_error_set(err, st, NULL, ETP_NO_OFFSET,
                                 st == ETP_E_NOMEM ? "out of memory forming the findings"
                                                   : "a finding rule recorded an unknown code");
    }
    /* Registry order, the rules' own order within one code (a stable
     * insertion sort: a few dozen findings at most). */
    for (uint32_t i = 1; i < out->count; i++) {
        etp_finding f = out->items[i];
        uint32_t j = i;
        for (; j > 0 && strcmp(out->items[j - 1].rule->code, f.rule->code) > 0; j--)
            out->items[j] = out->items[j - 1];
        out->items[j] = f;
    }
    return ETP_OK;
}
