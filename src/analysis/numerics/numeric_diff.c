/* numeric_diff.c - two runs' logged values paired and compared, and the
 * first divergence in the base run's order (etprof/numeric_diff.h: the
 * matching levels and every rule are documented there). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/analysis.h"
#include "etprof/numeric_diff.h"
#include "etprof/program.h"
#include "util/hashmap.h"
#include "util/str.h"

const char *etp_numeric_match_level_name(etp_numeric_match_level l)
{
    switch (l) {
    case ETP_NUMERIC_MATCH_KEY: return "key";
    case ETP_NUMERIC_MATCH_DEBUG_HANDLE: return "debug_handle";
    case ETP_NUMERIC_MATCH_SOURCE_OPERATOR: return "source_operator";
    case ETP_NUMERIC_MATCH_OUTPUT_INDEX: return "output_index";
    }
    return "?";
}

void etp_numeric_diff_options_init(etp_numeric_diff_options *o)
{
    memset(o, 0, sizeof *o);
    o->execution = 0;
    o->tol = ETP_TOLERANCE_DEFAULT;
}

static etp_status oom(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
}

/* Chain 0 of both plans: as many instructions, of the same kinds, the
 * kernels calling operators of the same names. */
static int same_plan(const etp_plan *a, const etp_plan *b)
{
    if (!a || !b || !a->chain_count || !b->chain_count)
        return 0;
    const etp_chain *ca = &a->chains[0], *cb = &b->chains[0];
    if (ca->instruction_count != cb->instruction_count)
        return 0;
    for (uint32_t i = 0; i < ca->instruction_count; i++) {
        const etp_instruction *x = &ca->instructions[i], *y = &cb->instructions[i];
        if (x->kind != y->kind)
            return 0;
        if (x->kind != ETP_INSTR_KERNEL)
            continue;
        const char *nx = x->a >= 0 && (uint32_t)x->a < a->operator_count ? a->operators[x->a].name : NULL;
        const char *ny = y->a >= 0 && (uint32_t)y->a < b->operator_count ? b->operators[y->a].name : NULL;
        if (!nx || !ny || strcmp(nx, ny))
            return 0;
    }
    return 1;
}

/* The largest debug handle of a value's entity; 0 when it has none. */
static int largest_handle(const etp_logged_tensor *t, int64_t *out)
{
    const etp_entity *e = t->entity;
    if (!e || !e->handle_count || !e->handles)
        return 0;
    int64_t m = e->handles[0];
    for (uint32_t i = 1; i < e->handle_count; i++)
        if (e->handles[i] > m)
            m = e->handles[i];
    *out = m;
    return 1;
}

static int same_shape(const etp_tensor_view *a, const etp_tensor_view *b)
{
    if (a->rank != b->rank)
        return 0;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d])
            return 0;
    return 1;
}

static uint64_t str_hash(const char *s)
{
    return etp_hash_bytes(s, strlen(s), 0);
}

/* The values of one execution of a set: indices into s->items. */
static etp_status values_of(const etp_tensor_set *s, int32_t execution, uint32_t **out, uint32_t *n, etp_error *err)
{
    *n = 0;
    *out = malloc(((size_t)s->count + 1) * sizeof **out);
    if (!*out)
        return oom(err);
    for (uint32_t i = 0; i < s->count; i++)
        if (s->items[i].execution == execution)
            (*out)[(*n)++] = i;
    return ETP_OK;
}

typedef struct matcher {
    const etp_tensor_set *ns;
    const uint32_t *nv;          /* the new side's values of the execution */
    uint32_t nn;
    uint8_t *used;               /* per nv entry */
    etp_hm by_key, by_handle, by_ops;
    int has_handles;             /* some new value has a debug handle */
} matcher;

