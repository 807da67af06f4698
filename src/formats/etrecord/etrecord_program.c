/* etrecord_program.c - a serialized ExportedProgram (torch.export serde JSON,
 * 2023 "every union member" style or the current one-key style) reduced to
 * what profiling needs: nodes with names, targets, op types, debug handles,
 * source metadata, and the tensor names that connect them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord/etrecord_internal.h"

#define ETR_MAX_MODULE_FRAMES 4096u

typedef struct decode_ctx {
    etr_arena *a;
    const char *file;
    const char *entry;
    etp_error *err;
} decode_ctx;

static etp_status oom(decode_ctx *c)
{
    return etp_error_set(c->err, ETP_E_NOMEM, c->file, ETP_NO_OFFSET, "entry '%s': out of memory",
                         c->entry);
}

/* ---- tensor names in Argument unions ------------------------------------ */

/* A TensorArgument is {"name": "..."}; some old OptionalTensorArgument
 * writers put the name string directly. */
static const char *tensor_ref_name(json_t *v)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_object(v)) {
        json_t *n = json_object_get(v, "name");
        if (json_is_string(n))
            return json_string_value(n);
    }
    return NULL;
}

static int push_name(decode_ctx *c, etr_ptrvec *out, const char *name)
{
    if (!name)
        return 0;
    char *copy = etr_strdup(c->a, name);
    if (!copy)
        return -1;
    return etr_ptrvec_push(out, copy, ETR_MAX_NAMES_PER_NODE);
}

static int push_optional(decode_ctx *c, etr_ptrvec *out, json_t *opt)
{
    if (!json_is_object(opt))
        return 0;
    return push_name(c, out, tensor_ref_name(json_object_get(opt, "as_tensor")));
}

/* Append every tensor name an Argument mentions. Members that never name a
 * tensor (ints, floats, strings, scalar types, symbolic ints...) are
 * ignored; old files write them all as null. */
static int walk_arg(decode_ctx *c, etr_ptrvec *out, json_t *arg, int depth)
{
    if (!json_is_object(arg) || depth > ETR_MAX_ARG_DEPTH)
        return 0;
    json_t *v;
    size_t i;
    json_t *item;
    if (push_name(c, out, tensor_ref_name(json_object_get(arg, "as_tensor"))))
        return -1;
    v = json_object_get(arg, "as_tensors");
    json_array_foreach(v, i, item)
        if (push_name(c, out, tensor_ref_name(item)))
            return -1;
    if (push_optional(c, out, json_object_get(arg, "as_optional_tensor")))
        return -1;
    v = json_object_get(arg, "as_optional_tensors");
    json_array_foreach(v, i, item)
        if (push_optional(c, out, item))
            return -1;
    v = json_object_get(arg, "as_nested_tensors");
    json_array_foreach(v, i, item) {
        size_t k;
        json_t *t;
        json_array_foreach(item, k, t)
            if (push_name(c, out, tensor_ref_name(t)))
                return -1;
    }
    v = json_object_get(arg, "as_string_to_argument");
    if (json_is_object(v)) {
        const char *key;
        json_object_foreach(v, key, item)
            if (walk_arg(c, out, item, depth + 1))
                return -1;
    }
    return 0;
}

static etp_status names_commit(decode_ctx *c, etr_ptrvec *pv, const char ***names, uint32_t *n)
{
    int failed = 0;
    *names = (const char **)etr_ptrvec_commit(pv, c->a, n, &failed);
    return failed ? oom(c) : ETP_OK;
}

static etp_status walk_fail(decode_ctx *c, etr_ptrvec *pv, const char *where)
{
    if (pv->n >= ETR_MAX_NAMES_PER_NODE)
        return etp_error_set(c->err, ETP_E_LIMIT, c->file, ETP_NO_OFFSET,
                             "entry '%s': %s names more than %u tensors", c->entry, where,
                             ETR_MAX_NAMES_PER_NODE);
    return oom(c);
}

/* ---- op type and module stack ------------------------------------------- */

