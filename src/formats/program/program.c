/* program.c - .pte / .bpte reader: identifier, extended header, segments,
 * verified FlatBuffer, decoded execution plans. */
#include "etprof/program.h"

#include <stdlib.h>
#include <string.h>

#include "formats/flatbuffers/fb.h"
#include "formats/flatbuffers/schemas.h"
#include "formats/program/program_internal.h"
#include "util/sha256.h"

typedef struct prog_internal {
    etp_blob *blob;
    fb_buf b;          /* the program FlatBuffer (inside the .bpte when bundled) */
    uint32_t root;
    fb_buf outer;      /* the .bpte FlatBuffer when bundled */
    uint32_t outer_root;
} prog_internal;

/* What etp_program_open() allocates: the public part first, so an
 * etp_program pointer is the box's address, and the reader's own state
 * after it, out of the callers' sight. */
typedef struct prog_box {
    etp_program pub;
    prog_internal in;
} prog_box;

static const prog_internal *internal_of(const etp_program *p)
{
    return &((const prog_box *)(const void *)p)->in;
}

static etp_status oom(etp_error *err, const char *path)
{
    return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory decoding program");
}

static uint64_t rd_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Extended header "eh00" at offset 8 and segment bounds. @p len is the
 * program's byte length, @p base its offset in the file (for messages). */
static etp_status read_header(etp_program *pr, const uint8_t *p, uint64_t len, uint64_t base,
                              uint32_t *fb_size, etp_error *err)
{
    *fb_size = (uint32_t)len;
    if (len < 16 || memcmp(p + 8, "eh00", 4) != 0)
        return ETP_OK;
    uint32_t hlen = rd_u32(p + 12);
    if (hlen < 24)
        return ETP_OK; /* the runtime ignores a header this short */
    if (8 + (uint64_t)hlen > len)
        return etp_error_set(err, ETP_E_TRUNCATED, pr->path, (int64_t)(base + 8),
                             "extended header of %u bytes runs past the end of the program", hlen);
    pr->has_extended_header = 1;
    pr->header_program_size = rd_u64(p + 16);
    pr->segment_base_offset = rd_u64(p + 24);
    pr->segment_data_size = hlen >= 32 ? rd_u64(p + 32) : 0;
    if (pr->header_program_size > len)
        return etp_error_set(err, ETP_E_TRUNCATED, pr->path, (int64_t)(base + 16),
                             "extended header says the program is %llu bytes, only %llu present",
                             (unsigned long long)pr->header_program_size, (unsigned long long)len);
    if (pr->header_program_size < 8 + (uint64_t)hlen)
        return etp_error_set(err, ETP_E_FORMAT, pr->path, (int64_t)(base + 16),
                             "extended header program size %llu is smaller than the header",
                             (unsigned long long)pr->header_program_size);
    if (pr->segment_base_offset < pr->header_program_size)
        return etp_error_set(err, ETP_E_FORMAT, pr->path, (int64_t)(base + 24),
                             "segment base offset %llu lies inside the program data (%llu bytes)",
                             (unsigned long long)pr->segment_base_offset,
                             (unsigned long long)pr->header_program_size);
    if (pr->segment_data_size > UINT64_MAX - pr->segment_base_offset ||
        pr->segment_base_offset + pr->segment_data_size > len)
        return etp_error_set(err, ETP_E_TRUNCATED, pr->path, (int64_t)(base + len),
                             "segment data ends at byte %llu but the program has %llu bytes",
                             (unsigned long long)(pr->segment_base_offset + pr->segment_data_size),
                             (unsigned long long)len);
    *fb_size = (uint32_t)pr->header_program_size;
    return ETP_OK;
}