static etp_status matcher_init(matcher *m, etp_error *err)
{
    etp_hm_init(&m->by_key);
    etp_hm_init(&m->by_handle);
    etp_hm_init(&m->by_ops);
    if (!(m->used = calloc(m->nn + 1, 1)))
        return oom(err);
    for (uint32_t k = 0; k < m->nn; k++) {
        const etp_logged_tensor *t = &m->ns->items[m->nv[k]];
        int64_t h;
        if (etp_hm_put(&m->by_key, str_hash(t->key), k))
            return oom(err);
        if (largest_handle(t, &h)) {
            m->has_handles = 1;
            if (etp_hm_put(&m->by_handle, etp_hash_u64(0, (uint64_t)h), k))
                return oom(err);
        }
        if (t->source_operators && etp_hm_put(&m->by_ops, str_hash(t->source_operators), k))
            return oom(err);
    }
    return ETP_OK;
}

static void matcher_free(matcher *m)
{
    etp_hm_free(&m->by_key);
    etp_hm_free(&m->by_handle);
    etp_hm_free(&m->by_ops);
    free(m->used);
}

/* The unused new value of the same key, or -1. */
static int64_t match_key(const matcher *m, const etp_logged_tensor *b)
{
    size_t cur = 0;
    uint32_t k;
    while (etp_hm_next(&m->by_key, str_hash(b->key), &cur, &k))
        if (!m->used[k] && !strcmp(m->ns->items[m->nv[k]].key, b->key))
            return k;
    return -1;
}

/* Among the unused new values of the same largest handle (@p ops NULL) or
 * the same source operators: of @p b's shape if any, else any; the last
 * (@p last) or first in the new side's order. */
static int64_t match_group(const matcher *m, const etp_logged_tensor *b, int64_t handle, const char *ops, int last)
{
    int64_t best_shape = -1, best_any = -1;
    size_t cur = 0;
    uint32_t k;
    const etp_hm *hm = ops ? &m->by_ops : &m->by_handle;
    uint64_t h = ops ? str_hash(ops) : etp_hash_u64(0, (uint64_t)handle);
    while (etp_hm_next(hm, h, &cur, &k)) {
        if (m->used[k])
            continue;
        const etp_logged_tensor *t = &m->ns->items[m->nv[k]];
        int64_t th;
        if (ops ? !t->source_operators || strcmp(t->source_operators, ops)
                : !largest_handle(t, &th) || th != handle)
            continue;
        int better_any = best_any < 0 || (last ? k > best_any : k < best_any);
        if (better_any)
            best_any = k;
        if (same_shape(&t->view, &b->view) && (best_shape < 0 || (last ? k > best_shape : k < best_shape)))
            best_shape = k;
    }
    return best_shape >= 0 ? best_shape : best_any;
}

static const char *type_name(int8_t st)
{
    const char *n = etp_scalar_type_name(st);
    return n ? n : "unknown type";
}

/* Compare one pair: the figures, or the reason they cannot be had. */
static etp_status compare_pair(etp_numeric_pair *p, etp_tolerance tol, const char *path, etp_error *err)
{
    const etp_logged_tensor *b = p->base, *n = p->new_;
    p->quantized = b->quant.present || n->quant.present;
    p->primary = p->quantized ? "dequantized" : "values";
    int bint = b->dtype_class == ETP_DTYPE_INTEGER && !b->quant.present;
    int nint = n->dtype_class == ETP_DTYPE_INTEGER && !n->quant.present;
    int bflt = b->dtype_class == ETP_DTYPE_FLOAT || (b->dtype_class == ETP_DTYPE_INTEGER && b->quant.present);
    int nflt = n->dtype_class == ETP_DTYPE_FLOAT || (n->dtype_class == ETP_DTYPE_INTEGER && n->quant.present);
    if ((bint && nflt) || (bflt && nint)) {
        p->reason = etp_strprintf("element types differ: base %s, new %s (an integer against a float, and no "
                                  "quantization parameters say how to read the integers)",
                                  type_name(b->view.scalar_type), type_name(n->view.scalar_type));
        return p->reason ? ETP_OK : oom(err);
    }
    etp_error e;
    etp_error_clear(&e);
    const etp_quant_params *qb = b->quant.present ? &b->quant : NULL, *qn = n->quant.present ? &n->quant : NULL;
    etp_status s = etp_tensor_compare(&b->view, qb, &n->view, qn, tol, path, b->key, &p->gap, &e);
    if (s == ETP_E_MISMATCH) {
        p->reason = etp_strdup(e.message);
        return p->reason ? ETP_OK : oom(err);
    }
    if (s) {
        *err = e;
        return s;
    }
    p->compared = 1;
    p->diverged = p->gap.mismatches > 0;
    if (qb && qn) {
        etp_tensor_gap g;
        if (!etp_tensor_compare(&b->view, NULL, &n->view, NULL, tol, path, b->key, &g, &e)) {
            p->has_stored = 1;
            p->stored = g;
        }
    }
    return ETP_OK;
}

