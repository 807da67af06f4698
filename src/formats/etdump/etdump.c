/* etdump.c - ETDump reader: size prefix, ED00 identifier, verified tree. */
#include "etprof/etdump.h"

#include <stdlib.h>

#include "formats/etdump/etdump_checked.h"
#include "formats/etdump/etdump_internal.h"
#include "formats/flatbuffers/fb.h"
#include "formats/flatbuffers/schemas.h"

/* One RunData, read once at open: its vectors' positions (0: absent), so
 * that reading an event needs no lookup in the RunData table, and the
 * header etp_etdump_run() returns, so that listing the runs (counting
 * events, naming blocks) touches none of the file's pages again. */
typedef struct run_vectors {
    uint32_t events, allocators;
    etp_run run;      /* name points into names */
} run_vectors;

struct etp_etdump {
    etp_blob *blob;
    fb_buf b;         /* the whole file, so alignment is file-relative */
    uint32_t root;    /* ETDump table */
    uint32_t runs;    /* run_data vector or 0 */
    uint64_t gen;     /* unique per opened dump: keys the vtable caches */
    int events_deferred; /* opened deferred, events not verified yet */
    run_vectors *vec; /* per RunData: its vectors and header */
    char *names;      /* the runs' names, NUL-separated (owned) */
    uint32_t nruns;   /* run_data's length */
};

static _Atomic uint64_t next_gen = 1;

/* Field offsets of the last vtable seen, per reading thread. A million
 * events share a handful of vtables; every table was verified at open, so
 * a vtable's offsets hold for every table that uses it and need not be
 * looked up field by field again. Keyed by the dump's generation, never by
 * address: a later dump may be mapped where a freed one was. */
#define VT_FIELDS 8
typedef struct vt_cache {
    uint64_t gen;
    uint32_t vt;
    uint16_t off[VT_FIELDS];
} vt_cache;

static _Thread_local vt_cache event_vt, profile_vt;

/* Offsets of fields 0..VT_FIELDS-1 of the (verified) table at @p t. */
static inline const uint16_t *vt_offsets(const etp_etdump *d, vt_cache *c, uint32_t t)
{
    const fb_buf *b = &d->b;
    uint32_t vt = (uint32_t)((int64_t)t - fb_i32(b, t));
    if (c->gen != d->gen || c->vt != vt) {
        uint16_t vtlen = fb_u16(b, vt);
        for (unsigned id = 0; id < VT_FIELDS; id++) {
            unsigned slot = 4u + 2u * id;
            c->off[id] = slot + 2u <= vtlen ? fb_u16(b, vt + slot) : 0;
        }
        c->gen = d->gen;
        c->vt = vt;
    }
    return c->off;
}

/* The schema's RunData.events field, and the tables below it. */
static const fb_field *events_field(void)
{
    return &etp_schema_etdump.fields[ETD_ETDUMP_RUN_DATA].table->fields[ETD_RUN_EVENTS];
}

/* fb_verify() of the whole dump, as etp_etdump_open() runs it. */
static etp_status verify_all(const etp_etdump *d, uint32_t *root, etp_error *err)
{
    return fb_verify(&d->b, 4, &etp_schema_etdump, fb_default_limits(d->b.size), d->blob->path, 0,
                     root, err);
}

