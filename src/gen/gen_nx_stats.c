/* gen_nx_stats.c - `etprof gen vgf-stats`: ETDumps whose VGF delegate
 * call records VGF_NEURAL_STATISTICS for the program's own VGF segment
 * (see etprof/gen_nx_stats.h for the design of the generated data). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/gen_nx_stats.h"
#include "etprof/program.h"
#include "etprof/vgf.h"
#include "etprof/nx_record.h"
#include "formats/flatbuffers/schemas.h"
#include "gen/fbbuild.h"
#include "gen/gen_util.h"
#include "gen/gen_vgf_companion.h"

/* ---- a growable byte buffer ---- */
typedef struct sb {
    char *p;
    size_t len, cap;
    int failed;
} sb;

static void sb_put(sb *s, const void *d, size_t n)
{
    if (s->failed)
        return;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *p = realloc(s->p, cap);
        if (!p) {
            s->failed = 1;
            return;
        }
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, d, n);
    s->len += n;
    s->p[s->len] = 0;
}

static void sb_printf(sb *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sb *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        s->failed = 1;
        return;
    }
    sb_put(s, buf, (size_t)n);
}

static void sb_u32(sb *s, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sb_put(s, b, 4);
}

static void sb_base64(sb *s, const uint8_t *d, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        q[0] = a[v >> 18], q[1] = a[(v >> 12) & 63], q[2] = a[(v >> 6) & 63], q[3] = a[v & 63];
        sb_put(s, q, 4);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)d[i] << 16;
        q[0] = a[v >> 18], q[1] = a[(v >> 12) & 63], q[2] = '=', q[3] = '=';
        sb_put(s, q, 4);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8;
        q[0] = a[v >> 18], q[1] = a[(v >> 12) & 63], q[2] = a[(v >> 6) & 63], q[3] = '=';
        sb_put(s, q, 4);
    }
}

/* ---- the model: the VGF graph's ops and the hierarchy built on them ---- */
typedef struct gmodel {
    uint32_t nops;
    const etp_spv_op **ops;
    int32_t instr;           /* DELEGATE_CALL instruction */
    uint32_t nfused, nchains, ncascades, nstripes; /* nstripes includes the fill-in stripe */
    uint32_t *stripe_chain;  /* per stripe (named ones) */
    const etp_delegate *delegate; /* the VGF delegate (its bytes go into the two-call program) */
} gmodel;

#define OPS_PER_FUSED 2u
#define FUSED_PER_CHAIN 4u
#define CHAINS_PER_CASCADE 3u

static void build_hierarchy(gmodel *m)
{
    m->nfused = (m->nops + OPS_PER_FUSED - 1) / OPS_PER_FUSED;
    m->nchains = (m->nfused + FUSED_PER_CHAIN - 1) / FUSED_PER_CHAIN;
    m->ncascades = (m->nchains + CHAINS_PER_CASCADE - 1) / CHAINS_PER_CASCADE;
    uint32_t s = 0;
    for (uint32_t c = 0; c < m->nchains; c++)
        for (uint32_t k = 0; k < 1 + c % 2; k++)
            m->stripe_chain[s++] = c;
    m->nstripes = s + 1; /* the last stripe is not in the database */
}

static void tosa_name(const etp_spv_op *op, char *out, size_t n)
{
    const char *g = op->name ? op->name : "UNKNOWN";
    size_t w = 0;
    for (const char *p = g; *p && w + 1 < n; p++)
        if (*p != '_')
            out[w++] = *p;
    out[w] = 0;
}

/* A debug-database section "id\t<column>": group g (id @p gbase + g) lists
 * members g * per .. (g + 1) * per - 1 (ids @p mbase + k) of @p members. */
static void group_section(sb *s, const char *column, uint32_t groups, uint32_t gbase, uint32_t per,
                          uint32_t members, uint32_t mbase)
{
    sb_printf(s, "----\nid\t%s\n", column);
    for (uint32_t g = 0; g < groups; g++) {
        sb_printf(s, "%u\t", gbase + g);
        for (uint32_t k = g * per; k < (g + 1) * per && k < members; k++)
            sb_printf(s, "%u;", mbase + k);
        sb_printf(s, "\n");
    }
}