static void decode_value(const fb_buf *b, uint32_t ev, etp_evalue *v)
{
    memset(v, 0, sizeof *v);
    uint8_t type = fb_get_u8(b, ev, PTE_EVALUE_TYPE, 0);
    uint32_t t = fb_ref(b, ev, PTE_EVALUE_VAL);
    v->kind = (etp_evalue_kind)type;
    if (!t)
        return;
    v->has_val = 1;
    uint32_t vec;
    switch (type) {
    case PTE_V_INT:
        v->i = fb_get_i64(b, t, 0, 0);
        break;
    case PTE_V_BOOL:
        v->i = fb_get_u8(b, t, 0, 0) != 0;
        break;
    case PTE_V_DOUBLE:
        v->d = fb_get_f64(b, t, 0, 0.0);
        break;
    case PTE_V_STRING:
        v->s = fb_str(b, fb_ref(b, t, 0), NULL);
        break;
    case PTE_V_INT_LIST:
    case PTE_V_DOUBLE_LIST:
    case PTE_V_BOOL_LIST:
    case PTE_V_TENSOR_LIST:
    case PTE_V_OPT_TENSOR_LIST:
        vec = fb_ref(b, t, 0);
        v->count = fb_vec_len(b, vec);
        v->items = vec ? fb_vec_data(b, vec) : NULL;
        break;
    case PTE_V_TENSOR: {
        v->scalar_type = (int8_t)fb_get_u8(b, t, PTE_TENSOR_SCALAR_TYPE, 0);
        v->storage_offset = fb_get_i32(b, t, PTE_TENSOR_STORAGE_OFFSET, 0);
        v->requires_grad = fb_get_u8(b, t, PTE_TENSOR_REQUIRES_GRAD, 0) != 0;
        v->layout = (int8_t)fb_get_u8(b, t, PTE_TENSOR_LAYOUT, 0);
        vec = fb_ref(b, t, PTE_TENSOR_SIZES);
        v->count = fb_vec_len(b, vec);
        v->items = vec ? fb_vec_data(b, vec) : NULL;
        vec = fb_ref(b, t, PTE_TENSOR_DIM_ORDER);
        v->dim_order_len = fb_vec_len(b, vec);
        v->dim_order = vec ? fb_vec_data(b, vec) : NULL;
        v->data_buffer_idx = fb_get_u32(b, t, PTE_TENSOR_DATA_BUFFER_IDX, 0);
        uint32_t a = fb_ref(b, t, PTE_TENSOR_ALLOCATION_INFO);
        if (a) {
            v->has_allocation = 1;
            v->memory_id = fb_get_u32(b, a, 0, 0);
            v->memory_offset = (uint64_t)fb_get_u32(b, a, 1, 0) | ((uint64_t)fb_get_u32(b, a, 2, 0) << 32);
        }
        v->shape_dynamism = (int8_t)fb_get_u8(b, t, PTE_TENSOR_SHAPE_DYNAMISM, 0);
        uint32_t x = fb_ref(b, t, PTE_TENSOR_EXTRA);
        v->has_extra = x != 0;
        if (x)
            v->fqn = fb_str(b, fb_ref(b, x, 1), NULL);
        break;
    }
    default:
        break;
    }
}

