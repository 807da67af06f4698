/* db_runs.c - `etprof db runs`: the stored runs a filter selects, as a
 * table for people, JSON or CSV (written by etprof/history_io.h, whose run
 * fields the exports share). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "etprof/history_io.h"

static void help(void)
{
    printf("usage: etprof db runs [--db TARGET] [--where KEY=VALUE]... [--since T]\n"
           "                      [--json | --csv]\n\n"
           "List the stored runs, oldest first. --where keeps runs whose label KEY has\n"
           "VALUE (or whose own field has it: program, etrecord, method, unit, validity,\n"
           "tool_version, run_id); every --where must hold. --since keeps runs published\n"
           "at or after T: an RFC 3339 date or time (2026-03-01, 2026-03-01T12:00:00Z) or a\n"
           "duration back from now (90s, 30m, 12h, 7d, 2w).\n\n"
           "  --json   {\"schema\": \"etprof.history-runs\", \"runs\": [...]}: a label value\n"
           "           that is not UTF-8 is {\"base64\": ...}\n"
           "  --csv    one row per run: the run's fields, label_device, label_commit,\n"
           "           label_branch, label_model, label_backend, label_seq (exact bytes),\n"
           "           and every label as a JSON object in `labels`\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

typedef struct runs_out {
    const etp_store_runs *r;
    int json, csv;
} runs_out;

static etp_status fill(FILE *fp, void *ctx, etp_error *err)
{
    const runs_out *o = ctx;
    if (!o->json && !o->csv)
        return etp_history_runs_text(o->r->runs, o->r->count, fp, err);
    size_t len = 0;
    char *text = o->json ? etp_history_runs_json(o->r->runs, o->r->count, &len)
                         : etp_history_runs_csv(o->r->runs, o->r->count, &len);
    return cli_put_text(fp, text, len, err);
}

int cli_db_runs(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},    {"where", required_argument, NULL, 'w'},
        {"since", required_argument, NULL, 's'}, {"json", no_argument, NULL, 'J'},
        {"csv", no_argument, NULL, 'C'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    int json = 0, csv = 0, c, rc = ETP_EXIT_OK;
    etp_store_filter f;
    memset(&f, 0, sizeof f);
    cli_labels where;
    memset(&where, 0, sizeof where);
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'w': rc = cli_labels_add("db runs", "--where", &where, optarg, 0); break;
        case 's':
            rc = cli_parse_since("db runs", optarg, &f.since_ms);
            f.has_since = 1;
            break;
        case 'J': json = 1; break;
        case 'C': csv = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: rc = cli_bad_option("db runs", argv);
        }
    }
    if (!rc && optind < argc)
        rc = cli_usage("db runs", "unexpected argument '%.80s'", argv[optind]);
    if (!rc && json && csv)
        rc = cli_usage("db runs", "--json and --csv exclude each other");
    etp_store *s = NULL;
    if (!rc)
        rc = cli_db_connect("runs", db, ETP_STORE_READ, &s);
    etp_history_label buf[CLI_MAX_LABELS];
    cli_db_filter(&where, buf, &f);
    etp_store_runs *r = NULL;
    etp_error err;
    etp_error_clear(&err);
    if (!rc) {
        etp_status st = etp_store_list_runs(s, &f, &r, &err);
        if (st)
            rc = cli_fail_status(st, &err);
    }
    if (!rc) {
        runs_out o = {r, json, csv};
        rc = cli_write_atomic("-", fill, &o);
    }
    etp_store_runs_free(r);
    etp_store_close(s);
    return rc;
}
