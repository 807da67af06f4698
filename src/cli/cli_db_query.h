/* cli_db_query.h - which series a history verb reads (`db trend`, `db
 * regressions`): the options both take, parsed once, and the series they
 * select gathered from the store, one query per metric, with the verdict of
 * the regression rule on each. */
#ifndef ETP_CLI_DB_QUERY_H
#define ETP_CLI_DB_QUERY_H

#include <getopt.h>
#include <stdint.h>

#include "cli/cli_labels.h"
#include "etprof/history.h"
#include "etprof/store.h"

/* What trend and regressions follow without --metric. */
#define CLI_DB_DEFAULT_METRIC "method_execute.avg"

/* Most --metric and --group-by options one command takes. */
#define CLI_DB_MAX_METRICS 32
#define CLI_DB_MAX_GROUP_BY 16

typedef struct cli_db_query {
    const char *db;                              /* --db (NULL: $ETPROF_DB) */
    const char *metrics[CLI_DB_MAX_METRICS];     /* --metric, in the order given */
    uint32_t metric_count;
    const char *entity;                          /* --entity KEY */
    const char *stat;                            /* --stat avg|p50|min|max|... */
    const char *group_by[CLI_DB_MAX_GROUP_BY];   /* --group-by (none: program, method, device) */
    uint32_t group_by_count;
    const char *order_by;                        /* --order-by LABEL (numeric) */
    cli_labels where;                            /* --where KEY=VALUE */
    int has_since;
    int64_t since_ms;                            /* --since */
    int include_invalid;                         /* --include-invalid */
    int no_samples;                              /* --no-samples */
    etp_regression_options rule;                 /* --window, --baseline, --min-baseline,
                                                    --threshold, --z, --confidence */
} cli_db_query;

/* The option codes of the shared options (getopt_long's val). */
enum {
    CLI_DBQ_DB = 0x1000, CLI_DBQ_METRIC, CLI_DBQ_ENTITY, CLI_DBQ_STAT, CLI_DBQ_GROUP_BY,
    CLI_DBQ_ORDER_BY, CLI_DBQ_WHERE, CLI_DBQ_SINCE, CLI_DBQ_INCLUDE_INVALID, CLI_DBQ_NO_SAMPLES,
    CLI_DBQ_WINDOW, CLI_DBQ_BASELINE, CLI_DBQ_MIN_BASELINE, CLI_DBQ_THRESHOLD, CLI_DBQ_Z,
    CLI_DBQ_CONFIDENCE
};

/* The shared options, to copy at the start of a verb's option table
 * (CLI_DB_QUERY_OPTION_COUNT entries). */
extern const struct option cli_db_query_options[];
#define CLI_DB_QUERY_OPTION_COUNT 16

/* Defaults: no filter, the rule's defaults. */
void cli_db_query_init(cli_db_query *q);

/* Take option @p code with @p arg: 0 when taken, ETP_EXIT_USAGE after one
 * line naming @p cmd when its value is wrong, -1 when @p code is not one of
 * the shared options. */
int cli_db_query_option(const char *cmd, cli_db_query *q, int code, const char *arg);

/* The help text of the shared options. */
void cli_db_query_help(FILE *fp);

/* The series selected: for each metric in turn, its series (sorted by key),
 * and (when judged) one verdict each. */
typedef struct cli_db_series {
    etp_history_series *series;                  /* views into sets[] (not owned) */
    etp_regression *verdicts;                    /* NULL when not judged */
    uint32_t count;
    etp_history_series_set *sets[CLI_DB_MAX_METRICS];
    uint32_t set_count;
} cli_db_series;

/* Open the store, read the series of @p q (its metrics; none:
 * CLI_DB_DEFAULT_METRIC) and, with @p judge, judge each. ETP_EXIT_OK, or the
 * exit status after one line (the target redacted). Free with
 * cli_db_series_free(). */
int cli_db_series_load(const char *cmd, cli_db_query *q, int judge, cli_db_series *out);
void cli_db_series_free(cli_db_series *d);

#endif