const char *etr_op_type(etr_arena *a, const char *target, int *is_delegate_call)
{
    const char *last = strrchr(target, '.');
    last = last ? last + 1 : target;
    size_t ln = strlen(last);
    static const char suffix[] = "call_delegate";
    *is_delegate_call = ln >= sizeof suffix - 1 &&
                        strcmp(last + ln - (sizeof suffix - 1), suffix) == 0;
    /* Higher-order ops (the delegate call, cond, map) are named by their
     * Python __name__, the last component. */
    if (*is_delegate_call || strncmp(target, "torch.ops.higher_order.", 23) == 0)
        return etr_strdup(a, last);
    /* Operator overloads: "<anything>.ops.<ns>.<op>.<overload>" (torch.ops,
     * edge.ops, backend.ops) -> "<ns>.<op>.<overload>", the __name__ the
     * Inspector reports. */
    const char *ops = NULL;
    for (const char *p = target; !ops && (p = strstr(p, "ops.")) != NULL; p++)
        if (p == target || p[-1] == '.')
            ops = p + 4; /* the first: a namespace may itself be called "ops" */
    if (ops && *ops)
        return etr_strdup(a, ops);
    /* Plain Python callables ("_operator.getitem", "memory.alloc"). */
    return etr_strdup(a, last);
}

/* Split one "key,path,type" item on its top-level commas: the key ends at
 * the first, the type starts after the last; commas inside ()/[]/{} belong
 * to the path. */
static int module_frame(etr_arena *a, const char *s, size_t n, etp_module_frame *f)
{
    int depth = 0;
    const char *first = NULL, *last = NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '(' || ch == '[' || ch == '{')
            depth++;
        else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
            depth--;
        else if (ch == ',' && depth == 0) {
            if (!first)
                first = s + i;
            last = s + i;
        }
    }
    const char *end = s + n;
    if (!first) {
        f->key = etr_strndup(a, s, n);
        f->path = etr_strdup(a, "");
        f->type = etr_strdup(a, "");
    } else if (first == last) {
        f->key = etr_strndup(a, s, (size_t)(first - s));
        f->path = etr_strndup(a, first + 1, (size_t)(end - first - 1));
        f->type = etr_strdup(a, "");
    } else {
        f->key = etr_strndup(a, s, (size_t)(first - s));
        f->path = etr_strndup(a, first + 1, (size_t)(last - first - 1));
        f->type = etr_strndup(a, last + 1, (size_t)(end - last - 1));
    }
    return f->key && f->path && f->type ? 0 : -1;
}

etp_status etr_parse_module_stack(etr_arena *a, const char *text, etp_module_frame **frames,
                                  uint32_t *count)
{
    *frames = NULL;
    *count = 0;
    uint32_t n = 0;
    for (const char *p = text; *p;) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        if (len)
            n++;
        p += len + (semi ? 1 : 0);
    }
    if (n == 0)
        return ETP_OK;
    if (n > ETR_MAX_MODULE_FRAMES)
        n = ETR_MAX_MODULE_FRAMES; /* deeper stacks are kept raw only */
    etp_module_frame *f = etr_alloc_array(a, n, sizeof *f);
    if (!f)
        return ETP_E_NOMEM;
    uint32_t k = 0;
    for (const char *p = text; *p && k < n;) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        if (len && module_frame(a, p, len, &f[k++]))
            return ETP_E_NOMEM;
        p += len + (semi ? 1 : 0);
    }
    *frames = f;
    *count = k;
    return ETP_OK;
}

/* ---- nodes -------------------------------------------------------------- */

void etr_name_unnamed_node(etr_arena *a, etp_graph_node *nd, uint32_t j)
{
    if (nd->output_count) {
        /* Old files: the deserializer named a node after its first output. */
        nd->name = nd->outputs[0];
        nd->name_source = ETP_NAME_FROM_OUTPUT;
    } else {
        char buf[32];
        snprintf(buf, sizeof buf, "node_%u", j);
        nd->name = etr_strdup(a, buf);
        nd->name_source = ETP_NAME_SYNTHESIZED;
    }
}

