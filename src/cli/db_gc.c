/* db_gc.c - `etprof db gc`: remove old runs from the history. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"

static void help(void)
{
    printf("usage: etprof db gc [--db TARGET] (--keep-last N | --keep-days D)... [--dry-run]\n\n"
           "Remove old runs, each with every row that belongs to it, in one transaction.\n"
           "  --keep-last N  keep the newest N runs of each series group: same program\n"
           "                 digest, method and `device` label (the default grouping of\n"
           "                 `db trend`), so every device and model keeps its baseline\n"
           "  --keep-days D  keep the runs published in the last D days, over all groups\n"
           "  --dry-run      count what would go; change nothing\n"
           "With both, a run goes when either says so. The bundles themselves are not\n"
           "touched.\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

int cli_db_gc(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},        {"keep-last", required_argument, NULL, 'n'},
        {"keep-days", required_argument, NULL, 'D'}, {"dry-run", no_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    etp_store_gc_options o;
    memset(&o, 0, sizeof o);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        long long v;
        switch (c) {
        case 'd': db = optarg; break;
        case 'n':
        case 'D':
            v = cli_parse_count(optarg);
            if (v < 1 || v > 100000000)
                return cli_usage("db gc", "--%s needs a count from 1, got '%s'",
                                 c == 'n' ? "keep-last" : "keep-days", optarg);
            *(c == 'n' ? &o.keep_last : &o.keep_days) = (uint32_t)v;
            break;
        case 'r': o.dry_run = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("db gc", argv);
        }
    }
    if (optind < argc)
        return cli_usage("db gc", "unexpected argument '%.80s'", argv[optind]);
    if (!o.keep_last && !o.keep_days)
        return cli_usage("db gc", "give --keep-last N or --keep-days D");
    etp_store *s = NULL;
    int rc = cli_db_connect("gc", db, ETP_STORE_WRITE, &s);
    if (rc)
        return rc;
    etp_error err;
    etp_error_clear(&err);
    uint64_t removed, kept;
    etp_status st = etp_store_gc(s, &o, &removed, &kept, &err);
    if (st)
        rc = cli_fail_status(st, &err);
    else
        printf("%s: %llu run(s) %s, %llu kept\n", etp_store_display(s), (unsigned long long)removed,
               o.dry_run ? "would go" : "removed", (unsigned long long)kept);
    etp_store_close(s);
    return rc;
}
