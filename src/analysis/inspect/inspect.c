/* inspect.c - group ETDump runs into blocks of identical event signatures and
 * keep every sample (see include/etprof/inspect.h for what differs from the
 * Python Inspector). One pass over the events; no per-event allocation. */
#include "etprof/inspect.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/inspect_internal.h"
#include "analysis/inspect/method_match.h"
#include "formats/etdump/etdump_checked.h"
#include "formats/etdump/etdump_internal.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "util/thread.h"

void etp_inspect_options_init(etp_inspect_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_unit = ETP_UNIT_NS;
    o->target_unit = ETP_UNIT_MS;
}

int etp_event_duration(uint64_t start, uint64_t end, uint64_t *ticks)
{
    if (end >= start) {
        *ticks = end - start;
        return 0;
    }
    /* A 32-bit tick counter that wrapped once between start and end. */
    if (start <= UINT32_MAX && end <= UINT32_MAX) {
        *ticks = ((uint64_t)1 << 32) - start + end;
        return 1;
    }
    *ticks = 0;
    return -1;
}

etp_status etp_profile_ticks(const etp_etdump *d, const etp_event *e, uint32_t j, uint32_t block,
                             uint64_t *ticks, int *wrapped, etp_error *err)
{
    const etp_profile_event *pe = &e->profile;
    *wrapped = etp_event_duration(pe->start_time, pe->end_time, ticks);
    if (*wrapped >= 0)
        return ETP_OK;
    return etp_error_set(err, ETP_E_FORMAT, etp_etdump_path(d), e->offset,
                         "event %u of block %u ends before it starts (start %llu, end %llu) and "
                         "the values do not fit a 32-bit counter",
                         j, block, (unsigned long long)pe->start_time,
                         (unsigned long long)pe->end_time);
}

/* An interned event signature. */
typedef struct sig {
    const char *name;
    uint32_t name_len;
    int32_t chain, instr, did_int;
    const char *did_str;
    uint32_t did_len;
    uint64_t hash;
    uint32_t stamp; /* 1 + index of the last run that used it */
    uint32_t pos;   /* its row in that run's block */
    int64_t offset; /* file offset of its first occurrence */
    uint32_t seen;  /* decoding backwards: 1 + the run its offset is from */
} sig;

/* Samples are appended per event in arrival order (one slab per group, no
 * per-row allocation) and regrouped by row once at the end. */
typedef struct group {
    const char *name;
    int32_t bidx;
    uint64_t hash;
    uint32_t *sigs;
    uint32_t nsigs;
    VEC(uint64_t) ev_ticks;     /* every event's duration, runs back to back */
    VEC(uint32_t) ev_rows;      /* its row; not kept while every run is canonical */
    int irregular;              /* some run repeated a signature (rows out of order) */
    VEC(size_t) run_end;        /* per run: end of its events in ev_* */
    VEC(uint32_t) runs;
    uint64_t debug_events, outputs, alloc_events, alloc_bytes, empty_events, wrapped, meta;
} group;

typedef VEC(uint32_t) u32vec;

/* Turns runs into signature ids and durations. Each decoding thread has its
 * own, with its own signature table. */
typedef struct decoder {
    const etp_etdump *d;
    VEC(sig) sigs;
    etp_hm sig_map;
    /* The run just decoded, and the one before (its ids are the hints). */
    u32vec seq, prev_seq;
    VEC(uint64_t) dur;
    int backward; /* runs come last to first: keep each signature's earliest offset */
    etp_event_check *check; /* deferred dump: check each event as it is read */
} decoder;

/* Per-run tallies of the events that carry no timing. */
typedef struct run_tally {
    uint64_t dbg, outs, allocs, abytes, empty, wrapped, meta;
} run_tally;

typedef struct builder {
    decoder dc; /* its signature table is the result's */
    VEC(group) groups;
    etp_hm group_map;
    u32vec distinct;
    int64_t prev_group;
    int threads; /* etp_inspect_options.threads */
} builder;

