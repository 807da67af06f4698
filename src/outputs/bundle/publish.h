/*
 * publish.h - turn an analysis into a verifiable result bundle: the public
 * declarations are in etprof/publish.h; the schema ids of the artifacts are
 * here.
 */
#ifndef ETP_PUBLISH_H
#define ETP_PUBLISH_H

#include "etprof/publish.h"
#include "outputs/report/analysis_report.h"

/* Bundle artifact schemas (ETP_SUMMARY_SCHEMA: analysis_report.h, where
 * summary.json is written). */
#define ETP_OPERATORS_SCHEMA "etprof.operators"
#define ETP_RUN_METADATA_SCHEMA "etprof.run-metadata"

#endif
