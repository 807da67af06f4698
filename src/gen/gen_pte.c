/* gen_pte.c - write a gm_program as an ExecuTorch program (.pte): the
 * FlatBuffer (identifier ET12), the extended header "eh00" spliced in after
 * the identifier as exir does, then the segments (constants first, then
 * delegate blobs), each 128-byte aligned. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "formats/flatbuffers/schemas.h"
#include "gen/fbbuild.h"
#include "gen/gen_model.h"
#include "util/atomic_file.h"

#define SEGMENT_ALIGN 128u
#define EH_LEN 32u

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static fbb_ref empty_int_vec(fbb *b) { return fbb_vec_scalars(b, NULL, 0, 4); }

static fbb_ref write_tensor(fbb *b, const gm_value *v)
{
    uint8_t dim_order[GM_MAX_RANK];
    for (int k = 0; k < v->rank; k++)
        dim_order[k] = (uint8_t)k;
    fbb_ref sizes = fbb_vec_scalars(b, v->sizes, v->rank, 4);
    fbb_ref order = fbb_vec_scalars(b, dim_order, v->rank, 1);
    fbb_ref alloc = 0;
    if (v->planned) {
        fbb_table_begin(b);
        fbb_add_u32(b, 0, 1, 0); /* memory_id: arena 1 */
        fbb_add_u32(b, 1, (uint32_t)v->mem_offset, 0);
        fbb_add_u32(b, 2, (uint32_t)(v->mem_offset >> 32), 0);
        alloc = fbb_table_end(b);
    }
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_TENSOR_SIZES, sizes);
    fbb_add_ref(b, PTE_TENSOR_DIM_ORDER, order);
    fbb_add_ref(b, PTE_TENSOR_ALLOCATION_INFO, alloc);
    fbb_add_u32(b, PTE_TENSOR_DATA_BUFFER_IDX, v->data_buffer_idx, 0);
    fbb_add_i8(b, PTE_TENSOR_SCALAR_TYPE, v->scalar_type, 0);
    return fbb_table_end(b);
}

static fbb_ref write_value(fbb *b, const gm_method *m, const gm_value *v)
{
    fbb_ref val = 0;
    switch (v->kind) {
    case PTE_V_INT:
        fbb_table_begin(b);
        fbb_add_i64(b, 0, v->i, 0);
        val = fbb_table_end(b);
        break;
    case PTE_V_BOOL:
        fbb_table_begin(b);
        fbb_add_u8(b, 0, (uint8_t)v->i, 0);
        val = fbb_table_end(b);
        break;
    case PTE_V_DOUBLE:
        fbb_table_begin(b);
        fbb_add_f64(b, 0, v->d, 0.0);
        val = fbb_table_end(b);
        break;
    case PTE_V_INT_LIST: {
        const int64_t *items = (const int64_t *)m->lists.items + v->list_start;
        fbb_ref vec = fbb_vec_scalars(b, items, v->list_count, 8);
        fbb_table_begin(b);
        fbb_add_ref(b, 0, vec);
        val = fbb_table_end(b);
        break;
    }
    case PTE_V_TENSOR:
        val = write_tensor(b, v);
        break;
    default: /* Null: an empty table */
        fbb_table_begin(b);
        val = fbb_table_end(b);
        break;
    }
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_EVALUE_VAL, val);
    fbb_add_u8(b, PTE_EVALUE_TYPE, v->kind, 0);
    return fbb_table_end(b);
}

/* Build a vector of @p n tables made by @p make(i); refs are collected in a
 * scratch gen_vec. */
typedef fbb_ref (*make_fn)(fbb *b, const gm_program *p, const gm_method *m, size_t i);

static fbb_ref table_vector(fbb *b, const gm_program *p, const gm_method *m, size_t n,
                            make_fn make, gen_vec *scratch)
{
    scratch->len = 0;
    fbb_ref *refs = gen_vec_extend(scratch, n);
    if (n && !refs)
        return 0;
    for (size_t i = 0; i < n; i++)
        ((fbb_ref *)scratch->items)[i] = make(b, p, m, i);
    return fbb_vec_refs(b, (const fbb_ref *)scratch->items, n);
}

