/* trace.c - write an ETDump as Chrome Trace Event JSON (see etprof/trace.h).
 * The method of each block comes from etp_inspect_run(); the placement of
 * each run's events from the timeline step (analysis/timeline.h); this file
 * names things and writes them. */
#include "etprof/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/inspect/timeline.h"
#include "etprof/inspect.h"
#include "outputs/trace/trace_text.h"
#include "util/jsonw.h"

#ifndef ETP_VERSION
#define ETP_VERSION "unknown"
#endif

void etp_trace_options_init(etp_trace_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_unit = ETP_UNIT_NS;
    o->debug_events = 1;
}

/* A process: one method (or "not identified"). */
typedef struct proc {
    const etp_plan *plan;            /* NULL: not identified */
    const etp_inspect_block *block;  /* first block that chose it */
    uint32_t pid;
    int used;
    uint32_t loads, execs, others;   /* per-kind counters for thread names */
    /* Size estimate: the first and last selected execution of the method
     * are written (counted) in full, the others priced per event at their
     * average. */
    uint32_t sample_first, sample_last; /* run indices, UINT32_MAX: none */
    uint64_t sample_bytes, sample_events;
    uint64_t priced_events;          /* events of the executions not sampled */
} proc;

typedef struct writer {
    const etp_etdump *d;
    const etp_trace_options *opt;
    etp_jw *w;
    etp_inspect *in;
    proc *procs;                     /* plan_count + 1 (last: not identified) */
    uint32_t nprocs;
    uint32_t *run_block;             /* run index -> block index, or UINT32_MAX */
    uint32_t *run_exec;              /* run index -> execution number (1-based), or 0 */
    uint32_t next_tid;
    uint32_t exec_first, exec_last;  /* the selection, resolved (1 .. executions) */
    int selected;                    /* a selection was given */
    etp_trace_counts counts;
    etp_timeline tl;
    etp_tt tb;                       /* the object being assembled, reused */
    int counting;                    /* 1: estimate the size, write nothing */
    uint64_t counted;                /* bytes the objects would take (counting) */
    uint64_t events_total, events_done; /* for progress */
} writer;

