/* vgf.c - VGF reader: header, section bounds, the three verified
 * FlatBuffers sections, the constants (raw CONST00 or legacy table), the
 * joins between them, and each module's SPIR-V (vgf_spirv.c). */
#include "etprof/vgf.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/blob.h"
#include "formats/flatbuffers/fb.h"
#include "formats/flatbuffers/schema_vgf.h"
#include "formats/vgf/vgf_internal.h"
#include "formats/vgf/vgf_spirv.h"


/* What etp_vgf_from_memory() allocates: the public part and its internals. */
typedef struct vgf_box {
    etp_vgf pub;
    etp_vgf_internal in;
} vgf_box;

#define VGF_HEADER 128u
static const uint8_t old_magic[4] = {0xC3, 0xD2, 0xE1, 0xF0};
static const char *const section_names[4] = {"module", "model sequence", "resource", "constant"};

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

int etp_vgf_detect(const uint8_t *h, size_t n)
{
    if (n < 12)
        return 0;
    if (memcmp(h, "VGF1", 4) != 0 && memcmp(h, old_magic, 4) != 0)
        return 0;
    return h[8] == 0;
}

int etp_vgf_is_delegate(const etp_delegate *d)
{
    return d && d->id && !strcmp(d->id, "VgfBackend") && d->processed &&
           etp_vgf_detect(d->processed, (size_t)d->processed_size);
}

/* Report at VGF offset @p pos. */
#define FAIL(v, err, code, pos, ...)                                                           \
    etp_error_set(err, code, (v)->file, (v)->file_offset + (int64_t)(pos), __VA_ARGS__)

static void *alloc_n(size_t n, size_t elem) { return n ? calloc(n, elem) : NULL; }

typedef struct section {
    fb_buf b;
    uint64_t off;   /* VGF offset of the section */
    uint32_t root;
} section;

static etp_status open_section(etp_vgf *v, const uint8_t *data, int k, const fb_table *schema,
                               section *s, etp_error *err)
{
    const etp_vgf_section *sec = &v->sections[k];
    if (sec->size > UINT32_MAX)
        return FAIL(v, err, ETP_E_LIMIT, 16 + 16 * k, "%s section of %llu bytes is too large",
                    section_names[k], (unsigned long long)sec->size);
    if (sec->size < 8)
        return FAIL(v, err, ETP_E_FORMAT, 16 + 16 * k,
                    "%s section of %llu bytes is too small for a FlatBuffer", section_names[k],
                    (unsigned long long)sec->size);
    s->b.p = data + sec->offset;
    s->b.size = (uint32_t)sec->size;
    s->off = sec->offset;
    etp_status st = fb_verify(&s->b, 0, schema, fb_default_limits(s->b.size), v->file,
                              v->file_offset + (int64_t)sec->offset, &s->root, err);
    v->in->roots[k] = st ? 0 : s->root;
    return st;
}

static etp_status nomem(const etp_vgf *v, etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, v->file, ETP_NO_OFFSET, "out of memory decoding VGF");
}

static const char *str_or_empty(const fb_buf *b, uint32_t pos)
{
    const char *s = fb_str(b, pos, NULL);
    return s ? s : "";
}

static etp_status read_bindings(etp_vgf *v, const fb_buf *b, uint32_t vec, etp_vgf_binding **out,
                                uint32_t *count, etp_error *err)
{
    *count = fb_vec_len(b, vec);
    if (!*count)
        return ETP_OK;
    if (!(*out = alloc_n(*count, sizeof **out)))
        return nomem(v, err);
    for (uint32_t i = 0; i < *count; i++) {
        uint32_t t = fb_vec_ref(b, vec, i);
        (*out)[i].binding = fb_get_u32(b, t, VGF_BIND_BINDING, 0);
        (*out)[i].mrt_index = fb_get_u32(b, t, VGF_BIND_MRT, 0);
    }
    return ETP_OK;
}

