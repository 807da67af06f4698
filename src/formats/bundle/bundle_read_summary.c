/* bundle_read_summary.c - what summary.json says about its run besides the
 * metrics: the method, the unit of its times, the device and runner
 * figures of its "device" member, and its findings' codes, statuses and
 * affected entity ids (etp_bundle_doc_summary). */
#include "formats/bundle/bundle_read_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A number member of a device figure: the writer's null stands for a value
 * that is not finite. */
static etp_status number(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *o,
                         const char *key, double *out)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        *out = NAN;
        return ETP_OK;
    }
    if (!json_is_number(v))
        return etp_bread_bad(r, rel, "%s\"%s\" is not a number", ctx, key);
    *out = json_number_value(v);
    return ETP_OK;
}

static etp_status flag(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *o,
                       const char *key, int *out)
{
    const json_t *v = json_object_get(o, key);
    if (v && !json_is_boolean(v))
        return etp_bread_bad(r, rel, "%s\"%s\" is not a boolean", ctx, key);
    *out = json_is_true(v);
    return ETP_OK;
}

static etp_status device_figure(etp_bundle_reader *r, const char *rel, const json_t *o, size_t i,
                                etp_bundle_device_figure *f)
{
    char ctx[48];
    snprintf(ctx, sizeof ctx, "device.figures[%zu]: ", i);
    if (!json_is_object(o))
        return etp_bread_bad(r, rel, "%snot an object", ctx);
    etp_status s = etp_bread_str(r, rel, ctx, o, "name", &f->name);
    if (!s && !f->name)
        s = etp_bread_bad(r, rel, "%sno \"name\"", ctx);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "unit", &f->unit);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "source", &f->source);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "log", &f->log);
    if (!s)
        s = flag(r, rel, ctx, o, "summable", &f->summable);
    if (!s)
        s = flag(r, rel, ctx, o, "per_inference", &f->per_inference);
    if (!s)
        s = etp_bread_uint(r, rel, ctx, o, "n", &f->n, NULL);
    static const char *const stats[] = {"total", "avg", "p50", "min", "max"};
    double *vals[] = {&f->total, &f->avg, &f->p50, &f->min, &f->max};
    for (size_t k = 0; !s && k < sizeof stats / sizeof stats[0]; k++)
        s = number(r, rel, ctx, o, stats[k], vals[k]);
    return s;
}

static etp_status finding(etp_bundle_reader *r, const char *rel, const json_t *o, size_t i,
                          etp_bundle_finding *f)
{
    char ctx[48];
    snprintf(ctx, sizeof ctx, "findings[%zu]: ", i);
    if (!json_is_object(o))
        return etp_bread_bad(r, rel, "%snot an object", ctx);
    etp_status s = etp_bread_str(r, rel, ctx, o, "code", &f->code);
    if (!s && !f->code)
        s = etp_bread_bad(r, rel, "%sno \"code\"", ctx);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "status", &f->status);
    if (!s && (!f->status || (strcmp(f->status, "fired") && strcmp(f->status, "withheld"))))
        s = etp_bread_bad(r, rel, "%s\"status\" is not \"fired\" or \"withheld\"", ctx);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "severity", &f->severity);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "message", &f->message);
    const json_t *ents = json_object_get(o, "affected_entities");
    if (s || !ents || json_is_null(ents))
        return s;
    if (!json_is_array(ents))
        return etp_bread_bad(r, rel, "%s\"affected_entities\" is not an array", ctx);
    size_t n = json_array_size(ents);
    const char **ids = etp_bread_calloc(r, n, sizeof *ids);
    if (!ids)
        return etp_bread_nomem(r);
    for (size_t k = 0; k < n; k++) {
        const json_t *e = json_array_get(ents, k);
        if (!json_is_object(e))
            return etp_bread_bad(r, rel, "%saffected_entities[%zu] is not an object", ctx, k);
        if ((s = etp_bread_str(r, rel, ctx, e, "id", &ids[k])))
            return s;
        if (!ids[k])
            return etp_bread_bad(r, rel, "%saffected_entities[%zu] has no \"id\"", ctx, k);
    }
    f->entity_count = (uint32_t)n;
    f->entity_ids = ids;
    return ETP_OK;
}

static etp_status findings(etp_bundle_reader *r, const char *rel, const json_t *root)
{
    etp_bundle_summary_info *si = &r->doc->summary;
    const json_t *arr = json_object_get(root, "findings");
    if (!arr || json_is_null(arr))
        return ETP_OK;
    if (!json_is_array(arr))
        return etp_bread_bad(r, rel, "\"findings\" is not an array");
    size_t n = json_array_size(arr);
    etp_bundle_finding *f = etp_bread_calloc(r, n, sizeof *f);
    if (!f)
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++) {
        etp_status s = finding(r, rel, json_array_get(arr, i), i, &f[i]);
        if (s)
            return s;
    }
    si->has_findings = 1;
    si->finding_count = (uint32_t)n;
    si->findings = f;
    return ETP_OK;
}

etp_status etp_bread_summary_info(etp_bundle_reader *r, const char *rel)
{
    etp_bundle_summary_info *si = &r->doc->summary;
    const json_t *root = r->doc->summary_json;
    const json_t *method = json_object_get(root, "method"), *units = json_object_get(root, "units");
    const json_t *device = json_object_get(root, "device");
    if (method && !json_is_object(method) && !json_is_null(method))
        return etp_bread_bad(r, rel, "\"method\" is not an object");
    if (units && !json_is_object(units))
        return etp_bread_bad(r, rel, "\"units\" is not an object");
    if (device && !json_is_object(device) && !json_is_null(device))
        return etp_bread_bad(r, rel, "\"device\" is not an object");
    etp_status s = etp_bread_str(r, rel, "method: ", method, "name", &si->method);
    if (!s)
        s = etp_bread_str(r, rel, "units: ", units, "time", &si->time_unit);
    if (!s)
        s = findings(r, rel, root);
    if (s)
        return s;
    const json_t *figs = json_object_get(device, "figures");
    if (!figs || json_is_null(figs))
        return ETP_OK;
    if (!json_is_array(figs))
        return etp_bread_bad(r, rel, "\"device.figures\" is not an array");
    size_t n = json_array_size(figs);
    etp_bundle_device_figure *f = etp_bread_calloc(r, n, sizeof *f);
    if (!f)
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++)
        if ((s = device_figure(r, rel, json_array_get(figs, i), i, &f[i])))
            return s;
    si->device_figure_count = (uint32_t)n;
    si->device_figures = f;
    return ETP_OK;
}
