/*
 * bundle_internal.h - the etp_bundle structure, shared by the files that
 * write a bundle (bundle.c: begin/artifacts/inputs, bundle_manifest.c:
 * serialization and commit; the staging directory is bundle_stage.c's).
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

/* Serialize the manifest of @p b into a new NUL-terminated buffer (caller
 * frees). NULL on allocation failure. */
char *etp_bundle_manifest_text(const etp_bundle *b, size_t *len);

/* The validity written when none was set: from the issues' severities. */
const char *etp_bundle_derived_validity(const json_t *issues);

#endif
