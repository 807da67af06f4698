/* cli_labels.h - KEY=VALUE options (`--label`, `--where`) and the labels a CI
 * system's environment gives (`--labels-from-ci`), shared by analyze, run
 * and the `etprof db` verbs. */
#ifndef ETP_CLI_LABELS_H
#define ETP_CLI_LABELS_H

#include <stdint.h>

#include "etprof/bundle_read.h"

/* Most KEY=VALUE options one command takes. */
#define CLI_MAX_LABELS 64

/* Keys are copied here; values point into argv or the environment (both
 * live as long as the process): nothing to free. */
typedef struct cli_labels {
    uint32_t n;
    const char *keys[CLI_MAX_LABELS];
    const char *values[CLI_MAX_LABELS];
    char key_text[CLI_MAX_LABELS][ETP_LABEL_KEY_MAX + 1];
    int from_ci;                  /* --labels-from-ci given */
} cli_labels;

/* Add @p kv ("KEY=VALUE"; the value may be empty and hold '='): a key given
 * again replaces its value. With @p label_key, the key must be a valid label
 * key (etp_label_key_problem) and the value within the size cap; else any
 * non-empty key (filters also name run fields). 0, or ETP_EXIT_USAGE after one
 * line naming @p opt. */
int cli_labels_add(const char *cmd, const char *opt, cli_labels *l, const char *kv, int label_key);

/* The labels of the CI system this process runs under (GitHub Actions,
 * GitLab CI, Jenkins) under the conventional keys (ci, commit, branch,
 * build, job, ...), each added only when no --label gave that key. 0, or
 * ETP_EXIT_USAGE when no CI system is found. */
int cli_labels_add_ci(const char *cmd, cli_labels *l);

/* --since T: an RFC 3339 date or time, or a duration back from now ("7d",
 * "12h", "30m", "90s", "2w"). 0 with *ms set, or ETP_EXIT_USAGE after one line. */
int cli_parse_since(const char *cmd, const char *text, int64_t *ms);

#endif
