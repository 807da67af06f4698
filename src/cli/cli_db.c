/* cli_db.c - what the `etprof db` verbs share (cli_db.h), and the ingest
 * that follows `analyze -o DIR --db TARGET`. */
#include "cli/cli_db.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_db_connect(const char *verb, const char *given, etp_store_mode mode, etp_store **out)
{
    const char *t = given ? given : getenv("ETPROF_DB");
    if (!t || !*t) {
        char cmd[32];
        snprintf(cmd, sizeof cmd, "db %s", verb);
        return cli_usage(cmd, "no database: give --db TARGET or set ETPROF_DB");
    }
    etp_error err;
    etp_error_clear(&err);
    etp_status s = etp_store_open(t, mode, out, &err);
    return s ? cli_fail_status(s, &err) : ETP_EXIT_OK;
}

void cli_db_filter(const cli_labels *where, etp_history_label *buf, etp_store_filter *f)
{
    for (uint32_t i = 0; i < where->n; i++)
        buf[i] = (etp_history_label){where->keys[i], where->values[i]};
    f->where = buf;
    f->where_count = where->n;
}

int cli_db_ingest_published(const char *dir, const char *target, int quiet)
{
    etp_store *s = NULL;
    etp_error err;
    etp_error_clear(&err);
    etp_store_ingest_result res;
    etp_status st = etp_store_open(target, ETP_STORE_WRITE, &s, &err);
    if (!st)
        st = etp_store_ingest(s, dir, NULL, 0, &res, &err);
    char buf[1200];
    if (st) {
        fprintf(stderr, "etprof: %s: not stored: %s (the bundle stays published)\n", dir,
                etp_error_format(&err, buf, sizeof buf));
        etp_store_close(s);
        return ETP_EXIT_INPUT;
    }
    if (!quiet)
        printf("%s %s in %s (run %lld)\n", res.added ? "Stored" : "Already stored:", dir,
               etp_store_display(s), (long long)res.run);
    etp_store_close(s);
    return ETP_EXIT_OK;
}
