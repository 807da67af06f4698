/* layout.c - layered graph drawing (see layout.h for the steps and why). */
#include "util/layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX

/* Weights pulling neighbours into line: long edges (dummy chains) should be
 * straight more than short ones. */
#define W_REAL 1.0
#define W_MIXED 2.0
#define W_DUMMY 8.0
/* Weight of "stay where you are" for a node with no neighbour to follow. */
#define W_STAY 1e-3

void etp_layout_options_init(etp_layout_options *o)
{
    o->node_sep = 20;
    o->edge_sep = 10;
    o->rank_sep = 50;
    o->group_pad = 16;
    o->margin = 10;
    o->sweeps = 8;
    o->placement_rounds = 8;
    o->max_dummies = 0;
}

void etp_layout_release(etp_layout *l)
{
    if (!l)
        return;
    free(l->x);
    free(l->y);
    free(l->layer);
    free(l->order);
    free(l->point_start);
    free(l->points);
    free(l->edge_flags);
    memset(l, 0, sizeof *l);
}

/* A distinct edge after dropping self loops and duplicates, oriented
 * downward (u above v) once cycles are broken. */
typedef struct cedge {
    uint32_t u, v;
    uint32_t input;       /* first input edge with these ends */
    uint32_t dummy_first; /* first dummy node id, when dummies > 0 */
    uint32_t dummies;
    uint8_t reversed, straight;
} cedge;

/* Working state of one layout. */
typedef struct lay {
    const etp_layout_options *o;
    uint32_t n;           /* real nodes */
    uint32_t total;       /* real nodes + dummies */
    uint32_t ce_count;
    cedge *ce;
    uint32_t *lay;        /* layer per node */
    int32_t *grp;         /* dense group per node, -1 none */
    uint32_t group_count;
    double *w, *h;
    /* adjacency of the layered graph (adjacent layers only), both ways */
    uint32_t *up_start, *up_adj, *dn_start, *dn_adj;
    double *up_w, *dn_w;
    /* layers in order */
    uint32_t L;
    uint32_t *layer_start; /* L + 1 */
    uint32_t *layer_nodes;
    uint32_t *pos;         /* position of each node in its layer */
    double *x;
} lay;

static void lay_free(lay *g)
{
    free(g->ce);
    free(g->lay);
    free(g->grp);
    free(g->w);
    free(g->h);
    free(g->up_start);
    free(g->up_adj);
    free(g->dn_start);
    free(g->dn_adj);
    free(g->up_w);
    free(g->dn_w);
    free(g->layer_start);
    free(g->layer_nodes);
    free(g->pos);
    free(g->x);
}

/* ---- 0. distinct edges ---------------------------------------------------- */

typedef struct ekey {
    uint32_t a, b, idx;
} ekey;