/* What --fail-if-snr-below and the largest error read: NaN (no finite
 * element compared) is -Inf when non-finite values differ, else +Inf. */
static double gate_snr(const etp_numeric_pair *p)
{
    if (!isnan(p->gap.snr_db))
        return p->gap.snr_db;
    return p->gap.nonfinite_diff ? -INFINITY : INFINITY;
}

static int has_error(const etp_numeric_pair *p)
{
    return p->compared && (p->gap.nonfinite_diff || p->gap.max_abs_err > 0 || p->gap.mse > 0);
}

static void summarize(etp_numeric_diff *d)
{
    for (uint32_t i = 0; i < d->pair_count; i++) {
        const etp_numeric_pair *p = &d->pairs[i];
        if (!p->compared) {
            d->incomparable++;
            continue;
        }
        d->compared++;
        if (p->diverged) {
            d->diverged++;
            if (!d->first_divergence)
                d->first_divergence = p;
        }
        if (!has_error(p))
            continue;
        const etp_numeric_pair *l = d->largest;
        if (!l || gate_snr(p) < gate_snr(l) || (gate_snr(p) == gate_snr(l) && p->gap.max_abs_err > l->gap.max_abs_err))
            d->largest = p;
    }
}

static etp_status pair_all(etp_numeric_diff *d, const etp_tensor_set *bs, const uint32_t *bv, uint32_t bn, matcher *m,
                           const char *path, etp_error *err)
{
    if (!(d->pairs = calloc((size_t)bn + 1, sizeof *d->pairs)))
        return oom(err);
    etp_status st = ETP_OK;
    for (uint32_t i = 0; i < bn && !st; i++) {
        const etp_logged_tensor *b = &bs->items[bv[i]];
        etp_numeric_match_level level;
        int64_t k = -1, h;
        if (b->origin == ETP_TENSOR_PROGRAM_OUTPUT) {
            level = ETP_NUMERIC_MATCH_OUTPUT_INDEX;
            k = match_key(m, b);
        } else if (d->same_program) {
            level = ETP_NUMERIC_MATCH_KEY;
            k = match_key(m, b);
        } else if (m->has_handles && largest_handle(b, &h)) {
            level = ETP_NUMERIC_MATCH_DEBUG_HANDLE;
            k = match_group(m, b, h, NULL, 1);
        } else {
            level = ETP_NUMERIC_MATCH_SOURCE_OPERATOR;
            k = b->source_operators ? match_group(m, b, 0, b->source_operators, 0) : -1;
        }
        if (k < 0)
            continue;
        m->used[k] = 1;
        etp_numeric_pair *p = &d->pairs[d->pair_count++];
        p->base = b;
        p->new_ = &m->ns->items[m->nv[k]];
        p->level = level;
        p->order = i;
        st = compare_pair(p, d->tol, path, err);
    }
    return st;
}

