/* db_migrate.c - `etprof db migrate`: bring a database's schema to this
 * etprof's version (or to --to N), creating it when empty. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"

static void help(void)
{
    printf("usage: etprof db migrate [--db TARGET] [--to N]\n\n"
           "Bring the database's schema to this etprof's version (%d), one step at a time\n"
           "in one transaction, serialised with every other client (an empty database or\n"
           "a missing SQLite file is created). `db ingest` does this by itself; a database\n"
           "of a newer etprof is refused. --to N stops at version N (versions are never\n"
           "taken back).\n\n"
           "Exit status: 0, 1 a database error or a newer schema, 2 usage.\n",
           ETP_STORE_SCHEMA_VERSION);
}

int cli_db_migrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"to", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    long long to = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 't':
            to = cli_parse_count(optarg);
            if (to < 1 || to > ETP_STORE_SCHEMA_VERSION)
                return cli_usage("db migrate", "--to takes a version from 1 to %d, got '%s'",
                                 ETP_STORE_SCHEMA_VERSION, optarg);
            break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("db migrate", argv);
        }
    }
    if (optind < argc)
        return cli_usage("db migrate", "unexpected argument '%.80s'", argv[optind]);
    etp_store *s = NULL;
    int rc = cli_db_connect("migrate", db, ETP_STORE_RAW, &s);
    if (rc)
        return rc;
    etp_error err;
    etp_error_clear(&err);
    uint32_t from = 0, now = 0;
    etp_status st = etp_store_migrate(s, (uint32_t)to, &from, &err);
    if (!st)
        st = etp_store_schema_version(s, &now, &err);
    if (st)
        rc = cli_fail_status(st, &err);
    else if (from == now)
        printf("%s: schema version %u, nothing to do\n", etp_store_display(s), now);
    else
        printf("%s: schema version %u -> %u\n", etp_store_display(s), from, now);
    etp_store_close(s);
    return rc;
}
