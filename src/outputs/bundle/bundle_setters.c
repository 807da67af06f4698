/* bundle_setters.c - the manifest's members other than inputs and
 * artifacts: status and validity, issues, comparability, extensions (JSON
 * checked here: duplicate keys and deep nesting refused), the options
 * (kept canonical, with their SHA-256) and the bundle type. */
#include <stdlib.h>
#include <string.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/jsonw_value.h"
#include "util/str.h"

void etp_bundle_set_status(etp_bundle *b, const char *status, const char *validity)
{
    if (!b || b->committed)
        return;
    free(b->status);
    free(b->validity);
    b->status = status ? etp_strdup(status) : NULL;
    b->validity = validity ? etp_strdup(validity) : NULL;
}

/* Parse @p json with duplicate keys refused; NULL with @p err filled. */
static json_t *parse_value(const etp_bundle *b, const char *what, const char *json,
                           etp_error *err)
{
    if (!json) {
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: no JSON text", what);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loads(json, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!v) {
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: not JSON: %s (offset %d)",
                      what, je.text, je.position);
        return NULL;
    }
    if (etp_json_depth(v, ETP_JW_VALUE_MAX_DEPTH) > ETP_JW_VALUE_MAX_DEPTH) {
        json_decref(v);
        etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: nested deeper than %d", what,
                      ETP_JW_VALUE_MAX_DEPTH);
        return NULL;
    }
    return v;
}

etp_status etp_bundle_set_json(etp_bundle *b, const char *member, const char *json,
                               etp_error *err)
{
    if (b->committed)
        return etp_bundle_refuse_after_commit(b, err);
    json_t **slot;
    int want_array = 0;
    if (member && !strcmp(member, "issues"))
        slot = &b->issues, want_array = 1;
    else if (member && !strcmp(member, "comparability"))
        slot = &b->comparability;
    else if (member && !strcmp(member, "extensions"))
        slot = &b->extensions;
    else
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "manifest member '%s' cannot be set (issues, comparability, "
                             "extensions)",
                             member ? member : "");
    json_t *v = parse_value(b, member, json, err);
    if (!v)
        return ETP_E_USAGE;
    if (want_array ? !json_is_array(v) : !json_is_object(v)) {
        json_decref(v);
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "%s: must be a JSON %s",
                             member, want_array ? "array" : "object");
    }
    if (want_array) {
        size_t i;
        json_t *issue;
        json_array_foreach(v, i, issue) {
            const char *why = etp_bundle_issue_problem(issue);
            if (why) {
                json_decref(v);
                return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "issues[%zu] %s",
                                     i, why);
            }
        }
    }
    json_decref(*slot);
    *slot = v;
    return ETP_OK;
}

etp_status etp_bundle_set_options(etp_bundle *b, const char *options_json, etp_error *err)
{
    if (b->committed)
        return etp_bundle_refuse_after_commit(b, err);
    json_t *v = parse_value(b, "options", options_json, err);
    if (!v)
        return ETP_E_USAGE;
    if (!json_is_object(v)) {
        json_decref(v);
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "options: must be a JSON object");
    }
    char *canon = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
    if (!canon) {
        json_decref(v);
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    }
    int rc = etp_sha256_buf(canon, strlen(canon), b->options_sha256);
    free(canon);
    if (rc) {
        json_decref(v);
        return etp_error_set(err, ETP_E_INTERNAL, b->dir, ETP_NO_OFFSET,
                             "OpenSSL SHA-256 failed");
    }
    json_decref(b->options);
    b->options = v;
    return ETP_OK;
}

etp_status etp_bundle_set_type(etp_bundle *b, const char *bundle_type, etp_error *err)
{
    if (b->committed)
        return etp_bundle_refuse_after_commit(b, err);
    if (!etp_bundle_is_token(bundle_type))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "bundle type must be a lowercase name such as \"profile\"");
    char *t = etp_strdup(bundle_type);
    if (!t)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    free(b->bundle_type);
    b->bundle_type = t;
    return ETP_OK;
}
