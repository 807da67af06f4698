/*
 * bundle_read_internal.h - the document etp_bundle_open() fills, and the
 * helpers its readers share (bundle_read_io.c): memory owned by the
 * document, errors naming the artifact, typed JSON members, and reading an
 * artifact without following a symlink.
 */
#ifndef ETP_BUNDLE_READ_INTERNAL_H
#define ETP_BUNDLE_READ_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "etprof/bundle_read.h"

struct etp_bundle_doc {
    char *dir;
    etp_bundle_manifest manifest;
    etp_bundle_metric *metrics;
    uint32_t metric_count;
    etp_bundle_table operators;
    etp_bundle_run_metadata meta;
    etp_bundle_summary_info summary;
    etp_bundle_table figures;    /* detailed/figures.csv */
    /* The parsed documents stay alive: the strings above point into them. */
    json_t *manifest_json, *summary_json, *meta_json, *operators_json;
    /* Everything else the document allocated, freed by etp_bundle_close(). */
    void **owned;
    size_t owned_count, owned_cap;
};

/* One open: the document being filled, where it lives, and whether its
 * artifacts must still match the verified manifest when read. */
typedef struct etp_bundle_reader {
    etp_bundle_doc *doc;
    int dirfd;
    int verify;
    etp_error *err;
} etp_bundle_reader;

/* Keep @p p until the document closes; NULL (and @p p freed) when the list
 * cannot grow, or when @p p is NULL. */
void *etp_bread_own(etp_bundle_reader *r, void *p);
/* calloc (at least one element) / a NUL-terminated copy, owned as above. */
void *etp_bread_calloc(etp_bundle_reader *r, size_t n, size_t size);
const char *etp_bread_strndup(etp_bundle_reader *r, const char *s, size_t n);

/* ETP_E_NOMEM naming the bundle. */
etp_status etp_bread_nomem(etp_bundle_reader *r);
/* ETP_E_FORMAT naming DIR/@p rel. */
etp_status etp_bread_bad(etp_bundle_reader *r, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* *out = string member @p key of @p obj (NULL when absent or null); another
 * type is an error of @p rel, @p ctx prefixing the message. */
etp_status etp_bread_str(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *obj,
                         const char *key, const char **out);
/* A non-negative integer member; *present 0 when absent (may be NULL). */
etp_status etp_bread_uint(etp_bundle_reader *r, const char *rel, const char *ctx, const json_t *obj,
                          const char *key, uint64_t *out, int *present);
/* Member @p key as compact JSON with sorted keys (NULL when absent or null). */
etp_status etp_bread_json_text(etp_bundle_reader *r, const json_t *obj, const char *key,
                               const char **out);
/* Parse @p text as one JSON object (duplicate keys rejected) into *out
 * (the caller keeps it, also on failure). */
etp_status etp_bread_parse_json(etp_bundle_reader *r, const char *rel, const char *text, size_t len,
                                json_t **out);
/* Read artifact @p a whole into a new NUL-terminated buffer (caller frees):
 * never through a symlink, and when verifying, still the verified bytes. */
etp_status etp_bread_artifact(etp_bundle_reader *r, const etp_bundle_artifact_info *a, char **data,
                              size_t *len);
/* Artifact @p a read (etp_bread_artifact) and parsed as one JSON object
 * (etp_bread_parse_json) into *out, which the caller keeps, also on failure. */
etp_status etp_bread_artifact_json(etp_bundle_reader *r, const etp_bundle_artifact_info *a,
                                   json_t **out);

/* A CSV artifact as a table of typed cells into *@p t (bundle_read_table.c):
 * operators.csv, detailed/figures.csv. */
etp_status etp_bread_csv_table(etp_bundle_reader *r, const etp_bundle_artifact_info *a,
                               etp_bundle_table *t);
/* The operators table from operators.json (bundle_read_table.c). */
etp_status etp_bread_operators_json(etp_bundle_reader *r, const etp_bundle_artifact_info *a);

/* summary.json's method, units and device figures into doc->summary, from
 * the parsed doc->summary_json (bundle_read_summary.c). */
etp_status etp_bread_summary_info(etp_bundle_reader *r, const char *rel);
/* run_metadata.json's "labels" object of @p root into doc->meta
 * (bundle_read_labels.c). */
etp_status etp_bread_labels(etp_bundle_reader *r, const char *rel, const json_t *root);

#endif