static int cmp_ekey(const void *p, const void *q)
{
    const ekey *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Fill g->ce with the distinct non-loop edges in input order; flags the rest. */
static etp_status distinct_edges(lay *g, const etp_layout_edge *edges, uint32_t m, uint8_t *flags)
{
    ekey *k = malloc((size_t)(m ? m : 1) * sizeof *k);
    uint8_t *first = calloc(m ? m : 1, 1);
    if (!k || !first) {
        free(k);
        free(first);
        return ETP_E_NOMEM;
    }
    for (uint32_t e = 0; e < m; e++)
        k[e] = (ekey){edges[e].from, edges[e].to, e};
    qsort(k, m, sizeof *k, cmp_ekey);
    for (uint32_t i = 0; i < m; i++) {
        if (k[i].a == k[i].b)
            flags[k[i].idx] |= ETP_LAYOUT_EDGE_SELF;
        else if (i && k[i - 1].a == k[i].a && k[i - 1].b == k[i].b)
            flags[k[i].idx] |= ETP_LAYOUT_EDGE_DUPLICATE;
        else {
            first[k[i].idx] = 1;
            g->ce_count++;
        }
    }
    free(k);
    g->ce = calloc(g->ce_count ? g->ce_count : 1, sizeof *g->ce);
    if (!g->ce) {
        free(first);
        return ETP_E_NOMEM;
    }
    uint32_t c = 0;
    for (uint32_t e = 0; e < m; e++)
        if (first[e])
            g->ce[c++] = (cedge){edges[e].from, edges[e].to, e, 0, 0, 0, 0};
    free(first);
    return ETP_OK;
}

/* CSR of edge ids by endpoint: start[n+1], list of edge ids. by_u selects
 * the u (else v) end. */
static etp_status edge_csr(const lay *g, int by_u, uint32_t **start_out, uint32_t **list_out)
{
    uint32_t *start = calloc((size_t)g->n + 1, sizeof *start);
    uint32_t *list = malloc((size_t)(g->ce_count ? g->ce_count : 1) * sizeof *list);
    if (!start || !list) {
        free(start);
        free(list);
        return ETP_E_NOMEM;
    }
    for (uint32_t e = 0; e < g->ce_count; e++)
        start[(by_u ? g->ce[e].u : g->ce[e].v) + 1]++;
    for (uint32_t i = 0; i < g->n; i++)
        start[i + 1] += start[i];
    uint32_t *fill = malloc((size_t)(g->n ? g->n : 1) * sizeof *fill);
    if (!fill) {
        free(start);
        free(list);
        return ETP_E_NOMEM;
    }
    memcpy(fill, start, (size_t)g->n * sizeof *fill);
    for (uint32_t e = 0; e < g->ce_count; e++)
        list[fill[by_u ? g->ce[e].u : g->ce[e].v]++] = e;
    free(fill);
    *start_out = start;
    *list_out = list;
    return ETP_OK;
}

/* ---- 1. cycles: reverse the back edges of a depth-first search ------------ */

static etp_status break_cycles(lay *g)
{
    uint32_t *start, *list;
    if (edge_csr(g, 1, &start, &list))
        return ETP_E_NOMEM;
    uint8_t *state = calloc(g->n ? g->n : 1, 1); /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = malloc((size_t)(g->n ? g->n : 1) * sizeof *stack);
    uint32_t *next = malloc((size_t)(g->n ? g->n : 1) * sizeof *next);
    if (!state || !stack || !next) {
        free(start);
        free(list);
        free(state);
        free(stack);
        free(next);
        return ETP_E_NOMEM;
    }
    for (uint32_t root = 0; root < g->n; root++) {
        if (state[root])
            continue;
        uint32_t sp = 0;
        stack[sp++] = root;
        state[root] = 1;
        next[root] = start[root];
        while (sp) {
            uint32_t u = stack[sp - 1];
            if (next[u] == start[u + 1]) {
                state[u] = 2;
                sp--;
                continue;
            }
            cedge *e = &g->ce[list[next[u]++]];
            if (state[e->v] == 1)
                e->reversed = 1;
            else if (state[e->v] == 0) {
                state[e->v] = 1;
                next[e->v] = start[e->v];
                stack[sp++] = e->v;
            }
        }
    }
    for (uint32_t e = 0; e < g->ce_count; e++)
        if (g->ce[e].reversed) {
            uint32_t t = g->ce[e].u;
            g->ce[e].u = g->ce[e].v;
            g->ce[e].v = t;
        }
    free(start);
    free(list);
    free(state);
    free(stack);
    free(next);
    return ETP_OK;
}

/* ---- 2. layers: longest path from the sources ----------------------------- */

static etp_status assign_layers(lay *g)
{
    uint32_t *start, *list;
    if (edge_csr(g, 1, &start, &list))
        return ETP_E_NOMEM;
    uint32_t *indeg = calloc(g->n ? g->n : 1, sizeof *indeg);
    uint32_t *queue = malloc((size_t)(g->n ? g->n : 1) * sizeof *queue);
    if (!indeg || !queue) {
        free(start);
        free(list);
        free(indeg);
        free(queue);
        return ETP_E_NOMEM;
    }
    for (uint32_t e = 0; e < g->ce_count; e++)
        indeg[g->ce[e].v]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        g->lay[i] = 0;
        if (!indeg[i])
            queue[tail++] = i;
    }
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = start[u]; k < start[u + 1]; k++) {
            const cedge *e = &g->ce[list[k]];
            if (g->lay[e->v] < g->lay[u] + 1)
                g->lay[e->v] = g->lay[u] + 1;
            if (--indeg[e->v] == 0)
                queue[tail++] = e->v;
        }
    }
    /* Sources (e.g. weights, graph inputs used late) sit right above their
     * first consumer instead of at the top with long edges. */
    for (uint32_t e = 0; e < g->ce_count; e++)
        indeg[g->ce[e].v]++;
    for (uint32_t i = 0; i < g->n; i++) {
        if (indeg[i] || start[i] == start[i + 1])
            continue;
        uint32_t best = UINT32_MAX;
        for (uint32_t k = start[i]; k < start[i + 1]; k++)
            if (g->lay[g->ce[list[k]].v] < best)
                best = g->lay[g->ce[list[k]].v];
        g->lay[i] = best - 1;
    }
    g->L = 0;
    for (uint32_t i = 0; i < g->n; i++)
        if (g->lay[i] + 1 > g->L)
            g->L = g->lay[i] + 1;
    free(start);
    free(list);
    free(indeg);
    free(queue);
    return ETP_OK;
}

