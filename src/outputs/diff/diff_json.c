/* diff_json.c - a diff as JSON (schema etprof.diff v1,
 * schemas/json/diff.v1.schema.json) and as CSV: the same rows and values. */
#include <string.h>

#include "etprof/diff_io.h"
#include "util/csvw.h"
#include "util/jsonw.h"

static void kopt_str(etp_jw *w, const char *k, const char *v)
{
    if (v)
        etp_jw_kstr(w, k, v);
    else
        etp_jw_knull(w, k);
}

static void identity(etp_jw *w, const char *key, const etp_diff_identity *id)
{
    etp_jw_key(w, key);
    etp_jw_obj_begin(w);
    kopt_str(w, "label", id->label);
    kopt_str(w, "origin", id->origin);
    kopt_str(w, "program_sha256", id->program_sha256);
    kopt_str(w, "etrecord_sha256", id->etrecord_sha256);
    kopt_str(w, "method", id->method);
    kopt_str(w, "time_unit", etp_unit_name(id->time_unit));
    kopt_str(w, "tick_unit", id->has_tick_unit ? etp_unit_name(id->tick_unit) : NULL);
    etp_jw_kbool(w, "ticks_assumed", id->ticks_assumed);
    if (id->cpu_hz > 0)
        etp_jw_kdouble(w, "cpu_hz", id->cpu_hz);
    else
        etp_jw_knull(w, "cpu_hz");
    kopt_str(w, "status", id->status);
    kopt_str(w, "validity", id->validity);
    etp_jw_kuint(w, "executions", id->executions);
    etp_jw_obj_end(w);
}

static void kstat(etp_jw *w, const char *k, int has, double v)
{
    if (has)
        etp_jw_kdouble(w, k, v);
    else
        etp_jw_knull(w, k);
}

static void value(etp_jw *w, const char *key, const etp_diff_row *r, const etp_diff_value *v)
{
    etp_jw_key(w, key);
    if (!v->present) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    etp_jw_kbool(w, "available", v->available);
    if (!v->available)
        kopt_str(w, "reason", v->reason ? v->reason : "not measured");
    kstat(w, "value", v->available, v->value);
    kstat(w, "avg", v->has_avg, v->avg);
    kstat(w, "p50", v->has_p50, v->p50);
    kstat(w, "min", v->has_min, v->min);
    kstat(w, "max", v->has_max, v->max);
    etp_jw_kuint(w, "n", v->n);
    etp_jw_kuint(w, "samples", v->sample_count);
    etp_jw_kbool(w, "additive", v->additive);
    etp_jw_kbool(w, "shared", v->shared);
    kstat(w, "share_of_execute", v->has_share, v->share);
    if (r->kind == ETP_DIFF_OP_TYPE)
        etp_jw_kuint(w, "members", v->members);
    etp_jw_obj_end(w);
}

static void row(etp_jw *w, const etp_diff_row *r)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "kind", etp_diff_kind_name(r->kind));
    etp_jw_kstr(w, "key", r->key);
    kopt_str(w, "name", r->name);
    kopt_str(w, "op_type", r->op_type);
    kopt_str(w, "backend", r->backend);
    kopt_str(w, "unit", r->unit);
    kopt_str(w, "basis", r->basis);
    etp_jw_kbool(w, "matched", r->matched);
    value(w, "base", r, &r->base);
    value(w, "new", r, &r->new_);
    kstat(w, "delta", r->has_delta, r->delta);
    kstat(w, "ratio", r->has_ratio, r->ratio);
    kstat(w, "speedup", r->has_ratio && r->speedup > 0, r->speedup);
    etp_jw_key(w, "interval");
    if (r->has_ci) {
        etp_jw_obj_begin(w);
        etp_jw_kdouble(w, "low", r->ci_low);
        etp_jw_kdouble(w, "high", r->ci_high);
        etp_jw_obj_end(w);
    } else
        etp_jw_null(w);
    etp_jw_kbool(w, "significant", r->significant);
    kopt_str(w, "note", r->note);
    etp_jw_obj_end(w);
}

static void finding_side(etp_jw *w, const char *key, uint32_t count, const char *status, const char *message)
{
    etp_jw_key(w, key);
    if (!count) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "count", count);
    etp_jw_kstr(w, "status", status);
    kopt_str(w, "message", message);
    etp_jw_obj_end(w);
}

/* "findings": each code that appeared, disappeared or was kept, with the
 * entities either side names; null when a side's findings are unknown. */
static void findings(etp_jw *w, const etp_diff *d)
{
    etp_jw_key(w, "findings");
    if (!d->findings_compared) {
        etp_jw_null(w);
        return;
    }
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < d->finding_count; i++) {
        const etp_diff_finding *f = &d->findings[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "change", etp_diff_finding_change_name(f->change));
        etp_jw_kstr(w, "code", f->code);
        kopt_str(w, "severity", f->severity);
        finding_side(w, "base", f->base_count, f->base_status, f->base_message);
        finding_side(w, "new", f->new_count, f->new_status, f->new_message);
        etp_jw_key(w, "entities");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < f->entity_count; k++) {
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "id", f->entity_ids[k]);
            etp_jw_kbool(w, "base", (f->entity_in[k] & ETP_DIFF_IN_BASE) != 0);
            etp_jw_kbool(w, "new", (f->entity_in[k] & ETP_DIFF_IN_NEW) != 0);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

