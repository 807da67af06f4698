/* cli_labels.c - KEY=VALUE options, CI labels and --since (cli_labels.h). */
#include "cli/cli_labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/utc_time.h"

/* Record KEY=VALUE (@p value outlives the process's use of @p l),
 * replacing an earlier value of KEY. */
static int put(const char *cmd, const char *opt, cli_labels *l, const char *key, size_t key_len,
               const char *value)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strlen(l->keys[i]) == key_len && !strncmp(l->keys[i], key, key_len)) {
            l->values[i] = value;
            return 0;
        }
    if (l->n == CLI_MAX_LABELS)
        return cli_usage(cmd, "%s: at most %d of them", opt, CLI_MAX_LABELS);
    if (key_len > ETP_LABEL_KEY_MAX)
        return cli_usage(cmd, "%s: label key longer than %d bytes", opt, ETP_LABEL_KEY_MAX);
    memcpy(l->key_text[l->n], key, key_len);
    l->key_text[l->n][key_len] = '\0';
    l->keys[l->n] = l->key_text[l->n];
    l->values[l->n++] = value;
    return 0;
}

int cli_labels_add(const char *cmd, const char *opt, cli_labels *l, const char *kv, int label_key)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return cli_usage(cmd, "%s takes KEY=VALUE, got '%.80s'", opt, kv);
    char key[ETP_LABEL_KEY_MAX + 2];
    size_t kl = (size_t)(eq - kv);
    snprintf(key, sizeof key, "%.*s", (int)(kl < sizeof key - 1 ? kl : sizeof key - 1), kv);
    const char *why = kl > ETP_LABEL_KEY_MAX ? "label key longer than 64 bytes" : NULL;
    if (!why && label_key)
        why = etp_label_key_problem(key);
    if (!why && label_key)
        why = etp_label_value_problem(eq + 1);
    if (why)
        return cli_usage(cmd, "%s %.64s: %s", opt, key, why);
    return put(cmd, opt, l, kv, kl, eq + 1);
}

/* One CI variable mapped to a label key. */
typedef struct ci_var {
    const char *key, *env;
} ci_var;

static int has_key(const cli_labels *l, const char *key)
{
    for (uint32_t k = 0; k < l->n; k++)
        if (!strcmp(l->keys[k], key))
            return 1;
    return 0;
}

/* Add what @p vars find (the first variable of a key that is set and not
 * empty wins) and ci=@p ci, unless a --label gave the key (called once the
 * --label options are all read). */
static int add_vars(const char *cmd, cli_labels *l, const char *ci, const ci_var *vars, size_t n)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *v = getenv(vars[i].env);
        if (v && *v && !has_key(l, vars[i].key) && !etp_label_value_problem(v))
            rc = put(cmd, "--labels-from-ci", l, vars[i].key, strlen(vars[i].key), v);
    }
    if (!rc && !has_key(l, "ci"))
        rc = put(cmd, "--labels-from-ci", l, "ci", 2, ci);
    return rc;
}

/* Whether $@p name is set, not empty and (when @p value) equal to @p value. */
static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && *v && (!value || !strcmp(v, value));
}

int cli_labels_add_ci(const char *cmd, cli_labels *l)
{
    /* GitHub Actions: a pull request's branch is GITHUB_HEAD_REF
     * (GITHUB_REF_NAME is then "N/merge"). */
    static const ci_var github[] = {
        {"commit", "GITHUB_SHA"},       {"branch", "GITHUB_HEAD_REF"}, {"branch", "GITHUB_REF_NAME"},
        {"build", "GITHUB_RUN_ID"},     {"job", "GITHUB_JOB"},         {"workflow", "GITHUB_WORKFLOW"},
        {"repo", "GITHUB_REPOSITORY"},  {"run_attempt", "GITHUB_RUN_ATTEMPT"},
    };
    static const ci_var gitlab[] = {
        {"commit", "CI_COMMIT_SHA"}, {"branch", "CI_COMMIT_REF_NAME"}, {"build", "CI_PIPELINE_ID"},
        {"job", "CI_JOB_NAME"},      {"job_id", "CI_JOB_ID"},          {"repo", "CI_PROJECT_PATH"},
    };
    /* Jenkins: BRANCH_NAME in multibranch pipelines, GIT_BRANCH from the Git plugin. */
    static const ci_var jenkins[] = {
        {"commit", "GIT_COMMIT"}, {"branch", "BRANCH_NAME"}, {"branch", "GIT_BRANCH"},
        {"build", "BUILD_NUMBER"}, {"job", "JOB_NAME"},      {"repo", "GIT_URL"},
    };
    if (env_is("GITHUB_ACTIONS", "true"))
        return add_vars(cmd, l, "github", github, sizeof github / sizeof github[0]);
    if (env_is("GITLAB_CI", "true"))
        return add_vars(cmd, l, "gitlab", gitlab, sizeof gitlab / sizeof gitlab[0]);
    if (env_is("JENKINS_URL", NULL) || (env_is("BUILD_NUMBER", NULL) && env_is("JOB_NAME", NULL)))
        return add_vars(cmd, l, "jenkins", jenkins, sizeof jenkins / sizeof jenkins[0]);
    return cli_usage(cmd, "--labels-from-ci: no CI environment found (GITHUB_ACTIONS=true, "
                          "GITLAB_CI=true or JENKINS_URL)");
}

int cli_parse_since(const char *cmd, const char *text, int64_t *ms)
{
    if (!etp_utc_parse_ms(text, ms))
        return 0;
    char *end;
    double n = strtod(text, &end);
    static const struct {
        char unit;
        int64_t ms;
    } units[] = {{'s', 1000}, {'m', 60000}, {'h', 3600000}, {'d', 86400000}, {'w', 604800000}};
    for (size_t i = 0; end != text && n >= 0 && i < sizeof units / sizeof units[0]; i++)
        if (end[0] == units[i].unit && !end[1] && n * (double)units[i].ms < 1e15) {
            *ms = etp_utc_now_ms() - (int64_t)(n * (double)units[i].ms);
            return 0;
        }
    return cli_usage(cmd, "--since takes an RFC 3339 date or time (2026-03-01, "
                          "2026-03-01T12:00:00Z) or a duration (7d, 12h, 30m, 2w), got '%.80s'",
                     text);
}
