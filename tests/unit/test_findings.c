/* test_findings.c - the finding registry and thresholds, and the rules on
 * hand-built analyses whose every number is known: a fragmented program
 * (delegate, dequantize, two convolutions, quantize, delegate) fires
 * fragmentation with the island's share, boundary conversions, native
 * dominance and CPU-side dominance; a shared member holds back the island's
 * share and the conversions' total; totals over differing coverage withhold
 * native dominance; thresholds move the decisions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/findings/findings_internal.h"
#include "etprof/analysis.h"
#include "etprof/findings.h"

static void test_registry(void **state)
{
    (void)state;
    size_t n;
    const etp_finding_rule *r = etp_finding_registry(&n);
    assert_true(n >= 13);
    int slot_seen[ETP_FINDING_PARAM_MAX] = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            assert_true(strcmp(r[i - 1].code, r[i].code) < 0);
        assert_ptr_equal(etp_finding_lookup(r[i].code), &r[i]);
        assert_non_null(etp_finding_category_name(r[i].category));
        assert_true(r[i].severity != ETP_SEV_ERROR);
        assert_true(strlen(r[i].title) && strlen(r[i].next_step));
        for (uint32_t k = 0; k < r[i].param_count; k++) {
            const etp_finding_param *p = &r[i].params[k];
            assert_true(p->index < P_COUNT);
            assert_int_equal(slot_seen[p->index], 0);
            slot_seen[p->index] = 1;
            assert_true(strlen(p->why) > 20);
        }
    }
    for (int s = 0; s < P_COUNT; s++)
        assert_int_equal(slot_seen[s], 1);
    assert_true(P_COUNT <= ETP_FINDING_PARAM_MAX);
    assert_null(etp_finding_lookup("no.such"));
}

static void test_settings(void **state)
{
    (void)state;
    etp_finding_settings s;
    memset(&s, 0, sizeof s);
    etp_error err;
    const etp_finding_rule *h = etp_finding_lookup("hotspot.op_type");
    assert_true(etp_finding_setting(&s, &h->params[0]) == 30);
    assert_int_equal(etp_finding_settings_parse(&s, "hotspot.op_type.min_share_pct=42.5", &err), ETP_OK);
    assert_true(etp_finding_setting(&s, &h->params[0]) == 42.5);
    assert_true(etp_finding_setting(NULL, &h->params[0]) == 30);
    const char *bad[] = {"hotspot.op_type.min_share_pct", "hotspot.op_type=3", "nope.x.min=1",
                         "hotspot.op_type.nokey=1", "hotspot.op_type.min_share_pct=-1",
                         "hotspot.op_type.min_share_pct=abc", "hotspot.op_type.min_share_pct=1e999",
                         "hotspot.op_type.min_share_pct="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(etp_finding_settings_parse(&s, bad[i], &err), ETP_E_USAGE);
        assert_non_null(strstr(err.message, "--finding"));
    }
    assert_true(etp_finding_setting(&s, &h->params[0]) == 42.5); /* unchanged by the failures */
}

/* A hand-built analysis: 4 executions, cycles, every entity measured in
 * each of them unless said otherwise. */
#define EXECS 4
typedef struct world {
    etp_analysis a;
    etp_entity e[16];
    etp_figure f[8];
    uint64_t ticks[8][EXECS];
    uint8_t present[8][EXECS];
} world;

static void instr(world *w, int i, etp_instr_kind kind, const char *op, const char *backend, double avg)
{
    etp_entity *e = &w->e[w->a.entity_count++];
    memset(e, 0, sizeof *e);
    e->kind = ETP_ENTITY_INSTRUCTION;
    static char ids[16][32];
    snprintf(ids[i], sizeof ids[i], "forward_0_%d", i);
    e->id = ids[i];
    e->name = ids[i];
    e->op_type = (char *)op;
    e->backend = backend;
    e->chain = 0;
    e->instruction = i;
    e->instr_kind = kind;
    e->source = kind == ETP_INSTR_DELEGATE ? ETP_SRC_DELEGATE_CALL : ETP_SRC_OPERATOR_CALL;
    e->time.stats.n = EXECS;
    e->time.stats.avg = avg;
    e->time.executions = EXECS;
    e->time.events = EXECS;
    e->additive = 1;
}