static fbb_ref make_value(fbb *b, const gm_program *p, const gm_method *m, size_t i)
{
    (void)p;
    return write_value(b, m, &GEN_AT(&m->values, gm_value, i));
}

static fbb_ref make_instr(fbb *b, const gm_program *p, const gm_method *m, size_t i)
{
    (void)p;
    const gm_instr *in = &GEN_AT(&m->instrs, gm_instr, i);
    const int32_t *args = (const int32_t *)m->args.items + in->arg_start;
    fbb_ref av = fbb_vec_scalars(b, args, in->arg_count, 4);
    fbb_table_begin(b); /* KernelCall / DelegateCall share the layout */
    fbb_add_ref(b, 1, av);
    fbb_add_i32(b, 0, (int32_t)in->index, 0);
    fbb_ref call = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_INSTR_ARGS, call);
    fbb_add_u8(b, PTE_INSTR_TYPE, in->kind, 0);
    return fbb_table_end(b);
}

static fbb_ref make_operator(fbb *b, const gm_program *p, const gm_method *m, size_t i)
{
    (void)p;
    const gm_operator *o = &GEN_AT(&m->ops, gm_operator, i);
    fbb_ref name = fbb_cstring(b, o->name);
    fbb_ref ovl = fbb_cstring(b, o->overload);
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_OP_NAME, name);
    fbb_add_ref(b, PTE_OP_OVERLOAD, ovl);
    return fbb_table_end(b);
}

static fbb_ref make_delegate(fbb *b, const gm_program *p, const gm_method *m, size_t i)
{
    (void)p;
    const gm_delegate *d = &GEN_AT(&m->delegates, gm_delegate, i);
    fbb_ref specs[GM_MAX_SPECS];
    for (int k = 0; k < d->nspecs; k++) {
        fbb_ref key = fbb_cstring(b, d->spec_key[k]);
        fbb_ref val = fbb_vec_scalars(b, d->spec_val[k], d->spec_len[k], 1);
        fbb_table_begin(b);
        fbb_add_ref(b, PTE_SPEC_KEY, key);
        fbb_add_ref(b, PTE_SPEC_VALUE, val);
        specs[k] = fbb_table_end(b);
    }
    fbb_ref spec_vec = fbb_vec_refs(b, specs, (size_t)d->nspecs);
    fbb_table_begin(b);
    fbb_add_u32(b, PTE_DREF_INDEX, d->segment, 0);
    fbb_add_i8(b, PTE_DREF_LOCATION, 1, 0); /* SEGMENT */
    fbb_ref processed = fbb_table_end(b);
    fbb_ref id = fbb_cstring(b, d->id);
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_DELEGATE_ID, id);
    fbb_add_ref(b, PTE_DELEGATE_PROCESSED, processed);
    fbb_add_ref(b, PTE_DELEGATE_COMPILE_SPECS, spec_vec);
    return fbb_table_end(b);
}

