/* tensor_set.c - every value a run logged, read from its debug buffer and
 * attributed like a timing (etprof/tensors.h).
 *
 * Which program value a debug event is, read from the runtime's code (see
 * ../shared/specs/executorch-formats.md §1.6): a KernelCall logs its out
 * arguments, which are the last arguments of the call (the out= tensors,
 * then the same values again as the return), so the m values one
 * instruction logged in one execution are its last m arguments; a
 * DelegateCall logs every argument in order after the call; a program
 * output is the method's output of the same position. A value whose
 * element type disagrees with the program's is left unattributed
 * (value_index -1) rather than guessed. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/numerics/numerics_internal.h"
#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/program.h"
#include "etprof/tensors.h"
#include "analysis/numerics/tensor_decode.h"
#include "util/hashmap.h"
#include "util/str.h"

const char *etp_tensor_origin_name(etp_tensor_origin o)
{
    switch (o) {
    case ETP_TENSOR_INSTRUCTION: return "instruction";
    case ETP_TENSOR_DELEGATE: return "delegate";
    case ETP_TENSOR_PROGRAM_OUTPUT: return "program_output";
    }
    return "?";
}

void etp_tensors_options_init(etp_tensors_options *o)
{
    memset(o, 0, sizeof *o);
    o->testset = -1;
    o->log_testset = -1;
    o->tol = ETP_TOLERANCE_DEFAULT;
}

static etp_status oom(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}

/* Execution position of RunData @p run, or -1. */
static int32_t execution_of(const etp_analysis *a, uint32_t run)
{
    uint32_t e = etp_analysis_execution_of_run(a, run);
    return e == UINT32_MAX ? -1 : (int32_t)e;
}

/* The scale and zero point of each value the program quantizes: outputs of
 * quantize_per_tensor, inputs of dequantize_per_tensor, when both arguments
 * are constants (Double, Int). */
static etp_status quant_map(const etp_plan *plan, const etp_program *p, etp_quant_params **out, etp_error *err)
{
    *out = NULL;
    if (!plan || !plan->value_count)
        return ETP_OK;
    etp_quant_params *q = calloc(plan->value_count, sizeof *q);
    if (!q)
        return oom(err);
    (void)p;
    for (uint32_t c = 0; c < plan->chain_count; c++) {
        const etp_chain *ch = &plan->chains[c];
        for (uint32_t i = 0; i < ch->instruction_count; i++) {
            const etp_instruction *in = &ch->instructions[i];
            if (in->kind != ETP_INSTR_KERNEL || in->a < 0 || (uint32_t)in->a >= plan->operator_count ||
                in->arg_count < 4)
                continue;
            const char *name = plan->operators[in->a].name;
            if (!name)
                continue;
            int deq = strstr(name, "dequantize_per_tensor") != NULL;
            int quant = !deq && strstr(name, "quantize_per_tensor") != NULL;
            if (!deq && !quant)
                continue;
            int32_t vs = in->args[1], vz = in->args[2];
            int32_t target = deq ? in->args[0] : in->args[in->arg_count - 1];
            if (vs < 0 || vz < 0 || target < 0 || (uint32_t)vs >= plan->value_count ||
                (uint32_t)vz >= plan->value_count || (uint32_t)target >= plan->value_count)
                continue;
            const etp_evalue *s = &plan->values[vs], *z = &plan->values[vz];
            if (s->kind != ETP_EV_DOUBLE || z->kind != ETP_EV_INT || !(s->d > 0) || !isfinite(s->d))
                continue;
            q[target].present = 1;
            q[target].scale = s->d;
            q[target].zero_point = z->i;
        }
    }
    *out = q;
    return ETP_OK;
}

/* The instruction or delegate-event entity a debug event belongs to. */
static const etp_entity *entity_of(const etp_analysis *a, const etp_entity *const *by_instr, uint32_t n_instr,
                                   const etp_debug_event *ev)
{
    if (ev->chain_index != 0 || ev->instruction_id < 0 || (uint32_t)ev->instruction_id >= n_instr)
        return NULL;
    const etp_entity *ie = by_instr[ev->instruction_id];
    if (ev->delegate_id_int == -1 && !ev->delegate_id_str)
        return ie;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind != ETP_ENTITY_DELEGATE_EVENT || e->instruction != ev->instruction_id || e->chain != 0)
            continue;
        if (ev->delegate_id_str ? !e->delegate_id_is_int && e->op_type && !strcmp(e->op_type, ev->delegate_id_str)
                                : e->delegate_id_is_int && e->delegate_id_int == ev->delegate_id_int)
            return e;
    }
    return NULL;
}

