/* findings_internal.h - what the finding rules share: the threshold slots,
 * the context a rule reads, and the builder that records a finding. */
#ifndef ETP_FINDINGS_INTERNAL_H
#define ETP_FINDINGS_INTERNAL_H

#include "etprof/analysis.h"
#include "etprof/findings.h"

/* Every threshold of every rule, by slot (etp_finding_param.index). */
enum {
    P_UNPROFILED_MIN_PCT = 0,
    P_BOUNDARY_MIN_SHARE_PCT,
    P_CPU_SIDE_MAX_DELEGATE_PCT,
    P_FRAGMENTED_MIN_CALLS,
    P_NATIVE_MIN_SHARE_PCT,
    P_HOTSPOT_MIN_SHARE_PCT,
    P_COPY_MIN_RATIO,
    P_NX_MIN_SHARE_PCT,
    P_DISPATCH_MIN_SHARE_PCT,
    P_DISPATCH_TINY_SHARE_PCT,
    P_DISPATCH_MIN_TINY_OPS,
    P_TRACING_MIN_FRAMEWORK_PCT,
    P_COLD_MIN_RATIO,
    P_COLD_MIN_INFLATION_PCT,
    P_UNSTABLE_MAX_CV_PCT,
    P_UNSTABLE_OUTLIER_MADS,
    P_UNSTABLE_MIN_EXECUTIONS,
    P_UNSTABLE_GAP_PCT,
    P_UNSTABLE_MIN_MODE_PCT,
    P_COUNT
};

/* Most entities a finding lists (the largest first); the message says how
 * many there were in all. */
#define FINDING_MAX_ENTITIES 8

/* What a rule reads. */
typedef struct finding_ctx {
    const etp_analysis *a;
    const etp_finding_settings *settings;
    etp_finding_list *out;
    const etp_figure *execute;    /* Method::execute, NULL when unavailable */
    double execute_avg;           /* its average (target unit; 0 when unavailable) */
    const char *unit;             /* the target unit's name */
    /* Read once for every rule (finding_ctx_read()): */
    const etp_entity **ins;       /* the instruction entities in chain order (chain, index) */
    uint32_t ins_count;
    uint32_t kernels;             /* timed KernelCall instructions */
    uint32_t delegate_calls;      /* DelegateCall instructions that ran (timed, or measured as
                                     VGF NX cycles) */
    uint32_t vgf_calls;           /* of them, measured as VGF NX cycles (no runtime series) */
    const etp_entity *top_kernels[FINDING_MAX_ENTITIES]; /* the largest timed kernels, largest
                                                            first (ties by id) */
    uint32_t top_count;
} finding_ctx;

/* Fill the shared readings of @p c (c->a set); ETP_E_NOMEM. Release with
 * finding_ctx_release(). */
etp_status finding_ctx_read(finding_ctx *c);
void finding_ctx_release(finding_ctx *c);

/* The value in force for slot @p slot. */
double finding_threshold(const finding_ctx *c, int slot);

/* A finding being recorded (the last item of c->out). */
typedef struct finding_builder {
    finding_ctx *c;
    etp_finding *f;
    etp_status status;            /* the first failure (ETP_E_NOMEM); later calls do nothing */
} finding_builder;

/* Start a finding of @p code (must be in the registry) with status @p st;
 * its thresholds are filled from the rule. */
void finding_begin(finding_builder *b, finding_ctx *c, const char *code, etp_finding_status st);
/* Its one-line message (printf-style, cut at 1023 bytes). */
void finding_message(finding_builder *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void finding_value(finding_builder *b, const char *name, double value, const char *unit, int additive,
                   const char *source);
/* An affected analysis entity; @p role may be NULL; the value and share
 * are its average and that as a share of Method::execute (when known). */
void finding_entity(finding_builder *b, etp_finding_entity_kind kind, const char *id, const char *name,
                    const char *role, const etp_entity *timed);
/* An affected entity with an explicit value / share (NAN: none). */
void finding_entity_values(finding_builder *b, etp_finding_entity_kind kind, const char *id,
                           const char *name, const char *role, double value, double share_pct);
/* Rule-specific details (JSON object text, taken over). */
void finding_details(finding_builder *b, char *json);
/* Finish: the finding stays when everything succeeded, else it is dropped.
 * Returns the status. */
etp_status finding_end(finding_builder *b);

/* Shared readings of the analysis. */
int finding_is_delegate_call(const etp_entity *e);
int finding_is_kernel_call(const etp_entity *e);
/* A DelegateCall that ran: timed, or measured as VGF NX cycles. */
int finding_delegate_ran(const etp_entity *e);
/* The entity's average may be added to others measured in every execution
 * of the analysis (additive, not shared, present in all of them). */
int finding_summable(const finding_ctx *c, const etp_entity *e);
/* Its average as a share of Method::execute (NAN when not formed). */
double finding_share(const finding_ctx *c, double avg);
/* A quantize / dequantize or layout-changing copy (by operator type). */
int finding_is_conversion(const char *op_type);
/* The entity kind a finding writes for an analysis entity. */
etp_finding_entity_kind finding_kind_of(const etp_entity *e);
/* @p v in @p unit as a message prints it ("6.47 Mcycles", "116.7 ms"). */
const char *finding_fmt(char *buf, size_t n, double v, const char *unit);

/* The rules, by file. Each adds its findings to c->out; a failure is
 * ETP_E_NOMEM only. */
etp_status findings_delegation(finding_ctx *c);
etp_status findings_boundary(finding_ctx *c);
etp_status findings_compute(finding_ctx *c);
etp_status findings_overhead(finding_ctx *c);
etp_status findings_stability(finding_ctx *c);
etp_status findings_accelerator(finding_ctx *c);

/* Run every rule over @p a (called by the analysis as its last step). */
etp_status finding_rules_run(const etp_analysis *a, const etp_finding_settings *s, etp_finding_list *out,
                            etp_error *err);

#endif
