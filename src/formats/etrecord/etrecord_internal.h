/*
 * etrecord_internal.h - pieces shared by the ETRecord reader's files:
 *   etrecord_mem.c      arena + growable vectors (everything the record owns)
 *   etrecord_zip.c      libzip container, entry classification, layout guess
 *   etrecord_squeeze.c  streaming copy of JSON text that drops huge strings
 *   etrecord_program.c  exported-program JSON -> nodes (through jansson)
 *   etrecord_fastgraph.c  the same from the JSON text in one pass, no DOM
 *   etrecord_diff.c     field-by-field comparison of two decoded programs
 *   etrecord_maps.c     debug_handle_map, delegate_map, num_outs, graph id
 *   etrecord.c          open/free/lookups, tying the above together
 */
#ifndef ETP_ETRECORD_INTERNAL_H
#define ETP_ETRECORD_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "etprof/etrecord.h"

/* ---- arena: one owner for every string and array of a record ---------- */

typedef struct etr_chunk etr_chunk;
typedef struct etr_arena {
    etr_chunk *head;
    size_t next_cap; /* size of the next shared chunk (0: the smallest) */
} etr_arena;

/* Zeroed, 16-byte aligned memory for @p n bytes; NULL on failure or overflow. */
void *etr_alloc(etr_arena *a, size_t n);
/* Zeroed array of @p count items of @p size bytes (overflow-checked). */
void *etr_alloc_array(etr_arena *a, size_t count, size_t size);
/* Copy of a NUL-terminated string / of @p n bytes plus a NUL. */
char *etr_strdup(etr_arena *a, const char *s);
char *etr_strndup(etr_arena *a, const char *s, size_t n);
void etr_arena_free(etr_arena *a);
/* Ask the kernel for transparent huge pages on [p, p + n) where it can
 * (a hint; nothing happens elsewhere). Large buffers written once pay a page
 * fault per 4 KiB otherwise, which dominates on some virtual machines. */
void etr_hint_huge_pages(void *p, size_t n);

/* A growable list of borrowed pointers (strings), copied into the arena at
 * the end with etr_ptrvec_commit. */
typedef struct etr_ptrvec {
    const void **v;
    uint32_t n, cap;
} etr_ptrvec;

/* Append; -1 on allocation failure or when the list reaches @p max. */
int etr_ptrvec_push(etr_ptrvec *pv, const void *p, uint32_t max);
/* Copy the list into the arena (NULL for an empty list), reset the vector. */
const void **etr_ptrvec_commit(etr_ptrvec *pv, etr_arena *a, uint32_t *count, int *oom);
void etr_ptrvec_free(etr_ptrvec *pv);

/* Strict decimal: optional '-', digits only, no spaces; 0 or -1 if invalid
 * or out of range. */
int etr_parse_int64(const char *s, int64_t *out);

/* ---- squeeze: JSON text without its huge strings --------------------- */

/* Incremental filter: feed raw JSON bytes in chunks; it keeps a copy in
 * which every string token longer than @p threshold raw bytes is replaced
 * by "<etprof: N-byte string skipped>", so the big payload is never held in
 * memory. Positions in the kept text map back to the entry's byte offsets. */
typedef struct etr_squeeze {
    char *buf;                 /* kept text (NUL-terminated after finish) */
    size_t len, cap, max_len;
    size_t threshold;
    uint64_t raw_pos;          /* raw bytes consumed so far */
    int in_string, escape, skipping;
    size_t str_start;          /* index in buf of the current string's '"' */
    uint64_t str_raw_len;      /* raw bytes of the current string so far */
    uint64_t skipped_strings, skipped_bytes;
    /* skip map: after kept position at[i], `removed[i]` raw bytes in total
     * had been dropped */
    uint64_t *map_at, *map_removed;
    size_t map_n, map_cap;
    int failed;                /* 1: out of memory, 2: max_len exceeded */
    uint64_t pruned_bytes;     /* blanked by etr_squeeze_prune() */
} etr_squeeze;

