/* report_tables.c - the report's tables, as HTML the page's script can sort
 * (numeric cells carry their exact value in data-v): top operators, totals
 * per operator type (summed only over additive timings), delegate vs native
 * time per backend, and executions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/device_report.h"
#include "etprof/nx_stats.h"
#include "outputs/report/device_output.h"
#include "outputs/report/analysis_report.h"
#include "outputs/report/report_internal.h"

#define TOP_ROWS 100
#define EXEC_ROWS 2000

static void th(FILE *fp, const char *label, int numeric)
{
    fprintf(fp, "<th%s>", numeric ? " data-t=\"n\"" : "");
    etp_html_escape(fp, label);
    fputs("</th>", fp);
}

static void td_text(FILE *fp, const char *s)
{
    fputs("<td>", fp);
    etp_html_escape(fp, s ? s : "");
    fputs("</td>", fp);
}

static void td_num(FILE *fp, double v)
{
    char exact[40], shown[48];
    etp_format_double(exact, sizeof exact, v);
    rp_num(shown, sizeof shown, v);
    fprintf(fp, "<td data-v=\"%s\">%s</td>", exact, shown);
}

static void td_uint(FILE *fp, uint64_t v)
{
    fprintf(fp, "<td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", v, v);
}

static void td_none(FILE *fp, const char *why)
{
    fputs("<td data-v=\"\" class=\"na\" title=\"", fp);
    etp_html_escape(fp, why);
    fputs("\">\xe2\x80\x94</td>", fp);
}

static void td_share(FILE *fp, const rp_report *r, double v)
{
    if (r->exec_avg > 0)
        td_num(fp, 100.0 * v / r->exec_avg);
    else
        td_none(fp, "no Method::execute time");
}

/* Where entity @p e is drawn: view and node index, or -1. */
typedef struct drawn_at {
    int view;
    uint32_t node;
} drawn_at;

static drawn_at *drawn_index(const rp_report *r)
{
    const etp_analysis *a = r->a;
    drawn_at *d = malloc((a->entity_count + 1) * sizeof *d);
    if (!d)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++)
        d[i].view = -1;
    for (int vi = 0; vi < r->view_count; vi++)
        for (uint32_t k = 0; k < r->views[vi].node_count; k++) {
            const etp_entity *e = r->views[vi].nodes[k].entity;
            if (e && d[e - a->entities].view < 0)
                d[e - a->entities] = (drawn_at){vi, k};
        }
    return d;
}

static void name_cell(FILE *fp, const rp_report *r, const drawn_at *d, const etp_entity *e)
{
    const drawn_at *at = d ? &d[e - r->a->entities] : NULL;
    fputs("<td>", fp);
    if (at && at->view >= 0)
        fprintf(fp, "<a href=\"#\" data-view=\"%d\" data-node=\"%" PRIu32 "\">", at->view, at->node);
    etp_html_escape(fp, e->name ? e->name : e->id);
    fputs(at && at->view >= 0 ? "</a></td>" : "</td>", fp);
}

/* A row of entity @p e: its id in data-id, so the page can find the rows a
 * finding names (findings' entity ids are the entities'). */
static void tr_entity(FILE *fp, const etp_entity *e, const char *cls)
{
    fputs("<tr data-id=\"", fp);
    etp_html_escape(fp, e->id);
    if (cls)
        fprintf(fp, "\" class=\"%s", cls);
    fputs("\">", fp);
}

/* The entity columns of the top table, after its name (from etprof/columns.h). */
static const etp_column_id top_columns[] = {
    ETP_COL_OP_TYPE, ETP_COL_BACKEND, ETP_COL_AVG, ETP_COL_P50,
    ETP_COL_MIN,     ETP_COL_MAX,     ETP_COL_EXECUTIONS,
};
#define TOP_COLUMNS (sizeof top_columns / sizeof top_columns[0])

static int numeric(const etp_column *c) { return c->type != ETP_COLT_STR; }

