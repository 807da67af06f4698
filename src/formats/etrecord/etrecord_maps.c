/* etrecord_maps.c - the method-keyed JSON maps that join runtime
 * instructions to graph nodes: debug_handle_map, delegate_map,
 * instruction_id_to_num_outs_map, plus export_graph_id.
 *
 * Keys are strings in JSON; instruction ids must be canonical non-negative
 * decimals (what Python's str(int) writes) that fit an int32, so every id
 * has one spelling and a method's entries can be sorted and searched. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord/etrecord_internal.h"

#define ETR_MAX_METHODS 4096u

static etp_status not_object(const char *file, const char *entry, const char *what,
                             etp_error *err)
{
    return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "entry '%s': %s is not an object",
                         entry, what);
}

static etp_status nomem(const char *file, const char *entry, etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "entry '%s': out of memory", entry);
}

static etp_method_maps *method_slot(etr_maps *mm, etr_arena *a, const char *method)
{
    for (uint32_t i = 0; i < mm->n; i++)
        if (strcmp(mm->m[i].method, method) == 0)
            return &mm->m[i];
    if (mm->n >= ETR_MAX_METHODS)
        return NULL;
    if (mm->n == mm->cap) {
        uint32_t cap = mm->cap ? mm->cap * 2 : 4;
        etp_method_maps *nm = realloc(mm->m, (size_t)cap * sizeof *nm);
        if (!nm)
            return NULL;
        mm->m = nm;
        mm->cap = cap;
    }
    etp_method_maps *m = &mm->m[mm->n];
    memset(m, 0, sizeof *m);
    m->method = etr_strdup(a, method);
    if (!m->method)
        return NULL;
    mm->n++;
    return m;
}

static etp_status slot_fail(etr_maps *mm, const char *file, const char *entry, etp_error *err)
{
    if (mm->n >= ETR_MAX_METHODS)
        return etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                             "entry '%s': more than %u methods", entry, ETR_MAX_METHODS);
    return nomem(file, entry, err);
}

/* Canonical non-negative int32 decimal: "0" or [1-9][0-9]*. */
static int parse_instr(const char *s, int32_t *out)
{
    int64_t v;
    if (s[0] == '-' || (s[0] == '0' && s[1] != '\0') || etr_parse_int64(s, &v) || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static etp_status bad_instr(const char *file, const char *entry, const char *method,
                            const char *key, etp_error *err)
{
    return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                         "entry '%s': method \"%.64s\": key \"%.64s\" is not a non-negative "
                         "instruction id",
                         entry, method, key);
}

/* An int, a list of ints, or null (no handles). */
static int handle_list(etr_arena *a, json_t *v, etp_handle_list *out)
{
    out->count = 0;
    out->handles = NULL;
    if (json_is_null(v))
        return 0;
    if (json_is_integer(v)) {
        out->handles = etr_alloc(a, sizeof *out->handles);
        if (!out->handles)
            return -2;
        out->handles[0] = (int64_t)json_integer_value(v);
        out->count = 1;
        return 0;
    }
    if (!json_is_array(v))
        return -1;
    size_t n = json_array_size(v);
    if (n > UINT32_MAX)
        return -1;
    if (n == 0)
        return 0;
    out->handles = etr_alloc_array(a, n, sizeof *out->handles);
    if (!out->handles)
        return -2;
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) {
        if (!json_is_integer(item))
            return -1;
        out->handles[i] = (int64_t)json_integer_value(item);
    }
    out->count = (uint32_t)n;
    return 0;
}

static int cmp_instr_handles(const void *x, const void *y)
{
    int32_t a = ((const etp_instr_handles *)x)->instruction_id;
    int32_t b = ((const etp_instr_handles *)y)->instruction_id;
    return (a > b) - (a < b);
}

static int cmp_instr_delegate(const void *x, const void *y)
{
    int32_t a = ((const etp_instr_delegate *)x)->instruction_id;
    int32_t b = ((const etp_instr_delegate *)y)->instruction_id;
    return (a > b) - (a < b);
}

/* {method: {instr: value}} where value is handles (debug_handle_map) or one
 * integer (num_outs). */
static etp_status instr_map(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                            const char *entry, int num_outs, etp_error *err)
{
    if (!json_is_object(doc))
        return not_object(file, entry, "the top level", err);
    const char *method;
    json_t *mv;
    json_object_foreach(doc, method, mv) {
        if (!json_is_object(mv)) {
            char what[96];
            snprintf(what, sizeof what, "method \"%.64s\"", method);
            return not_object(file, entry, what, err);
        }
        etp_method_maps *m = method_slot(mm, a, method);
        if (!m)
            return slot_fail(mm, file, entry, err);
        size_t n = json_object_size(mv);
        etp_instr_handles *list = n ? etr_alloc_array(a, n, sizeof *list) : NULL;
        if (n && !list)
            return nomem(file, entry, err);
        size_t k = 0;
        const char *key;
        json_t *val;
        json_object_foreach(mv, key, val) {
            etp_instr_handles *ih = &list[k++];
            if (parse_instr(key, &ih->instruction_id))
                return bad_instr(file, entry, method, key, err);
            int rc;
            if (num_outs)
                rc = json_is_integer(val) ? handle_list(a, val, &ih->handles) : -1;
            else
                rc = handle_list(a, val, &ih->handles);
            if (rc == -2)
                return nomem(file, entry, err);
            if (rc)
                return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                                     "entry '%s': method \"%.64s\": instruction %s: %s", entry,
                                     method, key,
                                     num_outs ? "value is not an integer"
                                              : "value is not an integer or a list of integers");
        }
        if (n > 1)
            qsort(list, n, sizeof *list, cmp_instr_handles);
        if (num_outs) {
            m->in_num_outs_map = 1;
            m->num_outs = list;
            m->num_outs_count = (uint32_t)n;
        } else {
            m->in_debug_handle_map = 1;
            m->handles = list;
            m->handle_count = (uint32_t)n;
        }
    }
    return ETP_OK;
}