static const char *meta_string(json_t *meta, const char *key)
{
    json_t *v = json_object_get(meta, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static etp_status debug_handle(decode_ctx *c, json_t *meta, uint32_t j, etp_graph_node *nd)
{
    json_t *v = json_object_get(meta, "debug_handle");
    if (!v || json_is_null(v))
        return ETP_OK;
    if (json_is_integer(v)) {
        nd->has_debug_handle = 1;
        nd->debug_handle = (int64_t)json_integer_value(v);
        return ETP_OK;
    }
    int64_t h;
    if (json_is_string(v) && etr_parse_int64(json_string_value(v), &h) == 0) {
        nd->has_debug_handle = 1;
        nd->debug_handle = h;
        return ETP_OK;
    }
    return etp_error_set(c->err, ETP_E_FORMAT, c->file, ETP_NO_OFFSET,
                         "entry '%s': graph.nodes[%u]: metadata.debug_handle is not a decimal "
                         "integer",
                         c->entry, j);
}

static etp_status decode_node(decode_ctx *c, json_t *jn, uint32_t j, etp_graph_node *nd,
                              etr_ptrvec *scratch)
{
    if (!json_is_object(jn))
        return etp_error_set(c->err, ETP_E_FORMAT, c->file, ETP_NO_OFFSET,
                             "entry '%s': graph.nodes[%u] is not an object", c->entry, j);
    json_t *target = json_object_get(jn, "target");
    if (!json_is_string(target))
        return etp_error_set(c->err, ETP_E_FORMAT, c->file, ETP_NO_OFFSET,
                             "entry '%s': graph.nodes[%u] has no target string", c->entry, j);
    nd->target = etr_strdup(c->a, json_string_value(target));
    nd->op_type = nd->target ? etr_op_type(c->a, nd->target, &nd->is_delegate_call) : NULL;
    if (!nd->op_type)
        return oom(c);

    char where[48];
    snprintf(where, sizeof where, "graph.nodes[%u]", j);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(jn, "inputs"), i, item)
        if (walk_arg(c, scratch, json_object_get(item, "arg"), 0))
            return walk_fail(c, scratch, where);
    if (names_commit(c, scratch, &nd->inputs, &nd->input_count))
        return ETP_E_NOMEM;
    json_array_foreach(json_object_get(jn, "outputs"), i, item)
        if (walk_arg(c, scratch, item, 0))
            return walk_fail(c, scratch, where);
    if (names_commit(c, scratch, &nd->outputs, &nd->output_count))
        return ETP_E_NOMEM;

    json_t *name = json_object_get(jn, "name");
    if (json_is_string(name)) {
        nd->name = etr_strdup(c->a, json_string_value(name));
        nd->name_source = ETP_NAME_FROM_NODE;
    } else {
        etr_name_unnamed_node(c->a, nd, j);
    }
    if (!nd->name)
        return oom(c);

    json_t *meta = json_object_get(jn, "metadata");
    if (json_is_object(meta)) {
        etp_status st = debug_handle(c, meta, j, nd);
        if (st)
            return st;
        const char *s;
        if ((s = meta_string(meta, "stack_trace")) && !(nd->stack_trace = etr_strdup(c->a, s)))
            return oom(c);
        if ((s = meta_string(meta, "source_fn_stack")) &&
            !(nd->source_fn_stack = etr_strdup(c->a, s)))
            return oom(c);
        if ((s = meta_string(meta, "nn_module_stack"))) {
            if (!(nd->nn_module_stack = etr_strdup(c->a, s)) ||
                etr_parse_module_stack(c->a, s, &nd->modules, &nd->module_depth))
                return oom(c);
        }
    }
    return ETP_OK;
}

static const char *schema_version(etr_arena *a, json_t *v)
{
    char buf[64];
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_object(v)) {
        json_t *ma = json_object_get(v, "major"), *mi = json_object_get(v, "minor");
        if (!json_is_integer(ma))
            return NULL;
        if (json_is_integer(mi))
            snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT ".%" JSON_INTEGER_FORMAT,
                     json_integer_value(ma), json_integer_value(mi));
        else
            snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(ma));
    } else if (json_is_string(v)) {
        return etr_strdup(a, json_string_value(v));
    } else {
        return NULL;
    }
    return etr_strdup(a, buf);
}

