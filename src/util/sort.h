/* sort.h - in-place sort of 64-bit integers (no allocation, no callbacks). */
#ifndef ETP_SORT_H
#define ETP_SORT_H

#include <stddef.h>
#include <stdint.h>

void etp_sort_u64(uint64_t *v, size_t n);
void etp_sort_i64(int64_t *v, size_t n);
/* Reorder @p v so v[k] is its k-th smallest value (k < n), with smaller or
 * equal values before it and greater or equal after; returns v[k]. */
uint64_t etp_select_u64(uint64_t *v, size_t n, size_t k);

#endif
