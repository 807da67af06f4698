/* cli_db.h - `etprof db VERB`: the verbs (one file each: db_ingest.c,
 * db_runs.c, db_trend.c, db_regressions.c, db_export.c, db_migrate.c,
 * db_gc.c, db_info.c) and what they share (cli_db.c: the target, opening the
 * store; cli_db_query.c: the series trend and regressions read). */
#ifndef ETP_CLI_DB_H
#define ETP_CLI_DB_H

#include <stdio.h>

#include "cli/cli_labels.h"
#include "etprof/store.h"

/* Each verb takes argv[0] = its name, then its options. */
int cli_db_ingest(int argc, char **argv);
int cli_db_runs(int argc, char **argv);
int cli_db_migrate(int argc, char **argv);
int cli_db_gc(int argc, char **argv);
int cli_db_info(int argc, char **argv);
int cli_db_trend(int argc, char **argv);
int cli_db_regressions(int argc, char **argv);
int cli_db_export(int argc, char **argv);

/* Open the store @p given (--db), else $ETPROF_DB, in @p mode. ETP_EXIT_OK, or
 * after one line: ETP_EXIT_USAGE when neither names one (naming @p verb), else
 * the status of the failure (the target redacted). */
int cli_db_connect(const char *verb, const char *given, etp_store_mode mode, etp_store **out);

/* Store the bundle just published in @p dir (`analyze -o DIR --db TARGET`,
 * `run ... --db TARGET`): one line saying what happened; ETP_EXIT_OK or
 * ETP_EXIT_INPUT ("the bundle stays published"). */
int cli_db_ingest_published(const char *dir, const char *target, int quiet);

/* Labels given on the command line as the store's filter / extra labels. */
void cli_db_filter(const cli_labels *where, etp_history_label *buf, etp_store_filter *f);

#endif
