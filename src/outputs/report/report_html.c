/* report_html.c - the standalone report page (etp_report_write_html): one
 * HTML file with inline CSS, the data as JSON (each value once) and etprof's
 * own script, which draws the graphs into inline SVG frames: only what is in
 * sight in detail, the whole drawing as a few paths when zoomed out, so the
 * page stays fast on graphs of tens of thousands of nodes. Nothing refers outside the file, so it works from
 * file:// with no network. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/report/analysis_report.h"
#include "outputs/report/report_internal.h"
#include "outputs/report/text_numbers.h"

static void input_line(FILE *fp, const char *role, const char *name, const char *extra)
{
    if (!name)
        return;
    fprintf(fp, "<span class=\"in\"><b>%s</b> ", role);
    etp_html_escape(fp, name);
    if (extra)
        fprintf(fp, " <small>%s</small>", extra);
    fputs("</span>\n", fp);
}

/* A header figure, labelled and scaled as the terminal summary prints it
 * (`etprof analyze`): the same figures, the same words, the same digits. */
static void figure_chip(FILE *fp, const rp_report *r, const char *label, const etp_figure *f)
{
    if (!f || !f->available || !f->events)
        return; /* e.g. no delegate call at all: nothing measured */
    if (!etp_unit_is_tick(f->unit))
        return; /* not a time (planned memory) */
    etp_unit u = f->unit;
    const double both[2] = {f->stats.avg, f->stats.p50};
    etp_colfmt cf = etp_colfmt_for(u, both, 2);
    char v[48], p[48];
    etp_colfmt_value(&cf, f->stats.avg, v, sizeof v);
    etp_colfmt_value(&cf, f->stats.p50, p, sizeof p);
    fprintf(fp, "<span class=\"fig\">");
    etp_html_escape(fp, label);
    fprintf(fp, " <b>%s</b> %s avg <small>(p50 %s, n=%" PRIu64 ")</small></span>\n", v,
            etp_unit_name(cf.unit), p, f->stats.n);
}

static void figure_chips(FILE *fp, const rp_report *r)
{
    const etp_analysis *a = r->a;
    figure_chip(fp, r, "Method::execute", etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE));
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (a->figures[i].id == ETP_FIG_DELEGATE_TIME) {
            char label[200];
            snprintf(label, sizeof label, "delegate %s", a->figures[i].backend);
            figure_chip(fp, r, label, &a->figures[i]);
        }
    figure_chip(fp, r, "native kernels", etp_analysis_figure_by_id(a, ETP_FIG_NATIVE_KERNELS_TOTAL));
    figure_chip(fp, r, "dispatch overhead", etp_analysis_figure_by_id(a, ETP_FIG_DISPATCH_OVERHEAD_TOTAL));
    const etp_figure *oc = etp_analysis_figure_by_id(a, ETP_FIG_OTHER_CALLS_TOTAL);
    if (oc && oc->events)
        figure_chip(fp, r, "other calls (move/jump/free)", oc);
    figure_chip(fp, r, "framework overhead", etp_analysis_figure_by_id(a, ETP_FIG_FRAMEWORK_OVERHEAD));
    /* NULL (no chip) unless instructions were measured as VGF NX cycles */
    figure_chip(fp, r, "VGF calls (kept apart, NX cycles below)",
                etp_analysis_figure_by_id(a, ETP_FIG_VGF_EXCLUDED_RUNTIME));
    figure_chip(fp, r, "runner iteration wall time", etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_ITERATION));
    figure_chip(fp, r, "runner load", etp_analysis_figure_by_id(a, ETP_FIG_RUNNER_LOAD));
}

/* The "Findings" panel: its frame and counts here, each finding drawn by the
 * script from the "etp-findings" data block (etp_json_findings, the one JSON
 * form of summary.json and `analyze --json`). */
static void findings_panel(FILE *fp, const rp_report *r)
{
    const etp_finding_list *l = &r->a->findings;
    uint32_t fired = etp_finding_list_count(l, ETP_FINDING_FIRED);
    uint32_t held = etp_finding_list_count(l, ETP_FINDING_WITHHELD);
    fprintf(fp, "<section class=\"findings\" id=\"findings\" aria-label=\"findings\">\n<h2>Findings "
                "<small>%" PRIu32 " fired, %" PRIu32 " withheld</small></h2>\n",
            fired, held);
    if (!l->count)
        fputs("<p class=\"fnd-none\">No findings: none of the patterns etprof looks for is in this "
              "run (<code>etprof analyze --list-finding-codes</code> lists them).</p>\n",
              fp);
    else
        fputs("<p class=\"fnd-hint\">Click a finding to highlight what it names in the graphs and "
              "tables; click it again to clear.</p>\n<ol id=\"findings-list\"></ol>\n",
              fp);
    fputs("</section>\n", fp);
}

