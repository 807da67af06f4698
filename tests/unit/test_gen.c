/* test_gen.c - the FlatBuffers builder (buffers it makes pass etprof's
 * verifier: alignment, defaults, shared vtables, growth, misuse) and the
 * generators (etp_gen_etdump, etp_gen_demo): counts, nesting, consistency
 * between ETDump and program, the demo design, determinism, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/etdump.h"
#include "etprof/gen.h"
#include "etprof/program.h"
#include "formats/flatbuffers/fb.h"
#include "formats/flatbuffers/schemas.h"
#include "gen/fbbuild.h"
#include "testutil.h"

/* ---------------------------------------------------------------------- */
/* builder                                                                 */

static fbb_ref pe(fbb *b, const char *name, int32_t chain, int32_t instr, int32_t did,
                  const char *dstr, const uint8_t *md, size_t mdlen, uint64_t s, uint64_t e)
{
    fbb_ref nm = name ? fbb_cstring(b, name) : 0;
    fbb_ref ds = dstr ? fbb_cstring(b, dstr) : 0;
    fbb_ref mv = md ? fbb_vec_scalars(b, md, mdlen, 1) : 0;
    fbb_table_begin(b);
    fbb_add_u64(b, ETD_PE_START, s, 0);
    fbb_add_u64(b, ETD_PE_END, e, 0);
    fbb_add_ref(b, ETD_PE_NAME, nm);
    fbb_add_i32(b, ETD_PE_CHAIN, chain, 0);
    fbb_add_i32(b, ETD_PE_INSTR, instr, -1);
    fbb_add_i32(b, ETD_PE_DID_INT, did, -1);
    fbb_add_ref(b, ETD_PE_DID_STR, ds);
    fbb_add_ref(b, ETD_PE_METADATA, mv);
    fbb_ref p = fbb_table_end(b);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_EVENT_PROFILE, p);
    return fbb_table_end(b);
}

static etp_etdump *open_mem(const uint8_t *data, size_t len)
{
    etp_blob *blob;
    etp_error err;
    assert_int_equal(etp_blob_from_memory(data, len, "built.etdp", &blob, &err), ETP_OK);
    etp_etdump *d = NULL;
    if (etp_etdump_from_blob(blob, &d, &err))
        fail_msg("built ETDump rejected: %s (offset %lld)", err.message, (long long)err.offset);
    return d;
}

static void builder_etdump_roundtrip(void **state)
{
    (void)state;
    fbb b;
    assert_int_equal(fbb_init(&b, 0), 0);
    static const uint8_t md[3] = {7, 8, 9};
    fbb_ref ev[3];
    ev[0] = pe(&b, "native_call_add.out", 0, 0, -1, NULL, NULL, 0, 100, 200);
    ev[1] = pe(&b, NULL, 0, 1, -1, "Add (ND) #1", md, 3, 300, 301);
    ev[2] = pe(&b, "Method::execute", -1, 0, -1, NULL, NULL, 0, 50, UINT64_MAX);
    fbb_ref evs = fbb_vec_refs(&b, ev, 3);
    fbb_ref nm = fbb_cstring(&b, "Execute");
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_RUN_EVENTS, evs);
    fbb_add_ref(&b, ETD_RUN_NAME, nm);
    fbb_add_i32(&b, ETD_RUN_BUNDLED_INPUT_INDEX, 4, -1);
    fbb_ref run = fbb_table_end(&b);
    fbb_ref runs = fbb_vec_refs(&b, &run, 1);
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_ETDUMP_RUN_DATA, runs);
    fbb_ref root = fbb_table_end(&b);
    assert_int_equal(fbb_finish(&b, root, "ED00", 1), 0);
    assert_null(fbb_error(&b));
    size_t len;
    const uint8_t *data = fbb_data(&b, &len);
    /* size prefix, identifier, and a total size that keeps file-relative
     * alignment (the verifier checks every 8-byte field against the file) */
    uint32_t prefix;
    memcpy(&prefix, data, 4);
    assert_int_equal(prefix, len - 4);
    assert_memory_equal(data + 8, "ED00", 4);
    assert_int_equal(len % 8, 0);

    etp_etdump *d = open_mem(data, len);
    assert_int_equal(etp_etdump_run_count(d), 1);
    etp_run r;
    etp_etdump_run(d, 0, &r);
    assert_string_equal(r.name, "Execute");
    assert_int_equal(r.bundled_input_index, 4);
    assert_int_equal(r.event_count, 3);
    etp_event e;
    etp_etdump_event(d, &r, 0, &e);
    assert_string_equal(e.profile.name, "native_call_add.out");
    assert_int_equal(e.profile.chain_index, 0);
    assert_int_equal(e.profile.instruction_id, 0);
    assert_int_equal(e.profile.start_time, 100);
    assert_int_equal(e.profile.end_time, 200);
    assert_int_equal(e.profile.has_metadata, 0);
    etp_etdump_event(d, &r, 1, &e);
    assert_null(e.profile.name);
    assert_string_equal(e.profile.delegate_id_str, "Add (ND) #1");
    assert_int_equal(e.profile.delegate_id_int, -1);
    assert_int_equal(e.profile.has_metadata, 1);
    assert_int_equal(e.profile.metadata_len, 3);
    assert_memory_equal(e.profile.metadata, md, 3);
    etp_etdump_event(d, &r, 2, &e);
    assert_int_equal(e.profile.chain_index, -1);
    assert_true(e.profile.end_time == UINT64_MAX);
    etp_etdump_free(d);
    fbb_free(&b);
}

