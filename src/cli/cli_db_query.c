/* cli_db_query.c - the series a history verb reads (cli_db_query.h). */
#include "cli/cli_db_query.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"

const struct option cli_db_query_options[] = {
    {"db", required_argument, NULL, CLI_DBQ_DB},
    {"metric", required_argument, NULL, CLI_DBQ_METRIC},
    {"entity", required_argument, NULL, CLI_DBQ_ENTITY},
    {"stat", required_argument, NULL, CLI_DBQ_STAT},
    {"group-by", required_argument, NULL, CLI_DBQ_GROUP_BY},
    {"order-by", required_argument, NULL, CLI_DBQ_ORDER_BY},
    {"where", required_argument, NULL, CLI_DBQ_WHERE},
    {"since", required_argument, NULL, CLI_DBQ_SINCE},
    {"include-invalid", no_argument, NULL, CLI_DBQ_INCLUDE_INVALID},
    {"no-samples", no_argument, NULL, CLI_DBQ_NO_SAMPLES},
    {"window", required_argument, NULL, CLI_DBQ_WINDOW},
    {"baseline", required_argument, NULL, CLI_DBQ_BASELINE},
    {"min-baseline", required_argument, NULL, CLI_DBQ_MIN_BASELINE},
    {"threshold", required_argument, NULL, CLI_DBQ_THRESHOLD},
    {"z", required_argument, NULL, CLI_DBQ_Z},
    {"confidence", required_argument, NULL, CLI_DBQ_CONFIDENCE},
};
/* The verbs copy exactly this many entries into their own tables. */
_Static_assert(sizeof cli_db_query_options / sizeof cli_db_query_options[0] == CLI_DB_QUERY_OPTION_COUNT,
               "CLI_DB_QUERY_OPTION_COUNT must count cli_db_query_options");

void cli_db_query_init(cli_db_query *q)
{
    memset(q, 0, sizeof *q);
    etp_regression_options_init(&q->rule);
}

void cli_db_query_help(FILE *fp)
{
    etp_regression_options d; /* the defaults are the library's */
    etp_regression_options_init(&d);
    fprintf(fp,
            "Which series (one per group of runs; points in publication order):\n"
            "  --db TARGET        SQLite file or postgresql:// URL (default: $ETPROF_DB)\n"
            "  --metric NAME      a summary metric, e.g. method_execute.avg (repeatable)\n"
            "  --entity KEY       one entity's timing instead (operators.csv's entity_id);\n"
            "                     --metric then names its base (e.g. method_execute) or is\n"
            "                     left out, --stat picks the statistic\n"
            "  --stat S           avg, p50, min, max (entities also p10, p90, kernel_avg,\n"
            "                     dispatch_avg)\n"
            "  --where KEY=VALUE  only runs with this label (or run field: program,\n"
            "                     etrecord, method, unit, validity, tool_version, run_id)\n"
            "  --since T          only runs published at or after T (date, time, or 7d, 12h)\n"
            "  --group-by KEY     group runs by these labels or run fields (repeatable or\n"
            "                     comma-separated; default: program, method, device)\n"
            "  --order-by LABEL   order points by a numeric label (e.g. seq) instead of time;\n"
            "                     runs without a number there are left out\n"
            "  --include-invalid  also runs whose analysis was invalid\n"
            "  --no-samples       do not read per-execution samples (faster; no bootstrap)\n"
            "The regression rule (docs/history.md):\n"
            "  --window M         newest points judged (default %u)\n"
            "  --baseline N       points before them forming the baseline (default %u)\n"
            "  --min-baseline N   fewest baseline points accepted (default %u)\n"
            "  --threshold PCT    worse than the baseline by more than PCT %% (default %g)\n"
            "  --z Z              and beyond Z noise units (default %g; 0: threshold alone)\n"
            "  --confidence C     of the bootstrap interval with samples (default %g)\n",
            d.window, d.baseline, d.min_baseline, d.threshold_pct, d.z_threshold, d.confidence);
}

static int parse_number(const char *cmd, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v))
        return cli_usage(cmd, "--%s needs a number, got '%.80s'", opt, arg);
    *out = v;
    return 0;
}

static int parse_points(const char *cmd, const char *opt, const char *arg, uint32_t *out)
{
    long long v = cli_parse_count(arg);
    if (v < 1 || v > 1000000)
        return cli_usage(cmd, "--%s needs a count from 1 to 1000000, got '%.80s'", opt, arg);
    *out = (uint32_t)v;
    return 0;
}

/* --group-by a,b,c: each name in turn (commas cut the argument in place:
 * argv lives as long as the process). */
