/* test_layout.c - layered layout: geometry invariants on small and large
 * graphs (no overlaps in a layer, edges go down unless they close a cycle,
 * groups contiguous), crossing removal, determinism, and a timing print for
 * a 5,000-node graph (printed, never asserted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "util/layout.h"

#define EPS 1e-6

/* Check every invariant the layout promises. */
static void check_layout(const etp_layout_node *nodes, uint32_t n, const etp_layout_edge *edges,
                         uint32_t m, const etp_layout *l, const etp_layout_options *o)
{
    assert_int_equal(l->node_count, n);
    assert_int_equal(l->edge_count, m);
    for (uint32_t v = 0; v < n; v++) {
        assert_true(l->x[v] - nodes[v].width / 2 >= -EPS);
        assert_true(l->x[v] + nodes[v].width / 2 <= l->width + EPS);
        assert_true(l->y[v] - nodes[v].height / 2 >= -EPS);
        assert_true(l->y[v] + nodes[v].height / 2 <= l->height + EPS);
        assert_true(l->layer[v] < l->layer_count);
    }
    /* Same layer: same y; order and x agree; boxes apart. */
    double min_gap = o->node_sep < 2 * o->edge_sep ? o->node_sep : 2 * o->edge_sep;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (a == b || l->layer[a] != l->layer[b])
                continue;
            assert_true(l->y[a] == l->y[b]);
            assert_int_not_equal(l->order[a], l->order[b]);
            if (l->order[a] < l->order[b]) {
                double gap = (l->x[b] - nodes[b].width / 2) - (l->x[a] + nodes[a].width / 2);
                if (gap < min_gap - EPS)
                    fail_msg("nodes %u and %u overlap or touch: gap %g", a, b, gap);
            }
        }
    /* Groups: no node of another group between two members of a group. */
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            if (nodes[a].group < 0 || nodes[a].group != nodes[b].group ||
                l->layer[a] != l->layer[b] || l->order[a] >= l->order[b])
                continue;
            for (uint32_t c = 0; c < n; c++)
                if (l->layer[c] == l->layer[a] && l->order[c] > l->order[a] &&
                    l->order[c] < l->order[b] && nodes[c].group != nodes[a].group)
                    fail_msg("node %u (group %d) splits group %d at layer %u", c, nodes[c].group,
                             nodes[a].group, l->layer[a]);
        }
    /* Edges: downward from the source's bottom to the target's top, or the
     * reverse for an edge that closes a cycle. */
    for (uint32_t e = 0; e < m; e++) {
        uint32_t a = l->point_start[e], b = l->point_start[e + 1];
        uint8_t f = l->edge_flags[e];
        if (f & (ETP_LAYOUT_EDGE_SELF | ETP_LAYOUT_EDGE_DUPLICATE)) {
            assert_int_equal(a, b);
            continue;
        }
        assert_true(b - a >= 2);
        uint32_t s = edges[e].from, t = edges[e].to;
        const etp_layout_point *p = l->points;
        int down = !(f & ETP_LAYOUT_EDGE_REVERSED);
        if (down) {
            assert_true(l->layer[t] > l->layer[s]);
            assert_true(p[a].y == l->y[s] + nodes[s].height / 2);
            assert_true(p[b - 1].y == l->y[t] - nodes[t].height / 2);
        } else {
            assert_true(l->layer[t] < l->layer[s]);
            assert_true(p[a].y == l->y[s] - nodes[s].height / 2);
            assert_true(p[b - 1].y == l->y[t] + nodes[t].height / 2);
        }
        assert_true(p[a].x == l->x[s]);
        assert_true(p[b - 1].x == l->x[t]);
        for (uint32_t i = a + 1; i < b; i++)
            assert_true(down ? p[i].y > p[i - 1].y : p[i].y < p[i - 1].y);
        if (f & ETP_LAYOUT_EDGE_STRAIGHT)
            assert_int_equal(b - a, 2);
        else
            assert_int_equal(b - a, (down ? l->layer[t] - l->layer[s] : l->layer[s] - l->layer[t]) + 1);
    }
}

static void run(const etp_layout_node *nodes, uint32_t n, const etp_layout_edge *edges, uint32_t m,
                const etp_layout_options *o, etp_layout *l)
{
    etp_error err;
    if (etp_layout_compute(nodes, n, edges, m, o, l, &err))
        fail_msg("layout failed: %s", err.message);
    check_layout(nodes, n, edges, m, l, o);
}

static etp_layout_options defaults(void)
{
    etp_layout_options o;
    etp_layout_options_init(&o);
    return o;
}

