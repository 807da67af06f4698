/* vgf_stats.c - the VGF_NEURAL_STATISTICS wrapper JSON (schema versions 1
 * and 2), parsed strictly into an etp_nx_record with decoded blobs. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/vgf_stats.h"
#include "util/str.h"

#define MAX_SEGMENTS 4096u
#define MAX_TEXT (1ull << 30)

int etp_nx_claims_schema(const uint8_t *text, size_t n)
{
    static const char s[] = ETP_NX_SCHEMA;
    size_t k = sizeof s - 1;
    if (!text || n < k)
        return 0;
    for (size_t i = 0; i + k <= n; i++)
        if (text[i] == 'e' && !memcmp(text + i, s, k))
            return 1;
    return 0;
}

/* The parse state: the error target and where we are. */
typedef struct ctx {
    const char *where;
    etp_error *err;
} ctx;

static etp_status bad(ctx *c, const char *path, const char *what)
{
    return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "%s: VGF neural statistics: %s%s%s", c->where, path, *path ? ": " : "", what);
}

static etp_status get_bool(ctx *c, json_t *o, const char *path, const char *key, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_boolean(v)) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, v ? "is not a boolean" : "is missing");
    }
    *out = json_is_true(v);
    return ETP_OK;
}

static etp_status get_int(ctx *c, json_t *o, const char *path, const char *key, int64_t lo, int64_t hi,
                          int64_t *out)
{
    json_t *v = json_object_get(o, key);
    char p[160];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    if (!v || !json_is_integer(v))
        return bad(c, p, v ? "is not an integer" : "is missing");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return bad(c, p, "is out of range");
    *out = (int64_t)x;
    return ETP_OK;
}

static etp_status get_str(ctx *c, json_t *o, const char *path, const char *key, char **out)
{
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_string(v)) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, v ? "is not a string" : "is missing");
    }
    *out = etp_strndup(json_string_value(v), json_string_length(v));
    if (!*out)
        return etp_error_set(c->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c->where);
    return ETP_OK;
}

static etp_status get_obj(ctx *c, json_t *o, const char *key, json_t **out)
{
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_object(v))
        return bad(c, key, v ? "is not an object" : "is missing (schema_version 2 requires it)");
    *out = v;
    return ETP_OK;
}

#define TRY(x)                                                                                   \
    do {                                                                                         \
        etp_status st_ = (x);                                                                    \
        if (st_ != ETP_OK)                                                                       \
            return st_;                                                                          \
    } while (0)

static etp_status parse_blob(ctx *c, json_t *seg, const char *segpath, int which, etp_nx_blob *b)
{
    const char *name = etp_nx_blob_name(which);
    char path[160];
    snprintf(path, sizeof path, "%s.%s", segpath, name);
    json_t *o = json_object_get(seg, name);
    if (!o || !json_is_object(o))
        return bad(c, path, o ? "is not an object" : "is missing");
    int64_t vr, size;
    char *enc = NULL;
    TRY(get_bool(c, o, path, "available", &b->available));
    TRY(get_bool(c, o, path, "is_text", &b->is_text));
    TRY(get_int(c, o, path, "vulkan_result", INT32_MIN, INT32_MAX, &vr));
    TRY(get_int(c, o, path, "size", 0, INT64_MAX, &size));
    TRY(get_str(c, o, path, "reason", &b->reason));
    b->vulkan_result = (int32_t)vr;
    b->size = (uint64_t)size;
    json_t *data = json_object_get(o, "data");
    if (!data || !json_is_string(data)) {
        snprintf(path + strlen(path), sizeof path - strlen(path), ".data");
        return bad(c, path, data ? "is not a string" : "is missing");
    }
    TRY(get_str(c, o, path, "encoding", &enc));
    int base64 = !strcmp(enc, "base64");
    free(enc);
    if (!b->available)
        return ETP_OK; /* unavailable: no bytes, whatever data says (reference reader) */
    if (!base64)
        return bad(c, path, "encoding is not \"base64\"");
    size_t at = 0;
    int rc = etp_nx_base64_decode(json_string_value(data), json_string_length(data), &b->data, &b->len, &at);
    if (rc == -2)
        return etp_error_set(c->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c->where);
    if (rc < 0)
        return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: %s.data: invalid base64 at character %zu",
                             c->where, path, at);
    if ((uint64_t)b->len != b->size)
        return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: %s: decoded %zu bytes, size says %llu", c->where,
                             path, b->len, (unsigned long long)b->size);
    return ETP_OK;
}