etp_status etr_program_decode(json_t *doc, etp_exported_program *p, etr_arena *a,
                              const char *file, etp_error *err)
{
    decode_ctx c = {a, file, p->entry, err};
    if (!json_is_object(doc))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': not a serialized exported program (top level is not an "
                             "object)",
                             p->entry);
    p->schema_version = schema_version(a, json_object_get(doc, "schema_version"));
    json_t *graph = json_object_get(json_object_get(doc, "graph_module"), "graph");
    if (!json_is_object(graph))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': no graph_module.graph object", p->entry);
    json_t *nodes = json_object_get(graph, "nodes");
    if (!json_is_array(nodes))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': graph_module.graph.nodes is not an array", p->entry);
    size_t nn = json_array_size(nodes);
    if (nn > ETR_MAX_NODES)
        return etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                             "entry '%s': %zu nodes; the limit is %u", p->entry, nn, ETR_MAX_NODES);

    etr_ptrvec scratch = {0};
    etp_status st = ETP_OK;
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(graph, "inputs"), i, item)
        if (walk_arg(&c, &scratch, item, 0)) {
            st = walk_fail(&c, &scratch, "graph.inputs");
            goto done;
        }
    if ((st = names_commit(&c, &scratch, &p->inputs, &p->input_count)))
        goto done;
    json_array_foreach(json_object_get(graph, "outputs"), i, item)
        if (walk_arg(&c, &scratch, item, 0)) {
            st = walk_fail(&c, &scratch, "graph.outputs");
            goto done;
        }
    if ((st = names_commit(&c, &scratch, &p->outputs, &p->output_count)))
        goto done;

    if (nn) {
        p->nodes = etr_alloc_array(a, nn, sizeof *p->nodes);
        if (!p->nodes) {
            st = oom(&c);
            goto done;
        }
    }
    json_array_foreach(nodes, i, item) {
        if ((st = decode_node(&c, item, (uint32_t)i, &p->nodes[i], &scratch)))
            goto done;
        p->node_count = (uint32_t)i + 1;
    }
    st = etr_program_index(p, a, file, err);
done:
    etr_ptrvec_free(&scratch);
    return st;
}

/* ---- handle -> nodes index ---------------------------------------------- */

typedef struct handle_pair {
    int64_t handle;
    uint32_t node;
} handle_pair;

static int pair_cmp(const void *x, const void *y)
{
    const handle_pair *a = x, *b = y;
    if (a->handle != b->handle)
        return a->handle < b->handle ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

etp_status etr_program_index(etp_exported_program *p, etr_arena *a, const char *file,
                             etp_error *err)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->node_count; i++)
        n += p->nodes[i].has_debug_handle ? 1 : 0;
    p->handled_count = 0;
    p->handles_sorted = NULL;
    p->nodes_by_handle = NULL;
    if (n == 0)
        return ETP_OK;
    handle_pair *pairs = malloc((size_t)n * sizeof *pairs);
    int64_t *handle = etr_alloc_array(a, n, sizeof *handle);
    uint32_t *node = etr_alloc_array(a, n, sizeof *node);
    if (!pairs || !handle || !node) {
        free(pairs);
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "entry '%s': out of memory",
                             p->entry);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->node_count; i++)
        if (p->nodes[i].has_debug_handle)
            pairs[k++] = (handle_pair){p->nodes[i].debug_handle, i};
    qsort(pairs, n, sizeof *pairs, pair_cmp);
    for (uint32_t i = 0; i < n; i++) {
        handle[i] = pairs[i].handle;
        node[i] = pairs[i].node;
    }
    free(pairs);
    p->handles_sorted = handle;
    p->nodes_by_handle = node;
    p->handled_count = n;
    return ETP_OK;
}

uint32_t etp_exported_program_nodes_with_handle(const etp_exported_program *p, int64_t handle,
                                                const uint32_t **node_indices)
{
    if (node_indices)
        *node_indices = NULL;
    if (!p || !p->handles_sorted)
        return 0;
    const int64_t *hs = p->handles_sorted;
    uint32_t lo = 0, hi = p->handled_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (hs[mid] < handle)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < p->handled_count && hs[end] == handle)
        end++;
    if (end > lo && node_indices)
        *node_indices = p->nodes_by_handle + lo;
    return end - lo;
}