static void debug_database(const gmodel *m, sb *s)
{
    sb_printf(s, "id\ttosa_op\tapi_labels\n");
    for (uint32_t k = 0; k < m->nops; k++) {
        char nm[48];
        tosa_name(m->ops[k], nm, sizeof nm);
        if (gen_vgf_plain_label(k)) /* a TFLite-style label naming no SPIR-V id */
            sb_printf(s, "%u\t%s\tmodel/op_%u\n", 1000 + k, m->ops[k]->label, k);
        else
            sb_printf(s, "%u\t%s\tTOSA%s_spirv_id_%u;\n", 1000 + k, m->ops[k]->label, nm, m->ops[k]->result_id);
    }
    sb_printf(s, "----\nid\tapi_label\n");
    for (uint32_t k = 0; k < m->nops; k += 10)
        sb_printf(s, "%u\tshader_%u\n", 100000 + k, k);
    /* fused ops of TOSA ops (ids 2000.. of 1000..), chains of fused ops
     * (3000.. of 2000..), cascades of chains (4000.. of 3000..) */
    group_section(s, "tosa_op_ids", m->nfused, 2000, OPS_PER_FUSED, m->nops, 1000);
    group_section(s, "fused_op_ids", m->nchains, 3000, FUSED_PER_CHAIN, m->nfused, 2000);
    group_section(s, "cascade_op_ids", m->ncascades, 4000, CHAINS_PER_CASCADE, m->nchains, 3000);
    sb_printf(s, "----\nid\top_id\tcascade_op_id\n");
    for (uint32_t i = 0; i + 1 < m->nstripes; i++)
        sb_printf(s, "%u\t%u\t%u\n", 5000 + i, 3000 + m->stripe_chain[i], 4000 + m->stripe_chain[i] / CHAINS_PER_CASCADE);
    sb_printf(s, "----\nid\tstripe_op_id\n");
    for (uint32_t i = 0; i + 1 < m->nstripes; i++)
        sb_printf(s, "%u\t%u\n", i, 5000 + i);
}

/* ---- variants ---- */
typedef enum vkind {
    V_PLAIN = 0, V_GAP, V_LOST, V_UNAVAILABLE, V_MALFORMED, V_MISALIGNED, V_NO_DDB
} vkind;

typedef struct variant {
    const char *file;
    etp_nx_device dev;
    int mode, version;
    vkind kind;
} variant;

static const variant variants[] = {
    {"g1_mode0_v1", ETP_NX_MALI_G1, 0, 1, V_PLAIN}, {"g1_mode0_v2", ETP_NX_MALI_G1, 0, 2, V_PLAIN},
    {"g1_mode1_v1", ETP_NX_MALI_G1, 1, 1, V_PLAIN}, {"g1_mode1_v2", ETP_NX_MALI_G1, 1, 2, V_PLAIN},
    {"g2_mode0_v1", ETP_NX_MALI_G2, 0, 1, V_PLAIN}, {"g2_mode0_v2", ETP_NX_MALI_G2, 0, 2, V_PLAIN},
    {"g2_mode1_v1", ETP_NX_MALI_G2, 1, 1, V_PLAIN}, {"g2_mode1_v2", ETP_NX_MALI_G2, 1, 2, V_PLAIN},
    {"coverage_gap", ETP_NX_MALI_G2, 1, 2, V_GAP},  {"lost_stripe", ETP_NX_MALI_G2, 1, 2, V_LOST},
    {"unavailable", ETP_NX_MALI_G2, 1, 2, V_UNAVAILABLE},
    {"malformed_blob", ETP_NX_MALI_G2, 1, 2, V_MALFORMED},
    {"misaligned_blob", ETP_NX_MALI_G2, 1, 2, V_MISALIGNED},
    {"missing_debug_database", ETP_NX_MALI_G2, 1, 2, V_NO_DDB},
};

/* Statistics memory of one execution: a leading block of filler, then one
 * block per stripe (the last one partial), counters from @p rng. */
