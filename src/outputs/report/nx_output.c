/* nx_output.c - VGF NX cycle figures as JSON and text. Every figure is in
 * cycles (activity counters, not elapsed time); means over executions add
 * across entities only with the same executions; min/max/median/counts
 * never add. */
#include <stdlib.h>
#include <string.h>

#include "outputs/report/nx_output.h"

static void settings_json(etp_jw *w, const etp_nx_result *r)
{
    const etp_nx_settings *s = &r->settings;
    etp_jw_obj_begin(w);
    if (!r->have_settings) {
        etp_jw_kbool(w, "available", 0);
        etp_jw_obj_end(w);
        return;
    }
    etp_jw_kstr(w, "profiling_device", etp_nx_device_name(s->device));
    etp_jw_kstr(w, "profiling_device_source", s->device_source);
    etp_jw_kint(w, "statistics_mode", s->mode);
    etp_jw_kstr(w, "statistics_mode_source", s->mode_source);
    etp_jw_kuint(w, "words_per_task", s->layout->words_per_task);
    etp_jw_kuint(w, "tasks_per_block", s->layout->tasks_per_block);
    etp_jw_kstr(w, "endianness", "little");
    etp_jw_kstr(w, "word_type", "uint32");
    etp_jw_kuint(w, "leading_block_count", s->leading_blocks);
    etp_jw_kstr(w, "leading_block_reading",
                "block L + s holds stripe s; the leading block(s) are skipped (layout parameter)");
    if (s->mode == 1) {
        etp_jw_kstr(w, "core_key", s->core_key == ETP_NX_CORE_WORD0 ? "word0" : "single");
        etp_jw_kstr(w, "per_core_reading",
                    s->core_key == ETP_NX_CORE_WORD0
                        ? "word 0 of a task is its core; per counter the largest core total"
                    : s->single_core_target ? "single-core target: the sum is the per-core maximum"
                                            : "all tasks of a stripe summed as one core (assumed)");
        etp_jw_kstr(w, "op_cycles_counter", "nx_active");
    }
    etp_jw_key(w, "decoder_fallback_fields");
    etp_jw_arr_begin(w);
    for (unsigned bit = 1; bit <= ETP_NX_FB_CORE; bit <<= 1)
        if (s->fallback_fields & bit)
            etp_jw_str(w, etp_nx_fallback_name(bit));
    etp_jw_arr_end(w);
    etp_jw_key(w, "counters");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < s->layout->counter_count; k++)
        etp_jw_str(w, s->layout->counter_name[k]);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

static void metric(etp_jw *w, const char *name, double v, const char *agg, int additive, uint64_t samples)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_kdouble(w, "value", v);
    etp_jw_kstr(w, "unit", "cycles");
    etp_jw_kstr(w, "aggregation", agg);
    etp_jw_kbool(w, "additive", additive);
    etp_jw_kuint(w, "samples", samples);
    etp_jw_obj_end(w);
}

static void unavailable(etp_jw *w, const char *name, const char *reason)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_kstr(w, "unit", "cycles");
    etp_jw_kstr(w, "availability", "unavailable");
    etp_jw_kstr(w, "reason", reason);
    etp_jw_obj_end(w);
}

/* The metrics of one entity: totals and op cycles as means (additive when
 * the entity covers every execution), min/max/median (never additive). */
static void entity_metrics(etp_jw *w, const etp_nx_result *r, const etp_nx_entity *e, int counters)
{
    etp_jw_arr_begin(w);
    int add = e->full_coverage;
    metric(w, "total_cycles.avg", e->s.mean_total, "mean over executions", add, e->s.count);
    metric(w, "op_cycles.avg", e->s.mean_op, "mean over executions", add, e->s.count);
    metric(w, "total_cycles.min", (double)e->s.min_total, "minimum over executions", 0, e->s.count);
    metric(w, "total_cycles.max", (double)e->s.max_total, "maximum over executions", 0, e->s.count);
    metric(w, "total_cycles.median", e->s.median_total, "median over executions", 0, e->s.count);
    for (uint32_t k = 0; counters && r->have_settings && k < r->settings.layout->counter_count; k++) {
        char name[80];
        snprintf(name, sizeof name, "%s_cycles.avg", r->settings.layout->counter_name[k]);
        metric(w, name, e->mean_counters ? e->mean_counters[k] : 0, "mean over executions", add, e->s.count);
    }
    etp_jw_arr_end(w);
}

