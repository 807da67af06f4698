/* analysis_report.c - render an etp_analysis for people and for programs. */
#include "outputs/report/analysis_report.h"
#include "outputs/report/text_numbers.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/etrecord.h"
#include "etprof/runner_log.h"
#include "outputs/report/device_output.h"

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
    etp_jw_kstr(w, "unit", etp_unit_name(f->unit));
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

/* Every column of the table, in its order: a member of the row when the
 * row has it; a group's columns inside the group's object, written whole
 * when the row has the group ("timing": null when it has none). The row is
 * the entity @p e or, when @p e is NULL, the NX row @p r. */
static void json_row(etp_jw *w, const etp_analysis *a, const etp_entity *e, const etp_nx_row *r)
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
            group_shown = e ? etp_column_group_present(open, e) : etp_column_group_present_nx(open, r);
            if (open != ETP_COLG_ENTITY && group_shown) {
                etp_jw_key(w, etp_column_group_key(open));
                etp_jw_obj_begin(w);
            } else if (open == ETP_COLG_TIMING) {
                etp_jw_knull(w, etp_column_group_key(open));
            }
        }
        if (!group_shown || (open == ETP_COLG_ENTITY && !(e ? c->present(e) : c->nx_present(r))))
            continue;
        etp_jw_key(w, c->key);
        etp_json_cell(w, c, e ? c->get(a, e) : c->nx_get(a, r));
    }
    if (open != ETP_COLG_ENTITY && group_shown)
        etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_json_entity(etp_jw *w, const etp_analysis *a, const etp_entity *e) { json_row(w, a, e, NULL); }

void etp_json_nx_row(etp_jw *w, const etp_analysis *a, const etp_nx_row *r) { json_row(w, a, NULL, r); }

static const char *unit_check_name(etp_unit_check c)
{
    return c == ETP_UNIT_CONFIRMED     ? "confirmed"
           : c == ETP_UNIT_CONTRADICTED ? "contradicted"
           : c == ETP_UNIT_UNCHECKABLE  ? "uncheckable"
                                        : "untested";
}

void etp_json_tick_unit(etp_jw *w, const etp_analysis *a)
{
    const etp_tick_evidence *t = &a->tick_unit;
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", etp_unit_name(a->source_unit));
    etp_jw_kstr(w, "check", unit_check_name(t->check));
    etp_jw_key(w, "evidence");
    if (t->source) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "source", t->source);
        etp_jw_kstr(w, "path", t->path);
        etp_jw_kuint(w, "iterations", t->iterations);
        etp_jw_kdouble(w, "wall_ms_per_iteration", t->wall_ms);
        etp_jw_kuint(w, "executions", t->executions);
        etp_jw_kdouble(w, "execute_ticks_per_execution", t->execute_ticks);
        etp_jw_key(w, "wall_over_execute");
        if (t->check == ETP_UNIT_UNCHECKABLE)
            etp_jw_null(w);
        else
            etp_jw_double(w, t->ratio);
        etp_jw_kdouble(w, "implied_ticks_per_second", t->implied_hz);
        etp_jw_kstr(w, "fits", t->fits);
        etp_jw_obj_end(w);
    } else
        etp_jw_null(w);
    etp_jw_obj_end(w);
}

void etp_json_warmup(etp_jw *w, const etp_analysis *a)
{
    const etp_cold_start *c = &a->cold_start;
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "method_executions", a->method_executions);
    etp_jw_kuint(w, "skipped_executions", a->skipped_executions);
    etp_jw_kstr(w, "rank_by", etp_rank_key_name(a->rank_by));
    etp_jw_key(w, "cold_start");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(w, "basis", "Method::execute of the method's first execution against the "
                            "others (skipped ones included)");
    if (c->available) {
        etp_jw_kdouble(w, "first", c->first);
        etp_jw_kdouble(w, "rest_avg", c->rest_avg);
        etp_jw_kdouble(w, "rest_p50", c->rest_p50);
        etp_jw_kuint(w, "rest_executions", c->rest_count);
        etp_jw_kdouble(w, "first_over_rest_avg", c->ratio);
    } else {
        etp_jw_kstr(w, "availability", "unavailable");
        etp_jw_kstr(w, "reason", "fewer than two executions with a Method::execute event, or "
                                 "none in the first");
    }
    etp_jw_key(w, "runner_log");
    if (c->log_available) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "unit", "ms");
        etp_jw_kdouble(w, "first", c->log_first_ms);
        etp_jw_kdouble(w, "rest_avg", c->log_rest_avg_ms);
        etp_jw_kuint(w, "rest_iterations", c->log_rest_count);
        etp_jw_obj_end(w);
    } else
        etp_jw_null(w);
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

/* ---- text ---------------------------------------------------------------- */

static const char *c_on(const etp_text_style *st, const char *code) { return st->color ? code : ""; }

/* One row of a figure table: a label and its figure (NULL: left out). */
typedef struct text_row {
    const char *label;
    const etp_figure *f;
} text_row;