static void td_cell(FILE *fp, const etp_analysis *a, const etp_column *c, const etp_entity *e)
{
    if (!c->present(e)) {
        td_none(fp, "not measured");
        return;
    }
    etp_cell v = c->get(a, e);
    switch (c->type) {
    case ETP_COLT_UINT: td_uint(fp, v.u); break;
    case ETP_COLT_NUM: td_num(fp, v.d); break;
    case ETP_COLT_STR: td_text(fp, v.s); break;
    default: td_none(fp, "not shown here"); break;
    }
}

static const char *additivity(const etp_entity *e, char *buf, size_t size)
{
    if (e->additive)
        return "additive";
    if (e->shared) {
        snprintf(buf, size, "shared with %" PRIu32 ", not additive", e->co_count);
        return buf;
    }
    return "not additive";
}

static void top_table(FILE *fp, const rp_report *r, const drawn_at *d)
{
    uint32_t n = 0;
    const etp_entity **top = etp_analysis_top(r->a, &n);
    int ops = top && n && top[0]->kind == ETP_ENTITY_OPERATOR;
    const char *u = etp_unit_name(r->a->target_unit);
    fprintf(fp, "<section class=\"tbl\" id=\"t-top\"><h2>Top %s</h2>\n",
            ops ? "source operators" : "instructions");
    if (!top || !n) {
        fputs("<p class=\"note\">No timed entities.</p></section>\n", fp);
        free(top);
        return;
    }
    fprintf(fp, "<p class=\"note\">%" PRIu32 " of %" PRIu32 " shown, by average time per execution "
                "(%s). Rows marked * carry a shared or non-additive timing: never add them up. "
                "Every entity is in operators.csv.</p>\n",
            n < TOP_ROWS ? n : TOP_ROWS, n, u);
    fputs("<table class=\"sortable\"><thead><tr>", fp);
    th(fp, "#", 1);
    th(fp, ops ? "operator" : "instruction", 0);
    char h[64];
    for (size_t k = 0; k < TOP_COLUMNS; k++) {
        const etp_column *c = etp_column_get(top_columns[k]);
        etp_column_label(c, r->a->target_unit, h, sizeof h);
        th(fp, h, numeric(c));
    }
    th(fp, "share of execute (%)", 1);
    th(fp, "additivity", 0);
    fputs("</tr></thead><tbody>\n", fp);
    for (uint32_t i = 0; i < n && i < TOP_ROWS; i++) {
        const etp_entity *e = top[i];
        char b[64];
        tr_entity(fp, e, e->additive ? NULL : "shared");
        td_uint(fp, i + 1);
        name_cell(fp, r, d, e);
        for (size_t k = 0; k < TOP_COLUMNS; k++)
            td_cell(fp, r->a, etp_column_get(top_columns[k]), e);
        td_share(fp, r, e->time.stats.avg);
        td_text(fp, additivity(e, b, sizeof b));
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></section>\n", fp);
    free(top);
}

static void type_table(FILE *fp, const rp_report *r)
{
    const etp_analysis *a = r->a;
    int ops = a->op_type_kind == ETP_ENTITY_OPERATOR;
    const char *u = etp_unit_name(a->target_unit);
    fprintf(fp, "<section class=\"tbl\" id=\"t-types\"><h2>Totals per %s type</h2>\n",
            ops ? "operator" : "instruction");
    fputs("<p class=\"note\">The sum adds only additive average times; shared or non-additive "
          "timings are counted but never added (marked).</p>\n",
          fp);
    fputs("<table class=\"sortable\"><thead><tr>", fp);
    char h[80];
    th(fp, "type", 0);
    th(fp, ops ? "operators" : "instructions", 1);
    th(fp, "timed", 1);
    snprintf(h, sizeof h, "sum of avg, additive (%s)", u);
    th(fp, h, 1);
    th(fp, "share of execute (%)", 1);
    th(fp, "not summed", 1);
    snprintf(h, sizeof h, "largest not-summed avg (%s)", u);
    th(fp, h, 1);
    fputs("</tr></thead><tbody>\n", fp);
    for (uint32_t i = 0; i < a->op_type_total_count; i++) {
        const etp_op_type_total *t = &a->op_type_totals[i];
        fprintf(fp, "<tr%s>", !t->not_summed          ? ""
                              : t->not_summed < t->timed ? " class=\"partial\""
                                                         : " class=\"nosum\"");
        td_text(fp, t->op_type ? t->op_type : "(unknown)");
        td_uint(fp, t->members);
        td_uint(fp, t->timed);
        if (t->timed > t->not_summed)
            td_num(fp, t->sum_avg);
        else
            td_none(fp, t->timed ? "only shared or non-additive timings" : "not timed");
        if (t->timed > t->not_summed && t->has_share)
            td_num(fp, t->share_pct);
        else
            td_none(fp, t->timed > t->not_summed ? "no Method::execute time" : "nothing to add");
        if (t->not_summed) {
            fprintf(fp, "<td data-v=\"%" PRIu32 "\" class=\"warn\">%" PRIu32 " not summed</td>",
                    t->not_summed, t->not_summed);
            td_num(fp, t->largest_not_summed);
        } else {
            td_uint(fp, 0);
            td_none(fp, "all additive");
        }
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></section>\n", fp);
}

/* A figure's row; @p additivity overrides the additivity cell when not NULL. */
static void figure_row_as(FILE *fp, const rp_report *r, const char *where, const char *kind,
                          const etp_figure *f, int64_t instructions, const char *additivity)
{
    fputs("<tr>", fp);
    td_text(fp, where);
    td_text(fp, kind);
    if (instructions >= 0)
        td_uint(fp, (uint64_t)instructions);
    else
        td_none(fp, "not applicable");
    if (!f || !f->available) {
        const char *why = f && f->reason ? f->reason : "not measured";
        for (int k = 0; k < 5; k++)
            td_none(fp, why);
        td_text(fp, "unavailable");
    } else {
        td_num(fp, f->stats.avg);
        td_num(fp, f->stats.p50);
        td_num(fp, f->stats.min);
        td_num(fp, f->stats.max);
        td_share(fp, r, f->stats.avg);
        td_text(fp, additivity ? additivity : f->additive ? "additive" : "total, do not add");
    }
    fputs("</tr>\n", fp);
}

static void figure_row(FILE *fp, const rp_report *r, const char *where, const char *kind,
                       const etp_figure *f, int64_t instructions)
{
    figure_row_as(fp, r, where, kind, f, instructions, NULL);
}

static void backend_table(FILE *fp, const rp_report *r)
{
    const etp_analysis *a = r->a;
    const char *u = etp_unit_name(a->target_unit);
    fputs("<section class=\"tbl\" id=\"t-backends\"><h2>Delegate vs native time per backend</h2>\n"
          "<p class=\"note\">Per-execution totals summarised across executions. Delegate time is "
          "the DELEGATE_CALL intervals of each backend; native time is the portable kernels run "
          "by KernelCall instructions. Additive rows add up to Method::execute.</p>\n",
          fp);
    fputs("<table class=\"sortable\"><thead><tr>", fp);
    char h[64];
    th(fp, "where", 0);
    th(fp, "kind", 0);
    th(fp, "instructions", 1);
    static const char *const cols[] = {"avg", "p50", "min", "max"};
    for (int k = 0; k < 4; k++) {
        snprintf(h, sizeof h, "%s (%s)", cols[k], u);
        th(fp, h, 1);
    }
    th(fp, "share of execute (%)", 1);
    th(fp, "additivity", 0);
    fputs("</tr></thead><tbody>\n", fp);
    for (uint32_t i = 0; i < a->backend_total_count; i++) {
        const etp_backend_total *t = &a->backend_totals[i];
        figure_row(fp, r, t->backend, "delegate", t->figure, t->instructions);
    }
    figure_row(fp, r, "native operators (OPERATOR_CALL)", "native", a->native_total.figure,
               a->native_total.instructions);
    figure_row(fp, r, "\xe2\x80\x83of which kernels (native_call_*)", "native",
               etp_analysis_figure_by_id(a, ETP_FIG_NATIVE_KERNELS_TOTAL), -1);
    figure_row(fp, r, "\xe2\x80\x83of which dispatch overhead", "native",
               etp_analysis_figure_by_id(a, ETP_FIG_DISPATCH_OVERHEAD_TOTAL), -1);
    figure_row(fp, r, "other calls (move, jump, free)", "runtime",
               etp_analysis_figure_by_id(a, ETP_FIG_OTHER_CALLS_TOTAL), -1);
    figure_row(fp, r, "framework overhead (outside instructions)", "runtime",
               etp_analysis_figure_by_id(a, ETP_FIG_FRAMEWORK_OVERHEAD), -1);
    /* Instructions measured as VGF NX cycles: their DELEGATE_CALL time is in
     * none of the rows above (no double count), shown apart so the rows
     * still account for Method::execute. */
    const etp_figure *vx = etp_analysis_figure_by_id(a, ETP_FIG_VGF_EXCLUDED_RUNTIME);
    if (vx)
        figure_row_as(fp, r, "VGF calls measured as NX cycles (kept apart)", "VGF",
                      vx, a->nx ? (int64_t)a->nx->vgf_instruction_count : -1,
                      "kept apart: see VGF NX cycles");
    figure_row(fp, r, "Method::execute", "total", etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE), -1);
    fputs("</tbody></table></section>\n", fp);
}

/* The per-execution values of the figures the executions table shows. */
static const etp_figure_id exec_columns[] = {ETP_FIG_METHOD_EXECUTE, ETP_FIG_INSTRUCTIONS_TOTAL,
                                              ETP_FIG_DELEGATE_CALLS_TOTAL,
                                              ETP_FIG_OPERATOR_CALLS_TOTAL, ETP_FIG_FRAMEWORK_OVERHEAD};
#define EXEC_COLUMNS (sizeof exec_columns / sizeof exec_columns[0])

/* Execution @p x of @p f, or a dash saying why there is none. */
static void td_series(FILE *fp, const etp_analysis *a, const etp_figure *f, uint32_t x, int shown,
                      const char *why)
{
    if (f && f->series.ticks && f->series.present[x] && shown)
        td_num(fp, (double)f->series.ticks[x] / (a->divisor > 0 ? a->divisor : 1));
    else
        td_none(fp, why);
}

static void exec_table(FILE *fp, const rp_report *r)
{
    const etp_analysis *a = r->a;
    uint32_t n = a->execution_count;
    const char *u = etp_unit_name(a->target_unit);
    fputs("<section class=\"tbl\" id=\"t-exec\"><h2>Executions</h2>\n", fp);
    if (!n) {
        fputs("<p class=\"note\">No execution of the method.</p></section>\n", fp);
        return;
    }
    const etp_figure *f[EXEC_COLUMNS];
    for (size_t c = 0; c < EXEC_COLUMNS; c++)
        f[c] = etp_analysis_figure_by_id(a, exec_columns[c]);
    fprintf(fp, "<p class=\"note\">%" PRIu32 " executions of %s%s. Per-execution sums of the "
                "instructions' events; framework time is Method::execute minus them.</p>\n",
            n, a->method, n > EXEC_ROWS ? " (the first 2000 shown)" : "");
    fputs("<table class=\"sortable\"><thead><tr>", fp);
    char h[64];
    th(fp, "#", 1);
    th(fp, "ETDump run", 1);
    static const char *const cols[EXEC_COLUMNS] = {"Method::execute", "instructions", "delegate calls",
                                                   "operator calls", "framework"};
    for (size_t k = 0; k < EXEC_COLUMNS; k++) {
        snprintf(h, sizeof h, "%s (%s)", cols[k], u);
        th(fp, h, 1);
    }
    fputs("</tr></thead><tbody>\n", fp);
    const etp_figure *instr = f[1];
    for (uint32_t x = 0; x < n && x < EXEC_ROWS; x++) {
        fputs("<tr>", fp);
        td_uint(fp, x);
        td_uint(fp, a->executions[x]);
        td_series(fp, a, f[0], x, 1, "no Method::execute event");
        for (size_t c = 1; c + 1 < EXEC_COLUMNS; c++)
            td_series(fp, a, f[c], x, 1, "no such events");
        /* What is left of Method::execute once the instructions are taken out. */
        td_series(fp, a, f[EXEC_COLUMNS - 1], x, instr && instr->series.ticks && instr->series.present[x],
                  "needs Method::execute and instruction events");
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></section>\n", fp);
}

/* A share of @p whole in percent, or a dash. */
static void td_pct(FILE *fp, double part, double whole, int has)
{
    if (has && whole > 0)
        td_num(fp, 100.0 * part / whole);
    else
        td_none(fp, has ? "no execute() time" : "no such event in this call");
}

/* The Ethos-U split per delegate call site (the DelegateCall instructions
 * linked to one, etp_entity.npu), from the entities' columns; nothing
 * without EthosUBackend events. */
static void npu_table(FILE *fp, const rp_report *r, const drawn_at *d)
{
    const etp_analysis *a = r->a;
    const etp_npu_split *p = a->device ? &a->device->npu : NULL;
    if (!p || !p->present)
        return;
    const etp_column *cx = etp_column_get(ETP_COL_NPU_EXECUTE_AVG), *cn = etp_column_get(ETP_COL_NPU_AVG),
                     *ci = etp_column_get(ETP_COL_NPU_INPUT_COPY_AVG),
                     *co = etp_column_get(ETP_COL_NPU_OUTPUT_COPY_AVG), *cr = etp_column_get(ETP_COL_NPU_REST_AVG);
    int outs = 0;
    uint32_t rows = 0;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        rows += a->entities[i].npu != NULL;
        outs |= co->present(&a->entities[i]);
    }
    fputs("<section class=\"tbl\" id=\"t-npu\"><h2>Ethos-U delegate calls</h2>\n", fp);
    fprintf(fp, "<p class=\"note\">From the EthosUBackend events of the ETDump: per execution, the "
                "sum over a delegate instruction's calls, averaged over the %" PRIu32 " executions "
                "with such events (%" PRIu64 " call%s in all). Shares are of the instruction's "
                "EthosUBackend::execute() time; the input/output copies and the rest of the call run "
                "on the CPU.",
            p->executions, p->calls, p->calls == 1 ? "" : "s");
    if (p->has_cpu_outside && p->method_execute_avg > 0)
        fprintf(fp, " Over Method::execute: NPU %.1f%%, CPU outside the NPU calls %.1f%%.",
                100.0 * p->npu_avg / p->method_execute_avg, 100.0 * p->cpu_outside_avg / p->method_execute_avg);
    fputs("</p>\n", fp);
    if (!rows) {
        fputs("<p class=\"note\">No delegate instruction of the method holds them.</p></section>\n", fp);
        return;
    }
    fputs("<table class=\"sortable\"><thead><tr>", fp);
    char h[80];
    th(fp, "delegate call", 0);
    th(fp, "instruction", 0);
    th(fp, "calls per execution", 1);
    etp_column_label(cx, a->target_unit, h, sizeof h);
    th(fp, h, 1);
    th(fp, "share of Method::execute (%)", 1);
    th(fp, "NPU (%)", 1);
    th(fp, "input copy (%)", 1);
    if (outs)
        th(fp, "output copy (%)", 1);
    th(fp, "rest of the call (%)", 1);
    th(fp, "verdict", 0);
    fputs("</tr></thead><tbody>\n", fp);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (!e->npu)
            continue;
        double x = cx->get(a, e).d;
        tr_entity(fp, e, NULL);
        name_cell(fp, r, d, e);
        td_text(fp, e->id);
        td_num(fp, e->npu->executions ? (double)e->npu->calls / e->npu->executions : 0);
        td_num(fp, x);
        td_share(fp, r, x);
        td_pct(fp, cn->present(e) ? cn->get(a, e).d : 0, x, cn->present(e));
        td_pct(fp, ci->present(e) ? ci->get(a, e).d : 0, x, ci->present(e));
        if (outs)
            td_pct(fp, co->present(e) ? co->get(a, e).d : 0, x, co->present(e));
        td_pct(fp, cr->get(a, e).d, x, 1);
        td_text(fp, etp_npu_verdict(e->npu));
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></section>\n", fp);
}

void rp_write_tables(FILE *fp, const rp_report *r)
{
    drawn_at *d = drawn_index(r);
    npu_table(fp, r, d);
    top_table(fp, r, d);
    type_table(fp, r);
    backend_table(fp, r);
    exec_table(fp, r);
    free(d);
}