/* The instruction's key: its entity's id, or the analysis' naming. */
static char *instr_key(const etp_analysis *a, const etp_entity *e, const etp_debug_event *ev)
{
    if (e && e->kind == ETP_ENTITY_INSTRUCTION)
        return etp_strdup(e->id);
    return etp_strprintf("%s_%" PRIu64 "_%" PRId32, a->method ? a->method : "method", ev->chain_index,
                         ev->instruction_id);
}

typedef struct builder {
    const etp_analysis *a;
    const etp_tensors_options *o;
    const char *path;            /* the ETDump's */
    etp_tensor_set *s;
    size_t cap;
    const etp_entity **by_instr;
    uint32_t n_instr;
    etp_quant_params *quant;     /* per program value, or NULL */
    uint32_t *per_instr;         /* this run's values logged per instruction so far */
    uint32_t *instr_total;       /* this run's values logged per instruction */
    uint32_t outputs_seen;       /* this run's program outputs so far */
    const char **ops_of_instr;   /* per instruction id: its source operators, or NULL */
} builder;

static etp_status push(builder *b, etp_logged_tensor **out, etp_error *err)
{
    etp_tensor_set *s = b->s;
    if (s->count == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        etp_logged_tensor *ni = realloc(s->items, nc * sizeof *ni);
        if (!ni)
            return oom(err);
        s->items = ni;
        b->cap = nc;
    }
    *out = &s->items[s->count++];
    memset(*out, 0, sizeof **out);
    return ETP_OK;
}

/* The program value a logged value is (-1 when not known). */
static int32_t value_index_of(const builder *b, const etp_debug_event *ev, uint32_t position, int8_t st)
{
    const etp_plan *plan = b->a->plan;
    if (!plan)
        return -1;
    int32_t v = -1;
    if (ev->is_output) {
        if (position < plan->output_count)
            v = plan->outputs[position];
    } else if (ev->delegate_id_int == -1 && !ev->delegate_id_str && ev->chain_index < plan->chain_count &&
               ev->instruction_id >= 0 &&
               (uint32_t)ev->instruction_id < plan->chains[ev->chain_index].instruction_count) {
        const etp_instruction *in = &plan->chains[ev->chain_index].instructions[ev->instruction_id];
        uint32_t m = (uint32_t)ev->instruction_id < b->n_instr ? b->instr_total[ev->instruction_id] : 0;
        if (in->kind == ETP_INSTR_KERNEL && m && m <= in->arg_count && position < m)
            v = in->args[in->arg_count - m + position];
        else if (in->kind == ETP_INSTR_DELEGATE && position < in->arg_count)
            v = in->args[position];
    }
    if (v < 0 || (uint32_t)v >= plan->value_count)
        return -1;
    const etp_evalue *val = &plan->values[v];
    if (val->kind == ETP_EV_TENSOR && ev->value_type == ETP_VAL_TENSOR)
        return val->scalar_type == st ? v : -1;
    if (val->kind == ETP_EV_TENSOR_LIST && ev->value_type == ETP_VAL_TENSOR_LIST)
        return v;
    if ((val->kind == ETP_EV_INT && ev->value_type == ETP_VAL_INT) ||
        (val->kind == ETP_EV_BOOL && ev->value_type == ETP_VAL_BOOL) ||
        (val->kind == ETP_EV_DOUBLE && ev->value_type == ETP_VAL_DOUBLE))
        return v;
    return -1;
}

/* Position of a delegate's value among those of the same instruction and
 * delegate id earlier in the run. */