static etp_status decode_chain(const fb_buf *b, uint32_t c, etp_chain *ch, const char *path,
                               etp_error *err)
{
    uint32_t v = fb_ref(b, c, PTE_CHAIN_INPUTS);
    ch->input_count = fb_vec_len(b, v);
    ch->inputs = v ? (const int32_t *)(const void *)fb_vec_data(b, v) : NULL;
    v = fb_ref(b, c, PTE_CHAIN_OUTPUTS);
    ch->output_count = fb_vec_len(b, v);
    ch->outputs = v ? (const int32_t *)(const void *)fb_vec_data(b, v) : NULL;
    uint32_t iv = fb_ref(b, c, PTE_CHAIN_INSTRUCTIONS);
    ch->instruction_count = fb_vec_len(b, iv);
    if (ch->instruction_count) {
        ch->instructions = calloc(ch->instruction_count, sizeof *ch->instructions);
        if (!ch->instructions)
            return oom(err, path);
    }
    for (uint32_t i = 0; i < ch->instruction_count; i++) {
        uint32_t t = fb_vec_ref(b, iv, i);
        etp_instruction *in = &ch->instructions[i];
        uint8_t type = fb_get_u8(b, t, PTE_INSTR_TYPE, 0);
        uint32_t a = fb_ref(b, t, PTE_INSTR_ARGS);
        in->kind = (etp_instr_kind)type;
        if (!a)
            continue;
        in->has_args = 1;
        if (type == PTE_I_KERNEL || type == PTE_I_DELEGATE) {
            in->a = fb_get_i32(b, a, 0, 0);
            uint32_t args = fb_ref(b, a, 1);
            in->arg_count = fb_vec_len(b, args);
            in->args = args ? (const int32_t *)(const void *)fb_vec_data(b, args) : NULL;
        } else if (type == PTE_I_MOVE || type == PTE_I_JUMP_FALSE) {
            in->a = fb_get_i32(b, a, 0, 0);
            in->b = fb_get_i32(b, a, 1, 0);
        } else if (type == PTE_I_FREE) {
            in->a = fb_get_i32(b, a, 0, 0);
        }
    }
    uint32_t st = fb_ref(b, c, PTE_CHAIN_STACKTRACE);
    ch->stacktrace_count = fb_vec_len(b, st);
    if (ch->stacktrace_count) {
        ch->frame_counts = calloc(ch->stacktrace_count, sizeof *ch->frame_counts);
        ch->frames = calloc(ch->stacktrace_count, sizeof *ch->frames);
        if (!ch->frame_counts || !ch->frames)
            return oom(err, path);
        for (uint32_t i = 0; i < ch->stacktrace_count; i++) {
            uint32_t fl = fb_vec_ref(b, st, i);
            uint32_t items = fb_ref(b, fl, PTE_FRAMELIST_ITEMS);
            uint32_t n = fb_vec_len(b, items);
            ch->frame_counts[i] = n;
            if (!n)
                continue;
            ch->frames[i] = calloc(n, sizeof **ch->frames);
            if (!ch->frames[i])
                return oom(err, path);
            for (uint32_t k = 0; k < n; k++) {
                uint32_t f = fb_vec_ref(b, items, k);
                etp_frame *fr = &ch->frames[i][k];
                fr->filename = fb_str(b, fb_ref(b, f, PTE_FRAME_FILENAME), NULL);
                fr->lineno = fb_get_i32(b, f, PTE_FRAME_LINENO, 0);
                fr->name = fb_str(b, fb_ref(b, f, PTE_FRAME_NAME), NULL);
                fr->context = fb_str(b, fb_ref(b, f, PTE_FRAME_CONTEXT), NULL);
            }
        }
    }
    return ETP_OK;
}

static etp_status decode_operator(const fb_buf *b, uint32_t t, etp_operator *op, const char *path,
                                  etp_error *err)
{
    op->name = fb_str(b, fb_ref(b, t, PTE_OP_NAME), NULL);
    op->overload = fb_str(b, fb_ref(b, t, PTE_OP_OVERLOAD), NULL);
    const char *n = op->name ? op->name : "";
    const char *o = op->overload ? op->overload : "";
    size_t ln = strlen(n), lo = strlen(o);
    op->full_name = malloc(ln + lo + 2);
    if (!op->full_name)
        return oom(err, path);
    memcpy(op->full_name, n, ln);
    if (lo) {
        op->full_name[ln] = '.';
        memcpy(op->full_name + ln + 1, o, lo + 1);
    } else
        op->full_name[ln] = '\0';
    /* The kernel wrapper logs the name without its namespace. */
    const char *suffix = op->full_name;
    for (const char *s = op->full_name; (s = strstr(s, "::")) != NULL; s += 2)
        suffix = s + 2;
    op->kernel_suffix = suffix;
    return ETP_OK;
}

