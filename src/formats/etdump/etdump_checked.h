/* etdump_checked.h - reading the events of a dump opened with
 * etp_etdump_open_deferred(), checking each one as it is read.
 *
 * Opening a large ETDump used to mean two passes over its million events:
 * fb_verify() checked every table, then the decoder read them again. A
 * deferred open verifies everything except the events' own tables, and the
 * first full decode (etp_inspect_run) checks each event here on the way:
 * the usual event (a ProfileEvent and its strings) against the layout of
 * its vtable, checked once per vtable exactly as fb_verify() would; any
 * other event with fb_verify()'s own walk. Whatever this reader does not
 * accept, fb_verify() would not accept either; the caller then verifies the
 * whole file the ordinary way, so errors read the same as before. */
#ifndef ETP_ETDUMP_CHECKED_H
#define ETP_ETDUMP_CHECKED_H

#include "etprof/etdump.h"
#include "formats/flatbuffers/fb_schema.h"

/* Record that every event has been read through etp_event_check_read()
 * (etp_etdump_verified() is 1 from then on). */
void etp_etdump_events_checked(const etp_etdump *d);

/* A checked table layout and what identifies the tables it holds for. */
typedef struct etp_layout_slot {
    uint64_t key; /* vtable position and position mod 8; UINT64_MAX: empty */
    fb_layout l;
} etp_layout_slot;

/* Per-thread state of the checking reader. */
typedef struct etp_event_check {
    const etp_etdump *d;
    const fb_table *event, *profile;
    fb_verifier *v;              /* for events off the usual path */
    uint64_t visits;             /* tables visited by this reader, both ways */
    uint64_t max_visits;         /* fb_verify()'s budget */
    etp_layout_slot ev[2], pe[2]; /* last Event / ProfileEvent layout per 4-byte alignment */
} etp_event_check;

/* 0, or -1 when out of memory. */
int etp_event_check_init(etp_event_check *k, const etp_etdump *d);
void etp_event_check_fini(etp_event_check *k);

/* Check event @p j of the run whose events vector is at @p events (see
 * etp_etdump_events_at(); @p count events) and read it into @p out (as
 * etp_etdump_event() would): 1 when it is fine, 0 when fb_verify() would
 * reject the file. One etp_event_check per thread. */
int etp_event_check_read(etp_event_check *k, uint32_t events, uint32_t count, uint32_t j,
                         etp_event *out);

#endif
