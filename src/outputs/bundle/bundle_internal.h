/*
 * bundle_internal.h - the etp_bundle structure, shared by the files that
 * write a bundle, one concern each: bundle.c (begin, free), bundle_run_id.c
 * (run id and timestamp), bundle_inputs.c (inputs, hashed on a thread),
 * bundle_artifacts.c (the artifact table), bundle_files.c (an artifact's
 * file, written from memory), bundle_streams.c (artifacts written by fill
 * functions on a pool of two threads), bundle_setters.c (the manifest's
 * other members), bundle_manifest.c (serialization and commit); the
 * staging directory is bundle_stage.c's.
 */
#ifndef ETP_BUNDLE_INTERNAL_H
#define ETP_BUNDLE_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "etprof/bundle.h"
#include "outputs/bundle/bundle_stage.h"
#include "util/jsonw.h"
#include "util/sha256.h"

typedef struct etp_bundle_artifact {
    char *path;
    char *media_type;
    char *role;
    char *schema;       /* NULL: no published content schema */
    int schema_version;
    uint64_t size;
    char sha256[ETP_SHA256_HEX];
} etp_bundle_artifact;

typedef struct etp_bundle_input {
    char *role;
    char *name;         /* base name only: no local directories leak out */
    uint64_t size;
    char sha256[ETP_SHA256_HEX];
} etp_bundle_input;

struct etp_bundle {
    char *dir;          /* the directory asked for (messages name it) */
    int dirfd;          /* the staging directory: every file operation is relative to it */
    etp_stage stage;    /* where that is, and how it replaces dir */
    unsigned flags;     /* ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS */
    int committed;
    long fail_after;    /* test hook: artifacts written before an injected failure, or -1 */
    long slow_ms;       /* test hook: a pause before each artifact */
    size_t written;     /* artifacts written so far */
    char run_id[37];
    char timestamp[40];
    char *status;       /* NULL: "complete" */
    char *validity;     /* NULL: derived from issues */
    char *bundle_type;
    json_t *issues, *comparability, *extensions;
    json_t *options;    /* NULL: no options recorded */
    char options_sha256[ETP_SHA256_HEX];
    etp_bundle_artifact *artifacts; /* kept sorted by path (strcmp) */
    size_t artifact_count, artifact_cap;
    etp_bundle_input *inputs;       /* in the order added */
    size_t input_count, input_cap;
};

/* The error of a change asked of a bundle already published. */
static inline etp_status etp_bundle_refuse_after_commit(const etp_bundle *b, etp_error *err)
{
    return etp_error_set(err, ETP_E_USAGE, b->dir, ETP_NO_OFFSET,
                         "the bundle is already published; it takes no more changes");
}

/* A fresh run id (UUID v4) and the UTC time now into @p b (bundle_run_id.c). */
etp_status etp_bundle_identity_new(etp_bundle *b, etp_error *err);

/* ---- the artifact table (bundle_artifacts.c) ---- */

/* Index of artifact @p rel in the sorted table, or where it would go (with
 * *found = 0): a binary search. */
size_t etp_bundle_artifact_find(const etp_bundle *b, const char *rel, int *found);
/* Everything about a new artifact that can be checked before touching
 * disk: not published yet, a safe and unused path that clashes with no
 * other as file vs directory, media type (*@p media_type filled from the
 * name when NULL), role and schema. *@p slot receives its table position. */
etp_status etp_bundle_artifact_check(etp_bundle *b, const char *rel, const char **media_type,
                                     const char *role, const char *schema_id, int schema_version,
                                     size_t *slot, etp_error *err);
/* Enter an artifact at @p slot (from etp_bundle_artifact_check); counts as written. */
etp_status etp_bundle_artifact_add(etp_bundle *b, size_t slot, const char *rel,
                                   const char *media_type, const char *role, const char *schema_id,
                                   int schema_version, uint64_t size, const char *sha256,
                                   etp_error *err);
/* Forget artifact @p rel again (a batch that failed): as if never written. */
void etp_bundle_artifact_drop(etp_bundle *b, const char *rel);
/* Free what @p a owns. */
void etp_bundle_artifact_release(etp_bundle_artifact *a);

/* ---- an artifact's file (bundle_files.c) ---- */

/* Open a fresh file for @p rel in the staging directory: parent
 * directories made without following symlinks, any existing entry replaced
 * (never written through). On success the caller closes *@p fd and
 * *@p parent_fd (and unlinks *@p leaf there if it gives the file up). */
etp_status etp_bundle_create_file(etp_bundle *b, const char *rel, int *parent_fd, int *fd,
                                  const char **leaf, etp_error *err);

/* Serialize the manifest of @p b into a new NUL-terminated buffer (caller
 * frees). NULL on allocation failure. */
char *etp_bundle_manifest_text(const etp_bundle *b, size_t *len);

/* The validity written when none was set: from the issues' severities. */
const char *etp_bundle_derived_validity(const json_t *issues);

#endif
