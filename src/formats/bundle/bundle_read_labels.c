/* bundle_read_labels.c - run labels: what a key and a value may be, and
 * run_metadata.json's "labels" object read back (a value that is not UTF-8
 * is written as {"base64": "..."}; see etprof/bundle_read.h). */
#include "formats/bundle/bundle_read_internal.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/nx_record.h"

const char *etp_label_key_problem(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (!n)
        return "empty label key";
    if (n > ETP_LABEL_KEY_MAX)
        return "label key longer than 64 bytes";
    if (!((key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z')))
        return "label key must start with a letter";
    if (strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") != n)
        return "label key may only hold letters, digits and _ . : -";
    /* A run history filters and groups by these fields of the run itself. */
    static const char *const reserved[] = {"program", "etrecord", "method",  "unit",
                                           "validity", "tool_version", "run_id"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(key, reserved[i]))
            return "label key names a field of the run itself (program, etrecord, method, unit, "
                   "validity, tool_version, run_id)";
    return NULL;
}

const char *etp_label_value_problem(const char *value)
{
    if (!value)
        return "no label value";
    if (strlen(value) > ETP_LABEL_VALUE_MAX)
        return "label value longer than 65536 bytes";
    return NULL;
}

static int cmp_label(const void *x, const void *y)
{
    return strcmp(((const etp_bundle_label *)x)->key, ((const etp_bundle_label *)y)->key);
}

/* A value written as {"base64": "..."}: its bytes (no NUL among them). */
static etp_status base64_value(etp_bundle_reader *r, const char *rel, const char *key,
                               const json_t *v, const char **out)
{
    const json_t *b = json_object_get(v, "base64");
    if (json_object_size(v) != 1 || !json_is_string(b))
        return etp_bread_bad(r, rel, "labels: \"%s\" is neither a string nor {\"base64\": text}",
                             key);
    uint8_t *bytes = NULL;
    size_t len = 0, bad = 0;
    int rc = etp_nx_base64_decode(json_string_value(b), json_string_length(b), &bytes, &len, &bad);
    if (rc == -2)
        return etp_bread_nomem(r);
    if (rc || memchr(bytes, 0, len)) {
        free(bytes);
        return etp_bread_bad(r, rel, "labels: \"%s\": %s", key,
                             rc ? "invalid base64" : "the value holds a NUL byte");
    }
    *out = etp_bread_strndup(r, bytes ? (const char *)bytes : "", len);
    free(bytes);
    return *out ? ETP_OK : etp_bread_nomem(r);
}

etp_status etp_bread_labels(etp_bundle_reader *r, const char *rel, const json_t *root)
{
    etp_bundle_run_metadata *m = &r->doc->meta;
    const json_t *obj = json_object_get(root, "labels");
    if (!obj || json_is_null(obj))
        return ETP_OK;
    if (!json_is_object(obj))
        return etp_bread_bad(r, rel, "\"labels\" is not an object");
    size_t n = json_object_size(obj);
    etp_bundle_label *l = etp_bread_calloc(r, n, sizeof *l);
    if (!l)
        return etp_bread_nomem(r);
    const char *key;
    const json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)obj, key, v)
    {
        const char *why = etp_label_key_problem(key);
        if (why)
            return etp_bread_bad(r, rel, "labels: %s", why);
        l[i].key = key;
        if (json_is_string(v)) {
            if (memchr(json_string_value(v), 0, json_string_length(v)))
                return etp_bread_bad(r, rel, "labels: \"%s\": the value holds a NUL byte", key);
            l[i].value = json_string_value(v);
        } else if (json_is_object(v)) {
            etp_status s = base64_value(r, rel, key, v, &l[i].value);
            if (s)
                return s;
        } else {
            return etp_bread_bad(r, rel, "labels: \"%s\" is neither a string nor {\"base64\": text}",
                                 key);
        }
        if ((why = etp_label_value_problem(l[i].value)))
            return etp_bread_bad(r, rel, "labels: \"%s\": %s", key, why);
        i++;
    }
    qsort(l, n, sizeof *l, cmp_label);
    m->label_count = (uint32_t)n;
    m->labels = l;
    return ETP_OK;
}
