/* gen_model.c - building a gm_program (see gen_model.h). */
#include "gen/gen_model.h"

#include <stdlib.h>
#include <string.h>

#include "formats/flatbuffers/schemas.h"

static void method_init(gm_method *m, const char *name)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    gen_vec_init(&m->values, sizeof(gm_value));
    gen_vec_init(&m->lists, sizeof(int64_t));
    gen_vec_init(&m->args, sizeof(int32_t));
    gen_vec_init(&m->instrs, sizeof(gm_instr));
    gen_vec_init(&m->ops, sizeof(gm_operator));
    gen_vec_init(&m->delegates, sizeof(gm_delegate));
    gen_vec_init(&m->handles, sizeof(int32_t));
    gen_vec_init(&m->devs, sizeof(gm_dev));
    gen_vec_init(&m->inputs, sizeof(int32_t));
    gen_vec_init(&m->outputs, sizeof(int32_t));
    gen_vec_init(&m->nodes, sizeof(gm_node));
    gen_vec_init(&m->tmeta, sizeof(gm_tmeta));
    gen_vec_init(&m->ginputs, sizeof(gm_ginput));
}

static gen_vec *method_vecs(gm_method *m, int i)
{
    gen_vec *all[] = {&m->values, &m->lists, &m->args, &m->instrs, &m->ops, &m->delegates,
                      &m->handles, &m->devs, &m->inputs, &m->outputs, &m->nodes, &m->tmeta,
                      &m->ginputs};
    return i < (int)(sizeof all / sizeof all[0]) ? all[i] : NULL;
}

void gm_init(gm_program *p)
{
    memset(p, 0, sizeof *p);
    gen_vec_init(&p->segments, sizeof(gm_segment));
    gen_vec_init(&p->const_offsets, sizeof(uint64_t));
    gen_vec_init(&p->const_bytes, 1);
    gen_vec_init(&p->const_dedup, sizeof(uint64_t) * 2);
    uint64_t zero = 0;
    gen_vec_append(&p->const_offsets, &zero, 1); /* index 0: "not a constant" */
}

void gm_free(gm_program *p)
{
    for (int i = 0; i < p->nmethods; i++)
        for (int k = 0; method_vecs(&p->methods[i], k); k++)
            gen_vec_free(method_vecs(&p->methods[i], k));
    gen_vec_free(&p->segments);
    gen_vec_free(&p->const_offsets);
    gen_vec_free(&p->const_bytes);
    gen_vec_free(&p->const_dedup);
    gen_arena_free(&p->arena);
}

int gm_failed(const gm_program *p)
{
    if (p->arena.failed || p->segments.failed || p->const_offsets.failed ||
        p->const_bytes.failed || p->const_dedup.failed)
        return 1;
    for (int i = 0; i < p->nmethods; i++) {
        gm_method *m = (gm_method *)&p->methods[i];
        for (int k = 0; method_vecs(m, k); k++)
            if (method_vecs(m, k)->failed)
                return 1;
    }
    return 0;
}

gm_method *gm_add_method(gm_program *p, const char *name)
{
    if (p->nmethods >= GM_MAX_METHODS)
        return NULL;
    gm_method *m = &p->methods[p->nmethods++];
    method_init(m, name);
    return m;
}

static gm_value *new_value(gm_method *m, uint8_t kind, uint32_t *idx)
{
    *idx = (uint32_t)m->values.len;
    gm_value *v = gen_vec_push(&m->values);
    if (v)
        v->kind = kind;
    return v;
}

uint32_t gm_int(gm_method *m, int64_t val)
{
    uint32_t i;
    gm_value *v = new_value(m, PTE_V_INT, &i);
    if (v)
        v->i = val;
    return i;
}

uint32_t gm_bool(gm_method *m, int val)
{
    uint32_t i;
    gm_value *v = new_value(m, PTE_V_BOOL, &i);
    if (v)
        v->i = val != 0;
    return i;
}

uint32_t gm_double(gm_method *m, double val)
{
    uint32_t i;
    gm_value *v = new_value(m, PTE_V_DOUBLE, &i);
    if (v)
        v->d = val;
    return i;
}

uint32_t gm_int_list(gm_method *m, const int64_t *vals, int n)
{
    int64_t items[GM_MAX_RANK * 2];
    if (n > (int)(sizeof items / sizeof items[0]))
        n = (int)(sizeof items / sizeof items[0]);
    for (int k = 0; k < n; k++)
        items[k] = gm_int(m, vals[k]);
    uint32_t i;
    gm_value *v = new_value(m, PTE_V_INT_LIST, &i);
    if (v) {
        v->list_start = (uint32_t)gen_vec_append(&m->lists, items, (size_t)n);
        v->list_count = (uint32_t)n;
    }
    return i;
}

uint64_t gm_tensor_bytes(const gm_value *v)
{
    uint64_t n = 1;
    for (int k = 0; k < v->rank; k++)
        n *= (uint64_t)(v->sizes[k] > 0 ? v->sizes[k] : 0);
    uint64_t es = v->scalar_type == GM_ST_LONG ? 8 : v->scalar_type == GM_ST_BOOL || v->scalar_type == GM_ST_CHAR ? 1 : 4;
    return n * es;
}

