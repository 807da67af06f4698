/* bundle.c - a result bundle's life: begun in a fresh staging directory
 * (bundle_stage.c), filled by the other bundle_*.c files, published by
 * etp_bundle_commit (bundle_manifest.c) or freed unpublished. */
#include <stdlib.h>
#include <unistd.h>

#include "outputs/bundle/bundle_internal.h"
#include "util/str.h"

etp_status etp_bundle_begin(const char *dir, etp_bundle **out, etp_error *err)
{
    return etp_bundle_begin_ex(dir, 0, out, err);
}

etp_status etp_bundle_begin_ex(const char *dir, unsigned flags, etp_bundle **out, etp_error *err)
{
    *out = NULL;
    etp_stage stage;
    int dfd;
    etp_status s = etp_stage_open(dir, flags, &stage, &dfd, err);
    if (s)
        return s;
    etp_bundle *b = calloc(1, sizeof *b);
    if (!b) {
        close(dfd);
        etp_stage_discard(&stage);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    b->stage = stage;
    b->flags = flags;
    b->fail_after = etp_stage_test_fail_after();
    b->slow_ms = etp_stage_test_slow_ms();
    b->dirfd = dfd;
    b->dir = etp_strdup(dir);
    b->bundle_type = etp_strdup("profile");
    b->issues = json_array();
    b->comparability = json_object();
    b->extensions = json_object();
    if (!b->dir || !b->bundle_type || !b->issues || !b->comparability || !b->extensions) {
        etp_bundle_free(b);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    if ((s = etp_bundle_identity_new(b, err))) {
        etp_bundle_free(b);
        return s;
    }
    *out = b;
    return ETP_OK;
}

const char *etp_bundle_dir(const etp_bundle *b) { return b->dir; }

void etp_bundle_free(etp_bundle *b)
{
    if (!b)
        return;
    if (b->dirfd >= 0)
        close(b->dirfd);
    etp_stage_discard(&b->stage); /* uncommitted: the staging directory goes */
    for (size_t i = 0; i < b->artifact_count; i++)
        etp_bundle_artifact_release(&b->artifacts[i]);
    free(b->artifacts);
    for (size_t i = 0; i < b->input_count; i++) {
        free(b->inputs[i].role);
        free(b->inputs[i].name);
    }
    free(b->inputs);
    json_decref(b->issues);
    json_decref(b->comparability);
    json_decref(b->extensions);
    json_decref(b->options);
    free(b->status);
    free(b->validity);
    free(b->bundle_type);
    free(b->dir);
    free(b);
}
