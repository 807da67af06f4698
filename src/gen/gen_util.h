/*
 * gen_util.h - small tools shared by the generators: a deterministic PRNG,
 * a string arena and a growable array.
 *
 * Everything `etprof gen` writes is a pure function of its arguments: the
 * PRNG is splitmix64 (no rand(), no time), and timing arithmetic uses only
 * IEEE-754 +, -, *, / (no libm) so results are identical on every host.
 */
#ifndef ETP_GEN_UTIL_H
#define ETP_GEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for jitter. */
typedef struct gen_rng {
    uint64_t s;
} gen_rng;

static inline uint64_t gen_next(gen_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double gen_unif(gen_rng *r) { return (double)(gen_next(r) >> 11) * 0x1.0p-53; }

/* Uniform integer in [lo, hi] (hi >= lo; slight modulo bias is fine here). */
static inline uint64_t gen_range(gen_rng *r, uint64_t lo, uint64_t hi)
{
    return lo + gen_next(r) % (hi - lo + 1);
}

/* Approximately normal N(0, 1): Irwin-Hall sum of 4 uniforms, rescaled. */
static inline double gen_gauss(gen_rng *r)
{
    double s = gen_unif(r) + gen_unif(r) + gen_unif(r) + gen_unif(r);
    return (s - 2.0) * 1.7320508075688772; /* sqrt(12/4) */
}

/* A stream derived from @p seed and a purpose tag (independent sequences). */
static inline gen_rng gen_rng_make(uint64_t seed, uint64_t tag)
{
    gen_rng r = {seed ^ (tag * 0xd1342543de82ef95ull)};
    (void)gen_next(&r);
    return r;
}

/* String arena: many small strings freed at once. */
typedef struct gen_arena {
    struct gen_arena_block *head;
    int failed;
} gen_arena;

void gen_arena_free(gen_arena *a);
/* printf into the arena. */
char *gen_printf(gen_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* @p n zeroed bytes, 8-aligned. */
void *gen_alloc(gen_arena *a, size_t n);

/* Growable array of fixed-size items. */
typedef struct gen_vec {
    void *items;
    size_t len, cap, item_size;
    int failed;
} gen_vec;

void gen_vec_init(gen_vec *v, size_t item_size);
void gen_vec_free(gen_vec *v);
/* Append one zeroed item; returns it, or NULL on allocation failure. */
void *gen_vec_push(gen_vec *v);
/* Append @p n zeroed items; returns the first, or NULL on failure. */
void *gen_vec_extend(gen_vec *v, size_t n);
/* Append @p n items copied from @p src; returns the index of the first. */
size_t gen_vec_append(gen_vec *v, const void *src, size_t n);
#define GEN_AT(v, type, i) (((type *)(v)->items)[i])

/* Write @p n bytes to @p path atomically (util/atomic_file.h: the old file
 * or the whole new one, never a part); errors name @p path. */
etp_status gen_write_file(const char *path, const void *data, size_t n, etp_error *err);

struct fbb;
/* Close one RunData named @p name over the Event tables collected in
 * @p events (fbb_ref items, emptied after) and append it to @p runs. */
void gen_close_run(struct fbb *b, gen_vec *events, gen_vec *runs, const char *name);
/* Finish the ETDump being built in @p b: its root over the RunData tables
 * @p runs (fbb_ref items), size-prefixed with identifier ED00, and write it
 * to @p path; *@p len receives its size. @p failed: an earlier step ran out
 * of memory (then nothing is written). */
etp_status gen_write_etdump(struct fbb *b, const gen_vec *runs, int failed, const char *path, size_t *len,
                            etp_error *err);

#endif
