/*
 * gen_etdump.c - write the ETDump that ExecuTorch's ETDumpGen would record
 * for a gm_method run R times:
 *
 *   "Default" block: Method::init, then Program::load_method enclosing it;
 *   R "Execute" blocks: per instruction, in order,
 *       KernelCall:   native_call_<op>.<overload>, then OPERATOR_CALL
 *       DelegateCall: the backend's own events (no name, a debug id, empty
 *                     metadata), then DELEGATE_CALL
 *     and Method::execute last.
 *
 * Events are listed in completion order (children before parents), which
 * is how the runtime serializes them. Framework events carry chain -1 and
 * instruction 0, as the runtime writes them. Timestamps are nanoseconds,
 * strictly nested; durations follow each instruction's base time with a
 * slower first run, per-run jitter and rare spikes, all from the seed,
 * and all (gaps included) multiplied by the options' scale.
 */
#include <errno.h>
#include <string.h>

#include "formats/flatbuffers/schemas.h"
#include "gen/fbbuild.h"
#include "gen/gen_model.h"

typedef struct ed_ctx {
    fbb b;
    gen_vec events; /* fbb_ref of each event of the open block */
    gen_vec runs;   /* fbb_ref of each finished block */
    gen_rng rng;
    double scale; /* every duration times this (gm_etdump_opts.scale) */
    uint64_t nevents;
} ed_ctx;

/* Append one ProfileEvent wrapped in an Event to the open block. */
static void profile_event(ed_ctx *c, const char *name, uint32_t name_len, int32_t chain,
                          int32_t instr, int32_t did_int, const char *did_str, int with_metadata,
                          uint64_t start, uint64_t end)
{
    fbb *b = &c->b;
    fbb_ref nm = name ? fbb_string(b, name, name_len) : 0;
    fbb_ref ds = did_str ? fbb_cstring(b, did_str) : 0;
    /* The runtime always attaches metadata to delegate events, even empty. */
    fbb_ref md = with_metadata ? fbb_vec_scalars(b, NULL, 0, 1) : 0;
    fbb_table_begin(b);
    fbb_add_u64(b, ETD_PE_END, end, 0);
    fbb_add_u64(b, ETD_PE_START, start, 0);
    fbb_add_ref(b, ETD_PE_METADATA, md);
    fbb_add_ref(b, ETD_PE_DID_STR, ds);
    fbb_add_i32(b, ETD_PE_DID_INT, did_int, -1);
    fbb_add_i32(b, ETD_PE_INSTR, instr, -1);
    fbb_add_i32(b, ETD_PE_CHAIN, chain, 0);
    fbb_add_ref(b, ETD_PE_NAME, nm);
    fbb_ref pe = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_EVENT_PROFILE, pe);
    fbb_ref ev = fbb_table_end(b);
    gen_vec_append(&c->events, &ev, 1);
    c->nevents++;
}

/* A DebugEvent logging a float32 tensor of @p elements at @p offset in the
 * debug buffer: instruction @p instr's output, or (@p output) the method's,
 * which the runtime logs with chain index -1 widened to 2^64-1 and
 * instruction 0, Value.output true. */
static void debug_event(ed_ctx *c, int32_t instr, int output, uint32_t elements, int64_t offset)
{
    fbb *b = &c->b;
    int64_t sizes[1] = {elements}, strides[1] = {1};
    fbb_ref vs = fbb_vec_scalars(b, sizes, 1, sizeof sizes[0]);
    fbb_ref vst = fbb_vec_scalars(b, strides, 1, sizeof strides[0]);
    fbb_table_begin(b);
    fbb_add_i64(b, ETD_TENSOR_OFFSET, offset, 0);
    fbb_add_ref(b, ETD_TENSOR_STRIDES, vst);
    fbb_add_ref(b, ETD_TENSOR_SIZES, vs);
    fbb_add_i8(b, ETD_TENSOR_SCALAR_TYPE, 6 /* Float */, 0);
    fbb_ref t = fbb_table_end(b);
    fbb_ref out = 0;
    if (output) {
        fbb_table_begin(b);
        fbb_add_u8(b, 0, 1, 0); /* Bool.bool_val */
        out = fbb_table_end(b);
    }
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_VAL_OUTPUT, out);
    fbb_add_ref(b, ETD_VAL_TENSOR, t);
    fbb_add_i8(b, ETD_VAL_TYPE, 5 /* Tensor */, 0);
    fbb_ref val = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_i32(b, ETD_DE_DID_INT, -1, -1);
    fbb_add_ref(b, ETD_DE_ENTRY, val);
    fbb_add_i32(b, ETD_DE_INSTR, output ? 0 : instr, -1);
    fbb_add_u64(b, ETD_DE_CHAIN, output ? UINT64_MAX : 0, 0);
    fbb_ref de = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_EVENT_DEBUG, de);
    fbb_ref ev = fbb_table_end(b);
    gen_vec_append(&c->events, &ev, 1);
}