etp_status etr_maps_debug_handles(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                                  const char *entry, etp_error *err)
{
    return instr_map(mm, doc, a, file, entry, 0, err);
}

etp_status etr_maps_num_outs(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                             const char *entry, etp_error *err)
{
    return instr_map(mm, doc, a, file, entry, 1, err);
}

/* {"name": backend, "delegate_map": {delegate_id: handles}} */
static etp_status delegate_entry(etr_arena *a, json_t *val, etp_instr_delegate *d,
                                 const char *file, const char *entry, const char *method,
                                 const char *key, etp_error *err)
{
    if (!json_is_object(val))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': method \"%.64s\": instruction %s: value is not an object",
                             entry, method, key);
    json_t *name = json_object_get(val, "name");
    if (json_is_string(name) && !(d->backend = etr_strdup(a, json_string_value(name))))
        return nomem(file, entry, err);
    json_t *inner = json_object_get(val, "delegate_map");
    if (!inner || json_is_null(inner))
        return ETP_OK;
    if (!json_is_object(inner))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': method \"%.64s\": instruction %s: delegate_map is not an "
                             "object",
                             entry, method, key);
    size_t n = json_object_size(inner);
    if (n == 0)
        return ETP_OK;
    d->ids = etr_alloc_array(a, n, sizeof *d->ids);
    if (!d->ids)
        return nomem(file, entry, err);
    const char *did;
    json_t *hv;
    size_t k = 0;
    json_object_foreach(inner, did, hv) {
        etp_delegate_id_handles *e = &d->ids[k++];
        if (!(e->delegate_id = etr_strdup(a, did)))
            return nomem(file, entry, err);
        int rc = handle_list(a, hv, &e->handles);
        if (rc == -2)
            return nomem(file, entry, err);
        if (rc)
            return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                                 "entry '%s': method \"%.64s\": instruction %s: delegate id "
                                 "\"%.64s\": value is not an integer or a list of integers",
                                 entry, method, key, did);
    }
    d->id_count = (uint32_t)n;
    return ETP_OK;
}

etp_status etr_maps_delegates(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                              const char *entry, etp_error *err)
{
    if (!json_is_object(doc))
        return not_object(file, entry, "the top level", err);
    const char *method;
    json_t *mv;
    json_object_foreach(doc, method, mv) {
        if (!json_is_object(mv)) {
            char what[96];
            snprintf(what, sizeof what, "method \"%.64s\"", method);
            return not_object(file, entry, what, err);
        }
        etp_method_maps *m = method_slot(mm, a, method);
        if (!m)
            return slot_fail(mm, file, entry, err);
        size_t n = json_object_size(mv);
        etp_instr_delegate *list = n ? etr_alloc_array(a, n, sizeof *list) : NULL;
        if (n && !list)
            return nomem(file, entry, err);
        size_t k = 0;
        const char *key;
        json_t *val;
        json_object_foreach(mv, key, val) {
            etp_instr_delegate *d = &list[k++];
            if (parse_instr(key, &d->instruction_id))
                return bad_instr(file, entry, method, key, err);
            etp_status st = delegate_entry(a, val, d, file, entry, method, key, err);
            if (st)
                return st;
        }
        if (n > 1)
            qsort(list, n, sizeof *list, cmp_instr_delegate);
        m->in_delegate_map = 1;
        m->delegates = list;
        m->delegate_count = (uint32_t)n;
    }
    return ETP_OK;
}

etp_status etr_maps_graph_id(json_t *doc, const char *file, const char *entry, int *has,
                             int64_t *id, etp_error *err)
{
    *has = 0;
    *id = 0;
    if (json_is_null(doc))
        return ETP_OK;
    if (!json_is_integer(doc))
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "entry '%s': not a JSON integer", entry);
    *has = 1;
    *id = (int64_t)json_integer_value(doc);
    return ETP_OK;
}

static int cmp_method(const void *x, const void *y)
{
    return strcmp(((const etp_method_maps *)x)->method, ((const etp_method_maps *)y)->method);
}

etp_status etr_maps_finish(etr_maps *mm, etr_arena *a, etp_method_maps **out, uint32_t *count,
                           const char *file, etp_error *err)
{
    *out = NULL;
    *count = 0;
    if (mm->n == 0)
        return ETP_OK;
    etp_method_maps *m = etr_alloc_array(a, mm->n, sizeof *m);
    if (!m)
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "out of memory");
    memcpy(m, mm->m, (size_t)mm->n * sizeof *m);
    qsort(m, mm->n, sizeof *m, cmp_method);
    *out = m;
    *count = mm->n;
    return ETP_OK;
}

void etr_maps_free(etr_maps *mm)
{
    free(mm->m);
    mm->m = NULL;
    mm->n = mm->cap = 0;
}