/* Vtable of the table at file position @p t. */
static uint32_t vtable_of(const uint8_t *data, uint32_t t)
{
    int32_t so;
    memcpy(&so, data + t, 4);
    return (uint32_t)((int64_t)t - so);
}

static void builder_defaults_and_shared_vtables(void **state)
{
    (void)state;
    fbb b;
    assert_int_equal(fbb_init(&b, 64), 0);
    fbb_ref ev[4];
    /* all scalars at their defaults: nothing stored */
    ev[0] = pe(&b, NULL, 0, -1, -1, NULL, NULL, 0, 0, 0);
    ev[1] = pe(&b, "OPERATOR_CALL", 0, 3, -1, NULL, NULL, 0, 10, 20);
    ev[2] = pe(&b, "OPERATOR_CALL", 0, 4, -1, NULL, NULL, 0, 30, 40);
    ev[3] = pe(&b, "DELEGATE_CALL", 0, 5, -1, NULL, NULL, 0, 50, 60);
    fbb_ref evs = fbb_vec_refs(&b, ev, 4);
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_RUN_EVENTS, evs);
    fbb_ref run = fbb_table_end(&b);
    fbb_ref runs = fbb_vec_refs(&b, &run, 1);
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_ETDUMP_RUN_DATA, runs);
    fbb_add_u32(&b, ETD_ETDUMP_VERSION, 0, 0);
    fbb_ref root = fbb_table_end(&b);
    assert_int_equal(fbb_finish(&b, root, "ED00", 1), 0);
    size_t len;
    const uint8_t *data = fbb_data(&b, &len);
    etp_etdump *d = open_mem(data, len);
    etp_run r;
    etp_etdump_run(d, 0, &r);
    assert_null(r.name);
    assert_int_equal(r.bundled_input_index, -1);
    etp_event e[4];
    uint32_t pos[4];
    fb_buf fb = {data, (uint32_t)len};
    for (uint32_t i = 0; i < 4; i++) {
        etp_etdump_event(d, &r, i, &e[i]);
        pos[i] = fb_ref(&fb, e[i].offset, ETD_EVENT_PROFILE);
    }
    /* an all-default table has an empty vtable (just the two sizes) */
    uint16_t vtlen;
    memcpy(&vtlen, data + vtable_of(data, pos[0]), 2);
    assert_int_equal(vtlen, 4);
    assert_int_equal(e[0].profile.instruction_id, -1);
    assert_int_equal(e[0].profile.start_time, 0);
    /* same field layout, same vtable: written once */
    assert_int_equal(vtable_of(data, pos[1]), vtable_of(data, pos[2]));
    assert_int_equal(vtable_of(data, pos[2]), vtable_of(data, pos[3]));
    assert_int_not_equal(vtable_of(data, pos[0]), vtable_of(data, pos[1]));
    /* the Event wrappers share one too */
    assert_int_equal(vtable_of(data, e[0].offset), vtable_of(data, e[3].offset));
    /* version 0 is the default: absent from the root's vtable */
    uint32_t rootpos = 4 + fb_u32(&fb, 4);
    assert_int_equal(fb_field_pos(&fb, rootpos, ETD_ETDUMP_VERSION), 0);
    etp_etdump_free(d);
    fbb_free(&b);
}

