/* parallel.c - two-thread split of an index range (see parallel.h). */
#include "util/parallel.h"

#include <pthread.h>

typedef struct range_job {
    etp_range_fn fn;
    void *ctx;
    size_t lo, hi;
    int rc;
} range_job;

static void *run_job(void *arg)
{
    range_job *j = arg;
    j->rc = j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

int etp_parallel_range(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    if (n < 2 || n < min_items)
        return fn(ctx, 0, n);
    range_job second = {fn, ctx, n / 2, n, 0};
    pthread_t th;
    if (pthread_create(&th, NULL, run_job, &second) != 0)
        return fn(ctx, 0, n);
    int rc = fn(ctx, 0, n / 2);
    pthread_join(th, NULL);
    return rc | second.rc;
}
