/* etrecord.c - open an ETRecord: list and classify the zip's entries, check
 * the marker, parse every program and map entry, and answer lookups. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord/etrecord_internal.h"
#include "util/json_arena.h"

/* The record and the arena that owns everything it points to. The public
 * struct comes first: an etp_etrecord pointer is its box's address. */
typedef struct etr_box {
    etp_etrecord rec;
    etr_arena arena;
} etr_box;

static etr_box *box_of(etp_etrecord *r)
{
    return (etr_box *)(void *)r;
}

etp_status etr_json_load(const etr_squeeze *sq, const char *file, const char *entry,
                         json_t **out, etp_error *err)
{
    json_error_t je;
    memset(&je, 0, sizeof je);
    *out = json_loadb(sq->buf, sq->len, JSON_DECODE_ANY, &je);
    if (*out)
        return ETP_OK;
    uint64_t at = etr_squeeze_raw_offset(sq, je.position > 0 ? (uint64_t)je.position : 0);
    return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                         "entry '%s': invalid JSON near byte %" PRIu64 " of the entry: %s", entry, at,
                         je.text);
}

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Python's zipfile silently lets the last of two same-named entries win; an
 * ETRecord with two debug_handle_maps is ambiguous, so refuse it. */
static etp_status check_duplicates(const etp_etrecord *r, const char *file, etp_error *err)
{
    if (r->entry_count < 2)
        return ETP_OK;
    const char **names = malloc((size_t)r->entry_count * sizeof *names);
    if (!names)
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "out of memory");
    for (uint32_t i = 0; i < r->entry_count; i++)
        names[i] = r->entries[i].name;
    qsort(names, r->entry_count, sizeof *names, cmp_str_ptr);
    etp_status st = ETP_OK;
    for (uint32_t i = 1; i < r->entry_count; i++)
        if (strcmp(names[i - 1], names[i]) == 0) {
            st = etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                               "zip archive has two entries named '%.200s'", names[i]);
            break;
        }
    free(names);
    return st;
}

static int is_program(etp_etrecord_role k)
{
    return k == ETP_ETR_EDGE_PROGRAM || k == ETP_ETR_EXPORTED_PROGRAM ||
           k == ETP_ETR_GRAPH_MAP_PROGRAM;
}

static int is_map(etp_etrecord_role k)
{
    return k == ETP_ETR_DEBUG_HANDLE_MAP || k == ETP_ETR_DELEGATE_MAP ||
           k == ETP_ETR_NUM_OUTS_MAP || k == ETP_ETR_EXPORT_GRAPH_ID;
}

/* Stream entry @p i through the huge-string filter into @p sq. */
static etp_status squeeze_entry(etr_zip *z, uint32_t i, const char *entry, const char *file,
                                uint64_t *budget, etr_squeeze *sq, etp_error *err)
{
    etr_squeeze_init(sq, ETP_ETRECORD_HUGE_STRING, (size_t)ETP_ETRECORD_MAX_ENTRY_TEXT);
    etp_status st =
        etr_zip_read(z, i, entry, sq, ETP_ETRECORD_MAX_ENTRY_SIZE, budget, file, err);
    if (st)
        return st;
    if (etr_squeeze_finish(sq))
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "entry '%s': out of memory",
                             entry);
    return ETP_OK;
}

/* Stream entry @p i through the huge-string filter and parse it. */
static etp_status load_entry(etr_zip *z, uint32_t i, const char *entry, const char *file,
                             uint64_t *budget, etr_squeeze *sq, json_t **doc, etp_error *err)
{
    etp_status st = squeeze_entry(z, i, entry, file, budget, sq, err);
    return st ? st : etr_json_load(sq, file, entry, doc, err);
}

/* ETPROF_NO_FAST_JSON=1 forces the jansson path (to compare the two). */
static int fast_json_enabled(void)
{
    const char *e = getenv("ETPROF_NO_FAST_JSON");
    return !e || !*e || strcmp(e, "0") == 0;
}

/* Decode squeezed program text: the fast scanner first; when it declines,
 * jansson, which also words the error if the text is bad. Only jansson gets
 * the pruned text: the scanner skips the pruned members itself at less cost
 * than cutting them out (it reads none of them either). */
