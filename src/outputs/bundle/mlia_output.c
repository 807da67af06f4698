/* mlia_output.c - mlia-output.json's document (see mlia_output.h): tool,
 * target, model, context, backends, the one performance result (status,
 * warnings, errors, the standard metrics, breakdowns, entities, advice) and
 * extensions.executorch. MLIA's schema is closed almost everywhere: what it
 * has no member for goes into extensions, qualifiers or attributes. */
#include "outputs/bundle/mlia_output.h"

#include <math.h>
#include <string.h>

#include "etprof/device_report.h"
#include "etprof/etrecord.h"
#include "etprof/findings.h"
#include "etprof/issues.h"
#include "etprof/nx_stats.h"
#include "etprof/program.h"
#include "etprof/units.h"
#include "outputs/report/analysis_report.h"

static const char *base_of(const char *p)
{
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p;
}

/* ---- target: what the program's delegates say it ran on -------------------- */

static void component(etp_jw *w, const char *type, const char *family, const char *model)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "type", type);
    etp_jw_kstr(w, "family", family);
    if (model)
        etp_jw_kstr(w, "model", model);
    etp_jw_obj_end(w);
}

static int has_placement(const etp_analysis *a, const char *placement)
{
    for (uint32_t i = 0; i < a->backend_total_count; i++)
        if (!strcmp(etp_mlia_placement(a, a->backend_totals[i].backend), placement))
            return 1;
    return 0;
}

static void target(etp_jw *w, const etp_analysis *a)
{
    etp_jw_obj_begin(w);
    /* etprof is not told the device: the profile names what the program's
     * delegates imply, and says so. */
    char profile[256] = "executorch";
    for (uint32_t i = 0; i < a->backend_total_count; i++) {
        size_t n = strlen(profile);
        snprintf(profile + n, sizeof profile - n, "-%s", a->backend_totals[i].backend);
    }
    if (!a->backend_total_count)
        snprintf(profile + strlen(profile), sizeof profile - strlen(profile), "-portable");
    etp_jw_kstr(w, "profile_name", profile);
    etp_jw_kstr(w, "target_type", "executorch");
    etp_jw_kstr(w, "description", "the device that ran the ETDump, as far as the program's delegates tell "
                                  "(etprof is not told the device itself)");
    etp_jw_key(w, "components");
    etp_jw_arr_begin(w);
    component(w, "cpu", "unspecified", NULL);
    if (has_placement(a, "NPU"))
        component(w, "npu", "ethos-u", NULL);
    if (has_placement(a, "NX") || has_placement(a, "GPU")) {
        const char *model = NULL;
        if (a->nx && a->nx->have_settings && a->nx->settings.device != ETP_NX_DEVICE_NONE)
            model = etp_nx_device_name(a->nx->settings.device);
        component(w, "gpu", a->nx ? "mali" : "unspecified", model);
    }
    if (has_placement(a, "DSP"))
        component(w, "dsp", "hexagon", NULL);
    etp_jw_arr_end(w);
    etp_jw_key(w, "configuration");
    etp_jw_obj_begin(w);
    etp_jw_key(w, "delegate_backends");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->backend_total_count; i++)
        etp_jw_str(w, a->backend_totals[i].backend);
    etp_jw_arr_end(w);
    etp_jw_kstr(w, "inferred_from", "the delegate backends whose calls the ETDump timed");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

/* ---- model: the program (or the ETRecord without one) ---------------------- */

static void model(etp_jw *w, const etp_analysis *a, const etp_publish_inputs *in)
{
    const etp_publish_input *f = in->pte.sha256 ? &in->pte : &in->etrecord;
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", base_of(f->path));
    etp_jw_kstr(w, "format", f == &in->etrecord ? "etrecord" : a->program && a->program->bundled ? "bpte" : "pte");
    etp_jw_kstr(w, "hash", f->sha256);
    etp_jw_kuint(w, "size_bytes", f->size);
    etp_jw_obj_end(w);
}

/* ---- the standard performance metrics (MLIA's eight names and units) ------- */

/* accelerator_operator_percentage: the share of source operators (with an
 * ETRecord) or of instructions placed on an accelerator (not the CPU). */