static uint64_t sig_hash(const etp_profile_event *pe)
{
    uint64_t h = etp_hash_bytes(pe->name ? pe->name : "", pe->name_len, pe->name ? 1 : 0);
    h = etp_hash_u64(h, (uint64_t)(uint32_t)pe->chain_index);
    h = etp_hash_u64(h, (uint64_t)(uint32_t)pe->instruction_id);
    h = etp_hash_u64(h, (uint64_t)(uint32_t)pe->delegate_id_int);
    if (pe->delegate_id_str)
        h = etp_hash_bytes(pe->delegate_id_str, pe->delegate_id_str_len, h);
    return h;
}

/* memcmp(a, b, n) == 0 for the short names events carry, inline: a library
 * call per event costs more than the comparison. Loads stay inside the n
 * bytes (the last word overlaps the one before). */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i])
                return 0;
        return 1;
    }
    uint64_t x, y;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* Whether @p a is the signature with these fields. */
static inline int sig_is(const sig *a, const char *name, uint32_t name_len, int32_t chain,
                         int32_t instr, int32_t did_int, const char *did_str, uint32_t did_len)
{
    return a->chain == chain && a->instr == instr && a->did_int == did_int &&
           a->name_len == name_len && (a->name == NULL) == (name == NULL) &&
           (!a->name || same_bytes(a->name, name, name_len)) &&
           (a->did_str == NULL) == (did_str == NULL) &&
           (!a->did_str || (a->did_len == did_len && same_bytes(a->did_str, did_str, did_len)));
}

static int sig_same(const sig *a, const sig *b)
{
    return sig_is(a, b->name, b->name_len, b->chain, b->instr, b->did_int, b->did_str, b->did_len);
}

/* Find or add the signature of @p pe; -1 on OOM. @p hint is a likely id. */
static int64_t intern_sig(decoder *b, const etp_profile_event *pe, int64_t hint, int64_t offset)
{
    if (hint >= 0 && sig_is(&b->sigs.v[hint], pe->name, pe->name_len, pe->chain_index,
                            pe->instruction_id, pe->delegate_id_int, pe->delegate_id_str,
                            pe->delegate_id_str_len))
        return hint;
    sig s = {pe->name, pe->name_len, pe->chain_index, pe->instruction_id, pe->delegate_id_int,
             pe->delegate_id_str, pe->delegate_id_str_len, 0, 0, 0, offset, 0};
    s.hash = sig_hash(pe);
    size_t cur = 0;
    uint32_t id;
    while (etp_hm_next(&b->sig_map, s.hash, &cur, &id))
        if (sig_same(&b->sigs.v[id], &s))
            return id;
    if (VEC_PUSH(b->sigs, s) || etp_hm_put(&b->sig_map, s.hash, (uint32_t)(b->sigs.n - 1)))
        return -1;
    return (int64_t)(b->sigs.n - 1);
}

static int group_matches(const group *g, const char *name, int32_t bidx, const uint32_t *ds, uint32_t n)
{
    if (g->bidx != bidx || g->nsigs != n)
        return 0;
    if ((g->name == NULL) != (name == NULL) || (name && strcmp(g->name, name)))
        return 0;
    return n == 0 || memcmp(g->sigs, ds, n * sizeof *ds) == 0;
}

static int64_t find_group(builder *b, const char *name, int32_t bidx, int64_t hint)
{
    const uint32_t *ds = b->distinct.v;
    uint32_t n = (uint32_t)b->distinct.n;
    if (hint >= 0 && group_matches(&b->groups.v[hint], name, bidx, ds, n))
        return hint;
    uint64_t h = etp_hash_bytes(name ? name : "", name ? strlen(name) : 0, (uint64_t)(uint32_t)bidx);
    h = etp_hash_bytes(ds, n * sizeof *ds, h);
    size_t cur = 0;
    uint32_t id;
    while (etp_hm_next(&b->group_map, h, &cur, &id))
        if (group_matches(&b->groups.v[id], name, bidx, ds, n))
            return id;
    group g;
    memset(&g, 0, sizeof g);
    g.name = name;
    g.bidx = bidx;
    g.hash = h;
    g.nsigs = n;
    g.sigs = malloc((n ? n : 1) * sizeof *g.sigs);
    if (!g.sigs)
        return -1;
    if (n)
        memcpy(g.sigs, ds, n * sizeof *ds);
    if (VEC_PUSH(b->groups, g)) {
        free(g.sigs);
        return -1;
    }
    if (etp_hm_put(&b->group_map, h, (uint32_t)(b->groups.n - 1)))
        return -1;
    return (int64_t)(b->groups.n - 1);
}