static void figure(world *w, etp_figure_id id, double avg, int available)
{
    etp_figure *f = &w->f[w->a.figure_count];
    memset(f, 0, sizeof *f);
    f->id = id;
    f->name = etp_figure_id_name(id);
    f->available = available;
    f->reason = available ? NULL : (char *)"instructions were measured in different executions";
    f->stats.n = EXECS;
    f->stats.avg = avg;
    f->additive = 1;
    for (int x = 0; x < EXECS; x++) {
        w->ticks[w->a.figure_count][x] = (uint64_t)avg;
        w->present[w->a.figure_count][x] = 1;
    }
    f->series.ticks = (int64_t *)w->ticks[w->a.figure_count];
    f->series.present = w->present[w->a.figure_count];
    w->a.figure_count++;
}

/* Seed 001's fragmented Ethos-U profile, in cycles: delegate calls of 105 k
 * and 47 k, a convolution island of 1.67 G, dequantize 21.6 M and quantize
 * 6.47 M at the boundaries, Method::execute 1.70 G. */
static void fragmented(world *w, int native_available)
{
    memset(w, 0, sizeof *w);
    w->a.entities = w->e;
    w->a.figures = w->f;
    w->a.execution_count = EXECS;
    w->a.divisor = 1;
    w->a.target_unit = ETP_UNIT_CYCLES;
    w->a.source_unit = ETP_UNIT_CYCLES;
    instr(w, 0, ETP_INSTR_KERNEL, "quantized_decomposed::quantize_per_tensor.out", NULL, 6.47e6);
    instr(w, 1, ETP_INSTR_DELEGATE, "EthosUBackend", "EthosUBackend", 105e3);
    instr(w, 2, ETP_INSTR_KERNEL, "quantized_decomposed::dequantize_per_channel.out", NULL, 21.6e6);
    instr(w, 3, ETP_INSTR_KERNEL, "aten::convolution.out", NULL, 1.20e9);
    instr(w, 4, ETP_INSTR_KERNEL, "aten::convolution.out", NULL, 0.47e9);
    instr(w, 5, ETP_INSTR_DELEGATE, "EthosUBackend", "EthosUBackend", 47e3);
    instr(w, 6, ETP_INSTR_KERNEL, "quantized_decomposed::dequantize_per_tensor.out", NULL, 1e6);
    double native = 6.47e6 + 21.6e6 + 1.20e9 + 0.47e9 + 1e6;
    figure(w, ETP_FIG_METHOD_EXECUTE, 1.70e9, 1);
    figure(w, ETP_FIG_OPERATOR_CALLS_TOTAL, native, native_available);
    figure(w, ETP_FIG_DELEGATE_CALLS_TOTAL, 152e3, native_available);
}

static const etp_finding *find(const etp_finding_list *l, const char *code)
{
    for (uint32_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i].rule->code, code))
            return &l->items[i];
    return NULL;
}

static const etp_finding_value *value(const etp_finding *f, const char *name)
{
    for (uint32_t i = 0; i < f->evidence_count; i++)
        if (!strcmp(f->evidence[i].name, name))
            return &f->evidence[i];
    return NULL;
}

static int names(const etp_finding *f, const char *id, const char *role)
{
    for (uint32_t i = 0; i < f->entity_count; i++)
        if (!strcmp(f->entities[i].id, id) && (!role || (f->entities[i].role && !strcmp(f->entities[i].role, role))))
            return 1;
    return 0;
}

