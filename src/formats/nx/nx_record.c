/* nx_record.c - the VGF_NEURAL_STATISTICS wrapper JSON (schema versions 1
 * and 2), parsed strictly into an etp_nx_record with decoded blobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_record.h"
#include "formats/nx/nx_json.h"
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
    nxj_doc d;
} ctx;

static etp_status bad(ctx *c, const char *path, const char *what)
{
    return etp_error_set(c->err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "%s: VGF neural statistics: %s%s%s", c->where, path, *path ? ": " : "", what);
}

/* Member @p key of @p o (0: absent); a key given twice is an error. */
static etp_status member(ctx *c, uint32_t o, const char *path, const char *key, uint32_t *out)
{
    int dups;
    *out = nxj_get(&c->d, o, key, &dups);
    if (dups > 1) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, "is given twice");
    }
    return ETP_OK;
}

#define NODE(c, i) (&(c)->d.n[i])

static etp_status get_bool(ctx *c, uint32_t o, const char *path, const char *key, int *out)
{
    uint32_t v;
    if (member(c, o, path, key, &v))
        return ETP_E_FORMAT;
    if (!v || (NODE(c, v)->type != NXJ_TRUE && NODE(c, v)->type != NXJ_FALSE)) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, v ? "is not a boolean" : "is missing");
    }
    *out = NODE(c, v)->type == NXJ_TRUE;
    return ETP_OK;
}

static etp_status get_int(ctx *c, uint32_t o, const char *path, const char *key, int64_t lo, int64_t hi,
                          int64_t *out)
{
    uint32_t v;
    if (member(c, o, path, key, &v))
        return ETP_E_FORMAT;
    char p[160];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    if (!v || NODE(c, v)->type != NXJ_NUMBER || !NODE(c, v)->is_int)
        return bad(c, p, v ? "is not an integer" : "is missing");
    int64_t x = NODE(c, v)->ival;
    if (x < lo || x > hi)
        return bad(c, p, "is out of range");
    *out = (int64_t)x;
    return ETP_OK;
}

static etp_status get_str(ctx *c, uint32_t o, const char *path, const char *key, char **out)
{
    uint32_t v;
    if (member(c, o, path, key, &v))
        return ETP_E_FORMAT;
    if (!v || NODE(c, v)->type != NXJ_STRING) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, v ? "is not a string" : "is missing");
    }
    if (memchr(NODE(c, v)->str, 0, NODE(c, v)->len)) {
        char p[160];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
        return bad(c, p, "holds a NUL character");
    }
    *out = etp_strndup(NODE(c, v)->str, NODE(c, v)->len);
    if (!*out)
        return etp_error_set(c->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c->where);
    return ETP_OK;
}

static etp_status get_obj(ctx *c, uint32_t o, const char *key, uint32_t *out)
{
    uint32_t v;
    if (member(c, o, "", key, &v))
        return ETP_E_FORMAT;
    if (!v || NODE(c, v)->type != NXJ_OBJECT)
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

static etp_status parse_blob(ctx *c, uint32_t seg, const char *segpath, int which, etp_nx_blob *b)
{
    const char *name = etp_nx_blob_name(which);
    char path[160];
    snprintf(path, sizeof path, "%s.%s", segpath, name);
    uint32_t o;
    TRY(member(c, seg, segpath, name, &o));
    if (!o || NODE(c, o)->type != NXJ_OBJECT)
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
    uint32_t data;
    TRY(member(c, o, path, "data", &data));
    if (!data || NODE(c, data)->type != NXJ_STRING) {
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
    int rc = etp_nx_base64_decode(NODE(c, data)->str, NODE(c, data)->len, &b->data, &b->len, &at);
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

static etp_status parse_segment(ctx *c, uint32_t o, uint32_t i, etp_nx_segment *s)
{
    char path[64];
    snprintf(path, sizeof path, "segments[%u]", i);
    if (NODE(c, o)->type != NXJ_OBJECT)
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

static etp_status parse_v2(ctx *c, uint32_t root, etp_nx_record *r)
{
    uint32_t m = 0, t = 0, l = 0;
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

static etp_status parse_root(ctx *c, uint32_t root, etp_nx_record *r)
{
    if (NODE(c, root)->type != NXJ_OBJECT)
        return bad(c, "", "the metadata is not a JSON object");
    uint32_t schema;
    TRY(member(c, root, "", "schema", &schema));
    if (!schema || NODE(c, schema)->type != NXJ_STRING || NODE(c, schema)->len != sizeof ETP_NX_SCHEMA - 1 ||
        memcmp(NODE(c, schema)->str, ETP_NX_SCHEMA, sizeof ETP_NX_SCHEMA - 1))
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
    uint32_t segs;
    TRY(member(c, root, "", "segments", &segs));
    if (!segs || NODE(c, segs)->type != NXJ_ARRAY)
        return bad(c, "segments", segs ? "is not an array" : "is missing");
    size_t n = NODE(c, segs)->count;
    if (n > MAX_SEGMENTS)
        return etp_error_set(c->err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics: %zu segments (at most %u)", c->where, n, MAX_SEGMENTS);
    r->segments = calloc(n ? n : 1, sizeof *r->segments);
    if (!r->segments)
        return etp_error_set(c->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c->where);
    uint32_t item = NODE(c, segs)->first;
    for (size_t i = 0; i < n; i++, item = nxj_item_next(&c->d, item)) {
        r->segment_count = (uint32_t)i + 1;
        TRY(parse_segment(c, item, (uint32_t)i, &r->segments[i]));
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
    ctx c;
    memset(&c, 0, sizeof c);
    c.where = where ? where : "VGF_NEURAL_STATISTICS";
    c.err = err;
    if (n > MAX_TEXT)
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "%s: VGF neural statistics metadata of %zu bytes (at most 1 GiB)", c.where, n);
    if (n == 0)
        return bad(&c, "", "the metadata is empty");
    size_t pos = 0;
    const char *msg = NULL;
    int rc = nxj_parse((const char *)text, n, &c.d, &pos, &msg);
    if (rc) {
        nxj_free(&c.d);
        return etp_error_set(err, rc == -2 ? ETP_E_NOMEM : rc == -3 ? ETP_E_LIMIT : ETP_E_FORMAT, NULL,
                             ETP_NO_OFFSET, "%s: malformed VGF neural statistics metadata: %s (at byte %zu)",
                             c.where, msg, pos);
    }
    etp_nx_record *r = calloc(1, sizeof *r);
    if (!r) {
        nxj_free(&c.d);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", c.where);
    }
    etp_status st = parse_root(&c, 1, r);
    nxj_free(&c.d);
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
