/* timeline.c - place one run's events on tracks in an order viewers nest
 * (see timeline.h). Everything is O(n log n) in the run's event count, with
 * at most ETP_TL_MAX_OVERLAP_LANES passes for partially overlapping events. */
#include "analysis/inspect/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/inspect_internal.h"
#include "etprof/inspect.h"
#include "util/vec.h"

/* One ProfileEvent of the run, with the keys the layout needs. */
typedef struct tl_ev {
    uint64_t start, end, dur; /* end = start + dur, also across a wraparound */
    uint64_t anchor;          /* duration-only track: where its lay-out starts */
    uint32_t log;             /* index of the event in the run (completion order) */
    int32_t chain, instr;
    uint8_t kind, rank, wrapped, reason, is_execute, lane;
} tl_ev;

typedef struct tl_dbg {
    uint32_t log;
    uint64_t chain;
    int32_t instr;
    int output;
} tl_dbg;

typedef VEC(uint32_t) idxvec;
typedef VEC(uint64_t) u64vec;

typedef struct tl_scratch {
    VEC(tl_ev) ev;
    VEC(tl_dbg) dbg;
    idxvec site_start;  /* instruction events by (chain, instr, start) */
    u64vec site_maxend; /* running max of end within each (chain, instr) group */
    idxvec site_log;    /* instruction, then kernel events by (chain, instr, kind, log) */
    idxvec fw;          /* framework events by start */
    u64vec fw_maxend;   /* running max of end */
    idxvec execs;       /* Method::execute events in log order */
    idxvec host, foreign, tmp;
    u64vec stacks[1 + ETP_TL_MAX_OVERLAP_LANES];
} tl_scratch;

void etp_timeline_init(etp_timeline *t)
{
    memset(t, 0, sizeof *t);
}

void etp_timeline_free(etp_timeline *t)
{
    tl_scratch *s = t->scratch_;
    if (s) {
        VEC_FREE(s->ev);
        VEC_FREE(s->dbg);
        VEC_FREE(s->site_start);
        VEC_FREE(s->site_maxend);
        VEC_FREE(s->site_log);
        VEC_FREE(s->fw);
        VEC_FREE(s->fw_maxend);
        VEC_FREE(s->execs);
        VEC_FREE(s->host);
        VEC_FREE(s->foreign);
        VEC_FREE(s->tmp);
        for (unsigned k = 0; k <= ETP_TL_MAX_OVERLAP_LANES; k++)
            VEC_FREE(s->stacks[k]);
        free(s);
    }
    free(t->items);
    memset(t, 0, sizeof *t);
}

static int name_eq(const etp_profile_event *pe, const char *s)
{
    size_t n = strlen(s);
    return pe->name && pe->name_len == n && !memcmp(pe->name, s, n);
}

static int name_starts(const etp_profile_event *pe, const char *p)
{
    size_t n = strlen(p);
    return pe->name && pe->name_len >= n && !memcmp(pe->name, p, n);
}

etp_tl_kind etp_tl_classify(const etp_profile_event *pe)
{
    if (pe->delegate_id_int != -1 || (pe->delegate_id_str && pe->delegate_id_str_len > 0))
        return ETP_TL_DELEGATE;
    if (!pe->name)
        return ETP_TL_OTHER;
    if (pe->chain_index < 0)
        return ETP_TL_FRAMEWORK;
    if (name_eq(pe, "OPERATOR_CALL") || name_eq(pe, "DELEGATE_CALL") || name_eq(pe, "JF_CALL") ||
        name_eq(pe, "MOVE_CALL") || name_eq(pe, "FREE_CALL"))
        return ETP_TL_INSTRUCTION;
    if (name_starts(pe, "native_call_"))
        return ETP_TL_KERNEL;
    return ETP_TL_OTHER;
}

/* Tie-break for equal intervals: the enclosing scope first. */
static uint8_t rank_of(const etp_profile_event *pe, etp_tl_kind k)
{
    if (name_eq(pe, "Program::load_method") || name_eq(pe, "Method::execute"))
        return 0;
    if (k == ETP_TL_FRAMEWORK || name_starts(pe, "Method::") || name_starts(pe, "Program::"))
        return 1;
    if (k == ETP_TL_INSTRUCTION)
        return 2;
    if (k == ETP_TL_KERNEL || k == ETP_TL_DELEGATE)
        return 3;
    return 4;
}

