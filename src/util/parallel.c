/* parallel.c - two-thread split of an index range (see parallel.h). */
#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include "util/thread.h"

/* Items per claim: small enough that the two threads finish together when
 * items differ in cost (an instruction with a kernel needs three sorts, a
 * delegate event one), large enough that claiming costs nothing. */
#define CHUNK 256

typedef struct range_job {
    etp_range_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next; /* first item not yet claimed */
    atomic_int failed;
} range_job;

static void *run_job(void *arg)
{
    range_job *j = arg;
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

int etp_parallel_range(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    if (n < 2 || n < min_items)
        return fn(ctx, 0, n);
    range_job job;
    job.fn = fn;
    job.ctx = ctx;
    job.n = n;
    atomic_init(&job.next, 0);
    atomic_init(&job.failed, 0);
    pthread_t th;
    if (etp_thread_start(&th, run_job, &job) != 0)
        return fn(ctx, 0, n);
    run_job(&job);
    pthread_join(th, NULL);
    return atomic_load(&job.failed);
}
