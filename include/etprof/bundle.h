/*
 * etprof/bundle.h - publish a result bundle (verifying and reading one back:
 * etprof/bundle_read.h, which this header includes).
 *
 * A result bundle is a directory of artifacts (summary.json, operators.csv,
 * ...) plus result_manifest.json, the publication marker. The manifest lists
 * every artifact with its relative path, media type, size and SHA-256.
 *
 * Publication is atomic at the directory level. etp_bundle_begin() creates a
 * fresh staging directory beside DIR (".DIR.etprof-staging-XXXXXXXXXXXX", same
 * parent, so the same file system); every artifact, then the manifest, is
 * written and fsynced there. etp_bundle_commit() fsyncs the staging directory
 * and swaps it into DIR's place: with renameat2(RENAME_EXCHANGE) on Linux
 * where the file system supports it, else by renaming DIR aside
 * (".DIR.etprof-old-XXXXXXXXXXXX") and the staging directory to DIR (the
 * first rename undone if the second fails). It then fsyncs the parent and
 * only then removes the old directory. Until that swap DIR is not touched:
 * a run that fails (or is abandoned: etp_bundle_free() without a commit)
 * leaves the previous bundle byte-identical and removes its staging
 * directory; a new DIR holds only the new bundle, so no artifact of an older
 * run survives a re-publication.
 *
 * What may be replaced: a missing DIR (its parent must exist, or pass
 * ETP_BUNDLE_PARENTS), an empty directory, or an etprof bundle (a directory
 * whose result_manifest.json is an etprof result manifest). A non-empty
 * directory that is not a bundle only with ETP_BUNDLE_FORCE; a file or a
 * symlink never (etp_bundle_probe()).
 *
 * Test hooks (environment variables read by etp_bundle_begin(); for tests of
 * the publication itself, not for users):
 *   ETPROF_TEST_FAIL_AFTER_ARTIFACTS=N  the artifact after the first N fails
 *       midway as on a full disk (half its bytes written, then ENOSPC);
 *   ETPROF_TEST_SLOW_ARTIFACTS_MS=MS    pause MS milliseconds before each
 *       artifact (widens the window a signal test aims at);
 *   ETPROF_TEST_NO_EXCHANGE=1           use the two-rename swap even where
 *       RENAME_EXCHANGE works;
 *   ETPROF_TEST_PAUSE_AT=before-swap|after-swap with ETPROF_TEST_PAUSE_MS=MS
 *       print "etprof: test pause at POINT" to stderr there and sleep MS
 *       milliseconds (the SIGKILL tests aim at those points).
 *
 * This layer knows nothing about what the artifacts mean. The analysis writes
 * them through etp_bundle_write() and supplies the manifest's envelope pieces
 * (status, validity, issues, comparability, options, extensions).
 *
 * Typical use:
 *
 *     etp_bundle *b;
 *     if (etp_bundle_begin("out", &b, &err)) return fail(&err);
 *     etp_bundle_add_input(b, "etdump", etdump_path, &err);
 *     etp_bundle_write(b, "summary.json", text, len, NULL, "core",
 *                      "etprof.summary", 1, &err);
 *     etp_bundle_set_status(b, "complete", "valid");
 *     etp_bundle_commit(b, &err);     // now the bundle is published
 *     etp_bundle_free(b);
 *
 * Manifest: schema "etprof.result-manifest", schema_version 1; its JSON
 * Schema is schemas/json/result_manifest.v1.schema.json in the source tree.
 */
#ifndef ETPROF_BUNDLE_H
#define ETPROF_BUNDLE_H

#include "etprof/bundle_read.h"
#include "etprof/error.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A bundle being written. Opaque. */
typedef struct etp_bundle etp_bundle;

/** Flags of etp_bundle_begin_ex() and etp_bundle_probe(). */
#define ETP_BUNDLE_FORCE 0x1u   /**< a non-empty directory that is not a bundle may be replaced */
#define ETP_BUNDLE_PARENTS 0x2u /**< create missing parent directories (like mkdir -p) */

/** What is at a bundle directory's path now (etp_bundle_probe()). */
typedef enum etp_bundle_target {
    ETP_BUNDLE_TARGET_MISSING = 0, /**< nothing yet */
    ETP_BUNDLE_TARGET_EMPTY,       /**< an empty directory */
    ETP_BUNDLE_TARGET_BUNDLE,      /**< a directory holding an etprof result manifest */
    ETP_BUNDLE_TARGET_OTHER        /**< a non-empty directory that is not an etprof bundle */
} etp_bundle_target;