/* A table of figures: avg, p50, min, max, all in one unit, the one that
 * suits the table's largest value (text_numbers.h): a reader compares rows
 * and columns without converting (small values get more decimals, never a
 * 0 for a nonzero time); cycles as integers. */
static void print_table(FILE *fp, const char *title, const text_row *rows, size_t n, etp_unit unit)
{
    double all[4 * 64];
    size_t k = 0;
    for (size_t r = 0; r < n && k < 4 * 64; r++)
        if (rows[r].f && rows[r].f->available) {
            const etp_stats *s = &rows[r].f->stats;
            all[k++] = s->avg;
            all[k++] = s->p50;
            all[k++] = s->min;
            all[k++] = s->max;
        }
    static const char *const names[4] = {"avg", "p50", "min", "max"};
    etp_colfmt fm[4];
    const etp_colfmt one = etp_colfmt_for(unit, all, k);
    if (strlen(title) > 31) /* a long title (the log's name) gets a line of its own */
        fprintf(fp, "%s\n%-32s", title, "");
    else
        fprintf(fp, "%-32s", title);
    for (int c = 0; c < 4; c++) {
        fm[c] = one;
        char h[32];
        snprintf(h, sizeof h, "%s %s", names[c], etp_unit_name(fm[c].unit));
        fprintf(fp, " %12s", h);
    }
    fputc('\n', fp);
    for (size_t r = 0; r < n; r++) {
        const etp_figure *f = rows[r].f;
        if (!f)
            continue;
        if (!f->available) {
            fprintf(fp, "  %-30s %s\n", rows[r].label, "unavailable");
            fprintf(fp, "  %-30s   (%s)\n", "", f->reason);
            continue;
        }
        const double v[4] = {f->stats.avg, f->stats.p50, f->stats.min, f->stats.max};
        fprintf(fp, "  %-30s", rows[r].label);
        for (int c = 0; c < 4; c++) {
            char b[48];
            fprintf(fp, " %12s", etp_colfmt_value(&fm[c], v[c], b, sizeof b));
        }
        fprintf(fp, "  n=%llu%s\n", (unsigned long long)f->stats.n, f->additive ? "  +" : "");
    }
}