static const char *base_name(const char *p)
{
    if (!p)
        return NULL;
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Ticks as an exact decimal number of microseconds (or cycles): integer
 * arithmetic only, trailing zeros of the fraction dropped. */
static void put_time(etp_tt *b, etp_unit u, uint64_t ticks)
{
    switch (u) {
    case ETP_UNIT_NS: {
        etp_tt_u64(b, ticks / 1000);
        unsigned frac = (unsigned)(ticks % 1000);
        if (frac) {
            char f[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                         (char)('0' + frac % 10)};
            size_t n = 4;
            while (f[n - 1] == '0')
                n--;
            etp_tt_put(b, f, n);
        }
        break;
    }
    case ETP_UNIT_MS:
        etp_tt_u64(b, ticks);
        if (ticks)
            ETP_TT_LIT(b, "000");
        break;
    case ETP_UNIT_S:
        etp_tt_u64(b, ticks);
        if (ticks)
            ETP_TT_LIT(b, "000000");
        break;
    default: /* us, cycles: one tick is one unit */
        etp_tt_u64(b, ticks);
        break;
    }
}

static const etp_instruction *instr_at(const etp_plan *pl, int32_t c, int32_t i)
{
    if (!pl || c < 0 || (uint32_t)c >= pl->chain_count)
        return NULL;
    const etp_chain *ch = &pl->chains[c];
    if (i < 0 || (uint32_t)i >= ch->instruction_count)
        return NULL;
    return &ch->instructions[i];
}

static const char *operator_of(const etp_plan *pl, const etp_instruction *in)
{
    if (in && in->kind == ETP_INSTR_KERNEL && in->a >= 0 && (uint32_t)in->a < pl->operator_count)
        return pl->operators[in->a].full_name;
    return NULL;
}

static const char *backend_of(const etp_plan *pl, const etp_instruction *in)
{
    if (in && in->kind == ETP_INSTR_DELEGATE && in->a >= 0 && (uint32_t)in->a < pl->delegate_count)
        return pl->delegates[in->a].id;
    return NULL;
}

static const char *reason_text(etp_tl_reason r)
{
    switch (r) {
    case ETP_TL_ZERO_START: return "start_time is 0: the delegate's own time base";
    case ETP_TL_OUTSIDE_CALL: return "not inside its DELEGATE_CALL: another time base";
    case ETP_TL_OUTSIDE_METHOD:
        return "no call event for its instruction, and not inside a framework event";
    case ETP_TL_NO_REFERENCE: return "no host event in its block to check its times against";
    default: return "";
    }
}

static const char *value_type_name(int v)
{
    static const char *const names[] = {"Null",   "Int",    "Bool",       "Float",
                                        "Double", "Tensor", "TensorList", "String"};
    return v >= 0 && v < 8 ? names[v] : "unknown";
}

/* ---- output ---- */

/* Hand the object assembled in wr->tb to the document (or only count it
 * when estimating: its bytes plus the separator and line break). */
static void emit(writer *wr)
{
    if (wr->counting)
        wr->counted += wr->tb.len + 2;
    else {
        etp_jw_break(wr->w);
        etp_jw_raw(wr->w, wr->tb.p, wr->tb.len);
    }
    wr->tb.len = 0;
}

/* ---- metadata ---- */

static void meta(writer *wr, const char *what, uint32_t pid, uint32_t tid, const char *key,
                 const char *sval, int64_t ival)
{
    etp_tt *b = &wr->tb;
    ETP_TT_LIT(b, "{\"name\":");
    etp_tt_str(b, what);
    ETP_TT_LIT(b, ",\"ph\":\"M\",\"pid\":");
    etp_tt_u64(b, pid);
    ETP_TT_LIT(b, ",\"tid\":");
    etp_tt_u64(b, tid);
    ETP_TT_LIT(b, ",\"args\":{");
    etp_tt_str(b, key);
    ETP_TT_LIT(b, ":");
    if (sval)
        etp_tt_str(b, sval);
    else
        etp_tt_i64(b, ival);
    ETP_TT_LIT(b, "}}");
    emit(wr);
}

/* "forward", or "double | forward" when the ETDump cannot tell them apart. */
static void proc_name(const proc *p, char *buf, size_t n)
{
    if (!p->plan) {
        snprintf(buf, n, "(method not identified)");
        return;
    }
    snprintf(buf, n, "%s", p->plan->name ? p->plan->name : "(unnamed method)");
    for (uint32_t k = 1; p->block && k < p->block->candidate_count; k++) {
        size_t l = strlen(buf);
        const char *nm = p->block->candidates[k]->name;
        snprintf(buf + l, n - l, " | %s", nm ? nm : "(unnamed method)");
    }
}

static void write_processes(writer *wr)
{
    const etp_trace_options *o = wr->opt;
    char name[512], labels[640];
    for (uint32_t k = 0; k < wr->nprocs; k++) {
        const proc *p = &wr->procs[k];
        if (!p->used)
            continue;
        proc_name(p, name, sizeof name);
        if (o->source_unit == ETP_UNIT_CYCLES)
            snprintf(labels, sizeof labels, "times are CPU cycles (the viewer labels them as us)");
        else
            snprintf(labels, sizeof labels, "ticks in %s, shown in us",
                     etp_unit_name(o->source_unit));
        size_t l = strlen(labels);
        if (!p->plan)
            snprintf(labels + l, sizeof labels - l, "; %s",
                     o->program ? "no instruction events tell which method ran (use --method)"
                                : "no program given (--pte)");
        else if (p->block && p->block->candidate_count > 1)
            snprintf(labels + l, sizeof labels - l,
                     "; methods with identical instructions: the ETDump cannot tell which ran");
        meta(wr, "process_name", p->pid, 0, "name", name, 0);
        meta(wr, "process_sort_index", p->pid, 0, "sort_index", NULL, p->pid);
        meta(wr, "process_labels", p->pid, 0, "labels", labels, 0);
    }
}

/* ---- events ---- */

static void write_handles(writer *wr, const etp_plan *pl, const etp_profile_event *pe,
                          const etp_debug_event *de, int delegated)
{
    const etp_trace_options *o = wr->opt;
    if (!o->resolve_handles)
        return;
    etp_trace_site site;
    memset(&site, 0, sizeof site);
    site.plan = pl;
    site.is_delegated = delegated;
    if (pe) {
        site.event_name = pe->name;
        site.chain_index = pe->chain_index;
        site.instruction_id = pe->instruction_id;
        site.delegate_id_int = pe->delegate_id_int;
        site.delegate_id_str = pe->delegate_id_str;
    } else {
        site.event_name = NULL;
        site.chain_index = (int32_t)de->chain_index;
        site.instruction_id = de->instruction_id;
        site.delegate_id_int = de->delegate_id_int;
        site.delegate_id_str = de->delegate_id_str;
    }
    if (site.chain_index < 0)
        return;
    const int64_t *h = NULL;
    uint32_t n = o->resolve_handles(o->resolve_ctx, &site, &h);
    if (!n || !h)
        return;
    if (n > ETP_TRACE_MAX_HANDLES)
        n = ETP_TRACE_MAX_HANDLES;
    etp_tt *b = &wr->tb;
    ETP_TT_LIT(b, ",\"debug_handles\":[");
    for (uint32_t k = 0; k < n; k++) {
        if (k)
            ETP_TT_LIT(b, ",");
        etp_tt_i64(b, h[k]);
    }
    ETP_TT_LIT(b, "]");
}

static int printable(const uint8_t *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (b[k] < 0x20 || b[k] > 0x7e)
            return 0;
    return 1;
}

static void write_delegate_id(etp_tt *b, const etp_profile_event *pe)
{
    ETP_TT_LIT(b, ",\"delegate_id\":");
    if (pe->delegate_id_str && pe->delegate_id_str_len)
        etp_tt_strn(b, pe->delegate_id_str, pe->delegate_id_str_len);
    else
        etp_tt_i64(b, pe->delegate_id_int);
    if (pe->has_metadata && pe->metadata_len) {
        if (pe->metadata_len <= 1024 && printable(pe->metadata, pe->metadata_len)) {
            ETP_TT_LIT(b, ",\"delegate_metadata\":");
            etp_tt_strn(b, (const char *)pe->metadata, pe->metadata_len);
        } else {
            ETP_TT_LIT(b, ",\"delegate_metadata_bytes\":");
            etp_tt_u64(b, pe->metadata_len);
        }
    }
}

/* "cat" and "kind" of a slice, quoted. */
static void put_kind(etp_tt *b, etp_tl_kind k)
{
    switch (k) {
    case ETP_TL_FRAMEWORK: ETP_TT_LIT(b, "\"framework\""); break;
    case ETP_TL_INSTRUCTION: ETP_TT_LIT(b, "\"instruction\""); break;
    case ETP_TL_KERNEL: ETP_TT_LIT(b, "\"kernel\""); break;
    case ETP_TL_DELEGATE: ETP_TT_LIT(b, "\"delegate\""); break;
    case ETP_TL_DEBUG: ETP_TT_LIT(b, "\"debug\""); break;
    default: ETP_TT_LIT(b, "\"other\""); break;
    }
}

static void write_slice(writer *wr, const etp_run *run, uint32_t ri, const etp_plan *pl,
                        const etp_tl_item *it, uint32_t pid, uint32_t tid)
{
    etp_tt *b = &wr->tb;
    etp_event e;
    etp_etdump_event(wr->d, run, it->event, &e);
    const etp_profile_event *pe = &e.profile;
    etp_tl_kind k = (etp_tl_kind)it->kind;
    const etp_instruction *in = pe->chain_index >= 0 ? instr_at(pl, pe->chain_index,
                                                                pe->instruction_id)
                                                     : NULL;
    const char *op = in ? operator_of(pl, in) : NULL;
    const char *backend = in ? backend_of(pl, in) : NULL;

    ETP_TT_LIT(b, "{\"name\":");
    if (k == ETP_TL_INSTRUCTION && op && pe->name_len == 13 && !memcmp(pe->name, "OPERATOR_CALL", 13))
        etp_tt_str(b, op);
    else if (k == ETP_TL_INSTRUCTION && backend && pe->name_len == 13 &&
             !memcmp(pe->name, "DELEGATE_CALL", 13))
        etp_tt_str(b, backend);
    else if (k == ETP_TL_DELEGATE && pe->delegate_id_str && pe->delegate_id_str_len)
        etp_tt_strn(b, pe->delegate_id_str, pe->delegate_id_str_len);
    else if (k == ETP_TL_DELEGATE) {
        ETP_TT_LIT(b, "\"delegate ");
        etp_tt_i64(b, pe->delegate_id_int);
        ETP_TT_LIT(b, "\"");
    } else if (pe->name)
        etp_tt_strn(b, pe->name, pe->name_len);
    else
        ETP_TT_LIT(b, "\"(unnamed event)\"");
    ETP_TT_LIT(b, ",\"cat\":");
    put_kind(b, k);
    ETP_TT_LIT(b, ",\"ph\":\"X\",\"ts\":");
    put_time(b, wr->opt->source_unit, it->ts);
    ETP_TT_LIT(b, ",\"dur\":");
    put_time(b, wr->opt->source_unit, it->dur);
    ETP_TT_LIT(b, ",\"pid\":");
    etp_tt_u64(b, pid);
    ETP_TT_LIT(b, ",\"tid\":");
    etp_tt_u64(b, tid);
    ETP_TT_LIT(b, ",\"args\":{\"event\":");
    if (pe->name)
        etp_tt_strn(b, pe->name, pe->name_len);
    else
        ETP_TT_LIT(b, "null");
    ETP_TT_LIT(b, ",\"kind\":");
    put_kind(b, k);
    ETP_TT_LIT(b, ",\"run\":");
    etp_tt_u64(b, ri);
    if (pe->chain_index >= 0) {
        ETP_TT_LIT(b, ",\"chain\":");
        etp_tt_i64(b, pe->chain_index);
        ETP_TT_LIT(b, ",\"instruction\":");
        etp_tt_i64(b, pe->instruction_id);
    }
    if (in) {
        ETP_TT_LIT(b, ",\"instruction_kind\":");
        etp_tt_str(b, etp_instr_kind_name(in->kind));
    }
    if (op) {
        ETP_TT_LIT(b, ",\"operator\":");
        etp_tt_str(b, op);
    }
    if (backend) {
        ETP_TT_LIT(b, ",\"backend\":");
        etp_tt_str(b, backend);
    }
    if (k == ETP_TL_DELEGATE)
        write_delegate_id(b, pe);
    ETP_TT_LIT(b, ",\"start_ticks\":");
    etp_tt_u64(b, pe->start_time);
    ETP_TT_LIT(b, ",\"end_ticks\":");
    etp_tt_u64(b, pe->end_time);
    if (it->wrapped)
        ETP_TT_LIT(b, ",\"wrapped_32bit\":true");
    if (it->track == ETP_TL_TRACK_DELEGATE) {
        ETP_TT_LIT(b, ",\"time_base\":\"duration only: the position on this track is synthetic\""
                      ",\"reason\":");
        etp_tt_str(b, reason_text((etp_tl_reason)it->reason));
    } else if (it->track > ETP_TL_TRACK_DELEGATE) {
        ETP_TT_LIT(b, ",\"overlap\":\"moved off the main track: it partially overlaps another "
                      "event\"");
    }
    write_handles(wr, pl, pe, NULL, k == ETP_TL_DELEGATE);
    ETP_TT_LIT(b, "}}");
    emit(wr);
}

static void write_value(etp_tt *b, const etp_etdump *d, const etp_debug_event *de)
{
    if (!de->has_value)
        return;
    ETP_TT_LIT(b, ",\"value_type\":");
    etp_tt_str(b, value_type_name(de->value_type));
    switch (de->value_type) {
    case ETP_VAL_INT:
        ETP_TT_LIT(b, ",\"value\":");
        etp_tt_i64(b, de->int_value);
        break;
    case ETP_VAL_BOOL:
        if (de->bool_value)
            ETP_TT_LIT(b, ",\"value\":true");
        else
            ETP_TT_LIT(b, ",\"value\":false");
        break;
    case ETP_VAL_FLOAT:
    case ETP_VAL_DOUBLE:
        ETP_TT_LIT(b, ",\"value\":");
        etp_tt_double(b, de->double_value);
        break;
    case ETP_VAL_TENSOR:
    case ETP_VAL_TENSOR_LIST: {
        ETP_TT_LIT(b, ",\"tensor_count\":");
        etp_tt_u64(b, de->tensor_count);
        ETP_TT_LIT(b, ",\"tensors\":[");
        for (uint32_t k = 0; k < de->tensor_count && k < 64; k++) {
            etp_dbg_tensor t;
            if (etp_etdump_debug_tensor(d, de, k, &t))
                break;
            if (k)
                ETP_TT_LIT(b, ",");
            ETP_TT_LIT(b, "{");
            const char *dt = etp_scalar_type_name(t.scalar_type);
            ETP_TT_LIT(b, "\"dtype\":");
            if (dt)
                etp_tt_str(b, dt);
            else
                etp_tt_i64(b, t.scalar_type);
            ETP_TT_LIT(b, ",\"sizes\":[");
            for (uint32_t r = 0; r < t.rank && r < 64; r++) {
                if (r)
                    ETP_TT_LIT(b, ",");
                etp_tt_i64(b, t.sizes[r]);
            }
            ETP_TT_LIT(b, "],\"debug_buffer_offset\":");
            etp_tt_i64(b, t.offset);
            ETP_TT_LIT(b, "}");
        }
        ETP_TT_LIT(b, "]");
        break;
    }
    default: break;
    }
}

static void write_instant(writer *wr, const etp_run *run, uint32_t ri, const etp_plan *pl,
                          const etp_tl_item *it, uint32_t pid, uint32_t tid)
{
    etp_tt *b = &wr->tb;
    etp_event e;
    etp_etdump_event(wr->d, run, it->event, &e);
    const etp_debug_event *de = &e.debug;
    int program_output = de->is_output || de->chain_index > (uint64_t)INT32_MAX;
    if (program_output)
        ETP_TT_LIT(b, "{\"name\":\"program output\"");
    else
        ETP_TT_LIT(b, "{\"name\":\"intermediate output\"");
    ETP_TT_LIT(b, ",\"cat\":\"debug\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
    put_time(b, wr->opt->source_unit, it->ts);
    ETP_TT_LIT(b, ",\"pid\":");
    etp_tt_u64(b, pid);
    ETP_TT_LIT(b, ",\"tid\":");
    etp_tt_u64(b, tid);
    ETP_TT_LIT(b, ",\"args\":{\"run\":");
    etp_tt_u64(b, ri);
    if (program_output)
        ETP_TT_LIT(b, ",\"time\":\"debug events carry no time: placed at the end of "
                      "Method::execute\"");
    else
        ETP_TT_LIT(b, ",\"time\":\"debug events carry no time: placed at the end of "
                      "their instruction\"");
    if (!program_output) {
        int32_t c = (int32_t)de->chain_index;
        ETP_TT_LIT(b, ",\"chain\":");
        etp_tt_i64(b, c);
        ETP_TT_LIT(b, ",\"instruction\":");
        etp_tt_i64(b, de->instruction_id);
        const etp_instruction *in = instr_at(pl, c, de->instruction_id);
        const char *op = in ? operator_of(pl, in) : NULL;
        const char *backend = in ? backend_of(pl, in) : NULL;
        if (op) {
            ETP_TT_LIT(b, ",\"operator\":");
            etp_tt_str(b, op);
        }
        if (backend) {
            ETP_TT_LIT(b, ",\"backend\":");
            etp_tt_str(b, backend);
        }
    }
    if (de->delegate_id_str) {
        ETP_TT_LIT(b, ",\"delegate_id\":");
        etp_tt_str(b, de->delegate_id_str);
    } else if (de->delegate_id_int != -1) {
        ETP_TT_LIT(b, ",\"delegate_id\":");
        etp_tt_i64(b, de->delegate_id_int);
    }
    if (de->name) {
        ETP_TT_LIT(b, ",\"debug_name\":");
        etp_tt_str(b, de->name);
    }
    write_value(b, wr->d, de);
    if (!program_output)
        write_handles(wr, pl, NULL, de, de->delegate_id_str || de->delegate_id_int != -1);
    ETP_TT_LIT(b, "}}");
    emit(wr);
}

static int is_execute(const etp_run *run)
{
    return run->name && !strcmp(run->name, "Execute");
}

/* Thread-name prefix of run @p ri in its process. */
static void thread_label(proc *p, const etp_run *run, uint32_t ri, char *buf, size_t n)
{
    if (is_execute(run))
        snprintf(buf, n, "execute %u (RunData %u)", ++p->execs, ri);
    else if (run->name && !strcmp(run->name, "Default"))
        snprintf(buf, n, "load_method %u (RunData %u)", ++p->loads, ri);
    else
        snprintf(buf, n, "%.200s %u (RunData %u)", run->name ? run->name : "(unnamed block)",
                 ++p->others, ri);
}

static proc *proc_of(writer *wr, const etp_inspect_block *blk)
{
    return blk->plan ? &wr->procs[blk->plan - wr->opt->program->plans] : &wr->procs[wr->nprocs - 1];
}

/* Whether run @p ri is written: every block that is not an execution, and
 * the selected executions. */
static int run_selected(const writer *wr, uint32_t ri)
{
    uint32_t x = wr->run_exec[ri];
    return !x || (x >= wr->exec_first && x <= wr->exec_last);
}

static void report_progress(writer *wr, double events_in_run)
{
    const etp_trace_options *o = wr->opt;
    if (o->progress && !wr->counting && wr->events_total)
        o->progress(o->progress_ctx, ((double)wr->events_done + events_in_run) /
                                         (double)wr->events_total);
}

/* Progress is reported every this many objects within a run. */
#define PROGRESS_EVERY 65536u

static etp_status write_run(writer *wr, uint32_t ri, etp_error *err)
{
    etp_run run;
    etp_etdump_run(wr->d, ri, &run);
    uint32_t bi = wr->run_block[ri];
    if (bi == UINT32_MAX) {
        wr->counts.runs_without_events++;
        return ETP_OK;
    }
    const etp_inspect_block *blk = &wr->in->blocks[bi];
    proc *p = proc_of(wr, blk);
    if (!run_selected(wr, ri)) {
        p->execs++; /* the tracks written keep the numbers of the whole trace */
        return ETP_OK;
    }
    if (wr->counting && wr->run_exec[ri] && ri != p->sample_first && ri != p->sample_last) {
        p->execs++;
        p->priced_events += run.event_count;
        return ETP_OK;
    }
    uint64_t counted0 = wr->counted;
    etp_timeline *tl = &wr->tl;
    etp_status s = etp_timeline_build(tl, wr->d, &run, ri, wr->opt->debug_events, err);
    if (s)
        return s;
    char label[320], sub[400];
    thread_label(p, &run, ri, label, sizeof label);
    uint32_t main_tid = wr->next_tid++;
    uint32_t del_tid = tl->has_delegate_track ? wr->next_tid++ : 0;
    uint32_t lane_tid0 = wr->next_tid;
    wr->next_tid += tl->overlap_lanes;
    meta(wr, "thread_name", p->pid, main_tid, "name", label, 0);
    meta(wr, "thread_sort_index", p->pid, main_tid, "sort_index", NULL, main_tid);
    if (del_tid) {
        snprintf(sub, sizeof sub, "%s: delegate, duration only", label);
        meta(wr, "thread_name", p->pid, del_tid, "name", sub, 0);
        meta(wr, "thread_sort_index", p->pid, del_tid, "sort_index", NULL, del_tid);
    }
    for (uint32_t k = 0; k < tl->overlap_lanes; k++) {
        snprintf(sub, sizeof sub, "%s: overlap %u", label, k + 1);
        meta(wr, "thread_name", p->pid, lane_tid0 + k, "name", sub, 0);
        meta(wr, "thread_sort_index", p->pid, lane_tid0 + k, "sort_index", NULL, lane_tid0 + k);
    }
    for (size_t k = 0; k < tl->count; k++) {
        const etp_tl_item *it = &tl->items[k];
        uint32_t tid = it->track == ETP_TL_TRACK_MAIN       ? main_tid
                       : it->track == ETP_TL_TRACK_DELEGATE ? del_tid
                                                            : lane_tid0 + (it->track - 2u);
        if (k < tl->slice_count)
            write_slice(wr, &run, ri, blk->plan, it, p->pid, tid);
        else
            write_instant(wr, &run, ri, blk->plan, it, p->pid, tid);
        if ((k + 1) % PROGRESS_EVERY == 0)
            report_progress(wr, (double)run.event_count * (double)(k + 1) / (double)tl->count);
    }
    if (wr->tb.failed)
        return etp_error_set(err, ETP_E_NOMEM, etp_etdump_path(wr->d), ETP_NO_OFFSET,
                             "out of memory");
    if (wr->counting && wr->run_exec[ri]) {
        p->sample_bytes += wr->counted - counted0;
        p->sample_events += run.event_count;
    }
    wr->events_done += run.event_count;
    report_progress(wr, 0);
    wr->counts.executions_written += wr->run_exec[ri] ? 1u : 0u;
    wr->counts.tracks += 1u + (del_tid ? 1u : 0u) + tl->overlap_lanes;
    wr->counts.profile_events += tl->profile_events;
    wr->counts.slices += tl->slice_count;
    wr->counts.duration_only += tl->duration_only;
    wr->counts.overlap_slices += tl->overlapped;
    wr->counts.dropped += tl->dropped;
    wr->counts.wrapped += tl->wrapped;
    wr->counts.instants += tl->count - tl->slice_count;
    wr->counts.debug_skipped += tl->debug_events - (tl->count - tl->slice_count);
    wr->counts.allocations_skipped += tl->allocations;
    wr->counts.empty_events += tl->empty;
    return ETP_OK;
}

static void write_other_data(writer *wr, const char *input_name)
{
    etp_jw *w = wr->w;
    const etp_trace_options *o = wr->opt;
    const etp_trace_counts *c = &wr->counts;
    int cycles = o->source_unit == ETP_UNIT_CYCLES;
    etp_jw_key(w, "otherData");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "generator", "etprof " ETP_VERSION);
    if (input_name)
        etp_jw_kstr(w, "etdump", input_name);
    if (o->program)
        etp_jw_kstr(w, "program", base_name(o->program->path));
    if (o->method)
        etp_jw_kstr(w, "method", o->method);
    etp_jw_kstr(w, "source_unit", etp_unit_name(o->source_unit));
    etp_jw_kstr(w, "ts_dur_unit", cycles ? "cycles" : "us");
    if (cycles)
        etp_jw_kstr(w, "note", "ts and dur are CPU cycles, not microseconds; the viewer's time "
                               "labels are wrong by the clock rate");
    etp_jw_kstr(w, "delegate_events",
                "delegate-internal events on the host clock nest in their DELEGATE_CALL; the "
                "others are on 'delegate, duration only' tracks, laid end to end from their "
                "DELEGATE_CALL: only their durations are measured, and they are converted with the "
                "source unit, which a delegate's own clock may not use");
    etp_jw_kstr(w, "debug_events", o->debug_events ? "instant events at the end of their "
                                                     "instruction (they carry no time)"
                                                   : "skipped");
    etp_jw_kstr(w, "allocation_events", "skipped: they carry no time");
    etp_jw_kuint(w, "profile_events", c->profile_events);
    etp_jw_kuint(w, "slices", c->slices);
    etp_jw_kuint(w, "duration_only_slices", c->duration_only);
    etp_jw_kuint(w, "overlap_slices", c->overlap_slices);
    etp_jw_kuint(w, "dropped_events", c->dropped);
    etp_jw_kuint(w, "wrapped_intervals", c->wrapped);
    etp_jw_kuint(w, "debug_instants", c->instants);
    etp_jw_kuint(w, "debug_events_skipped", c->debug_skipped);
    etp_jw_kuint(w, "allocation_events_skipped", c->allocations_skipped);
    etp_jw_kuint(w, "empty_events", c->empty_events);
    etp_jw_kuint(w, "blocks_without_events", c->runs_without_events);
    if (wr->selected) {
        char sel[32];
        snprintf(sel, sizeof sel, "%u-%u", wr->exec_first, wr->exec_last);
        etp_jw_kstr(w, "executions_selected", sel);
        etp_jw_kuint(w, "executions_in_etdump", c->executions);
    }
    etp_jw_obj_end(w);
}

/* Number the executions (Execute blocks with events, in file order) and
 * resolve the selection against them; ETP_E_USAGE for a selection that ends
 * before it starts, ETP_E_MISMATCH for one past the last execution. */
static etp_status select_executions(writer *wr, uint32_t nruns, etp_error *err)
{
    const etp_trace_options *o = wr->opt;
    uint32_t n = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        etp_run run;
        etp_etdump_run(wr->d, r, &run);
        wr->run_exec[r] = wr->run_block[r] != UINT32_MAX && is_execute(&run) ? ++n : 0;
    }
    wr->counts.executions = n;
    wr->exec_first = 1;
    wr->exec_last = n;
    if (!o->first_execution && !o->last_execution)
        return ETP_OK;
    uint32_t first = o->first_execution ? o->first_execution : 1;
    uint32_t last = o->last_execution ? o->last_execution : UINT32_MAX;
    if (first > last)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the selection starts at execution %u, after its end (%u)", first,
                             last);
    if (first > n) {
        char what[48];
        if (first == last)
            snprintf(what, sizeof what, "execution %u", first);
        else if (last == UINT32_MAX)
            snprintf(what, sizeof what, "executions from %u", first);
        else
            snprintf(what, sizeof what, "executions %u-%u", first, last);
        return etp_error_set(err, ETP_E_MISMATCH, etp_etdump_path(wr->d), ETP_NO_OFFSET,
                             "%s selected, but the ETDump holds %u execution%s (Execute blocks)",
                             what, n, n == 1 ? "" : "s");
    }
    wr->selected = 1;
    wr->exec_first = first;
    wr->exec_last = last < n ? last : n;
    return ETP_OK;
}

