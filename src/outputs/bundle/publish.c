/* publish.c - write an analysis as a result bundle (see publish.h): records
 * the inputs, has each writer produce its file, then the manifest's members,
 * and commits. The writers live in publish_operators.c, publish_metadata.c,
 * publish_detailed.c and publish_me.c; summary.json is the analysis document
 * of outputs/report/report_doc.c (etp_summary_json()), the one `analyze
 * --json` prints, without its analysis-only members. */
#include "outputs/bundle/publish.h"

#include <stdlib.h>
#include <string.h>

#include "etprof/blob.h"
#include "etprof/bundle.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/report/nx_output.h"

static etp_status nomem(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory writing the bundle");
}

static etp_status write_text(etp_bundle *b, const char *rel, char *text, size_t len, const char *media,
                             const char *role, const char *schema, etp_error *err)
{
    if (!text)
        return nomem(err);
    etp_status s = etp_bundle_write(b, rel, text, len ? len : strlen(text), media, role, schema,
                                    schema ? 1 : 0, err);
    free(text);
    return s;
}

/* The operators table (CSV or JSON) as a stream of the bundle. */
typedef struct operators_job {
    const etp_analysis *a;
    int csv;
} operators_job;

static int fill_operators(FILE *fp, void *ctx, etp_error *err)
{
    const operators_job *j = ctx;
    if (j->csv) { /* streamed: the table never sits whole in memory */
        etp_csvw w;
        etp_csvw_init_file(&w, fp);
        etp_operators_csv_write(j->a, &w);
        int rc = etp_csvw_finish(&w);
        if (rc && !ferror(fp))
            nomem(err); /* not the file: its growth (a file error speaks for itself) */
        return rc;
    }
    size_t len = 0;
    char *t = etp_operators_json(j->a, &len);
    if (!t) {
        nomem(err);
        return -1;
    }
    size_t put = fwrite(t, 1, len, fp);
    free(t);
    return put == len ? 0 : -1;
}

/* The runner's captured output, carried in the bundle as logs/runner.log
 * (and etprof run's measurements as logs/run.log). */
static etp_status embed_log(etp_bundle *b, const char *path, const char *as, etp_error *err)
{
    etp_blob *blob;
    etp_status s = etp_blob_open(path, (size_t)256 << 20, &blob, err);
    if (s)
        return s;
    s = etp_bundle_write(b, as, blob->data, blob->size, "text/plain", "diagnostic", NULL,
                         0, err);
    etp_blob_free(blob);
    return s;
}