static etp_status read_modules(etp_vgf *v, const uint8_t *data, etp_error *err)
{
    section s;
    etp_status st = open_section(v, data, 0, &etp_schema_vgf_modules, &s, err);
    if (st)
        return st;
    const fb_buf *b = &s.b;
    uint32_t vec = fb_ref(b, s.root, VGF_MT_MODULES);
    v->module_count = fb_vec_len(b, vec);
    if (v->module_count && !(v->modules = alloc_n(v->module_count, sizeof *v->modules)))
        return nomem(v, err);
    for (uint32_t i = 0; i < v->module_count; i++) {
        uint32_t t = fb_vec_ref(b, vec, i);
        etp_vgf_module *m = &v->modules[i];
        m->type = fb_get_u8(b, t, VGF_MOD_TYPE, 0);
        m->name = str_or_empty(b, fb_ref(b, t, VGF_MOD_NAME));
        m->entry_point = str_or_empty(b, fb_ref(b, t, VGF_MOD_ENTRY));
        m->code_kind = fb_get_u8(b, t, VGF_MOD_CODE_TYPE, 0);
        uint32_t code = fb_ref(b, t, VGF_MOD_CODE);
        m->has_code = code != 0 && m->code_kind != 0;
        if (!m->has_code)
            continue;
        if (m->code_kind == ETP_VGF_CODE_SPIRV) {
            uint32_t words = fb_ref(b, code, VGF_CODE_WORDS);
            m->spirv_words = fb_vec_len(b, words);
            m->spirv_offset = s.off + (words ? words + 4 : 0);
            if (!m->spirv_words)
                continue;
            /* An aligned copy: the words may sit at any address in the input. */
            uint32_t *copy = malloc((size_t)m->spirv_words * 4);
            if (!copy)
                return nomem(v, err);
            memcpy(copy, fb_vec_data(b, words), (size_t)m->spirv_words * 4);
            m->spirv = copy;
            st = etp_spv_decode(copy, m->spirv_words, v->file,
                                v->file_offset + (int64_t)m->spirv_offset, &m->spv, err);
            if (st)
                return st;
        } else if (m->code_kind == ETP_VGF_CODE_GLSL || m->code_kind == ETP_VGF_CODE_HLSL) {
            uint32_t len;
            m->source = fb_str(b, fb_ref(b, code, VGF_CODE_SOURCE), &len);
            m->source_len = m->source ? len : 0;
        }
    }
    return ETP_OK;
}

static etp_status check_bindings(etp_vgf *v, const etp_vgf_binding *bs, uint32_t n,
                                 const char *what, uint32_t seg, etp_error *err)
{
    for (uint32_t k = 0; k < n; k++)
        if (bs[k].mrt_index >= v->resource_count)
            return FAIL(v, err, ETP_E_FORMAT, v->sections[1].offset,
                        "%s %u of segment %u refers to resource %u, but the resource table has "
                        "%u entries", what, k, seg, bs[k].mrt_index, v->resource_count);
    return ETP_OK;
}