/* ---- 3. dummy nodes for edges spanning several layers --------------------- */

static etp_status add_dummies(lay *g, uint64_t budget, etp_error *err)
{
    uint64_t need = 0;
    for (uint32_t e = 0; e < g->ce_count; e++)
        need += g->lay[g->ce[e].v] - g->lay[g->ce[e].u] - 1;
    if (need > budget) {
        /* Shortest edges first: they shape the drawing; the longest ones
         * become straight lines. */
        ekey *k = malloc((size_t)(g->ce_count ? g->ce_count : 1) * sizeof *k);
        if (!k)
            return ETP_E_NOMEM;
        for (uint32_t e = 0; e < g->ce_count; e++)
            k[e] = (ekey){g->lay[g->ce[e].v] - g->lay[g->ce[e].u], 0, e};
        qsort(k, g->ce_count, sizeof *k, cmp_ekey);
        uint64_t left = budget;
        for (uint32_t i = 0; i < g->ce_count; i++) {
            cedge *e = &g->ce[k[i].idx];
            uint64_t d = g->lay[e->v] - g->lay[e->u] - 1;
            if (d <= left)
                left -= d;
            else
                e->straight = 1;
        }
        free(k);
        need = budget - left;
    }
    if ((uint64_t)g->n + need >= (1u << 31))
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "layout: %llu nodes and bend points are too many",
                             (unsigned long long)((uint64_t)g->n + need));
    g->total = g->n + (uint32_t)need;
    uint32_t *nl = realloc(g->lay, (size_t)(g->total ? g->total : 1) * sizeof *nl);
    if (!nl)
        return ETP_E_NOMEM;
    g->lay = nl;
    uint32_t next = g->n;
    for (uint32_t e = 0; e < g->ce_count; e++) {
        cedge *c = &g->ce[e];
        if (c->straight)
            continue;
        c->dummies = g->lay[c->v] - g->lay[c->u] - 1;
        c->dummy_first = next;
        for (uint32_t k = 0; k < c->dummies; k++)
            g->lay[next + k] = g->lay[c->u] + 1 + k;
        next += c->dummies;
    }
    return ETP_OK;
}

/* Adjacency of the layered graph: each non-straight edge becomes the chain
 * u -> d1 -> ... -> dk -> v. */
static etp_status build_adjacency(lay *g)
{
    uint64_t le = 0;
    for (uint32_t e = 0; e < g->ce_count; e++)
        if (!g->ce[e].straight)
            le += g->ce[e].dummies + 1;
    size_t T = (size_t)g->total + 1, E = le ? (size_t)le : 1;
    g->up_start = calloc(T, sizeof *g->up_start);
    g->dn_start = calloc(T, sizeof *g->dn_start);
    g->up_adj = malloc(E * sizeof *g->up_adj);
    g->dn_adj = malloc(E * sizeof *g->dn_adj);
    g->up_w = malloc(E * sizeof *g->up_w);
    g->dn_w = malloc(E * sizeof *g->dn_w);
    uint32_t *fu = malloc(T * sizeof *fu), *fd = malloc(T * sizeof *fd);
    if (!g->up_start || !g->dn_start || !g->up_adj || !g->dn_adj || !g->up_w || !g->dn_w || !fu ||
        !fd) {
        free(fu);
        free(fd);
        return ETP_E_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t e = 0; e < g->ce_count; e++) {
            const cedge *c = &g->ce[e];
            if (c->straight)
                continue;
            uint32_t prev = c->u;
            for (uint32_t k = 0; k <= c->dummies; k++) {
                uint32_t cur = k < c->dummies ? c->dummy_first + k : c->v;
                if (pass == 0) {
                    g->dn_start[prev + 1]++;
                    g->up_start[cur + 1]++;
                } else {
                    int dp = prev >= g->n, dc = cur >= g->n;
                    double wt = dp && dc ? W_DUMMY : dp || dc ? W_MIXED : W_REAL;
                    g->dn_adj[fd[prev]] = cur;
                    g->dn_w[fd[prev]++] = wt;
                    g->up_adj[fu[cur]] = prev;
                    g->up_w[fu[cur]++] = wt;
                }
                prev = cur;
            }
        }
        if (pass == 0) {
            for (uint32_t i = 0; i < g->total; i++) {
                g->dn_start[i + 1] += g->dn_start[i];
                g->up_start[i + 1] += g->up_start[i];
            }
            memcpy(fd, g->dn_start, (size_t)g->total * sizeof *fd);
            memcpy(fu, g->up_start, (size_t)g->total * sizeof *fu);
        }
    }
    free(fu);
    free(fd);
    return ETP_OK;
}

