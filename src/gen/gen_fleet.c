/* gen_fleet.c - the plan of a synthetic device-farm history: models,
 * devices, noise, injected regressions and each run's identity. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/gen_fleet.h"
#include "gen/gen_series.h"
#include "gen/gen_util.h"

/* Models that differ in size, delegate pattern and backend, so that each
 * has its own program digest and its own timing profile. */
static const struct {
    const char *name;
    uint32_t instructions, delegate_every;
    etp_gen_backend backend;
} MODELS[] = {
    {"cnn-small", 40, 5, ETP_GEN_XNNPACK},   {"cnn-vulkan", 80, 4, ETP_GEN_VULKAN},
    {"cnn-medium", 150, 10, ETP_GEN_XNNPACK}, {"cnn-portable", 60, 0, ETP_GEN_XNNPACK},
    {"cnn-large", 400, 8, ETP_GEN_VULKAN},   {"cnn-wide", 250, 3, ETP_GEN_XNNPACK},
};

/* Devices of a farm with rough relative speeds (time factors: 2 is twice
 * as slow as the reference phone). */
static const struct {
    const char *name;
    double speed;
} DEVICES[] = {
    {"pixel7", 1.0},     {"galaxy-s24", 0.72}, {"rpi5", 2.6},      {"jetson-orin", 0.55},
    {"pixel6a", 1.35},   {"moto-g54", 1.9},    {"oneplus12", 0.78}, {"rpi4", 4.1},
};

#define NMODELS (sizeof MODELS / sizeof MODELS[0])
#define NDEVICES (sizeof DEVICES / sizeof DEVICES[0])

/* 2026-01-01T00:00:00Z in seconds since 1970 (GEN_FLEET_BASE_TIME). */
#define BASE_EPOCH 1767225600ll

/* A stream for one purpose (@p tag) of one run: every coordinate mixed in
 * through splitmix64, so neighbouring runs share nothing. */
static gen_rng run_stream(uint64_t seed, uint32_t m, uint32_t d, uint32_t r, uint64_t tag)
{
    gen_rng g = gen_rng_make(seed, tag);
    const uint64_t coord[3] = {m, d, r};
    for (int i = 0; i < 3; i++) {
        g.s ^= coord[i] * 0x9e3779b97f4a7c15ull + (uint64_t)i;
        (void)gen_next(&g);
    }
    return g;
}

etp_status gen_fleet_init(gen_fleet_plan *p, uint32_t models, uint32_t devices, uint32_t runs,
                          uint32_t executions, double noise_pct, uint64_t seed, etp_error *err)
{
    memset(p, 0, sizeof *p);
    if (models < 1 || models > GEN_FLEET_MAX_MODELS)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "--models needs 1..%d, got %u",
                             GEN_FLEET_MAX_MODELS, models);
    if (devices < 1 || devices > GEN_FLEET_MAX_DEVICES)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "--devices needs 1..%d, got %u",
                             GEN_FLEET_MAX_DEVICES, devices);
    if (runs < 1 || runs > GEN_FLEET_MAX_RUNS)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "--runs needs 1..%u, got %u",
                             GEN_FLEET_MAX_RUNS, runs);
    if (executions < 1 || executions > 100000)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--executions needs 1..100000, got %u", executions);
    if (!(noise_pct >= 0 && noise_pct <= GEN_FLEET_MAX_NOISE_PCT))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--noise needs a percentage from 0 to %g", GEN_FLEET_MAX_NOISE_PCT);
    p->model_count = models;
    p->device_count = devices;
    p->runs = runs;
    p->executions = executions;
    p->noise_pct = noise_pct;
    p->seed = seed;
    for (uint32_t m = 0; m < models; m++) {
        gen_fleet_model *md = &p->models[m];
        if (m < NMODELS) {
            snprintf(md->name, sizeof md->name, "%s", MODELS[m].name);
            md->instructions = MODELS[m].instructions;
            md->delegate_every = MODELS[m].delegate_every;
            md->backend = MODELS[m].backend;
        } else { /* beyond the table: sizes and patterns cycle */
            snprintf(md->name, sizeof md->name, "model-%u", m + 1);
            md->instructions = 30 + 20 * (m % 10);
            md->delegate_every = m % 7;
            md->backend = m % 2 ? ETP_GEN_VULKAN : ETP_GEN_XNNPACK;
        }
        gen_rng g = run_stream(seed, m, 0, 0, 0x4d4f44454cull); /* "MODEL" */
        md->seed = gen_next(&g);
    }
    for (uint32_t d = 0; d < devices; d++) {
        gen_fleet_device *dv = &p->devices[d];
        if (d < NDEVICES) {
            snprintf(dv->name, sizeof dv->name, "%s", DEVICES[d].name);
            dv->speed = DEVICES[d].speed;
        } else {
            snprintf(dv->name, sizeof dv->name, "device-%u", d + 1);
            dv->speed = 0.5 + 0.25 * (double)(d % 12);
        }
    }
    return ETP_OK;
}

