/* bundle_read.c - read a published bundle back: its manifest, summary
 * metrics and run metadata here, the operators table in bundle_read_table.c
 * (see etprof/bundle.h). */
#include "formats/bundle/bundle_read_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bundle/bundle_verify.h"
#include "util/sha256.h"

/* ---- the manifest ----------------------------------------------------- */

static int cmp_artifact(const void *x, const void *y)
{
    return strcmp(((const etp_bundle_artifact_info *)x)->path,
                  ((const etp_bundle_artifact_info *)y)->path);
}

static etp_status read_inputs(etp_bundle_reader *r, const char *rel, const json_t *arr,
                              const char *where, uint32_t *count, const etp_bundle_input_info **out)
{
    *count = 0;
    *out = NULL;
    if (!arr || json_is_null(arr))
        return ETP_OK;
    if (!json_is_array(arr))
        return etp_bread_bad(r, rel, "\"%s\" is not an array", where);
    size_t n = json_array_size(arr);
    etp_bundle_input_info *in = etp_bread_calloc(r, n, sizeof *in);
    if (!in)
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[80];
        snprintf(ctx, sizeof ctx, "%s[%zu]: ", where, i);
        if (!json_is_object(o))
            return etp_bread_bad(r, rel, "%snot an object", ctx);
        int has_size;
        etp_status s = etp_bread_str(r, rel, ctx, o, "role", &in[i].role);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "name", &in[i].name);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "path", &in[i].path);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "sha256", &in[i].sha256);
        if (!s)
            s = etp_bread_uint(r, rel, ctx, o, "size_bytes", &in[i].size, &has_size);
        if (s)
            return s;
        in[i].has_digest = has_size && in[i].sha256;
    }
    *count = (uint32_t)n;
    *out = in;
    return ETP_OK;
}

static etp_status read_issues(etp_bundle_reader *r, const json_t *arr)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_manifest *m = &r->doc->manifest;
    if (!arr)
        return ETP_OK;
    if (!json_is_array(arr))
        return etp_bread_bad(r, rel, "\"issues\" is not an array");
    size_t n = json_array_size(arr);
    etp_bundle_issue *is = etp_bread_calloc(r, n, sizeof *is);
    if (!is)
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[40];
        snprintf(ctx, sizeof ctx, "issues[%zu]: ", i);
        if (!json_is_object(o))
            return etp_bread_bad(r, rel, "%snot an object", ctx);
        etp_status s = etp_bread_str(r, rel, ctx, o, "code", &is[i].code);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "severity", &is[i].severity);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "message", &is[i].message);
        if (!s)
            s = etp_bread_json_text(r, o, "context", &is[i].context_json);
        if (s)
            return s;
    }
    m->issue_count = (uint32_t)n;
    m->issues = is;
    return ETP_OK;
}

static etp_status read_artifact_list(etp_bundle_reader *r, const json_t *arr)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_manifest *m = &r->doc->manifest;
    if (!json_is_array(arr))
        return etp_bread_bad(r, rel, "\"artifacts\" is missing or not an array");
    size_t n = json_array_size(arr);
    if (n > ETP_VERIFY_ARTIFACTS_MAX)
        return etp_bread_bad(r, rel, "declares %zu artifacts; the limit is %u", n,
                             ETP_VERIFY_ARTIFACTS_MAX);
    etp_bundle_artifact_info *as = etp_bread_calloc(r, n, sizeof *as);
    if (!as)
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[40];
        snprintf(ctx, sizeof ctx, "artifacts[%zu]: ", i);
        if (!json_is_object(o))
            return etp_bread_bad(r, rel, "%snot an object", ctx);
        uint64_t version;
        etp_status s = etp_bread_str(r, rel, ctx, o, "path", &as[i].path);
        if (!s && !as[i].path)
            s = etp_bread_bad(r, rel, "%sno \"path\"", ctx);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "media_type", &as[i].media_type);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "role", &as[i].role);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "schema", &as[i].schema);
        if (!s)
            s = etp_bread_str(r, rel, ctx, o, "sha256", &as[i].sha256);
        if (!s)
            s = etp_bread_uint(r, rel, ctx, o, "size_bytes", &as[i].size, NULL);
        if (!s)
            s = etp_bread_uint(r, rel, ctx, o, "schema_version", &version, NULL);
        if (s)
            return s;
        as[i].schema_version = version > 1000000 ? 1000000 : (int)version;
    }
    qsort(as, n, sizeof *as, cmp_artifact);
    m->artifact_count = (uint32_t)n;
    m->artifacts = as;
    return ETP_OK;
}

