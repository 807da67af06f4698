/* issue_registry.c - the one list of issue codes (see etprof/issues.h). */
#include "etprof/issues.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Who emits a code (etp_issue_scope). */
#define ANALYSIS ETP_ISSUE_SCOPE_ANALYSIS
#define DIFF ETP_ISSUE_SCOPE_DIFF

/* Sorted by code. Adding a code: add it here, run
 * `etprof analyze --list-issue-codes > docs/issue-codes.md`. */
static const etp_issue_code registry[] = {
    {"attribution.no_source_mapping", ETP_SEV_WARNING, ANALYSIS,
     "instruction events have no entry in the ETRecord's debug handle map",
     "their time stays on the instruction; check that the ETRecord was saved for this program"},
    {"attribution.shared_timing", ETP_SEV_WARNING, ANALYSIS,
     "one event covers several source operators; each keeps the full, non-additive timing",
     "read those rows as the cost of the group, not of each operator; never add them up"},
    {"attribution.unresolved_handles", ETP_SEV_WARNING, ANALYSIS,
     "debug handles in the maps match no node of the exported graph",
     "see runtime_unresolved_debug_handles; the mapped operators keep the shared, non-additive timing"},
    {"coverage.executions_differ", ETP_SEV_WARNING, ANALYSIS,
     "entities were measured in different sets of executions; totals across them are unavailable",
     "individual values remain; check for failed or partial executions in the ETDump"},
    {"coverage.instructions_never_ran", ETP_SEV_ERROR, ANALYSIS,
     "instructions of the selected method never ran in any execution, and its chain has no jumps",
     "the program is probably not the one that ran: check --pte against the runner's model file"},
    {"coverage.instructions_not_every_execution", ETP_SEV_WARNING, ANALYSIS,
     "some instructions ran in only some executions (or never, in a chain with conditional jumps)",
     "their statistics cover fewer executions; check for failed executions or data-dependent control flow"},
    {"delegate.detail_excludes_overhead", ETP_SEV_INFO, ANALYSIS,
     "detailed delegate timings may exclude delegate overhead and unprofiled work",
     "compare with the DELEGATE_CALL interval of the same instruction"},
    {"delegate.enclosing_interval_fallback", ETP_SEV_WARNING, ANALYSIS,
     "operators of a delegate without detailed timing carry the whole DELEGATE_CALL interval",
     "that interval is shared by every operator of the delegate and is non-additive"},
    {"delegate.foreign_time_base", ETP_SEV_INFO, ANALYSIS,
     "delegate events lie outside their DELEGATE_CALL interval (a different clock)",
     "their durations are used; their absolute positions are not comparable with host ticks"},
    {"delegate.unmapped_events", ETP_SEV_WARNING, ANALYSIS,
     "delegate-internal events have no delegate map entry (e.g. XNNPACK records none)",
     "their timings stay on the delegate's own rows and are not attributed to source operators"},
    {"device_log.contradiction", ETP_SEV_WARNING, ANALYSIS,
     "two device logs, or a device log and the program, report different values for the same quantity",
     "check that every log and the program come from the same run; the first value is reported"},
    {"device_log.count_differs", ETP_SEV_WARNING, ANALYSIS,
     "a device log reports a different number of inferences than the ETDump has executions",
     "make sure the console capture and the ETDump come from the same run"},
    {"device_log.cycles_differ", ETP_SEV_WARNING, ANALYSIS,
     "the Arm runner's perf report and the ETDump's Method::execute disagree by more than 1% in CPU cycles",
     "the ETDump or the log belongs to another run, or its ticks are not CPU cycles"},
    {"device_log.exit_status", ETP_SEV_WARNING, ANALYSIS,
     "the runner exited with a non-zero status (time -v or etprof run)",
     "read the runner's last lines; its ETDump may be incomplete"},
    {"device_log.tick_unit_cycles", ETP_SEV_INFO, ANALYSIS,
     "the ETDump's ticks were read as CPU cycles because the Arm runner produced it",
     "give --cpu-hz to convert cycles to time"},
    {"device_log.tick_unit_differs", ETP_SEV_WARNING, ANALYSIS,
     "a device log says the ETDump's ticks are CPU cycles, but they were read in another unit",
     "drop --source-unit, or give --source-unit cycles (and --cpu-hz to convert)"},
    {"etdump.incomplete_execution", ETP_SEV_WARNING, ANALYSIS,
     "an Execute block has no Method::execute event (the execution failed or was cut short)",
     "execute-level figures leave that block out; check the runner's log"},
    {"etdump.intermediate_outputs", ETP_SEV_WARNING, ANALYSIS,
     "the run logged intermediate outputs (debug events); copying them inflates the timings",
     "profile a run without --dump_intermediate_outputs for timings; keep this one for numerics"},
    {"etdump.method_level_only", ETP_SEV_WARNING, ANALYSIS,
     "the ETDump has no instruction-level events (method-only profiling level)",
     "rebuild or rerun with operator-level profiling to get per-operator timings"},
    {"etdump.wrapped_ticks", ETP_SEV_INFO, ANALYSIS,
     "some intervals crossed a 32-bit tick counter wraparound and were unwrapped",
     "durations assume at most one wrap per interval"},
    {"etrecord.maps_empty", ETP_SEV_WARNING, ANALYSIS,
     "the ETRecord's debug handle map is empty; no source-operator attribution is possible",
     "regenerate the ETRecord with generate_etrecord=True from the same export"},
    {"identity.method_differs", ETP_SEV_WARNING, DIFF,
     "the compared runs executed different methods; compared anyway (--any-method)",
     "compare runs of one method, unless comparing two methods is the point"},
    {"kernel.no_native_event", ETP_SEV_INFO, ANALYSIS,
     "some KernelCall instructions have no native_call_* event (not code-generated kernels)",
     "their kernel time and dispatch overhead are unknown; OPERATOR_CALL time is still measured"},
    {"memory.peak_rss_unavailable", ETP_SEV_INFO, ANALYSIS,
     "the runner ran on another device (adb): the host's peak RSS is adb's, so none is reported",
     "run the runner under the device's own `time -v` and pass that output with --log"},
    {"memory.planned_differs", ETP_SEV_WARNING, ANALYSIS,
     "a runner log sets up planned buffers whose sizes differ from the program's memory plan",
     "the log belongs to another program; check --pte"},
    {"method.indistinguishable", ETP_SEV_INFO, ANALYSIS,
     "several methods have identical instructions; the ETDump cannot tell which ran",
     "names and timings are the same for all of them; pass --method to record the right one"},
    {"result.degraded", ETP_SEV_WARNING, DIFF,
     "a compared run is degraded (it has warning issues); the comparison inherits their doubt",
     "read that run's issues (its summary.json, or `etprof analyze`) before trusting the change"},
    {"runner_log.count_differs", ETP_SEV_WARNING, ANALYSIS,
     "the runner log reports a different number of iterations than the ETDump has executions",
     "check that the log and the ETDump come from the same run"},
    {"runner_log.method_differs", ETP_SEV_ERROR, ANALYSIS,
     "the runner log names another method than the one analysed",
     "drop --method, or check that the log belongs to this ETDump"},
    {"runner_log.model_renamed", ETP_SEV_INFO, ANALYSIS,
     "the runner log loaded a model file of a related name (one stem contains the other), and nothing contradicts it",
     "nothing to do if the file was renamed or copied"},
    {"runner_log.not_this_model", ETP_SEV_WARNING, ANALYSIS,
     "the runner log loaded a model file of an unrelated name, or the program does not fit the ETDump cleanly",
     "pass the .pte the runner loaded (its file name is in the message)"},
    {"runner_log.other_etdump", ETP_SEV_WARNING, ANALYSIS,
     "the runner log says it wrote an ETDump with a different file name",
     "check that the log belongs to this ETDump (a renamed file is fine)"},
    {"runner_log.outputs_only", ETP_SEV_INFO, ANALYSIS,
     "the runner log has no load, timing or memory lines (a runner built with logging compiled out, "
     "ExecuTorch's Release default): only its printed outputs are kept",
     "nothing is missing from the ETDump's figures; for the runner's own load and iteration times, "
     "run a build with logging (EXECUTORCH_ENABLE_LOGGING=ON)"},
    {"runner_log.wall_shorter_than_execute", ETP_SEV_ERROR, ANALYSIS,
     "the runner's wall time per iteration is shorter than Method::execute under every tick unit",
     "the log and the ETDump come from different runs: pass the log written with this ETDump"},
    {"tensors.bundled_match", ETP_SEV_INFO, ANALYSIS,
     "the run's logged outputs match the bundled program's expected outputs of the test case that ran",
     "ExecuTorch's rule: |got - expected| <= atol + rtol * |expected|; non-floating values equal"},
    {"tensors.bundled_mismatch", ETP_SEV_ERROR, ANALYSIS,
     "the run's logged outputs differ from the bundled program's expected outputs of the test case that ran",
     "check the test case (--testset), the tolerance (--rtol/--atol), then the kernels or delegate"},
    {"tensors.bundled_not_compared", ETP_SEV_INFO, ANALYSIS,
     "a bundled program ran, but its expected outputs could not be compared with the run's",
     "run with --dump_outputs and give the debug buffer; name the test case with --testset N"},
    {"tensors.not_decoded", ETP_SEV_INFO, ANALYSIS,
     "some logged values have an element type etprof does not read as numbers",
     "complex and packed sub-byte types are listed with their shape and size only"},
    {"units.assumed", ETP_SEV_WARNING, ANALYSIS | DIFF,
     "the ETDump does not record its tick unit; nanoseconds were assumed",
     "pass --source-unit (ns on Linux hosts, cycles on many microcontrollers)"},
    {"units.confirmed", ETP_SEV_INFO, ANALYSIS,
     "the tick unit fits the wall times another source reported for the same iterations",
     "nothing to do; the evidence is in the message and in the summary's units"},
    {"units.contradicted", ETP_SEV_ERROR, ANALYSIS,
     "the tick unit used contradicts the wall times another source reported for the same iterations",
     "pass the --source-unit (and --cpu-hz) the message says fits, or check that the log is of this run"},
    {"units.converted", ETP_SEV_WARNING, DIFF,
     "the two runs report in different time units; the new run's times were converted to the base's",
     "nothing to do: every row is in the base run's unit"},
    {"units.cpu_hz_differs", ETP_SEV_WARNING, DIFF,
     "both runs report in cycles but were analysed with different clock rates (--cpu-hz)",
     "cycle counts compare as they are; check which clock rate each run was analysed with"},
    {"units.evidence_differs", ETP_SEV_WARNING, DIFF,
     "the tick unit was assumed for one run and given for the other",
     "give --source-unit for both runs, so that the comparison does not rest on an assumption"},
    {"units.ticks_differ", ETP_SEV_WARNING, DIFF,
     "the two runs' ETDumps tick in different units; their times were converted to one unit",
     "check each run's --source-unit (and --cpu-hz); a wrong one shows as a change"},
    {"units.unchecked", ETP_SEV_WARNING, ANALYSIS,
     "cycle ticks cannot be tested against reported wall times without a clock rate",
     "pass --cpu-hz with the core's clock to have the unit checked (the implied clock is in the message)"},
    {"vgf.compute_segment", ETP_SEV_WARNING, ANALYSIS,
     "a VGF compute (shader) segment has no NX statistics and is not part of the cycle totals",
     "its time is not in the VGF cycle figures; see the ordinary runtime events of that delegate call"},
    {"vgf.coverage_differs", ETP_SEV_WARNING, ANALYSIS,
     "VGF instructions or segments were measured in different executions; model cycle summaries are unavailable",
     "individual measurements remain; check for executions without VGF statistics"},
    {"vgf.data_unavailable", ETP_SEV_WARNING, ANALYSIS,
     "a VGF_NEURAL_STATISTICS record says its data is unavailable (the recorded reason is quoted)",
     "enable EXECUTORCH_VGF_ENABLE_NEURAL_STATISTICS and a driver exposing VK_ARM_data_graph statistics"},
    {"vgf.decoder_fallback", ETP_SEV_WARNING, ANALYSIS,
     "VGF statistics were decoded with assumed settings (see decoder_fallback_fields)",
     "check the assumed mode and device against the capture; schema v2 records them"},
    {"vgf.layout_assumption", ETP_SEV_WARNING, ANALYSIS,
     "a VGF statistics layout fact that is not public (leading block, mode-1 core) was assumed",
     "the reading used is recorded in the result; confirm it against a known capture"},
    {"vgf.runtime_excluded", ETP_SEV_INFO, ANALYSIS,
     "runtime events of instructions with VGF statistics are left out of the ordinary runtime result",
     "read those instructions in the NX cycle figures; their DELEGATE_CALL time is vgf_excluded_runtime, "
     "not part of any runtime total"},
};

