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

static int by_avg_desc(const void *x, const void *y)
{
    const etp_entity *a = *(const etp_entity *const *)x, *b = *(const etp_entity *const *)y;
    if (a->time.stats.avg != b->time.stats.avg)
        return a->time.stats.avg > b->time.stats.avg ? -1 : 1;
    return strcmp(a->id, b->id);
}

const etp_entity **finding_instructions(const finding_ctx *c, uint32_t *n)
{
    const etp_analysis *a = c->a;
    *n = 0;
    const etp_entity **v = malloc(((size_t)a->entity_count + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION)
            v[(*n)++] = &a->entities[i];
    qsort(v, *n, sizeof *v, by_chain_order);
    return v;
}

const etp_entity **finding_timed_kernels(const finding_ctx *c, uint32_t *n)
{
    const etp_analysis *a = c->a;
    *n = 0;
    const etp_entity **v = malloc(((size_t)a->entity_count + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (finding_is_kernel_call(&a->entities[i]) && a->entities[i].time.stats.n)
            v[(*n)++] = &a->entities[i];
    qsort(v, *n, sizeof *v, by_avg_desc);
    return v;
}

uint32_t finding_delegate_calls_ran(const finding_ctx *c)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->a->entity_count; i++)
        n += finding_is_delegate_call(&c->a->entities[i]) && c->a->entities[i].time.stats.n;
    return n;
}

const char *finding_fmt(char *buf, size_t n, double v, const char *unit)
{
    /* Counts (cycles, events) read best with a thousands suffix; times in
     * the time unit that puts them between 1 and 1000 (the evidence keeps
     * the analysis' unit). */
    etp_unit u;
    if (!etp_unit_parse(unit, &u) && etp_unit_dim(u) == ETP_DIM_TIME) {
        static const etp_unit ladder[] = {ETP_UNIT_S, ETP_UNIT_MS, ETP_UNIT_US, ETP_UNIT_NS};
        for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
            double x = v * etp_unit_factor(u, ladder[i]);
            if (fabs(x) >= 1 || ladder[i] == ETP_UNIT_NS || v == 0) {
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