static void builder_growth(void **state)
{
    (void)state;
    enum { N = 30000 };
    fbb b;
    assert_int_equal(fbb_init(&b, 16), 0); /* forces many reallocations */
    fbb_ref *allocs = malloc(N * sizeof *allocs);
    assert_non_null(allocs);
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "allocator_%d", i);
        fbb_ref s = fbb_cstring(&b, name);
        fbb_table_begin(&b);
        fbb_add_ref(&b, 0, s);
        allocs[i] = fbb_table_end(&b);
    }
    fbb_ref av = fbb_vec_refs(&b, allocs, N);
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_RUN_ALLOCATORS, av);
    fbb_ref run = fbb_table_end(&b);
    fbb_ref runs = fbb_vec_refs(&b, &run, 1);
    fbb_table_begin(&b);
    fbb_add_ref(&b, ETD_ETDUMP_RUN_DATA, runs);
    fbb_ref root = fbb_table_end(&b);
    assert_int_equal(fbb_finish(&b, root, "ED00", 1), 0);
    size_t len;
    const uint8_t *data = fbb_data(&b, &len);
    etp_etdump *d = open_mem(data, len);
    etp_run r;
    etp_etdump_run(d, 0, &r);
    assert_int_equal(r.allocator_count, N);
    assert_string_equal(etp_etdump_allocator_name(d, &r, 0), "allocator_0");
    assert_string_equal(etp_etdump_allocator_name(d, &r, N - 1), "allocator_29999");
    etp_etdump_free(d);
    free(allocs);
    fbb_free(&b);
}

static void builder_misuse(void **state)
{
    (void)state;
    fbb b;
    assert_int_equal(fbb_init(&b, 0), 0);
    fbb_table_begin(&b);
    assert_int_equal(fbb_cstring(&b, "no strings inside a table"), 0);
    assert_non_null(fbb_error(&b));
    assert_int_equal(fbb_finish(&b, 4, "ED00", 1), -1);
    fbb_reset(&b);
    assert_null(fbb_error(&b));
    assert_int_equal(fbb_table_end(&b), 0); /* end without begin */
    assert_non_null(fbb_error(&b));
    fbb_reset(&b);
    fbb_table_begin(&b);
    fbb_add_i32(&b, FBB_MAX_FIELDS, 1, 0); /* id out of range */
    assert_non_null(fbb_error(&b));
    fbb_reset(&b);
    fbb_ref r = fbb_cstring(&b, "x");
    fbb_ref bad[2] = {r, 0};
    assert_int_equal(fbb_vec_refs(&b, bad, 2), 0); /* null element */
    assert_non_null(fbb_error(&b));
    fbb_free(&b);
    fbb_free(&b); /* safe twice */
}

/* ---------------------------------------------------------------------- */
/* generators                                                              */

typedef struct paths {
    char *dir;
    char etdp[512], pte[512], etr[512];
} paths;

static void paths_make(paths *p, const char *stem)
{
    p->dir = tu_tmpdir();
    assert_non_null(p->dir);
    snprintf(p->etdp, sizeof p->etdp, "%s/%s.etdp", p->dir, stem);
    snprintf(p->pte, sizeof p->pte, "%s/%s.pte", p->dir, stem);
    snprintf(p->etr, sizeof p->etr, "%s/%s.etrecord", p->dir, stem);
}

static void paths_free(paths *p)
{
    tu_rmrf(p->dir);
    free(p->dir);
}

/* Check every Execute block against @p plan: per instruction the events the
 * runtime would log, nested and in completion order. Returns events seen. */