static etp_status decode_program(etr_squeeze *sq, etp_exported_program *p, etr_arena *a,
                                 const char *file, etp_error *err)
{
    etr_fast_status fs =
        fast_json_enabled() ? etr_program_decode_fast(sq->buf, sq->len, p, a, NULL) : ETR_FAST_DECLINE;
    if (fs == ETR_FAST_OK)
        return ETP_OK;
    if (fs == ETR_FAST_NOMEM)
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "entry '%s': out of memory",
                             p->entry);
    /* The fast path leaves p alone when it declines; start clean anyway. */
    p->schema_version = NULL;
    p->node_count = p->input_count = p->output_count = 0;
    p->nodes = NULL;
    p->inputs = p->outputs = NULL;
    p->handled_count = 0;
    p->handles_sorted = NULL;
    p->nodes_by_handle = NULL;
    etr_squeeze_prune(sq);
    json_t *doc = NULL;
    etp_json_arena ja;
    etp_json_arena_begin(&ja);
    etp_status st = etr_json_load(sq, file, p->entry, &doc, err);
    if (!st)
        st = etr_program_decode(doc, p, a, file, err);
    json_decref(doc);
    if (etp_json_arena_end(&ja) && !st)
        st = etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "entry '%s': out of memory",
                           p->entry);
    return st;
}

/* Program entries up to this size are read whole and decoded as they are
 * stored; larger ones (lowered delegate blobs can be hundreds of MB) stream
 * through the huge-string filter, so memory stays bounded. */
#define WHOLE_READ_MAX ((uint64_t)64 << 20)

/* Read and decode program entry @p i. The common case is one copy of the
 * text and one scan of it: read whole, fast decoder. Otherwise, or when the
 * decoder declines, the text is squeezed and decoded as before. */
static etp_status read_program(etr_zip *z, uint32_t i, const etp_zip_entry_info *e,
                               etp_exported_program *p, etr_arena *a, const char *file,
                               uint64_t *budget, etp_error *err)
{
    etr_squeeze sq;
    etp_status st;
    if (fast_json_enabled() && e->size <= WHOLE_READ_MAX) {
        char *text = NULL;
        size_t len = 0;
        st = etr_zip_read_whole(z, i, e->name, ETP_ETRECORD_MAX_ENTRY_SIZE, budget, file, &text,
                                &len, err);
        if (st)
            return st;
        etr_fast_raw raw = {ETP_ETRECORD_HUGE_STRING, 0, 0};
        etr_fast_status fs = etr_program_decode_fast(text, len, p, a, &raw);
        if (fs != ETR_FAST_DECLINE) {
            free(text);
            p->skipped_strings = raw.skipped_strings;
            p->skipped_bytes = raw.skipped_bytes;
            return fs == ETR_FAST_OK ? ETP_OK
                                     : etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET,
                                                     "entry '%s': out of memory", p->entry);
        }
        etr_squeeze_init(&sq, ETP_ETRECORD_HUGE_STRING, (size_t)ETP_ETRECORD_MAX_ENTRY_TEXT);
        etr_squeeze_expect(&sq, len);
        int bad = etr_squeeze_feed(&sq, text, len) || etr_squeeze_finish(&sq);
        free(text);
        st = !bad ? ETP_OK
             : sq.failed == 2
                 ? etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                                 "entry '%s': JSON text over %zu bytes even without huge strings",
                                 e->name, sq.max_len)
                 : etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET,
                                 "entry '%s': out of memory", e->name);
    } else {
        st = squeeze_entry(z, i, e->name, file, budget, &sq, err);
    }
    p->skipped_strings = sq.skipped_strings;
    p->skipped_bytes = sq.skipped_bytes;
    if (!st)
        st = decode_program(&sq, p, a, file, err);
    etr_squeeze_free(&sq);
    return st;
}