static void free_decoder(decoder *dc)
{
    VEC_FREE(dc->sigs);
    etp_hm_free(&dc->sig_map);
    VEC_FREE(dc->seq);
    VEC_FREE(dc->prev_seq);
    VEC_FREE(dc->dur);
}

static void free_builder(builder *b)
{
    for (size_t i = 0; i < b->groups.n; i++) {
        group *g = &b->groups.v[i];
        free(g->sigs);
        VEC_FREE(g->ev_ticks);
        VEC_FREE(g->ev_rows);
        VEC_FREE(g->run_end);
        VEC_FREE(g->runs);
    }
    VEC_FREE(b->groups);
    etp_hm_free(&b->group_map);
    VEC_FREE(b->distinct);
    free_decoder(&b->dc);
}

static etp_status oom(etp_error *err, const etp_etdump *d)
{
    return etp_error_set(err, ETP_E_NOMEM, etp_etdump_path(d), ETP_NO_OFFSET, "out of memory");
}

/* Decode run @p ri into dc->seq (signature ids) and dc->dur (ticks), after
 * keeping the previous run's ids as hints. */
static etp_status decode_run(decoder *dc, uint32_t ri, const etp_run *run, run_tally *t,
                             etp_error *err)
{
    const etp_etdump *d = dc->d;
    u32vec tmp = dc->seq;
    dc->seq = dc->prev_seq;
    dc->prev_seq = tmp;
    dc->seq.n = dc->dur.n = 0;
    memset(t, 0, sizeof *t);
    /* Room for every event of the run, written in place below. */
    if (VEC_RESERVE(dc->seq, run->event_count) || VEC_RESERVE(dc->dur, run->event_count))
        return oom(err, d);
    uint32_t *seq = dc->seq.v, *prev = dc->prev_seq.v;
    uint64_t *dur = dc->dur.v;
    size_t m = 0, prev_n = dc->prev_seq.n;
    const uint32_t events = etp_etdump_events_at(d, run), count = run->event_count;
    for (uint32_t j = 0; j < count; j++) {
        etp_event e;
        if (!dc->check)
            etp_etdump_event_at(d, events, count, j, &e);
        else if (!etp_event_check_read(dc->check, events, count, j, &e))
            /* the caller verifies the whole file, which words the error */
            return etp_error_set(err, ETP_E_FORMAT, etp_etdump_path(d), ETP_NO_OFFSET,
                                 "event %u of run %u failed its check", j, ri);
        if (!e.kinds)
            t->empty++;
        if (e.kinds & ETP_EV_ALLOCATION) {
            t->allocs++;
            t->abytes += e.allocation.allocation_size;
        }
        if (e.kinds & ETP_EV_DEBUG) {
            t->dbg++;
            t->outs += e.debug.is_output != 0;
        }
        if (!(e.kinds & ETP_EV_PROFILE))
            continue;
        const etp_profile_event *pe = &e.profile;
        uint64_t ticks;
        int w;
        etp_status st = etp_profile_ticks(d, &e, j, ri, &ticks, &w, err);
        if (st)
            return st;
        t->wrapped += (uint64_t)w;
        t->meta += pe->metadata_len != 0;
        int64_t hint = m < prev_n ? (int64_t)prev[m] : -1;
        int64_t id = intern_sig(dc, pe, hint, e.offset);
        if (id < 0)
            return oom(err, d);
        seq[m] = (uint32_t)id;
        dur[m++] = ticks;
        if (dc->backward && dc->sigs.v[id].seen != ri + 1) {
            /* this run comes before every run decoded so far */
            dc->sigs.v[id].seen = ri + 1;
            dc->sigs.v[id].offset = e.offset;
        }
    }
    dc->seq.n = dc->dur.n = m;
    return ETP_OK;
}

