/* finding_registry.c - the one list of finding codes and their thresholds
 * (see etprof/findings.h). Adding a code: add it here (sorted), then run
 * `etprof analyze --list-finding-codes > docs/findings.md`. Published codes
 * and keys never change meaning. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"

#define PARAMS(a) a, (uint32_t)(sizeof a / sizeof a[0])

static const etp_finding_param p_unprofiled[] = {
    {"min_unprofiled_pct", 20, "%",
     "the part of a DELEGATE_CALL its detailed events leave unexplained; below a fifth it is within "
     "what delegate bookkeeping and coarse (µs-quantised) event clocks explain",
     P_UNPROFILED_MIN_PCT},
};
static const etp_finding_param p_boundary[] = {
    {"min_share_pct", 1, "%",
     "conversions next to delegate calls, as a share of Method::execute; below 1% re-partitioning "
     "cannot pay for itself",
     P_BOUNDARY_MIN_SHARE_PCT},
};
static const etp_finding_param p_cpu_side[] = {
    {"max_delegate_share_of_native_pct", 10, "%",
     "delegate time as a share of the native kernels' time; at a tenth or less, a faster accelerator "
     "can save at most a tenth of the work",
     P_CPU_SIDE_MAX_DELEGATE_PCT},
};
static const etp_finding_param p_fragmented[] = {
    {"min_delegate_calls", 2, "count",
     "delegate calls of one backend with native instructions between them; two is the least "
     "fragmentation there is",
     P_FRAGMENTED_MIN_CALLS},
};
static const etp_finding_param p_native[] = {
    {"min_native_share_pct", 50, "%",
     "native kernels' share of Method::execute; more than half is 'most of the time'", P_NATIVE_MIN_SHARE_PCT},
};
static const etp_finding_param p_hotspot[] = {
    {"min_share_pct", 30, "%",
     "one operator type's share of Method::execute; above about a third it is where optimisation "
     "pays first, and at most three types can pass it",
     P_HOTSPOT_MIN_SHARE_PCT},
};
static const etp_finding_param p_copy[] = {
    {"min_copy_to_npu_ratio", 1, "ratio",
     "input plus output copy time over the NPU's own time; above 1 the copies, not the NPU, "
     "bound the call",
     P_COPY_MIN_RATIO},
};
static const etp_finding_param p_nx[] = {
    {"min_share_pct", 25, "%",
     "one chain's or cascade's share of the model's NX cycles; a quarter or more is where the "
     "accelerator's time concentrates",
     P_NX_MIN_SHARE_PCT},
};
static const etp_finding_param p_dispatch[] = {
    {"min_overhead_share_pct", 20, "%",
     "dispatch plus framework overhead as a share of Method::execute; a fifth or more is time "
     "spent running operators rather than in them",
     P_DISPATCH_MIN_SHARE_PCT},
    {"tiny_op_share_pct", 0.5, "%",
     "an instruction below this share of Method::execute counts as tiny (its fixed cost is "
     "comparable to its work)",
     P_DISPATCH_TINY_SHARE_PCT},
    {"min_tiny_ops", 20, "count",
     "this many tiny instructions make the overhead of launching them worth reading", P_DISPATCH_MIN_TINY_OPS},
};
static const etp_finding_param p_tracing[] = {
    {"min_framework_share_pct", 5, "%",
     "time inside Method::execute outside every instruction, as a share of it; event recording "
     "lands there, and below 5% it is not worth a second run",
     P_TRACING_MIN_FRAMEWORK_PCT},
};
static const etp_finding_param p_cold[] = {
    {"min_ratio", 1.5, "ratio",
     "first execution over the average of the rest; half as slow again is beyond the noise of warm runs",
     P_COLD_MIN_RATIO},
    {"min_warmup_inflation_pct", 2, "%",
     "slow outliers at the start (warm-up) that raise the average of every statistic by this much are "
     "worth leaving out, even when the first run alone is not half as slow again",
     P_COLD_MIN_INFLATION_PCT},
};
static const etp_finding_param p_unstable[] = {
    {"max_cv_pct", 5, "%",
     "coefficient of variation of Method::execute; warm runs on a quiet device vary by a few percent",
     P_UNSTABLE_MAX_CV_PCT},
    {"outlier_mads", 5, "ratio",
     "an execution further from the median than this many median absolute deviations is an outlier",
     P_UNSTABLE_OUTLIER_MADS},
    {"min_executions", 5, "executions",
     "fewer executions say too little about the spread to judge it", P_UNSTABLE_MIN_EXECUTIONS},
    {"bimodal_gap_pct", 10, "%",
     "a gap between sorted executions of at least this share of the median splits them into two groups",
     P_UNSTABLE_GAP_PCT},
    {"min_mode_pct", 20, "%",
     "each of the two groups must hold at least this share of the executions to count as a mode",
     P_UNSTABLE_MIN_MODE_PCT},
};

/* Sorted by code. */
static const etp_finding_rule registry[] = {
    {"delegate.unprofiled_overhead", ETP_FINDING_OVERHEAD, ETP_SEV_INFO,
     "a DELEGATE_CALL lasts much longer than the detailed events recorded inside it",
     "profile the delegate in more detail, or treat the gap as delegate overhead (set-up, copies, "
     "synchronisation)",
     PARAMS(p_unprofiled)},
    {"delegation.boundary_conversions", ETP_FINDING_QUANTIZATION, ETP_SEV_WARNING,
     "quantize, dequantize or layout copies run on the CPU next to delegate calls",
     "move the conversions into the delegate (quantize the model's inputs and outputs, or let the "
     "partitioner take them), or join the partitions they separate",
     PARAMS(p_boundary)},
    {"delegation.cpu_side_dominates", ETP_FINDING_DELEGATION, ETP_SEV_WARNING,
     "the delegate calls cost a small fraction of the native work around them",
     "optimise the named native operators (often quantization on the CPU) before the accelerator",
     PARAMS(p_cpu_side)},
    {"delegation.fragmented", ETP_FINDING_DELEGATION, ETP_SEV_WARNING,
     "one backend's delegate calls are separated by native instructions",
     "find why the partitioner left the island out (an unsupported operator or dtype) and make it "
     "delegable, so the partitions join",
     PARAMS(p_fragmented)},
    {"delegation.native_dominates", ETP_FINDING_DELEGATION, ETP_SEV_WARNING,
     "the program delegates, but native kernels take most of Method::execute",
     "check why the named operators were not delegated (partitioner support, dtype, quantization)",
     PARAMS(p_native)},
    {"delegation.none", ETP_FINDING_DELEGATION, ETP_SEV_INFO,
     "no delegate call ran: every instruction was a CPU kernel",
     "lower with a backend partitioner (XNNPACK on CPU; Ethos-U and VGF take quantized integer models)",
     NULL, 0},
    {"hotspot.op_type", ETP_FINDING_COMPUTE, ETP_SEV_INFO,
     "one operator type carries a large share of Method::execute",
     "optimise that type first: a faster kernel, a delegate that takes it, or fewer of them",
     PARAMS(p_hotspot)},
    {"npu.copy_bound", ETP_FINDING_MEMORY, ETP_SEV_WARNING,
     "an Ethos-U call spends longer copying its inputs and outputs than running on the NPU",
     "keep tensors in memory the NPU reads directly, or merge the calls so fewer tensors cross",
     PARAMS(p_copy)},
    {"nx.hot_chain", ETP_FINDING_ACCELERATOR, ETP_SEV_INFO,
     "one NX chain or cascade carries a large share of the model's NX cycles",
     "look at the TOSA operations of that chain: their shapes and data types decide its cycles",
     PARAMS(p_nx)},
    {"overhead.dispatch", ETP_FINDING_OVERHEAD, ETP_SEV_WARNING,
     "dispatch and framework overhead take a large share of Method::execute",
     "fuse small operators or delegate them, so fewer instructions run",
     PARAMS(p_dispatch)},
    {"overhead.tracing", ETP_FINDING_OVERHEAD, ETP_SEV_INFO,
     "part of the time outside instructions is probably the cost of recording events",
     "compare with a run without event tracing (the runner's wall time), or profile at method level",
     PARAMS(p_tracing)},
    {"stability.cold_start", ETP_FINDING_STABILITY, ETP_SEV_INFO,
     "the first execution, or a warm-up at the start, is much slower than the rest",
     "leave it out of the statistics with the --skip-executions the finding suggests (or warm up before "
     "tracing)",
     PARAMS(p_cold)},
    {"stability.unstable", ETP_FINDING_STABILITY, ETP_SEV_WARNING,
     "Method::execute varies much across executions",
     "run more executions on a quiet device (fixed clocks, no other load); leave warm-up out with "
     "--skip-executions",
     PARAMS(p_unstable)},
};

