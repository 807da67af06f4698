/* bundle_artifacts.c - the bundle's artifact table, kept sorted by path:
 * what may be entered (path rules, media types, roles, schema ids, no file
 * that is also another artifact's directory), entering and dropping. */
#include <stdlib.h>
#include <string.h>

#include "formats/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_internal.h"
#include "util/str.h"

static const char *media_type_for(const char *rel)
{
    const char *dot = strrchr(rel, '.');
    const char *slash = strrchr(rel, '/');
    if (!dot || (slash && dot < slash))
        return "application/octet-stream";
    if (!strcmp(dot, ".json"))
        return "application/json";
    if (!strcmp(dot, ".csv"))
        return "text/csv";
    if (!strcmp(dot, ".txt") || !strcmp(dot, ".log"))
        return "text/plain";
    return "application/octet-stream";
}

static int is_artifact_role(const char *role)
{
    static const char *const roles[] = {"core", "projection", "extension", "export",
                                        "diagnostic"};
    for (size_t i = 0; role && i < sizeof roles / sizeof roles[0]; i++)
        if (!strcmp(role, roles[i]))
            return 1;
    return 0;
}

/* A media type as in RFC 6838: type "/" subtype, printable, no spaces. */
static int is_media_type(const char *s)
{
    size_t n = strlen(s);
    const char *slash = strchr(s, '/');
    if (n == 0 || n > 127 || !slash || slash == s || !slash[1])
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

size_t etp_bundle_artifact_find(const etp_bundle *b, const char *rel, int *found)
{
    size_t lo = 0, hi = b->artifact_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(b->artifacts[mid].path, rel);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

etp_status etp_bundle_artifact_check(etp_bundle *b, const char *rel, const char **media_type,
                                     const char *role, const char *schema_id, int schema_version,
                                     size_t *slot, etp_error *err)
{
    if (b->committed)
        return etp_bundle_refuse_after_commit(b, err);
    const char *why = etp_bundle_path_problem(rel, rel ? strlen(rel) : 0);
    if (why)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET, "artifact '%s': %s",
                             rel ? rel : "", why);
    if (!strcmp(rel, ETP_BUNDLE_MANIFEST) || !strcmp(rel, ETP_BUNDLE_MANIFEST_TMP))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': that name is reserved for the manifest", rel);
    if (!*media_type)
        *media_type = media_type_for(rel);
    if (!is_media_type(*media_type))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': bad media type '%s'", rel, *media_type);
    if (!is_artifact_role(role))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': role must be core, projection, extension, export "
                             "or diagnostic",
                             rel);
    if (schema_id && (!etp_bundle_is_token(schema_id) || schema_version < 1))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s': schema id must be a lowercase name and its "
                             "version an integer >= 1",
                             rel);
    int found;
    *slot = etp_bundle_artifact_find(b, rel, &found);
    if (found)
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s' is already in the bundle", rel);
    /* A file cannot also be a directory of other artifacts, and vice versa.
     * Binary searches keep this cheap for bundles of many files. */
    char prefix[ETP_BUNDLE_PATH_MAX + 2];
    size_t n = strlen(rel);
    for (size_t i = 0; i < n; i++) {
        if (rel[i] != '/')
            continue;
        memcpy(prefix, rel, i);
        prefix[i] = '\0';
        int hit;
        size_t at = etp_bundle_artifact_find(b, prefix, &hit);
        if (hit)
            return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                                 "artifact '%s' clashes with artifact '%s' (file vs directory)",
                                 rel, b->artifacts[at].path);
    }
    memcpy(prefix, rel, n);
    memcpy(prefix + n, "/", 2);
    int hit;
    size_t at = etp_bundle_artifact_find(b, prefix, &hit); /* first path >= "rel/" */
    if (at < b->artifact_count && !strncmp(b->artifacts[at].path, prefix, n + 1))
        return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                             "artifact '%s' clashes with artifact '%s' (file vs directory)", rel,
                             b->artifacts[at].path);
    return ETP_OK;
}

void etp_bundle_artifact_release(etp_bundle_artifact *a)
{
    free(a->path);
    free(a->media_type);
    free(a->role);
    free(a->schema);
}

etp_status etp_bundle_artifact_add(etp_bundle *b, size_t slot, const char *rel,
                                   const char *media_type, const char *role, const char *schema_id,
                                   int schema_version, uint64_t size, const char *sha256,
                                   etp_error *err)
{
    if (b->artifact_count == b->artifact_cap) {
        size_t ncap = b->artifact_cap ? b->artifact_cap * 2 : 16;
        etp_bundle_artifact *n = realloc(b->artifacts, ncap * sizeof *n);
        if (!n)
            return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
        b->artifacts = n;
        b->artifact_cap = ncap;
    }
    etp_bundle_artifact a = {0};
    a.path = etp_strdup(rel);
    a.media_type = etp_strdup(media_type);
    a.role = etp_strdup(role);
    a.schema = schema_id ? etp_strdup(schema_id) : NULL;
    a.schema_version = schema_id ? schema_version : 0;
    a.size = size;
    memcpy(a.sha256, sha256, ETP_SHA256_HEX);
    if (!a.path || !a.media_type || !a.role || (schema_id && !a.schema)) {
        etp_bundle_artifact_release(&a);
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    }
    memmove(&b->artifacts[slot + 1], &b->artifacts[slot],
            (b->artifact_count - slot) * sizeof *b->artifacts);
    b->artifacts[slot] = a;
    b->artifact_count++;
    b->written++;
    return ETP_OK;
}

void etp_bundle_artifact_drop(etp_bundle *b, const char *rel)
{
    int found;
    size_t at = etp_bundle_artifact_find(b, rel, &found);
    if (!found)
        return;
    etp_bundle_artifact *a = &b->artifacts[at];
    etp_bundle_artifact_release(a);
    memmove(a, a + 1, (b->artifact_count - at - 1) * sizeof *a);
    b->artifact_count--;
    b->written--;
}