static int has_model(const gen_fleet_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->model_count; i++)
        if (!strcmp(name, p->models[i].name))
            return 1;
    return 0;
}

static int has_device(const gen_fleet_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->device_count; i++)
        if (!strcmp(name, p->devices[i].name))
            return 1;
    return 0;
}

etp_status gen_fleet_add_injection(gen_fleet_plan *p, const char *text, etp_error *err)
{
    if (p->injection_count >= GEN_FLEET_MAX_INJECTIONS)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "at most %d --inject",
                             GEN_FLEET_MAX_INJECTIONS);
    gen_fleet_injection in;
    memset(&in, 0, sizeof in);
    const char *at = strrchr(text, '@');
    if (!at || strlen(text) >= sizeof in.text)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--inject needs SERIES@RUN:FACTOR (SERIES: DEVICE, MODEL/DEVICE or *), "
                             "got '%s'",
                             text);
    snprintf(in.text, sizeof in.text, "%s", text);
    /* The series: "*", "DEVICE", "MODEL/DEVICE" or MODEL/ then "*". */
    size_t slen = (size_t)(at - text);
    char series[sizeof in.text];
    memcpy(series, text, slen);
    series[slen] = '\0';
    char *slash = strchr(series, '/');
    const char *model = slash ? series : "*", *device = slash ? slash + 1 : series;
    if (slash)
        *slash = '\0';
    if (!*model || !*device || strlen(model) >= GEN_FLEET_NAME_MAX ||
        strlen(device) >= GEN_FLEET_NAME_MAX)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--inject '%s': the series is DEVICE, MODEL/DEVICE or *", text);
    if (strcmp(model, "*")) {
        if (!has_model(p, model))
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "--inject '%s': no model '%s' in this fleet (models: %s%s)", text,
                                 model, p->models[0].name, p->model_count > 1 ? ", ..." : "");
        memcpy(in.model, model, strlen(model) + 1); /* length checked above */
    }
    if (strcmp(device, "*")) {
        if (!has_device(p, device))
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "--inject '%s': no device '%s' in this fleet (devices: %s%s)",
                                 text, device, p->devices[0].name,
                                 p->device_count > 1 ? ", ..." : "");
        memcpy(in.device, device, strlen(device) + 1);
    }
    /* RUN:FACTOR */
    char *end;
    errno = 0;
    unsigned long run = at[1] >= '0' && at[1] <= '9' ? strtoul(at + 1, &end, 10) : ULONG_MAX;
    if (run == ULONG_MAX || errno || *end != ':')
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--inject '%s': RUN is a run number (from 0), then :FACTOR", text);
    if (run >= p->runs)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--inject '%s': run %lu is beyond the %u runs (0..%u)", text, run,
                             p->runs, p->runs - 1);
    const char *f = end + 1;
    in.factor = strtod(f, &end);
    if (end == f || *end || !(in.factor > 0) || in.factor > 1000)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--inject '%s': FACTOR is a number above 0 and at most 1000 "
                             "(1.2: 20%% slower)",
                             text);
    in.run = (uint32_t)run;
    p->injections[p->injection_count++] = in;
    return ETP_OK;
}