static gm_value *tensor_value(gm_method *m, int8_t st, int rank, const int32_t *sizes,
                              uint32_t *idx)
{
    gm_value *v = new_value(m, PTE_V_TENSOR, idx);
    if (!v)
        return NULL;
    v->scalar_type = st;
    v->rank = (uint8_t)(rank > GM_MAX_RANK ? GM_MAX_RANK : rank);
    for (int k = 0; k < v->rank; k++)
        v->sizes[k] = sizes[k];
    return v;
}

uint32_t gm_tensor(gm_method *m, int8_t st, int rank, const int32_t *sizes)
{
    uint32_t i;
    gm_value *v = tensor_value(m, st, rank, sizes, &i);
    if (!v)
        return i;
    v->planned = 1;
    uint64_t bytes = (gm_tensor_bytes(v) + 15) & ~(uint64_t)15;
    if (m->ring_slots && bytes <= m->ring_slot_bytes) {
        uint32_t slot = m->ring_next++ % m->ring_slots;
        v->mem_offset = (uint64_t)slot * m->ring_slot_bytes;
        uint64_t end = (uint64_t)(slot + 1) * m->ring_slot_bytes;
        if (m->planned_bytes < end)
            m->planned_bytes = end;
    } else {
        v->mem_offset = m->planned_bytes;
        m->planned_bytes += bytes;
    }
    return i;
}

uint32_t gm_view(gm_method *m, uint32_t base, int rank, const int32_t *sizes)
{
    uint64_t off = base < m->values.len ? GEN_AT(&m->values, gm_value, base).mem_offset : 0;
    int8_t st = base < m->values.len ? GEN_AT(&m->values, gm_value, base).scalar_type : GM_ST_FLOAT;
    uint32_t i;
    gm_value *v = tensor_value(m, st, rank, sizes, &i);
    if (v) {
        v->planned = 1;
        v->mem_offset = off;
    }
    return i;
}

uint32_t gm_const_tensor(gm_program *p, gm_method *m, int8_t st, int rank, const int32_t *sizes,
                         gen_rng *rng)
{
    uint32_t i;
    gm_value *v = tensor_value(m, st, rank, sizes, &i);
    if (!v)
        return i;
    uint64_t bytes = gm_tensor_bytes(v);
    if (!rng) {
        for (size_t k = 0; k < p->const_dedup.len; k++) {
            const uint64_t *e = (const uint64_t *)p->const_dedup.items + 2 * k;
            if (e[0] == bytes) {
                v->data_buffer_idx = (uint32_t)e[1];
                return i;
            }
        }
    }
    /* Constant tensors are 16-byte aligned in the segment. */
    size_t pad = (16 - (p->const_bytes.len & 15)) & 15;
    size_t at = p->const_bytes.len + pad;
    if (!gen_vec_extend(&p->const_bytes, pad + bytes))
        return i;
    if (rng && st == GM_ST_FLOAT) {
        for (uint64_t k = 0; k + 4 <= bytes; k += 4) {
            float f = (float)((gen_unif(rng) - 0.5) * 0.2);
            memcpy((uint8_t *)p->const_bytes.items + at + k, &f, 4);
        }
    }
    uint64_t off = at;
    v->data_buffer_idx = (uint32_t)gen_vec_append(&p->const_offsets, &off, 1);
    if (!rng) {
        uint64_t e[2] = {bytes, v->data_buffer_idx};
        gen_vec_append(&p->const_dedup, e, 1);
    }
    return i;
}

uint32_t gm_op(gm_program *p, gm_method *m, const char *name, const char *overload)
{
    for (size_t k = 0; k < m->ops.len; k++) {
        const gm_operator *o = &GEN_AT(&m->ops, gm_operator, k);
        if (!strcmp(o->name, name) && !strcmp(o->overload, overload))
            return (uint32_t)k;
    }
    gm_operator *o = gen_vec_push(&m->ops);
    if (!o)
        return 0;
    o->name = name;
    o->overload = overload;
    const char *bare = strstr(name, "::");
    o->native = gen_printf(&p->arena, "native_call_%s.%s", bare ? bare + 2 : name, overload);
    o->native_len = o->native ? (uint32_t)strlen(o->native) : 0;
    return (uint32_t)(m->ops.len - 1);
}

static gm_instr *add_instr(gm_method *m, uint8_t kind, uint32_t index, const uint32_t *args,
                           int nargs, const int32_t *handles, int nhandles, double base_ns)
{
    gm_instr *in = gen_vec_push(&m->instrs);
    if (!in)
        return NULL;
    in->kind = kind;
    in->index = index;
    in->base_ns = base_ns;
    in->arg_start = (uint32_t)m->args.len;
    for (int k = 0; k < nargs; k++) {
        int32_t a = (int32_t)args[k];
        gen_vec_append(&m->args, &a, 1);
    }
    in->arg_count = (uint32_t)nargs;
    in->handle_start = (uint32_t)gen_vec_append(&m->handles, handles, (size_t)nhandles);
    in->handle_count = (uint32_t)nhandles;
    in->dev_start = (uint32_t)m->devs.len;
    return in;
}