etp_status etp_publish(const etp_analysis *a, const etp_publish_options *po, char **summary_out,
                       etp_error *err)
{
    etp_bundle *b = NULL;
    etp_status s = etp_publish_labels_check(po, err);
    if (!s)
        s = etp_bundle_begin_ex(po->dir, po->bundle_flags, &b, err);
    if (s)
        return s;
    etp_publish_inputs in;
    memset(&in, 0, sizeof in);
    if (po->run_id || po->timestamp)
        s = etp_bundle_set_identity(b, po->run_id, po->timestamp, err);
    /* The inputs are hashed meanwhile: summary.json, the operators table
     * and model_explorer/ do not name their digests; everything after them
     * does. */
    const char *roles[5], *paths[5];
    etp_publish_input *slots[5];
    size_t ni = 0;
    roles[ni] = "etdump", paths[ni] = po->etdump_path, slots[ni++] = &in.etdump;
    if (po->pte_path)
        roles[ni] = "pte", paths[ni] = po->pte_path, slots[ni++] = &in.pte;
    if (po->etrecord_path)
        roles[ni] = "etrecord", paths[ni] = po->etrecord_path, slots[ni++] = &in.etrecord;
    if (po->log_path)
        roles[ni] = "log", paths[ni] = po->log_path, slots[ni++] = &in.log;
    if (po->debug_buffer_path)
        roles[ni] = "debug_buffer", paths[ni] = po->debug_buffer_path, slots[ni++] = &in.debug_buffer;
    etp_bundle_input_job *hashing = NULL;
    if (!s && !(hashing = etp_bundle_add_inputs_begin(b, roles, paths, ni, err)))
        s = err->code ? err->code : ETP_E_NOMEM;
    char *summary = NULL;
    if (!s) {
        summary = etp_summary_json(a);
        if (!summary)
            s = nomem(err);
        else
            s = etp_bundle_write(b, "summary.json", summary, strlen(summary), "application/json",
                                 "core", ETP_SUMMARY_SCHEMA, 1, err);
    }
    /* Everything the model_explorer/ files draw is built while the inputs
     * are hashed; then the operators table and those files are written
     * together. */
    etp_publish_me *me = NULL;
    if (!s && po->model_explorer)
        s = etp_publish_me_prepare(a, po, &me, err);
    if (!s) {
        etp_bundle_stream mj[ETP_PUBLISH_ME_STREAMS], jobs[1 + ETP_PUBLISH_ME_STREAMS];
        size_t nm = me ? etp_publish_me_streams(me, mj) : 0, nj = 0;
        operators_job ops = {a, po->operators_csv};
        /* graph.json first and index.html last, the two largest: each of
         * the two threads starts on one of them. */
        if (nm)
            jobs[nj++] = mj[0];
        jobs[nj++] = po->operators_csv ? (etp_bundle_stream){"operators.csv", "text/csv", "core",
                                                             NULL, 0, fill_operators, &ops}
                                       : (etp_bundle_stream){"operators.json", "application/json",
                                                             "core", ETP_OPERATORS_SCHEMA, 1,
                                                             fill_operators, &ops};
        for (size_t k = 1; k < nm; k++)
            jobs[nj++] = mj[k];
        s = etp_bundle_write_streams(b, jobs, nj, err);
    }
    if (hashing) {
        etp_error herr;
        etp_error_clear(&herr);
        etp_status hs = etp_bundle_add_inputs_end(hashing, &herr);
        if (!s && hs) {
            s = hs;
            *err = herr;
        }
        for (size_t i = 0; !s && i < ni; i++) {
            slots[i]->path = slots[i] == &in.log && po->log_name ? po->log_name : paths[i];
            slots[i]->sha256 = etp_bundle_input_sha256(b, roles[i], &slots[i]->size);
        }
    }
    /* The buffer recorded must be the one the tensors were checked against. */
    if (!s && in.debug_buffer.path && (!a->debug_buffer.checked || in.debug_buffer.size != a->debug_buffer.size))
        s = etp_error_set(err, ETP_E_MISMATCH, in.debug_buffer.path, ETP_NO_OFFSET,
                          a->debug_buffer.checked ? "the debug buffer is %llu bytes now; the analysis checked %llu"
                                                  : "a debug buffer to record (%llu bytes) that the analysis did "
                                                    "not check (%llu)",
                          (unsigned long long)in.debug_buffer.size, (unsigned long long)a->debug_buffer.size);
    /* Device logs after the others (role "device_log"), then etprof run's capture. */
    for (uint32_t i = 0; !s && i < po->device_log_count; i++)
        s = etp_bundle_add_input(b, "device_log", po->device_log_paths[i], err);
    if (!s && po->embed_log_path)
        s = embed_log(b, po->embed_log_path, "logs/runner.log", err);
    if (!s && po->embed_measurements_path)
        s = embed_log(b, po->embed_measurements_path, "logs/run.log", err);
    if (!s && po->detailed)
        s = etp_publish_memory(b, a, err);
    if (!s)
        s = write_text(b, "run_metadata.json",
                       etp_run_metadata_json(a, po, &in, etp_bundle_run_id(b), etp_bundle_timestamp(b)),
                       0, "application/json", "core", ETP_RUN_METADATA_SCHEMA, err);
    /* MLIA's standardized result, beside the bundle's own (mlia_output.c). */
    if (!s)
        s = write_text(b, ETP_MLIA_OUTPUT_PATH,
                       etp_mlia_output_json(a, po, &in, etp_bundle_run_id(b), etp_bundle_timestamp(b)), 0,
                       "application/json", "core", NULL, err);
    if (!s && po->detailed)
        s = etp_publish_detailed(b, a, err);
    if (!s && a->nx) {
        size_t len = 0;
        char *t = etp_nx_hierarchy_json(a->nx, &len);
        s = write_text(b, "detailed/nx_hierarchy.json", t, len, "application/json", "extension",
                       ETP_NX_HIERARCHY_SCHEMA, err);
    }
    if (!s && me)
        s = etp_publish_me_finish(b, me, &in, err);
    etp_publish_me_free(me);
    if (!s) {
        etp_bundle_set_status(b, "complete", etp_validity_name(a->validity));
        char *iss = etp_manifest_issues_json(a), *cmp = etp_comparability_json(a, &in);
        if (!iss || !cmp)
            s = nomem(err);
        if (!s)
            s = etp_bundle_set_json(b, "issues", iss, err);
        if (!s)
            s = etp_bundle_set_json(b, "comparability", cmp, err);
        free(iss);
        free(cmp);
    }
    if (!s && po->options_json)
        s = etp_bundle_set_options(b, po->options_json, err);
    if (!s)
        s = etp_bundle_commit(b, err);
    etp_bundle_free(b);
    if (s || !summary_out)
        free(summary);
    else
        *summary_out = summary;
    return s;
}