static void accelerator_share(etp_jw *w, const etp_analysis *a)
{
    uint32_t ops = 0, ops_acc = 0, ins = 0, ins_acc = 0;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        int acc = e->backend && strcmp(etp_mlia_placement(a, e->backend), "CPU");
        if (e->kind == ETP_ENTITY_OPERATOR) {
            ops++;
            ops_acc += acc;
        } else if (e->kind == ETP_ENTITY_INSTRUCTION &&
                   (e->instr_kind == ETP_INSTR_KERNEL || e->instr_kind == ETP_INSTR_DELEGATE)) {
            ins++;
            ins_acc += acc;
        }
    }
    if (ops)
        etp_mlia_metric(w, "accelerator_operator_percentage", 100.0 * ops_acc / ops, "%", "count", ops,
              "source operators of the ETRecord placed on an NPU, NX, GPU or DSP delegate");
    else if (ins)
        etp_mlia_metric(w, "accelerator_operator_percentage", 100.0 * ins_acc / ins, "%", "count", ins,
              "kernel and delegate call instructions placed on an NPU, NX, GPU or DSP delegate (no ETRecord)");
    else
        etp_json_metric_unavailable(w, "accelerator_operator_percentage", "%", "neither the ETRecord nor the program lists operators");
}

static void standard_metrics(etp_jw *w, const etp_analysis *a)
{
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    etp_jw_arr_begin(w);
    int time = etp_unit_dim(a->target_unit) == ETP_DIM_TIME;
    if (ex && ex->available && time && ex->stats.n) {
        double ms = ex->stats.avg * etp_unit_factor(a->target_unit, ETP_UNIT_MS);
        etp_mlia_metric(w, "inference_time", ms, "ms", "mean over executions", ex->stats.n, "Method::execute per execution");
        if (ms > 0)
            etp_mlia_metric(w, "inferences_per_second", 1000.0 / ms, "inferences/s", "1000 / inference_time", ex->stats.n,
                  "Method::execute per execution");
        else
            etp_json_metric_unavailable(w, "inferences_per_second", "inferences/s", "Method::execute took 0 ms on average");
    } else {
        const char *why = !ex || !ex->available ? (ex && ex->reason ? ex->reason : "no Method::execute events")
                                                : "the ETDump ticks are CPU cycles and no clock rate was given "
                                                  "(--cpu-hz): see inference_cycles";
        etp_json_metric_unavailable(w, "inference_time", "ms", why);
        etp_json_metric_unavailable(w, "inferences_per_second", "inferences/s", why);
    }
    if (ex && ex->available && !time && ex->stats.n)
        etp_mlia_metric(w, "inference_cycles", ex->stats.avg, etp_unit_name(a->target_unit), "mean over executions",
              ex->stats.n, "Method::execute per execution");
    accelerator_share(w, a);
    etp_json_metric_unavailable(w, "cpu_utilization", "%", "an ETDump times events; it does not sample CPU utilisation");
    etp_json_metric_unavailable(w, "target_utilization", "%", "an ETDump has no compute-cycle and total-cycle counters");
    const etp_memory_summary *m = a->device ? &a->device->memory : NULL;
    etp_json_metric_unavailable(w, "model_weight_memory", "bytes", "the constant (weight) bytes of the program are not counted "
                                                   "by this version");
    if (m && m->planned_source && m->planned_total)
        etp_mlia_metric(w, "peak_activation_memory", (double)m->planned_total, "bytes", "sum of the planned arena buffers",
              m->planned_count,
              m->planned_source);
    else
        etp_json_metric_unavailable(w, "peak_activation_memory", "bytes", "no program memory plan and no runner log planned buffers");
    etp_json_metric_unavailable(w, "average_memory", "bytes", "no memory samples over the run (the logs give a peak at most)");
    if (m && m->has_peak_rss)
        etp_mlia_metric(w, "peak_rss", (double)m->peak_rss_kib * 1024.0, "bytes", "max", 0, m->peak_rss_source);
    if (a->nx && a->nx->model_available && a->nx->entity_count && a->nx->entities[0].s.count)
        etp_mlia_metric(w, "total_cycles", a->nx->entities[0].s.mean_total, "cycles", "mean over executions",
              a->nx->entities[0].s.count, "VGF NX cycles of the model (all segments)");
    etp_jw_arr_end(w);
}

/* ---- the result ------------------------------------------------------------- */

static void issue_texts(etp_jw *w, const etp_analysis *a, etp_severity sev, int with_withheld)
{
    etp_jw_arr_begin(w);
    char buf[1400];
    for (size_t i = 0; i < a->issues.count; i++) {
        const etp_issue *it = &a->issues.items[i];
        if (it->code->severity != sev)
            continue;
        snprintf(buf, sizeof buf, "%s: %s", it->code->code, it->message);
        etp_jw_str(w, buf);
    }
    for (uint32_t i = 0; with_withheld && i < a->findings.count; i++) {
        const etp_finding *f = &a->findings.items[i];
        if (f->status != ETP_FINDING_WITHHELD)
            continue;
        snprintf(buf, sizeof buf, "finding %s withheld: %s", f->rule->code, f->message);
        etp_jw_str(w, buf);
    }
    etp_jw_arr_end(w);
}