static void chain_and_diamond(void **state)
{
    (void)state;
    etp_layout_options o = defaults();
    etp_layout_node nodes[5] = {{60, 20, -1}, {80, 20, -1}, {40, 30, -1}, {40, 20, -1}, {100, 20, -1}};
    /* 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4 */
    etp_layout_edge edges[] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
    etp_layout l;
    run(nodes, 5, edges, 5, &o, &l);
    assert_int_equal(l.layer_count, 4);
    assert_int_equal(l.layer[1], 1);
    assert_int_equal(l.layer[2], 1);
    assert_int_equal(l.layer[4], 3);
    assert_int_equal(l.crossings, 0);
    assert_int_equal(l.dummy_count, 0);
    /* the join sits between the two branches, the chain ends under it */
    double lo = l.x[1] < l.x[2] ? l.x[1] : l.x[2], hi = l.x[1] < l.x[2] ? l.x[2] : l.x[1];
    assert_true(l.x[3] > lo && l.x[3] < hi);
    assert_true(l.x[4] > lo && l.x[4] < hi);
    assert_true(l.y[2] == l.y[1]);
    assert_true(l.height > 3 * o.rank_sep);
    etp_layout_release(&l);

    /* a single chain is a straight vertical line */
    etp_layout_edge chain[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
    run(nodes, 5, chain, 4, &o, &l);
    for (int v = 1; v < 5; v++)
        assert_true(l.x[v] == l.x[0]);
    etp_layout_release(&l);
}

static void long_edges_bend(void **state)
{
    (void)state;
    etp_layout_options o = defaults();
    etp_layout_node nodes[4] = {{40, 20, -1}, {40, 20, -1}, {40, 20, -1}, {40, 20, -1}};
    etp_layout_edge edges[] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}};
    etp_layout l;
    run(nodes, 4, edges, 4, &o, &l);
    assert_int_equal(l.dummy_count, 2);
    assert_int_equal(l.point_start[4] - l.point_start[3], 4);
    etp_layout_release(&l);
    /* over the budget the long edge is a straight line */
    o.max_dummies = 1;
    run(nodes, 4, edges, 4, &o, &l);
    assert_int_equal(l.dummy_count, 0);
    assert_true(l.edge_flags[3] & ETP_LAYOUT_EDGE_STRAIGHT);
    etp_layout_release(&l);
}

static void cycles_loops_duplicates(void **state)
{
    (void)state;
    etp_layout_options o = defaults();
    etp_layout_node nodes[3] = {{30, 20, -1}, {30, 20, -1}, {30, 20, -1}};
    etp_layout_edge edges[] = {{0, 1}, {1, 2}, {2, 0}, {1, 1}, {0, 1}, {2, 1}};
    etp_layout l;
    run(nodes, 3, edges, 6, &o, &l);
    assert_int_equal(l.edge_flags[0], 0);
    assert_true(l.edge_flags[2] & ETP_LAYOUT_EDGE_REVERSED);
    assert_true(l.edge_flags[3] & ETP_LAYOUT_EDGE_SELF);
    assert_true(l.edge_flags[4] & ETP_LAYOUT_EDGE_DUPLICATE);
    assert_true(l.edge_flags[5] & ETP_LAYOUT_EDGE_REVERSED);
    etp_layout_release(&l);

    etp_error err;
    etp_layout_edge bad[] = {{0, 7}};
    assert_int_equal(etp_layout_compute(nodes, 3, bad, 1, &o, &l, &err), ETP_E_USAGE);
    etp_layout_node nan_node[1] = {{0.0 / 0.0, 1, -1}};
    assert_int_equal(etp_layout_compute(nan_node, 1, NULL, 0, &o, &l, &err), ETP_E_USAGE);
    /* empty graph */
    assert_int_equal(etp_layout_compute(NULL, 0, NULL, 0, NULL, &l, &err), ETP_OK);
    assert_int_equal(l.layer_count, 0);
    assert_true(l.width == 2 * o.margin);
    etp_layout_release(&l);
}

static void crossings_removed(void **state)
{
    (void)state;
    etp_layout_options o = defaults();
    /* index order puts c left of d, but a feeds d and b feeds c; three
     * layers with a twist each time */
    etp_layout_node nodes[6];
    for (int i = 0; i < 6; i++)
        nodes[i] = (etp_layout_node){30, 20, -1};
    etp_layout_edge edges[] = {{0, 3}, {1, 2}, {2, 5}, {3, 4}};
    etp_layout l;
    run(nodes, 6, edges, 4, &o, &l);
    assert_int_equal(l.crossings, 0);
    assert_true((l.x[0] < l.x[1]) == (l.x[3] < l.x[2]));
    etp_layout_release(&l);
}

