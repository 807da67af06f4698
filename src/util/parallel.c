/* parallel.c - two-thread split of an index range (see parallel.h). */
#include "util/parallel.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/thread.h"

/* Items per claim: small enough that the two threads finish together when
 * items differ in cost (an instruction with a kernel needs three sorts, a
 * delegate event one), large enough that claiming costs nothing. */
#define CHUNK 256

struct etp_parallel_job {
    etp_range_fn fn;
    void *ctx;
    etp_claims claims;
    atomic_int failed;
    pthread_t th;
    int threaded;
};

/* Claim and run chunks until none are left: the helper from the back, the
 * caller from the front. */
static void run_claims(etp_parallel_job *j, int back)
{
    uint32_t from, to;
    while (etp_claim(&j->claims, back, CHUNK, &from, &to))
        if (j->fn(j->ctx, from, to))
            atomic_store(&j->failed, 1);
}

static void *helper(void *arg)
{
    run_claims(arg, 1);
    return NULL;
}

etp_parallel_job *etp_parallel_begin(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    if (n > UINT32_MAX)
        return NULL;
    etp_parallel_job *j = malloc(sizeof *j);
    if (!j)
        return NULL;
    if (etp_claims_init(&j->claims, 0, (uint32_t)n)) {
        free(j);
        return NULL;
    }
    j->fn = fn;
    j->ctx = ctx;
    atomic_init(&j->failed, 0);
    j->threaded = n >= 2 && n >= min_items && etp_thread_start(&j->th, helper, j) == 0;
    return j;
}

int etp_parallel_end(etp_parallel_job *j)
{
    run_claims(j, 0); /* whatever is left, on this thread too */
    if (j->threaded)
        pthread_join(j->th, NULL);
    int failed = atomic_load(&j->failed);
    etp_claims_fini(&j->claims);
    free(j);
    return failed;
}

int etp_parallel_range(size_t n, size_t min_items, etp_range_fn fn, void *ctx)
{
    etp_parallel_job *j = etp_parallel_begin(n, min_items, fn, ctx);
    return j ? etp_parallel_end(j) : fn(ctx, 0, n);
}