int gen_fleet_injection_matches(const gen_fleet_injection *i, const gen_fleet_model *m,
                                const gen_fleet_device *d)
{
    return (!i->model[0] || !strcmp(i->model, m->name)) &&
           (!i->device[0] || !strcmp(i->device, d->name));
}

double gen_fleet_factor(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r,
                        double *injected)
{
    gen_rng g = run_stream(p->seed, m, d, r, 0x4e4f495345ull); /* "NOISE" */
    double noise = 1.0 + p->noise_pct / 100.0 * gen_normal(&g);
    if (noise < 0.5) /* a run is never twice as fast by chance */
        noise = 0.5;
    double inj = 1.0;
    for (uint32_t k = 0; k < p->injection_count; k++) {
        const gen_fleet_injection *in = &p->injections[k];
        if (r >= in->run && gen_fleet_injection_matches(in, &p->models[m], &p->devices[d]))
            inj *= in->factor;
    }
    if (injected)
        *injected = inj;
    return p->devices[d].speed * noise * inj;
}

static void model_opts(const gen_fleet_plan *p, uint32_t m, etp_gen_etdump_opts *o)
{
    const gen_fleet_model *md = &p->models[m];
    etp_gen_etdump_defaults(o);
    o->instructions = md->instructions;
    o->delegate_every = md->delegate_every;
    o->backend = md->backend;
    o->seed = md->seed;
    o->executions = p->executions;
}

etp_status gen_fleet_write_program(const gen_fleet_plan *p, uint32_t m, const char *pte_path,
                                   const char *etrecord_path, const char *etdump_path,
                                   etp_error *err)
{
    etp_gen_etdump_opts o;
    model_opts(p, m, &o);
    o.executions = 1;
    o.etdump_path = etdump_path;
    o.pte_path = pte_path;
    o.etrecord_path = etrecord_path;
    return etp_gen_etdump(&o, NULL, err);
}

etp_status gen_fleet_write_run(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r,
                               const char *etdump_path, etp_error *err)
{
    etp_gen_etdump_opts o;
    model_opts(p, m, &o);
    o.etdump_path = etdump_path;
    o.time_scale = gen_fleet_factor(p, m, d, r, NULL);
    gen_rng g = run_stream(p->seed, m, d, r, 0x54494d45ull); /* "TIME" */
    o.timing_seed = gen_next(&g) | 1; /* 0 would mean "the model's seed" */
    return etp_gen_etdump(&o, NULL, err);
}

const char *gen_fleet_backend_name(const gen_fleet_model *m)
{
    if (!m->delegate_every)
        return "portable";
    return m->backend == ETP_GEN_VULKAN ? "vulkan" : "xnnpack";
}

void gen_fleet_run_id(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r, char out[37])
{
    gen_rng g = run_stream(p->seed, m, d, r, 0x52554e4944ull); /* "RUNID" */
    uint64_t a = gen_next(&g), b = gen_next(&g);
    /* the layout of a version-4 UUID: version nibble 4, variant 10xx */
    snprintf(out, 37, "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
             a >> 32, (a >> 16) & 0xffff, a & 0xfff, (uint64_t)0x8000 | ((b >> 48) & 0x3fff),
             b & (uint64_t)0xffffffffffff);
}

void gen_fleet_commit(const gen_fleet_plan *p, uint32_t r, char out[41])
{
    gen_rng g = run_stream(p->seed, 0, 0, r, 0x434f4d4d4954ull); /* "COMMIT" */
    uint64_t a = gen_next(&g), b = gen_next(&g), c = gen_next(&g);
    snprintf(out, 41, "%016" PRIx64 "%016" PRIx64 "%08" PRIx64, a, b, c >> 32);
}

void gen_fleet_timestamp(uint32_t m, uint32_t d, uint32_t r, char out[32])
{
    time_t t = (time_t)(BASE_EPOCH + (long long)r * 3600 + (long long)d * 60 + (long long)m);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}
