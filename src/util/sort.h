/* sort.h - in-place sort of 64-bit integers (no allocation, no callbacks). */
#ifndef ETP_SORT_H
#define ETP_SORT_H

#include <stddef.h>
#include <stdint.h>

void etp_sort_u64(uint64_t *v, size_t n);
void etp_sort_i64(int64_t *v, size_t n);

#endif