static uint64_t check_blocks(etp_etdump *d, const etp_plan *plan, uint32_t runs)
{
    assert_int_equal(etp_etdump_run_count(d), runs + 1);
    etp_run r;
    etp_event e;
    etp_etdump_run(d, 0, &r);
    assert_string_equal(r.name, "Default");
    assert_int_equal(r.event_count, 2);
    etp_etdump_event(d, &r, 0, &e);
    assert_string_equal(e.profile.name, "Method::init");
    uint64_t init_s = e.profile.start_time, init_e = e.profile.end_time;
    etp_etdump_event(d, &r, 1, &e);
    assert_string_equal(e.profile.name, "Program::load_method");
    assert_true(e.profile.start_time < init_s && init_e < e.profile.end_time);
    uint64_t prev_end = e.profile.end_time, total = 2;
    const etp_chain *ch = &plan->chains[0];
    for (uint32_t k = 1; k <= runs; k++) {
        etp_etdump_run(d, k, &r);
        assert_string_equal(r.name, "Execute");
        total += r.event_count;
        etp_event last;
        etp_etdump_event(d, &r, r.event_count - 1, &last);
        assert_string_equal(last.profile.name, "Method::execute");
        assert_int_equal(last.profile.chain_index, -1);
        assert_int_equal(last.profile.instruction_id, 0);
        assert_true(last.profile.start_time > prev_end);
        prev_end = last.profile.end_time;
        uint64_t cursor = last.profile.start_time;
        uint32_t j = 0;
        for (uint32_t i = 0; i < ch->instruction_count; i++) {
            const etp_instruction *in = &ch->instructions[i];
            etp_event child, parent;
            if (in->kind == ETP_INSTR_KERNEL) {
                etp_etdump_event(d, &r, j++, &child);
                etp_etdump_event(d, &r, j++, &parent);
                char want[160];
                snprintf(want, sizeof want, "native_call_%s",
                         plan->operators[in->a].kernel_suffix);
                assert_string_equal(child.profile.name, want);
                assert_string_equal(parent.profile.name, "OPERATOR_CALL");
                assert_int_equal(child.profile.instruction_id, (int32_t)i);
                assert_true(parent.profile.start_time < child.profile.start_time &&
                            child.profile.end_time < parent.profile.end_time);
            } else {
                assert_int_equal(in->kind, ETP_INSTR_DELEGATE);
                uint32_t first = j, n = 0;
                do {
                    etp_etdump_event(d, &r, j++, &child);
                    n++;
                } while (!child.profile.name);
                parent = child;
                assert_true(n >= 2); /* at least one backend event */
                assert_string_equal(parent.profile.name, "DELEGATE_CALL");
                for (uint32_t q = first; q < j - 1; q++) {
                    etp_etdump_event(d, &r, q, &child);
                    assert_int_equal(child.profile.has_metadata, 1);
                    assert_int_equal(child.profile.metadata_len, 0);
                    assert_int_equal(child.profile.instruction_id, (int32_t)i);
                    assert_true((child.profile.delegate_id_int >= 0) !=
                                (child.profile.delegate_id_str != NULL));
                    assert_true(parent.profile.start_time < child.profile.start_time &&
                                child.profile.end_time < parent.profile.end_time);
                }
            }
            assert_int_equal(parent.profile.chain_index, 0);
            assert_int_equal(parent.profile.instruction_id, (int32_t)i);
            assert_true(parent.profile.start_time >= cursor);
            cursor = parent.profile.end_time;
        }
        assert_int_equal(j, r.event_count - 1);
        assert_true(cursor < last.profile.end_time);
    }
    return total;
}

