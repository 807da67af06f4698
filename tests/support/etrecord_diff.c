/* etrecord_diff.c - compare two decoded exported programs field by field.
 * The fast decoder (etrecord_fastgraph.c) promises to produce exactly what
 * the jansson decoder produces; the tests and the fuzzer check that with
 * this. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/etrecord/etrecord_internal.h"

/* Both NULL, or equal strings. */
static int same_str(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

static const char *differ(char *buf, size_t size, const char *what, const char *x, const char *y)
{
    snprintf(buf, size, "%s: \"%.80s\" vs \"%.80s\"", what, x ? x : "(null)", y ? y : "(null)");
    return buf;
}

static const char *diff_names(const char *what, const char **x, uint32_t nx, const char **y,
                              uint32_t ny, char *buf, size_t size)
{
    if (nx != ny) {
        snprintf(buf, size, "%s: %u vs %u names", what, nx, ny);
        return buf;
    }
    for (uint32_t i = 0; i < nx; i++)
        if (!same_str(x[i], y[i])) {
            char w[96];
            snprintf(w, sizeof w, "%s[%u]", what, i);
            return differ(buf, size, w, x[i], y[i]);
        }
    return NULL;
}

static const char *diff_modules(const etp_graph_node *x, const etp_graph_node *y, const char *w,
                                char *buf, size_t size)
{
    if (x->module_depth != y->module_depth) {
        snprintf(buf, size, "%s.module_depth: %u vs %u", w, x->module_depth, y->module_depth);
        return buf;
    }
    for (uint32_t k = 0; k < x->module_depth; k++) {
        const etp_module_frame *a = &x->modules[k], *b = &y->modules[k];
        if (!same_str(a->key, b->key) || !same_str(a->path, b->path) ||
            !same_str(a->type, b->type)) {
            snprintf(buf, size, "%s.modules[%u] differ", w, k);
            return buf;
        }
    }
    return NULL;
}

static const char *diff_node(const etp_graph_node *x, const etp_graph_node *y, uint32_t j,
                             char *buf, size_t size)
{
    char w[64], f[96];
    snprintf(w, sizeof w, "nodes[%u]", j);
    static const struct {
        const char *name;
        size_t off;
    } strs[] = {
        {"name", offsetof(etp_graph_node, name)},
        {"target", offsetof(etp_graph_node, target)},
        {"op_type", offsetof(etp_graph_node, op_type)},
        {"stack_trace", offsetof(etp_graph_node, stack_trace)},
        {"nn_module_stack", offsetof(etp_graph_node, nn_module_stack)},
        {"source_fn_stack", offsetof(etp_graph_node, source_fn_stack)},
    };
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        const char *a, *b;
        memcpy(&a, (const char *)x + strs[k].off, sizeof a);
        memcpy(&b, (const char *)y + strs[k].off, sizeof b);
        if (!same_str(a, b)) {
            snprintf(f, sizeof f, "%s.%s", w, strs[k].name);
            return differ(buf, size, f, a, b);
        }
    }
    if (x->name_source != y->name_source || x->is_delegate_call != y->is_delegate_call ||
        x->has_debug_handle != y->has_debug_handle || x->debug_handle != y->debug_handle) {
        snprintf(buf, size, "%s: name source, delegate flag or debug handle differ", w);
        return buf;
    }
    const char *d = diff_modules(x, y, w, buf, size);
    if (d)
        return d;
    snprintf(f, sizeof f, "%s.inputs", w);
    if ((d = diff_names(f, x->inputs, x->input_count, y->inputs, y->input_count, buf, size)))
        return d;
    snprintf(f, sizeof f, "%s.outputs", w);
    return diff_names(f, x->outputs, x->output_count, y->outputs, y->output_count, buf, size);
}