/* Assign decoded run @p ri (signature ids @p seq in b's table, @p m events)
 * to its group and append its samples. @p left: events of this run and all
 * later ones (a new group reserves room for them up front). */
static etp_status place_run(builder *b, uint32_t ri, const etp_run *run, const uint32_t *seq,
                            const uint64_t *dur, size_t m, const run_tally *t, uint64_t left,
                            etp_error *err)
{
    const etp_etdump *d = b->dc.d;
    sig *sv = b->dc.sigs.v;
    /* Distinct signatures in first-occurrence order define the group. */
    b->distinct.n = 0;
    for (size_t k = 0; k < m; k++) {
        sig *s = &sv[seq[k]];
        if (s->stamp == ri + 1)
            continue;
        s->stamp = ri + 1;
        s->pos = (uint32_t)b->distinct.n;
        if (VEC_PUSH(b->distinct, seq[k]))
            return oom(err, d);
    }
    int64_t gi = find_group(b, run->name, run->bundled_input_index, b->prev_group);
    if (gi < 0)
        return oom(err, d);
    b->prev_group = gi;
    group *g = &b->groups.v[gi];
    size_t base = g->ev_ticks.n;
    /* The reservation is address space only (pages are touched when
     * written), and it spares the big slabs from repeated realloc copies. */
    if (g->ev_ticks.cap == 0 && b->groups.n <= 16 && left <= ((uint64_t)1 << 28) &&
        VEC_RESERVE(g->ev_ticks, left))
        return oom(err, d);
    if (VEC_PUSH(g->runs, ri) || VEC_RESERVE(g->ev_ticks, base + m))
        return oom(err, d);
    if (m)
        memcpy(g->ev_ticks.v + base, dur, m * sizeof *dur);
    g->ev_ticks.n = base + m;
    /* A canonical run holds each signature once, in the group's order, so
     * an event's row is its index in the run: no need to store it. */
    if (!g->irregular && m != g->nsigs) {
        g->irregular = 1;
        if (VEC_RESERVE(g->ev_rows, base + m))
            return oom(err, d);
        for (size_t x = 0, k = 0; x < g->run_end.n; x++)
            for (size_t first = k; k < g->run_end.v[x]; k++)
                g->ev_rows.v[k] = (uint32_t)(k - first);
    }
    if (g->irregular) {
        if (VEC_RESERVE(g->ev_rows, base + m))
            return oom(err, d);
        for (size_t k = 0; k < m; k++)
            g->ev_rows.v[base + k] = sv[seq[k]].pos;
        g->ev_rows.n = base + m;
    }
    if (VEC_PUSH(g->run_end, base + m))
        return oom(err, d);
    g->debug_events += t->dbg;
    g->outputs += t->outs;
    g->alloc_events += t->allocs;
    g->alloc_bytes += t->abytes;
    g->empty_events += t->empty;
    g->wrapped += t->wrapped;
    g->meta += t->meta;
    return ETP_OK;
}

/* The runs taken from the back, decoded on a second thread into its own
 * signature table; placed in run order afterwards. */
typedef struct half {
    decoder dc;
    etp_claims *claims;
    uint32_t nruns;
    u32vec ids;               /* local signature ids, runs back to back (last run first) */
    VEC(uint64_t) ticks;
    VEC(size_t) end;          /* per decoded run: end of its events in ids/ticks */
    VEC(run_tally) tally;
    etp_status status;
    etp_error err;
} half;