static uint32_t delegate_position(const builder *b, uint32_t first_of_run, const etp_debug_event *ev)
{
    uint32_t n = 0;
    for (uint32_t i = first_of_run; i < b->s->count; i++) {
        const etp_logged_tensor *t = &b->s->items[i];
        if (t->origin == ETP_TENSOR_DELEGATE && t->item == 0 && t->instruction == ev->instruction_id &&
            t->delegate_id_int == ev->delegate_id_int &&
            (ev->delegate_id_str ? t->delegate_id_str && !strcmp(t->delegate_id_str, ev->delegate_id_str)
                                 : !t->delegate_id_str))
            n++;
    }
    return n;
}

static etp_status add_value(builder *b, uint32_t r, uint32_t j, const etp_debug_event *ev, uint32_t position,
                            uint32_t k, int32_t execution, etp_error *err)
{
    const etp_analysis *a = b->a;
    char what[160];
    snprintf(what, sizeof what, "run %" PRIu32 " event %" PRIu32 " tensor %" PRIu32, r, j, k);
    etp_logged_tensor *t = NULL;
    etp_status st = push(b, &t, err);
    if (st)
        return st;
    t->run = r;
    t->execution = execution;
    t->event = j;
    t->event_offset = ev->offset;
    t->item = k;
    t->position = position;
    t->origin = ev->is_output ? ETP_TENSOR_PROGRAM_OUTPUT
                : (ev->delegate_id_int != -1 || ev->delegate_id_str) ? ETP_TENSOR_DELEGATE
                                                                     : ETP_TENSOR_INSTRUCTION;
    t->chain = ev->is_output ? -1 : (int32_t)ev->chain_index;
    t->instruction = ev->is_output ? -1 : ev->instruction_id;
    t->delegate_id_int = ev->delegate_id_int;
    t->delegate_id_str = ev->delegate_id_str;
    t->name = ev->name;
    t->value_type = ev->value_type;
    t->buffer_offset = -1;
    t->entity = ev->is_output ? NULL : entity_of(a, b->by_instr, b->n_instr, ev);
    if (!ev->is_output && ev->chain_index == 0 && ev->instruction_id >= 0 && (uint32_t)ev->instruction_id < b->n_instr)
        t->source_operators = b->ops_of_instr[ev->instruction_id];
    int8_t scalar_type;
    if (ev->value_type == ETP_VAL_TENSOR || ev->value_type == ETP_VAL_TENSOR_LIST) {
        etp_dbg_tensor dt;
        if (etp_etdump_debug_tensor(a->etdump, ev, k, &dt))
            return etp_error_set(err, ETP_E_FORMAT, b->path, ev->offset, "%s: no such tensor", what);
        st = etp_tensor_view_init(&t->view, dt.scalar_type, dt.rank, dt.sizes, NULL, NULL, b->path, ev->offset,
                                  what, err);
        if (st)
            return st;
        if (dt.stride_count > ETP_TENSOR_MAX_RANK)
            return etp_error_set(err, ETP_E_FORMAT, b->path, ev->offset, "%s: %" PRIu32 " strides (at most %d)",
                                 what, dt.stride_count, ETP_TENSOR_MAX_RANK);
        t->stride_count = dt.stride_count;
        for (uint32_t d = 0; d < dt.stride_count; d++)
            t->strides[d] = dt.strides[d];
        scalar_type = dt.scalar_type;
        b->s->tensors++;
        if (dt.offset == -1) {
            b->s->without_bytes++;
        } else if (dt.offset < 0) {
            return etp_error_set(err, ETP_E_FORMAT, b->path, ev->offset,
                                 "%s has offset %" PRId64 " (only -1, no bytes, may be negative)", what, dt.offset);
        } else if (b->o->buffer) {
            if ((uint64_t)dt.offset > b->o->buffer_size || t->view.nbytes > b->o->buffer_size - (uint64_t)dt.offset)
                return etp_error_set(err, ETP_E_MISMATCH, b->path, ev->offset,
                                     "%s at offset %" PRId64 " (%" PRIu64 " bytes) lies outside the %" PRIu64
                                     "-byte debug buffer %s: not this run's buffer, or cut short",
                                     what, dt.offset, t->view.nbytes, b->o->buffer_size, b->s->buffer_name);
            t->view.data = b->o->buffer + dt.offset;
            t->has_bytes = 1;
            t->buffer_offset = dt.offset;
            b->s->bytes += t->view.nbytes;
        }
    } else {
        /* A scalar: a rank-0 view of its own eight bytes (pointed at once
         * the items stop moving). */
        b->s->scalars++;
        double d = ev->double_value;
        int64_t i = ev->value_type == ETP_VAL_BOOL ? ev->bool_value : ev->int_value;
        scalar_type = ev->value_type == ETP_VAL_DOUBLE || ev->value_type == ETP_VAL_FLOAT ? ETP_ST_DOUBLE
                      : ev->value_type == ETP_VAL_BOOL                                   ? ETP_ST_BOOL
                                                                                         : ETP_ST_LONG;
        if (ev->value_type == ETP_VAL_DOUBLE || ev->value_type == ETP_VAL_FLOAT)
            memcpy(t->scalar_bytes, &d, sizeof d);
        else if (ev->value_type == ETP_VAL_BOOL)
            t->scalar_bytes[0] = (uint8_t)(i != 0);
        else
            memcpy(t->scalar_bytes, &i, sizeof i);
        if (ev->value_type == ETP_VAL_NULL || ev->value_type == ETP_VAL_STRING || !ev->has_value)
            scalar_type = -1; /* nothing to read: listed only */
        else
            st = etp_tensor_view_init(&t->view, scalar_type, 0, NULL, NULL, NULL, b->path, ev->offset, what, err);
        if (st)
            return st;
        t->has_bytes = scalar_type >= 0;
    }
    t->dtype_class = scalar_type >= 0 ? etp_dtype_class_of(scalar_type) : ETP_DTYPE_UNKNOWN;
    if (t->dtype_class == ETP_DTYPE_UNKNOWN || t->dtype_class == ETP_DTYPE_UNDECODED)
        b->s->not_decoded++;
    if (t->origin == ETP_TENSOR_PROGRAM_OUTPUT)
        b->s->program_outputs++;
    t->value_index = value_index_of(b, ev, position, scalar_type);
    if (t->value_index >= 0 && b->quant && ev->value_type == ETP_VAL_TENSOR)
        t->quant = b->quant[t->value_index];
    /* The key. */
    char *base = NULL;
    if (t->origin == ETP_TENSOR_PROGRAM_OUTPUT)
        t->key = etp_strprintf("output/%" PRIu32, position);
    else if (!(base = instr_key(a, t->entity && t->entity->kind == ETP_ENTITY_INSTRUCTION ? t->entity : NULL, ev)))
        return oom(err);
    else if (t->origin == ETP_TENSOR_INSTRUCTION)
        t->key = etp_strprintf("%s/%" PRIu32, base, position);
    else if (ev->delegate_id_str)
        t->key = etp_strprintf("%s/delegate/%s/%" PRIu32, base, ev->delegate_id_str, position);
    else
        t->key = etp_strprintf("%s/delegate/%" PRId32 "/%" PRIu32, base, ev->delegate_id_int, position);
    free(base);
    if (k && t->key) { /* a tensor-list item: its own key */
        char *kk = etp_strprintf("%s.%" PRIu32, t->key, k);
        free(t->key);
        t->key = kk;
    }
    return t->key ? ETP_OK : oom(err);
}

