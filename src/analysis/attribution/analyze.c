/* analyze.c - etp_analyze(): select the method and its executions
 * (method_select.c), build instruction and delegate-event entities from the
 * grouped events (entities.c), then hand over to source attribution
 * (attribute.c) and model figures (figures.c). */
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"
#include "analysis/nx/nx_attach.h"
#include "analysis/nx/nx_rows.h"
#include "analysis/numerics/numerics_internal.h"
#include "analysis/attribution/analysis_internal.h"
#include "analysis/attribution/device_report.h"
#include "analysis/attribution/entities.h"
#include "analysis/inspect/inspect_internal.h"
#include "analysis/inspect/method_match.h"
#include "analysis/attribution/method_select.h"
#include "analysis/series.h"
#include "util/parallel.h"
#include "util/str.h"
#include "etprof/etrecord.h"
#include "etprof/tensors.h"

void etp_analysis_options_init(etp_analysis_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_unit = ETP_UNIT_NS;
    o->target_unit = ETP_UNIT_MS;
    o->testset = -1;
}

/* The debug buffer beside the ETDump: every logged tensor inside it (the
 * dump is verified by now: inspection read every event). */
static etp_status check_debug_buffer(etp_analysis *a, const etp_etdump *d, const etp_analysis_options *opt,
                                     etp_error *err)
{
    etp_debug_buffer_info *db = &a->debug_buffer;
    const char *name = opt->debug_buffer_name ? opt->debug_buffer_name : "the debug buffer";
    etp_status s = etp_etdump_check_debug_buffer(d, opt->debug_buffer_size, name, &db->check, err);
    if (s)
        return s;
    if (!(db->name = etp_strdup(name)))
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    db->size = opt->debug_buffer_size;
    db->checked = 1;
    return ETP_OK;
}

/* Findings about the inputs themselves. */
static etp_status note_inputs(etp_abuild *b)
{
    etp_analysis *a = b->a;
    int bad = 0;
    const etp_inspect *in = a->inspect;
    uint64_t wrapped = 0;
    const etp_inspect_block *twin = NULL;
    for (uint32_t i = 0; i < in->block_count; i++) {
        const etp_inspect_block *blk = &in->blocks[i];
        if (!etp_abuild_block_taken(b, blk))
            continue;
        wrapped += blk->wrapped_intervals;
        if (blk->plan && blk->candidate_count > 1)
            twin = blk;
    }
    if (wrapped)
        bad |= etp_issue_add(&a->issues, "etdump.wrapped_ticks", NULL,
                             "%llu interval%s crossed a 32-bit counter wraparound",
                             (unsigned long long)wrapped, wrapped == 1 ? "" : "s");
    if (twin && !b->opt->method) {
        char list[300];
        etp_join_names(list, sizeof list, twin->candidates, twin->candidate_count,
                       etp_plan_ref_name_at);
        bad |= etp_issue_add(&a->issues, "method.indistinguishable", NULL,
                             "methods %s have identical instructions; reported as %s", list,
                             a->method);
    }
    return bad ? etp_abuild_oom(b) : ETP_OK;
}

static void inspect_options_for(const etp_analysis_options *opt, etp_inspect_options *io)
{
    etp_inspect_options_init(io);
    io->source_unit = opt->source_unit;
    io->target_unit = opt->target_unit;
    io->cpu_hz = opt->cpu_hz;
    io->lenient_methods = 1;
    io->skip_row_stats = 1; /* entities get their own per-execution statistics */
}

etp_status etp_analyze_prepare(const etp_etdump *d, const etp_analysis_options *opt,
                               etp_inspect **out, etp_error *err)
{
    etp_analysis_options defaults;
    if (!opt) {
        etp_analysis_options_init(&defaults);
        opt = &defaults;
    }
    etp_inspect_options io;
    inspect_options_for(opt, &io);
    return etp_inspect_run(d, &io, out, err);
}

etp_status etp_analyze(const etp_etdump *d, const etp_program *p, const etp_etrecord *r,
                       const etp_analysis_options *opt, etp_analysis **out, etp_error *err)
{
    *out = NULL;
    if (!p && !r)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "analysis needs a program (.pte) or an ETRecord, or both");
    etp_inspect *in = NULL;
    etp_status s = etp_analyze_prepare(d, opt, &in, err);
    if (s)
        return s;
    return etp_analyze_prepared(d, in, p, r, opt, out, err);
}