static fbb_ref make_plan(fbb *b, const gm_program *p, const gm_method *m, gen_vec *scratch)
{
    fbb_ref name = fbb_cstring(b, m->name);
    fbb_ref inp = fbb_cstring(b, m->encoded_inp ? m->encoded_inp : "");
    fbb_ref outp = fbb_cstring(b, m->encoded_out ? m->encoded_out : "");
    fbb_table_begin(b);
    fbb_add_ref(b, 0, inp);
    fbb_add_ref(b, 1, outp);
    fbb_ref meta = fbb_table_end(b);

    fbb_ref values = table_vector(b, p, m, m->values.len, make_value, scratch);
    fbb_ref inputs = fbb_vec_scalars(b, m->inputs.items, m->inputs.len, 4);
    fbb_ref outputs = fbb_vec_scalars(b, m->outputs.items, m->outputs.len, 4);

    fbb_ref instrs = table_vector(b, p, m, m->instrs.len, make_instr, scratch);
    fbb_ref cin = empty_int_vec(b), cout = empty_int_vec(b);
    fbb_table_begin(b);
    fbb_add_ref(b, PTE_CHAIN_INPUTS, cin);
    fbb_add_ref(b, PTE_CHAIN_OUTPUTS, cout);
    fbb_add_ref(b, PTE_CHAIN_INSTRUCTIONS, instrs);
    fbb_ref chain = fbb_table_end(b);
    fbb_ref chains = fbb_vec_refs(b, &chain, 1);

    fbb_ref ops = table_vector(b, p, m, m->ops.len, make_operator, scratch);
    fbb_ref dels = table_vector(b, p, m, m->delegates.len, make_delegate, scratch);
    int64_t bufs[2] = {0, (int64_t)m->planned_bytes};
    fbb_ref buf_sizes = fbb_vec_scalars(b, bufs, 2, 8);

    fbb_table_begin(b);
    fbb_add_ref(b, PTE_PLAN_NAME, name);
    fbb_add_ref(b, PTE_PLAN_CONTAINER_META, meta);
    fbb_add_ref(b, PTE_PLAN_VALUES, values);
    fbb_add_ref(b, PTE_PLAN_INPUTS, inputs);
    fbb_add_ref(b, PTE_PLAN_OUTPUTS, outputs);
    fbb_add_ref(b, PTE_PLAN_CHAINS, chains);
    fbb_add_ref(b, PTE_PLAN_OPERATORS, ops);
    fbb_add_ref(b, PTE_PLAN_DELEGATES, dels);
    fbb_add_ref(b, PTE_PLAN_BUFFER_SIZES, buf_sizes);
    return fbb_table_end(b);
}

/* Segment sizes (constant segment first) and their offsets from the base. */
static size_t segment_layout(const gm_program *p, uint64_t *off, uint64_t *size, size_t max,
                             uint64_t *total)
{
    size_t n = 0;
    uint64_t cursor = 0;
    *total = 0;
    for (size_t i = 0; i <= p->segments.len && n < max; i++, n++) {
        size[n] = i == 0 ? p->const_bytes.len : GEN_AT(&p->segments, gm_segment, i - 1).size;
        off[n] = cursor;
        *total = off[n] + size[n];
        cursor = align_up(*total, SEGMENT_ALIGN);
    }
    return n;
}

static int write_all(FILE *fp, const void *d, size_t n)
{
    return n == 0 || fwrite(d, 1, n, fp) == n;
}

static int write_zeros(FILE *fp, uint64_t n)
{
    static const uint8_t z[4096];
    while (n) {
        size_t k = n > sizeof z ? sizeof z : (size_t)n;
        if (fwrite(z, 1, k, fp) != k)
            return 0;
        n -= k;
    }
    return 1;
}

