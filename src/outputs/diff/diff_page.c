/* diff_page.c - diff.html: a standalone page (no network; the script only
 * measures the page for its test) with the sides, the level and why, and
 * side-by-side bars per model figure, per backend and per top entity row,
 * and the findings that appeared, disappeared or were kept.
 * Bars of one table share one scale (the largest value of the table's
 * unit); a row in another unit (bytes, counts) is scaled on its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/diff_io.h"
#include "outputs/html_escape.h"
#include "util/jsonw.h"

extern const char etp_diff_css[];
extern const char etp_diff_js[];

/* A number as the JSON files print it (shortest round trip). */
static void exact(FILE *fp, double v)
{
    char b[40];
    etp_format_double(b, sizeof b, v);
    fputs(b, fp);
}

static void human(FILE *fp, int has, double v)
{
    if (has)
        fprintf(fp, "%.4g", v);
    else
        fputs("&ndash;", fp);
}

static int in_backend_table(const etp_diff_row *r)
{
    return r->kind == ETP_DIFF_MODEL &&
           (!strncmp(r->key, "delegate_time:", 14) || !strcmp(r->key, "native_kernels_total") ||
            !strcmp(r->key, "dispatch_overhead_total") || !strcmp(r->key, "other_calls_total") ||
            !strcmp(r->key, "framework_overhead"));
}

static double row_max(const etp_diff_row *r)
{
    double m = 0;
    if (r->base.available && r->base.value > m)
        m = r->base.value;
    if (r->new_.available && r->new_.value > m)
        m = r->new_.value;
    return m;
}

static void bar(FILE *fp, const char *cls, const etp_diff_value *v, double scale)
{
    if (!v->present || !v->available) {
        fprintf(fp, "<div class=\"bar none\" title=\"%s\"></div>", v->present ? "no value" : "absent");
        return;
    }
    double pct = scale > 0 && v->value > 0 ? 100.0 * v->value / scale : 0;
    if (pct > 100)
        pct = 100;
    fprintf(fp, "<div class=\"bar %s\" style=\"width:%.3f%%\"></div>", cls, pct);
}

static void row_html(FILE *fp, const etp_diff_row *r, const char *section, double scale,
                     int with_kind)
{
    fprintf(fp, "<tr data-section=\"%s\" data-key=\"", section);
    etp_html_escape(fp, r->key);
    fputc('"', fp);
    if (r->base.available) {
        fputs(" data-base=\"", fp);
        exact(fp, r->base.value);
        fputc('"', fp);
    }
    if (r->new_.available) {
        fputs(" data-new=\"", fp);
        exact(fp, r->new_.value);
        fputc('"', fp);
    }
    fputs(">", fp);
    if (with_kind)
        fprintf(fp, "<td>%s</td>", etp_diff_kind_name(r->kind));
    fputs("<td class=\"label\" title=\"", fp);
    etp_html_escape(fp, r->name ? r->name : r->key);
    fputs("\">", fp);
    etp_html_escape(fp, r->key);
    if (r->base.shared || r->new_.shared)
        fputs(" <span class=\"shared\" title=\"shared timing: non-additive\">*</span>", fp);
    fputs("</td><td class=\"track\">", fp);
    double s = r->unit && r->unit[0] && scale > 0 ? scale : row_max(r);
    bar(fp, "base", &r->base, s);
    bar(fp, "new", &r->new_, s);
    fputs("</td><td class=\"num\">", fp);
    human(fp, r->base.available, r->base.value);
    fputs("</td><td class=\"num\">", fp);
    human(fp, r->new_.available, r->new_.value);
    fputs("</td><td class=\"num\">", fp);
    human(fp, r->has_delta, r->delta);
    fputs("</td><td class=\"num\">", fp);
    if (r->has_ratio)
        fprintf(fp, "%.3f&times;", r->ratio);
    else
        fputs("&ndash;", fp);
    fputs("</td><td class=\"num\">", fp);
    if (r->has_ci)
        fprintf(fp, "[%.3f, %.3f]", r->ci_low, r->ci_high);
    else
        fputs("&ndash;", fp);
    fputs("</td><td>", fp);
    if (r->has_ci)
        fprintf(fp, "<span class=\"%s\">%s</span>",
                !r->significant ? "ns" : r->ratio > 1 ? "slower" : "faster",
                !r->significant ? "not significant" : r->ratio > 1 ? "slower" : "faster");
    else if (r->note) {
        fputs("<span class=\"note\">", fp);
        etp_html_escape(fp, r->note);
        fputs("</span>", fp);
    }
    fputs("</td><td>", fp);
    etp_html_escape(fp, r->unit);
    fputs("</td></tr>\n", fp);
}