/* ---- a stable merge sort of index arrays with a context comparator ---- */

typedef int (*cmp_fn)(const tl_ev *a, const tl_ev *b);

static void merge_sort(uint32_t *a, uint32_t *tmp, size_t n, const tl_ev *ev, cmp_fn cmp)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp(&ev[a[j]], &ev[a[i]]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

static int cmp_site(const tl_ev *a, const tl_ev *b)
{
    int c = CMP(a->chain, b->chain);
    return c ? c : CMP(a->instr, b->instr);
}

static int cmp_site_start(const tl_ev *a, const tl_ev *b)
{
    int c = cmp_site(a, b);
    if (!c)
        c = CMP(a->start, b->start);
    return c ? c : CMP(a->log, b->log);
}

static int kind_pref(const tl_ev *e)
{
    return e->kind == ETP_TL_INSTRUCTION ? 0 : 1;
}

static int cmp_site_log(const tl_ev *a, const tl_ev *b)
{
    int c = cmp_site(a, b);
    if (!c)
        c = CMP(kind_pref(a), kind_pref(b));
    return c ? c : CMP(a->log, b->log);
}

static int cmp_start(const tl_ev *a, const tl_ev *b)
{
    int c = CMP(a->start, b->start);
    return c ? c : CMP(a->log, b->log);
}

/* Viewer order: start, longer first, enclosing scope first, then the later
 * logged first (a parent completes after its children). */
static int cmp_view(const tl_ev *a, const tl_ev *b)
{
    int c = CMP(a->start, b->start);
    if (!c)
        c = CMP(b->dur, a->dur);
    if (!c)
        c = CMP(a->rank, b->rank);
    return c ? c : CMP(b->log, a->log);
}

static int cmp_anchor(const tl_ev *a, const tl_ev *b)
{
    int c = CMP(a->anchor, b->anchor);
    return c ? c : CMP(a->log, b->log);
}

/* ---- look-ups ---- */

/* [lo, hi) of the entries of @p a (sorted by site first) at (c, i); with
 * pref >= 0 also restricted to that kind preference. */
static void site_range(const uint32_t *a, size_t n, const tl_ev *ev, int32_t c, int32_t i, int pref,
                       size_t *lo_out, size_t *hi_out)
{
    tl_ev key;
    memset(&key, 0, sizeof key);
    key.chain = c;
    key.instr = i;
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first >= key */
        size_t m = lo + (hi - lo) / 2;
        int r = cmp_site(&ev[a[m]], &key);
        if (!r && pref >= 0)
            r = CMP(kind_pref(&ev[a[m]]), pref);
        if (r < 0)
            lo = m + 1;
        else
            hi = m;
    }
    size_t first = lo;
    hi = n;
    while (lo < hi) { /* first > key */
        size_t m = lo + (hi - lo) / 2;
        int r = cmp_site(&ev[a[m]], &key);
        if (!r && pref >= 0)
            r = CMP(kind_pref(&ev[a[m]]), pref);
        if (r <= 0)
            lo = m + 1;
        else
            hi = m;
    }
    *lo_out = first;
    *hi_out = lo;
}

/* Is [start, end] inside one of the intervals a[lo..hi) (sorted by start,
 * maxend[k] = max end of a[lo..k])? */
static int contained(const uint32_t *a, const uint64_t *maxend, size_t lo, size_t hi,
                     const tl_ev *ev, uint64_t start, uint64_t end)
{
    size_t l = lo, h = hi;
    while (l < h) { /* first with start > @p start */
        size_t m = l + (h - l) / 2;
        if (ev[a[m]].start <= start)
            l = m + 1;
        else
            h = m;
    }
    return l > lo && maxend[l - 1] >= end;
}

/* The instruction (else kernel) event of site (c, i) completed first after
 * log position @p log, else the last one before it; -1 when none. */