static void memory(const gmodel *m, const variant *v, const etp_nx_layout *l, uint32_t exec, gen_rng *rng, sb *s,
                   uint32_t lost)
{
    uint32_t wpt = l->words_per_task, tpb = l->tasks_per_block;
    uint8_t named[ETP_NX_MAX_WORDS] = {0};
    for (uint32_t k = 0; k < l->counter_count; k++)
        named[l->counter_word[k]] = 1;
    /* leading block: its first task holds filler (one full block follows anyway) */
    for (uint32_t t = 0; t < tpb; t++)
        for (uint32_t w = 0; w < wpt; w++)
            sb_u32(s, t == 0 ? 0xDEAD0000u + w : 0);
    for (uint32_t st = 0; st < m->nstripes; st++) {
        uint32_t tasks = 1 + (st + exec) % 3;
        int last = st + 1 == m->nstripes;
        uint32_t emit = last ? tasks + 1 : tpb; /* the last block is partial */
        for (uint32_t t = 0; t < emit; t++)
            for (uint32_t w = 0; w < wpt; w++) {
                uint32_t val = 0;
                if (t < tasks && st != lost) {
                    if (l->mode == 0)
                        val = (uint32_t)gen_range(rng, 0, 400);
                    else if (w == 0)
                        val = 0; /* core 0: the single-core target */
                    else if (named[w])
                        val = (uint32_t)gen_range(rng, w == 1 ? 500 : 0, w == 1 ? 3000 : 900);
                    else
                        val = 77777; /* an unnamed word: never a counter */
                }
                sb_u32(s, val);
            }
        (void)v;
    }
    /* mode-0 blocks are 16-word aligned already; mode 1 task sizes are 32/64 words */
}

static void blob(sb *j, const char *name, int available, int is_text, const uint8_t *d, size_t n,
                 const char *reason, int corrupt, int last)
{
    sb_printf(j, "\"%s\":{\"available\":%s,\"is_text\":%s,\"vulkan_result\":0,\"size\":%zu,"
                 "\"encoding\":\"base64\",\"reason\":\"%s\",\"data\":\"",
              name, available ? "true" : "false", is_text ? "true" : "false", available ? n : 0, reason);
    if (available) {
        size_t at = j->len;
        sb_base64(j, d, n);
        if (corrupt && j->len > at + 8)
            j->p[at + 5] = '*';
    }
    sb_printf(j, "\"}%s", last ? "" : ",");
}

static void settings_v2(sb *j, const variant *v)
{
    sb_printf(j, "\"statistics_mode\":{\"executorch_index\":%d,\"vulkan_value\":%d,\"vulkan_name\":"
                 "\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS%d_ARM\"},",
              v->mode, v->mode + 1, v->mode);
    const char *dev = v->dev == ETP_NX_MALI_G2 ? "Mali-G2-Pro-NX MC1" : "Mali-G1-Pro-NX MC1";
    sb_printf(j, "\"target\":{\"available\":true,\"device_name\":\"%s\",\"vendor_id\":5045,\"device_id\":7,"
                 "\"driver_version\":11},",
              dev);
    /* As ExecuTorch writes it: a layout only for Mali-G2, 64 words per task in both modes. */
    if (v->dev == ETP_NX_MALI_G2)
        sb_printf(j, "\"counter_layout\":{\"available\":true,\"schema_id\":\"arm.mali-g2.neural-statistics.mode%d\","
                     "\"schema_version\":1,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":64,"
                     "\"leading_block_count\":1,\"reason\":\"\"},",
                  v->mode);
    else
        sb_printf(j, "\"counter_layout\":{\"available\":false,\"schema_id\":\"\",\"schema_version\":0,"
                     "\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":0,"
                     "\"leading_block_count\":0,\"reason\":\"No registered neural statistics counter layout for "
                     "target\"},");
}