static void groups_contiguous(void **state)
{
    (void)state;
    etp_layout_options o = defaults();
    /* source 0 fans out to 1..8, alternately in groups 5 and 9 and none;
     * all join in 9 (group 5) */
    etp_layout_node nodes[10];
    int32_t g[10] = {-1, 5, 9, -1, 5, 9, -1, 5, 9, 5};
    for (int i = 0; i < 10; i++)
        nodes[i] = (etp_layout_node){40 + 3 * i, 20, g[i]};
    etp_layout_edge edges[16];
    uint32_t m = 0;
    for (uint32_t i = 1; i <= 8; i++) {
        edges[m++] = (etp_layout_edge){0, i};
        edges[m++] = (etp_layout_edge){i, 9};
    }
    etp_layout l;
    run(nodes, 10, edges, m, &o, &l); /* check_layout asserts contiguity */
    /* groups are padded apart: the gap at a group boundary is wider */
    etp_layout_release(&l);
}

/* Pseudo-random chain with branches, like an unrolled model: a main chain
 * that now and then forks into 2..4 parallel paths of 1..5 nodes which join
 * again, plus skip connections; nodes come in runs that share a group. */
static uint32_t make_graph(uint32_t n, etp_layout_node *nodes, etp_layout_edge *edges, uint32_t seed)
{
    uint32_t m = 0, state = seed;
#define RND() (state = state * 1103515245u + 12345u, (state >> 16) & 0x7fff)
    uint32_t prev = 0, v = 1;
    nodes[0] = (etp_layout_node){120, 24, -1};
    int32_t group = -1;
    while (v < n) {
        if (RND() % 30 == 0)
            group = group < 0 ? (int32_t)(RND() % 50) : -1;
        if (RND() % 5 == 0 && v + 25 < n) {
            uint32_t ways = 2 + RND() % 3, ends[4];
            for (uint32_t w = 0; w < ways; w++) {
                uint32_t len = 1 + RND() % 5, last = prev;
                for (uint32_t k = 0; k < len; k++, v++) {
                    nodes[v] = (etp_layout_node){60 + RND() % 120, 24, group};
                    edges[m++] = (etp_layout_edge){last, v};
                    last = v;
                }
                ends[w] = last;
            }
            nodes[v] = (etp_layout_node){60 + RND() % 120, 24, group};
            for (uint32_t w = 0; w < ways; w++)
                edges[m++] = (etp_layout_edge){ends[w], v};
            prev = v++;
        } else {
            nodes[v] = (etp_layout_node){60 + RND() % 120, 24, group};
            edges[m++] = (etp_layout_edge){prev, v};
            if (RND() % 8 == 0 && v > 12)
                edges[m++] = (etp_layout_edge){v - 2 - RND() % 10, v}; /* skip connection */
            prev = v++;
        }
    }
#undef RND
    return m;
}

static void deterministic(void **state)
{
    (void)state;
    uint32_t n = 600;
    etp_layout_node *nodes = calloc(n, sizeof *nodes);
    etp_layout_edge *edges = calloc(3 * n, sizeof *edges);
    uint32_t m = make_graph(n, nodes, edges, 7);
    etp_layout_options o = defaults();
    etp_layout a, b;
    run(nodes, n, edges, m, &o, &a);
    run(nodes, n, edges, m, &o, &b);
    assert_memory_equal(a.x, b.x, n * sizeof *a.x);
    assert_memory_equal(a.y, b.y, n * sizeof *a.y);
    assert_int_equal(a.point_start[m], b.point_start[m]);
    assert_memory_equal(a.points, b.points, a.point_start[m] * sizeof *a.points);
    etp_layout_release(&a);
    etp_layout_release(&b);
    free(nodes);
    free(edges);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* The size the HTML report must handle. Time is printed for the record; the
 * test only asserts the geometry. */
static void five_thousand_nodes(void **state)
{
    (void)state;
    uint32_t n = 5000;
    etp_layout_node *nodes = calloc(n, sizeof *nodes);
    etp_layout_edge *edges = calloc(3 * n, sizeof *edges);
    uint32_t m = make_graph(n, nodes, edges, 12345);
    etp_layout_options o = defaults();
    etp_layout l;
    etp_error err;
    double t0 = seconds();
    assert_int_equal(etp_layout_compute(nodes, n, edges, m, &o, &l, &err), ETP_OK);
    double t1 = seconds();
    printf("layout: %u nodes, %u edges -> %u layers, %llu bend points, %llu crossings, "
           "%.0f x %.0f px in %.1f ms\n",
           n, m, l.layer_count, (unsigned long long)l.dummy_count,
           (unsigned long long)l.crossings, l.width, l.height, (t1 - t0) * 1e3);
    /* the geometry check is quadratic per layer, fine at this size */
    check_layout(nodes, n, edges, m, &l, &o);
    etp_layout_release(&l);
    free(nodes);
    free(edges);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_and_diamond),   cmocka_unit_test(long_edges_bend),
        cmocka_unit_test(cycles_loops_duplicates), cmocka_unit_test(crossings_removed),
        cmocka_unit_test(groups_contiguous),   cmocka_unit_test(deterministic),
        cmocka_unit_test(five_thousand_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