static void *decode_half(void *arg)
{
    half *h = arg;
    h->dc.backward = 1;
    /* Room for every event up front: address space only until written, and
     * growing these by doubling cost more (copies and fresh pages) than the
     * decoding saved. */
    uint64_t total = 0;
    for (uint32_t ri = 0; ri < h->nruns; ri++) {
        etp_run run;
        etp_etdump_run(h->dc.d, ri, &run);
        total += run.event_count;
    }
    if (total > SIZE_MAX / sizeof(uint64_t) || VEC_RESERVE(h->ids, (size_t)total) ||
        VEC_RESERVE(h->ticks, (size_t)total) || VEC_RESERVE(h->end, h->nruns) ||
        VEC_RESERVE(h->tally, h->nruns)) {
        h->status = oom(&h->err, h->dc.d);
        etp_claims_stop(h->claims);
        return NULL;
    }
    uint32_t ri, end;
    while (!h->status && etp_claim(h->claims, 1, 1, &ri, &end)) {
        etp_run run;
        etp_etdump_run(h->dc.d, ri, &run);
        run_tally t = {0};
        if (run.has_events && (h->status = decode_run(&h->dc, ri, &run, &t, &h->err)))
            break;
        if (run.has_events)
            etp_etdump_release_run(h->dc.d, &run);
        size_t m = run.has_events ? h->dc.seq.n : 0;
        if (VEC_RESERVE(h->ids, h->ids.n + m) || VEC_RESERVE(h->ticks, h->ticks.n + m) ||
            VEC_PUSH(h->tally, t)) {
            h->status = oom(&h->err, h->dc.d);
            break;
        }
        if (m) {
            memcpy(h->ids.v + h->ids.n, h->dc.seq.v, m * sizeof *h->ids.v);
            memcpy(h->ticks.v + h->ticks.n, h->dc.dur.v, m * sizeof *h->ticks.v);
        }
        h->ids.n += m;
        h->ticks.n += m;
        if (VEC_PUSH(h->end, h->ids.n))
            h->status = oom(&h->err, h->dc.d);
    }
    /* A failure here is later in file order than anything the other
     * thread still has to do: it finishes the runs before this one. */
    return NULL;
}

static void free_half(half *h)
{
    free_decoder(&h->dc);
    VEC_FREE(h->ids);
    VEC_FREE(h->ticks);
    VEC_FREE(h->end);
    VEC_FREE(h->tally);
}


/* Global id of a signature from the second thread's table (added if new:
 * its first occurrence is then in the later runs, so its offset holds). */
static int64_t adopt_sig(decoder *dc, const sig *s)
{
    size_t cur = 0;
    uint32_t id;
    while (etp_hm_next(&dc->sig_map, s->hash, &cur, &id))
        if (sig_same(&dc->sigs.v[id], s))
            return id;
    sig c = *s;
    c.stamp = c.pos = 0;
    if (VEC_PUSH(dc->sigs, c) || etp_hm_put(&dc->sig_map, c.hash, (uint32_t)(dc->sigs.n - 1)))
        return -1;
    return (int64_t)(dc->sigs.n - 1);
}

/* Whether a second thread should decode: only for large dumps. */
#define PARALLEL_MIN_EVENTS 200000u

static int use_two_threads(const etp_etdump *d, int threads, uint64_t total)
{
    return threads != 1 && etp_etdump_run_count(d) >= 2 &&
           (threads != 0 || total >= PARALLEL_MIN_EVENTS);
}

/* One pass over every run: intern signatures, assign runs to groups, append
 * samples. Large dumps decode their later runs on a second thread; the
 * result is the same as one thread's, errors included (the first bad event
 * in file order is reported). */