void etr_squeeze_init(etr_squeeze *s, size_t threshold, size_t max_len);
/* Before the first feed: about @p size raw bytes will come (an entry's
 * declared size); reserve room for them in one go (capped; optional). */
void etr_squeeze_expect(etr_squeeze *s, uint64_t size);
/* Feed @p n bytes; 0 on success, -1 if s->failed got set. */
int etr_squeeze_feed(etr_squeeze *s, const char *data, size_t n);
/* NUL-terminate; 0 on success. */
int etr_squeeze_finish(etr_squeeze *s);
/* Raw entry offset of kept-text position @p pos. */
uint64_t etr_squeeze_raw_offset(const etr_squeeze *s, uint64_t pos);
void etr_squeeze_free(etr_squeeze *s);
/* Blank exported-program members etprof never reads (see the .c file). */
void etr_squeeze_prune(etr_squeeze *s);

/* ---- zip container --------------------------------------------------- */

typedef struct etr_zip etr_zip;

/* Open @p size bytes at @p data (borrowed) as a zip; lists and caps entries. */
etp_status etr_zip_open(const void *data, size_t size, const char *file, etr_zip **out,
                        etp_error *err);
/* Open the file at @p path as a zip, read through stdio (never mapped). */
etp_status etr_zip_open_path(const char *path, uint64_t *file_size, etr_zip **out,
                             etp_error *err);
uint32_t etr_zip_count(const etr_zip *z);
/* Fill name/sizes/method of entry @p i (name borrowed from libzip). */
etp_status etr_zip_stat(etr_zip *z, uint32_t i, etp_zip_entry_info *out, const char *file,
                        etp_error *err);
/* Stream entry @p i through @p sq, never beyond @p max_raw bytes or the
 * record's total budget (*budget, decremented). */
etp_status etr_zip_read(etr_zip *z, uint32_t i, const char *entry_name, etr_squeeze *sq,
                        uint64_t max_raw, uint64_t *budget, const char *file, etp_error *err);
/* Entry @p i read whole into *out (malloc'd, NUL-terminated, *len bytes),
 * with the same limits and checks as etr_zip_read. */
etp_status etr_zip_read_whole(etr_zip *z, uint32_t i, const char *entry_name, uint64_t max_raw,
                              uint64_t *budget, const char *file, char **out, size_t *len,
                              etp_error *err);
void etr_zip_close(etr_zip *z);

/* Classify an entry name; sets *method_out (arena-independent pointer into
 * @p name or a literal) for program entries, else NULL. */
etp_etrecord_role etr_classify(const char *name, const char **method_out);
/* Text of a role, e.g. "edge_program". */
const char *etr_role_name(etp_etrecord_role k);
/* Heuristic layout label and reason from the classified entries. */
void etr_guess_layout(const etp_zip_entry_info *entries, uint32_t n, const char **layout,
                      const char **reason);

/* ---- JSON parsing ---------------------------------------------------- */

/* Caps of the exported-program decoders (both paths must agree on them). */
#define ETR_MAX_NODES (16u << 20)
#define ETR_MAX_NAMES_PER_NODE (1u << 20)
#define ETR_MAX_ARG_DEPTH 8

/* Parse squeezed text with jansson; errors name @p entry and the raw byte
 * offset inside it. */
etp_status etr_json_load(const etr_squeeze *sq, const char *file, const char *entry,
                         json_t **out, etp_error *err);

/* Decode an exported-program document into @p p (entry, method, kind set by
 * the caller). Strings are copied into @p a. */
etp_status etr_program_decode(json_t *doc, etp_exported_program *p, etr_arena *a,
                              const char *file, etp_error *err);
/* Build p->handles_sorted / nodes_by_handle (sorted handle -> node pairs). */
etp_status etr_program_index(etp_exported_program *p, etr_arena *a, const char *file,
                             etp_error *err);
