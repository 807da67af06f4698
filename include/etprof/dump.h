/*
 * etprof/dump.h - `etprof dump --json`: every decoded input as JSON.
 *
 * Each writer prints the whole of one opened input (etprof/etdump.h,
 * program.h, etrecord.h, vgf.h). For the FlatBuffers files the structure is
 * the one `flatc --json --strict-json --defaults-json` prints with the
 * restated schemas in schemas/flatbuffers/ (the tests compare them).
 *
 * Thread safety: the writers only read their input, which may be shared by
 * other readers at the same time; @p fp belongs to the caller.
 */
#ifndef ETPROF_DUMP_H
#define ETPROF_DUMP_H

#include <stdio.h>

#include "etprof/error.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/program.h"
#include "etprof/vgf.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Write the whole file to @p fp as JSON shaped like
 * `flatc --json --strict-json --defaults-json` output (same names, enum
 * names, defaults shown); numbers are exact. Returns ETP_OK, or ETP_E_IO
 * (a write or flush on @p fp failed; the message has the system's reason)
 * or ETP_E_NOMEM, with @p err naming the dump. What was written before a
 * failure stays written.
 */
etp_status etp_etdump_write_json(const etp_etdump *d, FILE *fp, int pretty, etp_error *err);

/**
 * Write the file as JSON shaped like flatc --strict-json --defaults-json
 * output for its schema (for a .bpte: the bundled schema, whose `program`
 * is a byte vector, as flatc prints it). Returns ETP_OK, or ETP_E_IO (a
 * write or flush on @p fp failed; the message has the system's reason) or
 * ETP_E_NOMEM, with @p err naming the program. What was written before a
 * failure stays written.
 */
etp_status etp_program_write_json(const etp_program *p, FILE *fp, int pretty, etp_error *err);

/**
 * Write a normalized JSON document of everything read (entries, layout,
 * programs with nodes, the maps; absent maps as null, empty ones as {}) to
 * @p fp. Output is deterministic. Returns ETP_OK, or ETP_E_IO (a write or
 * flush on @p fp failed; the message has the system's reason) or
 * ETP_E_NOMEM, with @p err naming the record. What was written before a
 * failure stays written.
 */
etp_status etp_etrecord_write_json(const etp_etrecord *r, FILE *fp, int pretty, etp_error *err);

/**
 * Write the whole decode as JSON: the header; "modules", "sequence",
 * "resources" (and a legacy "constants" section) exactly as flatc
 * --strict-json --defaults-json decodes those sections with schemas/flatbuffers/vgf.fbs;
 * the raw constants' records; and per module its SPIR-V graphs with every
 * op (result id, opcode, name, result type, operands).
 * @return ETP_OK, ETP_E_IO (writing failed)
 */
etp_status etp_vgf_write_json(const etp_vgf *v, FILE *fp, int pretty, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
