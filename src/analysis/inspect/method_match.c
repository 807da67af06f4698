/* method_match.c - infer and check the method behind ETDump blocks. */
#include "analysis/inspect/method_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static int name_is(const etp_observed *e, const char *s)
{
    size_t n = strlen(s);
    return e->name && e->name_len == n && !memcmp(e->name, s, n);
}

static int starts_with(const etp_observed *e, const char *p, size_t n)
{
    return e->name && e->name_len >= n && !memcmp(e->name, p, n);
}

int etp_plan_accepts(const etp_plan *pl, const etp_observed *ev, size_t n, char *why, size_t whylen,
                     int64_t *bad_offset)
{
    const char *m = pl->name ? pl->name : "(unnamed)";
    for (size_t k = 0; k < n; k++) {
        const etp_observed *e = &ev[k];
        *bad_offset = e->offset;
        if (e->chain < 0 || (uint32_t)e->chain >= pl->chain_count) {
            snprintf(why, whylen, "chain %d does not exist in method %s (%u chain%s)", e->chain, m,
                     pl->chain_count, pl->chain_count == 1 ? "" : "s");
            return 1;
        }
        const etp_chain *ch = &pl->chains[e->chain];
        if (e->instr < 0 || (uint32_t)e->instr >= ch->instruction_count) {
            snprintf(why, whylen, "instruction %d does not exist in method %s (%u instructions)",
                     e->instr, m, ch->instruction_count);
            return 1;
        }
        const etp_instruction *in = &ch->instructions[e->instr];
        const char *expect = NULL;
        if (e->delegated || name_is(e, "DELEGATE_CALL")) {
            if (in->kind != ETP_INSTR_DELEGATE)
                expect = "a DelegateCall";
        } else if (name_is(e, "OPERATOR_CALL")) {
            if (in->kind != ETP_INSTR_KERNEL)
                expect = "a KernelCall";
        } else if (name_is(e, "JF_CALL")) {
            if (in->kind != ETP_INSTR_JUMP_FALSE)
                expect = "a JumpFalseCall";
        } else if (name_is(e, "MOVE_CALL")) {
            if (in->kind != ETP_INSTR_MOVE)
                expect = "a MoveCall";
        } else if (name_is(e, "FREE_CALL")) {
            if (in->kind != ETP_INSTR_FREE)
                expect = "a FreeCall";
        } else if (starts_with(e, "native_call_", 12)) {
            if (in->kind != ETP_INSTR_KERNEL) {
                expect = "a KernelCall";
            } else if (in->a < 0 || (uint32_t)in->a >= pl->operator_count) {
                snprintf(why, whylen, "instruction %d of method %s names operator %d of %u", e->instr,
                         m, in->a, pl->operator_count);
                return 1;
            } else {
                const char *suffix = pl->operators[in->a].kernel_suffix;
                size_t sl = strlen(suffix);
                if (e->name_len - 12 != sl || memcmp(e->name + 12, suffix, sl)) {
                    snprintf(why, whylen,
                             "event %.*s at instruction %d, but instruction %d of method %s is %s",
                             (int)e->name_len, e->name, e->instr, e->instr, m,
                             pl->operators[in->a].full_name);
                    return 1;
                }
            }
        }
        if (expect) {
            const char *nm = e->name ? e->name : "delegate event";
            int nl = e->name ? (int)e->name_len : (int)strlen(nm);
            snprintf(why, whylen, "event %.*s at instruction %d expects %s, but instruction %d of "
                                  "method %s is a %s",
                     nl, nm, e->instr, expect, e->instr, m, etp_instr_kind_name(in->kind));
            return 1;
        }
    }
    return 0;
}

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

int etp_plans_equivalent(const etp_plan *a, const etp_plan *b)
{
    if (a->chain_count != b->chain_count)
        return 0;
    for (uint32_t c = 0; c < a->chain_count; c++) {
        const etp_chain *x = &a->chains[c], *y = &b->chains[c];
        if (x->instruction_count != y->instruction_count)
            return 0;
        for (uint32_t i = 0; i < x->instruction_count; i++) {
            const etp_instruction *p = &x->instructions[i], *q = &y->instructions[i];
            if (p->kind != q->kind)
                return 0;
            if (p->kind == ETP_INSTR_KERNEL) {
                int pa = p->a >= 0 && (uint32_t)p->a < a->operator_count;
                int qa = q->a >= 0 && (uint32_t)q->a < b->operator_count;
                if (pa != qa || (pa && strcmp(a->operators[p->a].full_name, b->operators[q->a].full_name)))
                    return 0;
            } else if (p->kind == ETP_INSTR_DELEGATE) {
                int pa = p->a >= 0 && (uint32_t)p->a < a->delegate_count;
                int qa = q->a >= 0 && (uint32_t)q->a < b->delegate_count;
                if (pa != qa || (pa && !str_eq(a->delegates[p->a].id, b->delegates[q->a].id)))
                    return 0;
            }
        }
    }
    return 1;
}