static etp_status from_blob(etp_blob *blob, int defer, etp_etdump **out, etp_error *err)
{
    *out = NULL;
    const char *path = blob->path;
    const uint8_t *p = blob->data;
    if (blob->size < 12) {
        etp_status st = etp_error_set(err, ETP_E_TRUNCATED, path, (int64_t)blob->size,
                                      "not an ETDump: %zu bytes is too short for a header",
                                      blob->size);
        etp_blob_free(blob);
        return st;
    }
    if (memcmp(p + 8, "ED00", 4) != 0) {
        etp_status st = etp_error_set(err, ETP_E_FORMAT, path, 8,
                                      "not an ETDump: identifier is not \"ED00\" (size-prefixed)");
        etp_blob_free(blob);
        return st;
    }
    uint32_t prefix;
    memcpy(&prefix, p, 4);
    if ((uint64_t)prefix + 4 > blob->size) {
        etp_status st = etp_error_set(err, ETP_E_TRUNCATED, path, (int64_t)blob->size,
                                      "truncated ETDump: size prefix says %u bytes follow, file has %zu",
                                      prefix, blob->size - 4);
        etp_blob_free(blob);
        return st;
    }
    etp_etdump *d = calloc(1, sizeof *d);
    if (!d) {
        etp_blob_free(blob);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    }
    d->blob = blob;
    d->gen = next_gen++;
    d->b.p = p;
    d->b.size = prefix + 4;
    etp_status st = defer ? fb_verify_deferring(&d->b, 4, &etp_schema_etdump,
                                                fb_default_limits(d->b.size), path, 0,
                                                events_field(), &d->root, err)
                          : verify_all(d, &d->root, err);
    /* A defect outside the events: report the one a full verification
     * meets first (it may be in an event of an earlier run). */
    if (st && defer)
        st = verify_all(d, &d->root, err);
    if (st) {
        etp_etdump_free(d);
        return st;
    }
    d->runs = fb_ref(&d->b, d->root, ETD_ETDUMP_RUN_DATA);
    uint32_t nruns = d->nruns = fb_vec_len(&d->b, d->runs);
    d->vec = malloc((nruns ? nruns : 1) * sizeof *d->vec);
    if (!d->vec) {
        etp_etdump_free(d);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    }
    /* The RunData tables were verified above, deferred or not. */
    size_t names_len = 0;
    for (uint32_t i = 0; i < nruns; i++) {
        const fb_buf *b = &d->b;
        uint32_t t = fb_vec_ref(b, d->runs, i);
        run_vectors *rv = &d->vec[i];
        rv->events = fb_ref(b, t, ETD_RUN_EVENTS);
        rv->allocators = fb_ref(b, t, ETD_RUN_ALLOCATORS);
        rv->run.offset = t;
        rv->run.name = fb_str(b, fb_ref(b, t, ETD_RUN_NAME), NULL);
        rv->run.bundled_input_index = fb_get_i32(b, t, ETD_RUN_BUNDLED_INPUT_INDEX, -1);
        rv->run.index = i;
        rv->run.has_events = rv->events != 0;
        rv->run.allocator_count = fb_vec_len(b, rv->allocators);
        rv->run.event_count = fb_vec_len(b, rv->events);
        if (rv->run.name)
            names_len += strlen(rv->run.name) + 1;
    }
    d->names = malloc(names_len ? names_len : 1);
    if (!d->names) {
        etp_etdump_free(d);
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    }
    char *np = d->names;
    for (uint32_t i = 0; i < nruns; i++) {
        etp_run *r = &d->vec[i].run;
        if (!r->name)
            continue;
        size_t n = strlen(r->name) + 1;
        memcpy(np, r->name, n);
        r->name = np;
        np += n;
    }
    d->events_deferred = defer;
    /* The verification touched the run tables and event vectors, which lie
     * spread over the whole file; on kernels that map a page-cache folio
     * whole on a fault (large folios, Linux 6.x) those few touches make
     * the entire file resident. Drop the mapping's pages now (the page
     * cache keeps them): each run's events come back when decoded and
     * leave again (etp_etdump_release_run). */
    etp_blob_release(blob, 0, blob->size);
    *out = d;
    return ETP_OK;
}

etp_status etp_etdump_from_blob(etp_blob *blob, etp_etdump **out, etp_error *err)
{
    return from_blob(blob, 0, out, err);
}

etp_status etp_etdump_from_blob_deferred(etp_blob *blob, etp_etdump **out, etp_error *err)
{
    return from_blob(blob, 1, out, err);
}

static etp_status open_path(const char *path, int defer, etp_etdump **out, etp_error *err)
{
    etp_blob *blob;
    *out = NULL;
    /* The size prefix is a u32: an ETDump can never exceed 4 GiB + 4. */
    etp_status st = etp_blob_open_streamed(path, (size_t)UINT32_MAX + 4, &blob, err);
    if (st)
        return st;
    return from_blob(blob, defer, out, err);
}