const etp_finding_rule *etp_finding_registry(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const etp_finding_rule *etp_finding_lookup(const char *code)
{
    for (size_t i = 0; code && i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i].code, code))
            return &registry[i];
    return NULL;
}

const char *etp_finding_category_name(etp_finding_category c)
{
    static const char *const names[ETP_FINDING_CATEGORY_COUNT] = {
        "delegation", "quantization", "compute", "overhead", "stability", "memory", "accelerator"};
    return (unsigned)c < ETP_FINDING_CATEGORY_COUNT ? names[c] : NULL;
}

const char *etp_finding_status_name(etp_finding_status s)
{
    return s == ETP_FINDING_WITHHELD ? "withheld" : "fired";
}

const char *etp_finding_entity_kind_name(etp_finding_entity_kind k)
{
    static const char *const names[ETP_FE_KIND_COUNT] = {"instruction",    "delegate_call", "operator",
                                                         "delegate_event", "nx_chain",      "nx_cascade"};
    return (unsigned)k < ETP_FE_KIND_COUNT ? names[k] : NULL;
}

double etp_finding_setting(const etp_finding_settings *s, const etp_finding_param *p)
{
    return s && p->index < ETP_FINDING_PARAM_MAX && s->given[p->index] ? s->value[p->index] : p->default_value;
}

