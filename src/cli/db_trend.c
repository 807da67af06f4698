/* db_trend.c - `etprof db trend`: a stored quantity over time, a series per
 * group of runs, as a listing, JSON, CSV or a standalone page; each series
 * carries the regression rule's verdict (the page marks its change point). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "cli/cli_db_query.h"
#include "etprof/history_io.h"

static void help(void)
{
    printf("usage: etprof db trend [--db TARGET] [--metric NAME]... [--entity KEY] [--stat S]\n"
           "                       [--where KEY=VALUE]... [--since T] [--group-by KEY]...\n"
           "                       [--order-by LABEL] [--json | --csv] [-o FILE] [--title T]\n\n"
           "A quantity of the stored runs over time: one series per group of runs (by\n"
           "default: program digest x method x `device` label), its points oldest first,\n"
           "each with its run, labels and value; each series also carries the regression\n"
           "rule's verdict (`etprof db regressions`). Without --metric: " CLI_DB_DEFAULT_METRIC ".\n\n");
    cli_db_query_help(stdout);
    printf("Output (default: a listing on standard output):\n"
           "  --json             schema etprof.trend (schemas/json/trend.v1.schema.json)\n"
           "  --csv              one row per point, the series' identity first\n"
           "  -o FILE            write there (atomically); without --json or --csv: a\n"
           "                     standalone page (file://, no network), one chart per\n"
           "                     metric, hover shows the run, value, commit and labels\n"
           "  --title T          the page's title (default: etprof trend: METRICS)\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

typedef struct trend_out {
    const cli_db_series *d;
    int json, csv, page;
    const char *title;
} trend_out;

static etp_status fill(FILE *fp, void *ctx, etp_error *err)
{
    const trend_out *t = ctx;
    const cli_db_series *d = t->d;
    if (!t->json && !t->csv && !t->page)
        return etp_history_trend_text(d->series, d->count, d->verdicts, fp, err);
    /* Streamed: 100,000 points are tens of MB of text, never held whole. */
    if (t->json)
        return etp_history_trend_json_write(d->series, d->count, d->verdicts, fp, err);
    if (t->csv)
        return etp_history_trend_csv_write(d->series, d->count, fp, err);
    return etp_history_trend_html_write(d->series, d->count, d->verdicts, t->title, fp, err);
}

/* "etprof trend: m1, m2" (or the entity): the page's default title. */
static void default_title(const cli_db_query *q, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "etprof trend:");
    if (q->entity && n < size)
        n += (size_t)snprintf(out + n, size - n, " %s%s%s", q->entity, q->stat ? " " : "", q->stat ? q->stat : "");
    for (uint32_t i = 0; i < q->metric_count && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s %s", i ? "," : "", q->metrics[i]);
}

int cli_db_trend(int argc, char **argv)
{
    enum { OPT_JSON = 1, OPT_CSV, OPT_TITLE, OPT_HELP };
    struct option opts[CLI_DB_QUERY_OPTION_COUNT + 6];
    memcpy(opts, cli_db_query_options, CLI_DB_QUERY_OPTION_COUNT * sizeof opts[0]);
    struct option *o = opts + CLI_DB_QUERY_OPTION_COUNT;
    o[0] = (struct option){"json", no_argument, NULL, OPT_JSON};
    o[1] = (struct option){"csv", no_argument, NULL, OPT_CSV};
    o[2] = (struct option){"title", required_argument, NULL, OPT_TITLE};
    o[3] = (struct option){"output", required_argument, NULL, 'o'};
    o[4] = (struct option){"help", no_argument, NULL, OPT_HELP};
    o[5] = (struct option){NULL, 0, NULL, 0};
    cli_db_query q;
    cli_db_query_init(&q);
    trend_out t = {0};
    const char *out = NULL;
    int c, rc = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON: t.json = 1; break;
        case OPT_CSV: t.csv = 1; break;
        case OPT_TITLE: t.title = optarg; break;
        case 'o': out = optarg; break;
        case 'h':
        case OPT_HELP: help(); return ETP_EXIT_OK;
        case '?': return cli_bad_option("db trend", argv);
        default: rc = cli_db_query_option("db trend", &q, c, optarg); break;
        }
    }
    if (rc)
        return rc;
    if (optind < argc)
        return cli_usage("db trend", "unexpected argument '%.80s'", argv[optind]);
    if (t.json && t.csv)
        return cli_usage("db trend", "--json and --csv exclude each other");
    t.page = out && !t.json && !t.csv && strcmp(out, "-");
    if (t.title && !t.page)
        return cli_usage("db trend", "--title names the page: give -o FILE (not -) without --json or --csv");
    cli_db_series d;
    /* CSV has no verdicts: the series are not judged for it. */
    rc = cli_db_series_load("db trend", &q, !t.csv, &d);
    if (rc)
        return rc;
    char title[512];
    if (t.page && !t.title) {
        default_title(&q, title, sizeof title);
        t.title = title;
    }
    t.d = &d;
    rc = cli_write_atomic(out ? out : "-", fill, &t);
    if (!rc && out && strcmp(out, "-"))
        printf("wrote %s: %u series (%s)\n", out, d.count, t.page ? "a page to open in a browser" : t.json ? "JSON" : "CSV");
    cli_db_series_free(&d);
    return rc;
}