static void test_fragmented_profile(void **state)
{
    (void)state;
    world *w = calloc(1, sizeof *w);
    fragmented(w, 1);
    etp_finding_list l = {0};
    etp_error err;
    assert_int_equal(finding_rules_run(&w->a, NULL, &l, &err), ETP_OK);
    for (uint32_t i = 1; i < l.count; i++) /* registry order */
        assert_true(strcmp(l.items[i - 1].rule->code, l.items[i].rule->code) <= 0);

    const etp_finding *fr = find(&l, "delegation.fragmented");
    assert_non_null(fr);
    assert_int_equal(fr->status, ETP_FINDING_FIRED);
    assert_true(names(fr, "forward_0_3", "island 1") && names(fr, "forward_0_4", "island 1"));
    assert_true(names(fr, "forward_0_2", "island 1")); /* the dequantize is native too */
    assert_true(names(fr, "forward_0_1", "partition") && names(fr, "forward_0_5", "partition"));
    assert_false(names(fr, "forward_0_0", NULL) || names(fr, "forward_0_6", NULL)); /* outside the partitions */
    double island = 21.6e6 + 1.20e9 + 0.47e9;
    assert_true(fabs(value(fr, "largest_island_avg")->value - island) < 1);
    assert_true(fabs(value(fr, "largest_island_share")->value - 100 * island / 1.70e9) < 1e-9);
    assert_non_null(strstr(fr->details_json, "\"share_pct\""));

    const etp_finding *bc = find(&l, "delegation.boundary_conversions");
    assert_non_null(bc);
    assert_int_equal(bc->status, ETP_FINDING_FIRED);
    assert_int_equal(bc->entity_count, 3);
    assert_true(names(bc, "forward_0_0", "before a delegate call") && names(bc, "forward_0_2", "after a delegate call"));
    assert_true(names(bc, "forward_0_6", "after a delegate call"));
    assert_true(fabs(value(bc, "conversions_avg")->value - (6.47e6 + 21.6e6 + 1e6)) < 1);

    const etp_finding *nd = find(&l, "delegation.native_dominates");
    assert_non_null(nd);
    assert_true(nd->entities[0].id[10] == '3'); /* the largest native first: forward_0_3 */
    const etp_finding *cs = find(&l, "delegation.cpu_side_dominates");
    assert_non_null(cs);
    assert_true(value(cs, "delegate_share_of_native")->value < 0.01);
    assert_null(find(&l, "delegation.none"));
    etp_finding_list_free(&l);

    /* A threshold above the island-free share stops the conversions'. */
    etp_finding_settings s;
    memset(&s, 0, sizeof s);
    assert_int_equal(etp_finding_settings_parse(&s, "delegation.boundary_conversions.min_share_pct=2", &err), ETP_OK);
    assert_int_equal(finding_rules_run(&w->a, &s, &l, &err), ETP_OK);
    assert_null(find(&l, "delegation.boundary_conversions"));
    const etp_finding *bt = find(&l, "delegation.native_dominates");
    assert_int_equal(bt->threshold_count, 1);
    assert_false(bt->thresholds[0].given);
    etp_finding_list_free(&l);
    free(w);
}

static void test_withheld(void **state)
{
    (void)state;
    world *w = calloc(1, sizeof *w);
    fragmented(w, 0);
    /* The dequantize shares its timing with another operator. */
    w->e[2].shared = 1;
    etp_finding_list l = {0};
    etp_error err;
    assert_int_equal(finding_rules_run(&w->a, NULL, &l, &err), ETP_OK);
    const etp_finding *nd = find(&l, "delegation.native_dominates");
    assert_non_null(nd);
    assert_int_equal(nd->status, ETP_FINDING_WITHHELD);
    assert_non_null(strstr(nd->message, "different executions"));
    assert_int_equal(find(&l, "delegation.cpu_side_dominates")->status, ETP_FINDING_WITHHELD);
    assert_int_equal(find(&l, "delegation.boundary_conversions")->status, ETP_FINDING_WITHHELD);
    assert_null(value(find(&l, "delegation.boundary_conversions"), "conversions_avg"));
    /* Fragmentation is structural: it fires, but the island's share is not formed. */
    const etp_finding *fr = find(&l, "delegation.fragmented");
    assert_int_equal(fr->status, ETP_FINDING_FIRED);
    assert_null(value(fr, "largest_island_avg"));
    assert_non_null(strstr(fr->details_json, "share_not_formed"));
    assert_int_equal(etp_finding_list_count(&l, ETP_FINDING_WITHHELD), 3);
    etp_finding_list_free(&l);
    free(w);
}

