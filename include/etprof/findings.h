/*
 * etprof/findings.h - answers read from an analysis: the patterns engineers
 * look for by hand in a profile (native work dominating a delegated program,
 * fragmented delegation, conversions at delegate boundaries, a hot operator
 * type, a cold first execution, ...), each with the numbers it rests on.
 *
 * Every finding has a stable dotted code in one registry (like the issue
 * codes, etprof/issues.h): its category, severity, meaning, next step and
 * the thresholds it compares against, each with a documented default and
 * the reason for it. docs/findings.md is `etprof analyze
 * --list-finding-codes`; a test keeps the two in sync. A user changes a
 * threshold with `--finding CODE.KEY=VALUE` (etp_finding_settings_parse()).
 *
 * Findings read only the typed analysis results (figures, entities, the
 * operator-type and backend totals, the Ethos-U split, the NX result). They
 * never rest on a number the analysis forbids: a shared or non-additive
 * timing is never added, and a total over entities measured in different
 * executions is not formed. When a finding's pattern is present but the
 * number it needs cannot be formed honestly, the finding is reported as
 * withheld, with the reason, instead of fired.
 *
 * Findings never change a result's validity (that is the issues' job).
 *
 * Ownership: the registry is static and read-only. An etp_finding_list owns
 * its findings and all their text (etp_finding_list_free()). It is part of
 * an etp_analysis (etp_analysis.findings) and freed with it.
 *
 * Thread safety: the registry and the settings lookups are safe from any
 * thread; a settings object or a list may be read by many threads at once
 * but changed by one, with no reader meanwhile.
 */
#ifndef ETPROF_FINDINGS_H
#define ETPROF_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"
#include "etprof/issues.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a finding is about. */
typedef enum etp_finding_category {
    ETP_FINDING_DELEGATION = 0,   /**< what ran inside delegates and what did not */
    ETP_FINDING_QUANTIZATION,     /**< quantize / dequantize and layout conversions */
    ETP_FINDING_COMPUTE,          /**< where the compute time concentrates */
    ETP_FINDING_OVERHEAD,         /**< time outside operator work (dispatch, framework, tracing) */
    ETP_FINDING_STABILITY,        /**< how the timing varies across executions */
    ETP_FINDING_MEMORY,           /**< memory movement and planning */
    ETP_FINDING_ACCELERATOR,      /**< what an accelerator counted (NX cycles, NPU time) */
    ETP_FINDING_CATEGORY_COUNT
} etp_finding_category;

/** "delegation", "quantization", ... (a static string; NULL out of range). */
const char *etp_finding_category_name(etp_finding_category c);

/** A threshold a rule compares against. */
typedef struct etp_finding_param {
    const char *key;              /**< e.g. "min_share_pct" (the setting is CODE.KEY) */
    double default_value;
    const char *unit;             /**< "%", "ratio", "count", "executions" */
    const char *why;              /**< why the default is what it is, one line */
    uint32_t index;               /**< position among all rules' params (settings slot) */
} etp_finding_param;

/** A registry entry. */
typedef struct etp_finding_rule {
    const char *code;             /**< stable dotted code, e.g. "delegation.fragmented" */
    etp_finding_category category;
    etp_severity severity;        /**< info or warning: findings never make a result invalid */
    const char *title;            /**< what the pattern is, one line */
    const char *next_step;        /**< what to try, one line */
    const etp_finding_param *params;
    uint32_t param_count;
} etp_finding_rule;

/** The whole registry (sorted by code) and its length. */
const etp_finding_rule *etp_finding_registry(size_t *count);
/** Look up a code; NULL when unknown. */
const etp_finding_rule *etp_finding_lookup(const char *code);

/** Most thresholds over all rules (the settings' slots). */
#define ETP_FINDING_PARAM_MAX 64

/** Thresholds a user changed. All zero means every default. */
typedef struct etp_finding_settings {
    double value[ETP_FINDING_PARAM_MAX];
    uint8_t given[ETP_FINDING_PARAM_MAX];
} etp_finding_settings;

/**
 * Apply one assignment "CODE.KEY=VALUE" (e.g.
 * "hotspot.op_type.min_share_pct=40") to @p s. VALUE is a finite number
 * that is not negative. ETP_E_USAGE with a message naming the unknown code
 * or key, or the bad value. @p s is unchanged on failure.
 */