/**
 * Tell, without changing anything, whether a bundle could be published at
 * @p dir with @p flags (what etp_bundle_begin_ex() and etp_bundle_commit()
 * check), so that a caller can refuse before a long analysis.
 *
 * @param kind  receives what is there (may be NULL); set also when the
 *              answer is no because it is ETP_BUNDLE_TARGET_OTHER
 * @return ETP_OK when publishing is allowed; ETP_E_IO naming @p dir: the
 *         parent directory does not exist (without ETP_BUNDLE_PARENTS) or is
 *         not a directory, @p dir is a file or a symlink, or a non-empty
 *         directory that is not a bundle (without ETP_BUNDLE_FORCE);
 *         ETP_E_USAGE for an empty path, "/", or a last component "." or
 *         ".." (trailing slashes are ignored: "out/" is "out").
 * Thread safety: reads the file system only.
 */
etp_status etp_bundle_probe(const char *dir, unsigned flags, etp_bundle_target *kind,
                            etp_error *err);

/**
 * Start a bundle for directory @p dir: etp_bundle_begin_ex() with no flags.
 */
etp_status etp_bundle_begin(const char *dir, etp_bundle **out, etp_error *err);

/**
 * Start a bundle for directory @p dir.
 *
 * Checks @p dir as etp_bundle_probe() does, then creates the staging
 * directory beside it (with the permissions of the directory it will
 * replace, else 0777 & ~umask). @p dir itself is not touched until
 * etp_bundle_commit(). With ETP_BUNDLE_PARENTS, missing parents are created
 * here (and stay, also if the bundle is never committed).
 *
 * Draws a random UUIDv4 run id (OpenSSL RAND_bytes) and records the UTC start
 * time (RFC 3339, second precision, e.g. "2026-03-01T12:00:00Z").
 *
 * @param dir    bundle directory path
 * @param flags  ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS, or 0
 * @param out    receives the bundle; release with etp_bundle_free()
 * @param err    filled on failure
 * @return ETP_OK; ETP_E_IO (see etp_bundle_probe(), or the staging directory
 *         cannot be created); ETP_E_USAGE; ETP_E_NOMEM; ETP_E_INTERNAL (no
 *         random bytes).
 */
etp_status etp_bundle_begin_ex(const char *dir, unsigned flags, etp_bundle **out, etp_error *err);

/**
 * Record an input file in the manifest's provenance: role, base name, size
 * and SHA-256 (the file is streamed, never read whole).
 *
 * @param role  what the file is: "etdump", "etrecord", "pte", "log",
 *              "debug_buffer" (other non-empty [a-z0-9_.-] names are
 *              accepted for future inputs)
 * @param path  the file; only its base name goes into the manifest
 * @return ETP_OK; ETP_E_IO if the file cannot be opened or read or is not a
 *         regular file; ETP_E_USAGE for a bad role or after commit.
 * Inputs appear in the manifest in the order they were added.
 */
etp_status etp_bundle_add_input(etp_bundle *b, const char *role, const char *path,
                                etp_error *err);

/** Inputs being hashed in the background (etp_bundle_add_inputs_begin). */
typedef struct etp_bundle_input_job etp_bundle_input_job;

/**
 * etp_bundle_add_input() for @p n inputs, their files hashed on a helper
 * thread while the caller goes on (e.g. writes artifacts that do not name
 * the inputs' digests). Roles and paths are checked and copied now; the
 * files are read only by the helper. Every job must be ended.
 * @return the job, or NULL with @p err set (bad role or path, out of memory).
 */
etp_bundle_input_job *etp_bundle_add_inputs_begin(etp_bundle *b, const char *const *roles,
                                                  const char *const *paths, size_t n,
                                                  etp_error *err);

/**
 * Wait for @p job and record its inputs in the given order, exactly as that
 * many etp_bundle_add_input() calls would have. Frees @p job.
 * Thread safety: call from the thread that uses the bundle.
 * @return ETP_OK, or the error of the first input that could not be hashed
 *         (nothing of the job is recorded then).
 */