static etp_status decode_plan(const etp_program *pr, const fb_buf *b, uint32_t t, etp_plan *pl,
                              uint32_t delegate_data, uint32_t segs, etp_error *err)
{
    const char *path = pr->path;
    pl->name = fb_str(b, fb_ref(b, t, PTE_PLAN_NAME), NULL);
    uint32_t v = fb_ref(b, t, PTE_PLAN_INPUTS);
    pl->input_count = fb_vec_len(b, v);
    pl->inputs = v ? (const int32_t *)(const void *)fb_vec_data(b, v) : NULL;
    v = fb_ref(b, t, PTE_PLAN_OUTPUTS);
    pl->output_count = fb_vec_len(b, v);
    pl->outputs = v ? (const int32_t *)(const void *)fb_vec_data(b, v) : NULL;
    v = fb_ref(b, t, PTE_PLAN_BUFFER_SIZES);
    pl->buffer_count = fb_vec_len(b, v);
    pl->buffer_sizes = v ? (const int64_t *)(const void *)fb_vec_data(b, v) : NULL;

    uint32_t vals = fb_ref(b, t, PTE_PLAN_VALUES);
    pl->value_count = fb_vec_len(b, vals);
    /* malloc, not calloc: decode_value() sets every byte of each value, and
     * a program can hold hundreds of thousands of them. */
    if (pl->value_count && !(pl->values = malloc((size_t)pl->value_count * sizeof *pl->values)))
        return oom(err, path);
    for (uint32_t i = 0; i < pl->value_count; i++)
        decode_value(b, fb_vec_ref(b, vals, i), &pl->values[i]);

    uint32_t chains = fb_ref(b, t, PTE_PLAN_CHAINS);
    pl->chain_count = fb_vec_len(b, chains);
    if (pl->chain_count && !(pl->chains = calloc(pl->chain_count, sizeof *pl->chains)))
        return oom(err, path);
    for (uint32_t i = 0; i < pl->chain_count; i++) {
        etp_status s = decode_chain(b, fb_vec_ref(b, chains, i), &pl->chains[i], path, err);
        if (s)
            return s;
    }

    uint32_t ops = fb_ref(b, t, PTE_PLAN_OPERATORS);
    pl->operator_count = fb_vec_len(b, ops);
    if (pl->operator_count && !(pl->operators = calloc(pl->operator_count, sizeof *pl->operators)))
        return oom(err, path);
    for (uint32_t i = 0; i < pl->operator_count; i++) {
        etp_status s = decode_operator(b, fb_vec_ref(b, ops, i), &pl->operators[i], path, err);
        if (s)
            return s;
    }

    uint32_t dels = fb_ref(b, t, PTE_PLAN_DELEGATES);
    pl->delegate_count = fb_vec_len(b, dels);
    if (pl->delegate_count && !(pl->delegates = calloc(pl->delegate_count, sizeof *pl->delegates)))
        return oom(err, path);
    for (uint32_t i = 0; i < pl->delegate_count; i++) {
        uint32_t d = fb_vec_ref(b, dels, i);
        etp_delegate *de = &pl->delegates[i];
        de->id = fb_str(b, fb_ref(b, d, PTE_DELEGATE_ID), NULL);
        de->location = -1;
        uint32_t pr_ref = fb_ref(b, d, PTE_DELEGATE_PROCESSED);
        if (pr_ref) {
            de->location = (int8_t)fb_get_u8(b, pr_ref, PTE_DREF_LOCATION, 0);
            de->index = fb_get_u32(b, pr_ref, PTE_DREF_INDEX, 0);
            if (de->location == 0 && de->index < fb_vec_len(b, delegate_data)) {
                uint32_t id = fb_vec_ref(b, delegate_data, de->index);
                uint32_t data = fb_ref(b, id, PTE_INLINE_DATA);
                de->processed_size = fb_vec_len(b, data);
                de->size_known = 1;
                de->processed = data ? fb_vec_data(b, data) : b->p;
                de->processed_offset = pr->program_offset + (data ? data + 4 : 0);
            } else if (de->location == 1 && de->index < pr->segment_count) {
                de->processed_size = pr->segments[de->index].size;
                de->size_known = 1;
                /* decode_pte() checked the segment lies inside the file. */
                de->processed_offset = pr->program_offset + pr->segment_base_offset +
                                       pr->segments[de->index].offset;
                if (de->processed_size)
                    de->processed = b->p - pr->program_offset + de->processed_offset;
            }
        }
        (void)segs;
        uint32_t specs = fb_ref(b, d, PTE_DELEGATE_COMPILE_SPECS);
        de->compile_spec_count = fb_vec_len(b, specs);
        if (de->compile_spec_count &&
            !(de->compile_specs = calloc(de->compile_spec_count, sizeof *de->compile_specs)))
            return oom(err, path);
        for (uint32_t k = 0; k < de->compile_spec_count; k++) {
            uint32_t cs = fb_vec_ref(b, specs, k);
            de->compile_specs[k].key = fb_str(b, fb_ref(b, cs, PTE_SPEC_KEY), NULL);
            uint32_t val = fb_ref(b, cs, PTE_SPEC_VALUE);
            de->compile_specs[k].value = val ? fb_vec_data(b, val) : NULL;
            de->compile_specs[k].value_len = fb_vec_len(b, val);
        }
    }
    return ETP_OK;
}