static etp_status build_groups(builder *b, etp_inspect *res, etp_error *err)
{
    const etp_etdump *d = b->dc.d;
    uint32_t nruns = etp_etdump_run_count(d);
    b->prev_group = -1;
    uint64_t remaining = 0;
    for (uint32_t ri = 0; ri < nruns; ri++) {
        etp_run run;
        etp_etdump_run(d, ri, &run);
        remaining += run.event_count;
    }
    etp_claims claims;
    if (etp_claims_init(&claims, 0, nruns))
        return oom(err, d);
    half h;
    memset(&h, 0, sizeof h);
    /* A deferred dump: each decoding thread checks the events it reads. */
    etp_event_check main_check, half_check;
    int checking = !etp_etdump_verified(d);
    if (checking) {
        if (etp_event_check_init(&main_check, d) || etp_event_check_init(&half_check, d)) {
            etp_event_check_fini(&main_check);
            etp_claims_fini(&claims);
            return oom(err, d);
        }
        b->dc.check = &main_check;
        h.dc.check = &half_check;
    }
    pthread_t th;
    int threaded = 0;
    if (use_two_threads(d, b->threads, remaining)) {
        h.dc.d = d;
        etp_hm_init(&h.dc.sig_map);
        h.claims = &claims;
        h.nruns = nruns;
        etp_error_clear(&h.err);
        threaded = etp_thread_start(&th, decode_half, &h) == 0;
    }
    /* This thread: runs from the front, placed as they come. */
    etp_status st = ETP_OK;
    uint32_t ri, end;
    while (!st && etp_claim(&claims, 0, 1, &ri, &end)) {
        etp_run run;
        etp_etdump_run(d, ri, &run);
        uint64_t left = remaining;
        remaining -= run.event_count;
        if (!run.has_events) {
            res->runs_without_events++;
            continue;
        }
        run_tally t;
        st = decode_run(&b->dc, ri, &run, &t, err);
        if (!st)
            etp_etdump_release_run(d, &run);
        if (!st)
            st = place_run(b, ri, &run, b->dc.seq.v, b->dc.dur.v, b->dc.seq.n, &t, left, err);
    }
    if (threaded) {
        if (st)
            etp_claims_stop(&claims); /* this failure comes first in file order */
        pthread_join(th, NULL);
    }
    if (!st && threaded && h.status) {
        *err = h.err;
        st = h.status;
    }
    if (!st && threaded) {
        /* Local ids of the second table -> ids of ours, then place in order. */
        uint32_t *map = malloc((h.dc.sigs.n ? h.dc.sigs.n : 1) * sizeof *map);
        if (!map)
            st = oom(err, d);
        for (size_t i = 0; !st && i < h.dc.sigs.n; i++) {
            int64_t id = adopt_sig(&b->dc, &h.dc.sigs.v[i]);
            if (id < 0)
                st = oom(err, d);
            else
                map[i] = (uint32_t)id;
        }
        for (size_t k = 0; !st && k < h.ids.n; k++)
            h.ids.v[k] = map[h.ids.v[k]];
        free(map);
        /* The second thread decoded runs nruns-1 down to claims.hi. */
        for (ri = claims.hi; ri < nruns && !st; ri++) {
            size_t at = nruns - 1 - ri; /* its position in decoding order */
            size_t from = at ? h.end.v[at - 1] : 0, to = h.end.v[at];
            etp_run run;
            etp_etdump_run(d, ri, &run);
            uint64_t left = remaining;
            remaining -= run.event_count;
            if (!run.has_events)
                res->runs_without_events++;
            else
                st = place_run(b, ri, &run, h.ids.v + from, h.ticks.v + from, to - from,
                               &h.tally.v[at], left, err);
        }
    }
    free_half(&h);
    etp_claims_fini(&claims);
    if (checking) {
        etp_event_check_fini(&main_check);
        etp_event_check_fini(&half_check);
        b->dc.check = NULL;
    }
    return st;
}

/* Storage of one block's rows: every row's ticks and per_run point into it. */
typedef struct block_slabs {
    uint64_t *ticks;
    uint32_t *counts;
} block_slabs;

/* What etp_inspect_run() allocates: the public result first (an etp_inspect
 * pointer is its box's address), then what only this file sees. */
typedef struct inspect_box {
    etp_inspect pub;
    block_slabs *slabs;         /* per block */
} inspect_box;

static inspect_box *box_of(etp_inspect *in)
{
    return (inspect_box *)(void *)in;
}