static void result(etp_jw *w, const etp_analysis *a)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "kind", "performance");
    etp_jw_kstr(w, "producer", "etprof");
    etp_jw_kstr(w, "status", a->validity == ETP_VALID ? "ok" : a->validity == ETP_DEGRADED ? "partial" : "failed");
    etp_jw_kstr(w, "mode", "measured");
    etp_jw_key(w, "warnings");
    issue_texts(w, a, ETP_SEV_WARNING, 1);
    etp_jw_key(w, "errors");
    issue_texts(w, a, ETP_SEV_ERROR, 0);
    etp_jw_key(w, "metrics");
    standard_metrics(w, a);
    etp_jw_key(w, "breakdowns");
    etp_mlia_breakdowns(w, a);
    etp_jw_key(w, "entities");
    etp_mlia_entities(w, a);
    etp_jw_key(w, "advice");
    etp_mlia_advice(w, a);
    etp_jw_obj_end(w);
}

/* ---- extensions.executorch -------------------------------------------------- */

static void input_ref(etp_jw *w, const char *key, const etp_publish_input *f)
{
    etp_jw_key(w, key);
    if (!f->sha256) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", base_of(f->path));
    etp_jw_kstr(w, "sha256", f->sha256);
    etp_jw_kuint(w, "size_bytes", f->size);
    etp_jw_obj_end(w);
}

static void extensions(etp_jw *w, const etp_analysis *a, const etp_publish_inputs *in)
{
    etp_jw_obj_begin(w);
    etp_jw_key(w, "executorch");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "method", a->method);
    etp_jw_kstr(w, "method_basis", a->method_basis);
    etp_jw_kuint(w, "executions", a->execution_count);
    etp_jw_kuint(w, "skipped_executions", a->skipped_executions);
    etp_jw_kstr(w, "time_unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(w, "etdump_tick_unit", etp_unit_name(a->source_unit));
    etp_jw_kbool(w, "etdump_tick_unit_assumed", a->tick_unit.assumed);
    etp_jw_kstr(w, "validity", etp_validity_name(a->validity));
    input_ref(w, "etdump", &in->etdump);
    input_ref(w, "etrecord", &in->etrecord);
    /* The companion program (seed 000's extensions.executorch.companion_model):
     * its digest, and the VGF operator associations checked against it. */
    etp_jw_key(w, "companion_model");
    if (!in->pte.sha256) {
        etp_jw_null(w);
    } else {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", base_of(in->pte.path));
        etp_jw_kstr(w, "sha256", in->pte.sha256);
        etp_jw_kuint(w, "size_bytes", in->pte.size);
        etp_jw_kstr(w, "method", a->method);
        etp_jw_key(w, "associations");
        if (a->nx && a->nx->companion_checked) {
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "kind", "VGF TOSA operations found in their segment's SPIR-V");
            etp_jw_kuint(w, "operations", a->nx->companion_associations);
            etp_jw_kuint(w, "segments", a->nx->companion_segments);
            etp_jw_kstr(w, "note", "structural matches by method, instruction, segment and SPIR-V result id; "
                                   "they do not prove that this program produced the capture");
            etp_jw_obj_end(w);
        } else {
            etp_jw_null(w); /* only VGF profiling data carries associations */
        }
        etp_jw_obj_end(w);
    }
    etp_jw_kstr(w, "bundle_summary", "summary.json");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

char *etp_mlia_output_json(const etp_analysis *a, const etp_publish_options *po, const etp_publish_inputs *in,
                           const char *run_id, const char *timestamp)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0); /* compact: one entry per entity of a large model */
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema_version", ETP_MLIA_SCHEMA_VERSION);
    etp_jw_kstr(&w, "run_id", run_id);
    etp_jw_kstr(&w, "timestamp", timestamp);
    etp_jw_key(&w, "tool");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "name", "etprof");
    etp_jw_kstr(&w, "version", ETP_VERSION);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "target");
    target(&w, a);
    etp_jw_key(&w, "model");
    model(&w, a, in);
    etp_jw_key(&w, "context");
    etp_jw_obj_begin(&w);
    if (po->options_json) {
        etp_jw_key(&w, "runtime_configuration");
        etp_jw_raw(&w, po->options_json, strlen(po->options_json));
    }
    if (po->command_line)
        etp_jw_kstr(&w, "notes", po->command_line);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "backends");
    etp_jw_arr_begin(&w);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "id", "etprof");
    etp_jw_kstr(&w, "name", "etprof ETDump analysis");
    etp_jw_kstr(&w, "version", ETP_VERSION);
    etp_jw_key(&w, "configuration");
    if (po->options_json)
        etp_jw_raw(&w, po->options_json, strlen(po->options_json));
    else {
        etp_jw_obj_begin(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_obj_end(&w);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "results");
    etp_jw_arr_begin(&w);
    result(&w, a);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "extensions");
    extensions(&w, a, in);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}
