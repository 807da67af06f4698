/*
 * json_arena.h - give jansson a bump allocator for the life of one document.
 *
 * jansson allocates every value, object bucket and string separately; on a
 * large exported-program entry malloc/free dominate the parse. Between
 * etp_json_arena_begin() and etp_json_arena_end() every jansson allocation
 * made by the calling thread comes from large chunks and its free() is a
 * no-op; end() returns the chunks.
 *
 * jansson's allocator functions are process-wide, so the arena does not
 * swap them per document: the first begin() installs, once and for good, a
 * pair that serves the calling thread's arena when it has one and otherwise
 * forwards to the functions installed before (malloc/free unless the
 * program set its own). Other threads' jansson use is therefore unaffected
 * by an arena, before, during and after it. What remains:
 *   - arenas must not nest on one thread;
 *   - no jansson value created inside an arena may outlive end() or be
 *     freed by another thread, and a value created outside one must not be
 *     freed inside one (it would leak);
 *   - a program that calls json_set_alloc_funcs() itself must do so before
 *     the first arena (afterwards it would replace the forwarding pair, and
 *     values made in a running arena would reach its free()).
 */
#ifndef ETP_JSON_ARENA_H
#define ETP_JSON_ARENA_H

#include <stddef.h>

typedef struct etp_json_arena {
    void *chunks;            /* singly linked list of chunks */
    char *cur;
    size_t left;
    size_t next_size;
    int failed;              /* an allocation failed (jansson saw NULL) */
} etp_json_arena;

void etp_json_arena_begin(etp_json_arena *a);
/* Release everything; returns -1 if any allocation failed, else 0. */
int etp_json_arena_end(etp_json_arena *a);

#endif