/* The wrapper JSON of execution @p exec. */
static void wrapper(const gmodel *m, const variant *v, uint32_t exec, uint64_t seed, const sb *ddb, sb *j)
{
    const etp_nx_layout *l = etp_nx_layout_get(v->dev, v->mode);
    int unavailable = v->kind == V_UNAVAILABLE && exec == 1;
    sb_printf(j, "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":%d,\"backend\":\"VgfBackend\","
                 "\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\",\"api_available\":%s,"
                 "\"data_available\":%s,\"available\":%s,\"reason\":\"%s\",",
              v->version, unavailable ? "false" : "true", unavailable ? "false" : "true",
              unavailable ? "false" : "true", unavailable ? "VkDevice is null" : "");
    if (v->version == 2)
        settings_v2(j, v);
    sb_printf(j, "\"segments\":[");
    uint32_t nseg = unavailable ? 0 : 1;
    for (uint32_t g = 0; g < nseg; g++) {
        gen_rng rng = gen_rng_make(seed, 0x4e58u + 131u * exec + 7u * g);
        sb mem = {0}, info = {0};
        uint32_t lost = v->kind == V_LOST && exec == 1 ? 1 : UINT32_MAX;
        memory(m, v, l, exec, &rng, &mem, lost);
        if (v->kind == V_MISALIGNED && exec == 0)
            for (int k = 0; k < 8; k++)
                sb_put(&mem, "\0", 1);
        int text = v->version == 2;
        if (text) {
            for (uint32_t s = 0; s < m->nstripes; s++)
                if (s != lost)
                    sb_printf(&info, "%s%u", s ? ", " : "", s);
            sb_put(&info, "\0", 1);
        } else {
            uint32_t n = m->nstripes - (lost != UINT32_MAX);
            sb_u32(&info, 0x2211EEFFu);
            sb_u32(&info, 1);
            sb_u32(&info, 4 * n);
            for (uint32_t s = 0; s < m->nstripes; s++)
                if (s != lost)
                    sb_u32(&info, s);
        }
        sb_printf(j, "%s{\"segment_id\":%u,\"is_data_graph_pipeline\":true,\"statistics_bind_point_available\":true,"
                     "\"statistics_memory_host_visible\":true,\"statistics_memory_host_coherent\":true,"
                     "\"statistics_bind_point_reason\":\"\",",
                  g ? "," : "", g);
        int no_ddb = v->kind == V_NO_DDB && exec == 1;
        blob(j, "debug_database", !no_ddb, 0, (const uint8_t *)ddb->p, ddb->len,
             no_ddb ? "Requested VK_ARM_data_graph pipeline property is not available" : "", 0, 0);
        blob(j, "statistics_info", 1, text, (const uint8_t *)info.p, info.len, "", 0, 0);
        blob(j, "statistics_memory", 1, 0, (const uint8_t *)mem.p, mem.len, "",
             v->kind == V_MALFORMED && exec == 1, 1);
        sb_printf(j, "}");
        if (mem.failed || info.failed)
            j->failed = 1;
        free(mem.p);
        free(info.p);
    }
    sb_printf(j, "]}");
}

/* ---- the ETDump ---- */
typedef struct ed {
    fbb b;
    gen_vec events, runs;
} ed;

static void pevent(ed *c, const char *name, int32_t instr, const char *did, const sb *md, uint64_t s, uint64_t e)
{
    fbb *b = &c->b;
    fbb_ref nm = name ? fbb_cstring(b, name) : 0;
    fbb_ref ds = did ? fbb_cstring(b, did) : 0;
    fbb_ref mr = did ? fbb_vec_scalars(b, md ? md->p : NULL, md ? md->len : 0, 1) : 0;
    fbb_table_begin(b);
    fbb_add_u64(b, ETD_PE_END, e, 0);
    fbb_add_u64(b, ETD_PE_START, s, 0);
    fbb_add_ref(b, ETD_PE_METADATA, mr);
    fbb_add_ref(b, ETD_PE_DID_STR, ds);
    fbb_add_i32(b, ETD_PE_DID_INT, -1, -1);
    fbb_add_i32(b, ETD_PE_INSTR, instr, -1);
    fbb_add_i32(b, ETD_PE_CHAIN, instr < 0 ? -1 : 0, 0);
    fbb_add_ref(b, ETD_PE_NAME, nm);
    fbb_ref pe = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_EVENT_PROFILE, pe);
    fbb_ref ev = fbb_table_end(b);
    gen_vec_append(&c->events, &ev, 1);
}

static void close_run(ed *c, const char *name) { gen_close_run(&c->b, &c->events, &c->runs, name); }