static int64_t site_anchor(const tl_scratch *s, int32_t c, int32_t i, uint32_t log, int kernels_too)
{
    const tl_ev *ev = s->ev.v;
    for (int pref = 0; pref <= (kernels_too ? 1 : 0); pref++) {
        size_t lo, hi;
        site_range(s->site_log.v, s->site_log.n, ev, c, i, pref, &lo, &hi);
        if (lo == hi)
            continue;
        size_t l = lo, h = hi;
        while (l < h) { /* first with log > @p log */
            size_t m = l + (h - l) / 2;
            if (ev[s->site_log.v[m]].log <= log)
                l = m + 1;
            else
                h = m;
        }
        return l < hi ? s->site_log.v[l] : s->site_log.v[hi - 1];
    }
    return -1;
}

/* ---- the build ---- */

static etp_status oom(etp_error *err, const etp_etdump *d)
{
    return etp_error_set(err, ETP_E_NOMEM, etp_etdump_path(d), ETP_NO_OFFSET, "out of memory");
}

static int push_item(etp_timeline *t, const etp_tl_item *it)
{
    if (t->count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        etp_tl_item *n = realloc(t->items, ncap * sizeof *n);
        if (!n)
            return -1;
        t->items = n;
        t->cap = ncap;
    }
    t->items[t->count++] = *it;
    return 0;
}

/* Read the run's events into the scratch arrays and count the rest. */
static etp_status collect(etp_timeline *t, tl_scratch *s, const etp_etdump *d, const etp_run *run,
                          uint32_t run_index, int with_debug, etp_error *err)
{
    for (uint32_t j = 0; j < run->event_count; j++) {
        etp_event e;
        etp_etdump_event(d, run, j, &e);
        if (!e.kinds)
            t->empty++;
        if (e.kinds & ETP_EV_ALLOCATION)
            t->allocations++;
        if (e.kinds & ETP_EV_DEBUG) {
            t->debug_events++;
            tl_dbg g = {j, e.debug.chain_index, e.debug.instruction_id, e.debug.is_output};
            if (!with_debug)
                t->debug_skipped++;
            else if (VEC_PUSH(s->dbg, g))
                return oom(err, d);
        }
        if (!(e.kinds & ETP_EV_PROFILE))
            continue;
        const etp_profile_event *pe = &e.profile;
        t->profile_events++;
        tl_ev v;
        memset(&v, 0, sizeof v);
        int w;
        etp_status st = etp_profile_ticks(d, &e, j, run_index, &v.dur, &w, err);
        if (st)
            return st;
        v.start = pe->start_time;
        v.end = v.start + v.dur; /* cannot overflow: a wrapped start is < 2^32 */
        v.wrapped = (uint8_t)w;
        t->wrapped += (uint64_t)w;
        v.log = j;
        v.chain = pe->chain_index;
        v.instr = pe->instruction_id;
        v.kind = (uint8_t)etp_tl_classify(pe);
        v.rank = rank_of(pe, (etp_tl_kind)v.kind);
        v.is_execute = v.kind == ETP_TL_FRAMEWORK && name_eq(pe, "Method::execute");
        if (VEC_PUSH(s->ev, v))
            return oom(err, d);
    }
    return ETP_OK;
}

/* Index arrays for the look-ups. */
static int index_events(tl_scratch *s)
{
    const tl_ev *ev = s->ev.v;
    size_t n = s->ev.n;
    if (VEC_RESERVE(s->tmp, n ? n : 1))
        return -1;
    for (size_t k = 0; k < n; k++) {
        uint32_t id = (uint32_t)k;
        if (ev[k].kind == ETP_TL_INSTRUCTION && VEC_PUSH(s->site_start, id))
            return -1;
        if ((ev[k].kind == ETP_TL_INSTRUCTION || ev[k].kind == ETP_TL_KERNEL) &&
            VEC_PUSH(s->site_log, id))
            return -1;
        if (ev[k].kind == ETP_TL_FRAMEWORK && VEC_PUSH(s->fw, id))
            return -1;
        if (ev[k].is_execute && VEC_PUSH(s->execs, id))
            return -1;
    }
    merge_sort(s->site_start.v, s->tmp.v, s->site_start.n, ev, cmp_site_start);
    merge_sort(s->site_log.v, s->tmp.v, s->site_log.n, ev, cmp_site_log);
    merge_sort(s->fw.v, s->tmp.v, s->fw.n, ev, cmp_start);
    if (VEC_RESERVE(s->site_maxend, s->site_start.n + 1) || VEC_RESERVE(s->fw_maxend, s->fw.n + 1))
        return -1;
    for (size_t k = 0; k < s->site_start.n; k++) {
        const tl_ev *e = &ev[s->site_start.v[k]];
        int same = k > 0 && !cmp_site(&ev[s->site_start.v[k - 1]], e);
        uint64_t m = same && s->site_maxend.v[k - 1] > e->end ? s->site_maxend.v[k - 1] : e->end;
        s->site_maxend.v[k] = m;
    }
    s->site_maxend.n = s->site_start.n;
    for (size_t k = 0; k < s->fw.n; k++) {
        uint64_t e = ev[s->fw.v[k]].end;
        s->fw_maxend.v[k] = k > 0 && s->fw_maxend.v[k - 1] > e ? s->fw_maxend.v[k - 1] : e;
    }
    s->fw_maxend.n = s->fw.n;
    return 0;
}

