/* db_export.c - `etprof db export`: every stored run's metrics for other
 * tools: CSV and JSON Lines (one documented column schema, for DuckDB,
 * Spark, ClickHouse) and PyTorch's OSS benchmark database records
 * (oss_ci_benchmark_v3). The runs stream from the store to the file. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "etprof/history_io.h"

static void help(void)
{
    printf("usage: etprof db export [--db TARGET] --format csv|jsonl|pytorch-v3\n"
           "                        [--where KEY=VALUE]... [--since T] [-o FILE]\n\n"
           "Every selected run's summary metrics, oldest run first:\n"
           "  csv         one row per (run, metric), a header row; the run's fields, the\n"
           "              conventional labels as label_device .. label_seq, every label\n"
           "              as JSON in `labels`, the metric, value, unit, aggregation,\n"
           "              additivity, samples and per-execution values\n"
           "  jsonl       the same columns, one JSON object a line\n"
           "              (schemas/json/exports/history_export.v1.schema.json)\n"
           "  pytorch-v3  one record a line in the shape of PyTorch's OSS benchmark\n"
           "              database (benchmark.oss_ci_benchmark_v3; labels device, model,\n"
           "              backend, commit, branch, job, workflow, repo fill its fields)\n"
           "--where and --since select runs as in `etprof db runs`. -o FILE is written\n"
           "atomically (default: standard output). docs/history.md lists every column.\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

typedef struct export_ctx {
    etp_store *s;
    const etp_store_filter *f;
    etp_history_export_format format;
} export_ctx;

static etp_status one_run(void *ctx, const etp_history_run *run, const etp_history_metric *m, uint32_t n,
                          etp_error *err)
{
    etp_history_export *x = ctx;
    return etp_history_export_run(x, run, m, n, err);
}

static etp_status fill(FILE *fp, void *ctx, etp_error *err)
{
    export_ctx *e = ctx;
    etp_history_export *x = NULL;
    etp_status st = etp_history_export_begin(fp, e->format, &x, err);
    if (st)
        return st;
    st = etp_store_each_run(e->s, e->f, one_run, x, err);
    etp_error later; /* the first failure is the one told */
    etp_error_clear(&later);
    etp_status end = etp_history_export_end(x, st ? &later : err);
    return st ? st : end;
}

int cli_db_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},     {"format", required_argument, NULL, 'f'},
        {"where", required_argument, NULL, 'w'},  {"since", required_argument, NULL, 's'},
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL, *out = "-", *format = NULL;
    cli_labels where;
    memset(&where, 0, sizeof where);
    etp_store_filter f;
    memset(&f, 0, sizeof f);
    int c, rc = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'f': format = optarg; break;
        case 'w': rc = cli_labels_add("db export", "--where", &where, optarg, 0); break;
        case 's':
            f.has_since = 1;
            rc = cli_parse_since("db export", optarg, &f.since_ms);
            break;
        case 'o': out = optarg; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("db export", argv);
        }
    }
    if (rc)
        return rc;
    if (optind < argc)
        return cli_usage("db export", "unexpected argument '%.80s'", argv[optind]);
    export_ctx e = {0};
    if (!format)
        return cli_usage("db export", "give --format csv, jsonl or pytorch-v3");
    if (etp_history_export_format_parse(format, &e.format))
        return cli_usage("db export", "--format is csv, jsonl or pytorch-v3, not '%.80s'", format);
    rc = cli_db_connect("export", db, ETP_STORE_READ, &e.s);
    if (rc)
        return rc;
    etp_history_label buf[CLI_MAX_LABELS];
    cli_db_filter(&where, buf, &f);
    e.f = &f;
    rc = cli_write_atomic(out, fill, &e);
    etp_store_close(e.s);
    return rc;
}