static etp_status read_sequence(etp_vgf *v, const uint8_t *data, etp_error *err)
{
    section s;
    etp_status st = open_section(v, data, 1, &etp_schema_vgf_sequence, &s, err);
    if (st)
        return st;
    const fb_buf *b = &s.b;
    uint32_t segs = fb_ref(b, s.root, VGF_SEQ_SEGMENTS);
    v->segment_count = fb_vec_len(b, segs);
    if (v->segment_count && !(v->segments = alloc_n(v->segment_count, sizeof *v->segments)))
        return nomem(v, err);
    for (uint32_t i = 0; i < v->segment_count; i++) {
        uint32_t t = fb_vec_ref(b, segs, i);
        etp_vgf_segment *sg = &v->segments[i];
        sg->type = fb_get_u8(b, t, VGF_SEG_TYPE, 0);
        sg->name = str_or_empty(b, fb_ref(b, t, VGF_SEG_NAME));
        sg->module_index = fb_get_u32(b, t, VGF_SEG_MODULE, 0);
        if (sg->module_index >= v->module_count)
            return FAIL(v, err, ETP_E_FORMAT, s.off + t,
                        "segment %u refers to module %u, but the file has %u modules", i,
                        sg->module_index, v->module_count);
        uint32_t sets = fb_ref(b, t, VGF_SEG_SETS);
        sg->set_count = fb_vec_len(b, sets);
        if (sg->set_count && !(sg->sets = alloc_n(sg->set_count, sizeof *sg->sets)))
            return nomem(v, err);
        for (uint32_t k = 0; k < sg->set_count; k++) {
            uint32_t st_t = fb_vec_ref(b, sets, k);
            etp_vgf_set *set = &sg->sets[k];
            set->set_index = fb_get_u32(b, st_t, VGF_SET_INDEX, ETP_VGF_UNSET);
            set->effective_index = set->set_index == ETP_VGF_UNSET ? k : set->set_index;
            if ((st = read_bindings(v, b, fb_ref(b, st_t, VGF_SET_BINDINGS), &set->bindings,
                                    &set->binding_count, err)))
                return st;
        }
        if ((st = read_bindings(v, b, fb_ref(b, t, VGF_SEG_INPUTS), &sg->inputs,
                                &sg->input_count, err)) ||
            (st = read_bindings(v, b, fb_ref(b, t, VGF_SEG_OUTPUTS), &sg->outputs,
                                &sg->output_count, err)))
            return st;
        uint32_t cs = fb_ref(b, t, VGF_SEG_CONSTANTS);
        sg->constant_count = fb_vec_len(b, cs);
        if (sg->constant_count) {
            if (!(sg->constants = malloc((size_t)sg->constant_count * 4)))
                return nomem(v, err);
            memcpy(sg->constants, fb_vec_data(b, cs), (size_t)sg->constant_count * 4);
        }
        uint32_t ds = fb_ref(b, t, VGF_SEG_DISPATCH);
        uint32_t nds = fb_vec_len(b, ds);
        if (nds) {
            if (nds != 3)
                return FAIL(v, err, ETP_E_FORMAT, s.off + ds,
                            "segment %u has a dispatch shape of %u values (3 expected)", i, nds);
            sg->has_dispatch_shape = 1;
            memcpy(sg->dispatch_shape, fb_vec_data(b, ds), 12);
        }
        uint32_t pr = fb_ref(b, t, VGF_SEG_PUSH);
        sg->push_range_count = fb_vec_len(b, pr);
        if (sg->push_range_count &&
            !(sg->push_ranges = alloc_n(sg->push_range_count, sizeof *sg->push_ranges)))
            return nomem(v, err);
        for (uint32_t k = 0; k < sg->push_range_count; k++) {
            uint32_t pt = fb_vec_ref(b, pr, k);
            sg->push_ranges[k].stage_flags = fb_get_u32(b, pt, VGF_PUSH_STAGES, 0);
            sg->push_ranges[k].offset = fb_get_u32(b, pt, VGF_PUSH_OFFSET, 0);
            sg->push_ranges[k].size = fb_get_u32(b, pt, VGF_PUSH_SIZE, 0);
        }
    }
    if ((st = read_bindings(v, b, fb_ref(b, s.root, VGF_SEQ_INPUTS), &v->inputs, &v->input_count,
                            err)) ||
        (st = read_bindings(v, b, fb_ref(b, s.root, VGF_SEQ_OUTPUTS), &v->outputs,
                            &v->output_count, err)))
        return st;
    const char ***names[2] = {&v->input_names, &v->output_names};
    uint32_t *counts[2] = {&v->input_name_count, &v->output_name_count};
    for (int k = 0; k < 2; k++) {
        uint32_t vec = fb_ref(b, s.root, k ? VGF_SEQ_OUTPUT_NAMES : VGF_SEQ_INPUT_NAMES);
        *counts[k] = fb_vec_len(b, vec);
        if (!*counts[k])
            continue;
        if (!(*names[k] = alloc_n(*counts[k], sizeof **names[k])))
            return nomem(v, err);
        for (uint32_t i = 0; i < *counts[k]; i++)
            (*names[k])[i] = str_or_empty(b, fb_vec_ref(b, vec, i));
    }
    return ETP_OK;
}

static etp_status copy_i64s(etp_vgf *v, const fb_buf *b, uint32_t vec, int64_t **out,
                            uint32_t *count, etp_error *err)
{
    *count = fb_vec_len(b, vec);
    if (!*count)
        return ETP_OK;
    if (!(*out = malloc((size_t)*count * 8)))
        return nomem(v, err);
    memcpy(*out, fb_vec_data(b, vec), (size_t)*count * 8);
    return ETP_OK;
}

