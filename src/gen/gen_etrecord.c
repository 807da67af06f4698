/*
 * gen_etrecord.c - write a gm_program's ETRecord in the current (2026)
 * layout: a zip of STORED entries, as Python's zipfile writes it,
 *
 *   ETRECORD_V0                                   empty marker, first
 *   edge_dialect_exported_program/<method>        serialized edge program (JSON)
 *     ... + _state_dict, _constants, _example_inputs   torch.save-shaped placeholders
 *   debug_handle_map                              {method: {instr: handle | [handles]}}
 *   delegate_map                                  {method: {instr: {name, delegate_map}}}
 *   instruction_id_to_num_outs_map                {method: {instr: n}}
 *   export_graph_id                               a JSON integer
 *
 * The optional ATen `exported_program` entry is not written. The edge
 * program JSON follows the current serde style: one-key unions, no null
 * members, schema_version {"major": 5, "minor": 4}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "formats/flatbuffers/schemas.h"
#include "gen/gen_model.h"
#include "gen/gen_util.h"
#include "util/jsonw.h"

/* Every entry gets the same timestamp so the bytes never change. */
#define ZIP_DOSDATE ((uint16_t)(((2026 - 1980) << 9) | (1 << 5) | 1)) /* 2026-01-01 */
#define ZIP_DOSTIME ((uint16_t)0)

#define EDGE_PREFIX "executorch.exir.dialects.edge.ops."

static void write_argument(etp_jw *w, const gm_arg *a)
{
    etp_jw_obj_begin(w);
    switch (a->kind) {
    case GA_TENSOR:
        etp_jw_key(w, "as_tensor");
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", a->tensor);
        etp_jw_obj_end(w);
        break;
    case GA_INT:
        etp_jw_kint(w, "as_int", a->i);
        break;
    case GA_BOOL:
        etp_jw_kbool(w, "as_bool", (int)a->i);
        break;
    case GA_FLOAT:
        etp_jw_kdouble(w, "as_float", a->f);
        break;
    case GA_INTS:
        etp_jw_key(w, "as_ints");
        etp_jw_arr_begin(w);
        for (int k = 0; k < a->nints; k++)
            etp_jw_int(w, a->ints[k]);
        etp_jw_arr_end(w);
        break;
    }
    etp_jw_obj_end(w);
}