/* Decode the .pte bytes at [p, p+len), which sit at file offset @p base. */
static etp_status decode_pte(etp_program *pr, prog_internal *in, const uint8_t *p, uint64_t len,
                             uint64_t base, etp_error *err)
{
    const char *path = pr->path;
    if (len < 8)
        return etp_error_set(err, ETP_E_TRUNCATED, path, (int64_t)(base + len),
                             "not an ExecuTorch program: %llu bytes is too short",
                             (unsigned long long)len);
    if (memcmp(p + 4, "ET12", 4) != 0) {
        if (p[4] == 'E' && p[5] == 'T')
            return etp_error_set(err, ETP_E_FORMAT, path, (int64_t)(base + 4),
                                 "unsupported program version \"%.4s\" (etprof reads ET12)",
                                 (const char *)p + 4);
        return etp_error_set(err, ETP_E_FORMAT, path, (int64_t)(base + 4),
                             "not an ExecuTorch program: identifier is not \"ET12\"");
    }
    if (len > UINT32_MAX)
        return etp_error_set(err, ETP_E_LIMIT, path, ETP_NO_OFFSET,
                             "program FlatBuffer larger than 4 GiB");
    uint32_t fb_size;
    etp_status s = read_header(pr, p, len, base, &fb_size, err);
    if (s)
        return s;
    in->b.p = p;
    in->b.size = fb_size;
    s = fb_verify(&in->b, 0, &etp_schema_program, fb_default_limits(fb_size), path, (int64_t)base,
                  &in->root, err);
    if (s)
        return s;
    const fb_buf *b = &in->b;
    pr->version = fb_get_u32(b, in->root, PTE_PROGRAM_VERSION, 0);
    pr->constant_buffer_count = fb_vec_len(b, fb_ref(b, in->root, PTE_PROGRAM_CONSTANT_BUFFER));
    uint32_t ddata = fb_ref(b, in->root, PTE_PROGRAM_DELEGATE_DATA);
    pr->delegate_data_count = fb_vec_len(b, ddata);
    pr->named_data_count = fb_vec_len(b, fb_ref(b, in->root, PTE_PROGRAM_NAMED_DATA));
    uint32_t cseg = fb_ref(b, in->root, PTE_PROGRAM_CONSTANT_SEGMENT);
    if (cseg)
        pr->constant_segment_offsets = fb_vec_len(b, fb_ref(b, cseg, PTE_SUBSEG_OFFSETS));

    uint32_t segs = fb_ref(b, in->root, PTE_PROGRAM_SEGMENTS);
    pr->segment_count = fb_vec_len(b, segs);
    if (pr->segment_count && !(pr->segments = calloc(pr->segment_count, sizeof *pr->segments)))
        return oom(err, path);
    for (uint32_t i = 0; i < pr->segment_count; i++) {
        uint32_t t = fb_vec_ref(b, segs, i);
        etp_segment *sg = &pr->segments[i];
        sg->offset = fb_get_u64(b, t, PTE_SEGMENT_OFFSET, 0);
        sg->size = fb_get_u64(b, t, PTE_SEGMENT_SIZE, 0);
        if (sg->size == 0)
            continue;
        /* Segment data must exist in the file: a cut-off download would
         * otherwise decode "fine" and fail on the device. */
        uint64_t avail = pr->has_extended_header ? len - pr->segment_base_offset : 0;
        if (!pr->has_extended_header || sg->offset > avail || sg->size > avail - sg->offset)
            return etp_error_set(err, pr->has_extended_header ? ETP_E_TRUNCATED : ETP_E_FORMAT,
                                 path, (int64_t)(base + t),
                                 "segment %u (offset %llu, %llu bytes) is outside the file's "
                                 "segment data",
                                 i, (unsigned long long)sg->offset, (unsigned long long)sg->size);
    }

    uint32_t plans = fb_ref(b, in->root, PTE_PROGRAM_PLANS);
    pr->plan_count = fb_vec_len(b, plans);
    if (pr->plan_count && !(pr->plans = calloc(pr->plan_count, sizeof *pr->plans)))
        return oom(err, path);
    for (uint32_t i = 0; i < pr->plan_count; i++) {
        s = decode_plan(pr, b, fb_vec_ref(b, plans, i), &pr->plans[i], ddata, segs, err);
        if (s)
            return s;
    }
    return ETP_OK;
}