static void framework_event(ed_ctx *c, const char *name, uint64_t start, uint64_t end)
{
    profile_event(c, name, (uint32_t)strlen(name), -1, 0, -1, NULL, 0, start, end);
}

static void close_block(ed_ctx *c, const char *name) { gen_close_run(&c->b, &c->events, &c->runs, name); }

/* A duration: never negative, rounded to whole ticks. */
static uint64_t ticks(double ns) { return ns < 0.0 ? 0 : (uint64_t)(ns + 0.5); }

/* A gap between events (dispatch, bookkeeping), in ticks: drawn in
 * [lo, hi], then scaled like every other duration. With scale 1 the draw
 * is returned unchanged (an integer below 2^53 survives the double). */
static uint64_t gap(ed_ctx *c, uint64_t lo, uint64_t hi)
{
    return ticks((double)gen_range(&c->rng, lo, hi) * c->scale);
}

/* Per-event multiplicative noise: about +-4%, and a 0.2% chance of a 2-4x
 * spike (preemption, cache misses), as real traces show. */
static double jitter(gen_rng *r)
{
    double j = 1.0 + 0.04 * gen_gauss(r);
    if (j < 0.5)
        j = 0.5;
    if (gen_unif(r) < 0.002)
        j *= 2.0 + 2.0 * gen_unif(r);
    return j;
}

static uint64_t run_method(ed_ctx *c, const gm_program *p, const gm_method *m, uint64_t t,
                           double speed, gm_tensor_log *tl)
{
    int32_t last_kernel = -1;
    gen_rng *r = &c->rng;
    const gm_instr *ins = m->instrs.items;
    const gm_operator *ops = m->ops.items;
    const gm_dev *devs = m->devs.items;
    uint64_t exec_start = t;
    t += gap(c, 250, 700);
    for (size_t i = 0; i < m->instrs.len; i++) {
        const gm_instr *in = &ins[i];
        int32_t id = (int32_t)i;
        uint64_t start = t;
        if (in->kind == PTE_I_KERNEL) {
            const gm_operator *op = &ops[in->index];
            uint64_t ns = start + gap(c, 60, 300);
            uint64_t ne = ns + ticks(in->base_ns * speed * jitter(r));
            if (ne == ns)
                ne++;
            uint64_t end = ne + gap(c, 50, 250);
            /* The kernel's out argument is logged inside its native_call
             * scope: the debug event comes before both profile events. */
            if (tl) {
                debug_event(c, id, 0, tl->elements, gm_tensor_log_write(tl, id, -1));
                last_kernel = id;
            }
            profile_event(c, op->native, op->native_len, 0, id, -1, NULL, 0, ns, ne);
            profile_event(c, "OPERATOR_CALL", 13, 0, id, -1, NULL, 0, start, end);
            t = end;
        } else {
            double total = in->base_ns * speed * jitter(r);
            uint64_t inner = start + gap(c, 300, 1500);
            for (uint32_t k = 0; k < in->dev_count; k++) {
                const gm_dev *d = &devs[in->dev_start + k];
                double dur = total * d->share * (1.0 + 0.03 * gen_gauss(r));
                uint64_t du = ticks(dur);
                if (p->us_quantized) /* XNNPACK reports whole microseconds */
                    du = du / 1000 * 1000;
                profile_event(c, NULL, 0, 0, id, d->id_int, d->id_str, 1, inner, inner + du);
                inner += du;
            }
            if (!in->dev_count)
                inner += ticks(total);
            uint64_t end = inner + gap(c, 200, 900);
            profile_event(c, "DELEGATE_CALL", 13, 0, id, -1, NULL, 0, start, end);
            t = end;
        }
        t += gap(c, 30, 200);
    }
    uint64_t exec_end = t + gap(c, 100, 400);
    if (tl && last_kernel >= 0) /* log_outputs() after the last instruction */
        debug_event(c, -1, 1, tl->elements, gm_tensor_log_write(tl, -1, last_kernel));
    framework_event(c, "Method::execute", exec_start, exec_end);
    return exec_end;
}