static etp_status read_manifest_doc(etp_bundle_reader *r, const char *text, size_t len)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_doc *d = r->doc;
    etp_bundle_manifest *m = &d->manifest;
    etp_status s = etp_bread_parse_json(r, rel, text, len, &d->manifest_json);
    if (s)
        return s;
    char hex[ETP_SHA256_HEX];
    if (etp_sha256_buf(text, len, hex) || !(m->manifest_sha256 = etp_bread_strndup(r, hex, 64)))
        return etp_bread_nomem(r);
    const json_t *root = d->manifest_json;
    const json_t *schema = json_object_get(root, "schema");
    const json_t *ver = json_object_get(root, "schema_version");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), ETP_BUNDLE_SCHEMA) ||
        !json_is_integer(ver) || json_integer_value(ver) != ETP_BUNDLE_SCHEMA_VERSION)
        return etp_bread_bad(r, rel, "not an etprof result manifest of schema version %d",
                             ETP_BUNDLE_SCHEMA_VERSION);
    const json_t *tool = json_object_get(root, "tool");
    const json_t *prov = json_object_get(root, "provenance");
    if (tool && !json_is_object(tool))
        return etp_bread_bad(r, rel, "\"tool\" is not an object");
    if (prov && !json_is_object(prov))
        return etp_bread_bad(r, rel, "\"provenance\" is not an object");
    s = etp_bread_str(r, rel, "", root, "bundle_type", &m->bundle_type);
    if (!s)
        s = etp_bread_str(r, rel, "", root, "run_id", &m->run_id);
    if (!s)
        s = etp_bread_str(r, rel, "", root, "timestamp", &m->timestamp);
    if (!s)
        s = etp_bread_str(r, rel, "", root, "status", &m->status);
    if (!s)
        s = etp_bread_str(r, rel, "", root, "validity", &m->validity);
    if (!s)
        s = etp_bread_str(r, rel, "tool: ", tool, "name", &m->tool_name);
    if (!s)
        s = etp_bread_str(r, rel, "tool: ", tool, "version", &m->tool_version);
    if (!s)
        s = read_issues(r, json_object_get(root, "issues"));
    if (!s)
        s = read_artifact_list(r, json_object_get(root, "artifacts"));
    if (!s)
        s = read_inputs(r, rel, json_object_get(prov, "inputs"), "provenance.inputs",
                        &m->input_count, &m->inputs);
    if (!s)
        s = etp_bread_json_text(r, prov, "options", &m->options_json);
    if (!s)
        s = etp_bread_str(r, rel, "provenance: ", prov, "options_sha256", &m->options_sha256);
    return s;
}

/* ---- summary.json ----------------------------------------------------- */

static etp_status read_metric(etp_bundle_reader *r, const char *rel, const json_t *o, size_t i,
                              etp_bundle_metric *mt)
{
    char ctx[40];
    snprintf(ctx, sizeof ctx, "metrics[%zu]: ", i);
    if (!json_is_object(o))
        return etp_bread_bad(r, rel, "%snot an object", ctx);
    const char *availability;
    etp_status s = etp_bread_str(r, rel, ctx, o, "name", &mt->name);
    if (!s && !mt->name)
        s = etp_bread_bad(r, rel, "%sno \"name\"", ctx);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "unit", &mt->unit);
    if (!s)
        s = etp_bread_str(r, rel, ctx, o, "availability", &availability);
    if (s)
        return s;
    if (availability && !strcmp(availability, "unavailable"))
        return etp_bread_str(r, rel, ctx, o, "reason", &mt->reason);
    mt->available = 1;
    const json_t *v = json_object_get(o, "value");
    const json_t *add = json_object_get(o, "additive");
    if (json_is_null(v))
        mt->value = NAN; /* the writer's form of a non-finite value */
    else if (json_is_number(v))
        mt->value = json_number_value(v);
    else
        return etp_bread_bad(r, rel, "%s\"value\" is missing or not a number", ctx);
    if (add && !json_is_boolean(add))
        return etp_bread_bad(r, rel, "%s\"additive\" is not a boolean", ctx);
    mt->additive = json_is_true(add);
    s = etp_bread_str(r, rel, ctx, o, "aggregation", &mt->aggregation);
    if (!s)
        s = etp_bread_uint(r, rel, ctx, o, "samples", &mt->samples, NULL);
    return s;
}

