/* diff_match.c - can two runs be compared, and at which level: refusals
 * with their reason, warnings where a comparison stays honest, and the
 * finest level at which rows can be matched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_match.h"
#include "etprof/issues.h"
#include "etprof/units.h"
#include "util/str.h"

static int same_str(const char *a, const char *b) { return a && b && *a && !strcmp(a, b); }

static const char *or_unknown(const char *s) { return s && *s ? s : "unknown"; }

/* The warnings of one comparison, as etp_diff_check() adds them. */
typedef struct warnings {
    etp_diff_arena *ar;
    etp_diff_warning **w;
    uint32_t *n;
    etp_error *err;
} warnings;

/* Add warning @p code (a registry code of scope diff: its severity and
 * meaning come from there) with message @p msg (malloc'd; owned by the
 * arena from here on). */
static etp_status warn(const warnings *ws, const char *code, char *msg)
{
    const etp_issue_code *c = etp_issue_lookup_scope(code, ETP_ISSUE_SCOPE_DIFF);
    if (!c) {
        free(msg);
        return etp_error_set(ws->err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET,
                             "diff warning %s is not in the issue registry", code);
    }
    etp_diff_warning *grown = NULL;
    if (msg && etp_diff_own(ws->ar, msg))
        grown = realloc(*ws->w, (*ws->n + 1) * sizeof **ws->w);
    if (!grown)
        return etp_error_set(ws->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    *ws->w = grown;
    grown[*ws->n] = (etp_diff_warning){c->code, msg, c};
    (*ws->n)++;
    return ETP_OK;
}

double etp_diff_unit_factor(const char *from, const char *to)
{
    if (from && to && !strcmp(from, to))
        return 1.0;
    etp_unit f, t;
    if (etp_unit_from_name(from, &f) || etp_unit_from_name(to, &t) || etp_unit_dim(f) != ETP_DIM_TIME)
        return 0.0;
    return etp_unit_factor(f, t);
}

static const char *tick_unit_name(const etp_diff_identity *id)
{
    return id->has_tick_unit ? etp_unit_name(id->tick_unit) : "unknown";
}

static etp_status side_usable(const etp_diff_identity *id, const char *which, etp_error *err)
{
    if (id->status && strcmp(id->status, "complete"))
        return etp_error_set(err, ETP_E_MISMATCH, id->label, ETP_NO_OFFSET,
                             "%s: the run's status is '%s', not complete; refusing to compare it",
                             which, id->status);
    if (id->validity && !strcmp(id->validity, "invalid"))
        return etp_error_set(err, ETP_E_MISMATCH, id->label, ETP_NO_OFFSET,
                             "%s: the run is invalid (an error issue; see its summary); refusing "
                             "to compare it",
                             which);
    if (!etp_unit_is_tick(id->time_unit))
        return etp_error_set(err, ETP_E_MISMATCH, id->label, ETP_NO_OFFSET,
                             "%s: the run's times are in %s, not a time unit or cycles", which,
                             etp_unit_name(id->time_unit));
    return ETP_OK;
}

etp_status etp_diff_check(const etp_diff_side *base, const etp_diff_side *nw,
                          const etp_diff_options *opt, etp_diff_arena *ar, etp_diff_warning **w,
                          uint32_t *wn, double *new_factor, etp_error *err)
{
    const etp_diff_identity *b = &base->id, *n = &nw->id;
    const warnings ws = {ar, w, wn, err};
    etp_status s = side_usable(b, "base", err);
    if (!s)
        s = side_usable(n, "new", err);
    if (s)
        return s;
    if (!same_str(b->method, n->method)) {
        if (!opt->compare_methods)
            return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                                 "the runs executed different methods (base '%s', new '%s'); "
                                 "refusing to compare them (--any-method compares them anyway)",
                                 or_unknown(b->method), or_unknown(n->method));
        if ((s = warn(&ws, "identity.method_differs",
                      etp_strprintf("the runs executed different methods (base '%s', new '%s')",
                                    or_unknown(b->method), or_unknown(n->method)))))
            return s;
    }
    const char *bu = etp_unit_name(b->time_unit), *nu = etp_unit_name(n->time_unit);
    int bc = b->time_unit == ETP_UNIT_CYCLES, nc = n->time_unit == ETP_UNIT_CYCLES;
    if (bc != nc)
        return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                             "base times are in %s and new times in %s: cycles cannot be compared "
                             "with time; analyse the cycle run with --cpu-hz HZ (or both in cycles)",
                             bu, nu);
    *new_factor = etp_unit_factor(n->time_unit, b->time_unit);
    if (!(*new_factor > 0))
        return etp_error_set(err, ETP_E_MISMATCH, NULL, ETP_NO_OFFSET,
                             "unknown time unit (base '%s', new '%s')", bu, nu);
    if (b->time_unit != n->time_unit)
        s = warn(&ws, "units.converted", etp_strprintf("new times converted from %s to %s", nu, bu));
    if (!s && b->has_tick_unit && n->has_tick_unit && b->tick_unit != n->tick_unit)
        s = warn(&ws, "units.ticks_differ",
                 etp_strprintf("the ETDumps tick in different units (base %s, new %s%s)",
                               etp_unit_name(b->tick_unit), etp_unit_name(n->tick_unit),
                               b->cpu_hz > 0 || n->cpu_hz > 0 ? ", cycles converted with --cpu-hz" : ""));
    if (!s && bc && nc && fabs(b->cpu_hz - n->cpu_hz) > 0)
        s = warn(&ws, "units.cpu_hz_differs", etp_strprintf("the sides were converted at different clock rates"));
    if (!s && b->ticks_assumed != n->ticks_assumed)
        s = warn(&ws, "units.evidence_differs",
                 etp_strprintf("the tick unit was assumed on the %s side and given on the "
                               "other: the comparison holds only if the assumption is right",
                               b->ticks_assumed ? "base" : "new"));
    else if (!s && b->ticks_assumed)
        s = warn(&ws, "units.assumed",
                 etp_strprintf("both sides' ticks were assumed to be %s (not given)", tick_unit_name(b)));
    for (int k = 0; k < 2 && !s; k++) {
        const etp_diff_identity *id = k ? n : b;
        if (id->validity && !strcmp(id->validity, "degraded"))
            s = warn(&ws, "result.degraded",
                     etp_strprintf("the %s run is degraded (see its issues)", k ? "new" : "base"));
    }
    return s;
}

