/* issue_registry.c - the one list of issue codes (see etprof/issues.h). */
#include "etprof/issues.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sorted by code. Adding a code: add it here, run
 * `etprof analyze --list-issue-codes > docs/issue-codes.md`. */
static const etp_issue_code registry[] = {
    {"attribution.no_source_mapping", ETP_SEV_WARNING,
     "instruction events have no entry in the ETRecord's debug handle map",
     "their time stays on the instruction; check that the ETRecord was saved for this program"},
    {"attribution.shared_timing", ETP_SEV_WARNING,
     "one event covers several source operators; each keeps the full, non-additive timing",
     "read those rows as the cost of the group, not of each operator; never add them up"},
    {"attribution.unresolved_handles", ETP_SEV_WARNING,
     "debug handles in the maps match no node of the exported graph",
     "see runtime_unresolved_debug_handles; the mapped operators keep the shared, non-additive timing"},
    {"coverage.executions_differ", ETP_SEV_WARNING,
     "entities were measured in different sets of executions; totals across them are unavailable",
     "individual values remain; check for failed or partial executions in the ETDump"},
    {"delegate.detail_excludes_overhead", ETP_SEV_INFO,
     "detailed delegate timings may exclude delegate overhead and unprofiled work",
     "compare with the DELEGATE_CALL interval of the same instruction"},
    {"delegate.enclosing_interval_fallback", ETP_SEV_WARNING,
     "operators of a delegate without detailed timing carry the whole DELEGATE_CALL interval",
     "that interval is shared by every operator of the delegate and is non-additive"},
    {"delegate.foreign_time_base", ETP_SEV_INFO,
     "delegate events lie outside their DELEGATE_CALL interval (a different clock)",
     "their durations are used; their absolute positions are not comparable with host ticks"},
    {"delegate.unmapped_events", ETP_SEV_WARNING,
     "delegate-internal events have no delegate map entry (e.g. XNNPACK records none)",
     "their timings stay on the delegate's own rows and are not attributed to source operators"},
    {"etdump.incomplete_execution", ETP_SEV_WARNING,
     "an Execute block has no Method::execute event (the execution failed or was cut short)",
     "execute-level figures leave that block out; check the runner's log"},
    {"etdump.method_level_only", ETP_SEV_WARNING,
     "the ETDump has no instruction-level events (method-only profiling level)",
     "rebuild or rerun with operator-level profiling to get per-operator timings"},
    {"etdump.wrapped_ticks", ETP_SEV_INFO,
     "some intervals crossed a 32-bit tick counter wraparound and were unwrapped",
     "durations assume at most one wrap per interval"},
    {"etrecord.maps_empty", ETP_SEV_WARNING,
     "the ETRecord's debug handle map is empty; no source-operator attribution is possible",
     "regenerate the ETRecord with generate_etrecord=True from the same export"},
    {"kernel.no_native_event", ETP_SEV_INFO,
     "some KernelCall instructions have no native_call_* event (not code-generated kernels)",
     "their kernel time and dispatch overhead are unknown; OPERATOR_CALL time is still measured"},
    {"method.indistinguishable", ETP_SEV_INFO,
     "several methods have identical instructions; the ETDump cannot tell which ran",
     "names and timings are the same for all of them; pass --method to record the right one"},
    {"runner_log.count_differs", ETP_SEV_WARNING,
     "the runner log reports a different number of iterations than the ETDump has executions",
     "check that the log and the ETDump come from the same run"},
    {"runner_log.other_etdump", ETP_SEV_WARNING,
     "the runner log says it wrote an ETDump with a different file name",
     "check that the log belongs to this ETDump (a renamed file is fine)"},
    {"units.assumed", ETP_SEV_WARNING,
     "the ETDump does not record its tick unit; nanoseconds were assumed",
     "pass --source-unit (ns on Linux hosts, cycles on many microcontrollers)"},
    {"vgf.compute_segment", ETP_SEV_WARNING,
     "a VGF compute (shader) segment has no NX statistics and is not part of the cycle totals",
     "its time is not in the VGF cycle figures; see the ordinary runtime events of that delegate call"},
    {"vgf.coverage_differs", ETP_SEV_WARNING,
     "VGF instructions or segments were measured in different executions; model cycle summaries are unavailable",
     "individual measurements remain; check for executions without VGF statistics"},
    {"vgf.data_unavailable", ETP_SEV_WARNING,
     "a VGF_NEURAL_STATISTICS record says its data is unavailable (the recorded reason is quoted)",
     "enable EXECUTORCH_VGF_ENABLE_NEURAL_STATISTICS and a driver exposing VK_ARM_data_graph statistics"},
    {"vgf.decoder_fallback", ETP_SEV_WARNING,
     "VGF statistics were decoded with assumed settings (see decoder_fallback_fields)",
     "check the assumed mode and device against the capture; schema v2 records them"},
    {"vgf.layout_assumption", ETP_SEV_WARNING,
     "a VGF statistics layout fact that is not public (leading block, mode-1 core) was assumed",
     "the reading used is recorded in the result; confirm it against a known capture"},
};

const etp_issue_code *etp_issue_registry(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const etp_issue_code *etp_issue_lookup(const char *code)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i].code, code))
            return &registry[i];
    return NULL;
}

etp_status etp_issue_add(etp_issue_list *l, const char *code, const char *context_json,
                         const char *fmt, ...)
{
    const etp_issue_code *c = etp_issue_lookup(code);
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