/* Move builder groups into the public result (rows, stats). */
static etp_status publish(builder *b, etp_inspect *res, int row_stats, etp_error *err)
{
    const etp_etdump *d = b->dc.d;
    block_slabs **slabs = &box_of(res)->slabs;
    res->block_count = (uint32_t)b->groups.n;
    res->blocks = calloc(b->groups.n ? b->groups.n : 1, sizeof *res->blocks);
    *slabs = calloc(b->groups.n ? b->groups.n : 1, sizeof **slabs);
    if (!res->blocks || !*slabs) {
        res->block_count = 0;
        return oom(err, d);
    }
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0;
    for (size_t gi = 0; gi < b->groups.n; gi++) {
        group *g = &b->groups.v[gi];
        etp_inspect_block *blk = &res->blocks[gi];
        blk->name = g->name;
        blk->bundled_input_index = g->bidx;
        blk->run_count = (uint32_t)g->runs.n;
        blk->runs = g->runs.v;
        g->runs.v = NULL;
        g->runs.n = g->runs.cap = 0;
        blk->debug_events = g->debug_events;
        blk->program_outputs = g->outputs;
        blk->allocation_events = g->alloc_events;
        blk->allocation_bytes = g->alloc_bytes;
        blk->empty_events = g->empty_events;
        blk->wrapped_intervals = g->wrapped;
        blk->metadata_events = g->meta;
        blk->row_count = g->nsigs;
        blk->rows = calloc(g->nsigs ? g->nsigs : 1, sizeof *blk->rows);
        uint32_t nr = blk->run_count, ns = g->nsigs;
        size_t nev = g->ev_ticks.n;
        /* Regroup the event slab by row: one ticks slab and one per-run
         * count matrix for the whole block (owned by the block). */
        uint64_t *slab = malloc((nev ? nev : 1) * sizeof *slab);
        /* Canonical blocks (each signature once per run) share one array of
         * ones as every row's per_run; only irregular blocks need a matrix. */
        uint32_t *counts = g->irregular ? calloc((size_t)ns * nr + 1, sizeof *counts)
                                        : malloc(((size_t)nr + 1) * sizeof *counts);
        if (!blk->rows || !slab || !counts) {
            free(slab);
            free(counts);
            free(scratch);
            return oom(err, d);
        }
        if (g->irregular) {
            size_t *at = calloc((size_t)ns + 1, sizeof *at);
            uint64_t *total = calloc((size_t)ns + 1, sizeof *total);
            if (!at || !total) {
                free(at);
                free(total);
                free(slab);
                free(counts);
                free(scratch);
                return oom(err, d);
            }
            for (size_t k = 0; k < nev; k++)
                total[g->ev_rows.v[k]]++;
            for (uint32_t r = 1; r <= ns; r++)
                at[r] = at[r - 1] + total[r - 1];
            /* Runs are stored back to back; run_end marks their boundaries. */
            size_t k = 0;
            for (uint32_t x = 0; x < nr; x++) {
                for (size_t run_end = g->run_end.v[x]; k < run_end; k++) {
                    uint32_t row = g->ev_rows.v[k];
                    slab[at[row]++] = g->ev_ticks.v[k];
                    counts[(size_t)row * nr + x]++;
                }
            }
            free(at);
            free(total);
        } else {
            /* The events form an nr x ns matrix (run-major); transpose it to
             * row-major in tiles so both sides stay in cache. */
            const uint64_t *src = g->ev_ticks.v;
            enum { TILE = 32 };
            for (uint32_t x0 = 0; x0 < nr; x0 += TILE)
                for (uint32_t r0 = 0; r0 < ns; r0 += TILE) {
                    uint32_t x1 = x0 + TILE < nr ? x0 + TILE : nr;
                    uint32_t r1 = r0 + TILE < ns ? r0 + TILE : ns;
                    for (uint32_t r = r0; r < r1; r++)
                        for (uint32_t x = x0; x < x1; x++)
                            slab[(size_t)r * nr + x] = src[(size_t)x * ns + r];
                }
            for (uint32_t x = 0; x < nr; x++)
                counts[x] = 1;
        }
        VEC_FREE(g->ev_ticks);
        VEC_FREE(g->ev_rows);
        size_t off = 0;
        for (uint32_t r = 0; r < ns; r++) {
            const sig *s = &b->dc.sigs.v[g->sigs[r]];
            etp_inspect_row *row = &blk->rows[r];
            row->event_name = s->name;
            row->chain_index = s->chain;
            row->instruction_id = s->instr;
            row->delegate_id_int = s->did_int;
            row->delegate_id_str = s->did_str;
            row->is_delegated = s->did_int != -1 || (s->did_str && s->did_len > 0);
            row->is_framework = s->chain == -1;
            row->first_offset = s->offset;
            row->per_run = g->irregular ? counts + (size_t)r * nr : counts;
            row->ticks = slab + off;
            if (!g->irregular) { /* once in every run */
                row->sample_count = nr;
                row->max_per_run = nr ? 1 : 0;
            }
            for (uint32_t x = 0; g->irregular && x < nr; x++) {
                row->sample_count += row->per_run[x];
                if (row->per_run[x] > row->max_per_run)
                    row->max_per_run = row->per_run[x];
            }
            off += row->sample_count;
            if (!row_stats)
                continue;
            if (row->sample_count > scratch_cap) {
                free(scratch);
                scratch_cap = row->sample_count;
                scratch = malloc(scratch_cap * sizeof *scratch);
                if (!scratch) {
                    (*slabs)[gi] = (block_slabs){slab, counts};
                    return oom(err, d);
                }
            }
            memcpy(scratch, row->ticks, row->sample_count * sizeof *scratch);
            etp_stats_from_ticks(scratch, row->sample_count, res->divisor, &row->stats);
        }
        (*slabs)[gi] = (block_slabs){slab, counts};
    }
    free(scratch);
    return ETP_OK;
}