static void table_head(FILE *fp, int with_kind)
{
    fputs("<table class=\"bars\"><thead><tr>", fp);
    if (with_kind)
        fputs("<th>kind</th>", fp);
    fputs("<th>row</th><th><span class=\"legend\"><span class=\"b\"></span>base"
          "<span class=\"n\"></span>new</span></th><th>base</th><th>new</th><th>delta</th>"
          "<th>ratio</th><th>interval</th><th>verdict</th><th>unit</th></tr></thead><tbody>\n",
          fp);
}

/* The largest value among @p idx rows in the diff's unit (their common scale). */
static double scale_of(const etp_diff *d, const uint32_t *idx, uint32_t n)
{
    double m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const etp_diff_row *r = &d->rows[idx[i]];
        if (r->unit && d->unit && !strcmp(r->unit, d->unit) && row_max(r) > m)
            m = row_max(r);
    }
    return m;
}

static void section(FILE *fp, const etp_diff *d, const char *title, const char *id,
                    const uint32_t *idx, uint32_t n, int with_kind)
{
    fprintf(fp, "<h2 id=\"%s\">", id);
    etp_html_escape(fp, title);
    fputs("</h2>\n", fp);
    if (!n) {
        fputs("<p class=\"note\">none</p>\n", fp);
        return;
    }
    table_head(fp, with_kind);
    double scale = scale_of(d, idx, n);
    for (uint32_t i = 0; i < n; i++) {
        const etp_diff_row *r = &d->rows[idx[i]];
        /* Rows in another unit than the diff's scale on their own. */
        int same = r->unit && d->unit && !strcmp(r->unit, d->unit);
        row_html(fp, r, id, same ? scale : 0, with_kind);
    }
    fputs("</tbody></table>\n", fp);
}

static void status_cell(FILE *fp, uint32_t count, const char *status)
{
    if (!count) {
        fputs("<td class=\"ns\">absent</td>", fp);
        return;
    }
    fprintf(fp, "<td>%s", status);
    if (count > 1) /* one code several times (e.g. a hotspot per operator type) */
        fprintf(fp, " &times;%u", count);
    fputs("</td>", fp);
}

/* Entities of a finding the page names (a fragmented program's finding may
 * name hundreds). */
#define PAGE_FINDING_ENTITIES 24

/* The findings that appeared, disappeared or were kept (etp_diff.findings). */
static void findings_section(FILE *fp, const etp_diff *d)
{
    fputs("<h2 id=\"findings\">Findings</h2>\n", fp);
    if (!d->findings_compared) {
        fprintf(fp, "<p class=\"note\">Not compared: the %s side records no findings (a bundle written "
                    "before etprof had them).</p>\n",
                d->base.has_findings ? "new" : "base");
        return;
    }
    if (!d->finding_count) {
        fputs("<p class=\"note\">Neither run has a finding.</p>\n", fp);
        return;
    }
    fputs("<table class=\"bars findings\"><thead><tr><th>change</th><th>code</th><th>severity</th>"
          "<th>base</th><th>new</th><th>entities (+ new run only, &minus; base run only)</th>"
          "<th>message</th></tr></thead><tbody>\n",
          fp);
    for (uint32_t i = 0; i < d->finding_count; i++) {
        const etp_diff_finding *f = &d->findings[i];
        const char *change = etp_diff_finding_change_name(f->change);
        fprintf(fp, "<tr class=\"f-%s\" data-code=\"", change);
        etp_html_escape(fp, f->code);
        fprintf(fp, "\"><td>%s</td><td><code>", change);
        etp_html_escape(fp, f->code);
        fputs("</code></td><td>", fp);
        etp_html_escape(fp, f->severity ? f->severity : "");
        fputs("</td>", fp);
        status_cell(fp, f->base_count, f->base_status);
        status_cell(fp, f->new_count, f->new_status);
        fputs("<td class=\"ents\">", fp);
        for (uint32_t k = 0; k < f->entity_count && k < PAGE_FINDING_ENTITIES; k++) {
            uint8_t in = f->entity_in[k];
            fprintf(fp, "%s<code class=\"%s\">%s", k ? " " : "",
                    in == ETP_DIFF_IN_NEW ? "e-new" : in == ETP_DIFF_IN_BASE ? "e-base" : "e-both",
                    in == ETP_DIFF_IN_NEW ? "+" : in == ETP_DIFF_IN_BASE ? "&minus;" : "");
            etp_html_escape(fp, f->entity_ids[k]);
            fputs("</code>", fp);
        }
        if (f->entity_count > PAGE_FINDING_ENTITIES)
            fprintf(fp, " &hellip; and %u more (diff_summary.json lists them)",
                    f->entity_count - PAGE_FINDING_ENTITIES);
        fputs("</td><td>", fp);
        const char *msg = f->new_message ? f->new_message : f->base_message;
        etp_html_escape(fp, msg ? msg : "");
        fputs("</td></tr>\n", fp);
    }
    fputs("</tbody></table>\n", fp);
}