/* What the runner printed of the outputs and of a bundled program's check. */
static void write_runner_outputs(const etp_runner_log *l, FILE *fp)
{
    if (l->output_count || l->has_outputs_declared)
        fprintf(fp, "  %-30s %u printed%s\n", "outputs", l->output_count,
                l->has_outputs_declared && l->outputs_declared != l->output_count ? " (it announced another count)"
                                                                                  : "");
    for (uint32_t i = 0; i < l->output_text_count; i++)
        fprintf(fp, "    %s\n", l->output_text[i]);
    if (l->output_count > l->output_text_count && l->output_text_count == ETP_RUNNER_OUTPUTS_KEPT)
        fprintf(fp, "    (the first %u lines shown)\n", l->output_text_count);
    if (l->bundleio_pass || l->bundleio_fail)
        fprintf(fp, "  %-30s %u passed, %u failed (BundleIO test cases)\n", "bundled program check",
                l->bundleio_pass, l->bundleio_fail);
    else if (l->verified)
        fprintf(fp, "  %-30s outputs verified against the bundled program\n", "bundled program check");
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
    const char *tick_basis = a->tick_unit.check == ETP_UNIT_CONFIRMED      ? " (confirmed by the wall times)"
                             : a->tick_unit.check == ETP_UNIT_CONTRADICTED ? " (contradicted: see issues)"
                             : a->tick_unit.check == ETP_UNIT_UNCHECKABLE  ? " (not checked: no --cpu-hz)"
                                                                          : "";
    fprintf(fp, "  method %s (%s), %u execution%s, ticks in %s%s, files in %s\n", a->method,
            a->method_basis, a->execution_count, a->execution_count == 1 ? "" : "s",
            etp_unit_name(a->source_unit), tick_basis, u);
    if (a->skipped_executions)
        fprintf(fp, "  the first %u of %u executions skipped (--skip-executions)\n",
                a->skipped_executions, a->method_executions);
    etp_findings_write_text(&a->findings, st, fp);

    /* Per execution: Method::execute and what it is made of. */
    text_row rows[64];
    size_t nr = 0;
    rows[nr++] = (text_row){"Method::execute", etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE)};
    char dlabel[16][64];
    size_t nd = 0;
    for (uint32_t i = 0; i < a->figure_count && nd < 16; i++)
        if (a->figures[i].id == ETP_FIG_DELEGATE_TIME) {
            snprintf(dlabel[nd], sizeof dlabel[nd], "delegate %s", a->figures[i].backend);
            rows[nr++] = (text_row){dlabel[nd++], &a->figures[i]};
        }
    rows[nr++] = (text_row){"native kernels", etp_analysis_figure_by_id(a, ETP_FIG_NATIVE_KERNELS_TOTAL)};
    rows[nr++] = (text_row){"dispatch overhead", etp_analysis_figure_by_id(a, ETP_FIG_DISPATCH_OVERHEAD_TOTAL)};
    const etp_figure *oc = etp_analysis_figure_by_id(a, ETP_FIG_OTHER_CALLS_TOTAL);
    if (oc && (!oc->available || oc->events))
        rows[nr++] = (text_row){"other calls (move/jump/free)", oc};
    rows[nr++] = (text_row){"framework overhead", etp_analysis_figure_by_id(a, ETP_FIG_FRAMEWORK_OVERHEAD)};
    /* Apart from the runtime figures: the delegate calls measured as NX cycles. */
    const etp_figure *vx = etp_analysis_figure_by_id(a, ETP_FIG_VGF_EXCLUDED_RUNTIME);
    if (vx)
        rows[nr++] = (text_row){"VGF calls (kept apart)", vx};
    fputc('\n', fp);
    print_table(fp, "Per execution", rows, nr, a->target_unit);
    if (a->cold_start.available) {
        etp_unit tu = a->target_unit;
        const double cv[2] = {a->cold_start.first, a->cold_start.rest_avg};
        etp_colfmt cf = etp_colfmt_for(tu, cv, 2);
        char b1[48], b2[48];
        fprintf(fp, "  cold start: first execution %s %s, the other %u %s %s on average (x%.2f)\n",
                etp_colfmt_value(&cf, cv[0], b1, sizeof b1), etp_unit_name(cf.unit), a->cold_start.rest_count,
                etp_colfmt_value(&cf, cv[1], b2, sizeof b2), etp_unit_name(cf.unit), a->cold_start.ratio);
    }
    text_row load[2] = {{"Program::load_method", etp_analysis_figure_by_id(a, ETP_FIG_PROGRAM_LOAD_METHOD)},
                        {"Method::init", etp_analysis_figure_by_id(a, ETP_FIG_METHOD_INIT)}};
    print_table(fp, "Load (per occurrence)", load, 2, a->target_unit);
    fprintf(fp, "  (+ marks figures whose averages add up: delegates + kernels + dispatch + other +\n"
                "   framework%s = Method::execute; p50/min/max never add)\n",
            vx ? " + VGF calls (measured as NX cycles, out of the\n   runtime totals)" : "");
    if (a->runner_log) {
        char title[300];
        const char *lp = a->runner_log->path, *ls = strrchr(lp, '/');
        snprintf(title, sizeof title, "Reported by the runner (%s)", ls ? ls + 1 : lp);
        if (etp_runner_log_has_run_lines(a->runner_log)) {
            text_row rr[2] = {{"iteration wall time", etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_ITERATION)},
                              {"load", etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_LOAD)}};
            print_table(fp, title, rr, 2, ETP_UNIT_MS);
        } else {
            fprintf(fp, "%s: no load, timing or memory lines (a build with logging compiled out)\n", title);
        }
        const etp_figure *pm = etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_PLANNED_MEMORY);
        char b[48];
        if (pm && pm->available)
            fprintf(fp, "  %-30s %s bytes (%u buffer%s)\n", "planned memory",
                    etp_format_thousands(pm->stats.avg, b, sizeof b), a->runner_log->buffer_count,
                    a->runner_log->buffer_count == 1 ? "" : "s");
        write_runner_outputs(a->runner_log, fp);
    }
    etp_device_write_text(a, fp);

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
        static const char *const by[] = {"average", "median", "maximum"};
        fprintf(fp, "\nTop %s by %s time per execution (of %u)\n", ops ? "source operators" : "instructions",
                by[a->rank_by <= ETP_RANK_MAX ? a->rank_by : 0], n);
        double avgs[256];
        uint32_t na = 0;
        for (uint32_t i = 0; i < shown && na < 256; i++)
            avgs[na++] = c_avg->get(a, top[i]).d;
        etp_colfmt tf = etp_colfmt_for(a->target_unit, avgs, na);
        fprintf(fp, "  %3s %11s %7s %9s  %-*s %s\n", "#", etp_unit_name(tf.unit), "share", "execs", namew,
                "name", c_type->label);
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
            char vb[48];
            fprintf(fp, "  %3u %11s %7s %9s %s%-*.*s %s\n", i + 1, etp_colfmt_value(&tf, avg, vb, sizeof vb),
                    share, execs,
                    e->additive ? " " : "*", namew, namew, c_id->get(a, e).s, type ? type : "");
            char note[160];
            if (etp_npu_row_note(a, e, note, sizeof note))
                fprintf(fp, "  %3s %11s %7s %9s  -> %s\n", "", "", "", "", note);
            any_shared |= !e->additive;
        }
        if (any_shared)
            fprintf(fp, "  * shared or non-additive: the time also belongs to co-attributed entries; "
                        "do not add these rows\n");
    }
    free(top);
    if (a->unresolved_count) {
        fprintf(fp, "\nUnresolved debug handles: %u (", a->unresolved_count);
        for (uint32_t i = 0; i < a->unresolved_count; i++)
            fprintf(fp, "%s%lld", i ? ", " : "", (long long)a->unresolved_handles[i]);
        fprintf(fp, ")\n");
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
