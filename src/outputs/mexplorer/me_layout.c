/* me_layout.c - a Model Explorer graph as input to the layered layout. */
#include "outputs/mexplorer/me_layout.h"

#include <stdlib.h>

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

etp_status etp_me_layout(const etp_me_graph *g, double char_width, double padding,
                         double node_height, const int32_t *groups, const etp_layout_options *o,
                         etp_layout *out, uint32_t **edge_node, etp_error *err)
{
    uint64_t m = 0;
    for (uint32_t k = 0; k < g->node_count; k++)
        m += g->nodes[k].edge_count;
    if (m >= (1u << 31))
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET, "graph %s has too many edges",
                             g->id);
    etp_layout_node *nodes = malloc((size_t)(g->node_count ? g->node_count : 1) * sizeof *nodes);
    etp_layout_edge *edges = malloc((size_t)(m ? m : 1) * sizeof *edges);
    uint32_t *targets = edge_node ? malloc((size_t)(m ? m : 1) * sizeof *targets) : NULL;
    if (!nodes || !edges || (edge_node && !targets)) {
        free(nodes);
        free(edges);
        free(targets);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    uint32_t e = 0;
    for (uint32_t k = 0; k < g->node_count; k++) {
        const etp_me_node *nd = &g->nodes[k];
        nodes[k] = (etp_layout_node){char_width * (double)utf8_chars(nd->label) + padding,
                                     node_height, groups ? groups[k] : -1};
        for (uint32_t i = 0; i < nd->edge_count; i++, e++) {
            edges[e] = (etp_layout_edge){nd->edges[i].source, k};
            if (targets)
                targets[e] = k;
        }
    }
    etp_status s = etp_layout_compute(nodes, g->node_count, edges, (uint32_t)m, o, out, err);
    free(nodes);
    free(edges);
    if (s || !edge_node)
        free(targets);
    else
        *edge_node = targets;
    return s;
}
