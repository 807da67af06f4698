/* thread.c - helper threads: where they start, and sharing a range.
 *
 * Why start a helper off its creator's CPU: etprof starts a helper only to
 * run beside the thread that starts it, which keeps working. Schedulers
 * place a new thread near its creator and move it only later; on the
 * virtual machines we measured (which pack threads onto few virtual CPUs)
 * the two then took turns on one CPU in 4 ms slices while the other CPU sat
 * idle. So the helper starts with the creator's current CPU excluded (within
 * the CPUs the process may use), and, once running, takes the process's
 * full CPU set back, so the scheduler can still move it later, e.g. onto
 * the creator's CPU when the creator waits. With one usable CPU, or where
 * this is not supported, it is a plain pthread_create. Results never depend
 * on it. */
#define _GNU_SOURCE
#include "util/thread.h"

#include <sched.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)
typedef struct thread_start {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all;
} thread_start;

static void *trampoline(void *p)
{
    thread_start s = *(thread_start *)p;
    free(p);
    (void)pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
    return s.fn(s.arg);
}
#endif

int etp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
#if defined(__linux__) && defined(__GLIBC__)
    cpu_set_t allowed;
    int here = sched_getcpu();
    thread_start *s;
    if (here >= 0 && here < CPU_SETSIZE &&
        sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_ISSET(here, &allowed) &&
        CPU_COUNT(&allowed) > 1 && (s = malloc(sizeof *s)) != NULL) {
        s->fn = fn;
        s->arg = arg;
        s->all = allowed;
        CPU_CLR(here, &allowed);
        pthread_attr_t attr;
        int rc = -1;
        if (pthread_attr_init(&attr) == 0) {
            if (pthread_attr_setaffinity_np(&attr, sizeof allowed, &allowed) == 0)
                rc = pthread_create(t, &attr, trampoline, s);
            pthread_attr_destroy(&attr);
        }
        if (rc == 0)
            return 0;
        free(s);
    }
#endif
    return pthread_create(t, NULL, fn, arg);
}

int etp_claims_init(etp_claims *c, uint32_t lo, uint32_t hi)
{
    c->lo = lo;
    c->hi = hi;
    return pthread_mutex_init(&c->mu, NULL);
}

void etp_claims_fini(etp_claims *c)
{
    pthread_mutex_destroy(&c->mu);
}

uint32_t etp_claim(etp_claims *c, int back, uint32_t max, uint32_t *from, uint32_t *to)
{
    pthread_mutex_lock(&c->mu);
    uint32_t n = c->hi - c->lo < max ? c->hi - c->lo : max;
    if (back) {
        c->hi -= n;
        *from = c->hi;
    } else {
        *from = c->lo;
        c->lo += n;
    }
    *to = *from + n;
    pthread_mutex_unlock(&c->mu);
    return n;
}

void etp_claims_stop(etp_claims *c)
{
    pthread_mutex_lock(&c->mu);
    c->hi = c->lo;
    pthread_mutex_unlock(&c->mu);
}