static void tensor_arg(etp_jw *w, const char *name)
{
    etp_jw_obj_begin(w);
    etp_jw_key(w, "as_tensor");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void write_node(etp_jw *w, const gm_node *n)
{
    char target[256];
    snprintf(target, sizeof target, EDGE_PREFIX "%s", n->target);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", n->name);
    etp_jw_kstr(w, "target", target);
    etp_jw_key(w, "inputs");
    etp_jw_arr_begin(w);
    for (int k = 0; k < n->nargs; k++) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", n->args[k].name);
        etp_jw_key(w, "arg");
        write_argument(w, &n->args[k]);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_key(w, "outputs");
    etp_jw_arr_begin(w);
    if (n->nouts == 1) {
        tensor_arg(w, n->outs[0]);
    } else if (n->nouts > 1) {
        /* getitem nodes are not serialized: the producer names its outputs */
        etp_jw_obj_begin(w);
        etp_jw_key(w, "as_tensors");
        etp_jw_arr_begin(w);
        for (int k = 0; k < n->nouts; k++) {
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "name", n->outs[k]);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_key(w, "metadata");
    etp_jw_obj_begin(w);
    if (n->stack_trace)
        etp_jw_kstr(w, "stack_trace", n->stack_trace);
    if (n->module_stack)
        etp_jw_kstr(w, "nn_module_stack", n->module_stack);
    if (n->source_fn)
        etp_jw_kstr(w, "source_fn_stack", n->source_fn);
    if (n->torch_fn)
        etp_jw_kstr(w, "torch_fn", n->torch_fn);
    if (n->handle > 0) {
        char h[16];
        snprintf(h, sizeof h, "%d", n->handle);
        etp_jw_kstr(w, "debug_handle", h);
    }
    if (n->from_node)
        etp_jw_kstr(w, "from_node", n->from_node);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void write_tensor_meta(etp_jw *w, const gm_tmeta *t)
{
    etp_jw_key(w, t->name);
    etp_jw_obj_begin(w);
    etp_jw_kint(w, "dtype", t->dtype);
    etp_jw_key(w, "sizes");
    etp_jw_arr_begin(w);
    for (int k = 0; k < t->rank; k++) {
        etp_jw_obj_begin(w);
        etp_jw_kint(w, "as_int", t->sizes[k]);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_kbool(w, "requires_grad", 0);
    etp_jw_key(w, "device");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "type", "cpu");
    etp_jw_obj_end(w);
    etp_jw_key(w, "strides"); /* contiguous */
    etp_jw_arr_begin(w);
    for (int k = 0; k < t->rank; k++) {
        int64_t s = 1;
        for (int j = k + 1; j < t->rank; j++)
            s *= t->sizes[j];
        etp_jw_obj_begin(w);
        etp_jw_kint(w, "as_int", s);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_key(w, "storage_offset");
    etp_jw_obj_begin(w);
    etp_jw_kint(w, "as_int", 0);
    etp_jw_obj_end(w);
    etp_jw_kint(w, "layout", 7); /* torch.strided */
    etp_jw_obj_end(w);
}

static void write_edge_program(etp_jw *w, const gm_method *m)
{
    const gm_ginput *gi = m->ginputs.items;
    etp_jw_obj_begin(w);
    etp_jw_key(w, "graph_module");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "graph");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "inputs");
    etp_jw_arr_begin(w);
    for (size_t k = 0; k < m->ginputs.len; k++)
        tensor_arg(w, gi[k].name);
    etp_jw_arr_end(w);
    etp_jw_key(w, "outputs");
    etp_jw_arr_begin(w);
    if (m->goutput)
        tensor_arg(w, m->goutput);
    etp_jw_arr_end(w);
    etp_jw_key(w, "nodes");
    etp_jw_arr_begin(w);
    for (size_t k = 0; k < m->nodes.len; k++)
        write_node(w, &GEN_AT(&m->nodes, gm_node, k));
    etp_jw_arr_end(w);
    etp_jw_key(w, "tensor_values");
    etp_jw_obj_begin(w);
    for (size_t k = 0; k < m->tmeta.len; k++)
        write_tensor_meta(w, &GEN_AT(&m->tmeta, gm_tmeta, k));
    etp_jw_obj_end(w);
    etp_jw_key(w, "sym_int_values");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_key(w, "sym_bool_values");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_kbool(w, "is_single_tensor_return", 0);
    etp_jw_key(w, "custom_obj_values");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w); /* graph */

    etp_jw_key(w, "signature");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "input_specs");
    etp_jw_arr_begin(w);
    for (size_t k = 0; k < m->ginputs.len; k++) {
        etp_jw_obj_begin(w);
        if (gi[k].param && gi[k].buffer) {
            etp_jw_key(w, "buffer");
            etp_jw_obj_begin(w);
            etp_jw_key(w, "arg");
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "name", gi[k].name);
            etp_jw_obj_end(w);
            etp_jw_kstr(w, "buffer_name", gi[k].param);
            etp_jw_kbool(w, "persistent", 1);
            etp_jw_obj_end(w);
        } else if (gi[k].param) {
            etp_jw_key(w, "parameter");
            etp_jw_obj_begin(w);
            etp_jw_key(w, "arg");
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "name", gi[k].name);
            etp_jw_obj_end(w);
            etp_jw_kstr(w, "parameter_name", gi[k].param);
            etp_jw_obj_end(w);
        } else {
            etp_jw_key(w, "user_input");
            etp_jw_obj_begin(w);
            etp_jw_key(w, "arg");
            tensor_arg(w, gi[k].name);
            etp_jw_obj_end(w);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_key(w, "output_specs");
    etp_jw_arr_begin(w);
    if (m->goutput) {
        etp_jw_obj_begin(w);
        etp_jw_key(w, "user_output");
        etp_jw_obj_begin(w);
        etp_jw_key(w, "arg");
        tensor_arg(w, m->goutput);
        etp_jw_obj_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w); /* signature */

    etp_jw_key(w, "module_call_graph");
    etp_jw_arr_begin(w);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "fqn", "");
    etp_jw_key(w, "signature");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "inputs");
    etp_jw_arr_begin(w);
    etp_jw_arr_end(w);
    etp_jw_key(w, "outputs");
    etp_jw_arr_begin(w);
    etp_jw_arr_end(w);
    etp_jw_kstr(w, "in_spec", m->encoded_inp ? m->encoded_inp : "");
    etp_jw_kstr(w, "out_spec", m->encoded_out ? m->encoded_out : "");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w); /* graph_module */

    etp_jw_key(w, "opset_version");
    etp_jw_obj_begin(w);
    etp_jw_kint(w, "aten", 10);
    etp_jw_obj_end(w);
    etp_jw_key(w, "range_constraints");
    etp_jw_obj_begin(w);
    etp_jw_obj_end(w);
    etp_jw_key(w, "schema_version");
    etp_jw_obj_begin(w);
    etp_jw_kint(w, "major", 5);
    etp_jw_kint(w, "minor", 4);
    etp_jw_obj_end(w);
    etp_jw_kstr(w, "dialect", "EDGE");
    etp_jw_key(w, "verifiers");
    etp_jw_arr_begin(w);
    etp_jw_str(w, "EXIREdgeDialectVerifier");
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static void instr_key(etp_jw *w, size_t i)
{
    char k[24];
    snprintf(k, sizeof k, "%zu", i);
    etp_jw_key(w, k);
}

