/*
 * bundle_rules.h - rules shared by the bundle writer and the verifier: safe
 * relative paths, symlink-proof directory walking, and the shapes of names,
 * run ids, timestamps and issues.
 *
 * Every path inside a bundle is resolved from an open directory descriptor,
 * one component at a time, with O_NOFOLLOW: a symlink anywhere under the
 * bundle root is never followed, so a bundle can neither write nor vouch for
 * a file outside itself.
 */
#ifndef ETP_BUNDLE_RULES_H
#define ETP_BUNDLE_RULES_H

#include <stddef.h>

#include <jansson.h>

#define ETP_BUNDLE_PATH_MAX 1024
#define ETP_BUNDLE_NAME_MAX 255

/* NULL when @p rel (of @p len bytes) is an acceptable artifact path, else a
 * short reason such as "absolute path". The rules: non-empty, at most 1024
 * bytes, no leading '/', no backslash, no NUL or control byte, no empty, "."
 * or ".." component, components at most 255 bytes. */
const char *etp_bundle_path_problem(const char *rel, size_t len);

/* What stopped a walk. */
typedef enum etp_walk_result {
    ETP_WALK_OK = 0,
    ETP_WALK_MISSING,  /* a directory component does not exist (and create == 0) */
    ETP_WALK_SYMLINK,  /* a directory component is a symlink */
    ETP_WALK_NOTDIR,   /* a directory component is something else */
    ETP_WALK_ERRNO     /* a system call failed; errno says why */
} etp_walk_result;

/*
 * Open the directory that holds the last component of @p rel (a path that
 * passed etp_bundle_path_problem), starting at @p rootfd, never following a
 * symlink. With @p create, missing directories are made (mode 0777 & umask).
 * On ETP_WALK_OK, *parent_fd is a new descriptor (caller closes) and *leaf
 * points at the last component inside @p rel. On failure, @p bad receives the
 * offending prefix of @p rel (e.g. "model_explorer") and errno is kept.
 */
etp_walk_result etp_bundle_walk_parent(int rootfd, const char *rel, int create, int *parent_fd,
                                       const char **leaf, char *bad, size_t bad_size);

/* 1 if @p s is a lowercase name: [a-z0-9_.-], 1..64 bytes (roles, schema
 * ids, bundle types). */
int etp_bundle_is_token(const char *s);

/* 1 if @p s is a lowercase 8-4-4-4-12 hex UUID. */
int etp_bundle_is_uuid(const char *s);

/* 1 if @p s is a UTC RFC 3339 time "YYYY-MM-DDTHH:MM:SS[.frac]Z". */
int etp_bundle_is_utc_timestamp(const char *s);

/* 1 if @p s is 64 lowercase hex digits. */
int etp_bundle_is_sha256(const char *s);

/* NULL if @p issue is {code, severity, message[, context]} with non-empty
 * string code and severity, string message, object context (other members
 * allowed); else what is wrong, e.g. "needs a string \"message\"". */
const char *etp_bundle_issue_problem(const json_t *issue);

/* write() all of @p len bytes, retrying on EINTR and short writes. 0 or -1. */
int etp_write_all(int fd, const void *data, size_t len);

#endif
