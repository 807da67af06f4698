/* report_internal.h - the pieces of the standalone HTML report (etprof/report.h):
 * drawn views (report_view.c), their SVG frames (report_svg.c), the data
 * the page's script draws from (report_data.c), metric values and colours
 * (report_metrics.c), tables, page assembly (report_html.c). */
#ifndef ETP_REPORT_INTERNAL_H
#define ETP_REPORT_INTERNAL_H

#include <stdio.h>

#include "etprof/report.h"
#include "outputs/html_escape.h"
#include "outputs/mexplorer/me_metrics.h"
#include "util/layout.h"
#include "util/jsonw.h"

/* Views with more nodes are not drawn (the page would grow past what a
 * browser handles comfortably); graph.json has them for Model Explorer. */
#define RP_MAX_DRAWN 15000u

/* Height of a drawn node, in drawing units (its width follows its label). */
#define RP_NODE_H 34.0

/* One drawn node. */
typedef struct rp_node {
    const char *id, *label;
    const char *kind;            /* CSS class: in, out, kernel, delegate, other, op */
    const etp_entity *entity;    /* its timing, or NULL */
    etp_link_state link;
    int64_t link_index;          /* instruction views: first link in source->links, or -1 */
    uint32_t source_index;       /* source views: index in etp_source_graph.nodes */
    uint32_t me_index;           /* instruction views: index in etp_me_graph.nodes */
    int32_t group;               /* delegated region, or -1 */
} rp_node;

/* One view: a graph drawn as SVG. */
typedef struct rp_view {
    const char *title;           /* "Instructions" / "Source operators" */
    const char *graph_id;
    rp_node *nodes;
    uint32_t node_count;
    etp_layout_node *boxes;
    etp_layout lay;
    uint32_t *edge_from, *edge_to;
    uint32_t edge_count;
    int64_t *node_of_source;     /* source views: source node index -> drawn index (or -1) */
    int64_t *node_of_me;         /* instruction views: ME node index -> drawn index */
    uint32_t me_count;
} rp_view;

/* The report being written. */
typedef struct rp_report {
    const etp_report_inputs *in;
    const etp_analysis *a;
    rp_view views[2];
    int view_count;
    int instr_view, src_view;    /* view indices, -1 when absent */
    double exec_avg;             /* Method::execute avg, 0 when unknown (etp_me_exec_avg) */
    uint32_t skipped_instr, skipped_src; /* node counts of views too large to draw, else 0 */
    int64_t *chain0_node;        /* instruction index (chain 0) -> instruction-view node, or -1 */
    uint32_t chain0_count;
    int32_t *entity_num;         /* entity index -> its index in the page's entities array
                                    (rp_write_entities), or -1 when the page does not show it */
} rp_report;

/* Build both views and lay them out; number the entities the page shows. */
etp_status rp_views_build(rp_report *r, etp_error *err);
void rp_views_free(rp_report *r);

/* An entity keyed by its (chain, instruction). */
typedef struct rp_ent_key {
    int32_t chain, instr;
    const etp_entity *e;
} rp_ent_key;
/* The entities of @p kind of @p a, sorted by (chain, instruction), ties in
 * entity order (a delegate call's events stay in analysis order). *@p n
 * receives the count. Caller frees; NULL when out of memory. */
rp_ent_key *rp_entity_keys(const etp_analysis *a, etp_entity_kind kind, size_t *n);
/* Index of the first of the @p n keys @p k not before (@p chain, @p instr). */
size_t rp_entity_keys_lower(const rp_ent_key *k, size_t n, int32_t chain, int32_t instr);

/* The "metrics" member of view @p v's data: per metric (me_metrics.h) each
 * node's value (null where none), background and text colours as the
 * overlay files colour them, the range and whether sums are hidden. */
void rp_write_view_metrics(etp_jw *w, const rp_report *r, const rp_view *v);

/* The SVG frame of view @p v: region outlines and empty groups the page's
 * script fills from the data block with what is in sight. */
void rp_write_svg(FILE *fp, const rp_report *r, int v);
/* The geometry, per-node and per-metric data of every view as one JSON
 * value (what the first drawing needs). Nodes refer to entities by their
 * index in rp_write_entities' array. */
void rp_write_data(etp_jw *w, const rp_report *r);
/* The entities the page shows (details panel, search) as a JSON array,
 * kept apart so the page parses it only when first needed. */
void rp_write_entities(etp_jw *w, const rp_report *r);
/* The tables (top operators, per type, per backend, executions). */
void rp_write_tables(FILE *fp, const rp_report *r);

/* A metric value for people: 4 significant digits, no exponent from 1e4 up. */
void rp_num(char *buf, size_t size, double v);

/* Our own stylesheet and script (src/outputs/assets/, embedded at build time). */
extern const char etp_report_css[];
extern const char etp_page_util_js[]; /* the helpers the scripts share (etpPage) */
extern const char etp_report_js[];
extern const char etp_report_vgf_js[];
extern const char etp_report_nx_js[];
/* The "VGF NX cycles" section (report_nx.c) when the analysis has VGF
 * statistics: its heading and notes, among the tables, then */
void rp_write_nx_section(FILE *fp, const rp_report *r);
/* its data block "etp-nx" and script after the page's script. 0, or -1
 * when out of memory. */
int rp_write_nx_data(FILE *fp, const rp_report *r);
/* The VGF delegates' TOSA graphs and their script (report_vgf.c), after the
 * page's script; nothing when the method has no VGF delegate. 0, or -1 when
 * out of memory. */
int rp_write_vgf(FILE *fp, const rp_report *r);

#endif
