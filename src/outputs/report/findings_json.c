/* findings_json.c - the findings of an analysis as JSON: one writer for
 * summary.json, `analyze --json`, the page and the Python package. */
#include <stdio.h>
#include <string.h>

#include "outputs/report/analysis_report.h"

void etp_json_finding_evidence(etp_jw *w, const etp_finding *f)
{
    etp_jw_key(w, "evidence");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < f->evidence_count; i++) {
        const etp_finding_value *v = &f->evidence[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", v->name);
        etp_jw_kdouble(w, "value", v->value);
        etp_jw_kstr(w, "unit", v->unit);
        etp_jw_kbool(w, "additive", v->additive);
        etp_jw_kstr(w, "source", v->source);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

static void write_thresholds(etp_jw *w, const etp_finding *f)
{
    etp_jw_key(w, "thresholds");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < f->threshold_count; i++) {
        const etp_finding_threshold *t = &f->thresholds[i];
        char key[160];
        snprintf(key, sizeof key, "%s.%s", f->rule->code, t->param->key);
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "key", key);
        etp_jw_kdouble(w, "value", t->value);
        etp_jw_kdouble(w, "default", t->param->default_value);
        etp_jw_kstr(w, "unit", t->param->unit);
        etp_jw_kbool(w, "given", t->given);
        etp_jw_kstr(w, "why", t->param->why);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

static void write_entities(etp_jw *w, const etp_finding *f)
{
    etp_jw_key(w, "affected_entities");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < f->entity_count; i++) {
        const etp_finding_entity *e = &f->entities[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", e->id);
        etp_jw_kstr(w, "kind", etp_finding_entity_kind_name(e->kind));
        etp_jw_kstr(w, "name", e->name);
        if (e->role)
            etp_jw_kstr(w, "role", e->role);
        if (e->has_value)
            etp_jw_kdouble(w, "value", e->value);
        if (e->has_share)
            etp_jw_kdouble(w, "share_pct", e->share_pct);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_kuint(w, "affected_entities_omitted", f->entities_omitted);
}

void etp_json_finding(etp_jw *w, const etp_finding *f)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "code", f->rule->code);
    etp_jw_kstr(w, "category", etp_finding_category_name(f->rule->category));
    etp_jw_kstr(w, "severity", etp_severity_name(f->rule->severity));
    etp_jw_kstr(w, "status", etp_finding_status_name(f->status));
    etp_jw_kstr(w, "message", f->message);
    write_entities(w, f);
    etp_jw_key(w, "details");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "title", f->rule->title);
    etp_jw_kstr(w, "next_step", f->rule->next_step);
    etp_json_finding_evidence(w, f);
    write_thresholds(w, f);
    if (f->details_json) {
        etp_jw_key(w, "specific");
        etp_jw_raw(w, f->details_json, strlen(f->details_json));
    }
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_json_findings(etp_jw *w, const etp_finding_list *l)
{
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < l->count; i++)
        etp_json_finding(w, &l->items[i]);
    etp_jw_arr_end(w);
}
