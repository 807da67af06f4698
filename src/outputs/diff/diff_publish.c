/* diff_publish.c - `etprof diff -o DIR`: a diff bundle, staged, hashed and
 * swapped in by etprof/bundle.h exactly as an analysis bundle is (manifest
 * last), with bundle_type "diff". */
#include <stdlib.h>
#include <string.h>

#include "etprof/bundle.h"
#include "etprof/diff_io.h"
#include "util/jsonw.h"

static etp_status put(etp_bundle *b, const char *rel, char *text, size_t len, const char *role,
                      const char *schema, etp_error *err)
{
    if (!text)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_status s = etp_bundle_write(b, rel, text, len, NULL, role, schema, schema ? 1 : 0, err);
    free(text);
    return s;
}

/* A bundle side is recorded by its manifest's digest, an ETDump by itself. */
static etp_status add_side(etp_bundle *b, const char *role, const char *path, etp_error *err)
{
    size_t n = strlen(path) + sizeof "/" ETP_BUNDLE_MANIFEST;
    char *p = malloc(n);
    if (!p)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    snprintf(p, n, "%s/%s", path, ETP_BUNDLE_MANIFEST);
    etp_status s = etp_bundle_add_input(b, role, p, err);
    if (s) { /* not a bundle: the file itself */
        etp_error_clear(err);
        s = etp_bundle_add_input(b, role, path, err);
    }
    free(p);
    return s;
}

/* The manifest's comparability block of a diff: what was compared at
 * which level. */
static char *comparability(const etp_diff *d)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "level", d->level_name);
    etp_jw_kstr(&w, "statistic", d->statistic_name);
    etp_jw_kstr(&w, "unit", d->unit);
    etp_jw_kstr(&w, "base_program_sha256", d->base.program_sha256);
    etp_jw_kstr(&w, "new_program_sha256", d->new_.program_sha256);
    etp_jw_kstr(&w, "method", d->base.method);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

static char *issues(const etp_diff *d)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < d->warning_count; i++) {
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "code", d->warnings[i].code);
        etp_jw_kstr(&w, "severity", etp_severity_name(d->warnings[i].issue->severity));
        etp_jw_kstr(&w, "message", d->warnings[i].message);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    return etp_jw_take(&w, NULL);
}

etp_status etp_diff_publish(const etp_diff *d, const etp_diff_publish_options *o, etp_error *err)
{
    etp_bundle *b = NULL;
    etp_status s = etp_bundle_begin_ex(o->dir, o->bundle_flags, &b, err);
    if (s)
        return s;
    size_t len = 0;
    s = etp_bundle_set_type(b, "diff", err);
    if (!s)
        s = add_side(b, "base", o->base_path, err);
    if (!s)
        s = add_side(b, "new", o->new_path, err);
    if (!s && o->options_json)
        s = etp_bundle_set_options(b, o->options_json, err);
    char *cj = s ? NULL : comparability(d), *ij = s ? NULL : issues(d);
    if (!s && (!cj || !ij))
        s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    if (!s)
        s = etp_bundle_set_json(b, "comparability", cj, err);
    if (!s)
        s = etp_bundle_set_json(b, "issues", ij, err);
    free(cj);
    free(ij);
    char *nj = NULL;
    if (!s && o->numerics && !(nj = etp_numeric_diff_json(o->numerics, NULL)))
        s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    if (!s) {
        char *t = etp_diff_json_with_numerics(d, o->gate_json, nj, &len);
        s = put(b, "diff_summary.json", t, len, "core", "etprof.diff", err);
    }
    free(nj);
    if (!s && o->numerics) {
        char *t = etp_numeric_diff_csv(o->numerics, &len);
        s = put(b, "numerics.csv", t, len, "core", NULL, err);
    }
    if (!s && o->numerics) {
        char *t = NULL;
        s = etp_numeric_diff_overlay(o->numerics, &t, &len, err);
        if (!s && t)
            s = put(b, "model_explorer/numerics_overlay.json", t, len, "projection", NULL, err);
    }
    if (!s) {
        char *t = etp_diff_csv(d, &len);
        s = put(b, "diff_rows.csv", t, len, "core", NULL, err);
    }
    if (!s) {
        char *t = etp_diff_html_with_numerics(d, o->numerics, o->top, &len);
        s = put(b, "diff.html", t, len, "export", NULL, err);
    }
    if (!s)
        s = etp_bundle_commit(b, err);
    etp_bundle_free(b);
    return s;
}