static etp_status decode_bundled(etp_program *pr, prog_internal *in, etp_error *err)
{
    const etp_blob *blob = in->blob;
    if (blob->size > UINT32_MAX)
        return etp_error_set(err, ETP_E_LIMIT, pr->path, ETP_NO_OFFSET,
                             "bundled program larger than 4 GiB");
    in->outer.p = blob->data;
    in->outer.size = (uint32_t)blob->size;
    etp_status s = fb_verify(&in->outer, 0, &etp_schema_bundled_program,
                             fb_default_limits(in->outer.size), pr->path, 0, &in->outer_root, err);
    if (s)
        return s;
    const fb_buf *b = &in->outer;
    pr->bundled = 1;
    pr->bundled_version = fb_get_u32(b, in->outer_root, BP_VERSION, 0);
    uint32_t suites = fb_ref(b, in->outer_root, BP_SUITES);
    pr->suite_count = fb_vec_len(b, suites);
    if (pr->suite_count && !(pr->suites = calloc(pr->suite_count, sizeof *pr->suites)))
        return oom(err, pr->path);
    for (uint32_t i = 0; i < pr->suite_count; i++) {
        uint32_t t = fb_vec_ref(b, suites, i);
        etp_test_suite *su = &pr->suites[i];
        su->method_name = fb_str(b, fb_ref(b, t, BP_SUITE_METHOD), NULL);
        uint32_t cases = fb_ref(b, t, BP_SUITE_CASES);
        su->case_count = fb_vec_len(b, cases);
        if (!su->case_count)
            continue;
        su->input_counts = calloc(su->case_count, sizeof *su->input_counts);
        su->output_counts = calloc(su->case_count, sizeof *su->output_counts);
        if (!su->input_counts || !su->output_counts)
            return oom(err, pr->path);
        for (uint32_t k = 0; k < su->case_count; k++) {
            uint32_t c = fb_vec_ref(b, cases, k);
            su->input_counts[k] = fb_vec_len(b, fb_ref(b, c, BP_CASE_INPUTS));
            su->output_counts[k] = fb_vec_len(b, fb_ref(b, c, BP_CASE_OUTPUTS));
        }
    }
    uint32_t prog = fb_ref(b, in->outer_root, BP_PROGRAM);
    if (!prog)
        return etp_error_set(err, ETP_E_FORMAT, pr->path, (int64_t)in->outer_root,
                             "bundled program has no embedded program");
    pr->program_offset = prog + 4;
    pr->program_length = fb_vec_len(b, prog);
    return decode_pte(pr, in, b->p + pr->program_offset, pr->program_length, pr->program_offset,
                      err);
}