/* ---- 4. order within layers ----------------------------------------------- */

typedef struct okey {
    double block;   /* group mean key (own key when ungrouped) */
    uint32_t tie;   /* first current position of the block: unique per block */
    double key;
    uint32_t cur;
    uint32_t node;
} okey;

static int cmp_okey(const void *a, const void *b)
{
    const okey *x = a, *y = b;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->cur > y->cur) - (x->cur < y->cur);
}

typedef struct order_tmp {
    okey *keys;       /* widest layer */
    double *gsum;     /* per dense group */
    uint32_t *gcnt, *gmin;
} order_tmp;

/* Sort layer @p l by the barycentre of its neighbours in the layer above
 * (dir 0) or below (dir 1); dir -1 keeps the current order as the key (used
 * to make groups contiguous at the start). Groups stay contiguous. */
static void reorder_layer(lay *g, order_tmp *t, uint32_t l, int dir)
{
    uint32_t s = g->layer_start[l], n = g->layer_start[l + 1] - s;
    okey *k = t->keys;
    double carry = -1.0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = g->layer_nodes[s + i];
        double sum = 0;
        uint32_t cnt = 0;
        if (dir == 0)
            for (uint32_t j = g->up_start[v]; j < g->up_start[v + 1]; j++, cnt++)
                sum += g->pos[g->up_adj[j]];
        else if (dir == 1)
            for (uint32_t j = g->dn_start[v]; j < g->dn_start[v + 1]; j++, cnt++)
                sum += g->pos[g->dn_adj[j]];
        double key;
        if (dir < 0)
            key = i;
        else if (cnt)
            key = sum / cnt;
        else
            key = carry; /* no neighbour there: stay behind the node on the left */
        carry = key;
        k[i] = (okey){key, i, key, i, v};
    }
    if (g->group_count) {
        for (uint32_t i = 0; i < n; i++) {
            int32_t gr = g->grp[k[i].node];
            if (gr < 0)
                continue;
            if (!t->gcnt[gr])
                t->gmin[gr] = i;
            t->gsum[gr] += k[i].key;
            t->gcnt[gr]++;
        }
        for (uint32_t i = 0; i < n; i++) {
            int32_t gr = g->grp[k[i].node];
            if (gr < 0)
                continue;
            k[i].block = t->gsum[gr] / t->gcnt[gr];
            k[i].tie = t->gmin[gr];
        }
        for (uint32_t i = 0; i < n; i++) {
            int32_t gr = g->grp[k[i].node];
            if (gr >= 0) {
                t->gsum[gr] = 0;
                t->gcnt[gr] = 0;
            }
        }
    }
    qsort(k, n, sizeof *k, cmp_okey);
    for (uint32_t i = 0; i < n; i++) {
        g->layer_nodes[s + i] = k[i].node;
        g->pos[k[i].node] = i;
    }
}

/* Crossings between adjacent layers (Fenwick-tree inversion count). */
static uint64_t count_crossings(const lay *g, uint32_t *bit, uint32_t *buf)
{
    uint64_t total = 0;
    for (uint32_t l = 0; l + 1 < g->L; l++) {
        uint32_t below = g->layer_start[l + 2] - g->layer_start[l + 1];
        memset(bit, 0, ((size_t)below + 1) * sizeof *bit);
        uint64_t inserted = 0;
        for (uint32_t i = g->layer_start[l]; i < g->layer_start[l + 1]; i++) {
            uint32_t v = g->layer_nodes[i];
            uint32_t deg = g->dn_start[v + 1] - g->dn_start[v];
            /* this node's targets in increasing position (insertion sort: degrees are small) */
            for (uint32_t j = 0; j < deg; j++) {
                uint32_t p = g->pos[g->dn_adj[g->dn_start[v] + j]], q = j;
                while (q && buf[q - 1] > p) {
                    buf[q] = buf[q - 1];
                    q--;
                }
                buf[q] = p;
            }
            for (uint32_t j = 0; j < deg; j++) {
                uint32_t p = buf[j];
                uint64_t le = 0; /* inserted targets at positions <= p */
                for (uint32_t b = p + 1; b; b -= b & (0u - b))
                    le += bit[b];
                total += inserted - le;
                for (uint32_t b = p + 1; b <= below; b += b & (0u - b))
                    bit[b]++;
                inserted++;
            }
        }
    }
    return total;
}

