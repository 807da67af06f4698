/* etdump_internal.h - the ETDump reader's entry points for libetprof's own
 * hot loops (the Inspector's decode), below the public etdump.h.
 *
 * etp_etdump_event() finds the run's events vector through the run's index
 * on every call; a loop over a million events finds it once with
 * etp_etdump_events_at() and reads each event with etp_etdump_event_at(). */
#ifndef ETP_ETDUMP_INTERNAL_H
#define ETP_ETDUMP_INTERNAL_H

#include "etprof/etdump.h"
#include "formats/flatbuffers/fb.h"

/* File position of the events vector of @p run (filled by etp_etdump_run()
 * on @p d), or 0 when the RunData has none. */
uint32_t etp_etdump_events_at(const etp_etdump *d, const etp_run *run);

/* etp_etdump_event() of event @p j (j < @p count) of the events vector at
 * @p events, as returned by etp_etdump_events_at() for a run of @p count
 * events. */
void etp_etdump_event_at(const etp_etdump *d, uint32_t events, uint32_t count, uint32_t j,
                         etp_event *out);

/* Done with run @p run's events: let the pages holding its events vector
 * and event tables leave the resident set (etp_blob_release). Their bytes
 * stay readable; strings other code still points at fault back in. */
void etp_etdump_release_run(const etp_etdump *d, const etp_run *run);

/* The verified FlatBuffer of @p d and its root table (for the schema-driven
 * JSON dump, outputs/dump/). */
const fb_buf *etp_etdump_flatbuffer(const etp_etdump *d, uint32_t *root);

#endif
