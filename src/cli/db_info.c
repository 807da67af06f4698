/* db_info.c - `etprof db info`: which engine, which schema, how much. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "util/jsonw.h"

static void help(void)
{
    printf("usage: etprof db info [--db TARGET] [--json]\n\n"
           "The engine, the schema version, the number of runs stored and the bytes the\n"
           "database takes (SQLite: its pages in use; PostgreSQL: the store's tables with\n"
           "their indexes), with bytes per run.\n\n"
           "Exit status: 0, 1 a database error, 2 usage.\n");
}

int cli_db_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'J': json = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("db info", argv);
        }
    }
    if (optind < argc)
        return cli_usage("db info", "unexpected argument '%.80s'", argv[optind]);
    etp_store *s = NULL;
    int rc = cli_db_connect("info", db, ETP_STORE_READ, &s);
    if (rc)
        return rc;
    etp_error err;
    etp_error_clear(&err);
    etp_store_stats st;
    etp_status e = etp_store_get_stats(s, &st, &err);
    double per_run = st.runs ? (double)st.bytes / (double)st.runs : 0;
    if (e) {
        rc = cli_fail_status(e, &err);
    } else if (json) {
        etp_jw w;
        etp_jw_init_file(&w, stdout, 1);
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "target", etp_store_display(s));
        etp_jw_kstr(&w, "engine", etp_store_engine(s));
        etp_jw_kuint(&w, "schema_version", st.schema_version);
        etp_jw_kuint(&w, "runs", st.runs);
        etp_jw_kuint(&w, "bytes", st.bytes);
        etp_jw_kdouble(&w, "bytes_per_run", per_run);
        etp_jw_obj_end(&w);
        etp_jw_raw_text(&w, "\n", 1);
        if (etp_jw_finish(&w))
            rc = cli_error("write error on standard output");
    } else {
        printf("target          %s\nengine          %s\nschema version  %u\nruns            %llu\n"
               "bytes           %llu (%.0f per run)\n",
               etp_store_display(s), etp_store_engine(s), st.schema_version,
               (unsigned long long)st.runs, (unsigned long long)st.bytes, per_run);
    }
    etp_store_close(s);
    return rc;
}
