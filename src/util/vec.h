/*
 * vec.h - a growable array for plain structs and scalars.
 *
 *   VEC(uint32_t) v = {0};
 *   if (VEC_PUSH(v, 7)) ...out of memory...
 *   VEC_FREE(v);
 */
#ifndef ETP_VEC_H
#define ETP_VEC_H

#include <stdlib.h>

#define VEC(T)                                                                                 \
    struct {                                                                                   \
        T *v;                                                                                  \
        size_t n, cap;                                                                         \
    }

/* Grow @p vec's storage to hold at least @p need elements; 0 on success. */
int etp_vec_reserve(void **data, size_t *cap, size_t need, size_t elem);

#define VEC_RESERVE(vec, need) etp_vec_reserve((void **)&(vec).v, &(vec).cap, (need), sizeof *(vec).v)
/* Storage for exactly @p need elements when it must grow (not rounded up to
 * a power of two): for a table whose final size is known. 0 on success. */
int etp_vec_reserve_exact(void **data, size_t *cap, size_t need, size_t elem);
#define VEC_RESERVE_EXACT(vec, need)                                                           \
    etp_vec_reserve_exact((void **)&(vec).v, &(vec).cap, (need), sizeof *(vec).v)
/* Append; evaluates to 0 on success, -1 on OOM. */
#define VEC_PUSH(vec, x)                                                                       \
    (((vec).n < (vec).cap || VEC_RESERVE(vec, (vec).n + 1) == 0) ? ((vec).v[(vec).n++] = (x), 0) : -1)
#define VEC_FREE(vec)                                                                          \
    do {                                                                                       \
        free((vec).v);                                                                         \
        (vec).v = NULL;                                                                        \
        (vec).n = (vec).cap = 0;                                                               \
    } while (0)

#endif