/* Name a node that has no "name" of its own: after its first output (old
 * files), else "node_<j>"; nd->name is NULL only when out of memory. */
void etr_name_unnamed_node(etr_arena *a, etp_graph_node *nd, uint32_t j);
/* "aten.convolution.default" style op type of a target string (arena copy). */
const char *etr_op_type(etr_arena *a, const char *target, int *is_delegate_call);
/* Parse nn_module_stack text into frames (outer to inner). */
etp_status etr_parse_module_stack(etr_arena *a, const char *text, etp_module_frame **frames,
                                  uint32_t *count);

/* Fast path for etr_program_decode: one scan of the program's JSON text,
 * no jansson DOM. OK means jansson accepts the text after squeezing and
 * pruning (etr_squeeze_*) and @p p got exactly what etr_json_load +
 * etr_program_decode would then produce (schema_version, nodes, inputs,
 * outputs, handle index; the caller sets the rest). DECLINE means "not
 * sure": anything malformed, unusual or that would be an error; @p p is
 * left untouched (the arena may hold leftovers) and the caller runs the
 * jansson path, which reports the proper error.
 * @p text[len] must be readable and '\0'. With @p raw NULL the text is
 * already squeezed. Otherwise it is the entry as stored: a string over
 * raw->max_string bytes (which squeezing would replace) is declined unless
 * it is a value the decoder skips, where it is counted in raw->skipped_*
 * as squeezing counts it. */
typedef enum etr_fast_status {
    ETR_FAST_OK = 0,
    ETR_FAST_DECLINE,
    ETR_FAST_NOMEM
} etr_fast_status;

typedef struct etr_fast_raw {
    size_t max_string;
    uint64_t skipped_strings, skipped_bytes;
} etr_fast_raw;

etr_fast_status etr_program_decode_fast(const char *text, size_t len, etp_exported_program *p,
                                        etr_arena *a, etr_fast_raw *raw);

/* NULL when the decoded parts of @p x and @p y (schema_version, nodes with
 * every field, inputs, outputs, handle index) are equal; else a
 * description of the first difference, written to @p buf. For the tests
 * and the fuzzer that hold the fast path to its promise. */
const char *etr_program_diff(const etp_exported_program *x, const etp_exported_program *y,
                             char *buf, size_t size);
/* Hold the fast decoder to its promise on @p text (already squeezed when
 * @p raw is NULL, else as stored under the huge-string rule): decode it
 * fast, and @p pruned (the same text squeezed and pruned) with jansson, as
 * the reader does. NULL when the promise holds (a decline that leaves the
 * program alone holds it); else what broke, written to @p buf. *said (if
 * not NULL) gets what the fast path said. */
const char *etr_fast_check(const char *text, size_t len, etr_fast_raw *raw,
                           const etr_squeeze *pruned, etr_fast_status *said, char *buf,
                           size_t size);

/* Builder for the per-method maps. */
typedef struct etr_maps {
    etp_method_maps *m;
    uint32_t n, cap;
} etr_maps;

etp_status etr_maps_debug_handles(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                                  const char *entry, etp_error *err);
etp_status etr_maps_delegates(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                              const char *entry, etp_error *err);
etp_status etr_maps_num_outs(etr_maps *mm, json_t *doc, etr_arena *a, const char *file,
                             const char *entry, etp_error *err);
/* Parse export_graph_id: 1 and *id for an integer, 0 for null. */
etp_status etr_maps_graph_id(json_t *doc, const char *file, const char *entry, int *has,
                             int64_t *id, etp_error *err);
/* Sort methods by name and copy them into the arena. */
etp_status etr_maps_finish(etr_maps *mm, etr_arena *a, etp_method_maps **out, uint32_t *count,
                           const char *file, etp_error *err);
void etr_maps_free(etr_maps *mm);

#endif