gm_instr *gm_kernel(gm_method *m, uint32_t op, const uint32_t *args, int nargs,
                    const int32_t *handles, int nhandles, double base_ns)
{
    return add_instr(m, PTE_I_KERNEL, op, args, nargs, handles, nhandles, base_ns);
}

gm_instr *gm_delegate_call(gm_method *m, uint32_t delegate, const uint32_t *args, int nargs,
                           const int32_t *handles, int nhandles, double base_ns,
                           uint32_t num_outs)
{
    gm_instr *in = add_instr(m, PTE_I_DELEGATE, delegate, args, nargs, handles, nhandles, base_ns);
    if (in)
        in->num_outs = num_outs;
    return in;
}

void gm_dev_event(gm_method *m, int32_t id_int, const char *id_str, double share,
                  const int32_t *handles, int nhandles)
{
    if (!m->instrs.len)
        return;
    gm_instr *in = &GEN_AT(&m->instrs, gm_instr, m->instrs.len - 1);
    gm_dev *d = gen_vec_push(&m->devs);
    if (!d)
        return;
    d->id_int = id_int;
    d->id_str = id_str;
    d->share = share;
    d->map_str = 0;
    d->handle_start = (uint32_t)gen_vec_append(&m->handles, handles, (size_t)nhandles);
    d->handle_count = (uint32_t)nhandles;
    in->dev_count++;
}

uint32_t gm_segment_add(gm_program *p, uint64_t size, uint8_t *data)
{
    gm_segment *s = gen_vec_push(&p->segments);
    if (s) {
        s->size = size;
        s->data = data;
    }
    /* Program.segments[0] is always the constant segment (see gen_pte.c). */
    return (uint32_t)p->segments.len;
}

gm_node *gm_node_add(gm_method *m, const char *name, const char *target, int32_t handle)
{
    gm_node *n = gen_vec_push(&m->nodes);
    if (n) {
        n->name = name;
        n->target = target;
        n->handle = handle;
    }
    return n;
}

static gm_arg *node_arg(gm_node *n, const char *name, uint8_t kind)
{
    if (!n || n->nargs >= GM_MAX_NODE_ARGS)
        return NULL;
    gm_arg *a = &n->args[n->nargs++];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->kind = kind;
    return a;
}

void gm_arg_tensor(gm_node *n, const char *name, const char *tensor)
{
    gm_arg *a = node_arg(n, name, GA_TENSOR);
    if (a)
        a->tensor = tensor;
}

void gm_arg_int(gm_node *n, const char *name, int64_t v)
{
    gm_arg *a = node_arg(n, name, GA_INT);
    if (a)
        a->i = v;
}

void gm_arg_bool(gm_node *n, const char *name, int v)
{
    gm_arg *a = node_arg(n, name, GA_BOOL);
    if (a)
        a->i = v != 0;
}

void gm_arg_ints(gm_node *n, const char *name, const int64_t *v, int count)
{
    gm_arg *a = node_arg(n, name, GA_INTS);
    if (!a)
        return;
    a->nints = (uint8_t)(count > GM_MAX_RANK ? GM_MAX_RANK : count);
    for (int k = 0; k < a->nints; k++)
        a->ints[k] = v[k];
}

void gm_tmeta_add(gm_method *m, const char *name, int dtype, int rank, const int64_t *sizes)
{
    gm_tmeta *t = gen_vec_push(&m->tmeta);
    if (!t)
        return;
    t->name = name;
    t->dtype = dtype;
    t->rank = (uint8_t)(rank > GM_MAX_RANK ? GM_MAX_RANK : rank);
    for (int k = 0; k < t->rank; k++)
        t->sizes[k] = sizes[k];
}

void gm_ginput_add(gm_method *m, const char *name, const char *param, int buffer)
{
    gm_ginput *g = gen_vec_push(&m->ginputs);
    if (g) {
        g->name = name;
        g->param = param;
        g->buffer = buffer;
    }
}

const char *gm_encoded_inputs(gm_program *p, int n_inputs)
{
    /* pytree TreeSpec of ((t0, t1, ...), {}) as torch.export serializes it */
    static const char leaf[] = "{\"type\": null, \"context\": null, \"children_spec\": []}";
    size_t cap = 256 + (size_t)n_inputs * (sizeof leaf + 2);
    char *s = gen_alloc(&p->arena, cap);
    if (!s)
        return NULL;
    strcpy(s, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": "
              "[{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    for (int k = 0; k < n_inputs; k++) {
        if (k)
            strcat(s, ", ");
        strcat(s, leaf);
    }
    strcat(s, "]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]");
    return s;
}

const char *gm_encoded_output(void)
{
    return "[1, {\"type\": null, \"context\": null, \"children_spec\": []}]";
}