static etp_status read_resources(etp_vgf *v, const uint8_t *data, etp_error *err)
{
    section s;
    etp_status st = open_section(v, data, 2, &etp_schema_vgf_resources, &s, err);
    if (st)
        return st;
    const fb_buf *b = &s.b;
    uint32_t vec = fb_ref(b, s.root, VGF_MRT_ENTRIES);
    v->resource_count = fb_vec_len(b, vec);
    if (v->resource_count && !(v->resources = alloc_n(v->resource_count, sizeof *v->resources)))
        return nomem(v, err);
    for (uint32_t i = 0; i < v->resource_count; i++) {
        uint32_t t = fb_vec_ref(b, vec, i);
        etp_vgf_resource *r = &v->resources[i];
        r->descriptor_type = fb_get_u32(b, t, VGF_RES_DESC_TYPE, 0);
        r->vk_format = fb_get_u32(b, t, VGF_RES_FORMAT, 0);
        r->category = fb_get_u8(b, t, VGF_RES_CATEGORY, 0);
        r->alias_group_id = fb_get_u32(b, t, VGF_RES_ALIAS, ETP_VGF_UNSET);
        uint32_t d = fb_ref(b, t, VGF_RES_DESCRIPTION);
        r->has_description = d != 0;
        if (d && ((st = copy_i64s(v, b, fb_ref(b, d, VGF_DESC_SHAPE), &r->shape, &r->rank, err)) ||
                  (st = copy_i64s(v, b, fb_ref(b, d, VGF_DESC_STRIDES), &r->strides,
                                  &r->stride_count, err))))
            return st;
        r->extra_config_type = fb_get_u8(b, t, VGF_RES_EXTRA_TYPE, 0);
        uint32_t x = fb_ref(b, t, VGF_RES_EXTRA);
        if (x && r->extra_config_type == 1)
            for (unsigned k = 0; k < 5; k++)
                r->sampler[k] = fb_get_u32(b, x, k, 0);
    }
    return ETP_OK;
}

static etp_status read_raw_constants(etp_vgf *v, const uint8_t *data, etp_error *err)
{
    const etp_vgf_section *sec = &v->sections[3];
    const uint8_t *p = data + sec->offset;
    if (sec->size < 16)
        return FAIL(v, err, ETP_E_TRUNCATED, sec->offset,
                    "constant section of %llu bytes ends inside its header",
                    (unsigned long long)sec->size);
    uint64_t count = rd64(p + 8);
    if (count > (sec->size - 16) / 24)
        return FAIL(v, err, ETP_E_TRUNCATED, sec->offset + 8,
                    "constant section declares %llu records, more than its %llu bytes hold",
                    (unsigned long long)count, (unsigned long long)sec->size);
    uint64_t payload = 16 + 24 * count, payload_len = sec->size - payload;
    v->constant_count = (uint32_t)count;
    if (count && !(v->constants = alloc_n((size_t)count, sizeof *v->constants)))
        return nomem(v, err);
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *r = p + 16 + 24 * i;
        etp_vgf_constant *c = &v->constants[i];
        int32_t sparsity;
        memcpy(&sparsity, r + 4, 4);
        c->mrt_index = rd32(r);
        c->sparsity_dimension = sparsity;
        c->size = rd64(r + 8);
        uint64_t off = rd64(r + 16);
        uint64_t at = sec->offset + 16 + 24 * i;
        if (sparsity < -1)
            return FAIL(v, err, ETP_E_FORMAT, at + 4, "constant %llu has sparsity dimension %d",
                        (unsigned long long)i, sparsity);
        if (off > payload_len || c->size > payload_len - off)
            return FAIL(v, err, ETP_E_FORMAT, at + 8,
                        "constant %llu (%llu bytes at payload offset %llu) runs past the constant "
                        "section's %llu payload bytes",
                        (unsigned long long)i, (unsigned long long)c->size,
                        (unsigned long long)off, (unsigned long long)payload_len);
        c->offset = sec->offset + payload + off;
        c->data = data + c->offset;
    }
    return ETP_OK;
}

