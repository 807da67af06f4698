/* thread.c - start a helper thread on another CPU than its creator's.
 *
 * Why: etprof starts a helper only to run beside the thread that starts it,
 * which keeps working. Schedulers place a new thread near its creator and
 * move it only later; on the virtual machines we measured (which pack
 * threads onto few virtual CPUs) the two then took turns on one CPU in
 * 4 ms slices while the other CPU sat idle, for the whole life of the
 * helper. So the helper is kept off the creator's current CPU, within the
 * CPUs the process may use. With one usable CPU, or where this is not
 * supported, it is a plain pthread_create. Results never depend on it. */
#define _GNU_SOURCE
#include "util/thread.h"

#include <sched.h>

int etp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
#if defined(__linux__) && defined(__GLIBC__)
    cpu_set_t allowed;
    int here = sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE &&
        sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_ISSET(here, &allowed) &&
        CPU_COUNT(&allowed) > 1) {
        CPU_CLR(here, &allowed);
        pthread_attr_t attr;
        if (pthread_attr_init(&attr) == 0) {
            int rc = pthread_attr_setaffinity_np(&attr, sizeof allowed, &allowed) == 0
                         ? pthread_create(t, &attr, fn, arg)
                         : -1;
            pthread_attr_destroy(&attr);
            if (rc == 0)
                return 0;
        }
    }
#endif
    return pthread_create(t, NULL, fn, arg);
}
