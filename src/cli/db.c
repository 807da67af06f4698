/* db.c - `etprof db VERB ...`: the run-history store's verbs, dispatched
 * from one table (each verb in its own file; see cli_db.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} verbs[] = {
    {"ingest", cli_db_ingest, "store published bundles (verified first; idempotent)"},
    {"runs", cli_db_runs, "list stored runs (--where K=V, --since T; --json, --csv)"},
    {"migrate", cli_db_migrate, "bring the database's schema to this etprof's version"},
    {"gc", cli_db_gc, "remove old runs (--keep-last N per series, --keep-days D)"},
    {"trend", cli_db_trend, "a metric over time, a series per group (listing, JSON, CSV, page)"},
    {"regressions", cli_db_regressions, "judge every series: regression, suspicious, ok (--fail-on)"},
    {"export", cli_db_export, "every run's metrics as CSV, JSON Lines or PyTorch's v3 records"},
    {"info", cli_db_info, "engine, schema version, runs and bytes stored"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: etprof db VERB [--db TARGET] [options]\n\n"
                "The run history: published bundles kept in a database, queried over time.\n"
                "TARGET is a SQLite file path (created when missing) or a PostgreSQL URL\n"
                "(postgresql://USER[:PASSWORD]@HOST[:PORT]/DB, also postgres://); without\n"
                "--db, the ETPROF_DB environment variable. A password is never printed.\n\n"
                "verbs:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(fp, "  %-12s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(fp, "\n`etprof db VERB --help` describes a verb. docs/history.md: the schema and examples.\n"
                "Exit status: 0 success, 1 a bundle refused or a database error, 2 usage,\n"
                "3 `db regressions --fail-on` found one.\n");
}

int cmd_db(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ETP_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return ETP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].fn(argc - 1, argv + 1);
    return cli_usage("db", "unknown verb '%.80s'", argv[1]);
}