etp_status etp_finding_settings_parse(etp_finding_settings *s, const char *assignment, etp_error *err);

/** The value in force for @p p: the user's, else its default. @p s may be NULL. */
double etp_finding_setting(const etp_finding_settings *s, const etp_finding_param *p);

/** Whether a finding fired or was held back. */
typedef enum etp_finding_status {
    ETP_FINDING_FIRED = 0,        /**< the pattern is there; the message says how much */
    ETP_FINDING_WITHHELD          /**< the pattern may be there but the number it needs cannot be
                                       formed honestly; the message says why */
} etp_finding_status;

/** "fired" or "withheld". */
const char *etp_finding_status_name(etp_finding_status s);

/** One number a finding rests on. */
typedef struct etp_finding_value {
    const char *name;             /**< static, e.g. "native_kernels_avg", "native_share" */
    double value;
    const char *unit;             /**< a unit name ("ms", "cycles", ...) or "%", "ratio", "count" */
    int additive;                 /**< 1: may be added to other additive values of its unit */
    const char *source;           /**< static: the figure or field it is read from */
} etp_finding_value;

/** A threshold as used. */
typedef struct etp_finding_threshold {
    const etp_finding_param *param;
    double value;                 /**< in force (the user's or the default) */
    int given;                    /**< 1: set with --finding */
} etp_finding_threshold;

/** What kind of thing a finding points at. */
typedef enum etp_finding_entity_kind {
    ETP_FE_INSTRUCTION = 0,       /**< an instruction of the method's chain (entity id) */
    ETP_FE_DELEGATE_CALL,         /**< a DelegateCall instruction (entity id) */
    ETP_FE_OPERATOR,              /**< a source-graph node (its name) */
    ETP_FE_DELEGATE_EVENT,        /**< a delegate-internal event's entity */
    ETP_FE_NX_CHAIN,              /**< an NX chain (etp_nx_entity id) */
    ETP_FE_NX_CASCADE,            /**< an NX cascade */
    ETP_FE_KIND_COUNT
} etp_finding_entity_kind;

/** "instruction", "delegate_call", "operator", "delegate_event", "nx_chain", "nx_cascade". */
const char *etp_finding_entity_kind_name(etp_finding_entity_kind k);

/** An entity a finding names. */
typedef struct etp_finding_entity {
    etp_finding_entity_kind kind;
    char *id;                     /**< the entity's id as the other outputs write it (owned) */
    char *name;                   /**< display name (owned) */
    char *role;                   /**< what it is to the finding, e.g. "island 1", "quantize" (owned;
                                       NULL: none) */
    int has_value;
    double value;                 /**< its average, in the evidence's unit (when has_value) */
    int has_share;
    double share_pct;             /**< its average as a share of Method::execute (when has_share) */
} etp_finding_entity;

/** Most affected entities one finding lists; the rest are counted
 *  (etp_finding.entities_omitted). */
#define ETP_FINDING_MAX_LISTED 64

/** One finding. */
typedef struct etp_finding {
    const etp_finding_rule *rule;
    etp_finding_status status;
    char *message;                /**< one line with its numbers; withheld: why (owned) */
    etp_finding_value *evidence;  /**< owned */
    uint32_t evidence_count;
    etp_finding_threshold *thresholds; /**< every param of the rule, as used (owned) */
    uint32_t threshold_count;
    etp_finding_entity *entities; /**< affected, most important first (owned) */
    uint32_t entity_count;
    uint32_t entities_omitted;    /**< affected entities left out of the list (at most
                                       ETP_FINDING_MAX_LISTED are listed) */
    char *details_json;           /**< rule-specific JSON object text (e.g. the islands of
                                       delegation.fragmented), or NULL (owned) */
} etp_finding;

/** The findings of one analysis, in registry order (one code may repeat, e.g.
 *  one hotspot per operator type). Start from all zero ({0}). */
typedef struct etp_finding_list {
    etp_finding *items;
    uint32_t count, cap;
} etp_finding_list;

/** How many findings of @p l have status @p st. */
uint32_t etp_finding_list_count(const etp_finding_list *l, etp_finding_status st);

/** Free every finding and leave @p l empty (all zero). @p l must not be NULL. */
void etp_finding_list_free(etp_finding_list *l);

#ifdef __cplusplus
}
#endif
#endif