/* One VGF delegate call of instruction @p instr starting at @p d0: its
 * delegate events (with the statistics @p stats when not NULL) inside the
 * DELEGATE_CALL interval of 2,101,000 ticks; returns where the next
 * instruction starts. */
static uint64_t vgf_call(ed *c, int32_t instr, const sb *stats, uint64_t d0)
{
    pevent(c, NULL, instr, "VGF_COPY_INPUTS", NULL, d0 + 200, d0 + 30200);
    pevent(c, NULL, instr, "VGF_DISPATCH_AND_WAIT", NULL, d0 + 30300, d0 + 2030300);
    if (stats)
        pevent(c, NULL, instr, ETP_NX_EVENT_NAME, stats, d0 + 2030400, d0 + 2090400);
    pevent(c, NULL, instr, "VGF_COPY_OUTPUTS", NULL, d0 + 2090500, d0 + 2100500);
    pevent(c, NULL, instr, "VGF_EXECUTE", NULL, d0 + 100, d0 + 2100600);
    pevent(c, "DELEGATE_CALL", instr, NULL, NULL, d0, d0 + 2101000);
    return d0 + 2102000;
}

static etp_status write_variant(const gmodel *m, const variant *v, const etp_gen_nx_opts *o, const sb *ddb,
                                uint64_t *bytes, etp_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.etdp", o->out_dir, v->file);
    ed c;
    memset(&c, 0, sizeof c);
    gen_vec_init(&c.events, sizeof(fbb_ref));
    gen_vec_init(&c.runs, sizeof(fbb_ref));
    etp_status st = ETP_OK;
    if (fbb_init(&c.b, 1 << 20)) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
        goto done;
    }
    uint64_t t = 400000;
    pevent(&c, "Method::init", -1, NULL, NULL, t + 1000, t + 900000);
    pevent(&c, "Program::load_method", -1, NULL, NULL, t, t + 901000);
    close_run(&c, "Default");
    t += 1000000;
    for (uint32_t e = 0; e < o->executions; e++) {
        sb j = {0};
        wrapper(m, v, e, o->seed, ddb, &j);
        if (j.failed) {
            free(j.p);
            st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
            goto done;
        }
        uint64_t s0 = t;
        pevent(&c, "native_call_quantize_per_tensor.out", 0, NULL, NULL, s0 + 100, s0 + 20100);
        pevent(&c, "OPERATOR_CALL", 0, NULL, NULL, s0, s0 + 20300);
        uint64_t k0 = vgf_call(&c, m->instr, &j, s0 + 21000);
        int32_t last = m->instr + 1;
        if (v->kind == V_GAP) {
            /* the two-call program's second VGF call, without statistics in execution 1 */
            k0 = vgf_call(&c, m->instr + 1, e == 1 ? NULL : &j, k0);
            last++;
        }
        pevent(&c, "native_call_dequantize_per_tensor.out", last, NULL, NULL, k0 + 100, k0 + 5100);
        pevent(&c, "OPERATOR_CALL", last, NULL, NULL, k0, k0 + 5300);
        pevent(&c, "Method::execute", -1, NULL, NULL, s0 - 500, k0 + 6000);
        close_run(&c, "Execute");
        free(j.p);
        t = k0 + 50000;
    }
    size_t len = 0;
    st = gen_write_etdump(&c.b, &c.runs, c.events.failed, path, &len, err);
    *bytes += len;
done:
    fbb_free(&c.b);
    gen_vec_free(&c.events);
    gen_vec_free(&c.runs);
    return st;
}