static int add_group_by(const char *cmd, cli_db_query *q, char *arg)
{
    for (char *save = NULL, *k = strtok_r(arg, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        if (q->group_by_count == CLI_DB_MAX_GROUP_BY)
            return cli_usage(cmd, "at most %d --group-by keys", CLI_DB_MAX_GROUP_BY);
        q->group_by[q->group_by_count++] = k;
    }
    return 0;
}

int cli_db_query_option(const char *cmd, cli_db_query *q, int code, const char *arg)
{
    double d = 0;
    int rc;
    switch (code) {
    case CLI_DBQ_DB: q->db = arg; return 0;
    case CLI_DBQ_METRIC:
        if (q->metric_count == CLI_DB_MAX_METRICS)
            return cli_usage(cmd, "at most %d --metric options", CLI_DB_MAX_METRICS);
        if (!*arg)
            return cli_usage(cmd, "--metric needs a name");
        q->metrics[q->metric_count++] = arg;
        return 0;
    case CLI_DBQ_ENTITY: q->entity = arg; return 0;
    case CLI_DBQ_STAT: q->stat = arg; return 0;
    case CLI_DBQ_GROUP_BY: return add_group_by(cmd, q, (char *)arg);
    case CLI_DBQ_ORDER_BY: q->order_by = arg; return 0;
    case CLI_DBQ_WHERE: return cli_labels_add(cmd, "--where", &q->where, arg, 0);
    case CLI_DBQ_SINCE:
        q->has_since = 1;
        return cli_parse_since(cmd, arg, &q->since_ms);
    case CLI_DBQ_INCLUDE_INVALID: q->include_invalid = 1; return 0;
    case CLI_DBQ_NO_SAMPLES: q->no_samples = 1; return 0;
    case CLI_DBQ_WINDOW: return parse_points(cmd, "window", arg, &q->rule.window);
    case CLI_DBQ_BASELINE: return parse_points(cmd, "baseline", arg, &q->rule.baseline);
    case CLI_DBQ_MIN_BASELINE: return parse_points(cmd, "min-baseline", arg, &q->rule.min_baseline);
    case CLI_DBQ_THRESHOLD:
        if ((rc = parse_number(cmd, "threshold", arg, &d)))
            return rc;
        q->rule.threshold_pct = d;
        return 0;
    case CLI_DBQ_Z:
        if ((rc = parse_number(cmd, "z", arg, &d)))
            return rc;
        q->rule.z_threshold = d;
        return 0;
    case CLI_DBQ_CONFIDENCE:
        if ((rc = parse_number(cmd, "confidence", arg, &d)))
            return rc;
        q->rule.confidence = d;
        return 0;
    default: return -1;
    }
}

/* The rule refuses impossible options itself (the library's policy, which
 * Python applies the same way): ask it before opening the database, on a
 * series with no points. */
static int check_rule(const char *cmd, const cli_db_query *q)
{
    etp_history_series none;
    memset(&none, 0, sizeof none);
    etp_regression r;
    etp_error err;
    etp_error_clear(&err);
    etp_status st = etp_regression_classify(&none, &q->rule, &r, &err);
    if (st == ETP_E_USAGE)
        return cli_usage(cmd, "%s", err.message);
    return st ? cli_fail_status(st, &err) : 0;
}

void cli_db_series_free(cli_db_series *d)
{
    for (uint32_t i = 0; i < d->set_count; i++)
        etp_history_series_free(d->sets[i]);
    free(d->series);
    free(d->verdicts);
    memset(d, 0, sizeof *d);
}

int cli_db_series_load(const char *cmd, cli_db_query *q, int judge, cli_db_series *out)
{
    memset(out, 0, sizeof *out);
    int rc = check_rule(cmd, q);
    if (rc)
        return rc;
    if (!q->metric_count && !q->entity)
        q->metrics[q->metric_count++] = CLI_DB_DEFAULT_METRIC;
    etp_store *s = NULL;
    rc = cli_db_connect(cmd + 3 /* the verb after "db " */, q->db, ETP_STORE_READ, &s);
    if (rc)
        return rc;
    etp_history_label where[CLI_MAX_LABELS];
    etp_store_series_query sq;
    memset(&sq, 0, sizeof sq);
    cli_db_filter(&q->where, where, &sq.filter);
    sq.filter.has_since = q->has_since;
    sq.filter.since_ms = q->since_ms;
    sq.stat = q->stat;
    sq.entity = q->entity;
    sq.group_by = q->group_by;
    sq.group_by_count = q->group_by_count;
    sq.order_by = q->order_by;
    sq.include_invalid = q->include_invalid;
    sq.no_samples = q->no_samples;
    etp_error err;
    etp_error_clear(&err);
    uint32_t metric_count = q->metric_count ? q->metric_count : 1;
    for (uint32_t m = 0; m < metric_count && !rc; m++) {
        sq.metric = q->metric_count ? q->metrics[m] : NULL;
        etp_history_series_set *set = NULL;
        etp_status st = etp_store_series(s, &sq, &set, &err);
        if (st) {
            rc = cli_fail_status(st, &err);
            break;
        }
        out->sets[out->set_count++] = set;
        out->count += set->count;
    }
    etp_store_close(s);
    if (!rc && out->count) {
        out->series = malloc(out->count * sizeof *out->series);
        out->verdicts = judge ? calloc(out->count, sizeof *out->verdicts) : NULL;
        if (!out->series || (judge && !out->verdicts))
            rc = cli_error("out of memory for %u series", out->count);
    }
    for (uint32_t i = 0, k = 0; !rc && i < out->set_count; i++)
        for (uint32_t j = 0; j < out->sets[i]->count && !rc; j++, k++) {
            out->series[k] = out->sets[i]->series[j];
            etp_status st = judge ? etp_regression_classify(&out->series[k], &q->rule, &out->verdicts[k], &err)
                                  : ETP_OK;
            if (st)
                rc = cli_fail_status(st, &err);
        }
    if (rc)
        cli_db_series_free(out);
    return rc;
}