static etp_status check_side(const etp_analysis *a, const char *which, int32_t execution, etp_error *err)
{
    if (!a || !a->tensors)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the %s run has no logged values: analyse it with its debug buffer", which);
    (void)execution;
    return ETP_OK;
}

etp_status etp_numeric_diff_build(const etp_analysis *base, const etp_analysis *new_,
                                  const etp_numeric_diff_options *o, etp_numeric_diff **out, etp_error *err)
{
    *out = NULL;
    etp_numeric_diff_options def;
    if (!o) {
        etp_numeric_diff_options_init(&def);
        o = &def;
    }
    if (!(o->tol.rtol >= 0) || !(o->tol.atol >= 0) || !isfinite(o->tol.rtol) || !isfinite(o->tol.atol))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "the tolerance needs rtol and atol from 0");
    if (o->execution < 0)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "the execution index needs to be from 0");
    etp_status st = check_side(base, "base", o->execution, err);
    if (!st)
        st = check_side(new_, "new", o->execution, err);
    if (st)
        return st;
    etp_numeric_diff *d = calloc(1, sizeof *d);
    if (!d)
        return oom(err);
    d->base_method = base->method;
    d->execution = o->execution;
    d->tol = o->tol;
    if (base->program_sha256[0] && new_->program_sha256[0]) {
        d->same_program = !strcmp(base->program_sha256, new_->program_sha256);
        d->level_reason = d->same_program ? "same program SHA-256: values paired by key (instruction id and position)"
                                          : "different programs: values paired by debug handle, else source operator";
    } else {
        d->same_program = same_plan(base->plan, new_->plan);
        d->level_reason = d->same_program
                              ? "same instruction count and kernels: values paired by key (instruction id and position)"
                              : "different instructions or kernels: values paired by debug handle, else source operator";
    }
    uint32_t *bv = NULL, *nv = NULL, bn = 0, nn = 0;
    matcher m;
    memset(&m, 0, sizeof m);
    st = values_of(base->tensors, o->execution, &bv, &bn, err);
    if (!st)
        st = values_of(new_->tensors, o->execution, &nv, &nn, err);
    if (!st && (!bn || !nn))
        st = etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                           "the %s run logged no value in execution %" PRId32 " (it has %" PRIu32 " executions)",
                           !bn ? "base" : "new", o->execution, !bn ? base->execution_count : new_->execution_count);
    m.ns = new_->tensors;
    m.nv = nv;
    m.nn = nn;
    if (!st)
        st = matcher_init(&m, err);
    if (!st)
        st = pair_all(d, base->tensors, bv, bn, &m, base->tensors->buffer_name, err);
    if (!st) {
        d->base_values = bn;
        d->new_values = nn;
        d->base_unmatched = bn - d->pair_count;
        d->new_unmatched = nn - d->pair_count;
        int handle_pairs = 0, op_pairs = 0;
        for (uint32_t i = 0; i < d->pair_count; i++) {
            handle_pairs += d->pairs[i].level == ETP_NUMERIC_MATCH_DEBUG_HANDLE;
            op_pairs += d->pairs[i].level == ETP_NUMERIC_MATCH_SOURCE_OPERATOR;
        }
        d->level = d->same_program ? "key" : handle_pairs || !op_pairs ? "debug_handle" : "source_operator";
        summarize(d);
    }
    matcher_free(&m);
    free(bv);
    free(nv);
    if (st) {
        etp_numeric_diff_free(d);
        return st;
    }
    *out = d;
    return ETP_OK;
}

void etp_numeric_diff_free(etp_numeric_diff *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->pair_count; i++)
        free((char *)d->pairs[i].reason);
    free(d->pairs);
    free(d);
}

double etp_numeric_diff_min_snr(const etp_numeric_diff *d)
{
    double m = INFINITY;
    for (uint32_t i = 0; d && i < d->pair_count; i++)
        if (d->pairs[i].compared && gate_snr(&d->pairs[i]) < m)
            m = gate_snr(&d->pairs[i]);
    return m;
}
