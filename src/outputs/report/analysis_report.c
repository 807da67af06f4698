/* analysis_report.c - render an etp_analysis for people and for programs. */
#include "outputs/report/analysis_report.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/etrecord.h"
#include "etprof/runner_log.h"

static void stats_members(etp_jw *w, const etp_stats *s)
{
    etp_jw_kdouble(w, "avg", s->avg);
    etp_jw_kdouble(w, "p10", s->p10);
    etp_jw_kdouble(w, "p50", s->p50);
    etp_jw_kdouble(w, "p90", s->p90);
    etp_jw_kdouble(w, "min", s->min);
    etp_jw_kdouble(w, "max", s->max);
}

/* Available: statistics over its samples. Unavailable: the reason, and no
 * number at all (the same convention as summary.json's metric objects). */
void etp_json_figure(etp_jw *w, const etp_analysis *a, const etp_figure *f)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", f->name);
    etp_jw_kstr(w, "unit", f->unit ? f->unit : etp_unit_name(a->target_unit));
    etp_jw_kstr(w, "source", f->source ? f->source : "etdump");
    static const char *const aggregation[] = {
        [ETP_FIGURE_PER_EXECUTION] = "per-execution total",
        [ETP_FIGURE_PER_OCCURRENCE] = "per occurrence",
        [ETP_FIGURE_RUNNER_REPORTED] = "per reported value",
    };
    etp_jw_kstr(w, "aggregation", aggregation[f->basis]);
    if (f->available) {
        etp_jw_kbool(w, "additive", f->additive);
        etp_jw_kuint(w, "samples", f->stats.n);
        etp_jw_kuint(w, "events", f->events);
        stats_members(w, &f->stats);
    } else {
        etp_jw_kstr(w, "availability", "unavailable");
        etp_jw_kstr(w, "reason", f->reason ? f->reason : "not measured");
    }
    etp_jw_obj_end(w);
}

static void handles_array(etp_jw *w, const char *key, const int64_t *h, uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_int(w, h[i]);
    etp_jw_arr_end(w);
}

void etp_json_cell(etp_jw *w, const etp_column *c, etp_cell v)
{
    switch (c->type) {
    case ETP_COLT_STR: etp_jw_str(w, v.s); break;
    case ETP_COLT_INT: etp_jw_int(w, v.i); break;
    case ETP_COLT_UINT: etp_jw_uint(w, v.u); break;
    case ETP_COLT_NUM: etp_jw_double(w, v.d); break;
    case ETP_COLT_BOOL: etp_jw_bool(w, v.b); break;
    case ETP_COLT_INTS:
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < v.ints.n; i++)
            etp_jw_int(w, v.ints.v[i]);
        etp_jw_arr_end(w);
        break;
    case ETP_COLT_STRS:
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < v.strs.n; i++)
            etp_jw_str(w, v.strs.v[i]);
        etp_jw_arr_end(w);
        break;
    }
}

/* Every column of the table, in its order: a member of the entity when the
 * entity has it; a group's columns inside the group's object, written whole
 * when the entity has the group ("timing": null when it has none). */
