/*
 * etprof/issues.h - findings that lower trust in a result, with stable codes.
 *
 * Every code lives in one registry (src/analysis/issue_registry.c) with a
 * fixed severity, the scopes that emit it (an analysis's issues, a diff's
 * warnings, or both) and one line of guidance; docs/issue-codes.md is
 * generated from it (`etprof analyze --list-issue-codes`) and a test keeps
 * the two in sync. Nothing emits a code the registry does not hold:
 * etp_issue_add() refuses it, and so does the diff. Validity follows
 * mechanically from the worst severity present:
 *   error -> invalid, warning -> degraded, info or nothing -> valid.
 *
 * Ownership: the registry is static and read-only (etp_issue_code pointers
 * stay valid for the life of the process). An etp_issue_list owns its items
 * and their message and context text; etp_issue_list_free() releases them.
 *
 * Thread safety: the registry lookups are safe from any thread. A list has
 * no lock: one thread may add to it at a time, and nobody may read it while
 * it is being added to (etp_issue_add() may move its items).
 */
#ifndef ETPROF_ISSUES_H
#define ETPROF_ISSUES_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_severity { ETP_SEV_INFO = 0, ETP_SEV_WARNING = 1, ETP_SEV_ERROR = 2 } etp_severity;

typedef enum etp_validity { ETP_VALID = 0, ETP_DEGRADED = 1, ETP_INVALID = 2 } etp_validity;

/** Who emits a code (bits of etp_issue_code.scopes). */
typedef enum etp_issue_scope {
    ETP_ISSUE_SCOPE_ANALYSIS = 1, /**< an analysis's issues (etp_issue_add()) */
    ETP_ISSUE_SCOPE_DIFF = 2      /**< a comparison's warnings (etp_diff.warnings) */
} etp_issue_scope;

/** A registry entry. */
typedef struct etp_issue_code {
    const char *code;       /**< stable dotted code, e.g. "attribution.shared_timing" */
    etp_severity severity;
    unsigned scopes;        /**< etp_issue_scope bits: who may emit it */
    const char *title;      /**< what it means, one line */
    const char *guidance;   /**< what to do about it, one line */
} etp_issue_code;

/** One finding: a registry code, a specific message and open context. */
typedef struct etp_issue {
    const etp_issue_code *code;
    char *message;          /**< owned */
    char *context_json;     /**< owned JSON object text, or NULL */
} etp_issue;

/** A growable list of issues. Start from all zero ({0}). */
typedef struct etp_issue_list {
    etp_issue *items;
    size_t count, cap;
} etp_issue_list;

/** Look up a code; NULL when unknown. */
const etp_issue_code *etp_issue_lookup(const char *code);
/** Look up a code that @p scope (one etp_issue_scope) may emit; NULL when
 *  the registry has no such code, or not for that scope. */
const etp_issue_code *etp_issue_lookup_scope(const char *code, etp_issue_scope scope);
/** The whole registry (sorted by code) and its length. */
const etp_issue_code *etp_issue_registry(size_t *count);

/**
 * Append an issue with registry code @p code (must exist, of scope
 * ETP_ISSUE_SCOPE_ANALYSIS), a printf-style message (cut at 1023 bytes),
 * and optional context (JSON object text, copied; may be NULL). Returns
 * ETP_OK; ETP_E_NOMEM when memory runs out; ETP_E_USAGE when @p code is not
 * in the registry for an analysis (a bug in the caller).
 * On failure the list is unchanged. The status alone says what failed (the
 * only causes are these two), so there is no etp_error argument.
 */
etp_status etp_issue_add(etp_issue_list *l, const char *code, const char *context_json, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Validity implied by the issues. */
etp_validity etp_issue_validity(const etp_issue_list *l);

/** "info", "warning" or "error" (a static string). */
const char *etp_severity_name(etp_severity s);
/** "valid", "degraded" or "invalid" (a static string). */
const char *etp_validity_name(etp_validity v);

/** Free the list's items, their messages and contexts, and leave the list
 *  empty (all zero; it may be reused). The list itself is the caller's;
 *  @p l must not be NULL. */
void etp_issue_list_free(etp_issue_list *l);

#ifdef __cplusplus
}
#endif
#endif