static void findings_data(etp_jw *w, const rp_report *r)
{
    etp_json_findings(w, &r->a->findings);
}

static void header(FILE *fp, const rp_report *r)
{
    const etp_analysis *a = r->a;
    const etp_report_inputs *in = r->in;
    const char *val = etp_validity_name(a->validity);
    fprintf(fp, "<header>\n<div class=\"top\"><span class=\"validity v-%s\">%s</span>\n", val, val);
    fputs("<h1>etprof report \xe2\x80\x94 method <code>", fp);
    etp_html_escape(fp, a->method);
    fputs("</code></h1></div>\n<div class=\"inputs\">\n", fp);
    char sha[80];
    snprintf(sha, sizeof sha, "sha256 %.16s\xe2\x80\xa6", a->program_sha256);
    input_line(fp, "ETDump", in->etdump_name, NULL);
    input_line(fp, "program", in->pte_name, a->program_sha256[0] ? sha : NULL);
    input_line(fp, "ETRecord", in->etrecord_name, NULL);
    fprintf(fp, "<span class=\"in\"><b>executions</b> %" PRIu32 "</span>\n", a->execution_count);
    fprintf(fp, "<span class=\"in\"><b>unit</b> %s</span>\n", etp_unit_name(a->target_unit));
    fputs("<span class=\"in\"><b>method</b> ", fp);
    etp_html_escape(fp, a->method_basis);
    fputs("</span>\n</div>\n<div class=\"figs\">\n", fp);
    figure_chips(fp, r);
    fputs("</div>\n", fp);
    fprintf(fp, "<ul class=\"issues\" aria-label=\"issues\">\n");
    if (!a->issues.count)
        fputs("<li class=\"sev-none\">No issues: the result is valid.</li>\n", fp);
    for (size_t i = 0; i < a->issues.count; i++) {
        const etp_issue *is = &a->issues.items[i];
        const char *sev = etp_severity_name(is->code->severity);
        fprintf(fp, "<li class=\"sev-%s\"><b>%s</b> <code>", sev, sev);
        etp_html_escape(fp, is->code->code);
        fputs("</code> ", fp);
        etp_html_escape(fp, is->message);
        fputs(" <span class=\"guide\">\xe2\x86\x92 ", fp);
        etp_html_escape(fp, is->code->guidance);
        fputs("</span></li>\n", fp);
    }
    if (!in->source)
        fputs("<li class=\"sev-info\"><b>note</b> No ETRecord graph for this method: source "
              "operators and their links to instructions are not shown.</li>\n",
              fp);
    if (!in->instructions)
        fputs("<li class=\"sev-info\"><b>note</b> No program (.pte): the instruction graph is not "
              "shown.</li>\n",
              fp);
    for (int k = 0; k < 2; k++) {
        uint32_t n = k ? r->skipped_src : r->skipped_instr;
        if (n)
            fprintf(fp, "<li class=\"sev-info\"><b>note</b> The %s graph has %" PRIu32 " nodes, more "
                        "than the %u this page draws: open graph.json in Model Explorer; the tables "
                        "below cover everything.</li>\n",
                    k ? "source" : "instruction", n, RP_MAX_DRAWN);
    }
    if (r->instr_view >= 0 && r->src_view >= 0) {
        uint32_t ui = 0;
        const rp_view *iv = &r->views[r->instr_view];
        for (uint32_t k = 0; k < iv->node_count; k++)
            ui += iv->nodes[k].link != ETP_LINK_LINKED && iv->nodes[k].link != ETP_LINK_NOT_APPLICABLE;
        if (ui || in->source->unlinked_operators)
            fprintf(fp, "<li class=\"sev-info\"><b>note</b> %" PRIu32 " instruction%s and %" PRIu32
                        " source operator%s are not linked to the other graph (dashed outline); "
                        "their reason is in the details panel and mapping.json.</li>\n",
                    ui, ui == 1 ? "" : "s", in->source->unlinked_operators,
                    in->source->unlinked_operators == 1 ? "" : "s");
    }
    fputs("</ul>\n", fp);
    findings_panel(fp, r);
    fputs("</header>\n", fp);
}

