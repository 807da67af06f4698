/* vec.c - growth policy for VEC(). */
#include "util/vec.h"

#include <stdint.h>

int etp_vec_reserve(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return -1;
        ncap *= 2;
    }
    void *nd = realloc(*data, ncap * elem);
    if (!nd)
        return -1;
    *data = nd;
    *cap = ncap;
    return 0;
}

int etp_vec_reserve_exact(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    if (need > SIZE_MAX / elem)
        return -1;
    void *nd = realloc(*data, need * elem);
    if (!nd)
        return -1;
    *data = nd;
    *cap = need;
    return 0;
}