/* Decode every run into @p b's groups (freed by the caller either way). */
static etp_status group_events(const etp_etdump *d, const etp_inspect_options *opt,
                               etp_inspect *res, builder *b, etp_error *err)
{
    memset(b, 0, sizeof *b);
    b->dc.d = d;
    b->threads = opt->threads;
    etp_hm_init(&b->dc.sig_map);
    etp_hm_init(&b->group_map);
    return build_groups(b, res, err);
}

etp_status etp_inspect_run(const etp_etdump *d, const etp_inspect_options *opt, etp_inspect **out,
                           etp_error *err)
{
    *out = NULL;
    etp_inspect_options defaults;
    if (!opt) {
        etp_inspect_options_init(&defaults);
        opt = &defaults;
    }
    etp_status us = etp_units_check(opt->source_unit, opt->target_unit, opt->cpu_hz, err);
    if (us)
        return us;
    double divisor = opt->source_unit == ETP_UNIT_CYCLES && opt->target_unit != ETP_UNIT_CYCLES
                         ? etp_unit_divisor_hz(opt->cpu_hz, opt->target_unit)
                         : etp_unit_divisor(opt->source_unit, opt->target_unit);
    inspect_box *box = calloc(1, sizeof *box);
    if (!box)
        return oom(err, d);
    etp_inspect *res = &box->pub;
    res->source_unit = opt->source_unit;
    res->target_unit = opt->target_unit;
    res->divisor = divisor;
    res->cpu_hz = opt->cpu_hz;

    builder b;
    etp_status s = group_events(d, opt, res, &b, err);
    if (s && !etp_etdump_verified(d)) {
        /* Something in the events did not pass the checks made while
         * decoding: verify the file as an ordinary open does (its error, if
         * any, is the one to report), then decode it the ordinary way. */
        free_builder(&b);
        res->runs_without_events = 0;
        s = etp_etdump_verify(d, err);
        if (!s)
            s = group_events(d, opt, res, &b, err);
    } else if (!s && !etp_etdump_verified(d)) {
        etp_etdump_events_checked(d);
    }
    if (!s)
        s = publish(&b, res, !opt->skip_row_stats, err);
    free_builder(&b);
    for (uint32_t i = 0; !s && i < res->block_count; i++)
        s = etp_inspect_summarize(res, &res->blocks[i], err);
    if (!s)
        s = etp_inspect_attach_program(res, d, opt->program, opt->method, opt->lenient_methods, err);
    if (s) {
        etp_inspect_free(res);
        return s;
    }
    *out = res;
    return ETP_OK;
}

void etp_inspect_free(etp_inspect *in)
{
    if (!in)
        return;
    block_slabs *slabs = box_of(in)->slabs;
    for (uint32_t i = 0; i < in->block_count; i++) {
        etp_inspect_block *blk = &in->blocks[i];
        if (slabs) {
            free(slabs[i].ticks);
            free(slabs[i].counts);
        }
        free(blk->rows);
        free(blk->runs);
        free(blk->candidates);
    }
    free(slabs);
    free(in->blocks);
    free(in);
}
