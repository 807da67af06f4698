/* report_svg.c - the SVG frame of each drawn view: the arrow marker, the
 * outlines of delegated regions (few, so drawn here) and the empty edge and
 * node groups the page's script fills with what is in sight. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/report/report_internal.h"
#include "util/dtoa.h"

typedef struct span {
    uint32_t layer;
    double x0, x1, y0, y1;
} span;

static int cmp_span(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->layer > b->layer) - (a->layer < b->layer);
}

/* "<cmd>x,y " of a path, as fprintf("%s%.1f,%.1f ") writes it. */
static void put_point(FILE *fp, const char *cmd, double x, double y)
{
    char b[2 * ETP_FIXED1_MAX + 8];
    size_t n = strlen(cmd);
    memcpy(b, cmd, n);
    n += (size_t)etp_format_fixed1(b + n, x);
    b[n++] = ',';
    n += (size_t)etp_format_fixed1(b + n, y);
    b[n++] = ' ';
    fwrite(b, 1, n, fp);
}

/* Outline of a delegated region: per layer the extent of its nodes, joined
 * down the right side and back up the left, one polygon per run of
 * consecutive layers (the layout keeps a group contiguous in each layer). */
static void group_outlines(FILE *fp, const rp_report *r, const rp_view *v)
{
    const etp_source_graph *g = r->in->source;
    span *sp = malloc((v->node_count + 1) * sizeof *sp);
    /* The nodes of each group, in node order (a counting sort): one pass
     * over the nodes instead of one per group. */
    uint32_t *start = calloc((size_t)g->group_count + 1, sizeof *start);
    uint32_t *order = malloc((v->node_count + 1) * sizeof *order);
    if (!sp || !start || !order) {
        free(sp);
        free(start);
        free(order);
        return;
    }
    for (uint32_t i = 0; i < v->node_count; i++)
        if (v->nodes[i].group >= 0 && (uint32_t)v->nodes[i].group < g->group_count)
            start[v->nodes[i].group + 1]++;
    for (uint32_t gi = 0; gi < g->group_count; gi++)
        start[gi + 1] += start[gi];
    for (uint32_t i = 0, *next = start; i < v->node_count; i++)
        if (v->nodes[i].group >= 0 && (uint32_t)v->nodes[i].group < g->group_count)
            order[next[v->nodes[i].group]++] = i;
    /* start[gi] now ends group gi: its nodes are order[start[gi-1], start[gi]) */
    const double pad = 7;
    for (uint32_t gi = 0; gi < g->group_count; gi++) {
        size_t n = 0;
        for (uint32_t o = gi ? start[gi - 1] : 0; o < start[gi]; o++) {
            uint32_t i = order[o];
            double hw = v->boxes[i].width / 2, hh = v->boxes[i].height / 2;
            span s = {v->lay.layer[i], v->lay.x[i] - hw - pad, v->lay.x[i] + hw + pad,
                      v->lay.y[i] - hh - pad, v->lay.y[i] + hh + pad};
            size_t k;
            for (k = 0; k < n && sp[k].layer != s.layer; k++)
                ;
            if (k == n)
                sp[n++] = s;
            else {
                sp[k].x0 = s.x0 < sp[k].x0 ? s.x0 : sp[k].x0;
                sp[k].x1 = s.x1 > sp[k].x1 ? s.x1 : sp[k].x1;
                sp[k].y0 = s.y0 < sp[k].y0 ? s.y0 : sp[k].y0;
                sp[k].y1 = s.y1 > sp[k].y1 ? s.y1 : sp[k].y1;
            }
        }
        if (!n)
            continue;
        qsort(sp, n, sizeof *sp, cmp_span);
        fprintf(fp, "<g class=\"grp\" data-g=\"%" PRIu32 "\">", gi);
        for (size_t a = 0; a < n;) {
            size_t b = a + 1;
            while (b < n && sp[b].layer == sp[b - 1].layer + 1)
                b++;
            fputs("<path d=\"", fp);
            for (size_t k = a; k < b; k++) {
                put_point(fp, k == a ? "M" : "L", sp[k].x1, sp[k].y0);
                put_point(fp, "L", sp[k].x1, sp[k].y1);
            }
            for (size_t k = b; k-- > a;) {
                put_point(fp, "L", sp[k].x0, sp[k].y1);
                put_point(fp, "L", sp[k].x0, sp[k].y0);
            }
            fputs("Z\"/>", fp);
            a = b;
        }
        const etp_src_group *gr = &g->groups[gi];
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", sp[0].x0 + 4, sp[0].y0 - 4);
        etp_html_escape(fp, gr->backend ? gr->backend : "delegate");
        fprintf(fp, " \xc2\xb7 %s_0_%" PRId32 "</text></g>\n", g->method, gr->instruction);
    }
    free(sp);
    free(start);
    free(order);
}

/* The drawing's frame: arrow marker, region outlines (few, drawn here), and
 * empty edge and node groups the script fills with what is visible. */
void rp_write_svg(FILE *fp, const rp_report *r, int vi)
{
    const rp_view *v = &r->views[vi];
    const etp_layout *l = &v->lay;
    fprintf(fp,
            "<svg class=\"graph\" id=\"svg%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "data-w=\"%.1f\" data-h=\"%.1f\" role=\"img\" aria-label=\"",
            vi, l->width, l->height);
    etp_html_escape(fp, v->title);
    fprintf(fp, "\">\n<defs><marker id=\"arr%d\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" "
                "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L8,4L0,8z\"/>"
                "</marker></defs>\n<g class=\"vp\">\n<g class=\"grps\">\n",
            vi);
    if (vi == r->src_view)
        group_outlines(fp, r, v);
    fprintf(fp, "</g>\n<g class=\"edges\" marker-end=\"url(#arr%d)\">\n", vi);
    fputs("</g>\n<g class=\"nodes\">\n", fp);
    fputs("</g>\n</g>\n</svg>\n", fp);
}