static etp_status order_layers(lay *g, uint64_t *crossings)
{
    size_t T = g->total ? g->total : 1;
    g->layer_start = calloc((size_t)g->L + 2, sizeof *g->layer_start);
    g->layer_nodes = malloc(T * sizeof *g->layer_nodes);
    g->pos = malloc(T * sizeof *g->pos);
    if (!g->layer_start || !g->layer_nodes || !g->pos)
        return ETP_E_NOMEM;
    /* Initial order: real nodes by index, then bend points by edge (the
     * first sweep moves them next to their edge's source). */
    for (uint32_t v = 0; v < g->total; v++)
        g->layer_start[g->lay[v] + 1]++;
    for (uint32_t l = 0; l < g->L; l++)
        g->layer_start[l + 1] += g->layer_start[l];
    g->layer_start[g->L + 1] = g->layer_start[g->L];
    uint32_t *fill = malloc(((size_t)g->L + 1) * sizeof *fill);
    if (!fill)
        return ETP_E_NOMEM;
    memcpy(fill, g->layer_start, ((size_t)g->L + 1) * sizeof *fill);
    for (uint32_t v = 0; v < g->n; v++)
        g->layer_nodes[fill[g->lay[v]]++] = v;
    for (uint32_t e = 0; e < g->ce_count; e++)
        for (uint32_t k = 0; k < g->ce[e].dummies; k++) {
            uint32_t d = g->ce[e].dummy_first + k;
            g->layer_nodes[fill[g->lay[d]]++] = d;
        }
    free(fill);
    uint32_t widest = 1, maxdeg = 1;
    for (uint32_t l = 0; l < g->L; l++) {
        uint32_t w = g->layer_start[l + 1] - g->layer_start[l];
        widest = w > widest ? w : widest;
        for (uint32_t i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
            g->pos[g->layer_nodes[i]] = i - g->layer_start[l];
    }
    for (uint32_t v = 0; v < g->total; v++) {
        uint32_t d = g->dn_start[v + 1] - g->dn_start[v];
        maxdeg = d > maxdeg ? d : maxdeg;
    }

    order_tmp t = {0};
    t.keys = malloc((size_t)widest * sizeof *t.keys);
    size_t G = g->group_count ? g->group_count : 1;
    t.gsum = calloc(G, sizeof *t.gsum);
    t.gcnt = calloc(G, sizeof *t.gcnt);
    t.gmin = calloc(G, sizeof *t.gmin);
    uint32_t *bit = malloc(((size_t)widest + 1) * sizeof *bit);
    uint32_t *buf = malloc((size_t)maxdeg * sizeof *buf);
    uint32_t *best = malloc(T * sizeof *best);
    etp_status s = ETP_E_NOMEM;
    if (!t.keys || !t.gsum || !t.gcnt || !t.gmin || !bit || !buf || !best)
        goto done;

    for (uint32_t l = 0; l < g->L; l++)
        reorder_layer(g, &t, l, -1);
    uint64_t best_x = count_crossings(g, bit, buf);
    memcpy(best, g->layer_nodes, (size_t)g->total * sizeof *best);
    for (int it = 0; it < g->o->sweeps && best_x; it++) {
        if (it % 2 == 0)
            for (uint32_t l = 1; l < g->L; l++)
                reorder_layer(g, &t, l, 0);
        else
            for (uint32_t l = g->L; l-- > 1;)
                reorder_layer(g, &t, l - 1, 1);
        uint64_t c = count_crossings(g, bit, buf);
        if (c < best_x) {
            best_x = c;
            memcpy(best, g->layer_nodes, (size_t)g->total * sizeof *best);
        }
    }
    memcpy(g->layer_nodes, best, (size_t)g->total * sizeof *best);
    for (uint32_t l = 0; l < g->L; l++)
        for (uint32_t i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
            g->pos[g->layer_nodes[i]] = i - g->layer_start[l];
    *crossings = best_x;
    s = ETP_OK;
done:
    free(t.keys);
    free(t.gsum);
    free(t.gcnt);
    free(t.gmin);
    free(bit);
    free(buf);
    free(best);
    return s;
}

/* ---- 5. x coordinates ----------------------------------------------------- */

static double separation(const lay *g, uint32_t a, uint32_t b)
{
    const etp_layout_options *o = g->o;
    double s = (g->w[a] + g->w[b]) / 2 + (a >= g->n || b >= g->n ? o->edge_sep : o->node_sep);
    if (g->grp[a] != g->grp[b] && (g->grp[a] >= 0 || g->grp[b] >= 0))
        s += o->group_pad;
    return s;
}

typedef struct place_tmp {
    double *d, *wt, *off;   /* desired x, weight, cumulative separation */
    double *bsum, *bw;      /* pool-adjacent-violators blocks */
    uint32_t *bstart;
} place_tmp;

/* Move the nodes of layer @p l as close as possible (weighted least squares)
 * to the weighted mean x of their neighbours above (use_up) and/or below
 * (use_dn), keeping order and separations: isotonic regression solved by
 * pool-adjacent-violators, exact and linear. */
static void place_layer(lay *g, place_tmp *t, uint32_t l, int use_up, int use_dn)
{
    uint32_t s = g->layer_start[l], n = g->layer_start[l + 1] - s;
    if (!n)
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = g->layer_nodes[s + i];
        double sum = 0, wsum = 0;
        if (use_up)
            for (uint32_t j = g->up_start[v]; j < g->up_start[v + 1]; j++) {
                sum += g->up_w[j] * g->x[g->up_adj[j]];
                wsum += g->up_w[j];
            }
        if (use_dn)
            for (uint32_t j = g->dn_start[v]; j < g->dn_start[v + 1]; j++) {
                sum += g->dn_w[j] * g->x[g->dn_adj[j]];
                wsum += g->dn_w[j];
            }
        if (wsum > 0) {
            t->d[i] = sum / wsum;
            t->wt[i] = wsum;
        } else {
            t->d[i] = g->x[v];
            t->wt[i] = W_STAY;
        }
        t->off[i] = i ? t->off[i - 1] + separation(g, g->layer_nodes[s + i - 1], v) : 0;
    }
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++) {
        t->bsum[nb] = t->wt[i] * (t->d[i] - t->off[i]);
        t->bw[nb] = t->wt[i];
        t->bstart[nb] = i;
        nb++;
        while (nb > 1 && t->bsum[nb - 2] / t->bw[nb - 2] > t->bsum[nb - 1] / t->bw[nb - 1]) {
            t->bsum[nb - 2] += t->bsum[nb - 1];
            t->bw[nb - 2] += t->bw[nb - 1];
            nb--;
        }
    }
    for (uint32_t b = 0; b < nb; b++) {
        double y = t->bsum[b] / t->bw[b];
        uint32_t end = b + 1 < nb ? t->bstart[b + 1] : n;
        for (uint32_t i = t->bstart[b]; i < end; i++)
            g->x[g->layer_nodes[s + i]] = y + t->off[i];
    }
}