static etp_status build(writer *wr, const char *input_name, etp_error *err)
{
    const etp_trace_options *o = wr->opt;
    const etp_etdump *d = wr->d;
    etp_inspect_options io;
    etp_inspect_options_init(&io);
    io.source_unit = o->source_unit;
    io.target_unit = o->source_unit; /* durations are not used; avoid any conversion rule */
    io.program = o->program;
    io.method = o->program ? o->method : NULL;
    etp_status s = etp_inspect_run(d, &io, &wr->in, err);
    if (s)
        return s;
    uint32_t nruns = etp_etdump_run_count(d);
    wr->run_block = malloc((nruns ? nruns : 1) * sizeof *wr->run_block);
    wr->run_exec = malloc((nruns ? nruns : 1) * sizeof *wr->run_exec);
    wr->nprocs = (o->program ? o->program->plan_count : 0) + 1;
    wr->procs = calloc(wr->nprocs, sizeof *wr->procs);
    if (!wr->run_block || !wr->run_exec || !wr->procs)
        return etp_error_set(err, ETP_E_NOMEM, etp_etdump_path(d), ETP_NO_OFFSET, "out of memory");
    for (uint32_t r = 0; r < nruns; r++)
        wr->run_block[r] = UINT32_MAX;
    for (uint32_t k = 0; k < wr->nprocs; k++) {
        wr->procs[k].pid = k + 1;
        wr->procs[k].plan = k + 1 < wr->nprocs ? &o->program->plans[k] : NULL;
        wr->procs[k].sample_first = wr->procs[k].sample_last = UINT32_MAX;
    }
    for (uint32_t b = 0; b < wr->in->block_count; b++) {
        const etp_inspect_block *blk = &wr->in->blocks[b];
        proc *p = proc_of(wr, blk);
        for (uint32_t r = 0; r < blk->run_count; r++)
            if (blk->runs[r] < nruns)
                wr->run_block[blk->runs[r]] = b;
        if (!p->used || (p->block && blk->runs[0] < p->block->runs[0]))
            p->block = blk;
        p->used = 1;
    }
    s = select_executions(wr, nruns, err);
    if (s)
        return s;
    for (uint32_t r = 0; r < nruns; r++) {
        if (!run_selected(wr, r))
            continue;
        etp_run run;
        etp_etdump_run(d, r, &run);
        wr->events_total += run.event_count;
        if (wr->run_exec[r]) {
            proc *p = proc_of(wr, &wr->in->blocks[wr->run_block[r]]);
            if (p->sample_first == UINT32_MAX)
                p->sample_first = r;
            p->sample_last = r;
        }
    }
    etp_jw *w = wr->w;
    etp_jw_obj_begin(w);
    etp_jw_key(w, "traceEvents");
    etp_jw_arr_begin(w);
    write_processes(wr);
    for (uint32_t r = 0; r < nruns; r++) {
        s = write_run(wr, r, err);
        if (s)
            return s;
    }
    for (uint32_t k = 0; k < wr->nprocs; k++) {
        const proc *p = &wr->procs[k];
        wr->counts.processes += p->used ? 1u : 0u;
        if (p->priced_events && p->sample_events)
            wr->counted += (uint64_t)((double)p->priced_events * (double)p->sample_bytes /
                                      (double)p->sample_events);
    }
    etp_jw_break(w);
    etp_jw_arr_end(w);
    /* No "displayTimeUnit": the format defines it as a display preference,
     * but Perfetto releases have read it as the unit of ts/dur (a trace in
     * microseconds labelled "ns" then loads 1000x too short). Leaving it out
     * means microseconds everywhere. */
    write_other_data(wr, input_name);
    etp_jw_obj_end(w);
    return ETP_OK;
}