double finding_threshold(const finding_ctx *c, int slot)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        for (uint32_t k = 0; k < registry[i].param_count; k++)
            if (registry[i].params[k].index == (uint32_t)slot)
                return etp_finding_setting(c->settings, &registry[i].params[k]);
    return NAN; /* not reached: every slot has a param (a test checks) */
}

etp_status etp_finding_settings_parse(etp_finding_settings *s, const char *assignment, etp_error *err)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = NULL;
    for (const char *p = assignment; eq && p < eq; p++)
        if (*p == '.')
            dot = p;
    if (!eq || !dot)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--finding '%s': expected CODE.KEY=VALUE (see --list-finding-codes)", assignment);
    char code[128];
    size_t n = (size_t)(dot - assignment);
    if (n >= sizeof code)
        n = sizeof code - 1;
    memcpy(code, assignment, n);
    code[n] = 0;
    const etp_finding_rule *r = etp_finding_lookup(code);
    if (!r)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--finding '%s': no finding code '%s' (see --list-finding-codes)", assignment, code);
    const etp_finding_param *p = NULL;
    size_t klen = (size_t)(eq - dot - 1);
    for (uint32_t k = 0; k < r->param_count; k++)
        if (strlen(r->params[k].key) == klen && !strncmp(r->params[k].key, dot + 1, klen))
            p = &r->params[k];
    if (!p)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--finding '%s': %s has no threshold '%.*s' (see --list-finding-codes)", assignment,
                             code, (int)klen, dot + 1);
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno || !isfinite(v) || v < 0)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--finding '%s': the value must be a number of at least 0", assignment);
    s->value[p->index] = v;
    s->given[p->index] = 1;
    return ETP_OK;
}