/* Is delegate event @p e on the host clock? Sets its reason. */
static void judge_delegate(tl_scratch *s, tl_ev *e)
{
    const tl_ev *ev = s->ev.v;
    if (e->start == 0) {
        e->reason = ETP_TL_ZERO_START;
        return;
    }
    if (e->chain >= 0) {
        size_t lo, hi;
        site_range(s->site_start.v, s->site_start.n, ev, e->chain, e->instr, -1, &lo, &hi);
        if (lo < hi) {
            e->reason = contained(s->site_start.v, s->site_maxend.v, lo, hi, ev, e->start, e->end)
                            ? ETP_TL_ON_HOST_CLOCK
                            : ETP_TL_OUTSIDE_CALL;
            return;
        }
    }
    if (s->fw.n == 0) {
        e->reason = ETP_TL_NO_REFERENCE;
        return;
    }
    e->reason = contained(s->fw.v, s->fw_maxend.v, 0, s->fw.n, ev, e->start, e->end)
                    ? ETP_TL_ON_HOST_CLOCK
                    : ETP_TL_OUTSIDE_METHOD;
}

/* Assign host events to the main track or overlap lanes, in viewer order. */
static int place_host(etp_timeline *t, tl_scratch *s)
{
    tl_ev *ev = s->ev.v;
    merge_sort(s->host.v, s->tmp.v, s->host.n, ev, cmp_view);
    for (unsigned k = 0; k <= ETP_TL_MAX_OVERLAP_LANES; k++)
        s->stacks[k].n = 0;
    for (size_t k = 0; k < s->host.n; k++) {
        tl_ev *e = &ev[s->host.v[k]];
        e->lane = 0xff;
        for (unsigned lane = 0; lane <= ETP_TL_MAX_OVERLAP_LANES; lane++) {
            u64vec *st = &s->stacks[lane];
            while (st->n && st->v[st->n - 1] <= e->start)
                st->n--;
            if (st->n == 0 || st->v[st->n - 1] >= e->end) {
                if (VEC_PUSH(*st, e->end))
                    return -1;
                e->lane = (uint8_t)lane;
                if (lane > t->overlap_lanes)
                    t->overlap_lanes = lane;
                break;
            }
        }
        if (e->lane == 0xff)
            t->dropped++;
        else if (e->lane > 0)
            t->overlapped++;
    }
    /* Emit lane by lane, keeping viewer order within each. */
    for (unsigned lane = 0; lane <= t->overlap_lanes; lane++)
        for (size_t k = 0; k < s->host.n; k++) {
            const tl_ev *e = &ev[s->host.v[k]];
            if (e->lane != lane)
                continue;
            etp_tl_item it = {e->log, e->kind, (uint8_t)(lane ? 1 + lane : ETP_TL_TRACK_MAIN),
                              ETP_TL_ON_HOST_CLOCK, e->wrapped, e->start, e->dur};
            if (push_item(t, &it))
                return -1;
        }
    return 0;
}

