/*
 * timeline.h - lay the events of one ETDump run out on viewer tracks.
 *
 * ETDump events arrive in completion order (children before parents) and
 * carry raw tick intervals. This step decides, for one RunData block:
 *   - which track each ProfileEvent goes on: the run's main track, a
 *     "delegate, duration only" track for delegate-internal events whose
 *     times are not on the host clock, or an overlap lane for an event that
 *     would break the nesting of the main track;
 *   - the order in which a viewer must see them to nest them;
 *   - where the untimed debug events sit (the end of their instruction).
 * It knows nothing about JSON; outputs/trace.c writes the result.
 */
#ifndef ETP_TIMELINE_H
#define ETP_TIMELINE_H

#include <stdint.h>

#include "etprof/error.h"
#include "etprof/etdump.h"

/* What an event is, from its name and ids alone. */
typedef enum etp_tl_kind {
    ETP_TL_FRAMEWORK = 0, /* chain -1: Method::execute, Method::init, Program::load_method */
    ETP_TL_INSTRUCTION,   /* OPERATOR_CALL, DELEGATE_CALL, JF_CALL, MOVE_CALL, FREE_CALL */
    ETP_TL_KERNEL,        /* native_call_<op>.<overload> */
    ETP_TL_DELEGATE,      /* delegate-internal (has a delegate id) */
    ETP_TL_OTHER,         /* any other named event at an instruction, or unnamed */
    ETP_TL_DEBUG          /* a debug event (instant) */
} etp_tl_kind;

/* Why a delegate event is on the duration-only track. */
typedef enum etp_tl_reason {
    ETP_TL_ON_HOST_CLOCK = 0,
    ETP_TL_ZERO_START,      /* start_time is 0 (e.g. QNN: start 0, end = duration) */
    ETP_TL_OUTSIDE_CALL,    /* not inside any DELEGATE_CALL of its instruction */
    ETP_TL_OUTSIDE_METHOD,  /* no call event for its instruction, and not inside a
                               framework event (Method::execute, init, load_method) */
    ETP_TL_NO_REFERENCE     /* nothing in the run to check it against */
} etp_tl_reason;

/* Track numbers within a run. */
#define ETP_TL_TRACK_MAIN 0u
#define ETP_TL_TRACK_DELEGATE 1u
/* Overlap lane k (1-based) is track 1 + k. */
#define ETP_TL_MAX_OVERLAP_LANES 32u

typedef struct etp_tl_item {
    uint32_t event;     /* index of the event in its run */
    uint8_t kind;       /* etp_tl_kind */
    uint8_t track;      /* ETP_TL_TRACK_* or 1 + overlap lane */
    uint8_t reason;     /* etp_tl_reason (duration-only track) */
    uint8_t wrapped;    /* the interval crossed a 32-bit tick wraparound */
    uint64_t ts;        /* placed start, in ticks */
    uint64_t dur;       /* duration in ticks (0 for instants) */
} etp_tl_item;

typedef struct etp_timeline {
    /* Slices in emission order: main track, then overlap lanes in order,
     * then the duration-only track, each sorted so that viewers nest them;
     * then the debug instants. */
    etp_tl_item *items;
    size_t count, cap;
    size_t slice_count;       /* items[0 .. slice_count) are slices */
    uint32_t overlap_lanes;   /* overlap lanes used (0 .. ETP_TL_MAX_OVERLAP_LANES) */
    int has_delegate_track;
    uint64_t profile_events, dropped, wrapped, duration_only, overlapped;
    uint64_t debug_events, debug_skipped, allocations, empty;
    void *scratch_;           /* internal, reused across runs */
} etp_timeline;

void etp_timeline_init(etp_timeline *t);
void etp_timeline_free(etp_timeline *t);

/* Classify a ProfileEvent by its name and ids. */
etp_tl_kind etp_tl_classify(const etp_profile_event *pe);

/*
 * Lay out run @p run_index of @p d into @p t (its previous content is
 * replaced). @p with_debug: place debug events as instants (else they are
 * counted as skipped). Errors: an interval that ends before it starts and
 * does not fit a 32-bit wraparound (ETP_E_FORMAT), out of memory.
 */
etp_status etp_timeline_build(etp_timeline *t, const etp_etdump *d, const etp_run *run,
                              uint32_t run_index, int with_debug, etp_error *err);

#endif