etp_status etp_bundle_add_inputs_end(etp_bundle_input_job *job, etp_error *err);

/**
 * The SHA-256 (64 lowercase hex digits) etp_bundle_add_input() computed for
 * the first input added under @p role, so that other files of the bundle
 * can name the same digest without hashing the file again; *@p size (if
 * non-NULL) receives its size in bytes. NULL when no input has that role.
 * The string belongs to @p b (valid until etp_bundle_free()).
 */
const char *etp_bundle_input_sha256(const etp_bundle *b, const char *role, uint64_t *size);

/**
 * Write one artifact of @p len bytes at @p rel inside the bundle.
 *
 * @p rel is relative with forward slashes: no leading '/', no backslash, no
 * empty, "." or ".." component, no control characters, at most 1024 bytes and
 * 255 per component; it may not name the manifest or its temp file, and may
 * not be declared twice. Missing subdirectories are created. Nothing on the
 * way is followed through a symlink: an existing symlinked subdirectory is an
 * error, an existing file (or symlink) at @p rel is replaced. The file is
 * fsynced; its size and SHA-256 are recorded.
 *
 * @param media_type  e.g. "application/json"; NULL infers it from the suffix
 *                    (.json application/json, .csv text/csv, .txt text/plain,
 *                    else application/octet-stream)
 * @param role        "core", "projection", "extension", "export" or "diagnostic"
 * @param schema_id   content schema id (e.g. "etprof.summary") or NULL when the
 *                    file claims no published schema (then @p schema_version
 *                    is ignored)
 * @param schema_version  integer >= 1 when @p schema_id is given
 * @return ETP_OK; ETP_E_USAGE (bad path/role/schema, duplicate, after commit);
 *         ETP_E_IO (filesystem).
 */
etp_status etp_bundle_write(etp_bundle *b, const char *rel, const void *data, size_t len,
                            const char *media_type, const char *role, const char *schema_id,
                            int schema_version, etp_error *err);

/**
 * Like etp_bundle_write() for content too big to hold in memory: @p fill is
 * called once with a FILE open for writing at @p rel and returns 0 on
 * success (non-zero aborts: the partial file is removed and ETP_E_IO is
 * returned unless @p fill set @p err itself). The bytes are hashed as they
 * are written; the file is then flushed and fsynced.
 */
etp_status etp_bundle_write_stream(etp_bundle *b, const char *rel, const char *media_type,
                                   const char *role, const char *schema_id, int schema_version,
                                   int (*fill)(FILE *fp, void *ctx, etp_error *err), void *ctx,
                                   etp_error *err);

/** One artifact of etp_bundle_write_streams(): etp_bundle_write_stream()'s
 *  arguments. The strings and @p ctx must live until the call returns. */
typedef struct etp_bundle_stream {
    const char *rel;
    const char *media_type; /**< NULL: inferred from the suffix */
    const char *role;
    const char *schema_id;  /**< NULL: no published content schema */
    int schema_version;
    int (*fill)(FILE *fp, void *ctx, etp_error *err);
    void *ctx;
} etp_bundle_stream;

/**
 * Write @p n artifacts as etp_bundle_write_stream() would one after the
 * other, but with the fills running concurrently on up to two threads (the
 * caller's and one helper). Every path is checked and reserved first, in
 * order. Thread safety: the fills may run at the same time, so each must
 * write only its own FILE and context and only read anything shared.
 * Results do not depend on the threads: the manifest is the same as for
 * sequential writes.
 * @return ETP_OK; on failure the error of the first failing artifact in the
 *         given order, and none of the batch's artifacts is recorded (the
 *         bundle should then be abandoned).
 */
etp_status etp_bundle_write_streams(etp_bundle *b, const etp_bundle_stream *streams, size_t n,
                                    etp_error *err);

/**
 * Set the manifest's publication status ("complete", "incomplete", "failed")
 * and measurement validity ("valid", "degraded", "invalid"). Copies both.
 * Defaults: status "complete"; validity derived from the issues (any issue
 * with severity "error" -> "invalid", any issue -> "degraded", else "valid").
 * A value outside those sets makes etp_bundle_commit() fail with ETP_E_USAGE.
 */
void etp_bundle_set_status(etp_bundle *b, const char *status, const char *validity);