/* Write (or, with @p estimate, only size: *estimate receives the bytes) the
 * trace through @p w. */
static etp_status run_writer(const etp_etdump *d, const etp_trace_options *opt,
                             const char *input_name, etp_jw *w, etp_trace_counts *counts,
                             uint64_t *estimate, etp_error *err)
{
    etp_trace_options defaults;
    if (!opt) {
        etp_trace_options_init(&defaults);
        opt = &defaults;
    }
    if ((unsigned)opt->source_unit > ETP_UNIT_CYCLES)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "unknown source unit");
    if (opt->method && !opt->program)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "a method needs a program");
    writer wr;
    memset(&wr, 0, sizeof wr);
    wr.d = d;
    wr.opt = opt;
    wr.w = w;
    wr.next_tid = 1;
    wr.counting = estimate != NULL;
    etp_timeline_init(&wr.tl);
    etp_tt_init(&wr.tb);
    etp_status s = build(&wr, input_name, err);
    etp_tt_free(&wr.tb);
    etp_timeline_free(&wr.tl);
    etp_inspect_free(wr.in);
    free(wr.run_block);
    free(wr.run_exec);
    free(wr.procs);
    if (!s && counts)
        *counts = wr.counts;
    if (!s && estimate)
        *estimate = wr.counted;
    return s;
}