/* This run's values per instruction (a KernelCall's m logged values are its
 * last m arguments: m must be known first). */
static etp_status count_run(builder *b, const etp_run *run, etp_error *err)
{
    memset(b->instr_total, 0, b->n_instr * sizeof *b->instr_total);
    memset(b->per_instr, 0, b->n_instr * sizeof *b->per_instr);
    (void)err;
    for (uint32_t j = 0; j < run->event_count; j++) {
        etp_event ev;
        etp_etdump_event(b->a->etdump, run, j, &ev);
        if (!(ev.kinds & ETP_EV_DEBUG) || ev.debug.is_output || ev.debug.delegate_id_int != -1 ||
            ev.debug.delegate_id_str || ev.debug.chain_index != 0 || ev.debug.instruction_id < 0 ||
            (uint32_t)ev.debug.instruction_id >= b->n_instr)
            continue;
        b->instr_total[ev.debug.instruction_id]++;
    }
    return ETP_OK;
}

/* The instructions' entities by instruction id, and the counters' size. */
static etp_status index_instructions(builder *b, etp_error *err)
{
    const etp_analysis *a = b->a;
    uint32_t n = a->plan && a->plan->chain_count ? a->plan->chains[0].instruction_count : 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION && a->entities[i].chain == 0 &&
            a->entities[i].instruction >= 0 && (uint32_t)a->entities[i].instruction >= n)
            n = (uint32_t)a->entities[i].instruction + 1;
    /* Without a program, debug events of instructions the analysis has no
     * entity for still count: size the counters by the largest id logged
     * (capped: ids past it get no position of their own). */
    uint32_t runs = etp_etdump_run_count(a->etdump);
    for (uint32_t r = 0; r < runs && !a->plan; r++) {
        etp_run run;
        etp_etdump_run(a->etdump, r, &run);
        for (uint32_t j = 0; j < run.event_count; j++) {
            etp_event ev;
            etp_etdump_event(a->etdump, &run, j, &ev);
            if ((ev.kinds & ETP_EV_DEBUG) && ev.debug.chain_index == 0 && ev.debug.instruction_id >= 0 &&
                (uint32_t)ev.debug.instruction_id >= n && ev.debug.instruction_id < (1 << 24))
                n = (uint32_t)ev.debug.instruction_id + 1;
        }
    }
    b->n_instr = n;
    b->by_instr = calloc(n ? n : 1, sizeof *b->by_instr);
    b->per_instr = calloc(n ? n : 1, sizeof *b->per_instr);
    b->instr_total = calloc(n ? n : 1, sizeof *b->instr_total);
    if (!b->by_instr || !b->per_instr || !b->instr_total)
        return oom(err);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == ETP_ENTITY_INSTRUCTION && e->chain == 0 && e->instruction >= 0 && (uint32_t)e->instruction < n)
            b->by_instr[e->instruction] = e;
    }
    return ETP_OK;
}