etp_status etp_gen_nx_stats(const etp_gen_nx_opts *o, etp_gen_nx_result *res, etp_error *err)
{
    if (!o->pte_path || !o->out_dir || o->executions < 2 || o->executions > 10000)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "gen vgf-stats: a program (--pte), an output directory and 2..10000 executions are "
                             "required");
    etp_program *p = NULL;
    etp_status st = etp_program_open(o->pte_path, &p, err);
    if (st)
        return st;
    etp_vgf *vgf = NULL;
    gmodel m;
    memset(&m, 0, sizeof m);
    m.instr = -1;
    const etp_plan *plan = p->plan_count ? &p->plans[0] : NULL;
    for (uint32_t c = 0; plan && c < plan->chain_count && m.instr < 0; c++)
        for (uint32_t i = 0; i < plan->chains[c].instruction_count; i++) {
            const etp_instruction *in = &plan->chains[c].instructions[i];
            if (in->kind == ETP_INSTR_DELEGATE && in->a >= 0 && (uint32_t)in->a < plan->delegate_count &&
                etp_vgf_is_delegate(&plan->delegates[in->a])) {
                m.instr = (int32_t)i;
                m.delegate = &plan->delegates[in->a];
                st = etp_vgf_from_delegate(p, &plan->delegates[in->a], &vgf, err);
                break;
            }
        }
    if (st == ETP_OK && (m.instr < 0 || !vgf))
        st = etp_error_set(err, ETP_E_USAGE, o->pte_path, ETP_NO_OFFSET,
                           "gen vgf-stats: the program's first method has no VgfBackend DelegateCall");
    const etp_spv_graph *g = NULL;
    if (st == ETP_OK) {
        for (uint32_t s = 0; s < vgf->segment_count && !g; s++) {
            const etp_vgf_segment *seg = &vgf->segments[s];
            const etp_vgf_module *mod = &vgf->modules[seg->module_index];
            if (seg->type == ETP_VGF_GRAPH && mod->spv && mod->spv->graph_count)
                g = &mod->spv->graphs[0];
        }
        if (!g)
            st = etp_error_set(err, ETP_E_USAGE, o->pte_path, ETP_NO_OFFSET,
                               "gen vgf-stats: the VGF has no SPIR-V graph segment");
    }
    sb ddb = {0};
    if (st == ETP_OK) {
        m.ops = calloc(g->op_count ? g->op_count : 1, sizeof *m.ops);
        m.stripe_chain = calloc(g->op_count * 2 + 2, sizeof *m.stripe_chain);
        if (!m.ops || !m.stripe_chain)
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    if (st == ETP_OK) {
        for (uint32_t k = 0; k < g->op_count; k++)
            if (!g->ops[k].is_extract)
                m.ops[m.nops++] = &g->ops[k];
        build_hierarchy(&m);
        debug_database(&m, &ddb);
        if (ddb.failed)
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    uint64_t bytes = 0;
    uint32_t files = 0;
    for (size_t i = 0; st == ETP_OK && i < sizeof variants / sizeof variants[0]; i++, files++)
        st = write_variant(&m, &variants[i], o, &ddb, &bytes, err);
    /* The ETRecord (its delegate map names most TOSA ops) and the program
     * the coverage gap ran: the same VGF called twice. */
    char path[4096];
    uint64_t n = 0;
    if (st == ETP_OK && m.instr != 1)
        st = etp_error_set(err, ETP_E_USAGE, o->pte_path, ETP_NO_OFFSET,
                           "gen vgf-stats: the VGF DelegateCall is instruction %d; the generated ETRecord and "
                           "coverage-gap program need the fixture's layout (KernelCall, DelegateCall, KernelCall)",
                           (int)m.instr);
    if (st == ETP_OK) {
        snprintf(path, sizeof path, "%s/vgf_stats.etrecord", o->out_dir);
        st = gen_vgf_etrecord(m.ops, m.nops, path, &n, err);
        bytes += n;
        files++;
    }
    if (st == ETP_OK) {
        snprintf(path, sizeof path, "%s/coverage_gap.pte", o->out_dir);
        st = gen_vgf_two_call_pte(m.delegate, path, &n, err);
        bytes += n;
        files++;
    }
    if (st == ETP_OK && res) {
        res->files = files;
        res->tosa_ops = m.nops;
        res->fused_ops = m.nfused;
        res->chains = m.nchains + 1;     /* with the fill-in */
        res->cascades = m.ncascades + 1;
        res->stripes = m.nstripes;
        res->instruction_id = m.instr;
        res->bytes = bytes;
    }
    free(ddb.p);
    free(m.ops);
    free(m.stripe_chain);
    etp_vgf_free(vgf);
    etp_program_free(p);
    return st;
}
