/* db_runs.c - `etprof db runs`: the stored runs a filter selects, as a
 * table for people, JSON or CSV (one column per label key). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "util/csvw.h"
#include "util/jsonw_bytes.h"
#include "util/utc_time.h"

static void help(void)
{
    printf("usage: etprof db runs [--db TARGET] [--where KEY=VALUE]... [--since T]\n"
           "                      [--json | --csv]\n\n"
           "List the stored runs, oldest first. --where keeps runs whose label KEY has\n"
           "VALUE (or whose own field has it: program, etrecord, method, unit, validity,\n"
           "tool_version, run_id); every --where must hold. --since keeps runs published\n"
           "at or after T: an RFC 3339 date or time (2026-03-01, 2026-03-01T12:00:00Z) or a\n"
           "duration back from now (90s, 30m, 12h, 7d, 2w).\n\n"
           "  --json   {\"target\", \"runs\": [...]}: a label value that is not UTF-8 is\n"
           "           {\"base64\": ...}\n"
           "  --csv    one row per run, one label.KEY column per label key (exact bytes)\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

static void published_text(int64_t ms, char *out, size_t size)
{
    if (etp_utc_format_ms(ms, out, size))
        snprintf(out, size, "%lld", (long long)ms);
}

static void write_text(const etp_store_runs *r)
{
    printf("%-6s %-24s %-8s %-12s %-6s %6s  %-12s  %s\n", "run", "published", "validity", "method",
           "unit", "execs", "program", "labels");
    for (uint32_t i = 0; i < r->count; i++) {
        const etp_history_run *x = &r->runs[i];
        char when[40];
        published_text(x->published_ms, when, sizeof when);
        printf("%-6lld %-24s %-8s %-12s %-6s %6u  %-12.12s ", (long long)x->run, when, x->validity,
               x->method, x->time_unit, x->executions, *x->program_sha256 ? x->program_sha256 : "-");
        for (uint32_t k = 0; k < x->label_count; k++) {
            printf(" %s=", x->labels[k].key);
            cli_db_print_text(stdout, x->labels[k].value);
        }
        putchar('\n');
    }
}

static int write_json(const etp_store *s, const etp_store_runs *r)
{
    etp_jw w;
    etp_jw_init_file(&w, stdout, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "target", etp_store_display(s));
    etp_jw_key(&w, "runs");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < r->count; i++) {
        const etp_history_run *x = &r->runs[i];
        char when[40];
        published_text(x->published_ms, when, sizeof when);
        etp_jw_obj_begin(&w);
        etp_jw_kint(&w, "run", x->run);
        etp_jw_kstr(&w, "run_id", x->run_id);
        etp_jw_kstr(&w, "manifest_sha256", x->manifest_sha256);
        etp_jw_kstr(&w, "published", when);
        etp_jw_kint(&w, "published_ms", x->published_ms);
        etp_jw_kstr(&w, "tool_version", x->tool_version);
        etp_jw_kstr(&w, "validity", x->validity);
        etp_jw_kstr(&w, "method", x->method);
        etp_jw_kstr(&w, "program_sha256", x->program_sha256);
        etp_jw_kstr(&w, "unit", x->time_unit);
        etp_jw_kuint(&w, "executions", x->executions);
        etp_jw_kbool(&w, "detailed", x->detailed);
        etp_jw_key(&w, "bundle");
        etp_jw_bytes(&w, x->bundle);
        etp_jw_key(&w, "labels");
        etp_jw_obj_begin(&w);
        for (uint32_t k = 0; k < x->label_count; k++) {
            etp_jw_key(&w, x->labels[k].key);
            etp_jw_bytes(&w, x->labels[k].value);
        }
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    etp_jw_raw_text(&w, "\n", 1);
    return etp_jw_finish(&w);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int write_csv(const etp_store_runs *r)
{
    /* Every label key of the listing, sorted: one column each. */
    const char **keys = NULL;
    size_t n = 0;
    for (uint32_t i = 0; i < r->count; i++)
        n += r->runs[i].label_count;
    keys = malloc((n + 1) * sizeof *keys);
    if (!keys)
        return -1;
    n = 0;
    for (uint32_t i = 0; i < r->count; i++)
        for (uint32_t k = 0; k < r->runs[i].label_count; k++)
            keys[n++] = r->runs[i].labels[k].key;
    qsort(keys, n, sizeof *keys, cmp_str);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (!distinct || strcmp(keys[distinct - 1], keys[i]))
            keys[distinct++] = keys[i];
    etp_csvw w;
    etp_csvw_init_file(&w, stdout);
    static const char *const cols[] = {"run",         "run_id",       "published",     "published_ms",
                                       "validity",    "method",       "unit",          "executions",
                                       "detailed",    "program_sha256", "tool_version", "manifest_sha256",
                                       "bundle"};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        etp_csvw_str(&w, cols[c]);
    for (size_t k = 0; k < distinct; k++) {
        char h[80];
        snprintf(h, sizeof h, "label.%s", keys[k]);
        etp_csvw_str(&w, h);
    }
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < r->count; i++) {
        const etp_history_run *x = &r->runs[i];
        char when[40];
        published_text(x->published_ms, when, sizeof when);
        etp_csvw_int(&w, x->run);
        etp_csvw_str(&w, x->run_id);
        etp_csvw_str(&w, when);
        etp_csvw_int(&w, x->published_ms);
        etp_csvw_str(&w, x->validity);
        etp_csvw_str(&w, x->method);
        etp_csvw_str(&w, x->time_unit);
        etp_csvw_uint(&w, x->executions);
        etp_csvw_str(&w, x->detailed ? "true" : "false");
        etp_csvw_str(&w, x->program_sha256);
        etp_csvw_str(&w, x->tool_version);
        etp_csvw_str(&w, x->manifest_sha256);
        etp_csvw_str(&w, x->bundle);
        /* both lists are sorted by key */
        uint32_t j = 0;
        for (size_t k = 0; k < distinct; k++) {
            while (j < x->label_count && strcmp(x->labels[j].key, keys[k]) < 0)
                j++;
            if (j < x->label_count && !strcmp(x->labels[j].key, keys[k]))
                etp_csvw_str(&w, x->labels[j].value);
            else
                etp_csvw_empty(&w);
        }
        etp_csvw_end_row(&w);
    }
    free(keys);
    return etp_csvw_finish(&w);
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
        int bad = 0;
        if (json)
            bad = write_json(s, r);
        else if (csv)
            bad = write_csv(r);
        else
            write_text(r);
        if (bad || fflush(stdout))
            rc = cli_error("write error on standard output");
    }
    etp_store_runs_free(r);
    etp_store_close(s);
    return rc;
}
