/* testutil.h - helpers shared by the cmocka tests. */
#ifndef ETP_TESTUTIL_H
#define ETP_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/diff.h"

/* Absolute path of fixture @p rel under ../shared/fixtures (static buffer
 * per call slot; copy it if you need several). NULL and a printed SKIP note
 * when the fixtures folder is absent. */
const char *tu_fixture(const char *rel);
/* 1 when ../shared/fixtures exists. */
int tu_have_fixtures(void);
/* Read a whole file; caller frees. NULL on error. */
uint8_t *tu_read_file(const char *path, size_t *size);
/* What has been written to @p fp (a tmpfile, say) up to its position,
 * NUL-terminated; *len (if given) its length. Caller frees; NULL on error. */
char *tu_stream_text(FILE *fp, size_t *len);
/* 1 when what has been written to @p fp is exactly the @p len bytes at @p want. */
int tu_stream_equals(FILE *fp, const char *want, size_t len);
/* A fresh empty temporary directory (caller removes it with tu_rmrf). */
char *tu_tmpdir(void);
void tu_rmrf(const char *path);
/* Run a shell command, capture stdout (caller frees) and exit status. */
char *tu_run(const char *cmd, int *status);
/* Path of the etprof binary under test (ETPROF env var). */
const char *tu_etprof(void);
/* Next value of a xorshift64 generator (@p state: any non-zero seed). */
uint64_t tu_rand(uint64_t *state);

/* A diff side's identity: a complete, valid bundle run "side" of program
 * "aa", method forward, ms results of ns ticks, @p executions executions. */
etp_diff_identity tu_diff_identity(uint32_t executions);

/* Skip the whole test program (exit 77) when fixtures are missing. */
#define TU_REQUIRE_FIXTURES()                                                                  \
    do {                                                                                       \
        if (!tu_have_fixtures()) {                                                             \
            printf("SKIP: ../shared/fixtures is absent; this test reads real files there\n"); \
            return 77;                                                                         \
        }                                                                                      \
    } while (0)

#endif
