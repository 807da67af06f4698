/* parallel.h - split an index range over two threads.
 *
 * For loops whose iterations are independent (per-entity statistics): the
 * main thread and one helper claim chunks of the range (etp_claims) until
 * none are left, so the split follows the work. Below @p min_items, or when a
 * thread cannot be started, everything runs on the caller's thread; results
 * never depend on the split. */
#ifndef ETP_PARALLEL_H
#define ETP_PARALLEL_H

#include <stddef.h>

/* Work on items [lo, hi); return 0, or non-zero to report failure. */
typedef int (*etp_range_fn)(void *ctx, size_t lo, size_t hi);

/* Run @p fn over [0, n) (at most UINT32_MAX items for two threads); returns
 * 0 when every call returned 0. */
int etp_parallel_range(size_t n, size_t min_items, etp_range_fn fn, void *ctx);

/* The same in two steps, so the caller can do other work meanwhile: begin
 * starts the helper on the range (NULL when out of memory, or the range is
 * too long to split: then call @p fn yourself); end makes the
 * caller claim what is left too, waits, and returns what
 * etp_parallel_range would. Between the two, the caller must not touch
 * what @p fn works on. */
typedef struct etp_parallel_job etp_parallel_job;
etp_parallel_job *etp_parallel_begin(size_t n, size_t min_items, etp_range_fn fn, void *ctx);
int etp_parallel_end(etp_parallel_job *job);

#endif