static void write_handles(etp_jw *w, const int32_t *h, uint32_t n)
{
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < n; k++)
        etp_jw_int(w, h[k]);
    etp_jw_arr_end(w);
}

/* which: 0 debug_handle_map, 1 delegate_map, 2 instruction_id_to_num_outs_map */
static void write_map(etp_jw *w, const gm_program *p, int which)
{
    etp_jw_obj_begin(w);
    for (int mi = 0; mi < p->nmethods; mi++) {
        const gm_method *m = &p->methods[mi];
        const int32_t *h = m->handles.items;
        etp_jw_key(w, m->name);
        etp_jw_obj_begin(w);
        for (size_t i = 0; i < m->instrs.len; i++) {
            const gm_instr *in = &GEN_AT(&m->instrs, gm_instr, i);
            int del = in->kind == PTE_I_DELEGATE;
            if (which == 0) {
                if (!in->handle_count)
                    continue;
                instr_key(w, i);
                /* kernels map to one handle, delegates to their subgraph's list */
                if (del)
                    write_handles(w, h + in->handle_start, in->handle_count);
                else
                    etp_jw_int(w, h[in->handle_start]);
            } else if (del && which == 1) {
                const gm_delegate *d = &GEN_AT(&m->delegates, gm_delegate, in->index);
                instr_key(w, i);
                etp_jw_obj_begin(w);
                etp_jw_kstr(w, "name", d->id);
                etp_jw_key(w, "delegate_map");
                etp_jw_obj_begin(w);
                /* Backends with generated int ids (Vulkan) provide a map;
                 * string-id backends like XNNPACK return an empty one. */
                for (uint32_t k = 0; k < in->dev_count; k++) {
                    const gm_dev *dv = &GEN_AT(&m->devs, gm_dev, in->dev_start + k);
                    char key[16];
                    if (dv->id_int >= 0) {
                        snprintf(key, sizeof key, "%d", dv->id_int);
                        etp_jw_key(w, key);
                    } else if (dv->map_str && dv->id_str) {
                        etp_jw_key(w, dv->id_str);
                    } else {
                        continue;
                    }
                    write_handles(w, h + dv->handle_start, dv->handle_count);
                }
                etp_jw_obj_end(w);
                etp_jw_obj_end(w);
            } else if (del && which == 2) {
                instr_key(w, i);
                etp_jw_uint(w, in->num_outs);
            }
        }
        etp_jw_obj_end(w);
    }
    etp_jw_obj_end(w);
}

/* pickle protocol 2 of an empty dict: the data.pkl of the placeholder
 * torch.save archives below (the side blobs are never parsed by readers). */
static const uint8_t empty_pickle[] = {0x80, 0x02, '}', 'q', 0x00, '.'};

/* Add a STORED entry with the fixed timestamp; @p data (malloc'd) is owned
 * by libzip from here on. */
static int zip_add_entry(zip_t *za, const char *name, void *data, size_t len)
{
    if (len == 0) { /* libzip does not take ownership of empty buffers */
        free(data);
        data = NULL;
    }
    zip_source_t *src = zip_source_buffer(za, data, len, data != NULL);
    if (!src) {
        free(data);
        return -1;
    }
    zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (idx < 0) {
        zip_source_free(src);
        return -1;
    }
    if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) ||
        zip_file_set_dostime(za, (zip_uint64_t)idx, ZIP_DOSTIME, ZIP_DOSDATE, 0))
        return -1;
    return 0;
}