/* Each instruction's source operators, joined once: the operator entities
 * name the instructions that ran them (by id). */
static etp_status join_operators(builder *b, etp_error *err)
{
    const etp_analysis *a = b->a;
    etp_tensor_set *s = b->s;
    if (!(b->ops_of_instr = calloc(b->n_instr ? b->n_instr : 1, sizeof *b->ops_of_instr)))
        return oom(err);
    etp_hm ids;
    etp_hm_init(&ids);
    etp_status st = ETP_OK;
    for (uint32_t i = 0; i < b->n_instr && !st; i++)
        if (b->by_instr[i] && etp_hm_put(&ids, etp_hash_bytes(b->by_instr[i]->id, strlen(b->by_instr[i]->id), 0), i))
            st = oom(err);
    char **text = calloc(b->n_instr ? b->n_instr : 1, sizeof *text);
    if (!text)
        st = oom(err);
    for (uint32_t e = 0; e < a->entity_count && !st; e++) {
        const etp_entity *op = &a->entities[e];
        if (op->kind != ETP_ENTITY_OPERATOR)
            continue;
        for (uint32_t k = 0; k < op->instruction_count && !st; k++) {
            const char *id = op->instructions[k];
            size_t cur = 0;
            uint32_t ii;
            while (etp_hm_next(&ids, etp_hash_bytes(id, strlen(id), 0), &cur, &ii)) {
                if (strcmp(b->by_instr[ii]->id, id))
                    continue;
                char *nt = text[ii] ? etp_strprintf("%s;%s", text[ii], op->id) : etp_strdup(op->id);
                if (!nt) {
                    st = oom(err);
                    break;
                }
                free(text[ii]);
                text[ii] = nt;
                break;
            }
        }
    }
    etp_hm_free(&ids);
    /* The set owns the strings. */
    for (uint32_t i = 0; text && i < b->n_instr; i++) {
        if (!text[i])
            continue;
        if (st) {
            free(text[i]);
            continue;
        }
        s->op_texts[s->op_text_count++] = text[i];
        b->ops_of_instr[i] = text[i];
    }
    free(text);
    return st;
}