static etp_status place_x(lay *g)
{
    uint32_t widest = 1;
    for (uint32_t l = 0; l < g->L; l++) {
        uint32_t w = g->layer_start[l + 1] - g->layer_start[l];
        widest = w > widest ? w : widest;
    }
    place_tmp t;
    t.d = malloc(widest * sizeof *t.d);
    t.wt = malloc(widest * sizeof *t.wt);
    t.off = malloc(widest * sizeof *t.off);
    t.bsum = malloc(widest * sizeof *t.bsum);
    t.bw = malloc(widest * sizeof *t.bw);
    t.bstart = malloc(widest * sizeof *t.bstart);
    g->x = calloc(g->total ? g->total : 1, sizeof *g->x);
    etp_status s = ETP_E_NOMEM;
    if (!t.d || !t.wt || !t.off || !t.bsum || !t.bw || !t.bstart || !g->x)
        goto done;
    /* Start packed and centred on 0. */
    for (uint32_t l = 0; l < g->L; l++) {
        uint32_t a = g->layer_start[l], b = g->layer_start[l + 1];
        double cur = 0;
        for (uint32_t i = a; i < b; i++) {
            if (i > a)
                cur += separation(g, g->layer_nodes[i - 1], g->layer_nodes[i]);
            g->x[g->layer_nodes[i]] = cur;
        }
        for (uint32_t i = a; i < b; i++)
            g->x[g->layer_nodes[i]] -= cur / 2;
    }
    for (int r = 0; r < g->o->placement_rounds; r++) {
        for (uint32_t l = 1; l < g->L; l++)
            place_layer(g, &t, l, 1, 0);
        for (uint32_t l = g->L; l-- > 1;)
            place_layer(g, &t, l - 1, 0, 1);
    }
    /* A last pass that listens to both sides, so nodes sit between their
     * producers and consumers. */
    for (uint32_t l = 0; l < g->L; l++)
        place_layer(g, &t, l, 1, 1);
    s = ETP_OK;
done:
    free(t.d);
    free(t.wt);
    free(t.off);
    free(t.bsum);
    free(t.bw);
    free(t.bstart);
    return s;
}

/* ---- 6. result ------------------------------------------------------------ */

typedef struct gpair {
    int32_t gid;
    uint32_t node;
} gpair;

