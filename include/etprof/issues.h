/*
 * etprof/issues.h - findings that lower trust in a result, with stable codes.
 *
 * Every code lives in one registry (src/analysis/issue_registry.c) with a
 * fixed severity and one line of guidance; docs/issue-codes.md is generated
 * from it (`etprof analyze --list-issue-codes`) and a test keeps the two in
 * sync. Validity follows mechanically from the worst severity present:
 *   error -> invalid, warning -> degraded, info or nothing -> valid.
 */
#ifndef ETPROF_ISSUES_H
#define ETPROF_ISSUES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_severity { ETP_SEV_INFO = 0, ETP_SEV_WARNING = 1, ETP_SEV_ERROR = 2 } etp_severity;

typedef enum etp_validity { ETP_VALID = 0, ETP_DEGRADED = 1, ETP_INVALID = 2 } etp_validity;

/** A registry entry. */
typedef struct etp_issue_code {
    const char *code;       /**< stable dotted code, e.g. "attribution.shared_timing" */
    etp_severity severity;
    const char *title;      /**< what it means, one line */
    const char *guidance;   /**< what to do about it, one line */
} etp_issue_code;

/** One finding: a registry code, a specific message and open context. */
typedef struct etp_issue {
    const etp_issue_code *code;
    char *message;          /**< owned */
    char *context_json;     /**< owned JSON object text, or NULL */
} etp_issue;

/** A growable list of issues. */
typedef struct etp_issue_list {
    etp_issue *items;
    size_t count, cap;
} etp_issue_list;

/** Look up a code; NULL when unknown. */
const etp_issue_code *etp_issue_lookup(const char *code);
/** The whole registry (sorted by code) and its length. */
const etp_issue_code *etp_issue_registry(size_t *count);

/**
 * Append an issue with registry code @p code (must exist), a printf-style
 * message, and optional context (JSON object text, copied; may be NULL).
 * Returns 0, -1 on allocation failure or unknown code.
 */
int etp_issue_add(etp_issue_list *l, const char *code, const char *context_json, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Validity implied by the issues. */
etp_validity etp_issue_validity(const etp_issue_list *l);

const char *etp_severity_name(etp_severity s);
const char *etp_validity_name(etp_validity v);

/** Free the list's contents. */
void etp_issue_list_free(etp_issue_list *l);

#ifdef __cplusplus
}
#endif
#endif
