/* thread.h - helper threads: started off their creator's CPU, and work
 * shared by claiming items from both ends of a range. */
#ifndef ETP_THREAD_H
#define ETP_THREAD_H

#include <pthread.h>
#include <stdint.h>

/* pthread_create, but the new thread may not run on the CPU the caller is
 * on right now (when the caller may use another one). See thread.c. */
int etp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* Items [lo, hi) not yet claimed. One thread takes them from the front, in
 * order, the other from the back, until they meet: both stay busy however
 * the CPUs are shared, and the front thread's items always precede the
 * back thread's (so "the first failure in order" stays well defined). */
typedef struct etp_claims {
    pthread_mutex_t mu;
    uint32_t lo, hi;
} etp_claims;

/* 0 on success. */
int etp_claims_init(etp_claims *c, uint32_t lo, uint32_t hi);
void etp_claims_fini(etp_claims *c);
/* Claim up to @p max items from the front (@p back 0) or the back; sets
 * [*from, *to) and returns how many (0: none left). */
uint32_t etp_claim(etp_claims *c, int back, uint32_t max, uint32_t *from, uint32_t *to);
/* Leave nothing more to claim (after a failure that comes first). */
void etp_claims_stop(etp_claims *c);

#endif