/**
 * Set a manifest member from serialized JSON (parsed with jansson, duplicate
 * keys rejected, re-emitted with sorted keys).
 *
 * @param member  "issues" (array of {code, severity, message[, context]}),
 *                "comparability" (object) or "extensions" (object)
 * @param json    the value's JSON text; replaces any earlier value
 * @return ETP_OK; ETP_E_USAGE for an unknown member, text that is not JSON,
 *         the wrong JSON type, a malformed issue, or nesting deeper than 64.
 * Defaults: issues [], comparability {}, extensions {}.
 */
etp_status etp_bundle_set_json(etp_bundle *b, const char *member, const char *json,
                               etp_error *err);

/**
 * Record the analysis options (a JSON object) in provenance: the object
 * itself as "options" and the SHA-256 of its canonical form (keys sorted,
 * compact separators, jansson JSON_SORT_KEYS|JSON_COMPACT) as
 * "options_sha256". Without this call both are absent from the manifest.
 * @return ETP_OK or ETP_E_USAGE (not JSON, not an object, too deep).
 */
etp_status etp_bundle_set_options(etp_bundle *b, const char *options_json, etp_error *err);

/**
 * Set the bundle type (default "profile"): a non-empty [a-z0-9_.-] name that
 * tells a consumer which artifacts to expect. @return ETP_OK or ETP_E_USAGE.
 */
etp_status etp_bundle_set_type(etp_bundle *b, const char *bundle_type, etp_error *err);

/**
 * Replace the random run id and the start time, for reproducible output
 * (golden tests). Call before writing artifacts that embed them.
 * @param run_id     lowercase 8-4-4-4-12 hex UUID, or NULL to keep
 * @param timestamp  "YYYY-MM-DDTHH:MM:SS[.frac]Z", or NULL to keep
 * @return ETP_OK or ETP_E_USAGE for a malformed value.
 */
etp_status etp_bundle_set_identity(etp_bundle *b, const char *run_id, const char *timestamp,
                                   etp_error *err);

/** The run id (UUIDv4 text, owned by the bundle). */
const char *etp_bundle_run_id(const etp_bundle *b);
/** The UTC start time in RFC 3339 (owned by the bundle). */
const char *etp_bundle_timestamp(const etp_bundle *b);
/** The bundle directory as given to etp_bundle_begin() (owned by the bundle);
 * the artifacts are in a staging directory beside it until the commit. */
const char *etp_bundle_dir(const etp_bundle *b);

/**
 * Publish: serialize the manifest (artifacts sorted by path, written with the
 * project's deterministic JSON writer), write it last into the staging
 * directory (temp file, fsync, rename), fsync that directory, check @p dir
 * again (it may have changed meanwhile) and swap the staging directory into
 * its place as described at the top of this file; the old directory is
 * removed after the parent's fsync. SIGHUP, SIGINT, SIGQUIT and SIGTERM are
 * blocked on the calling thread during the renames, so that
 * etp_bundle_abandon_from_signal() never runs in the middle of them.
 * After success the bundle is complete and accepts no more writes.
 * @return ETP_OK; ETP_E_USAGE (bad status/validity, already committed);
 *         ETP_E_IO. On a failure before the swap @p dir is unchanged (the
 *         staging directory goes with etp_bundle_free()); on a failure
 *         after it (the parent's fsync, removing the old directory) the new
 *         bundle is in place and the message says so.
 */
etp_status etp_bundle_commit(etp_bundle *b, etp_error *err);

/**
 * Release the bundle. If it was not committed, its staging directory is
 * removed and @p dir stays as it was. Safe on NULL.
 */
void etp_bundle_free(etp_bundle *b);

/**
 * Undo every publication in progress in this process, from a signal
 * handler: remove each staging directory (their targets stay as they were),
 * or, for a bundle already swapped into place, finish removing the old
 * directory. Uses only async-signal-safe calls (openat, unlinkat,
 * getdents64, nanosleep; nothing is renamed or allocated), on names recorded
 * in fixed buffers before the directory they name is created. The etp_bundle objects of those
 * publications must not be used afterwards: call this only when the process
 * is about to end (etprof's CLI does it on SIGINT/SIGTERM, then re-raises).
 * At most 8 publications at once are covered.
 */
void etp_bundle_abandon_from_signal(void);

#ifdef __cplusplus
}
#endif
#endif