void etp_json_entity(etp_jw *w, const etp_analysis *a, const etp_entity *e)
{
    size_t n;
    const etp_column *cols = etp_columns(&n);
    etp_jw_obj_begin(w);
    etp_column_group open = ETP_COLG_ENTITY;
    int group_shown = 1;
    for (size_t i = 0; i < n; i++) {
        const etp_column *c = &cols[i];
        if (c->group != open) {
            if (open != ETP_COLG_ENTITY && group_shown)
                etp_jw_obj_end(w);
            open = c->group;
            group_shown = etp_column_group_present(open, e);
            if (open != ETP_COLG_ENTITY && group_shown) {
                etp_jw_key(w, etp_column_group_key(open));
                etp_jw_obj_begin(w);
            } else if (open == ETP_COLG_TIMING) {
                etp_jw_knull(w, etp_column_group_key(open));
            }
        }
        if (!group_shown || (open == ETP_COLG_ENTITY && !c->present(e)))
            continue;
        etp_jw_key(w, c->key);
        etp_json_cell(w, c, c->get(a, e));
    }
    if (open != ETP_COLG_ENTITY && group_shown)
        etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_json_issues(etp_jw *w, const etp_issue_list *l)
{
    etp_jw_arr_begin(w);
    for (size_t i = 0; i < l->count; i++) {
        const etp_issue *it = &l->items[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "code", it->code->code);
        etp_jw_kstr(w, "severity", etp_severity_name(it->code->severity));
        etp_jw_kstr(w, "message", it->message);
        etp_jw_kstr(w, "guidance", it->code->guidance);
        etp_jw_key(w, "context");
        if (it->context_json)
            etp_jw_raw(w, it->context_json, strlen(it->context_json));
        else {
            etp_jw_obj_begin(w);
            etp_jw_obj_end(w);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

void etp_json_inputs(etp_jw *w, const etp_analysis *a)
{
    etp_jw_obj_begin(w);
    etp_jw_key(w, "etdump");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "path", etp_etdump_path(a->etdump));
    etp_jw_kuint(w, "size_bytes", etp_etdump_size(a->etdump));
    etp_jw_kuint(w, "schema_version", etp_etdump_version(a->etdump));
    etp_jw_kuint(w, "blocks", etp_etdump_run_count(a->etdump));
    etp_jw_obj_end(w);
    etp_jw_key(w, "program");
    if (a->program) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "path", a->program->path);
        etp_jw_kuint(w, "size_bytes", a->program->file_size);
        etp_jw_kbool(w, "bundled", a->program->bundled);
        etp_jw_kuint(w, "program_version", a->program->version);
        etp_jw_key(w, "methods");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < a->program->plan_count; i++)
            etp_jw_str(w, a->program->plans[i].name);
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    } else
        etp_jw_null(w);
    etp_jw_key(w, "etrecord");
    if (a->etrecord) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "path", a->etrecord->path);
        etp_jw_kstr(w, "layout", a->etrecord->layout);
        etp_jw_obj_end(w);
    } else
        etp_jw_null(w);
    etp_jw_obj_end(w);
}

int etp_analysis_write_json(const etp_analysis *a, FILE *fp)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 1);
    etp_analysis_json_doc(&w, a, 1);
    return etp_jw_finish(&w);
}

void etp_analysis_json_doc(etp_jw *w, const etp_analysis *a, int entities)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "schema", "etprof.analysis");
    etp_jw_kint(w, "schema_version", 1);
    etp_jw_kstr(w, "validity", etp_validity_name(a->validity));
    etp_jw_key(w, "inputs");
    etp_json_inputs(w, a);
    etp_jw_key(w, "method");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", a->method);
    etp_jw_kstr(w, "basis", a->method_basis);
    etp_jw_obj_end(w);
    etp_jw_key(w, "units");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "source", etp_unit_name(a->source_unit));
    etp_jw_kstr(w, "target", etp_unit_name(a->target_unit));
    etp_jw_kdouble(w, "divisor", a->divisor);
    if (a->cpu_hz > 0)
        etp_jw_kdouble(w, "cpu_hz", a->cpu_hz);
    etp_jw_obj_end(w);
    etp_jw_key(w, "executions");
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "count", a->execution_count);
    etp_jw_key(w, "run_indices");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->execution_count; i++)
        etp_jw_uint(w, a->executions[i]);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
    etp_jw_key(w, "figures");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->figure_count; i++)
        etp_json_figure(w, a, &a->figures[i]);
    etp_jw_arr_end(w);
    etp_jw_key(w, "entities");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; entities && i < a->entity_count; i++)
        etp_json_entity(w, a, &a->entities[i]);
    etp_jw_arr_end(w);
    handles_array(w, "runtime_unresolved_debug_handles", a->unresolved_handles, a->unresolved_count);
    etp_jw_key(w, "issues");
    etp_json_issues(w, &a->issues);
    etp_jw_obj_end(w);
}