static etp_status read_programs(etp_etrecord *r, etr_zip *z, etr_arena *a, uint64_t *budget,
                                etp_error *err)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->entry_count; i++)
        n += is_program(r->entries[i].kind) ? 1 : 0;
    if (n == 0)
        return ETP_OK;
    r->programs = etr_alloc_array(a, n, sizeof *r->programs);
    if (!r->programs)
        return etp_error_set(err, ETP_E_NOMEM, r->path, ETP_NO_OFFSET, "out of memory");
    /* Edge programs first (the Inspector's reference graph), then the rest;
     * entry order within each group. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < r->entry_count; i++) {
            etp_zip_entry_info *e = &r->entries[i];
            if (!is_program(e->kind) || (e->kind == ETP_ETR_EDGE_PROGRAM) != (pass == 0))
                continue;
            etp_exported_program *p = &r->programs[r->program_count];
            const char *method = NULL;
            etr_classify(e->name, &method);
            p->entry = e->name;
            p->method = etr_strdup(a, method ? method : "forward");
            p->kind = e->kind;
            p->is_edge = e->kind == ETP_ETR_EDGE_PROGRAM;
            if (!p->method)
                return etp_error_set(err, ETP_E_NOMEM, r->path, ETP_NO_OFFSET, "out of memory");
            etp_status st = read_program(z, i, e, p, a, r->path, budget, err);
            if (st)
                return st;
            e->parsed = 1;
            r->program_count++;
        }
    }
    return ETP_OK;
}

static etp_status read_maps(etp_etrecord *r, etr_zip *z, etr_arena *a, uint64_t *budget,
                            etp_error *err)
{
    etr_maps mm = {0};
    etp_status st = ETP_OK;
    for (uint32_t i = 0; i < r->entry_count && !st; i++) {
        etp_zip_entry_info *e = &r->entries[i];
        if (!is_map(e->kind))
            continue;
        etr_squeeze sq;
        json_t *doc = NULL;
        etp_json_arena ja;
        etp_json_arena_begin(&ja);
        st = load_entry(z, i, e->name, r->path, budget, &sq, &doc, err);
        etr_squeeze_free(&sq);
        if (st) {
            etp_json_arena_end(&ja);
            break;
        }
        switch (e->kind) {
        case ETP_ETR_DEBUG_HANDLE_MAP:
            st = etr_maps_debug_handles(&mm, doc, a, r->path, e->name, err);
            r->has_debug_handle_map = 1;
            break;
        case ETP_ETR_DELEGATE_MAP:
            st = etr_maps_delegates(&mm, doc, a, r->path, e->name, err);
            r->has_delegate_map = 1;
            break;
        case ETP_ETR_NUM_OUTS_MAP:
            st = etr_maps_num_outs(&mm, doc, a, r->path, e->name, err);
            r->has_num_outs_map = 1;
            break;
        default:
            st = etr_maps_graph_id(doc, r->path, e->name, &r->has_export_graph_id,
                                   &r->export_graph_id, err);
            break;
        }
        json_decref(doc);
        if (etp_json_arena_end(&ja) && !st)
            st = etp_error_set(err, ETP_E_NOMEM, r->path, ETP_NO_OFFSET, "entry '%s': out of memory",
                               e->name);
        e->parsed = 1;
    }
    if (!st)
        st = etr_maps_finish(&mm, a, &r->methods, &r->method_count, r->path, err);
    etr_maps_free(&mm);
    return st;
}

/* @p z is consumed. */
static etp_status read_record(etp_etrecord *r, etr_arena *a, etr_zip *z, etp_error *err)
{
    etp_status st = ETP_OK;
    r->entry_count = etr_zip_count(z);
    if (r->entry_count) {
        r->entries = etr_alloc_array(a, r->entry_count, sizeof *r->entries);
        if (!r->entries) {
            st = etp_error_set(err, ETP_E_NOMEM, r->path, ETP_NO_OFFSET, "out of memory");
            goto done;
        }
    }
    int marker = 0;
    for (uint32_t i = 0; i < r->entry_count; i++) {
        etp_zip_entry_info *e = &r->entries[i];
        if ((st = etr_zip_stat(z, i, e, r->path, err)))
            goto done;
        const char *method;
        e->name = etr_strdup(a, e->name);
        if (!e->name) {
            st = etp_error_set(err, ETP_E_NOMEM, r->path, ETP_NO_OFFSET, "out of memory");
            goto done;
        }
        e->kind = etr_classify(e->name, &method);
        e->role = etr_role_name(e->kind);
        marker |= e->kind == ETP_ETR_MARKER;
    }
    if (!marker) {
        st = etp_error_set(err, ETP_E_FORMAT, r->path, ETP_NO_OFFSET,
                           "not an ETRecord: the zip archive (%u entries) has no ETRECORD_V0 "
                           "marker entry",
                           r->entry_count);
        goto done;
    }
    if ((st = check_duplicates(r, r->path, err)))
        goto done;
    etr_guess_layout(r->entries, r->entry_count, &r->layout, &r->layout_reason);
    uint64_t budget = ETP_ETRECORD_MAX_TOTAL_SIZE;
    if ((st = read_programs(r, z, a, &budget, err)))
        goto done;
    st = read_maps(r, z, a, &budget, err);
done:
    etr_zip_close(z);
    return st;
}