etp_status etp_program_from_blob(etp_blob *blob, etp_program **out, etp_error *err)
{
    *out = NULL;
    prog_box *box = calloc(1, sizeof *box);
    char *path = malloc(strlen(blob->path) + 1);
    if (!box || !path) {
        free(box);
        free(path);
        etp_status st = oom(err, blob->path);
        etp_blob_free(blob);
        return st;
    }
    strcpy(path, blob->path);
    etp_program *pr = &box->pub;
    prog_internal *in = &box->in;
    pr->path = path;
    in->blob = blob;
    pr->file_size = blob->size;
    etp_status s;
    if (blob->size >= 8 && memcmp(blob->data + 4, "BP08", 4) == 0)
        s = decode_bundled(pr, in, err);
    else {
        pr->program_length = blob->size;
        s = decode_pte(pr, in, blob->data, blob->size, 0, err);
    }
    if (s) {
        etp_program_free(pr);
        return s;
    }
    *out = pr;
    return ETP_OK;
}

etp_status etp_program_open(const char *path, etp_program **out, etp_error *err)
{
    etp_blob *blob;
    *out = NULL;
    etp_status s = etp_blob_open(path, 0, &blob, err);
    if (s)
        return s;
    return etp_program_from_blob(blob, out, err);
}

static void free_plan(etp_plan *pl)
{
    for (uint32_t c = 0; c < pl->chain_count; c++) {
        etp_chain *ch = &pl->chains[c];
        free(ch->instructions);
        if (ch->frames)
            for (uint32_t i = 0; i < ch->stacktrace_count; i++)
                free(ch->frames[i]);
        free(ch->frames);
        free(ch->frame_counts);
    }
    free(pl->chains);
    for (uint32_t i = 0; i < pl->operator_count; i++)
        free(pl->operators[i].full_name);
    free(pl->operators);
    for (uint32_t i = 0; i < pl->delegate_count; i++)
        free(pl->delegates[i].compile_specs);
    free(pl->delegates);
    free(pl->values);
}

void etp_program_free(etp_program *pr)
{
    if (!pr)
        return;
    for (uint32_t i = 0; pr->plans && i < pr->plan_count; i++)
        free_plan(&pr->plans[i]);
    free(pr->plans);
    free(pr->segments);
    for (uint32_t i = 0; pr->suites && i < pr->suite_count; i++) {
        free(pr->suites[i].input_counts);
        free(pr->suites[i].output_counts);
    }
    free(pr->suites);
    etp_blob_free(internal_of(pr)->blob);
    free(pr->path);
    free(pr);
}

const etp_plan *etp_program_find_plan(const etp_program *p, const char *name)
{
    for (uint32_t i = 0; i < p->plan_count; i++)
        if (p->plans[i].name && strcmp(p->plans[i].name, name) == 0)
            return &p->plans[i];
    return NULL;
}

etp_status etp_program_sha256(const etp_program *p, char hex[65], etp_error *err)
{
    const etp_blob *blob = internal_of(p)->blob;
    if (etp_sha256_buf(blob->data, blob->size, hex))
        return etp_error_set(err, ETP_E_INTERNAL, p->path, ETP_NO_OFFSET,
                             "could not hash the program's bytes (SHA-256 unavailable)");
    return ETP_OK;
}

const char *etp_instr_kind_name(etp_instr_kind k)
{
    switch (k) {
    case ETP_INSTR_NONE: return "NONE";
    case ETP_INSTR_KERNEL: return "KernelCall";
    case ETP_INSTR_DELEGATE: return "DelegateCall";
    case ETP_INSTR_MOVE: return "MoveCall";
    case ETP_INSTR_JUMP_FALSE: return "JumpFalseCall";
    case ETP_INSTR_FREE: return "FreeCall";
    }
    return "unknown";
}

const char *etp_scalar_type_name(int v) { return fb_enum_name(&etp_enum_scalar_type, v); }

const fb_buf *etp_program_flatbuffer(const etp_program *p, uint32_t *root, int *bundled)
{
    const prog_internal *in = internal_of(p);
    *bundled = p->bundled;
    *root = p->bundled ? in->outer_root : in->root;
    return p->bundled ? &in->outer : &in->b;
}
