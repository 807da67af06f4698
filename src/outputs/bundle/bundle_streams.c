/* bundle_streams.c - artifacts written by fill functions (etp_bundle_stream)
 * straight into their files, hashed as they go (hashed_file.h): a batch
 * is reserved in the table in order, then written by the calling thread
 * and one helper taking jobs from either end of the list. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outputs/bundle/bundle_internal.h"
#include "util/hashed_file.h"
#include "util/thread.h"

/* One job of etp_bundle_write_streams while it runs. */
typedef struct stream_job {
    const etp_bundle_stream *spec;
    etp_bundle *b;
    int inject;       /* test hook: this artifact fails as a full disk would */
    etp_status status;
    etp_error err;
    uint64_t size;
    char sha[ETP_SHA256_HEX];
} stream_job;

/* Create, fill and hash one artifact, its writeback started (made durable
 * at commit); the file is removed again when
 * anything fails. Touches only its own job and file: runs on any thread. */
static void run_stream_job(stream_job *j)
{
    etp_bundle *b = j->b;
    const char *rel = j->spec->rel;
    etp_error *err = &j->err;
    int parent_fd, fd;
    const char *leaf;
    if ((j->status = etp_bundle_create_file(b, rel, &parent_fd, &fd, &leaf, err)))
        return;
    etp_hashed_file *hf = NULL;
    FILE *fp = etp_hashed_file_open(fd, &hf);
    if (!fp) {
        close(fd);
        unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        j->status = etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET,
                                  "artifact '%s': out of memory", rel);
        return;
    }
    if (b->slow_ms > 0)
        etp_stage_test_sleep(b->slow_ms);
    etp_error_clear(err);
    int filled = j->spec->fill(fp, j->spec->ctx, err);
    const char *what = NULL;
    int e = 0;
    if (etp_hashed_file_finish(hf, ETP_HF_WRITEBACK, &j->size, j->sha, &what) != 0)
        e = errno;
    /* A writer that failed because its file did (a full disk) is reported
     * by the file's own error, which says why. */
    if (filled != 0 && !what)
        what = "the writer failed", e = 0;
    else if (j->inject && !what)
        what = "write", e = ENOSPC;
    if (close(fd) != 0 && !what)
        e = errno, what = "close";
    if (what) {
        (void)unlinkat(parent_fd, leaf, 0);
        close(parent_fd);
        if (filled != 0 && err->code != ETP_OK)
            j->status = err->code;
        else
            j->status = etp_error_set(err, ETP_E_IO, b->dir, ETP_NO_OFFSET, "artifact '%s': %s%s%s",
                                      rel, what, e ? ": " : "", e ? strerror(e) : "");
        return;
    }
    close(parent_fd);
    j->status = ETP_OK;
}

typedef struct stream_batch {
    stream_job *jobs;
    etp_claims claims;
} stream_batch;

/* Worker: take jobs from one end of the list until none are left or one
 * before them failed (then the rest cannot matter). */
static void run_claimed(stream_batch *sb, int back)
{
    uint32_t from, to;
    while (etp_claim(&sb->claims, back, 1, &from, &to)) {
        run_stream_job(&sb->jobs[from]);
        if (sb->jobs[from].status && !back)
            etp_claims_stop(&sb->claims);
    }
}

static void *stream_worker(void *arg)
{
    run_claimed(arg, 1);
    return NULL;
}

etp_status etp_bundle_write_streams(etp_bundle *b, const etp_bundle_stream *streams, size_t n,
                                    etp_error *err)
{
    if (!n)
        return ETP_OK;
    if (!streams || n > UINT32_MAX)
        return etp_error_set(err, ETP_E_USAGE, b ? b->dir : NULL, ETP_NO_OFFSET,
                             "no streams to write");
    stream_job *jobs = calloc(n, sizeof *jobs);
    if (!jobs)
        return etp_error_set(err, ETP_E_NOMEM, b->dir, ETP_NO_OFFSET, "out of memory");
    /* Reserve every path first, in order, as separate writes would: the
     * checks, the duplicate and file/directory clashes among the batch
     * itself, and the failure hook's count all stay as they were. */
    etp_status s = ETP_OK;
    size_t reserved = 0;
    for (; reserved < n; reserved++) {
        const etp_bundle_stream *st = &streams[reserved];
        const char *mt = st->media_type;
        size_t slot;
        if ((s = etp_bundle_artifact_check(b, st->rel, &mt, st->role, st->schema_id, st->schema_version,
                                &slot, err)))
            break;
        if (!st->fill) {
            s = etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                              "artifact '%s': no fill function", st->rel);
            break;
        }
        jobs[reserved].spec = st;
        jobs[reserved].b = b;
        jobs[reserved].inject = b->fail_after >= 0 && b->written >= (size_t)b->fail_after;
        if ((s = etp_bundle_artifact_add(b, slot, st->rel, mt, st->role, st->schema_id, st->schema_version,
                              0, "", err)))
            break;
    }
    if (!s) {
        stream_batch sb;
        memset(&sb, 0, sizeof sb);
        sb.jobs = jobs;
        pthread_t helper;
        int threaded = 0;
        if (etp_claims_init(&sb.claims, 0, (uint32_t)n) == 0) {
            threaded = n > 1 && etp_thread_start(&helper, stream_worker, &sb) == 0;
            run_claimed(&sb, 0);
            if (threaded)
                pthread_join(helper, NULL);
            etp_claims_fini(&sb.claims);
        } else {
            for (size_t i = 0; i < n && !jobs[i].status; i++)
                run_stream_job(&jobs[i]);
        }
        /* The first failure in the given order is the one reported. */
        for (size_t i = 0; i < n && !s; i++) {
            if (!jobs[i].spec)
                continue;
            if (jobs[i].status) {
                s = jobs[i].status;
                *err = jobs[i].err;
            }
        }
        for (size_t i = 0; i < n && !s; i++) {
            int found;
            size_t at = etp_bundle_artifact_find(b, streams[i].rel, &found);
            b->artifacts[at].size = jobs[i].size;
            memcpy(b->artifacts[at].sha256, jobs[i].sha, ETP_SHA256_HEX);
        }
    }
    if (s) {
        /* Nothing of a failed batch is recorded; files written by its other
         * jobs go with the staging directory. */
        for (size_t i = 0; i < reserved; i++)
            etp_bundle_artifact_drop(b, streams[i].rel);
    }
    free(jobs);
    return s;
}

etp_status etp_bundle_write_stream(etp_bundle *b, const char *rel, const char *media_type,
                                   const char *role, const char *schema_id, int schema_version,
                                   int (*fill)(FILE *fp, void *ctx, etp_error *err), void *ctx,
                                   etp_error *err)
{
    etp_bundle_stream one = {rel, media_type, role, schema_id, schema_version, fill, ctx};
    return etp_bundle_write_streams(b, &one, 1, err);
}