etp_status etp_etdump_open(const char *path, etp_etdump **out, etp_error *err)
{
    return open_path(path, 0, out, err);
}

etp_status etp_etdump_open_deferred(const char *path, etp_etdump **out, etp_error *err)
{
    return open_path(path, 1, out, err);
}

/* ---- events of a deferred dump (etdump_checked.h) ---------------------- */

int etp_etdump_verified(const etp_etdump *d)
{
    return !d->events_deferred;
}

etp_status etp_etdump_verify(const etp_etdump *d, etp_error *err)
{
    if (!d->events_deferred)
        return ETP_OK;
    uint32_t root;
    etp_status st = verify_all(d, &root, err);
    if (!st)
        etp_etdump_events_checked(d);
    return st;
}

void etp_etdump_events_checked(const etp_etdump *d)
{
    /* The flag is the dump's own state, not its contents: every dump is
     * allocated writable (from_blob). */
    ((etp_etdump *)d)->events_deferred = 0;
}

/* An Event is the second level below the root's run_data elements (which
 * fb_verify() visits at depth 1), its ProfileEvent the third. */
#define EVENT_DEPTH 2

int etp_event_check_init(etp_event_check *k, const etp_etdump *d)
{
    memset(k, 0, sizeof *k);
    k->d = d;
    k->event = events_field()->table;
    k->profile = k->event->fields[ETD_EVENT_PROFILE].table;
    fb_limits lim = fb_default_limits(d->b.size);
    k->max_visits = lim.max_visits;
    for (int i = 0; i < 2; i++)
        k->ev[i].key = k->pe[i].key = UINT64_MAX;
    k->v = fb_verifier_new(&d->b, lim, d->blob->path, 0);
    return k->v ? 0 : -1;
}

void etp_event_check_fini(etp_event_check *k)
{
    fb_verifier_free(k->v);
    k->v = NULL;
}

static inline int checked_bytes(const fb_buf *b, uint32_t v)
{
    return v % 4 == 0 && (uint64_t)v + 4 <= b->size && (uint64_t)v + 4 + fb_u32(b, v) <= b->size;
}

/* The layout of the table at @p t, from the cache of its alignment or
 * checked now; NULL where fb_verify() would reject the table. */
static inline const fb_layout *checked_layout(const fb_buf *b, uint32_t t, const fb_table *d,
                                              etp_layout_slot slot[2])
{
    if (t % 4 || (uint64_t)t + 4 > b->size)
        return NULL;
    int64_t svt = (int64_t)t - fb_i32(b, t);
    /* A negative vtable position sets the top bits: it never matches. */
    uint64_t key = (uint64_t)svt ^ ((uint64_t)(t % 8) << 40);
    etp_layout_slot *s = &slot[(t >> 2) & 1];
    if (s->key != key) {
        s->key = UINT64_MAX;
        if (svt < 0 || fb_layout_of(b, t, d, &s->l))
            return NULL;
        s->key = key;
    }
    return (uint64_t)t + s->l.max_end <= b->size ? &s->l : NULL;
}

/* The ProfileEvent referenced at @p fp, checked with its strings and read
 * into @p pe; 0 where fb_verify() would reject it. */