static etp_status read_summary(etp_bundle_reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    etp_status s = etp_bread_artifact_json(r, a, &d->summary_json);
    if (s)
        return s;
    const json_t *arr = json_object_get(d->summary_json, "metrics");
    if (!arr)
        return etp_bread_summary_info(r, a->path);
    if (!json_is_array(arr))
        return etp_bread_bad(r, a->path, "\"metrics\" is not an array");
    size_t n = json_array_size(arr);
    if (!(d->metrics = etp_bread_calloc(r, n, sizeof *d->metrics)))
        return etp_bread_nomem(r);
    for (size_t i = 0; i < n; i++)
        if ((s = read_metric(r, a->path, json_array_get(arr, i), i, &d->metrics[i])))
            return s;
    d->metric_count = (uint32_t)n;
    return etp_bread_summary_info(r, a->path);
}

/* ---- run_metadata.json ------------------------------------------------ */

static etp_status read_run_metadata(etp_bundle_reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    etp_bundle_run_metadata *m = &d->meta;
    etp_status s = etp_bread_artifact_json(r, a, &d->meta_json);
    if (s)
        return s;
    const json_t *root = d->meta_json, *tool = json_object_get(root, "tool");
    if (tool && !json_is_object(tool))
        return etp_bread_bad(r, a->path, "\"tool\" is not an object");
    s = etp_bread_str(r, a->path, "", root, "run_id", &m->run_id);
    if (!s)
        s = etp_bread_str(r, a->path, "", root, "timestamp", &m->timestamp);
    if (!s)
        s = etp_bread_str(r, a->path, "", root, "command_line", &m->command_line);
    if (!s)
        s = etp_bread_str(r, a->path, "tool: ", tool, "name", &m->tool_name);
    if (!s)
        s = etp_bread_str(r, a->path, "tool: ", tool, "version", &m->tool_version);
    if (!s)
        s = etp_bread_json_text(r, root, "options", &m->options_json);
    if (!s)
        s = read_inputs(r, a->path, json_object_get(root, "inputs"), "inputs", &m->input_count,
                        &m->inputs);
    if (!s)
        s = etp_bread_labels(r, a->path, root);
    return s;
}

/* ---- entry points ----------------------------------------------------- */

static etp_status read_content(etp_bundle_reader *r)
{
    const etp_bundle_doc *d = r->doc;
    const etp_bundle_artifact_info *a;
    etp_status s = ETP_OK;
    if ((a = etp_bundle_doc_artifact(d, "summary.json")))
        s = read_summary(r, a);
    if (!s && (a = etp_bundle_doc_artifact(d, "operators.csv")))
        s = etp_bread_csv_table(r, a, &r->doc->operators);
    else if (!s && (a = etp_bundle_doc_artifact(d, "operators.json")))
        s = etp_bread_operators_json(r, a);
    if (!s && (a = etp_bundle_doc_artifact(d, "run_metadata.json")))
        s = read_run_metadata(r, a);
    if (!s && (a = etp_bundle_doc_artifact(d, "detailed/figures.csv")))
        s = etp_bread_csv_table(r, a, &r->doc->figures);
    return s;
}

/* The verifier's first problem as the error; the report says the rest. */
static etp_status not_verified(const char *dir, const etp_verify_report *rep, etp_error *err)
{
    (void)dir; /* each problem starts with DIR/PATH */
    if (rep->problem_count == 1)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "bundle does not verify: %s",
                             rep->problems[0]);
    return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "bundle does not verify: %s (and %u more problems)", rep->problems[0],
                         rep->problem_count - 1);
}