static etp_status read_legacy_constants(etp_vgf *v, const uint8_t *data, etp_error *err)
{
    section s;
    etp_status st = open_section(v, data, 3, &etp_schema_vgf_constants, &s, err);
    if (st)
        return st;
    const fb_buf *b = &s.b;
    uint32_t vec = fb_ref(b, s.root, VGF_CS_DATA);
    v->constant_count = fb_vec_len(b, vec);
    if (v->constant_count && !(v->constants = alloc_n(v->constant_count, sizeof *v->constants)))
        return nomem(v, err);
    for (uint32_t i = 0; i < v->constant_count; i++) {
        uint32_t t = fb_vec_ref(b, vec, i);
        etp_vgf_constant *c = &v->constants[i];
        c->mrt_index = fb_get_u32(b, t, VGF_CD_MRT, 0);
        c->sparsity_dimension = fb_get_i64(b, t, VGF_CD_SPARSITY, 0);
        uint32_t raw = fb_ref(b, t, VGF_CD_RAW);
        c->size = fb_vec_len(b, raw);
        c->offset = s.off + (raw ? raw + 4 : 0);
        c->data = raw ? data + c->offset : NULL;
    }
    return ETP_OK;
}

/* The joins between tables (2.9): every index must land inside its table. */
static etp_status check_joins(etp_vgf *v, etp_error *err)
{
    etp_status st;
    for (uint32_t i = 0; i < v->segment_count; i++) {
        const etp_vgf_segment *sg = &v->segments[i];
        if ((st = check_bindings(v, sg->inputs, sg->input_count, "input", i, err)) ||
            (st = check_bindings(v, sg->outputs, sg->output_count, "output", i, err)))
            return st;
        for (uint32_t k = 0; k < sg->set_count; k++)
            if ((st = check_bindings(v, sg->sets[k].bindings, sg->sets[k].binding_count,
                                     "descriptor binding", i, err)))
                return st;
        for (uint32_t k = 0; k < sg->constant_count; k++)
            if (sg->constants[k] >= v->constant_count)
                return FAIL(v, err, ETP_E_FORMAT, v->sections[1].offset,
                            "segment %u lists constant %u, but the constant section has %u", i,
                            sg->constants[k], v->constant_count);
    }
    for (uint32_t k = 0; k < v->input_count; k++)
        if (v->inputs[k].mrt_index >= v->resource_count)
            return FAIL(v, err, ETP_E_FORMAT, v->sections[1].offset,
                        "model input %u refers to resource %u of %u", k, v->inputs[k].mrt_index,
                        v->resource_count);
    for (uint32_t k = 0; k < v->output_count; k++)
        if (v->outputs[k].mrt_index >= v->resource_count)
            return FAIL(v, err, ETP_E_FORMAT, v->sections[1].offset,
                        "model output %u refers to resource %u of %u", k,
                        v->outputs[k].mrt_index, v->resource_count);
    for (uint32_t k = 0; k < v->constant_count; k++)
        if (v->constants[k].mrt_index >= v->resource_count)
            return FAIL(v, err, ETP_E_FORMAT, v->sections[3].offset,
                        "constant %u refers to resource %u of %u", k, v->constants[k].mrt_index,
                        v->resource_count);
    return ETP_OK;
}

