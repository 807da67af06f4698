/*
 * json_arena.h - give jansson a bump allocator for the life of one document.
 *
 * jansson allocates every value, object bucket and string separately; on a
 * large exported-program entry malloc/free dominate the parse. Between
 * etp_json_arena_begin() and etp_json_arena_end() every jansson allocation
 * comes from large chunks and free() is a no-op; end() returns the chunks and
 * restores the previous allocator. jansson documents that allocator
 * functions are process-wide: arenas must not nest or span threads, and no
 * jansson value created inside may outlive end().
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
    void *(*old_malloc)(size_t);
    void (*old_free)(void *);
} etp_json_arena;

void etp_json_arena_begin(etp_json_arena *a);
/* Release everything; returns -1 if any allocation failed, else 0. */
int etp_json_arena_end(etp_json_arena *a);

#endif