/* A figure in a numerics cell: "+inf", "-inf", "-" for NaN. */
static void numeric_cell(FILE *fp, double v)
{
    if (isnan(v))
        fputs("<td class=\"num ns\">-</td>", fp);
    else if (isinf(v))
        fprintf(fp, "<td class=\"num\">%s</td>", v > 0 ? "+inf" : "-inf");
    else
        fprintf(fp, "<td class=\"num\">%.6g</td>", v);
}

/* The numerics of the two runs (etprof/numeric_diff.h): one row per pair,
 * the first divergence and the largest error named above the table. */
static void numerics_section(FILE *fp, const etp_numeric_diff *nd)
{
    fputs("<h2 id=\"numerics\">Numerics</h2>\n<div class=\"level\" id=\"numerics-summary\">", fp);
    fprintf(fp, "Execution %d, matched at level <b>", (int)nd->execution);
    etp_html_escape(fp, nd->level);
    fputs("</b>: ", fp);
    etp_html_escape(fp, nd->level_reason);
    fprintf(fp, ". %u pairs, %u compared, %u not comparable, %u outside the tolerance (rtol %g, atol %g); "
                "unmatched: base %u, new %u.<br>",
            nd->pair_count, nd->compared, nd->incomparable, nd->diverged, nd->tol.rtol, nd->tol.atol,
            nd->base_unmatched, nd->new_unmatched);
    if (nd->first_divergence) {
        fputs("First divergence (the error starts here): <code id=\"numerics-first\">", fp);
        etp_html_escape(fp, nd->first_divergence->base->key);
        fputs("</code>", fp);
    } else {
        fputs("No divergence: every compared pair is within the tolerance", fp);
    }
    if (nd->largest) {
        fputs("; largest error: <code id=\"numerics-largest\">", fp);
        etp_html_escape(fp, nd->largest->base->key);
        fputs("</code>", fp);
    }
    fputs(".</div>\n<table class=\"bars numerics\"><thead><tr><th>key</th><th>new key</th><th>level</th>"
          "<th>SNR dB</th><th>MSE</th><th>MAE</th><th>max abs err</th><th>cosine</th><th>status</th>"
          "</tr></thead><tbody>\n",
          fp);
    for (uint32_t i = 0; i < nd->pair_count; i++) {
        const etp_numeric_pair *p = &nd->pairs[i];
        fputs("<tr data-numeric-key=\"", fp);
        etp_html_escape(fp, p->base->key);
        fprintf(fp, "\" class=\"%s%s\"><td><code>", p->diverged ? "diverged" : "",
                p == nd->first_divergence ? " first" : "");
        etp_html_escape(fp, p->base->key);
        fputs("</code></td><td><code>", fp);
        etp_html_escape(fp, p->new_->key);
        fputs("</code></td><td>", fp);
        etp_html_escape(fp, etp_numeric_match_level_name(p->level));
        fputs("</td>", fp);
        if (p->compared) {
            numeric_cell(fp, p->gap.snr_db);
            numeric_cell(fp, p->gap.mse);
            numeric_cell(fp, p->gap.mae);
            numeric_cell(fp, p->gap.max_abs_err);
            numeric_cell(fp, p->gap.cosine);
            fprintf(fp, "<td>%s</td>", p->diverged ? "outside the tolerance" : "within");
        } else {
            fputs("<td colspan=\"5\" class=\"ns\">not compared</td><td>", fp);
            etp_html_escape(fp, p->reason ? p->reason : "");
            fputs("</td>", fp);
        }
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table>\n<p class=\"note\">SNR = 10 log10(&Sigma; base&sup2; / &Sigma; (new &minus; base)&sup2;), "
          "+inf when equal; cosine is NaN (-) when a side is all zeros. numerics.csv has every figure.</p>\n",
          fp);
}