/* Both sides have the same source operators (by name and type). */
static int same_operators(const etp_diff_side *b, const etp_diff_side *n, uint32_t *count)
{
    uint32_t nb = 0, nn = 0;
    for (uint32_t i = 0; i < n->count; i++)
        nn += n->ents[i].kind == ETP_DIFF_OPERATOR;
    for (uint32_t i = 0; i < b->count; i++) {
        const etp_diff_entry *e = &b->ents[i];
        if (e->kind != ETP_DIFF_OPERATOR)
            continue;
        nb++;
        const etp_diff_entry *o = etp_diff_side_lookup(n, ETP_DIFF_OPERATOR, e->id);
        if (!o || !(e->op_type ? o->op_type && !strcmp(e->op_type, o->op_type) : !o->op_type))
            return 0;
    }
    *count = nb;
    return nb > 0 && nb == nn;
}

static int has_kind(const etp_diff_side *s, etp_diff_kind k)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (s->ents[i].kind == k)
            return 1;
    return 0;
}

etp_diff_level etp_diff_choose_level(const etp_diff_side *b, const etp_diff_side *n,
                                     etp_diff_arena *ar, const char **reason)
{
    const etp_diff_identity *bi = &b->id, *ni = &n->id;
    uint32_t ops = 0;
    if (same_str(bi->program_sha256, ni->program_sha256) && same_str(bi->method, ni->method)) {
        *reason = etp_diff_strdup(ar, "same program digest and method: rows matched per "
                                      "instruction, delegate event and source operator");
        return ETP_DIFF_LEVEL_INSTRUCTION;
    }
    const char *why_prog = bi->program_sha256 && ni->program_sha256 && *bi->program_sha256 &&
                                   *ni->program_sha256
                               ? "different programs"
                               : "a program digest is unknown";
    if (same_str(bi->etrecord_sha256, ni->etrecord_sha256) && has_kind(b, ETP_DIFF_OPERATOR) &&
        has_kind(n, ETP_DIFF_OPERATOR)) {
        *reason = etp_diff_own(ar, etp_strprintf("%s, same ETRecord: rows matched per source "
                                                 "operator",
                                                 why_prog));
        return ETP_DIFF_LEVEL_SOURCE_OPERATOR;
    }
    if (same_operators(b, n, &ops)) {
        *reason = etp_diff_own(ar, etp_strprintf("%s, the same %u source operators (by name and "
                                                 "type): rows matched per source operator",
                                                 why_prog, ops));
        return ETP_DIFF_LEVEL_SOURCE_OPERATOR;
    }
    if (has_kind(b, ETP_DIFF_INSTRUCTION) && has_kind(n, ETP_DIFF_INSTRUCTION)) {
        *reason = etp_diff_own(ar, etp_strprintf("%s and no common source graph: instructions "
                                                 "compared per operator type and backend only",
                                                 why_prog));
        return ETP_DIFF_LEVEL_OP_TYPE;
    }
    *reason = etp_diff_own(ar, etp_strprintf("%s and no per-instruction rows on both sides: "
                                             "model-level figures only",
                                             why_prog));
    return ETP_DIFF_LEVEL_MODEL;
}
