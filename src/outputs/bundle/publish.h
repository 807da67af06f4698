/*
 * publish.h - turn an analysis into a verifiable result bundle: the public
 * declarations are in etprof/publish.h; the schema ids of the artifacts are
 * here.
 */
#ifndef ETP_PUBLISH_H
#define ETP_PUBLISH_H

#include "etprof/publish.h"

/* Bundle artifact schemas. */
#define ETP_SUMMARY_SCHEMA "etprof.summary"
#define ETP_OPERATORS_SCHEMA "etprof.operators"
#define ETP_RUN_METADATA_SCHEMA "etprof.run-metadata"

#endif