static etp_status parse_segment(ctx *c, json_t *o, uint32_t i, etp_nx_segment *s)
{
    char path[64];
    snprintf(path, sizeof path, "segments[%u]", i);
    if (!json_is_object(o))
        return bad(c, path, "is not an object");
    TRY(get_int(c, o, path, "segment_id", -1, INT32_MAX, &s->segment_id));
    TRY(get_bool(c, o, path, "is_data_graph_pipeline", &s->is_data_graph_pipeline));
    TRY(get_bool(c, o, path, "statistics_bind_point_available", &s->bind_point_available));
    TRY(get_bool(c, o, path, "statistics_memory_host_visible", &s->host_visible));
    TRY(get_bool(c, o, path, "statistics_memory_host_coherent", &s->host_coherent));
    TRY(get_str(c, o, path, "statistics_bind_point_reason", &s->bind_point_reason));
    for (int k = 0; k < ETP_NX_BLOBS; k++)
        TRY(parse_blob(c, o, path, k, &s->blob[k]));
    return ETP_OK;
}

static etp_status parse_v2(ctx *c, json_t *root, etp_nx_record *r)
{
    json_t *m = NULL, *t = NULL, *l = NULL;
    TRY(get_obj(c, root, "statistics_mode", &m));
    TRY(get_obj(c, root, "target", &t));
    TRY(get_obj(c, root, "counter_layout", &l));
    TRY(get_int(c, m, "statistics_mode", "executorch_index", INT32_MIN, INT32_MAX, &r->mode_index));
    TRY(get_int(c, m, "statistics_mode", "vulkan_value", INT32_MIN, INT32_MAX, &r->vulkan_value));
    TRY(get_str(c, m, "statistics_mode", "vulkan_name", &r->vulkan_name));
    int64_t v;
    TRY(get_bool(c, t, "target", "available", &r->target_available));
    TRY(get_str(c, t, "target", "device_name", &r->device_name));
    TRY(get_int(c, t, "target", "vendor_id", 0, UINT32_MAX, &v));
    r->vendor_id = (uint64_t)v;
    TRY(get_int(c, t, "target", "device_id", 0, UINT32_MAX, &v));
    r->device_id = (uint64_t)v;
    TRY(get_int(c, t, "target", "driver_version", 0, UINT32_MAX, &v));
    r->driver_version = (uint64_t)v;
    TRY(get_bool(c, l, "counter_layout", "available", &r->layout_available));
    TRY(get_str(c, l, "counter_layout", "schema_id", &r->layout_schema_id));
    TRY(get_int(c, l, "counter_layout", "schema_version", INT32_MIN, INT32_MAX, &r->layout_schema_version));
    TRY(get_str(c, l, "counter_layout", "endianness", &r->endianness));
    TRY(get_str(c, l, "counter_layout", "word_type", &r->word_type));
    TRY(get_int(c, l, "counter_layout", "words_per_task", INT32_MIN, INT32_MAX, &r->words_per_task));
    TRY(get_int(c, l, "counter_layout", "leading_block_count", INT32_MIN, INT32_MAX, &r->leading_block_count));
    TRY(get_str(c, l, "counter_layout", "reason", &r->layout_reason));
    r->has_v2_settings = 1;
    return ETP_OK;
}