/* ---- text ---------------------------------------------------------------- */

static const char *c_on(const etp_text_style *st, const char *code) { return st->color ? code : ""; }

static void figure_line(FILE *fp, const char *label, const etp_figure *f)
{
    if (!f)
        return;
    if (!f->available) {
        fprintf(fp, "  %-30s %s\n", label, "unavailable");
        fprintf(fp, "  %-30s   (%s)\n", "", f->reason);
        return;
    }
    fprintf(fp, "  %-30s %11.6f %11.6f %11.6f %11.6f  n=%llu%s\n", label, f->stats.avg, f->stats.p50,
            f->stats.min, f->stats.max, (unsigned long long)f->stats.n, f->additive ? "  +" : "");
}

static void fig_line(FILE *fp, const etp_analysis *a, const char *label, etp_figure_id id)
{
    figure_line(fp, label, etp_analysis_figure_by_id(a, id));
}

void etp_analysis_write_text(const etp_analysis *a, const etp_text_style *st, FILE *fp)
{
    const char *u = etp_unit_name(a->target_unit);
    const char *vcol = a->validity == ETP_VALID ? "\033[32m" : a->validity == ETP_DEGRADED ? "\033[33m" : "\033[31m";
    size_t nw = 0, ne = 0;
    for (size_t i = 0; i < a->issues.count; i++) {
        nw += a->issues.items[i].code->severity == ETP_SEV_WARNING;
        ne += a->issues.items[i].code->severity == ETP_SEV_ERROR;
    }
    char upper[16];
    const char *vn = etp_validity_name(a->validity);
    size_t k = 0;
    for (; vn[k] && k < sizeof upper - 1; k++)
        upper[k] = (char)(vn[k] >= 'a' && vn[k] <= 'z' ? vn[k] - 32 : vn[k]);
    upper[k] = 0;
    fprintf(fp, "%s%s%s", c_on(st, vcol), upper, c_on(st, "\033[0m"));
    if (ne || nw)
        fprintf(fp, " (%zu error%s, %zu warning%s)", ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s");
    fputc('\n', fp);
    fprintf(fp, "  etdump   %s\n", etp_etdump_path(a->etdump));
    if (a->program)
        fprintf(fp, "  program  %s\n", a->program->path);
    if (a->etrecord)
        fprintf(fp, "  etrecord %s\n", a->etrecord->path);
    fprintf(fp, "  method %s (%s), %u execution%s, ticks in %s%s, times in %s\n", a->method,
            a->method_basis, a->execution_count, a->execution_count == 1 ? "" : "s",
            etp_unit_name(a->source_unit), "", u);

    fprintf(fp, "\nPer execution (%s)%*s %11s %11s %11s %11s\n", u, (int)(16 - strlen(u)), "", "avg",
            "p50", "min", "max");
    fig_line(fp, a, "Method::execute", ETP_FIG_METHOD_EXECUTE);
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (a->figures[i].id == ETP_FIG_DELEGATE_TIME) {
            char label[64];
            snprintf(label, sizeof label, "delegate %s", a->figures[i].backend);
            figure_line(fp, label, &a->figures[i]);
        }
    fig_line(fp, a, "native kernels", ETP_FIG_NATIVE_KERNELS_TOTAL);
    fig_line(fp, a, "dispatch overhead", ETP_FIG_DISPATCH_OVERHEAD_TOTAL);
    const etp_figure *oc = etp_analysis_figure_by_id(a, ETP_FIG_OTHER_CALLS_TOTAL);
    if (oc && (!oc->available || oc->events))
        figure_line(fp, "other calls (move/jump/free)", oc);
    fig_line(fp, a, "framework overhead", ETP_FIG_FRAMEWORK_OVERHEAD);
    fprintf(fp, "Load (%s, per occurrence)\n", u);
    fig_line(fp, a, "Program::load_method", ETP_FIG_PROGRAM_LOAD_METHOD);
    fig_line(fp, a, "Method::init", ETP_FIG_METHOD_INIT);
    fprintf(fp, "  (+ marks figures whose averages add up: delegates + kernels + dispatch + other +\n"
                "   framework = Method::execute; p50/min/max never add)\n");
    if (a->runner_log) {
        fprintf(fp, "Reported by the runner (%s)\n", a->runner_log->path);
        fig_line(fp, a, "iteration wall time (ms)", ETP_FIG_RUNNER_ITERATION);
        fig_line(fp, a, "load (ms)", ETP_FIG_RUNNER_LOAD);
        const etp_figure *pm = etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_PLANNED_MEMORY);
        if (pm && pm->available)
            fprintf(fp, "  %-30s %11.0f bytes (%u buffers)\n", "planned memory", pm->stats.avg,
                    a->runner_log->buffer_count);
    }

    uint32_t n;
    const etp_entity **top = etp_analysis_top(a, &n);
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    double exec_avg = ex && ex->available ? ex->stats.avg : 0;
    if (top && n) {
        /* Entity columns from etprof/columns.h: avg, executions, id, type. */
        const etp_column *c_avg = etp_column_get(ETP_COL_AVG), *c_ex = etp_column_get(ETP_COL_EXECUTIONS);
        const etp_column *c_id = etp_column_get(ETP_COL_ID), *c_type = etp_column_get(ETP_COL_OP_TYPE);
        int ops = top[0]->kind == ETP_ENTITY_OPERATOR;
        uint32_t shown = n < (uint32_t)st->top ? n : (uint32_t)st->top;
        int namew = 4;
        for (uint32_t i = 0; i < shown; i++)
            if ((int)strlen(c_id->get(a, top[i]).s) > namew)
                namew = (int)strlen(c_id->get(a, top[i]).s);
        if (namew > 60)
            namew = 60;
        fprintf(fp, "\nTop %s by average time (of %u)\n", ops ? "source operators" : "instructions", n);
        fprintf(fp, "  %3s %11s %7s %9s  %-*s %s\n", "#", u, "share", "execs", namew, "name",
                c_type->label);
        int any_shared = 0;
        for (uint32_t i = 0; i < shown; i++) {
            const etp_entity *e = top[i];
            double avg = c_avg->get(a, e).d;
            const char *type = c_type->get(a, e).s;
            char share[16] = "-";
            if (exec_avg > 0)
                snprintf(share, sizeof share, "%.1f%%", 100.0 * avg / exec_avg);
            char execs[24];
            snprintf(execs, sizeof execs, "%llu/%u", (unsigned long long)c_ex->get(a, e).u,
                     a->execution_count);
            fprintf(fp, "  %3u %11.6f %7s %9s %s%-*.*s %s\n", i + 1, avg, share, execs,
                    e->additive ? " " : "*", namew, namew, c_id->get(a, e).s, type ? type : "");
            any_shared |= !e->additive;
        }
        if (any_shared)
            fprintf(fp, "  * shared or non-additive: the time also belongs to co-attributed entries; "
                        "do not add these rows\n");
    }
    free(top);
    if (a->unresolved_count) {
        fprintf(fp, "\nUnresolved debug handles:");
        for (uint32_t i = 0; i < a->unresolved_count; i++)
            fprintf(fp, " %lld", (long long)a->unresolved_handles[i]);
        fputc('\n', fp);
    }
    if (a->issues.count) {
        fprintf(fp, "\nIssues\n");
        for (size_t i = 0; i < a->issues.count; i++) {
            const etp_issue *it = &a->issues.items[i];
            fprintf(fp, "  %-7s %s: %s\n          -> %s\n", etp_severity_name(it->code->severity),
                    it->code->code, it->message, it->code->guidance);
        }
    }
}