static uint32_t plan_instructions(const etp_plan *pl)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < pl->chain_count; c++)
        n += pl->chains[c].instruction_count;
    return n;
}

etp_status etp_select_plan(const etp_program *p, const char *requested, const etp_observed *ev,
                           size_t n, uint32_t distinct, const char *dump_path, int lenient,
                           const etp_plan ***cands_out, uint32_t *ncands, etp_error *err)
{
    char why[400];
    int64_t off = -1;
    *cands_out = NULL;
    *ncands = 0;
    if (p->plan_count == 0)
        return etp_error_set(err, ETP_E_MISMATCH, p->path, ETP_NO_OFFSET, "program has no methods");
    const etp_plan **cands = calloc(p->plan_count, sizeof *cands);
    if (!cands)
        return etp_error_set(err, ETP_E_NOMEM, p->path, ETP_NO_OFFSET, "out of memory");
    if (requested) {
        const etp_plan *pl = etp_program_find_plan(p, requested);
        if (!pl) {
            char list[300];
            etp_join_names(list, sizeof list, p->plans, p->plan_count, etp_plan_name_at);
            free(cands);
            return etp_error_set(err, ETP_E_USAGE, p->path, ETP_NO_OFFSET,
                                 "no method named '%s' (methods: %s)", requested, list);
        }
        if (etp_plan_accepts(pl, ev, n, why, sizeof why, &off)) {
            free(cands);
            return etp_error_set(err, ETP_E_MISMATCH, dump_path, off,
                                 "does not match %s: %s", p->path, why);
        }
        cands[0] = pl;
        *cands_out = cands;
        *ncands = 1;
        return ETP_OK;
    }
    /* Keep consistent plans; remember each rejection for the error. */
    char reasons[900] = "";
    uint32_t nc = 0;
    int64_t first_off = -1;
    for (uint32_t i = 0; i < p->plan_count; i++) {
        const etp_plan *pl = &p->plans[i];
        if (etp_plan_accepts(pl, ev, n, why, sizeof why, &off) == 0) {
            cands[nc++] = pl;
        } else {
            size_t l = strlen(reasons);
            if (first_off < 0)
                first_off = off;
            snprintf(reasons + l, sizeof reasons - l, "%s%s", l ? "; " : "", why);
        }
    }
    if (nc == 0) {
        free(cands);
        return etp_error_set(err, ETP_E_MISMATCH, dump_path, first_off,
                             "does not match any method of %s: %s", p->path, reasons);
    }
    /* Prefer plans whose every instruction was observed. */
    if (nc > 1) {
        uint32_t full = 0;
        for (uint32_t i = 0; i < nc; i++)
            if (plan_instructions(cands[i]) == distinct)
                cands[full++] = cands[i];
        if (full)
            nc = full;
    }
    if (nc > 1 && !lenient) {
        for (uint32_t i = 1; i < nc; i++)
            if (!etp_plans_equivalent(cands[0], cands[i])) {
                char list[300];
                etp_join_names(list, sizeof list, cands, nc, etp_plan_ref_name_at);
                free(cands);
                return etp_error_set(err, ETP_E_MISMATCH, dump_path, ETP_NO_OFFSET,
                                     "cannot tell which method of %s ran (candidates: %s); pass "
                                     "--method",
                                     p->path, list);
            }
    }
    *cands_out = cands;
    *ncands = nc;
    return ETP_OK;
}

const char *etp_plan_name_at(const void *plans, size_t i)
{
    return ((const etp_plan *)plans)[i].name;
}

const char *etp_plan_ref_name_at(const void *plan_refs, size_t i)
{
    return ((const etp_plan *const *)plan_refs)[i]->name;
}