void etp_nx_summary_write(etp_jw *w, const etp_nx_result *r)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", "cycles");
    etp_jw_kstr(w, "source", "VGF_NEURAL_STATISTICS activity counters (not elapsed time)");
    etp_jw_key(w, "decoder");
    settings_json(w, r);
    etp_jw_kuint(w, "events", r->events);
    etp_jw_kuint(w, "events_unavailable", r->events_unavailable);
    etp_jw_ku32s(w, "vgf_instructions", r->vgf_instructions, r->vgf_instruction_count);
    etp_jw_key(w, "metrics");
    const etp_nx_entity *m = r->entity_count ? &r->entities[0] : NULL;
    if (m && r->model_available) {
        etp_jw_arr_begin(w);
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", "vgf_executions");
        etp_jw_kdouble(w, "value", r->executions);
        etp_jw_kstr(w, "unit", "count");
        etp_jw_kstr(w, "aggregation", "count");
        etp_jw_kbool(w, "additive", 0);
        etp_jw_kuint(w, "samples", r->executions);
        etp_jw_obj_end(w);
        metric(w, "total_cycles.avg", m->s.mean_total, "mean over executions", 1, m->s.count);
        metric(w, "op_cycles.avg", m->s.mean_op, "mean over executions", 1, m->s.count);
        metric(w, "total_cycles.min", (double)m->s.min_total, "minimum over executions", 0, m->s.count);
        metric(w, "total_cycles.max", (double)m->s.max_total, "maximum over executions", 0, m->s.count);
        metric(w, "total_cycles.median", m->s.median_total, "median over executions", 0, m->s.count);
        metric(w, "target_utilization.avg", m->s.mean_total > 0 ? m->s.mean_op / m->s.mean_total * 100.0 : 0.0,
               "op / total of the means, percent", 0, m->s.count);
        etp_jw_arr_end(w);
    } else {
        const char *why = m ? "VGF instructions or segments were measured in different executions"
                            : "no VGF statistics were decoded";
        etp_jw_arr_begin(w);
        unavailable(w, "vgf_executions", why);
        unavailable(w, "total_cycles.avg", why);
        unavailable(w, "op_cycles.avg", why);
        unavailable(w, "total_cycles.median", why);
        etp_jw_arr_end(w);
    }
    etp_jw_kstr(w, "note", "Totals describe the recorded stripes only; missing stripes are not estimated.");
    etp_jw_obj_end(w);
}

static void companion_json(etp_jw *w, const etp_nx_result *r)
{
    etp_jw_obj_begin(w);
    etp_jw_kbool(w, "checked", r->companion_checked);
    if (r->companion_checked) {
        etp_jw_kstr(w, "program_sha256", r->companion_sha256);
        etp_jw_kstr(w, "method", r->companion_method);
        etp_jw_ku32s(w, "instructions", r->vgf_instructions, r->vgf_instruction_count);
        etp_jw_kuint(w, "segments_matched", r->companion_segments);
        etp_jw_kuint(w, "operator_associations", r->companion_associations);
        etp_jw_kstr(w, "meaning", "structural: method, DELEGATE_CALL instruction, VGF segment and SPIR-V result "
                                  "ids agree; this does not prove the program produced the capture");
    }
    etp_jw_obj_end(w);
}

static void ops_json(etp_jw *w, const etp_nx_entity *e)
{
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < e->op_count; i++) {
        const etp_nx_op *o = &e->ops[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "tosa_op_id", o->tosa_id);
        etp_jw_kstr(w, "operator_types", o->types);
        etp_jw_kstr(w, "api_labels", o->labels);
        if (o->spirv_id >= 0) {
            char link[96];
            snprintf(link, sizeof link, "source_operator/segment_%lld/spirv-%lld", (long long)e->segment_id,
                     (long long)o->spirv_id);
            etp_jw_kint(w, "spirv_result_id", o->spirv_id);
            etp_jw_kstr(w, "source_operator_id", link);
            if (o->vgf_op)
                etp_jw_kstr(w, "companion_vgf_op", o->vgf_op);
        } else {
            etp_jw_knull(w, "spirv_result_id");
            etp_jw_kstr(w, "link_reason", o->link_reason);
        }
        /* the ETRecord delegate map's links (etp_nx_link_sources) */
        etp_jw_ki64s(w, "source_debug_handles", o->source_handles, o->source_handle_count);
        etp_jw_kstrs(w, "source_nodes", o->source_nodes, o->source_node_count);
        if (o->source_link_reason)
            etp_jw_kstr(w, "source_link_reason", o->source_link_reason);
        else
            etp_jw_knull(w, "source_link_reason");
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

char *etp_nx_hierarchy_json(const etp_nx_result *r, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_NX_HIERARCHY_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "unit", "cycles");
    etp_jw_key(&w, "decoder");
    settings_json(&w, r);
    etp_jw_kuint(&w, "events", r->events);
    etp_jw_kuint(&w, "events_unavailable", r->events_unavailable);
    etp_jw_kuint(&w, "executions", r->executions);
    etp_jw_kbool(&w, "model_available", r->model_available);
    etp_jw_key(&w, "companion_model");
    companion_json(&w, r);
    etp_jw_key(&w, "source_links");
    etp_jw_obj_begin(&w);
    etp_jw_kbool(&w, "etrecord_checked", r->sources_checked);
    etp_jw_kuint(&w, "linked_ops", r->source_linked_ops);
    etp_jw_kuint(&w, "unlinked_ops", r->source_unlinked_ops);
    etp_jw_kstr(&w, "basis", "ETRecord delegate_map: a delegate debug identifier equal to the op's SPIR-V "
                             "result id (decimal) or to one of its API labels; never inferred from op types");
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "entities");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *e = &r->entities[i];
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "kind", etp_nx_kind_name(e->kind));
        etp_jw_kstr(&w, "id", e->id);
        etp_jw_kstr(&w, "name", e->name);
        etp_jw_kstr(&w, "local_id", e->local_id);
        if (e->parent >= 0)
            etp_jw_kstr(&w, "parent_id", r->entities[e->parent].id);
        else
            etp_jw_knull(&w, "parent_id");
        if (e->kind != ETP_NX_MODEL) {
            etp_jw_kint(&w, "instruction_id", e->instruction_id);
            etp_jw_kint(&w, "segment_id", e->segment_id);
        }
        if (e->kind == ETP_NX_CHAIN || e->kind == ETP_NX_CASCADE)
            etp_jw_kbool(&w, "filled_in", e->filled);
        etp_jw_key(&w, "stripe_ids");
        etp_jw_arr_begin(&w);
        for (uint32_t k = 0; k < e->stripe_count; k++)
            etp_jw_uint(&w, e->stripe_ids[k]);
        etp_jw_arr_end(&w);
        int model_off = e->kind == ETP_NX_MODEL && !r->model_available;
        etp_jw_kbool(&w, "available", !model_off);
        etp_jw_kuint(&w, "executions", e->s.count);
        etp_jw_kbool(&w, "full_coverage", e->full_coverage);
        if (!model_off) {
            etp_jw_key(&w, "per_execution_total_cycles");
            etp_jw_arr_begin(&w);
            for (uint32_t k = 0; k < e->s.count; k++) {
                etp_jw_arr_begin(&w);
                etp_jw_uint(&w, e->execs[k]);
                etp_jw_uint(&w, e->totals[k]);
                etp_jw_arr_end(&w);
            }
            etp_jw_arr_end(&w);
            etp_jw_key(&w, "metrics");
            entity_metrics(&w, r, e, e->kind != ETP_NX_MODEL);
        }
        if (e->kind == ETP_NX_CHAIN || e->kind == ETP_NX_CASCADE) {
            etp_jw_key(&w, "operators");
            ops_json(&w, e);
            etp_jw_kstrs(&w, "source_nodes", e->source_nodes, e->source_node_count);
            etp_jw_kstr(&w, "measurement", "group: the cycles of the whole group, not per-operator costs");
        }
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