/* The handle index through the public lookup: same node lists per handle. */
static const char *diff_index(const etp_exported_program *x, const etp_exported_program *y,
                              char *buf, size_t size)
{
    if (x->handled_count != y->handled_count) {
        snprintf(buf, size, "handle index: %u vs %u pairs", x->handled_count, y->handled_count);
        return buf;
    }
    for (uint32_t j = 0; j < x->node_count; j++) {
        if (!x->nodes[j].has_debug_handle)
            continue;
        int64_t h = x->nodes[j].debug_handle;
        const uint32_t *a, *b;
        uint32_t na = etp_exported_program_nodes_with_handle(x, h, &a);
        uint32_t nb = etp_exported_program_nodes_with_handle(y, h, &b);
        if (na != nb || (na && memcmp(a, b, na * sizeof *a) != 0)) {
            snprintf(buf, size, "handle index differs for handle %lld", (long long)h);
            return buf;
        }
    }
    return NULL;
}

const char *etr_program_diff(const etp_exported_program *x, const etp_exported_program *y,
                             char *buf, size_t size)
{
    if (!same_str(x->schema_version, y->schema_version))
        return differ(buf, size, "schema_version", x->schema_version, y->schema_version);
    if (x->node_count != y->node_count) {
        snprintf(buf, size, "node_count: %u vs %u", x->node_count, y->node_count);
        return buf;
    }
    const char *d;
    if ((d = diff_names("inputs", x->inputs, x->input_count, y->inputs, y->input_count, buf,
                        size)) ||
        (d = diff_names("outputs", x->outputs, x->output_count, y->outputs, y->output_count, buf,
                        size)))
        return d;
    for (uint32_t j = 0; j < x->node_count; j++)
        if ((d = diff_node(&x->nodes[j], &y->nodes[j], j, buf, size)))
            return d;
    return diff_index(x, y, buf, size);
}

static int untouched(const etp_exported_program *p)
{
    return !p->schema_version && !p->nodes && !p->inputs && !p->outputs && !p->handles_sorted &&
           !p->nodes_by_handle &&
           p->node_count + p->input_count + p->output_count + p->handled_count == 0;
}

const char *etr_fast_check(const char *text, size_t len, etr_fast_raw *raw,
                           const etr_squeeze *pruned, etr_fast_status *said, char *buf, size_t size)
{
    etp_exported_program fast, slow;
    memset(&fast, 0, sizeof fast);
    memset(&slow, 0, sizeof slow);
    fast.entry = slow.entry = "edge_dialect_exported_program/forward";
    etr_arena fa = {0}, sa = {0};
    etr_fast_status fs = etr_program_decode_fast(text, len, &fast, &fa, raw);

    json_t *doc = NULL;
    etp_error err;
    etp_error_clear(&err);
    etp_status st = etr_json_load(pruned, "f", fast.entry, &doc, &err);
    if (!st)
        st = etr_program_decode(doc, &slow, &sa, "f", &err);
    json_decref(doc);

    const char *why = NULL;
    if (fs == ETR_FAST_OK) {
        if (st) {
            snprintf(buf, size, "fast path said OK, jansson path failed: %s", err.message);
            why = buf;
        } else if (!(why = etr_program_diff(&fast, &slow, buf, size)) && raw &&
                   (raw->skipped_strings != pruned->skipped_strings ||
                    raw->skipped_bytes != pruned->skipped_bytes)) {
            snprintf(buf, size,
                     "huge strings: fast path counted %" PRIu64 " (%" PRIu64
                     " bytes), squeezing %" PRIu64 " (%" PRIu64 ")",
                     raw->skipped_strings, raw->skipped_bytes, pruned->skipped_strings,
                     pruned->skipped_bytes);
            why = buf;
        }
    } else if (fs != ETR_FAST_DECLINE || !untouched(&fast)) {
        snprintf(buf, size, "fast path: status %d, or it declined but changed the program", (int)fs);
        why = buf;
    }
    etr_arena_free(&fa);
    etr_arena_free(&sa);
    if (said)
        *said = fs;
    return why;
}