static void test_no_delegates(void **state)
{
    (void)state;
    world *w = calloc(1, sizeof *w);
    memset(w, 0, sizeof *w);
    w->a.entities = w->e;
    w->a.figures = w->f;
    w->a.execution_count = EXECS;
    w->a.divisor = 1;
    w->a.target_unit = ETP_UNIT_MS;
    for (int i = 0; i < 6; i++)
        instr(w, i, ETP_INSTR_KERNEL, i % 2 ? "aten::addmm.out" : "aten::gelu.out", NULL, i % 2 ? 1400.0 : 100.0);
    figure(w, ETP_FIG_METHOD_EXECUTE, 4600, 1);
    figure(w, ETP_FIG_OPERATOR_CALLS_TOTAL, 4500, 1);
    etp_op_type_total t[2] = {{"aten::addmm.out", 3, 3, 0, 4200, 0, 1, 100.0 * 4200 / 4600},
                              {"aten::gelu.out", 3, 3, 0, 300, 0, 1, 100.0 * 300 / 4600}};
    w->a.op_type_totals = t;
    w->a.op_type_total_count = 2;
    w->a.op_type_kind = ETP_ENTITY_INSTRUCTION;
    etp_finding_list l = {0};
    etp_error err;
    assert_int_equal(finding_rules_run(&w->a, NULL, &l, &err), ETP_OK);
    assert_non_null(find(&l, "delegation.none"));
    assert_null(find(&l, "delegation.native_dominates"));
    const etp_finding *h = find(&l, "hotspot.op_type");
    assert_non_null(h);
    assert_non_null(strstr(h->message, "aten::addmm.out: 3 instructions"));
    assert_int_equal(h->entity_count, 3);
    etp_finding_list_free(&l);
    free(w);
}

/* Method::execute over ten executions: two slow warm-up runs, then eight
 * split into two groups (1000 and 1300 ticks). */
static void test_stability(void **state)
{
    (void)state;
    int64_t ticks[10] = {9000, 4000, 1000, 1300, 1000, 1300, 1000, 1300, 1000, 1300};
    uint8_t present[10];
    memset(present, 1, sizeof present);
    etp_figure f;
    memset(&f, 0, sizeof f);
    f.id = ETP_FIG_METHOD_EXECUTE;
    f.name = "method_execute";
    f.available = 1;
    f.stats.n = 10;
    f.stats.avg = 2120;
    f.series.ticks = ticks;
    f.series.present = present;
    etp_analysis a;
    memset(&a, 0, sizeof a);
    a.figures = &f;
    a.figure_count = 1;
    a.execution_count = 10;
    a.divisor = 1;
    a.target_unit = ETP_UNIT_NS;
    a.cold_start = (etp_cold_start){1, 9, 9000, 1466.7, 1300, 9000 / 1466.7, 0, 0, 0, 0};
    etp_finding_list l = {0};
    etp_error err;
    assert_int_equal(finding_rules_run(&a, NULL, &l, &err), ETP_OK);
    const etp_finding *cs = find(&l, "stability.cold_start");
    assert_non_null(cs);
    assert_true(value(cs, "suggested_skip_executions")->value == 2);
    const etp_finding *un = find(&l, "stability.unstable");
    assert_non_null(un);
    assert_true(value(un, "warmup_left_out")->value == 2);
    assert_true(value(un, "executions")->value == 8);
    assert_true(fabs(value(un, "mean")->value - 1150) < 1e-9);
    assert_non_null(strstr(un->details_json, "\"bimodal\":true"));
    assert_non_null(strstr(un->details_json, "\"suggested_skip_executions\":2"));
    etp_finding_list_free(&l);

    /* Steady warm runs: neither fires once the first two are skipped. */
    int64_t steady[10] = {1000, 1001, 999, 1000, 1002, 998, 1000, 1001, 999, 1000};
    f.series.ticks = steady;
    a.cold_start.ratio = 1.0;
    assert_int_equal(finding_rules_run(&a, NULL, &l, &err), ETP_OK);
    assert_null(find(&l, "stability.unstable"));
    assert_null(find(&l, "stability.cold_start"));
    etp_finding_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),          cmocka_unit_test(test_settings),
        cmocka_unit_test(test_fragmented_profile), cmocka_unit_test(test_withheld),
        cmocka_unit_test(test_no_delegates),      cmocka_unit_test(test_stability),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