void etp_nx_write_text(const etp_nx_result *r, FILE *fp)
{
    if (!r)
        return;
    const etp_nx_settings *s = &r->settings;
    fprintf(fp, "\nVGF NX cycles (activity counters, not elapsed time): %u record(s)", r->events);
    if (r->events_unavailable)
        fprintf(fp, ", %u without data", r->events_unavailable);
    fprintf(fp, "\n");
    if (r->have_settings) {
        fprintf(fp, "  decoded as %s mode %d (%u words/task, %u tasks/block, %u leading block(s))", etp_nx_device_name(s->device),
                s->mode, s->layout->words_per_task, s->layout->tasks_per_block, s->leading_blocks);
        if (s->fallback_fields) {
            fprintf(fp, "; assumed:");
            for (unsigned bit = 1; bit <= ETP_NX_FB_CORE; bit <<= 1)
                if (s->fallback_fields & bit)
                    fprintf(fp, " %s", etp_nx_fallback_name(bit));
        }
        fprintf(fp, "\n");
    }
    const etp_nx_entity *m = r->entity_count ? &r->entities[0] : NULL;
    if (m && r->model_available)
        fprintf(fp, "  model: total %.1f cycles avg (min %llu, median %.1f, max %llu), op %.1f, %u execution(s)\n",
                m->s.mean_total, (unsigned long long)m->s.min_total, m->s.median_total,
                (unsigned long long)m->s.max_total, m->s.mean_op, m->s.count);
    else if (m)
        fprintf(fp, "  model: cycle summaries and execution count unavailable (VGF instructions or segments were "
                    "measured in different executions); the entities' own figures below\n");
    if (r->sources_checked)
        fprintf(fp, "  source links: %u of %u chain TOSA op(s) named by the ETRecord's delegate map (links, not costs)\n",
                r->source_linked_ops, r->source_linked_ops + r->source_unlinked_ops);
    /* The five chains with the largest mean total. */
    const etp_nx_entity *top[5] = {0};
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *e = &r->entities[i];
        if (e->kind != ETP_NX_CHAIN)
            continue;
        for (int k = 0; k < 5; k++)
            if (!top[k] || e->s.mean_total > top[k]->s.mean_total) {
                memmove(&top[k + 1], &top[k], (size_t)(4 - k) * sizeof top[0]);
                top[k] = e;
                break;
            }
    }
    for (int k = 0; k < 5 && top[k]; k++)
        fprintf(fp, "  %-34s %12.1f cycles avg over %u execution(s), %u stripe(s), %u TOSA op(s)\n", top[k]->id,
                top[k]->s.mean_total, top[k]->s.count, top[k]->stripe_count, top[k]->op_count);
}