const etp_issue_code *etp_issue_registry(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const etp_issue_code *etp_issue_lookup(const char *code)
{
    for (size_t i = 0; code && i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i].code, code))
            return &registry[i];
    return NULL;
}

const etp_issue_code *etp_issue_lookup_scope(const char *code, etp_issue_scope scope)
{
    const etp_issue_code *c = etp_issue_lookup(code);
    return c && (c->scopes & (unsigned)scope) ? c : NULL;
}

etp_status etp_issue_add(etp_issue_list *l, const char *code, const char *context_json,
                         const char *fmt, ...)
{
    const etp_issue_code *c = etp_issue_lookup_scope(code, ETP_ISSUE_SCOPE_ANALYSIS);
    if (!c)
        return ETP_E_USAGE;
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        etp_issue *ni = realloc(l->items, ncap * sizeof *ni);
        if (!ni)
            return ETP_E_NOMEM;
        l->items = ni;
        l->cap = ncap;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    etp_issue *it = &l->items[l->count];
    it->code = c;
    it->message = strdup(buf);
    it->context_json = context_json ? strdup(context_json) : NULL;
    if (!it->message || (context_json && !it->context_json)) {
        free(it->message);
        free(it->context_json);
        return ETP_E_NOMEM;
    }
    l->count++;
    return ETP_OK;
}

etp_validity etp_issue_validity(const etp_issue_list *l)
{
    etp_validity v = ETP_VALID;
    for (size_t i = 0; i < l->count; i++) {
        if (l->items[i].code->severity == ETP_SEV_ERROR)
            return ETP_INVALID;
        if (l->items[i].code->severity == ETP_SEV_WARNING)
            v = ETP_DEGRADED;
    }
    return v;
}

const char *etp_severity_name(etp_severity s)
{
    return s == ETP_SEV_ERROR ? "error" : s == ETP_SEV_WARNING ? "warning" : "info";
}

const char *etp_validity_name(etp_validity v)
{
    return v == ETP_INVALID ? "invalid" : v == ETP_DEGRADED ? "degraded" : "valid";
}

void etp_issue_list_free(etp_issue_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].message);
        free(l->items[i].context_json);
    }
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}