static int cmp_gpair(const void *a, const void *b)
{
    const gpair *x = a, *y = b;
    if (x->gid != y->gid)
        return x->gid < y->gid ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* Map the caller's group ids to 0..G-1 (dummies get theirs later). */
static etp_status dense_groups(lay *g, const etp_layout_node *nodes)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n; i++)
        k += nodes[i].group >= 0;
    gpair *p = malloc((size_t)(k ? k : 1) * sizeof *p);
    if (!p)
        return ETP_E_NOMEM;
    k = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        g->grp[i] = -1;
        if (nodes[i].group >= 0)
            p[k++] = (gpair){nodes[i].group, i};
    }
    qsort(p, k, sizeof *p, cmp_gpair);
    g->group_count = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (i && p[i].gid != p[i - 1].gid)
            g->group_count++;
        g->grp[p[i].node] = (int32_t)g->group_count;
    }
    if (k)
        g->group_count++;
    free(p);
    return ETP_OK;
}

/* Node sizes and groups for every node, bend points included. */
static etp_status extend_nodes(lay *g, const etp_layout_node *nodes)
{
    size_t T = g->total ? g->total : 1;
    int32_t *ng = realloc(g->grp, T * sizeof *ng);
    if (!ng)
        return ETP_E_NOMEM;
    g->grp = ng;
    g->w = malloc(T * sizeof *g->w);
    g->h = malloc(T * sizeof *g->h);
    if (!g->w || !g->h)
        return ETP_E_NOMEM;
    for (uint32_t i = 0; i < g->n; i++) {
        g->w[i] = nodes[i].width;
        g->h[i] = nodes[i].height;
    }
    for (uint32_t e = 0; e < g->ce_count; e++) {
        const cedge *c = &g->ce[e];
        /* A bend point belongs to a group only when both ends do, so
         * edges inside a group do not split it. */
        int32_t gr = g->grp[c->u] == g->grp[c->v] ? g->grp[c->u] : -1;
        for (uint32_t k = 0; k < c->dummies; k++) {
            g->grp[c->dummy_first + k] = gr;
            g->w[c->dummy_first + k] = 0;
            g->h[c->dummy_first + k] = 0;
        }
    }
    return ETP_OK;
}

/* y per layer, normalised x, node arrays of the result. */
static etp_status write_nodes(lay *g, etp_layout *out, double **layer_y, double **layer_h)
{
    const etp_layout_options *o = g->o;
    double *ly = malloc(((size_t)g->L + 1) * sizeof *ly);
    double *lh = calloc((size_t)g->L + 1, sizeof *lh);
    if (!ly || !lh) {
        free(ly);
        free(lh);
        return ETP_E_NOMEM;
    }
    for (uint32_t v = 0; v < g->n; v++)
        if (g->h[v] > lh[g->lay[v]])
            lh[g->lay[v]] = g->h[v];
    double top = o->margin;
    for (uint32_t l = 0; l < g->L; l++) {
        ly[l] = top + lh[l] / 2;
        top += lh[l] + (l + 1 < g->L ? o->rank_sep : 0);
    }
    double minx = INFINITY, maxx = -INFINITY;
    for (uint32_t v = 0; v < g->total; v++) {
        if (g->x[v] - g->w[v] / 2 < minx)
            minx = g->x[v] - g->w[v] / 2;
        if (g->x[v] + g->w[v] / 2 > maxx)
            maxx = g->x[v] + g->w[v] / 2;
    }
    if (!g->total)
        minx = maxx = 0;
    double shift = o->margin - minx;
    for (uint32_t v = 0; v < g->total; v++)
        g->x[v] += shift;
    out->width = maxx - minx + 2 * o->margin;
    out->height = top + o->margin;
    out->layer_count = g->L;
    for (uint32_t v = 0; v < g->n; v++) {
        out->x[v] = g->x[v];
        out->y[v] = ly[g->lay[v]];
        out->layer[v] = g->lay[v];
        out->order[v] = g->pos[v];
    }
    *layer_y = ly;
    *layer_h = lh;
    return ETP_OK;
}