static void side_row(FILE *fp, const char *which, const etp_diff_identity *id)
{
    fprintf(fp, "<tr><th>%s</th><td><code>", which);
    etp_html_escape(fp, id->label);
    fputs("</code> (", fp);
    etp_html_escape(fp, id->origin);
    fputs(")</td><td>program <code>", fp);
    etp_html_escape(fp, id->program_sha256 ? id->program_sha256 : "unknown");
    fputs("</code></td><td>method ", fp);
    etp_html_escape(fp, id->method ? id->method : "?");
    fprintf(fp, ", %u executions, times in ", id->executions);
    etp_html_escape(fp, etp_unit_name(id->time_unit));
    if (id->has_tick_unit) {
        fputs(", ticks ", fp);
        etp_html_escape(fp, etp_unit_name(id->tick_unit));
        if (id->ticks_assumed)
            fputs(" (assumed)", fp);
    }
    fputs(", ", fp);
    etp_html_escape(fp, id->validity ? id->validity : "validity unknown");
    fputs("</td></tr>\n", fp);
}

char *etp_diff_html(const etp_diff *d, uint32_t top, size_t *len)
{
    return etp_diff_html_with_numerics(d, NULL, top, len);
}

char *etp_diff_html_with_numerics(const etp_diff *d, const etp_numeric_diff *nd, uint32_t top, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);
    if (!fp)
        return NULL;
    uint32_t *model = malloc((d->row_count + 1) * sizeof *model);
    uint32_t *backend = malloc((d->row_count + 1) * sizeof *backend);
    int failed = 0;
    uint32_t ranked_n = 0;
    uint32_t *ranked = etp_diff_ranked(d, ETP_DIFF_RANK_ABS, &ranked_n, &failed);
    uint32_t nm = 0, nb = 0;
    if (!model || !backend || failed) {
        fclose(fp);
        free(buf);
        free(model);
        free(backend);
        free(ranked);
        return NULL;
    }
    for (uint32_t i = 0; i < d->row_count; i++) {
        if (d->rows[i].kind != ETP_DIFF_MODEL)
            continue;
        model[nm++] = i;
        if (in_backend_table(&d->rows[i]))
            backend[nb++] = i;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>etprof diff</title>\n<style>\n", fp);
    fputs(etp_diff_css, fp);
    fputs("</style></head>\n<body>\n<h1>etprof diff</h1>\n<table class=\"sides\">\n", fp);
    side_row(fp, "base", &d->base);
    side_row(fp, "new", &d->new_);
    fputs("</table>\n<div class=\"level\" id=\"level\">matched at level <b>", fp);
    etp_html_escape(fp, d->level_name);
    fputs("</b>: ", fp);
    etp_html_escape(fp, d->level_reason);
    fprintf(fp, ".<br>Compared: the %s over executions, in ", d->statistic == ETP_DIFF_STAT_AVG ? "mean" : "median");
    etp_html_escape(fp, d->unit);
    fputs("; ratio = new / base (&gt; 1: slower).", fp);
    if (d->resamples)
        fprintf(fp, " Intervals: %.0f%% percentile bootstrap of the ratio (%u resamples, fixed seed), "
                    "where both sides have per-execution samples.",
                100 * d->confidence, d->resamples);
    fputs("</div>\n", fp);
    for (uint32_t i = 0; i < d->warning_count; i++) {
        fputs("<div class=\"warn\">", fp);
        etp_html_escape(fp, d->warnings[i].code);
        fputs(": ", fp);
        etp_html_escape(fp, d->warnings[i].message);
        fputs("</div>\n", fp);
    }
    section(fp, d, "Model level", "model", model, nm, 0);
    section(fp, d, "Per backend and overhead", "backend", backend, nb, 0);
    uint32_t show = top && top < ranked_n ? top : ranked_n;
    char title[128];
    snprintf(title, sizeof title, "Top %u of %u %s rows by absolute change", show, ranked_n,
             d->level_name);
    section(fp, d, title, "rows", ranked, show, 1);
    findings_section(fp, d);
    if (nd)
        numerics_section(fp, nd);
    fputs("<p class=\"note\">* shared timing (co-attributed to several entities): non-additive, never "
          "summed. Medians, minima and maxima are never added.</p>\n<script>\n", fp);
    fputs(etp_diff_js, fp);
    fputs("</script>\n</body></html>\n", fp);
    free(model);
    free(backend);
    free(ranked);
    if (fclose(fp)) {
        free(buf);
        return NULL;
    }
    *len = size;
    return buf;
}