static void *dup_bytes(const void *p, size_t n)
{
    void *d = malloc(n ? n : 1);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

/* A zip archive built in memory. */
typedef struct mem_zip {
    zip_source_t *src;
    zip_t *za;
    zip_error_t ze;
} mem_zip;

static int mem_zip_open(mem_zip *m)
{
    zip_error_init(&m->ze);
    m->za = NULL;
    m->src = zip_source_buffer_create(NULL, 0, 0, &m->ze);
    if (!m->src) {
        zip_error_fini(&m->ze);
        return -1;
    }
    m->za = zip_open_from_source(m->src, ZIP_TRUNCATE, &m->ze);
    if (!m->za) {
        zip_source_free(m->src);
        zip_error_fini(&m->ze);
        return -1;
    }
    zip_source_keep(m->src);
    return 0;
}

/* Close the archive (discard it when @p bad) and return its bytes. */
static void *mem_zip_take(mem_zip *m, int bad, size_t *len)
{
    *len = 0;
    if (bad)
        zip_discard(m->za);
    if (bad || zip_close(m->za)) {
        if (!bad)
            zip_discard(m->za);
        zip_source_free(m->src);
        zip_error_fini(&m->ze);
        return NULL;
    }
    void *out = NULL;
    zip_stat_t sb;
    if (zip_source_stat(m->src, &sb) == 0 && (sb.valid & ZIP_STAT_SIZE) &&
        zip_source_open(m->src) == 0) {
        out = malloc(sb.size ? sb.size : 1);
        if (out && zip_source_read(m->src, out, sb.size) != (zip_int64_t)sb.size) {
            free(out);
            out = NULL;
        }
        zip_source_close(m->src);
        *len = out ? sb.size : 0;
    }
    zip_source_free(m->src);
    zip_error_fini(&m->ze);
    return out;
}

/* A torch.save-shaped inner zip (archive/data.pkl, byteorder, version). */
static void *torch_save_blob(size_t *len)
{
    mem_zip m;
    *len = 0;
    if (mem_zip_open(&m))
        return NULL;
    int bad = zip_add_entry(m.za, "archive/data.pkl", dup_bytes(empty_pickle, sizeof empty_pickle),
                            sizeof empty_pickle) ||
              zip_add_entry(m.za, "archive/byteorder", dup_bytes("little", 6), 6) ||
              zip_add_entry(m.za, "archive/version", dup_bytes("3\n", 2), 2);
    return mem_zip_take(&m, bad, len);
}

etp_status gm_write_etrecord(const gm_program *p, const char *path, uint64_t *bytes,
                             etp_error *err)
{
    /* Built in memory and written with one write(): besides saving system
     * calls, that lets the kernel cache the file in large pages. */
    mem_zip mz;
    if (mem_zip_open(&mz))
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "cannot create zip in memory");
    zip_t *za = mz.za;
    size_t blob_len;
    void *blob = torch_save_blob(&blob_len);
    int bad = !blob || zip_add_entry(za, "ETRECORD_V0", dup_bytes("", 0), 0);
    static const char *const suffixes[] = {"_state_dict", "_constants", "_example_inputs"};
    for (int mi = 0; !bad && mi < p->nmethods; mi++) {
        const gm_method *m = &p->methods[mi];
        char name[256];
        snprintf(name, sizeof name, "edge_dialect_exported_program/%s", m->name);
        etp_jw w;
        etp_jw_init_mem(&w, 0);
        write_edge_program(&w, m);
        size_t len;
        char *json = etp_jw_take(&w, &len);
        bad = !json || zip_add_entry(za, name, json, len);
        for (int k = 0; !bad && k < 3; k++) {
            char side[300];
            snprintf(side, sizeof side, "%s%s", name, suffixes[k]);
            bad = zip_add_entry(za, side, dup_bytes(blob, blob_len), blob_len);
        }
    }
    static const char *const maps[] = {"debug_handle_map", "delegate_map",
                                       "instruction_id_to_num_outs_map"};
    for (int k = 0; !bad && k < 3; k++) {
        etp_jw w;
        etp_jw_init_mem(&w, 0);
        write_map(&w, p, k);
        size_t len;
        char *json = etp_jw_take(&w, &len);
        bad = !json || zip_add_entry(za, maps[k], json, len);
    }
    if (!bad) {
        char id[32];
        int n = snprintf(id, sizeof id, "%lld", (long long)p->export_graph_id);
        bad = zip_add_entry(za, "export_graph_id", dup_bytes(id, (size_t)n), (size_t)n);
    }
    free(blob);
    size_t len = 0;
    void *bytes_out = mem_zip_take(&mz, bad, &len);
    if (!bytes_out)
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot build ETRecord");
    etp_status wrote = gen_write_file(path, bytes_out, len, err);
    free(bytes_out);
    if (wrote)
        return wrote;
    if (bytes)
        *bytes = len;
    return ETP_OK;
}
