/* finding_readings.c - readings of the analysis the rules share: which
 * instructions are delegate calls or kernels, what may be added, the
 * instructions in chain order, numbers as a message prints them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"

int finding_is_delegate_call(const etp_entity *e)
{
    if (e->kind != ETP_ENTITY_INSTRUCTION)
        return 0;
    return e->instr_kind == ETP_INSTR_DELEGATE ||
           (e->instr_kind == ETP_INSTR_NONE && e->source == ETP_SRC_DELEGATE_CALL);
}

int finding_is_kernel_call(const etp_entity *e)
{
    if (e->kind != ETP_ENTITY_INSTRUCTION)
        return 0;
    return e->instr_kind == ETP_INSTR_KERNEL ||
           (e->instr_kind == ETP_INSTR_NONE && e->source == ETP_SRC_OPERATOR_CALL);
}

int finding_delegate_ran(const etp_entity *e)
{
    return finding_is_delegate_call(e) && (e->time.stats.n || e->source == ETP_SRC_VGF_NX);
}

int finding_summable(const finding_ctx *c, const etp_entity *e)
{
    return e->additive && !e->shared && e->time.stats.n && e->time.executions == c->a->execution_count;
}

double finding_share(const finding_ctx *c, double avg)
{
    return c->execute_avg > 0 ? 100.0 * avg / c->execute_avg : NAN;
}

int finding_is_conversion(const char *op_type)
{
    if (!op_type)
        return 0;
    /* quantized_decomposed::quantize_per_tensor.out, dequantize_per_channel,
     * aten::_to_copy.out, dim_order_ops::_to_dim_order_copy.out,
     * _clone_dim_order, permute_copy, transpose_copy: each converts or moves
     * a tensor without computing on it. */
    static const char *const parts[] = {"quantize", "_to_copy", "_to_dim_order_copy", "_clone_dim_order",
                                        "permute_copy", "transpose_copy"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strstr(op_type, parts[i]))
            return 1;
    return 0;
}

etp_finding_entity_kind finding_kind_of(const etp_entity *e)
{
    switch (e->kind) {
    case ETP_ENTITY_OPERATOR:
        return ETP_FE_OPERATOR;
    case ETP_ENTITY_DELEGATE_EVENT:
        return ETP_FE_DELEGATE_EVENT;
    default:
        return finding_is_delegate_call(e) ? ETP_FE_DELEGATE_CALL : ETP_FE_INSTRUCTION;
    }
}

static int by_chain_order(const void *x, const void *y)
{
    const etp_entity *a = *(const etp_entity *const *)x, *b = *(const etp_entity *const *)y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    return (a->instruction > b->instruction) - (a->instruction < b->instruction);
}

/* @p a ranks before @p b: larger average, then smaller id. */
static int ranks_before(const etp_entity *a, const etp_entity *b)
{
    if (a->time.stats.avg != b->time.stats.avg)
        return a->time.stats.avg > b->time.stats.avg;
    return strcmp(a->id, b->id) < 0;
}

/* Keep @p e among the largest kernels (a short list kept in order: the
 * rules name only the first few, so no full sort). */
static void offer_top(finding_ctx *c, const etp_entity *e)
{
    uint32_t n = c->top_count;
    if (n == FINDING_MAX_ENTITIES && !ranks_before(e, c->top_kernels[n - 1]))
        return;
    uint32_t i = n < FINDING_MAX_ENTITIES ? n : n - 1;
    for (; i > 0 && ranks_before(e, c->top_kernels[i - 1]); i--)
        c->top_kernels[i] = c->top_kernels[i - 1];
    c->top_kernels[i] = e;
    if (n < FINDING_MAX_ENTITIES)
        c->top_count++;
}

etp_status finding_ctx_read(finding_ctx *c)
{
    const etp_analysis *a = c->a;
    c->ins = malloc(((size_t)a->entity_count + 1) * sizeof *c->ins);
    if (!c->ins)
        return ETP_E_NOMEM;
    int ordered = 1;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION)
            continue;
        if (c->ins_count && by_chain_order(&c->ins[c->ins_count - 1], &e) > 0)
            ordered = 0;
        c->ins[c->ins_count++] = e;
        if (e->source == ETP_SRC_VGF_NX) {
            /* Ran, measured as NX cycles: no runtime series of its own. */
            c->delegate_calls++;
            c->vgf_calls++;
            continue;
        }
        if (!e->time.stats.n)
            continue;
        if (finding_is_kernel_call(e)) {
            c->kernels++;
            offer_top(c, e);
        } else if (finding_is_delegate_call(e)) {
            c->delegate_calls++;
        }
    }
    if (!ordered) /* the analysis lists them in chain order; sort only if not */
        qsort(c->ins, c->ins_count, sizeof *c->ins, by_chain_order);
    return ETP_OK;
}

void finding_ctx_release(finding_ctx *c)
{
    free(c->ins);
    c->ins = NULL;
}

const char *finding_fmt(char *buf, size_t n, double v, const char *unit)
{
    /* Counts (cycles, events) read best with a thousands suffix; times in
     * the time unit that puts them between 1 and 1000 (the evidence keeps
     * the analysis' unit). */
    etp_unit u;
    if (v != 0 && !etp_unit_parse(unit, &u) && etp_unit_dim(u) == ETP_DIM_TIME) {
        static const etp_unit ladder[] = {ETP_UNIT_S, ETP_UNIT_MS, ETP_UNIT_US, ETP_UNIT_NS};
        for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
            double x = v * etp_unit_factor(u, ladder[i]);
            if (fabs(x) >= 1 || ladder[i] == ETP_UNIT_NS) {
                snprintf(buf, n, "%.4g %s", x, etp_unit_name(ladder[i]));
                return buf;
            }
        }
    }
    int countlike = !strcmp(unit, "cycles") || !strcmp(unit, "count") || !strcmp(unit, "bytes");
    double m = fabs(v);
    if (countlike && m >= 1e9)
        snprintf(buf, n, "%.3g G%s", v / 1e9, unit);
    else if (countlike && m >= 1e6)
        snprintf(buf, n, "%.3g M%s", v / 1e6, unit);
    else if (countlike && m >= 1e4)
        snprintf(buf, n, "%.3g k%s", v / 1e3, unit);
    else
        snprintf(buf, n, "%.4g %s", v, unit);
    return buf;
}