static void gen_etdump_consistent(void **state)
{
    (void)state;
    paths p;
    paths_make(&p, "synth");
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.etdump_path = p.etdp;
    o.pte_path = p.pte;
    o.etrecord_path = p.etr;
    o.executions = 3;
    o.instructions = 25;
    o.delegate_every = 5;
    etp_gen_result res;
    etp_error err;
    if (etp_gen_etdump(&o, &res, &err))
        fail_msg("gen: %s", err.message);
    assert_int_equal(res.kernel_calls, 20);
    assert_int_equal(res.delegate_calls, 5);
    assert_true(res.pte_bytes > 0 && res.etrecord_bytes > 0);

    etp_program *prog;
    if (etp_program_open(p.pte, &prog, &err))
        fail_msg("pte: %s", err.message);
    assert_int_equal(prog->plan_count, 1);
    const etp_plan *plan = etp_program_find_plan(prog, "forward");
    assert_non_null(plan);
    assert_int_equal(plan->chain_count, 1);
    assert_int_equal(plan->chains[0].instruction_count, 25);
    assert_true(prog->has_extended_header);
    for (uint32_t i = 0; i < 25; i++) {
        const etp_instruction *in = &plan->chains[0].instructions[i];
        assert_int_equal(in->kind, (i + 1) % 5 == 0 ? ETP_INSTR_DELEGATE : ETP_INSTR_KERNEL);
        for (uint32_t k = 0; k < in->arg_count; k++)
            assert_true(in->args[k] >= 0 && (uint32_t)in->args[k] < plan->value_count);
        if (in->kind == ETP_INSTR_KERNEL) {
            assert_true(in->a >= 0 && (uint32_t)in->a < plan->operator_count);
            assert_memory_equal(plan->operators[in->a].name, "aten::", 6);
            assert_string_equal(plan->operators[in->a].overload, "out");
        } else {
            const etp_delegate *dg = &plan->delegates[in->a];
            assert_string_equal(dg->id, "XnnpackBackend");
            assert_int_equal(dg->location, 1);
            assert_true(dg->size_known && dg->processed_size >= 512);
        }
    }
    etp_etdump *d;
    if (etp_etdump_open(p.etdp, &d, &err))
        fail_msg("etdump: %s", err.message);
    assert_int_equal(etp_etdump_size(d), res.etdump_bytes);
    assert_int_equal(check_blocks(d, plan, 3), res.events);
    etp_etdump_free(d);
    etp_program_free(prog);
    paths_free(&p);
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *da = tu_read_file(a, &la), *db = tu_read_file(b, &lb);
    assert_non_null(da);
    assert_non_null(db);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

static void gen_deterministic(void **state)
{
    (void)state;
    paths a, b;
    paths_make(&a, "a");
    paths_make(&b, "b");
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.instructions = 40;
    o.delegate_every = 3;
    o.backend = ETP_GEN_VULKAN;
    o.seed = 99;
    etp_error err;
    o.etdump_path = a.etdp, o.pte_path = a.pte, o.etrecord_path = a.etr;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    o.etdump_path = b.etdp, o.pte_path = b.pte, o.etrecord_path = b.etr;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    const char *pa[3] = {a.etdp, a.pte, a.etr}, *pb[3] = {b.etdp, b.pte, b.etr};
    for (int k = 0; k < 3; k++)
        assert_same_file(pa[k], pb[k]);
    /* another seed changes the timings */
    o.seed = 100;
    o.pte_path = o.etrecord_path = NULL;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    size_t la, lb;
    uint8_t *da = tu_read_file(a.etdp, &la), *db = tu_read_file(b.etdp, &lb);
    assert_true(la != lb || memcmp(da, db, la) != 0);
    free(da);
    free(db);
    paths_free(&a);
    paths_free(&b);
}

/* Sum of Method::execute durations over the Execute blocks of @p path. */
static uint64_t execute_total(const char *path)
{
    etp_etdump *d;
    etp_error err;
    if (etp_etdump_open(path, &d, &err))
        fail_msg("etdump: %s", err.message);
    uint64_t total = 0;
    for (uint32_t k = 1; k < etp_etdump_run_count(d); k++) {
        etp_run r;
        etp_event last;
        etp_etdump_run(d, k, &r);
        etp_etdump_event(d, &r, r.event_count - 1, &last);
        assert_string_equal(last.profile.name, "Method::execute");
        total += last.profile.end_time - last.profile.start_time;
    }
    etp_etdump_free(d);
    return total;
}

/* time_scale multiplies every duration (the draws stay the same), and a
 * timing seed changes the timings but not the program or ETRecord. */
static void gen_time_scale(void **state)
{
    (void)state;
    paths a, b;
    paths_make(&a, "scale1");
    paths_make(&b, "scale2");
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.instructions = 30;
    o.executions = 4;
    etp_error err;
    o.etdump_path = a.etdp, o.pte_path = a.pte, o.etrecord_path = a.etr;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    uint64_t base = execute_total(a.etdp);
    o.time_scale = 1.5;
    o.etdump_path = b.etdp, o.pte_path = b.pte, o.etrecord_path = b.etr;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    double ratio = (double)execute_total(b.etdp) / (double)base;
    /* rounding to whole ticks and XNNPACK's whole microseconds only */
    assert_true(ratio > 1.49 && ratio < 1.51);
    /* the program and ETRecord do not depend on the timings */
    const char *pa[2] = {a.pte, a.etr}, *pb[2] = {b.pte, b.etr};
    o.time_scale = 1.0;
    o.timing_seed = 12345;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_OK);
    assert_true(execute_total(b.etdp) != base);
    for (int k = 0; k < 2; k++)
        assert_same_file(pa[k], pb[k]);
    o.time_scale = -1;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_E_USAGE);
    paths_free(&a);
    paths_free(&b);
}

