/* me_write.h - write a Model Explorer graph collection with extra graphs of
 * our own (e.g. the ETRecord source graph) in the same "graphs" array. */
#ifndef ETP_ME_WRITE_H
#define ETP_ME_WRITE_H

#include "etprof/mexplorer.h"
#include "util/jsonw.h"

/* As etp_me_write(), calling @p extra (when not NULL) to write more Graph
 * objects after the method graphs and before the delegate placeholders. */
etp_status etp_me_write_extended(const etp_me_collection *c, FILE *fp, int flags,
                                 void (*extra)(etp_jw *w, void *ctx), void *ctx, etp_error *err);

#endif
