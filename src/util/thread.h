/* thread.h - start a helper thread on another CPU than its creator's. */
#ifndef ETP_THREAD_H
#define ETP_THREAD_H

#include <pthread.h>

/* pthread_create, but the new thread may not run on the CPU the caller is
 * on right now (when the caller may use another one). See thread.c. */
int etp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