/* Lay duration-only delegate events end to end from their call's start. */
static int place_foreign(etp_timeline *t, tl_scratch *s)
{
    tl_ev *ev = s->ev.v;
    if (s->foreign.n == 0)
        return 0;
    uint64_t fallback = 0;
    if (s->fw.n)
        fallback = ev[s->fw.v[0]].start;
    else if (s->host.n)
        fallback = ev[s->host.v[0]].start; /* host is in viewer order: earliest first */
    for (size_t k = 0; k < s->foreign.n; k++) {
        tl_ev *e = &ev[s->foreign.v[k]];
        int64_t a = e->chain >= 0 ? site_anchor(s, e->chain, e->instr, e->log, 0) : -1;
        e->anchor = a >= 0 ? ev[a].start : fallback;
    }
    merge_sort(s->foreign.v, s->tmp.v, s->foreign.n, ev, cmp_anchor);
    uint64_t cursor = 0;
    for (size_t k = 0; k < s->foreign.n; k++) {
        const tl_ev *e = &ev[s->foreign.v[k]];
        uint64_t ts = cursor > e->anchor ? cursor : e->anchor;
        if (ts > UINT64_MAX - e->dur) {
            t->dropped++;
            continue;
        }
        cursor = ts + e->dur;
        etp_tl_item it = {e->log, e->kind, ETP_TL_TRACK_DELEGATE, e->reason, e->wrapped, ts, e->dur};
        if (push_item(t, &it))
            return -1;
        t->duration_only++;
        t->has_delegate_track = 1;
    }
    return 0;
}

static int cmp_item_time(const void *a, const void *b)
{
    const etp_tl_item *x = a, *y = b;
    int c = CMP(x->ts, y->ts);
    return c ? c : CMP(x->event, y->event);
}

/* Debug events sit at the end of their instruction (program outputs: at the
 * end of Method::execute). */
static int place_debug(etp_timeline *t, tl_scratch *s)
{
    const tl_ev *ev = s->ev.v;
    size_t first = t->count;
    for (size_t k = 0; k < s->dbg.n; k++) {
        const tl_dbg *g = &s->dbg.v[k];
        int64_t a = -1;
        if (g->output || g->chain > (uint64_t)INT32_MAX) {
            /* The execute completed last before it, else any. */
            for (size_t x = s->execs.n; x-- > 0;)
                if (ev[s->execs.v[x]].log < g->log) {
                    a = s->execs.v[x];
                    break;
                }
            if (a < 0 && s->execs.n)
                a = s->execs.v[0];
        } else {
            a = site_anchor(s, (int32_t)g->chain, g->instr, g->log, 1);
        }
        if (a < 0) {
            t->debug_skipped++;
            continue;
        }
        etp_tl_item it = {g->log, ETP_TL_DEBUG, ETP_TL_TRACK_MAIN, 0, 0, ev[a].end, 0};
        if (push_item(t, &it))
            return -1;
    }
    if (t->count > first)
        qsort(t->items + first, t->count - first, sizeof *t->items, cmp_item_time);
    return 0;
}

etp_status etp_timeline_build(etp_timeline *t, const etp_etdump *d, const etp_run *run,
                              uint32_t run_index, int with_debug, etp_error *err)
{
    tl_scratch *s = t->scratch_;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s)
            return oom(err, d);
        t->scratch_ = s;
    }
    s->ev.n = s->dbg.n = 0;
    s->site_start.n = s->site_maxend.n = s->site_log.n = s->fw.n = s->fw_maxend.n = 0;
    s->execs.n = s->host.n = s->foreign.n = 0;
    t->count = t->slice_count = 0;
    t->overlap_lanes = 0;
    t->has_delegate_track = 0;
    t->profile_events = t->dropped = t->wrapped = t->duration_only = t->overlapped = 0;
    t->debug_events = t->debug_skipped = t->allocations = t->empty = 0;

    etp_status st = collect(t, s, d, run, run_index, with_debug, err);
    if (st)
        return st;
    if (index_events(s))
        return oom(err, d);
    for (size_t k = 0; k < s->ev.n; k++) {
        tl_ev *e = &s->ev.v[k];
        if (e->kind == ETP_TL_DELEGATE)
            judge_delegate(s, e);
        idxvec *dst = e->reason ? &s->foreign : &s->host;
        if (VEC_PUSH(*dst, (uint32_t)k))
            return oom(err, d);
    }
    if (place_host(t, s) || place_foreign(t, s))
        return oom(err, d);
    t->slice_count = t->count;
    if (place_debug(t, s))
        return oom(err, d);
    return ETP_OK;
}