/* Polylines of the input edges, from the original source to the target. */
static etp_status write_edges(const lay *g, const etp_layout_edge *edges, uint32_t m,
                              const double *ly, etp_layout *out)
{
    /* canonical edge of each input edge */
    uint32_t *canon = malloc((size_t)(m ? m : 1) * sizeof *canon);
    if (!canon)
        return ETP_E_NOMEM;
    for (uint32_t e = 0; e < m; e++)
        canon[e] = NONE32;
    for (uint32_t c = 0; c < g->ce_count; c++)
        canon[g->ce[c].input] = c;
    uint64_t npts = 0;
    for (uint32_t e = 0; e < m; e++)
        if (canon[e] != NONE32)
            npts += 2 + g->ce[canon[e]].dummies;
    out->points = malloc((size_t)(npts ? npts : 1) * sizeof *out->points);
    if (!out->points) {
        free(canon);
        return ETP_E_NOMEM;
    }
    uint32_t at = 0;
    for (uint32_t e = 0; e < m; e++) {
        out->point_start[e] = at;
        if (canon[e] == NONE32)
            continue;
        const cedge *c = &g->ce[canon[e]];
        if (c->reversed)
            out->edge_flags[e] |= ETP_LAYOUT_EDGE_REVERSED;
        if (c->straight)
            out->edge_flags[e] |= ETP_LAYOUT_EDGE_STRAIGHT;
        etp_layout_point *p = out->points + at;
        uint32_t k = 0;
        p[k++] = (etp_layout_point){g->x[c->u], ly[g->lay[c->u]] + g->h[c->u] / 2};
        for (uint32_t d = 0; d < c->dummies; d++) {
            uint32_t id = c->dummy_first + d;
            p[k++] = (etp_layout_point){g->x[id], ly[g->lay[id]]};
        }
        p[k++] = (etp_layout_point){g->x[c->v], ly[g->lay[c->v]] - g->h[c->v] / 2};
        if (c->reversed) /* drawn from the original source, upward */
            for (uint32_t i = 0; i < k / 2; i++) {
                etp_layout_point t = p[i];
                p[i] = p[k - 1 - i];
                p[k - 1 - i] = t;
            }
        at += k;
    }
    out->point_start[m] = at;
    (void)edges;
    free(canon);
    return ETP_OK;
}

etp_status etp_layout_compute(const etp_layout_node *nodes, uint32_t n, const etp_layout_edge *edges,
                              uint32_t m, const etp_layout_options *o, etp_layout *out,
                              etp_error *err)
{
    etp_layout_options defaults;
    if (!o) {
        etp_layout_options_init(&defaults);
        o = &defaults;
    }
    memset(out, 0, sizeof *out);
    if (n >= (1u << 31) || m >= (1u << 31))
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET, "layout: graph too large");
    for (uint32_t i = 0; i < n; i++)
        if (!(nodes[i].width >= 0 && nodes[i].height >= 0 && isfinite(nodes[i].width) &&
              isfinite(nodes[i].height)))
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "layout: node %u has a bad size", i);
    for (uint32_t e = 0; e < m; e++)
        if (edges[e].from >= n || edges[e].to >= n)
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "layout: edge %u joins a node that does not exist", e);

    lay g = {0};
    g.o = o;
    g.n = n;
    double *ly = NULL, *lh = NULL;
    etp_status s = ETP_E_NOMEM;
    out->node_count = n;
    out->edge_count = m;
    size_t N = n ? n : 1;
    out->x = malloc(N * sizeof *out->x);
    out->y = malloc(N * sizeof *out->y);
    out->layer = malloc(N * sizeof *out->layer);
    out->order = malloc(N * sizeof *out->order);
    out->point_start = malloc(((size_t)m + 1) * sizeof *out->point_start);
    out->edge_flags = calloc(m ? m : 1, 1);
    g.lay = malloc(N * sizeof *g.lay);
    g.grp = malloc(N * sizeof *g.grp);
    if (!out->x || !out->y || !out->layer || !out->order || !out->point_start ||
        !out->edge_flags || !g.lay || !g.grp)
        goto fail;
    if ((s = distinct_edges(&g, edges, m, out->edge_flags)) || (s = break_cycles(&g)) ||
        (s = assign_layers(&g)) || (s = dense_groups(&g, nodes)))
        goto fail;
    uint64_t budget = o->max_dummies ? o->max_dummies : 4 * ((uint64_t)n + m) + 10000;
    if ((s = add_dummies(&g, budget, err)))
        goto fail_set;
    if ((s = extend_nodes(&g, nodes)) || (s = build_adjacency(&g)) ||
        (s = order_layers(&g, &out->crossings)) || (s = place_x(&g)) ||
        (s = write_nodes(&g, out, &ly, &lh)) || (s = write_edges(&g, edges, m, ly, out)))
        goto fail;
    out->dummy_count = g.total - g.n;
    free(ly);
    free(lh);
    lay_free(&g);
    return ETP_OK;
fail:
    etp_error_set(err, s, NULL, ETP_NO_OFFSET, "layout: out of memory");
fail_set:
    free(ly);
    free(lh);
    lay_free(&g);
    etp_layout_release(out);
    return s;
}