etp_status gm_write_pte(const gm_program *p, const char *path, uint64_t *bytes, etp_error *err)
{
    size_t nseg_max = p->segments.len + 1;
    gen_vec offs, sizes, scratch, plan_refs;
    gen_vec_init(&offs, sizeof(uint64_t));
    gen_vec_init(&sizes, sizeof(uint64_t));
    gen_vec_init(&scratch, sizeof(fbb_ref));
    gen_vec_init(&plan_refs, sizeof(fbb_ref));
    uint64_t *off = gen_vec_extend(&offs, nseg_max);
    uint64_t *sz = gen_vec_extend(&sizes, nseg_max);
    etp_status st = ETP_OK;
    fbb b;
    if (fbb_init(&b, 1u << 16) || !off || !sz) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory writing program");
        goto done;
    }
    uint64_t seg_total;
    size_t nseg = segment_layout(p, off, sz, nseg_max, &seg_total);

    for (int i = 0; i < p->nmethods; i++) {
        fbb_ref r = make_plan(&b, p, &p->methods[i], &scratch);
        gen_vec_append(&plan_refs, &r, 1);
    }
    fbb_ref plans = fbb_vec_refs(&b, (const fbb_ref *)plan_refs.items, plan_refs.len);
    fbb_ref empty1 = fbb_vec_refs(&b, NULL, 0);
    fbb_ref empty2 = fbb_vec_refs(&b, NULL, 0);
    for (size_t i = 0; i < nseg; i++) {
        fbb_table_begin(&b);
        fbb_add_u64(&b, PTE_SEGMENT_OFFSET, off[i], 0);
        fbb_add_u64(&b, PTE_SEGMENT_SIZE, sz[i], 0);
        fbb_ref r = fbb_table_end(&b);
        gen_vec_append(&plan_refs, &r, 1);
    }
    fbb_ref segs = fbb_vec_refs(&b, (const fbb_ref *)plan_refs.items + p->nmethods, nseg);
    fbb_ref coffs = fbb_vec_scalars(&b, p->const_offsets.items, p->const_offsets.len, 8);
    fbb_table_begin(&b);
    fbb_add_ref(&b, PTE_SUBSEG_OFFSETS, coffs);
    fbb_add_u32(&b, PTE_SUBSEG_INDEX, 0, 0);
    fbb_ref cseg = fbb_table_end(&b);

    fbb_table_begin(&b);
    fbb_add_ref(&b, PTE_PROGRAM_PLANS, plans);
    fbb_add_ref(&b, PTE_PROGRAM_CONSTANT_BUFFER, empty1);
    fbb_add_ref(&b, PTE_PROGRAM_DELEGATE_DATA, empty2);
    fbb_add_ref(&b, PTE_PROGRAM_SEGMENTS, segs);
    fbb_add_ref(&b, PTE_PROGRAM_CONSTANT_SEGMENT, cseg);
    fbb_ref root = fbb_table_end(&b);
    /* exir pads to 16 so splicing in the (16-multiple) header keeps alignment. */
    fbb_force_minalign(&b, 16);
    if (plan_refs.failed || scratch.failed || fbb_finish(&b, root, "ET12", 0)) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "cannot build program: %s",
                           fbb_error(&b) ? fbb_error(&b) : "out of memory");
        goto done;
    }
    size_t fb_len;
    const uint8_t *fbd = fbb_data(&b, &fb_len);
    uint64_t program_size = fb_len + EH_LEN;
    uint64_t base = align_up(program_size, SEGMENT_ALIGN);
    uint8_t head[8 + EH_LEN];
    uint32_t root_off;
    memcpy(&root_off, fbd, 4);
    root_off += EH_LEN;
    memcpy(head, &root_off, 4);
    memcpy(head + 4, fbd + 4, 4);
    memcpy(head + 8, "eh00", 4);
    uint32_t hl = EH_LEN;
    memcpy(head + 12, &hl, 4);
    memcpy(head + 16, &program_size, 8);
    memcpy(head + 24, &base, 8);
    memcpy(head + 32, &seg_total, 8);

    etp_atomic_file out;
    st = etp_atomic_open(&out, path, err);
    if (st)
        goto done;
    FILE *fp = out.fp;
    /* Large writes, not 4 KiB ones: the kernel can then cache the file in
     * large pages, which readers map (and first touch) far faster. */
    size_t wbuf_len = (size_t)8 << 20;
    char *wbuf = malloc(wbuf_len);
    if (wbuf)
        (void)setvbuf(fp, wbuf, _IOFBF, wbuf_len);
    int ok = write_all(fp, head, sizeof head) && write_all(fp, fbd + 8, fb_len - 8) &&
             write_zeros(fp, base - program_size);
    uint64_t pos = 0;
    for (size_t i = 0; ok && i < nseg; i++) {
        ok = write_zeros(fp, off[i] - pos);
        const uint8_t *data = i == 0 ? p->const_bytes.items
                                     : GEN_AT(&p->segments, gm_segment, i - 1).data;
        ok = ok && (data ? write_all(fp, data, sz[i]) : write_zeros(fp, sz[i]));
        pos = off[i] + sz[i];
    }
    if (ok) {
        st = etp_atomic_commit(&out, err);
    } else {
        etp_atomic_abort(&out);
        st = etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "write error");
    }
    free(wbuf); /* after the stream that used it is closed */
    if (st)
        goto done;
    if (bytes)
        *bytes = base + seg_total;
done:
    fbb_free(&b);
    gen_vec_free(&offs);
    gen_vec_free(&sizes);
    gen_vec_free(&scratch);
    gen_vec_free(&plan_refs);
    return st;
}
