/* db_regressions.c - `etprof db regressions`: every series judged by the
 * regression rule (etprof/history.h), most urgent first; a CI gate with
 * --fail-on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "cli/cli_db_query.h"
#include "etprof/history_io.h"

static void help(void)
{
    printf("usage: etprof db regressions [--db TARGET] [--metric NAME]... [--window M]\n"
           "                             [--baseline N] [--threshold PCT] [--where K=V]...\n"
           "                             [--json] [-o FILE] [--fail-on regression|suspicious]\n\n"
           "Judge every series (one per group of runs, as `etprof db trend` draws them):\n"
           "the newest M points against the up to N before them. A series is\n"
           "  regression         two or more trailing points worse than the baseline by\n"
           "                     more than the threshold and beyond the noise\n"
           "  suspicious         three or more such points in a row that do not reach the\n"
           "                     end (a change that came and went)\n"
           "  insufficient_data  too few points for the window and the baseline\n"
           "  ok                 otherwise\n"
           "with the run where the change began (run id, commit), its size, and how sure\n"
           "the rule is; where the runs were published --detailed, their per-execution\n"
           "samples must also differ (diff's bootstrap), so noise never decides.\n"
           "docs/history.md states the rule. Without --metric: " CLI_DB_DEFAULT_METRIC ".\n\n");
    cli_db_query_help(stdout);
    printf("Output:\n"
           "  --json             schema etprof.regressions (schemas/json/regressions.v1)\n"
           "  -o FILE            write there (atomically) instead of standard output\n"
           "  --fail-on V        exit 3 when a series is a regression (V = regression),\n"
           "                     or a regression or suspicious (V = suspicious)\n\n"
           "Exit status: 0; 1 a database error; 2 usage; 3 --fail-on found one.\n");
}

typedef struct regress_out {
    const cli_db_series *d;
    const etp_regression_options *rule;
    int json;
} regress_out;

static etp_status fill(FILE *fp, void *ctx, etp_error *err)
{
    const regress_out *r = ctx;
    if (!r->json)
        return etp_history_regressions_text(r->d->series, r->d->verdicts, r->d->count, fp, err);
    size_t len = 0;
    char *text = etp_history_regressions_json(r->d->series, r->d->verdicts, r->d->count, r->rule, &len);
    return cli_put_text(fp, text, len, err);
}

int cli_db_regressions(int argc, char **argv)
{
    enum { OPT_JSON = 1, OPT_FAIL_ON, OPT_HELP };
    struct option opts[CLI_DB_QUERY_OPTION_COUNT + 5];
    memcpy(opts, cli_db_query_options, CLI_DB_QUERY_OPTION_COUNT * sizeof opts[0]);
    struct option *o = opts + CLI_DB_QUERY_OPTION_COUNT;
    o[0] = (struct option){"json", no_argument, NULL, OPT_JSON};
    o[1] = (struct option){"fail-on", required_argument, NULL, OPT_FAIL_ON};
    o[2] = (struct option){"output", required_argument, NULL, 'o'};
    o[3] = (struct option){"help", no_argument, NULL, OPT_HELP};
    o[4] = (struct option){NULL, 0, NULL, 0};
    cli_db_query q;
    cli_db_query_init(&q);
    regress_out r = {0};
    const char *out = NULL;
    int c, rc = 0, fail_on = -1; /* the mildest verdict that fails; -1: none */
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON: r.json = 1; break;
        case OPT_FAIL_ON:
            if (!strcmp(optarg, "regression"))
                fail_on = ETP_REGRESSION_REGRESSION;
            else if (!strcmp(optarg, "suspicious"))
                fail_on = ETP_REGRESSION_SUSPICIOUS;
            else
                rc = cli_usage("db regressions", "--fail-on is regression or suspicious, not '%.80s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'h':
        case OPT_HELP: help(); return ETP_EXIT_OK;
        case '?': return cli_bad_option("db regressions", argv);
        default: rc = cli_db_query_option("db regressions", &q, c, optarg); break;
        }
    }
    if (rc)
        return rc;
    if (optind < argc)
        return cli_usage("db regressions", "unexpected argument '%.80s'", argv[optind]);
    cli_db_series d;
    rc = cli_db_series_load("db regressions", &q, 1, &d);
    if (rc)
        return rc;
    r.d = &d;
    r.rule = &q.rule;
    rc = cli_write_atomic(out ? out : "-", fill, &r);
    uint32_t failing = 0;
    for (uint32_t i = 0; i < d.count; i++) {
        etp_regression_class v = d.verdicts[i].verdict;
        failing += v == ETP_REGRESSION_REGRESSION || (fail_on == ETP_REGRESSION_SUSPICIOUS && v == ETP_REGRESSION_SUSPICIOUS);
    }
    if (!rc && fail_on >= 0 && failing) {
        fprintf(stderr, "etprof: db regressions: %u series %s (--fail-on %s)\n", failing,
                fail_on == ETP_REGRESSION_SUSPICIOUS ? "regressed or suspicious" : "regressed",
                etp_regression_class_name((etp_regression_class)fail_on));
        rc = ETP_EXIT_GATE;
    }
    cli_db_series_free(&d);
    return rc;
}