etp_status etp_trace_write(const etp_etdump *d, const etp_trace_options *opt,
                           const char *input_name, FILE *fp, etp_trace_counts *counts,
                           etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    etp_status s = run_writer(d, opt, input_name, &w, counts, NULL, err);
    if (s) {
        etp_jw_finish(&w);
        return s;
    }
    /* The document ends with a newline (as etp_trace_to_string's does). */
    etp_status st = etp_jw_finish_status(&w, "the trace", err);
    if (st)
        return st;
    if (fputc('\n', fp) == EOF || fflush(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write the trace: %s",
                             strerror(errno));
    return ETP_OK;
}

etp_status etp_trace_estimate(const etp_etdump *d, const etp_trace_options *opt,
                              uint64_t *bytes, etp_trace_counts *counts, etp_error *err)
{
    *bytes = 0;
    /* The frame and otherData go to a memory writer that is thrown away:
     * less than 2 KB, and counted. */
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    uint64_t objects = 0;
    etp_status s = run_writer(d, opt, NULL, &w, counts, &objects, err);
    size_t frame = 0;
    char *text = etp_jw_take(&w, &frame);
    free(text);
    if (!s)
        *bytes = objects + frame + 1;
    return s;
}

etp_status etp_trace_to_string(const etp_etdump *d, const etp_trace_options *opt,
                               const char *input_name, char **out, size_t *len,
                               etp_trace_counts *counts, etp_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_status s = run_writer(d, opt, input_name, &w, counts, NULL, err);
    if (s) {
        etp_jw_discard(&w);
        return s;
    }
    size_t n = 0;
    char *text = etp_jw_take(&w, &n);
    char *grown = text ? realloc(text, n + 2) : NULL;
    if (!grown) {
        free(text);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    grown[n++] = '\n';
    grown[n] = '\0';
    *out = grown;
    if (len)
        *len = n;
    return ETP_OK;
}