etp_status etp_analyze_prepared(const etp_etdump *d, etp_inspect *in, const etp_program *p,
                                const etp_etrecord *r, const etp_analysis_options *opt,
                                etp_analysis **out, etp_error *err)
{
    *out = NULL;
    etp_analysis_options defaults;
    if (!opt) {
        etp_analysis_options_init(&defaults);
        opt = &defaults;
    }
    if (!p && !r) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "analysis needs a program (.pte) or an ETRecord, or both");
    }
    if (in->source_unit != opt->source_unit || in->target_unit != opt->target_unit ||
        in->cpu_hz != opt->cpu_hz) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the prepared grouping used other units than these options");
    }
    etp_analysis *a = calloc(1, sizeof *a);
    if (!a) {
        etp_inspect_free(in);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    a->inspect = in; /* owned from here on: freed with the analysis */
    a->etdump = d;
    a->program = p;
    a->etrecord = r;
    a->runner_log = opt->runner_log;
    if (p && opt->hash_program && etp_program_sha256(p, a->program_sha256, err)) {
        etp_analysis_free(a);
        return etp_error_set(err, ETP_E_INTERNAL, p->path, ETP_NO_OFFSET,
                             "could not hash the program's bytes");
    }
    a->source_unit = opt->source_unit;
    a->target_unit = opt->target_unit;
    a->cpu_hz = opt->cpu_hz;
    a->rank_by = opt->rank_by;

    etp_abuild b;
    memset(&b, 0, sizeof b);
    b.a = a;
    b.opt = opt;
    b.err = err;
    etp_hm_init(&b.instr_map);
    etp_hm_init(&b.deleg_map);

    /* The program names each block's method and each row's operator. */
    etp_status s = etp_inspect_attach_program(a->inspect, d, p, NULL, 1, err);
    if (!s) {
        a->divisor = a->inspect->divisor;
        s = etp_select_method(&b, p, r);
    }
    if (!s && p)
        a->plan = etp_program_find_plan(p, a->method);
    /* The VGF NX cycles before any runtime entity: the instructions they
     * measure are left out of the runtime result (entities.c, figures.c). */
    if (!s)
        s = etp_nx_attach(a, d, opt->nx_options, err);
    if (!s)
        s = etp_select_executions(&b, p);
    if (!s)
        s = etp_build_instruction_entities(&b);
    etp_attribution *attribution = NULL;
    if (!s)
        s = etp_attribute_prepare(&b, &attribution);
    /* The instructions' statistics on a helper thread (and on this one once
     * it is free) while attribution collects operator series: the two touch
     * different fields, and the entity table does not move. */
    etp_parallel_job *stats = NULL;
    if (!s && !(stats = etp_parallel_begin(b.ents.n, 4096, etp_entity_stats_range, &b)))
        s = etp_abuild_oom(&b);
    if (!s && attribution)
        s = etp_attribute_collect(attribution);
    if (stats && etp_parallel_end(stats) && !s)
        s = etp_abuild_oom(&b);
    if (!s && attribution)
        s = etp_attribute_finish(attribution);
    etp_attribution_free(attribution);
    if (!s)
        s = etp_compute_figures(&b);
    if (!s)
        s = etp_compute_op_type_totals(&b);
    if (!s)
        etp_delegate_details(&b);
    if (!s)
        s = note_inputs(&b);
    if (!s)
        s = etp_compute_cold_start(&b);
    if (!s)
        s = etp_crosscheck_inputs(&b);
    if (!s)
        s = etp_check_tick_unit(&b);
    if (!s)
        s = etp_build_device_report(&b);
    if (!s && opt->has_debug_buffer)
        s = check_debug_buffer(a, d, opt, err);
    /* Hand the entities over. */
    a->entities = b.ents.v;
    a->entity_count = (uint32_t)b.ents.n;
    b.ents.v = NULL;
    if (!s)
        s = etp_nx_rows_build(a, err);
    if (!s && opt->has_debug_buffer && opt->debug_buffer_data)
        s = etp_read_tensors(a, opt, err);
    if (!s) /* last: the findings read every result above */
        s = finding_rules_run(a, &opt->findings, &a->findings, err);
    etp_hm_free(&b.instr_map);
    etp_hm_free(&b.deleg_map);
    free(b.exec_of_run);
    free(b.method_runs);
    if (b.has_vgf_excluded)
        etp_series_free(&b.vgf_excluded);
    if (s) {
        etp_analysis_free(a);
        return s;
    }
    a->validity = etp_issue_validity(&a->issues);
    *out = a;
    return ETP_OK;
}


void etp_analysis_free(etp_analysis *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->entity_count; i++)
        etp_entity_free(&a->entities[i]);
    free(a->entities);
    for (uint32_t i = 0; i < a->figure_count; i++) {
        free(a->figures[i].owned_name);
        free(a->figures[i].reason);
        free(a->figures[i].series.ticks);
        free(a->figures[i].series.present);
    }
    free(a->method_execute_ticks);
    free(a->method_execute_present);
    free(a->op_type_totals);
    free(a->backend_totals);
    free(a->figures);
    free(a->debug_buffer.name);
    etp_tensor_set_free(a->tensors);
    free(a->executions);
    free(a->unresolved_handles);
    etp_issue_list_free(&a->issues);
    etp_finding_list_free(&a->findings);
    etp_inspect_free(a->inspect);
    etp_device_report_free(a->device);
    etp_nx_rows_free(a); /* they point into a->nx */
    etp_nx_result_free(a->nx);
    free(a);
}

const etp_figure *etp_analysis_figure(const etp_analysis *a, const char *name)
{
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (!strcmp(a->figures[i].name, name))
            return &a->figures[i];
    return NULL;
}

const char *etp_entity_kind_name(etp_entity_kind k)
{
    switch (k) {
    case ETP_ENTITY_INSTRUCTION: return "instruction";
    case ETP_ENTITY_DELEGATE_EVENT: return "delegate_event";
    case ETP_ENTITY_OPERATOR: return "operator";
    }
    return "?";
}

const char *etp_timing_source_name(etp_timing_source s)
{
    switch (s) {
    case ETP_SRC_NONE: return "none";
    case ETP_SRC_OPERATOR_CALL: return "operator_call";
    case ETP_SRC_DELEGATE_CALL: return "delegate_call";
    case ETP_SRC_OTHER_CALL: return "other_call";
    case ETP_SRC_DELEGATE_EVENTS: return "delegate_events";
    case ETP_SRC_DELEGATE_FALLBACK: return "delegate_call_fallback";
    case ETP_SRC_MIXED: return "mixed";
    case ETP_SRC_VGF_NX: return "vgf_nx_cycles";
    }
    return "?";
}