static uint32_t checked_profile(etp_event_check *k, uint32_t fp, etp_profile_event *pe)
{
    const fb_buf *b = &k->d->b;
    uint32_t t = fb_checked_ref(b, fp);
    const fb_layout *l = t ? checked_layout(b, t, k->profile, k->pe) : NULL;
    if (!l)
        return 0;
    const uint16_t *off = l->off;
    uint32_t name = 0, dstr = 0, md = 0;
    if ((off[ETD_PE_NAME] &&
         (!(name = fb_checked_ref(b, t + off[ETD_PE_NAME])) || !fb_checked_string(b, name))) ||
        (off[ETD_PE_DID_STR] &&
         (!(dstr = fb_checked_ref(b, t + off[ETD_PE_DID_STR])) || !fb_checked_string(b, dstr))) ||
        (off[ETD_PE_METADATA] &&
         (!(md = fb_checked_ref(b, t + off[ETD_PE_METADATA])) || !checked_bytes(b, md))))
        return 0;
    pe->name = fb_str(b, name, &pe->name_len);
    pe->chain_index = off[ETD_PE_CHAIN] ? fb_i32(b, t + off[ETD_PE_CHAIN]) : 0;
    pe->instruction_id = off[ETD_PE_INSTR] ? fb_i32(b, t + off[ETD_PE_INSTR]) : -1;
    pe->delegate_id_int = off[ETD_PE_DID_INT] ? fb_i32(b, t + off[ETD_PE_DID_INT]) : -1;
    pe->delegate_id_str = fb_str(b, dstr, &pe->delegate_id_str_len);
    pe->has_metadata = md != 0;
    pe->metadata = md ? fb_vec_data(b, md) : NULL;
    pe->metadata_len = fb_vec_len(b, md);
    pe->start_time = off[ETD_PE_START] ? fb_u64(b, t + off[ETD_PE_START]) : 0;
    pe->end_time = off[ETD_PE_END] ? fb_u64(b, t + off[ETD_PE_END]) : 0;
    return t;
}

int etp_event_check_read(etp_event_check *k, uint32_t events, uint32_t count, uint32_t j,
                         etp_event *out)
{
    const etp_etdump *d = k->d;
    const fb_buf *b = &d->b;
    /* The vector's bounds were verified at open: its elements can be read. */
    uint32_t slot = events + 4 + 4 * j;
    if (j + 16 < count) {
        uint64_t at = (uint64_t)slot + 64 + fb_u32(b, slot + 64);
        if (at < b->size)
            __builtin_prefetch(b->p + at);
    }
    uint32_t e = fb_checked_ref(b, slot);
    if (!e)
        return 0;
    /* The usual event: a ProfileEvent alone (two tables visited). */
    const fb_layout *l = checked_layout(b, e, k->event, k->ev);
    if (l && l->off[ETD_EVENT_PROFILE] && !l->off[ETD_EVENT_ALLOCATION] &&
        !l->off[ETD_EVENT_DEBUG] && (k->visits += 2) <= k->max_visits &&
        checked_profile(k, e + l->off[ETD_EVENT_PROFILE], &out->profile)) {
        out->offset = e;
        out->kinds = ETP_EV_PROFILE;
        return 1;
    }
    /* Anything else: fb_verify()'s own walk of this event (on the same
     * budget as the usual ones), then the reader. */
    fb_verifier_set_visits(k->v, k->visits);
    if (fb_verifier_table(k->v, e, k->event, EVENT_DEPTH, NULL))
        return 0;
    k->visits = fb_verifier_visits(k->v);
    etp_etdump_event_at(d, events, count, j, out);
    return 1;
}

void etp_etdump_free(etp_etdump *d)
{
    if (!d)
        return;
    etp_blob_free(d->blob);
    free(d->vec);
    free(d->names);
    free(d);
}

const char *etp_etdump_path(const etp_etdump *d) { return d->blob->path; }
size_t etp_etdump_size(const etp_etdump *d) { return d->blob->size; }
uint32_t etp_etdump_version(const etp_etdump *d) { return fb_get_u32(&d->b, d->root, ETD_ETDUMP_VERSION, 0); }
uint32_t etp_etdump_run_count(const etp_etdump *d) { return d->nruns; }

void etp_etdump_run(const etp_etdump *d, uint32_t i, etp_run *out)
{
    *out = d->vec[i].run;
}

uint32_t etp_etdump_events_at(const etp_etdump *d, const etp_run *run)
{
    return d->vec[run->index].events;
}