/* Rough byte size of the file, so the builder rarely has to grow. */
uint64_t gm_etdump_estimate(const gm_method *m, uint32_t runs)
{
    uint64_t per_run = 128;
    const gm_instr *ins = m->instrs.items;
    const gm_operator *ops = m->ops.items;
    const gm_dev *devs = m->devs.items;
    for (size_t i = 0; i < m->instrs.len; i++) {
        if (ins[i].kind == PTE_I_KERNEL) {
            per_run += 2 * 52 + ops[ins[i].index].native_len + 28;
        } else {
            per_run += 52 + 24;
            for (uint32_t k = 0; k < ins[i].dev_count; k++) {
                const char *s = devs[ins[i].dev_start + k].id_str;
                per_run += 64 + (s ? strlen(s) + 8 : 0);
            }
        }
    }
    uint64_t est = per_run * ((uint64_t)runs + 1) + 4096;
    return est + est / 32;
}

etp_status gm_write_etdump(const gm_program *p, const gm_etdump_opts *o, const char *path,
                           uint64_t *bytes, uint64_t *events, etp_error *err)
{
    const gm_method *m = o->method;
    ed_ctx c;
    memset(&c, 0, sizeof c);
    gen_vec_init(&c.events, sizeof(fbb_ref));
    gen_vec_init(&c.runs, sizeof(fbb_ref));
    c.rng = gen_rng_make(o->seed, 0x45544450); /* "ETDP" */
    c.scale = o->scale > 0 ? o->scale : 1.0;
    etp_status st = ETP_OK;
    uint64_t est = gm_etdump_estimate(m, o->executions);
    if (est > FBB_MAX_SIZE)
        est = FBB_MAX_SIZE;
    if (fbb_init(&c.b, (size_t)est)) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory writing ETDump");
        goto done;
    }
    gen_rng *r = &c.rng;

    /* load_method: the "Default" block, times relative to PAL init. */
    uint64_t t = gap(&c, 300000, 500000);
    uint64_t init_start = t + gap(&c, 400, 1500);
    uint64_t init_end = init_start + ticks(p->load_ns * c.scale * jitter(r));
    uint64_t load_end = init_end + gap(&c, 500, 2500);
    framework_event(&c, "Method::init", init_start, init_end);
    framework_event(&c, "Program::load_method", t, load_end);
    close_block(&c, "Default");
    t = load_end + gap(&c, 2000, 15000);

    for (uint32_t run = 0; run < o->executions && !fbb_error(&c.b); run++) {
        /* The first run pays for cold caches; later ones vary a little. */
        double speed = run == 0 ? 1.15 + 0.1 * gen_unif(r) : 1.0 + 0.02 * gen_gauss(r);
        t = run_method(&c, p, m, t, speed * c.scale, o->tensors);
        close_block(&c, "Execute");
        t += gap(&c, 3000, 40000);
    }

    size_t len;
    st = gen_write_etdump(&c.b, &c.runs, c.events.failed, path, &len, err);
    if (st)
        goto done;
    if (bytes)
        *bytes = len;
    if (events)
        *events = c.nevents;
done:
    fbb_free(&c.b);
    gen_vec_free(&c.events);
    gen_vec_free(&c.runs);
    return st;
}
