/*
 * bundle_sweep.h - removing what killed publications left beside a bundle.
 *
 * A writer holds a lock (flock) on its staging directory from its creation
 * to the swap, and on the old directory it moves aside until it is removed
 * (bundle_stage.c). A process killed with SIGKILL (or a machine that lost
 * power) leaves ".DIR.etprof-staging-*", ".DIR.etprof-old-*" or
 * ".DIR.etprof-init-*" behind with nobody holding its lock; the next
 * publication into DIR removes those, and never one whose lock is held.
 */
#ifndef ETP_BUNDLE_SWEEP_H
#define ETP_BUNDLE_SWEEP_H

/* Remove every sibling of @p leaf in @p parentfd named like a staging,
 * moved-aside or fresh directory of it whose lock can be taken. Best
 * effort: what cannot be removed is left. Returns how many were removed. */
int etp_stage_sweep(int parentfd, const char *leaf);

#endif