void etp_etdump_release_run(const etp_etdump *d, const etp_run *run)
{
    const fb_buf *b = &d->b;
    uint32_t ev = d->vec[run->index].events, n = run->event_count;
    if (!ev || !n)
        return;
    /* The span from the vector to its farthest table: a writer lays a
     * run's events out together, and anything else inside the span is only
     * faulted back in if it is read again. */
    uint64_t lo = ev, hi = (uint64_t)ev + 4 + 4 * (uint64_t)n;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t t = fb_vec_ref(b, ev, j);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    etp_blob_release(d->blob, (size_t)lo, (size_t)(hi - lo));
}

const char *etp_etdump_allocator_name(const etp_etdump *d, const etp_run *run, uint32_t i)
{
    if (i >= run->allocator_count)
        return NULL;
    uint32_t t = fb_vec_ref(&d->b, d->vec[run->index].allocators, i);
    return fb_str(&d->b, fb_ref(&d->b, t, 0), NULL);
}

static void read_debug(const fb_buf *b, uint32_t t, etp_debug_event *de)
{
    memset(de, 0, sizeof *de);
    de->offset = t;
    de->chain_index = fb_get_u64(b, t, ETD_DE_CHAIN, 0);
    de->instruction_id = fb_get_i32(b, t, ETD_DE_INSTR, -1);
    de->delegate_id_int = fb_get_i32(b, t, ETD_DE_DID_INT, -1);
    de->delegate_id_str = fb_str(b, fb_ref(b, t, ETD_DE_DID_STR), NULL);
    de->name = fb_str(b, fb_ref(b, t, ETD_DE_NAME), NULL);
    uint32_t v = fb_ref(b, t, ETD_DE_ENTRY);
    if (!v)
        return;
    de->has_value = 1;
    de->value_type = (int8_t)fb_get_u8(b, v, ETD_VAL_TYPE, 0);
    uint32_t o = fb_ref(b, v, ETD_VAL_OUTPUT);
    de->is_output = o && fb_get_u8(b, o, 0, 0) != 0;
    uint32_t x;
    if ((x = fb_ref(b, v, ETD_VAL_INT)))
        de->int_value = fb_get_i64(b, x, 0, 0);
    if ((x = fb_ref(b, v, ETD_VAL_BOOL)))
        de->bool_value = fb_get_u8(b, x, 0, 0) != 0;
    if ((x = fb_ref(b, v, ETD_VAL_DOUBLE)))
        de->double_value = fb_get_f64(b, x, 0, 0.0);
    else if ((x = fb_ref(b, v, ETD_VAL_FLOAT))) {
        uint32_t f = fb_field_pos(b, x, 0);
        float fv = 0;
        if (f)
            memcpy(&fv, b->p + f, 4);
        de->double_value = fv;
    }
    if (fb_ref(b, v, ETD_VAL_TENSOR))
        de->tensor_count = 1;
    else if ((x = fb_ref(b, v, ETD_VAL_TENSOR_LIST)))
        de->tensor_count = fb_vec_len(b, fb_ref(b, x, 0));
}

/* A ProfileEvent, its field offsets from the per-thread vtable cache. */
static void read_profile_cached(const etp_etdump *d, uint32_t t, etp_profile_event *pe)
{
    const fb_buf *b = &d->b;
    const uint16_t *off = vt_offsets(d, &profile_vt, t);
#define PE_POS(id) (off[id] ? t + off[id] : 0)
    uint32_t f;
    pe->name = fb_str(b, (f = PE_POS(ETD_PE_NAME)) ? fb_deref(b, f) : 0, &pe->name_len);
    pe->chain_index = (f = PE_POS(ETD_PE_CHAIN)) ? fb_i32(b, f) : 0;
    pe->instruction_id = (f = PE_POS(ETD_PE_INSTR)) ? fb_i32(b, f) : -1;
    pe->delegate_id_int = (f = PE_POS(ETD_PE_DID_INT)) ? fb_i32(b, f) : -1;
    pe->delegate_id_str =
        fb_str(b, (f = PE_POS(ETD_PE_DID_STR)) ? fb_deref(b, f) : 0, &pe->delegate_id_str_len);
    uint32_t md = (f = PE_POS(ETD_PE_METADATA)) ? fb_deref(b, f) : 0;
    pe->has_metadata = md != 0;
    pe->metadata = md ? fb_vec_data(b, md) : NULL;
    pe->metadata_len = fb_vec_len(b, md);
    pe->start_time = (f = PE_POS(ETD_PE_START)) ? fb_u64(b, f) : 0;
    pe->end_time = (f = PE_POS(ETD_PE_END)) ? fb_u64(b, f) : 0;
#undef PE_POS
}