static etp_status decode(etp_vgf *v, const uint8_t *data, uint64_t size, etp_error *err)
{
    if (size < VGF_HEADER)
        return FAIL(v, err, ETP_E_TRUNCATED, size,
                    "not a VGF file: %llu bytes is shorter than the 128-byte header",
                    (unsigned long long)size);
    if (memcmp(data, "VGF1", 4) != 0) {
        if (memcmp(data, old_magic, 4) != 0)
            return FAIL(v, err, ETP_E_FORMAT, 0, "not a VGF file: the magic is not \"VGF1\"");
        v->old_magic = 1;
    }
    memcpy(&v->vk_header_version, data + 4, 2);
    v->major = data[8];
    v->minor = data[9];
    v->patch = data[10];
    if (v->major != 0)
        return FAIL(v, err, ETP_E_FORMAT, 8, "unsupported VGF format version %u.%u.%u "
                    "(etprof reads 0.x)", v->major, v->minor, v->patch);
    for (int k = 0; k < 4; k++) {
        v->sections[k].offset = rd64(data + 16 + 16 * k);
        v->sections[k].size = rd64(data + 24 + 16 * k);
        if (v->sections[k].offset > size || v->sections[k].size > size - v->sections[k].offset)
            return FAIL(v, err, ETP_E_TRUNCATED, 16 + 16 * k,
                        "%s section (offset %llu, %llu bytes) runs past the end of the VGF "
                        "(%llu bytes)", section_names[k],
                        (unsigned long long)v->sections[k].offset,
                        (unsigned long long)v->sections[k].size, (unsigned long long)size);
    }
    etp_status st;
    if ((st = read_resources(v, data, err)) || (st = read_modules(v, data, err)))
        return st;
    const etp_vgf_section *cs = &v->sections[3];
    v->constants_raw = cs->size >= 8 && memcmp(data + cs->offset, "CONST00", 8) == 0;
    if (cs->size == 0)
        ; /* no constants at all */
    else if ((st = v->constants_raw ? read_raw_constants(v, data, err)
                                    : read_legacy_constants(v, data, err)))
        return st;
    if ((st = read_sequence(v, data, err)))
        return st;
    return check_joins(v, err);
}

etp_status etp_vgf_from_memory(const uint8_t *data, size_t size, const char *file,
                               int64_t file_offset, etp_vgf **out, etp_error *err)
{
    *out = NULL;
    vgf_box *box = calloc(1, sizeof *box);
    const char *name = file ? file : "(memory)";
    if (!box || !(box->pub.file = strdup(name))) {
        free(box);
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    }
    etp_vgf *v = &box->pub;
    v->in = &box->in;
    v->file_offset = file_offset;
    v->size = size;
    box->in.data = data;
    etp_status st = decode(v, data, size, err);
    if (st) {
        etp_vgf_free(v);
        return st;
    }
    *out = v;
    return ETP_OK;
}

etp_status etp_vgf_open(const char *path, etp_vgf **out, etp_error *err)
{
    *out = NULL;
    etp_blob *blob;
    etp_status st = etp_blob_open(path, 0, &blob, err);
    if (st)
        return st;
    if ((st = etp_vgf_from_memory(blob->data, blob->size, path, 0, out, err))) {
        etp_blob_free(blob);
        return st;
    }
    (*out)->in->blob = blob;
    return ETP_OK;
}

etp_status etp_vgf_from_delegate(const etp_program *p, const etp_delegate *d, etp_vgf **out,
                                 etp_error *err)
{
    *out = NULL;
    if (!d || !d->processed)
        return etp_error_set(err, ETP_E_USAGE, p ? p->path : NULL, ETP_NO_OFFSET,
                             "the delegate has no payload to decode");
    return etp_vgf_from_memory(d->processed, (size_t)d->processed_size, p->path,
                               (int64_t)d->processed_offset, out, err);
}

void etp_vgf_free(etp_vgf *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; v->modules && i < v->module_count; i++) {
        etp_spv_free(v->modules[i].spv);
        free((void *)v->modules[i].spirv);
    }
    free(v->modules);
    for (uint32_t i = 0; v->segments && i < v->segment_count; i++) {
        etp_vgf_segment *sg = &v->segments[i];
        for (uint32_t k = 0; sg->sets && k < sg->set_count; k++)
            free(sg->sets[k].bindings);
        free(sg->sets);
        free(sg->inputs);
        free(sg->outputs);
        free(sg->constants);
        free(sg->push_ranges);
    }
    free(v->segments);
    for (uint32_t i = 0; v->resources && i < v->resource_count; i++) {
        free(v->resources[i].shape);
        free(v->resources[i].strides);
    }
    free(v->resources);
    free(v->constants);
    free(v->inputs);
    free(v->outputs);
    free(v->input_names);
    free(v->output_names);
    if (v->in)
        etp_blob_free(v->in->blob);
    free(v->file);
    free(v);
}