/* Open @p dir; with @p report, verify first and hand the report back. */
static etp_status open_doc(const char *dir, etp_verify_report **report, etp_bundle_doc **out,
                           etp_error *err)
{
    *out = NULL;
    if (report)
        *report = NULL;
    if (!dir || !*dir)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no bundle directory given");
    char *text = NULL;
    size_t len = 0;
    if (report) {
        etp_status s = etp_bundle_verify_keep(dir, report, &text, &len, err);
        if (s)
            return s;
        if ((*report)->problem_count) {
            free(text);
            return not_verified(dir, *report, err);
        }
    }
    etp_bundle_doc *d = calloc(1, sizeof *d);
    etp_bundle_reader r = {d, -1, report != NULL, err};
    if (!d || !(d->dir = strdup(dir))) {
        free(d);
        free(text);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    etp_status s = ETP_OK;
    r.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r.dirfd < 0)
        s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET, "cannot open the bundle directory: %s",
                          strerror(errno));
    if (!s && !text) {
        /* Unverified: the manifest is still read as the verifier reads it. */
        etp_verify_report *rep = calloc(1, sizeof *rep);
        int oom = 0;
        if (!rep)
            s = etp_bread_nomem(&r);
        else if (!(text = etp_bundle_read_manifest(r.dirfd, dir, rep, &len, &oom)))
            s = oom || !rep->problem_count
                    ? etp_bread_nomem(&r)
                    : etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "%s", rep->problems[0]);
        etp_verify_report_free(rep);
    }
    if (!s)
        s = read_manifest_doc(&r, text, len);
    if (!s)
        s = read_content(&r);
    free(text);
    if (r.dirfd >= 0)
        close(r.dirfd);
    if (s) {
        etp_bundle_close(d);
        return s;
    }
    *out = d;
    return ETP_OK;
}

etp_status etp_bundle_open(const char *dir, int verify, etp_bundle_doc **out, etp_error *err)
{
    etp_verify_report *rep = NULL;
    etp_status s = open_doc(dir, verify ? &rep : NULL, out, err);
    etp_verify_report_free(rep);
    return s;
}

etp_status etp_bundle_open_report(const char *dir, etp_bundle_doc **out, etp_verify_report **report,
                                  etp_error *err)
{
    return open_doc(dir, report, out, err);
}

void etp_bundle_close(etp_bundle_doc *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->owned_count; i++)
        free(b->owned[i]);
    free(b->owned);
    json_decref(b->manifest_json);
    json_decref(b->summary_json);
    json_decref(b->meta_json);
    json_decref(b->operators_json);
    free(b->dir);
    free(b);
}

const char *etp_bundle_doc_dir(const etp_bundle_doc *b) { return b->dir; }

const etp_bundle_manifest *etp_bundle_doc_manifest(const etp_bundle_doc *b) { return &b->manifest; }

const etp_bundle_artifact_info *etp_bundle_doc_artifact(const etp_bundle_doc *b, const char *path)
{
    etp_bundle_artifact_info key = {.path = path};
    if (!b->manifest.artifact_count)
        return NULL;
    return bsearch(&key, b->manifest.artifacts, b->manifest.artifact_count, sizeof key,
                   cmp_artifact);
}

const etp_bundle_metric *etp_bundle_doc_metrics(const etp_bundle_doc *b, uint32_t *count)
{
    *count = b->metric_count;
    return b->metric_count ? b->metrics : NULL;
}

const etp_bundle_metric *etp_bundle_doc_metric(const etp_bundle_doc *b, const char *name)
{
    for (uint32_t i = 0; i < b->metric_count; i++)
        if (!strcmp(b->metrics[i].name, name))
            return &b->metrics[i];
    return NULL;
}

const etp_bundle_table *etp_bundle_doc_operators(const etp_bundle_doc *b) { return &b->operators; }

int etp_bundle_table_column(const etp_bundle_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->column_count; i++)
        if (!strcmp(t->columns[i], name))
            return (int)i;
    return -1;
}

const etp_bundle_cell *etp_bundle_table_cell(const etp_bundle_table *t, uint32_t row, uint32_t col)
{
    return &t->cells[(size_t)row * t->column_count + col];
}

const etp_bundle_run_metadata *etp_bundle_doc_run_metadata(const etp_bundle_doc *b)
{
    return &b->meta;
}

const etp_bundle_summary_info *etp_bundle_doc_summary(const etp_bundle_doc *b) { return &b->summary; }

const etp_bundle_table *etp_bundle_doc_figure_samples(const etp_bundle_doc *b) { return &b->figures; }