void etp_etdump_event(const etp_etdump *d, const etp_run *run, uint32_t j, etp_event *out)
{
    etp_etdump_event_at(d, d->vec[run->index].events, run->event_count, j, out);
}

void etp_etdump_event_at(const etp_etdump *d, uint32_t events, uint32_t count, uint32_t j,
                         etp_event *out)
{
    const fb_buf *b = &d->b;
    /* Callers walk the events in order, and a writer may lay their tables
     * out in any order: fetch one a little ahead. */
    if (j + 16 < count)
        __builtin_prefetch(b->p + fb_vec_ref(b, events, j + 16));
    uint32_t e = fb_vec_ref(b, events, j);
    const uint16_t *off = vt_offsets(d, &event_vt, e);
    uint32_t pe = off[ETD_EVENT_PROFILE] ? fb_deref(b, e + off[ETD_EVENT_PROFILE]) : 0;
    uint32_t ae = off[ETD_EVENT_ALLOCATION] ? fb_deref(b, e + off[ETD_EVENT_ALLOCATION]) : 0;
    uint32_t de = off[ETD_EVENT_DEBUG] ? fb_deref(b, e + off[ETD_EVENT_DEBUG]) : 0;
    out->offset = e;
    out->kinds = (pe ? ETP_EV_PROFILE : 0) | (ae ? ETP_EV_ALLOCATION : 0) | (de ? ETP_EV_DEBUG : 0);
    if (pe)
        read_profile_cached(d, pe, &out->profile);
    if (ae) {
        out->allocation.allocator_id = fb_get_i32(b, ae, ETD_AE_ALLOCATOR_ID, 0);
        out->allocation.allocation_size = fb_get_u64(b, ae, ETD_AE_SIZE, 0);
    }
    if (de)
        read_debug(b, de, &out->debug);
}

static void read_tensor(const fb_buf *b, uint32_t t, etp_dbg_tensor *out)
{
    out->scalar_type = (int8_t)fb_get_u8(b, t, ETD_TENSOR_SCALAR_TYPE, 0);
    uint32_t s = fb_ref(b, t, ETD_TENSOR_SIZES), st = fb_ref(b, t, ETD_TENSOR_STRIDES);
    out->rank = fb_vec_len(b, s);
    out->sizes = s ? (const int64_t *)(const void *)fb_vec_data(b, s) : NULL;
    out->stride_count = fb_vec_len(b, st);
    out->strides = st ? (const int64_t *)(const void *)fb_vec_data(b, st) : NULL;
    out->offset = fb_get_i64(b, t, ETD_TENSOR_OFFSET, 0);
}

int etp_etdump_debug_tensor(const etp_etdump *d, const etp_debug_event *ev, uint32_t k,
                            etp_dbg_tensor *out)
{
    const fb_buf *b = &d->b;
    if (!ev->has_value || k >= ev->tensor_count)
        return -1;
    uint32_t value = fb_ref(b, ev->offset, ETD_DE_ENTRY);
    uint32_t t = fb_ref(b, value, ETD_VAL_TENSOR);
    if (t) {
        read_tensor(b, t, out);
        return 0;
    }
    uint32_t l = fb_ref(b, value, ETD_VAL_TENSOR_LIST);
    uint32_t v = l ? fb_ref(b, l, 0) : 0;
    if (!v || k >= fb_vec_len(b, v))
        return -1;
    read_tensor(b, fb_vec_ref(b, v, k), out);
    return 0;
}

const fb_buf *etp_etdump_flatbuffer(const etp_etdump *d, uint32_t *root)
{
    *root = d->root;
    return &d->b;
}