char *etp_diff_json(const etp_diff *d, const char *gate_json, size_t *len)
{
    return etp_diff_json_with_numerics(d, gate_json, NULL, len);
}

char *etp_diff_json_with_numerics(const etp_diff *d, const char *gate_json, const char *numerics_json,
                                  size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.diff");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "level", d->level_name);
    etp_jw_kstr(&w, "level_reason", d->level_reason);
    etp_jw_kstr(&w, "statistic", d->statistic_name);
    etp_jw_kstr(&w, "unit", d->unit);
    etp_jw_key(&w, "interval_method");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "method", "percentile bootstrap of the statistic's ratio new/base");
    etp_jw_kstr(&w, "generator", "splitmix64, seeded with seed XOR FNV-1a-64(\"KIND:KEY\")");
    etp_jw_kdouble(&w, "confidence", d->confidence);
    etp_jw_kuint(&w, "resamples", d->resamples);
    etp_jw_kuint(&w, "seed", d->seed);
    etp_jw_obj_end(&w);
    identity(&w, "base", &d->base);
    identity(&w, "new", &d->new_);
    etp_jw_key(&w, "warnings");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < d->warning_count; i++) {
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "code", d->warnings[i].code);
        etp_jw_kstr(&w, "message", d->warnings[i].message);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    if (gate_json) {
        etp_jw_key(&w, "gate");
        etp_jw_raw(&w, gate_json, strlen(gate_json));
    }
    findings(&w, d);
    if (numerics_json) {
        etp_jw_key(&w, "numerics");
        etp_jw_raw(&w, numerics_json, strlen(numerics_json));
    }
    etp_jw_key(&w, "rows");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < d->row_count; i++)
        row(&w, &d->rows[i]);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

static void cnum(etp_csvw *w, int has, double v)
{
    if (has)
        etp_csvw_double(w, v);
    else
        etp_csvw_empty(w);
}

static void cstr(etp_csvw *w, const char *s)
{
    if (s)
        etp_csvw_str(w, s);
    else
        etp_csvw_empty(w);
}

static void cside(etp_csvw *w, const etp_diff_value *v)
{
    etp_csvw_str(w, v->present ? "true" : "false");
    cnum(w, v->available, v->value);
    cnum(w, v->has_avg, v->avg);
    cnum(w, v->has_p50, v->p50);
    cnum(w, v->has_min, v->min);
    cnum(w, v->has_max, v->max);
    etp_csvw_uint(w, v->n);
    etp_csvw_uint(w, v->sample_count);
    etp_csvw_str(w, v->present ? (v->shared ? "true" : "false") : "");
    cnum(w, v->has_share, v->share);
}

char *etp_diff_csv(const etp_diff *d, size_t *len)
{
    etp_csvw w;
    etp_csvw_init(&w);
    static const char *const fixed[] = {"kind", "key", "name", "op_type", "backend", "unit", "matched"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        etp_csvw_str(&w, fixed[i]);
    static const char *const side_cols[] = {"present", "value", "avg", "p50", "min", "max",
                                            "n", "samples", "shared", "share_of_execute"};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof side_cols / sizeof side_cols[0]; i++) {
            char h[48];
            snprintf(h, sizeof h, "%s_%s", k ? "new" : "base", side_cols[i]);
            etp_csvw_str(&w, h);
        }
    static const char *const tail[] = {"delta", "ratio", "speedup", "ci_low", "ci_high",
                                       "significant", "note"};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        etp_csvw_str(&w, tail[i]);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < d->row_count; i++) {
        const etp_diff_row *r = &d->rows[i];
        etp_csvw_str(&w, etp_diff_kind_name(r->kind));
        etp_csvw_str(&w, r->key);
        cstr(&w, r->name);
        cstr(&w, r->op_type);
        cstr(&w, r->backend);
        cstr(&w, r->unit);
        etp_csvw_str(&w, r->matched ? "true" : "false");
        cside(&w, &r->base);
        cside(&w, &r->new_);
        cnum(&w, r->has_delta, r->delta);
        cnum(&w, r->has_ratio, r->ratio);
        cnum(&w, r->has_ratio && r->speedup > 0, r->speedup);
        cnum(&w, r->has_ci, r->ci_low);
        cnum(&w, r->has_ci, r->ci_high);
        etp_csvw_str(&w, r->significant ? "true" : "false");
        cstr(&w, r->note);
        etp_csvw_end_row(&w);
    }
    return etp_csvw_take(&w, len);
}