static etp_status new_record(const char *name, uint64_t size, etp_etrecord **out,
                             etp_error *err)
{
    *out = NULL;
    etr_box *box = calloc(1, sizeof *box);
    if (!box)
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    etp_etrecord *r = &box->rec;
    r->file_size = size;
    r->path = etr_strdup(&box->arena, name ? name : "(memory)");
    if (!r->path) {
        etp_etrecord_free(r);
        return etp_error_set(err, ETP_E_NOMEM, name, ETP_NO_OFFSET, "out of memory");
    }
    *out = r;
    return ETP_OK;
}

etp_status etp_etrecord_from_memory(const void *data, size_t size, const char *name,
                                    etp_etrecord **out, etp_error *err)
{
    *out = NULL;
    etp_etrecord *r;
    etp_status st = new_record(name, size, &r, err);
    if (st)
        return st;
    etr_zip *z = NULL;
    st = etr_zip_open(data, size, r->path, &z, err);
    if (!st)
        st = read_record(r, &box_of(r)->arena, z, err);
    if (st) {
        etp_etrecord_free(r);
        return st;
    }
    *out = r;
    return ETP_OK;
}

etp_status etp_etrecord_open(const char *path, etp_etrecord **out, etp_error *err)
{
    *out = NULL;
    etp_etrecord *r;
    etp_status st = new_record(path, 0, &r, err);
    if (st)
        return st;
    etr_zip *z = NULL;
    st = etr_zip_open_path(path, &r->file_size, &z, err);
    if (!st)
        st = read_record(r, &box_of(r)->arena, z, err);
    if (st) {
        etp_etrecord_free(r);
        return st;
    }
    *out = r;
    return ETP_OK;
}

void etp_etrecord_free(etp_etrecord *r)
{
    if (!r)
        return;
    etr_box *box = box_of(r);
    etr_arena_free(&box->arena);
    free(box);
}

/* ---- lookups ------------------------------------------------------------ */

const etp_exported_program *etp_etrecord_edge_program(const etp_etrecord *r, const char *method)
{
    if (!r)
        return NULL;
    if (!method)
        method = "forward";
    for (uint32_t i = 0; i < r->program_count; i++)
        if (r->programs[i].is_edge && strcmp(r->programs[i].method, method) == 0)
            return &r->programs[i];
    return NULL;
}

const etp_exported_program *etp_etrecord_program(const etp_etrecord *r, const char *entry)
{
    if (!r || !entry)
        return NULL;
    for (uint32_t i = 0; i < r->program_count; i++)
        if (strcmp(r->programs[i].entry, entry) == 0)
            return &r->programs[i];
    return NULL;
}

const etp_method_maps *etp_etrecord_maps(const etp_etrecord *r, const char *method)
{
    if (!r)
        return NULL;
    if (!method)
        method = "forward";
    for (uint32_t i = 0; i < r->method_count; i++)
        if (strcmp(r->methods[i].method, method) == 0)
            return &r->methods[i];
    return NULL;
}

/* Index of @p id in a sorted array of structs whose first member is the
 * int32 instruction id, or -1. */
static int64_t find_instr(const void *base, uint32_t n, size_t stride, int32_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int32_t v;
        memcpy(&v, (const char *)base + (size_t)mid * stride, sizeof v);
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n) {
        int32_t v;
        memcpy(&v, (const char *)base + (size_t)lo * stride, sizeof v);
        if (v == id)
            return lo;
    }
    return -1;
}

const etp_handle_list *etp_etrecord_instr_handles(const etp_method_maps *m, int32_t instruction_id)
{
    if (!m)
        return NULL;
    int64_t k = find_instr(m->handles, m->handle_count, sizeof *m->handles, instruction_id);
    return k < 0 ? NULL : &m->handles[k].handles;
}

const etp_instr_delegate *etp_etrecord_instr_delegate(const etp_method_maps *m,
                                                      int32_t instruction_id)
{
    if (!m)
        return NULL;
    int64_t k = find_instr(m->delegates, m->delegate_count, sizeof *m->delegates, instruction_id);
    return k < 0 ? NULL : &m->delegates[k];
}

int etp_etrecord_instr_num_outs(const etp_method_maps *m, int32_t instruction_id,
                                int64_t *num_outs)
{
    if (!m)
        return 0;
    int64_t k = find_instr(m->num_outs, m->num_outs_count, sizeof *m->num_outs, instruction_id);
    if (k < 0 || m->num_outs[k].handles.count == 0)
        return 0;
    if (num_outs)
        *num_outs = m->num_outs[k].handles.handles[0];
    return 1;
}
