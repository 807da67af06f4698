/* parallel.c - two-thread split of an index range (see parallel.h). */
#include "util/parallel.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "util/thread.h"

/* Items per claim: small enough that the two threads finish together when
 * items differ in cost (an instruction with a kernel needs three sorts, a
 * delegate event one), large enough that claiming costs nothing. */
#define CHUNK 256

struct etp_parallel_job {
    etp_range_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next; /* first item not yet claimed */
    atomic_int failed;
    pthread_t th;
    int threaded;
};

static void *run_job(void *arg)
{
    etp_parallel_job *j = arg;
    for (;;) {
        size_t lo = atomic_fetch_add(&j->next, CHUNK);
        if (lo >= j->n)
            break;
        size_t hi = j->n - lo < CHUNK ? j->n : lo + CHUNK;
        if (j->fn(j->ctx, lo, hi))
            atomic_store(&j->failed, 1);
    }
    return NULL;
}

etp_parallel_job *etp_parallel_begin(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    etp_parallel_job *j = malloc(sizeof *j);
    if (!j)
        return NULL;
    j->fn = fn;
    j->ctx = ctx;
    j->n = n;
    atomic_init(&j->next, 0);
    atomic_init(&j->failed, 0);
    j->threaded = n >= 2 && n >= min_items && etp_thread_start(&j->th, run_job, j) == 0;
    return j;
}

int etp_parallel_end(etp_parallel_job *j)
{
    run_job(j); /* whatever is left, on this thread too */
    if (j->threaded)
        pthread_join(j->th, NULL);
    int failed = atomic_load(&j->failed);
    free(j);
    return failed;
}

int etp_parallel_range(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    etp_parallel_job *j = etp_parallel_begin(n, min_items, fn, ctx);
    return j ? etp_parallel_end(j) : fn(ctx, 0, n);
}
