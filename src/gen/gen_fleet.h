/* gen_fleet.h - the plan of a synthetic device-farm history (`etprof gen
 * fleet`): M models, each one program + ETRecord, run N times on each of D
 * devices, every run's durations scaled by the device's speed, run-to-run
 * noise and the injected regressions in force at that run; plus the labels
 * and the fixed identity (run id, publication time, commit) of each run.
 *
 * Everything is a pure function of the plan (splitmix64 streams, no clock),
 * so the same options give the same fleet byte for byte. Analysing and
 * publishing the runs is the caller's (src/cli/gen_fleet.c): this layer
 * writes only the input files.
 *
 * A plan is a plain value filled by gen_fleet_init() and
 * gen_fleet_add_injection(); nothing in it needs freeing. Thread safety:
 * the functions only read the plan, so calls for different runs may run at
 * once once it is complete. */
#ifndef ETP_GEN_FLEET_H
#define ETP_GEN_FLEET_H

#include <stdint.h>

#include "etprof/error.h"
#include "etprof/gen.h"

/* At most 48 of each, so that d minutes + m seconds stay inside the hour
 * between two runs and no two runs share a publication time. */
#define GEN_FLEET_MAX_MODELS 48
#define GEN_FLEET_MAX_DEVICES 48
#define GEN_FLEET_MAX_RUNS 100000u
#define GEN_FLEET_MAX_INJECTIONS 64
#define GEN_FLEET_MAX_NOISE_PCT 50.0
#define GEN_FLEET_NAME_MAX 32

/* The first publication time: every run is published r hours, d minutes
 * and m seconds after it (run r, device d, model m). */
#define GEN_FLEET_BASE_TIME "2026-01-01T00:00:00.000Z"

typedef struct gen_fleet_model {
    char name[GEN_FLEET_NAME_MAX]; /* "cnn-small": directory and `model` label */
    uint32_t instructions;
    uint32_t delegate_every;       /* 0: no delegate (backend "portable") */
    etp_gen_backend backend;
    uint64_t seed;                 /* the program's own seed */
} gen_fleet_model;

typedef struct gen_fleet_device {
    char name[GEN_FLEET_NAME_MAX]; /* "pixel7": directory and `device` label */
    double speed;                  /* time factor against the reference device (1) */
} gen_fleet_device;

/* From run @p run on, the matching series' times are multiplied by
 * @p factor. A series matches when its model and device match (NULL: any). */
typedef struct gen_fleet_injection {
    char text[2 * GEN_FLEET_NAME_MAX + 48]; /* as given: "pixel7@8:1.3" */
    char model[GEN_FLEET_NAME_MAX];         /* "" : every model */
    char device[GEN_FLEET_NAME_MAX];        /* "" : every device */
    uint32_t run;
    double factor;
} gen_fleet_injection;

typedef struct gen_fleet_plan {
    uint32_t model_count, device_count, runs;
    uint32_t executions;           /* Execute blocks per ETDump */
    double noise_pct;              /* run-to-run sigma, % of the level */
    uint64_t seed;
    gen_fleet_model models[GEN_FLEET_MAX_MODELS];
    gen_fleet_device devices[GEN_FLEET_MAX_DEVICES];
    uint32_t injection_count;
    gen_fleet_injection injections[GEN_FLEET_MAX_INJECTIONS];
} gen_fleet_plan;

/* Fill @p p for @p models x @p devices x @p runs (names and speeds from
 * fixed tables, numbered beyond them). ETP_OK, or ETP_E_USAGE with a
 * one-line reason in @p err for a count or noise out of range. */
etp_status gen_fleet_init(gen_fleet_plan *p, uint32_t models, uint32_t devices, uint32_t runs,
                          uint32_t executions, double noise_pct, uint64_t seed, etp_error *err);

/* Parse and add "SERIES@RUN:FACTOR" (SERIES: DEVICE, MODEL/DEVICE, "*" for
 * every series, or MODEL/ followed by "*"), checked against the plan's models, devices and runs: ETP_OK or
 * ETP_E_USAGE with the reason in @p err. */
etp_status gen_fleet_add_injection(gen_fleet_plan *p, const char *text, etp_error *err);

/* Whether injection @p i applies to model @p m on device @p d at some run. */
int gen_fleet_injection_matches(const gen_fleet_injection *i, const gen_fleet_model *m,
                                const gen_fleet_device *d);

/* The time factor of run @p r of model @p m on device @p d: the device's
 * speed x (1 + noise) x every injection in force. *@p injected (optional)
 * receives the product of the injections alone. */
double gen_fleet_factor(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r,
                        double *injected);

/* "programs/NAME" paths are the caller's; these write the files. The
 * program and ETRecord of model @p m (@p etdump_path receives a throwaway
 * ETDump the generator needs); then run @p r of it on device @p d. */
etp_status gen_fleet_write_program(const gen_fleet_plan *p, uint32_t m, const char *pte_path,
                                   const char *etrecord_path, const char *etdump_path,
                                   etp_error *err);
etp_status gen_fleet_write_run(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r,
                               const char *etdump_path, etp_error *err);

/* The backend label of a model: "xnnpack", "vulkan" or "portable". */
const char *gen_fleet_backend_name(const gen_fleet_model *m);

/* Identity of run r of model m on device d: a UUID (version 4 layout) from
 * (seed, m, d, r); the commit every device and model ran at seq r (40 hex
 * digits from (seed, r)); the publication time (GEN_FLEET_BASE_TIME + r h +
 * d min + m s, "YYYY-MM-DDTHH:MM:SS.000Z"). */
void gen_fleet_run_id(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r, char out[37]);
void gen_fleet_commit(const gen_fleet_plan *p, uint32_t r, char out[41]);
void gen_fleet_timestamp(uint32_t m, uint32_t d, uint32_t r, char out[32]);

#endif
