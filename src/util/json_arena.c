/* json_arena.c - bump allocation for jansson (see json_arena.h). */
#include "util/json_arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* The calling thread's arena, or NULL outside one. */
static _Thread_local etp_json_arena *active;

/* What jansson used before the forwarding pair was installed. */
static void *(*base_malloc)(size_t);
static void (*base_free)(void *);
static pthread_once_t installed = PTHREAD_ONCE_INIT;

typedef struct chunk {
    struct chunk *next;
    max_align_t align_;
} chunk;

static void *arena_malloc(size_t n)
{
    etp_json_arena *a = active;
    if (!a)
        return base_malloc(n);
    n = (n + 15) & ~(size_t)15;
    if (n > a->left) {
        size_t size = a->next_size;
        if (size < n + sizeof(chunk))
            size = n + sizeof(chunk);
        chunk *c = malloc(size);
        if (!c) {
            a->failed = 1;
            return NULL;
        }
        c->next = a->chunks;
        a->chunks = c;
        a->cur = (char *)c + ((sizeof(chunk) + 15) & ~(size_t)15);
        a->left = size - (size_t)(a->cur - (char *)c);
        if (a->next_size < ((size_t)16 << 20))
            a->next_size *= 2;
    }
    void *p = a->cur;
    a->cur += n;
    a->left -= n;
    return p;
}

static void arena_free(void *p)
{
    if (!active)
        base_free(p);
}

static void install(void)
{
    json_get_alloc_funcs(&base_malloc, &base_free);
    json_set_alloc_funcs(arena_malloc, arena_free);
}

void etp_json_arena_begin(etp_json_arena *a)
{
    pthread_once(&installed, install);
    a->chunks = NULL;
    a->cur = NULL;
    a->left = 0;
    a->next_size = (size_t)256 << 10;
    a->failed = 0;
    active = a;
}

int etp_json_arena_end(etp_json_arena *a)
{
    active = NULL;
    chunk *c = a->chunks;
    while (c) {
        chunk *n = c->next;
        free(c);
        c = n;
    }
    a->chunks = NULL;
    return a->failed ? -1 : 0;
}