static void toolbar(FILE *fp, const rp_report *r)
{
    fputs("<div class=\"toolbar\">\n<div class=\"tabs\" role=\"tablist\">", fp);
    for (int vi = 0; vi < r->view_count; vi++) {
        fprintf(fp, "<button type=\"button\" role=\"tab\" data-view=\"%d\"%s>", vi,
                vi == 0 ? " class=\"on\"" : "");
        etp_html_escape(fp, r->views[vi].title);
        /* The badge counts instructions / operators, not the graph's
         * inputs and outputs pseudo-nodes. */
        uint32_t real = 0;
        for (uint32_t k = 0; k < r->views[vi].node_count; k++) {
            const char *kind = r->views[vi].nodes[k].kind;
            real += kind && strcmp(kind, "in") && strcmp(kind, "out");
        }
        fprintf(fp, " <small>%" PRIu32 "</small></button>", real);
    }
    fputs("</div>\n<label>metric <select id=\"metric\">", fp);
    for (int m = 0; m < ETP_ME_METRICS; m++)
        fprintf(fp, "<option value=\"%d\">%s (%s)</option>", m, etp_me_metrics[m].name,
                etp_me_metric_unit(&etp_me_metrics[m], r->a));
    fputs("</select></label>\n"
          "<input id=\"search\" type=\"search\" placeholder=\"search nodes (name, id, type)\" "
          "autocomplete=\"off\"><span id=\"search-info\"></span>\n"
          "<button type=\"button\" id=\"fit\">fit</button>\n"
          "<div id=\"legend\"></div>\n</div>\n",
          fp);
}

/* The data block: JSON with every '<' escaped, so no "</script>" or "<!--"
 * in a string can end or confuse the script element. */
static int data_block(FILE *fp, const rp_report *r, const char *id,
                      void (*write)(etp_jw *, const rp_report *))
{
    fprintf(fp, "<script type=\"application/json\" id=\"%s\">", id);
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    w.escape_lt = 1; /* '<' occurs only inside strings */
    write(&w, r);
    int bad = etp_jw_finish(&w);
    fputs("</script>\n", fp);
    return bad ? -1 : 0;
}

etp_status etp_report_write_html(const etp_report_inputs *in, FILE *fp, etp_error *err)
{
    rp_report r;
    memset(&r, 0, sizeof r);
    r.in = in;
    r.a = in->analysis;
    etp_status s = rp_views_build(&r, err);
    if (s) {
        rp_views_free(&r);
        return s;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"generator\" content=\"etprof " ETP_VERSION "\">\n<title>etprof \xe2\x80\x94 ",
          fp);
    etp_html_escape(fp, r.a->method);
    if (in->pte_name || in->etrecord_name) {
        fputs(" (", fp);
        etp_html_escape(fp, in->pte_name ? in->pte_name : in->etrecord_name);
        fputs(")", fp);
    }
    fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body data-etprof-ready=\"0\">\n",
            etp_report_css);
    header(fp, &r);
    fputs("<main>\n<section id=\"graphs\">\n", fp);
    if (r.view_count) {
        toolbar(fp, &r);
        fputs("<div class=\"area\">\n<div class=\"views\">\n", fp);
        for (int vi = 0; vi < r.view_count; vi++) {
            fprintf(fp, "<div class=\"view\" id=\"view%d\"%s>\n", vi, vi ? " hidden" : "");
            rp_write_svg(fp, &r, vi);
            fputs("</div>\n", fp);
        }
        fputs("</div>\n<aside id=\"panel\"><p class=\"hint\">Click a node for its details; drag to "
              "pan, wheel to zoom.</p></aside>\n</div>\n<div id=\"tip\" hidden></div>\n",
              fp);
    }
    fputs("</section>\n<section id=\"tables\">\n", fp);
    rp_write_tables(fp, &r);
    rp_write_nx_section(fp, &r);
    fputs("</section>\n</main>\n<pre id=\"etp-selftest\" hidden></pre>\n", fp);
    int bad = data_block(fp, &r, "etp-data", rp_write_data);
    bad |= data_block(fp, &r, "etp-ents", rp_write_entities);
    bad |= data_block(fp, &r, "etp-findings", findings_data);
    /* The shared helpers first: the scripts after report.js use them too. */
    fprintf(fp, "<script>\n%s%s</script>\n", etp_page_util_js, etp_report_js);
    bad |= rp_write_nx_data(fp, &r) != 0; /* before the VGF graphs: they show its chains */
    bad |= rp_write_vgf(fp, &r) != 0;
    fputs("</body>\n</html>\n", fp);
    rp_views_free(&r);
    if (bad)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory writing the report");
    if (ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "could not write the report");
    return ETP_OK;
}