static etp_status read_all(builder *b, etp_error *err)
{
    const etp_analysis *a = b->a;
    uint32_t runs = etp_etdump_run_count(a->etdump);
    for (uint32_t r = 0; r < runs; r++) {
        etp_run run;
        etp_etdump_run(a->etdump, r, &run);
        etp_status st = count_run(b, &run, err);
        if (st)
            return st;
        b->outputs_seen = 0;
        uint32_t first_of_run = b->s->count;
        int32_t execution = execution_of(a, r);
        for (uint32_t j = 0; j < run.event_count; j++) {
            etp_event ev;
            etp_etdump_event(a->etdump, &run, j, &ev);
            if (!(ev.kinds & ETP_EV_DEBUG))
                continue;
            const etp_debug_event *de = &ev.debug;
            uint32_t position;
            if (de->is_output)
                position = b->outputs_seen++;
            else if (de->delegate_id_int != -1 || de->delegate_id_str)
                position = delegate_position(b, first_of_run, de);
            else if (de->chain_index == 0 && de->instruction_id >= 0 && (uint32_t)de->instruction_id < b->n_instr)
                position = b->per_instr[de->instruction_id]++;
            else
                position = 0;
            uint32_t n = de->value_type == ETP_VAL_TENSOR || de->value_type == ETP_VAL_TENSOR_LIST
                             ? de->tensor_count : 1;
            for (uint32_t k = 0; k < n; k++)
                if ((st = add_value(b, r, j, de, position, k, execution, err)))
                    return st;
        }
    }
    return ETP_OK;
}

etp_status etp_tensors_build(const etp_analysis *a, const etp_tensors_options *o, etp_tensor_set **out,
                             etp_error *err)
{
    *out = NULL;
    builder b;
    memset(&b, 0, sizeof b);
    b.a = a;
    b.o = o;
    b.path = etp_etdump_path(a->etdump);
    if (!etp_etdump_verified(a->etdump))
        return etp_error_set(err, ETP_E_USAGE, b.path, ETP_NO_OFFSET, "tensors are read from a verified ETDump only");
    etp_tensor_set *s = calloc(1, sizeof *s);
    if (!s || !(s->buffer_name = etp_strdup(o->buffer_name ? o->buffer_name : "the debug buffer"))) {
        free(s);
        return oom(err);
    }
    s->buffer_size = o->buffer ? o->buffer_size : 0;
    b.s = s;
    etp_status st = quant_map(a->plan, a->program, &b.quant, err);
    if (!st)
        st = index_instructions(&b, err);
    if (!st && !(s->op_texts = calloc(b.n_instr ? b.n_instr : 1, sizeof *s->op_texts)))
        st = oom(err);
    if (!st)
        st = join_operators(&b, err);
    if (!st)
        st = read_all(&b, err);
    /* The items stop moving: point the scalars at their bytes, and read. */
    for (uint32_t i = 0; !st && i < s->count; i++) {
        etp_logged_tensor *t = &s->items[i];
        if (t->value_type != ETP_VAL_TENSOR && t->value_type != ETP_VAL_TENSOR_LIST && t->has_bytes)
            t->view.data = t->scalar_bytes;
        etp_tensor_stats_compute(&t->view, &t->stats);
    }
    if (!st)
        st = etp_bundled_check_run(a, s, o, err);
    free(b.by_instr);
    free(b.per_instr);
    free(b.instr_total);
    free(b.quant);
    free(b.ops_of_instr);
    if (st) {
        etp_tensor_set_free(s);
        return st;
    }
    *out = s;
    return ETP_OK;
}

void etp_tensor_set_free(etp_tensor_set *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->count; i++)
        free(s->items[i].key);
    free(s->items);
    for (uint32_t i = 0; i < s->op_text_count; i++)
        free(s->op_texts[i]);
    free(s->op_texts);
    free(s->bundled.outputs);
    free(s->buffer_name);
    free(s);
}

const etp_logged_tensor *etp_tensor_set_find(const etp_tensor_set *s, const char *key, int32_t execution)
{
    for (uint32_t i = 0; s && i < s->count; i++)
        if (s->items[i].execution == execution && !strcmp(s->items[i].key, key))
            return &s->items[i];
    return NULL;
}

const etp_tensor_set *etp_analysis_tensor_set(const etp_analysis *a)
{
    return a ? a->tensors : NULL;
}