static void gen_demo_design(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    etp_gen_result res;
    etp_error err;
    if (etp_gen_demo(dir, 5, 1, &res, &err))
        fail_msg("demo: %s", err.message);
    char path[600];
    snprintf(path, sizeof path, "%s/model.pte", dir);
    etp_program *prog;
    if (etp_program_open(path, &prog, &err))
        fail_msg("demo pte: %s", err.message);
    assert_int_equal(prog->plan_count, 2);
    const etp_plan *fwd = etp_program_find_plan(prog, "forward");
    assert_non_null(fwd);
    static const char *const ops[9] = {"aten::convolution.out", "aten::relu.out",
                                       "aten::max_pool2d_with_indices.out", NULL,
                                       "executorch_prim::et_view.default", "aten::addmm.out",
                                       "aten::relu.out", "aten::addmm.out", "aten::_softmax.out"};
    assert_int_equal(fwd->chains[0].instruction_count, 9);
    for (int i = 0; i < 9; i++) {
        const etp_instruction *in = &fwd->chains[0].instructions[i];
        if (!ops[i]) {
            assert_int_equal(in->kind, ETP_INSTR_DELEGATE);
            const etp_delegate *dg = &fwd->delegates[in->a];
            assert_string_equal(dg->id, "VulkanBackend");
            assert_int_equal(dg->location, 1);
            assert_true(dg->size_known && dg->processed_size > 0);
            assert_int_equal(dg->compile_spec_count, 2);
        } else {
            assert_int_equal(in->kind, ETP_INSTR_KERNEL);
            assert_string_equal(fwd->operators[in->a].full_name, ops[i]);
        }
    }
    const etp_plan *pre = etp_program_find_plan(prog, "preprocess");
    assert_non_null(pre);
    assert_int_equal(pre->chains[0].instruction_count, 2);
    assert_string_equal(pre->operators[pre->chains[0].instructions[0].a].full_name,
                        "aten::sub.out");
    assert_string_equal(pre->operators[pre->chains[0].instructions[1].a].full_name,
                        "aten::div.out");

    snprintf(path, sizeof path, "%s/run.etdp", dir);
    etp_etdump *d;
    if (etp_etdump_open(path, &d, &err))
        fail_msg("demo etdump: %s", err.message);
    assert_int_equal(check_blocks(d, fwd, 5), res.events);
    etp_run r;
    etp_etdump_run(d, 1, &r);
    /* 8 kernels (operator call + native call each), the delegate call with
     * one event per delegated operator, Method::execute */
    assert_int_equal(r.event_count, 8 * 2 + 1 + 3 + 1);
    etp_event e;
    for (int k = 0; k < 3; k++) { /* after 3 kernels: Vulkan's ids 0, 1, 2 */
        etp_etdump_event(d, &r, (uint32_t)(6 + k), &e);
        assert_int_equal(e.profile.delegate_id_int, k);
        assert_int_equal(e.profile.instruction_id, 3);
        assert_null(e.profile.delegate_id_str);
    }
    etp_etdump_free(d);
    etp_program_free(prog);
    tu_rmrf(dir);
    free(dir);
}

static void gen_errors(void **state)
{
    (void)state;
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    etp_error err;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_E_USAGE); /* no path */
    o.etdump_path = "/nonexistent-dir/x.etdp";
    o.instructions = 0;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_E_USAGE);
    o.instructions = 10;
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_E_IO);
    assert_string_equal(err.file, "/nonexistent-dir/x.etdp");
    o.executions = UINT32_MAX;
    o.instructions = 1000; /* would be terabytes */
    assert_int_equal(etp_gen_etdump(&o, NULL, &err), ETP_E_LIMIT);
    assert_int_equal(etp_gen_demo("/nonexistent-dir", 1, 1, NULL, &err), ETP_E_IO);
    assert_int_equal(etp_gen_demo("", 1, 1, NULL, &err), ETP_E_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builder_etdump_roundtrip),
        cmocka_unit_test(builder_defaults_and_shared_vtables),
        cmocka_unit_test(builder_growth),
        cmocka_unit_test(builder_misuse),
        cmocka_unit_test(gen_etdump_consistent),
        cmocka_unit_test(gen_deterministic),
        cmocka_unit_test(gen_time_scale),
        cmocka_unit_test(gen_demo_design),
        cmocka_unit_test(gen_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