static etp_status parse_root(ctx *c, json_t *root, etp_nx_record *r)
{
    if (!json_is_object(root))
        return bad(c, "", "the metadata is not a JSON object");
    json_t *schema = json_object_get(root, "schema");
    if (!schema || !json_is_string(schema) || strcmp(json_string_value(schema), ETP_NX_SCHEMA))
        return bad(c, "schema", "is not \"" ETP_NX_SCHEMA "\"");
    int64_t ver;
    TRY(get_int(c, root, "", "schema_version", INT32_MIN, INT32_MAX, &ver));
    if (ver != 1 && ver != 2)
        return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: schema_version %lld is not supported (1 or 2)",
                             c->where, (long long)ver);
    r->schema_version = (int)ver;
    int available;
    TRY(get_str(c, root, "", "backend", &r->backend));
    TRY(get_str(c, root, "", "api", &r->api));
    TRY(get_str(c, root, "", "event_name", &r->event_name));
    TRY(get_bool(c, root, "", "api_available", &r->api_available));
    TRY(get_bool(c, root, "", "data_available", &r->data_available));
    TRY(get_bool(c, root, "", "available", &available));
    TRY(get_str(c, root, "", "reason", &r->reason));
    if (available != r->data_available)
        return bad(c, "available", "differs from data_available (the writer sets both from one value)");
    if (ver == 2)
        TRY(parse_v2(c, root, r));
    json_t *segs = json_object_get(root, "segments");
    if (!segs || !json_is_array(segs))
        return bad(c, "segments", segs ? "is not an array" : "is missing");
    size_t n = json_array_size(segs);
    if (n > MAX_SEGMENTS)
        return etp_error_set(c->err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: %zu segments (at most %u)", c->where, n, MAX_SEGMENTS);
    r->segments = calloc(n ? n : 1, sizeof *r->segments);
    if (!r->segments)
        return etp_error_set(c->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c->where);
    for (size_t i = 0; i < n; i++) {
        r->segment_count = (uint32_t)i + 1;
        TRY(parse_segment(c, json_array_get(segs, i), (uint32_t)i, &r->segments[i]));
    }
    r->segment_count = (uint32_t)n;
    /* Segment ids name results: two segments with one id would merge. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (r->segments[i].segment_id == r->segments[j].segment_id)
                return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                     "%s: VGF neural statistics: segments[%zu] and segments[%zu] have the "
                                     "same segment_id %lld",
                                     c->where, i, j, (long long)r->segments[i].segment_id);
    return ETP_OK;
}

etp_status etp_nx_record_parse(const uint8_t *text, size_t n, const char *where, etp_nx_record **out,
                               etp_error *err)
{
    *out = NULL;
    ctx c = {where ? where : "VGF_NEURAL_STATISTICS", err};
    if (n > MAX_TEXT)
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics metadata of %zu bytes (at most 1 GiB)", c.where, n);
    if (n == 0)
        return bad(&c, "", "the metadata is empty");
    json_error_t je;
    json_t *root = json_loadb((const char *)text, n, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: malformed VGF neural statistics metadata: %s (at byte %d)", c.where,
                             je.text, je.position);
    etp_nx_record *r = calloc(1, sizeof *r);
    if (!r) {
        json_decref(root);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c.where);
    }
    etp_status st = parse_root(&c, root, r);
    json_decref(root);
    if (st != ETP_OK) {
        etp_nx_record_free(r);
        return st;
    }
    *out = r;
    return ETP_OK;
}

void etp_nx_record_free(etp_nx_record *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->segment_count; i++) {
        etp_nx_segment *s = &r->segments[i];
        free(s->bind_point_reason);
        for (int k = 0; k < ETP_NX_BLOBS; k++) {
            free(s->blob[k].reason);
            free(s->blob[k].data);
        }
    }
    free(r->segments);
    free(r->backend);
    free(r->api);
    free(r->event_name);
    free(r->reason);
    free(r->vulkan_name);
    free(r->device_name);
    free(r->layout_schema_id);
    free(r->endianness);
    free(r->word_type);
    free(r->layout_reason);
    free(r);
}
