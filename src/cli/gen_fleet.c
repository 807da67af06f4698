/* gen_fleet.c - `etprof gen fleet -o DIR`: a labelled history of published
 * bundles (models x devices x runs) with known injected regressions, to
 * feed `etprof db ingest` and the trend and regression verbs.
 *
 * The plan (speeds, noise, injections, identities) is src/gen/gen_fleet.c's;
 * here every run is analysed and published exactly as `etprof analyze -o`
 * publishes (etp_analyze, etp_publish: verifiable, labelled in
 * run_metadata.json), then fleet.json records what was made. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/gen_fleet.h"
#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/program.h"
#include "etprof/publish.h"
#include "gen/gen_fleet.h"

/* At most this many --jobs: etp_bundle_abandon_from_signal() covers 8
 * publications at once. */
#define FLEET_MAX_JOBS 8

static void help(void)
{
    printf("usage: etprof gen fleet -o DIR [--runs N] [--devices D] [--models M]\n"
           "                        [--noise PCT] [--inject SERIES@RUN:FACTOR]...\n"
           "                        [--seed S] [--executions R] [--detailed]\n"
           "                        [--model-explorer files|none] [--keep-etdumps]\n"
           "                        [--jobs J] [--quiet]\n\n"
           "A device farm's history to try `etprof db` on: M models (each one program and\n"
           "ETRecord, in DIR/programs/) run N times on each of D devices, every run analysed\n"
           "and published as `etprof analyze -o` does, in DIR/MODEL/DEVICE/run-R/, labelled\n"
           "device, model, backend, branch=main, commit, seq=R and fleet=1. Each run's times\n"
           "are the device's speed x run-to-run noise x the injections in force. Same\n"
           "arguments, same bytes (run ids, commits and publication times are derived from\n"
           "--seed and the run). DIR/fleet.json lists models, devices, series and, per\n"
           "injection, each series it hit with its first slowed run.\n"
           "  -o DIR            the fleet's directory: missing or empty\n"
           "  --runs N          runs per model and device, seq 0..N-1 (default 20)\n"
           "  --devices D       devices (default 3: pixel7, galaxy-s24, rpi5, then jetson-orin,\n"
           "                    pixel6a, moto-g54, oneplus12, rpi4, device-9, ...; at most %d)\n"
           "  --models M        models (default 2: cnn-small, cnn-vulkan, then cnn-medium,\n"
           "                    cnn-portable, cnn-large, cnn-wide, model-7, ...; at most %d)\n"
           "  --noise PCT       run-to-run noise, sigma in %% of the level (default 2)\n"
           "  --inject S@R:F    from run R on, series S takes F times as long (1.2: 20%%\n"
           "                    slower, 0.9: faster); S is DEVICE, MODEL/DEVICE, MODEL/* or *.\n"
           "                    Repeatable; overlapping injections multiply\n"
           "  --seed S          seed of everything drawn (default 1)\n"
           "  --executions R    executions per run (default 5)\n"
           "  --detailed        publish detailed bundles (per-execution samples)\n"
           "  --model-explorer M  files: each bundle gets its model_explorer/ views;\n"
           "                    none (default): left out (they are per program)\n"
           "  --keep-etdumps    keep each run's ETDump in DIR/etdumps/ (default: removed\n"
           "                    once published; the bundles record them by digest)\n"
           "  --jobs J          runs published at once (default 4, at most %d; publishing\n"
           "                    mostly waits for fsync); the bytes do not depend on it\n"
           "  --quiet           print nothing but errors\n",
           GEN_FLEET_MAX_DEVICES, GEN_FLEET_MAX_MODELS, FLEET_MAX_JOBS);
}

typedef struct fleet_opts {
    const char *dir;
    int detailed, model_explorer, keep_etdumps, quiet;
    uint32_t jobs;               /* runs published at once */
} fleet_opts;


/* What fleet.json says of each generated series (model m on device d). */
typedef struct fleet_series {
    char first_run_id[37]; /* the first run any injection slowed ("" : none) */
} fleet_series;

/* ---- the directory ---- */

static int dir_is_empty(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = 0;
    closedir(dp);
    return empty;
}

/* DIR missing (created) or empty; anything else is refused. */
static int prepare_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0)
        return ETP_EXIT_OK;
    if (errno != EEXIST)
        return cli_error("%s: cannot create directory: %s", dir, strerror(errno));
    int empty = dir_is_empty(dir);
    if (empty < 0)
        return cli_error("%s: exists and is not a readable directory", dir);
    if (!empty)
        return cli_error("%s: not empty; a fleet is written into a new or empty directory", dir);
    return ETP_EXIT_OK;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return cli_error("%s: cannot create directory: %s", path, strerror(errno));
    return ETP_EXIT_OK;
}

/* ---- one run ---- */

/* The command a bundle records: the fleet's own options, without -o (the
 * bytes must not depend on where the fleet was written). */
static char *fleet_command(const gen_fleet_plan *p, const fleet_opts *fo)
{
    size_t n = 256 + (size_t)p->injection_count * (sizeof p->injections[0].text + 12);
    char *s = malloc(n);
    if (!s)
        return NULL;
    size_t k = (size_t)snprintf(s, n,
                                "etprof gen fleet --runs %u --devices %u --models %u --noise %g "
                                "--seed %" PRIu64 " --executions %u%s%s",
                                p->runs, p->device_count, p->model_count, p->noise_pct, p->seed,
                                p->executions, fo->detailed ? " --detailed" : "",
                                fo->model_explorer ? " --model-explorer files" : "");
    for (uint32_t i = 0; i < p->injection_count && k < n; i++)
        k += (size_t)snprintf(s + k, n - k, " --inject %s", p->injections[i].text);
    return s;
}

typedef struct model_inputs {
    char pte[GEN_FLEET_NAME_MAX + 32], etrecord[GEN_FLEET_NAME_MAX + 32];
    etp_program *program;
    etp_etrecord *record;
    char program_sha256[65];
} model_inputs;

/* Write run r of model m on device d, analyse it and publish its bundle. */
static int publish_run(const gen_fleet_plan *p, const fleet_opts *fo, const char *command,
                       const model_inputs *mi, uint32_t m, uint32_t d, uint32_t r)
{
    const gen_fleet_model *md = &p->models[m];
    const gen_fleet_device *dv = &p->devices[d];
    char etdump[3 * GEN_FLEET_NAME_MAX + 48], bundle[3 * GEN_FLEET_NAME_MAX + 32];
    snprintf(etdump, sizeof etdump, "etdumps/%s/%s/run-%u.etdp", md->name, dv->name, r);
    snprintf(bundle, sizeof bundle, "%s/%s/run-%u", md->name, dv->name, r);
    etp_error err;
    etp_error_clear(&err);
    etp_status st = gen_fleet_write_run(p, m, d, r, etdump, &err);
    if (st)
        return cli_fail_status(st, &err);

    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    opt.source_unit = ETP_UNIT_NS; /* the generator writes nanoseconds and says so */
    opt.source_unit_given = 1;
    opt.hash_program = 1;
    etp_etdump *dump = NULL;
    etp_analysis *a = NULL;
    char *options_json = NULL;
    int rc = ETP_EXIT_OK;
    st = etp_etdump_open(etdump, &dump, &err);
    if (!st)
        st = etp_analyze(dump, mi->program, mi->record, &opt, &a, &err);
    if (st) {
        rc = cli_fail_status(st, &err);
        goto done;
    }

    char run_id[37], commit[41], timestamp[32], seq[16];
    gen_fleet_run_id(p, m, d, r, run_id);
    gen_fleet_commit(p, r, commit);
    gen_fleet_timestamp(m, d, r, timestamp);
    snprintf(seq, sizeof seq, "%u", r);
    const char *keys[] = {"backend", "branch", "commit", "device", "fleet", "model", "seq"};
    const char *values[] = {gen_fleet_backend_name(md), "main", commit, dv->name, "1", md->name, seq};

    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.dir = bundle;
    po.operators_csv = 1;
    po.detailed = fo->detailed;
    po.model_explorer = fo->model_explorer;
    po.command_line = command;
    options_json = etp_analysis_options_json(&opt, &po, 0);
    po.options_json = options_json;
    po.etdump_path = etdump;
    po.pte_path = mi->pte;
    po.etrecord_path = mi->etrecord;
    po.run_id = run_id;
    po.timestamp = timestamp;
    po.label_keys = keys;
    po.label_values = values;
    po.label_count = (uint32_t)(sizeof keys / sizeof keys[0]);
    if (!options_json) {
        etp_error_set(&err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        rc = cli_fail(&err);
    } else if ((st = etp_publish(a, &po, NULL, &err))) {
        rc = cli_fail_status(st, &err);
    }
done:
    free(options_json);
    etp_analysis_free(a);
    etp_etdump_free(dump);
    if (!fo->keep_etdumps && unlink(etdump) != 0 && rc == ETP_EXIT_OK)
        rc = cli_error("%s: cannot remove: %s", etdump, strerror(errno));
    return rc;
}

/* ---- the runs of one model, on --jobs threads ---- */

/* Publishing is mostly waiting for fsync, so a few runs at once pay even on
 * few cores; each bundle is a pure function of its run, so the order the
 * threads take them in changes no byte. */
typedef struct run_queue {
    const gen_fleet_plan *p;
    const fleet_opts *fo;
    const char *command;
    const model_inputs *mi;
    uint32_t m;
    atomic_uint next;            /* next run index: d * runs + r */
    atomic_int rc;               /* the first failure's exit status */
} run_queue;

static void *run_worker(void *arg)
{
    run_queue *q = arg;
    uint32_t total = q->p->device_count * q->p->runs;
    for (;;) {
        uint32_t i = atomic_fetch_add(&q->next, 1);
        if (i >= total || atomic_load(&q->rc) != ETP_EXIT_OK)
            break;
        int rc = publish_run(q->p, q->fo, q->command, q->mi, q->m, i / q->p->runs, i % q->p->runs);
        if (rc) {
            int none = ETP_EXIT_OK;
            atomic_compare_exchange_strong(&q->rc, &none, rc);
        }
    }
    return NULL;
}

static int publish_model_runs(const gen_fleet_plan *p, const fleet_opts *fo, const char *command,
                              const model_inputs *mi, uint32_t m)
{
    run_queue q = {p, fo, command, mi, m, 0, ETP_EXIT_OK};
    pthread_t threads[FLEET_MAX_JOBS];
    uint32_t started = 0;
    while (started + 1 < fo->jobs && pthread_create(&threads[started], NULL, run_worker, &q) == 0)
        started++;
    run_worker(&q); /* the caller is a worker too (and the only one if none started) */
    for (uint32_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return atomic_load(&q.rc);
}

/* ---- a model: its program, then every run on every device ---- */

static int open_model(const gen_fleet_plan *p, uint32_t m, model_inputs *mi)
{
    const char *name = p->models[m].name;
    snprintf(mi->pte, sizeof mi->pte, "programs/%s.pte", name);
    snprintf(mi->etrecord, sizeof mi->etrecord, "programs/%s.etrecord", name);
    char scratch[GEN_FLEET_NAME_MAX + 32];
    snprintf(scratch, sizeof scratch, "programs/%s.etdp", name);
    etp_error err;
    etp_error_clear(&err);
    etp_status st = gen_fleet_write_program(p, m, mi->pte, mi->etrecord, scratch, &err);
    /* only the program and ETRecord are wanted; the ETDump was a by-product */
    if (!st && unlink(scratch) != 0)
        return cli_error("%s: cannot remove: %s", scratch, strerror(errno));
    if (!st)
        st = etp_program_open(mi->pte, &mi->program, &err);
    if (!st)
        st = etp_etrecord_open(mi->etrecord, &mi->record, &err);
    if (!st)
        st = etp_program_sha256(mi->program, mi->program_sha256, &err);
    return st ? cli_fail_status(st, &err) : ETP_EXIT_OK;
}

static void close_model(model_inputs *mi)
{
    etp_program_free(mi->program);
    etp_etrecord_free(mi->record);
    mi->program = NULL;
    mi->record = NULL;
}

/* ---- fleet.json ---- */

/* The store's default series key of model m on device d (etprof db: program
 * digest x method x device label, and the unit). */
static json_t *series_key(const model_inputs *mi, const gen_fleet_device *dv)
{
    return json_sprintf("program=%s|method=forward|device=%s|unit=ms", mi->program_sha256,
                        dv->name);
}

static json_t *first_run(const gen_fleet_plan *p, uint32_t m, uint32_t d, uint32_t r)
{
    char run_id[37], commit[41], timestamp[32], bundle[3 * GEN_FLEET_NAME_MAX + 32];
    gen_fleet_run_id(p, m, d, r, run_id);
    gen_fleet_commit(p, r, commit);
    gen_fleet_timestamp(m, d, r, timestamp);
    snprintf(bundle, sizeof bundle, "%s/%s/run-%u", p->models[m].name, p->devices[d].name, r);
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "seq", (json_int_t)r, "run_id", run_id,
                     "commit", commit, "published", timestamp, "bundle", bundle);
}

/* The first run of model m on device d that an injection slowed, or -1. */
static int64_t first_injected(const gen_fleet_plan *p, uint32_t m, uint32_t d)
{
    int64_t first = -1;
    for (uint32_t k = 0; k < p->injection_count; k++) {
        const gen_fleet_injection *in = &p->injections[k];
        if (in->factor != 1.0 && gen_fleet_injection_matches(in, &p->models[m], &p->devices[d]) &&
            (first < 0 || in->run < first))
            first = in->run;
    }
    return first;
}

static json_t *manifest(const gen_fleet_plan *p, const fleet_opts *fo, const model_inputs *mis)
{
    json_t *root = json_pack(
        "{s:s, s:i, s:I, s:I, s:f, s:b, s:b, s:s, s:s, s:s, s:I, s:{s:s, s:s}}", "schema",
        "etprof.fleet", "schema_version", 1, "runs", (json_int_t)p->runs, "executions",
        (json_int_t)p->executions, "noise_pct", p->noise_pct, "detailed", fo->detailed,
        "model_explorer", fo->model_explorer, "base_time", GEN_FLEET_BASE_TIME, "method",
        "forward", "unit", "ms", "bundles",
        (json_int_t)p->runs * p->device_count * p->model_count, "labels", "branch", "main",
        "fleet", "1");
    json_t *models = json_array(), *devices = json_array(), *series = json_array(),
           *injections = json_array();
    if (!root || !models || !devices || !series || !injections) {
        json_decref(models), json_decref(devices), json_decref(series), json_decref(injections);
        json_decref(root);
        return NULL;
    }
    /* the seed as given: an integer where JSON's int64 holds it */
    json_object_set_new(root, "seed", p->seed <= INT64_MAX ? json_integer((json_int_t)p->seed)
                                                           : json_sprintf("%" PRIu64, p->seed));
    json_object_set_new(root, "models", models);
    json_object_set_new(root, "devices", devices);
    json_object_set_new(root, "series", series);
    json_object_set_new(root, "injections", injections);
    for (uint32_t m = 0; m < p->model_count; m++) {
        const gen_fleet_model *md = &p->models[m];
        json_array_append_new(
            models, json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:s}", "name", md->name, "backend",
                              gen_fleet_backend_name(md), "instructions",
                              (json_int_t)md->instructions, "delegate_every",
                              (json_int_t)md->delegate_every, "program", mis[m].pte,
                              "program_sha256", mis[m].program_sha256, "etrecord",
                              mis[m].etrecord));
    }
    for (uint32_t d = 0; d < p->device_count; d++)
        json_array_append_new(devices, json_pack("{s:s, s:f}", "name", p->devices[d].name,
                                                 "speed", p->devices[d].speed));
    for (uint32_t m = 0; m < p->model_count; m++) {
        for (uint32_t d = 0; d < p->device_count; d++) {
            double injected;
            gen_fleet_factor(p, m, d, p->runs - 1, &injected);
            int64_t first = first_injected(p, m, d);
            char dir[2 * GEN_FLEET_NAME_MAX + 2];
            snprintf(dir, sizeof dir, "%s/%s", p->models[m].name, p->devices[d].name);
            json_array_append_new(
                series, json_pack("{s:o, s:s, s:s, s:s, s:f, s:o}", "key",
                                  series_key(&mis[m], &p->devices[d]), "model", p->models[m].name,
                                  "device", p->devices[d].name, "bundles", dir,
                                  "injected_factor_at_last_run", injected, "first_injected_run",
                                  first < 0 ? json_null() : first_run(p, m, d, (uint32_t)first)));
        }
    }
    for (uint32_t k = 0; k < p->injection_count; k++) {
        const gen_fleet_injection *in = &p->injections[k];
        json_t *hit = json_array();
        for (uint32_t m = 0; m < p->model_count; m++)
            for (uint32_t d = 0; d < p->device_count; d++)
                if (gen_fleet_injection_matches(in, &p->models[m], &p->devices[d]))
                    json_array_append_new(
                        hit, json_pack("{s:s, s:s, s:o, s:o}", "model", p->models[m].name,
                                       "device", p->devices[d].name, "key",
                                       series_key(&mis[m], &p->devices[d]), "first_run",
                                       first_run(p, m, d, in->run)));
        json_array_append_new(
            injections, json_pack("{s:s, s:s, s:s, s:I, s:f, s:o}", "spec", in->text, "model",
                                  in->model[0] ? in->model : "*", "device",
                                  in->device[0] ? in->device : "*", "run", (json_int_t)in->run,
                                  "factor", in->factor, "affected", hit));
    }
    return root;
}

static etp_status fill_manifest(FILE *fp, void *ctx, etp_error *err)
{
    (void)err;
    /* 15 digits: 0.72 stays 0.72; sorted keys: the same bytes every time */
    if (json_dumpf((const json_t *)ctx, fp, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)))
        return ETP_E_IO;
    return fputc('\n', fp) == EOF ? ETP_E_IO : ETP_OK;
}

/* ---- the command ---- */

static int parse_count_opt(const char *opt, const char *val, uint32_t lo, uint32_t hi, uint32_t *out)
{
    long long v = cli_parse_count(val);
    if (v < (long long)lo || v > (long long)hi)
        return cli_usage("gen", "%s needs %u..%u, got '%s'", opt, lo, hi, val);
    *out = (uint32_t)v;
    return ETP_EXIT_OK;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Remove the emptied etdumps/ tree (each run's file went once published). */
static void remove_etdump_dirs(const gen_fleet_plan *p)
{
    char path[2 * GEN_FLEET_NAME_MAX + 16];
    for (uint32_t m = 0; m < p->model_count; m++) {
        for (uint32_t d = 0; d < p->device_count; d++) {
            snprintf(path, sizeof path, "etdumps/%s/%s", p->models[m].name, p->devices[d].name);
            rmdir(path);
        }
        snprintf(path, sizeof path, "etdumps/%s", p->models[m].name);
        rmdir(path);
    }
    rmdir("etdumps");
}

static int generate(const gen_fleet_plan *p, const fleet_opts *fo)
{
    /* Everything below is written relative to DIR, so that no recorded path
     * (inputs in run_metadata.json) depends on where the fleet is. */
    if (chdir(fo->dir) != 0)
        return cli_error("%s: cannot enter directory: %s", fo->dir, strerror(errno));
    int rc = make_dir("programs");
    for (uint32_t m = 0; !rc && m < p->model_count; m++) {
        char path[2 * GEN_FLEET_NAME_MAX + 16];
        snprintf(path, sizeof path, "etdumps/%s", p->models[m].name);
        rc = make_dir("etdumps");
        if (!rc)
            rc = make_dir(path);
        if (!rc)
            rc = make_dir(p->models[m].name);
        /* every directory made before the threads start: none races to */
        for (uint32_t d = 0; !rc && d < p->device_count; d++) {
            snprintf(path, sizeof path, "etdumps/%s/%s", p->models[m].name, p->devices[d].name);
            rc = make_dir(path);
            snprintf(path, sizeof path, "%s/%s", p->models[m].name, p->devices[d].name);
            if (!rc)
                rc = make_dir(path);
        }
    }
    if (rc)
        return rc;
    char *command = fleet_command(p, fo);
    model_inputs *mis = calloc(p->model_count, sizeof *mis);
    if (!command || !mis) {
        free(command);
        free(mis);
        return cli_error("out of memory");
    }
    for (uint32_t m = 0; !rc && m < p->model_count; m++) {
        rc = open_model(p, m, &mis[m]);
        if (!rc)
            rc = publish_model_runs(p, fo, command, &mis[m], m);
        close_model(&mis[m]);
    }
    if (!rc && !fo->keep_etdumps)
        remove_etdump_dirs(p);
    if (!rc) {
        json_t *doc = manifest(p, fo, mis);
        rc = doc ? cli_write_atomic("fleet.json", fill_manifest, doc) : cli_error("out of memory");
        json_decref(doc);
    }
    free(command);
    free(mis);
    return rc;
}

int cli_gen_fleet(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},    {"runs", required_argument, NULL, 'n'},
        {"devices", required_argument, NULL, 'd'},   {"models", required_argument, NULL, 'm'},
        {"noise", required_argument, NULL, 'N'},     {"inject", required_argument, NULL, 'i'},
        {"seed", required_argument, NULL, 's'},      {"executions", required_argument, NULL, 'r'},
        {"detailed", no_argument, NULL, 'D'},        {"model-explorer", required_argument, NULL, 'M'},
        {"keep-etdumps", no_argument, NULL, 'K'},    {"quiet", no_argument, NULL, 'q'},
        {"jobs", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    fleet_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.jobs = 4;
    uint32_t runs = 20, devices = 3, models = 2, executions = 5, ninject = 0;
    double noise = 2.0;
    uint64_t seed = 1;
    const char *inject[GEN_FLEET_MAX_INJECTIONS];
    int c, bad = ETP_EXIT_OK;
    optind = 1;
    while (!bad && (c = getopt_long(argc, argv, "o:hq", opts, NULL)) != -1) {
        switch (c) {
        case 'o': fo.dir = optarg; break;
        case 'n': bad = parse_count_opt("--runs", optarg, 1, GEN_FLEET_MAX_RUNS, &runs); break;
        case 'd': bad = parse_count_opt("--devices", optarg, 1, GEN_FLEET_MAX_DEVICES, &devices); break;
        case 'm': bad = parse_count_opt("--models", optarg, 1, GEN_FLEET_MAX_MODELS, &models); break;
        case 'r': bad = parse_count_opt("--executions", optarg, 1, 100000, &executions); break;
        case 'N': {
            char *end;
            noise = strtod(optarg, &end);
            if (end == optarg || *end || !(noise >= 0 && noise <= GEN_FLEET_MAX_NOISE_PCT))
                bad = cli_usage("gen", "--noise needs a percentage from 0 to %g, got '%s'",
                                GEN_FLEET_MAX_NOISE_PCT, optarg);
            break;
        }
        case 'i':
            if (ninject == GEN_FLEET_MAX_INJECTIONS)
                bad = cli_usage("gen", "at most %d --inject", GEN_FLEET_MAX_INJECTIONS);
            else
                inject[ninject++] = optarg;
            break;
        case 's': {
            char *end;
            errno = 0;
            seed = strtoull(optarg, &end, 10);
            if (!*optarg || *optarg == '-' || *end || errno)
                bad = cli_usage("gen", "--seed needs a non-negative integer, got '%s'", optarg);
            break;
        }
        case 'D': fo.detailed = 1; break;
        case 'M':
            if (strcmp(optarg, "files") && strcmp(optarg, "none"))
                bad = cli_usage("gen", "--model-explorer is files or none, got '%s'", optarg);
            fo.model_explorer = !strcmp(optarg, "files");
            break;
        case 'K': fo.keep_etdumps = 1; break;
        case 'j': bad = parse_count_opt("--jobs", optarg, 1, FLEET_MAX_JOBS, &fo.jobs); break;
        case 'q': fo.quiet = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("gen", argv);
        }
    }
    if (bad)
        return bad;
    if (optind != argc)
        return cli_usage("gen", "unexpected argument '%s'", argv[optind]);
    if (!fo.dir)
        return cli_usage("gen", "gen fleet needs -o DIR");
    gen_fleet_plan *p = malloc(sizeof *p);
    if (!p)
        return cli_error("out of memory");
    etp_error err;
    etp_error_clear(&err);
    etp_status st = gen_fleet_init(p, models, devices, runs, executions, noise, seed, &err);
    for (uint32_t i = 0; !st && i < ninject; i++)
        st = gen_fleet_add_injection(p, inject[i], &err);
    int rc = st ? cli_usage("gen", "%s", err.message) : prepare_dir(fo.dir);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!rc)
        rc = generate(p, &fo);
    if (!rc && !fo.quiet) {
        double s = seconds_since(&t0);
        uint64_t n = (uint64_t)runs * devices * models;
        printf("fleet %s: %u models x %u devices x %u runs = %" PRIu64
               " bundles, %u injection%s (fleet.json); %.2f s, %.0f bundles/s\n",
               fo.dir, models, devices, runs, n, p->injection_count,
               p->injection_count == 1 ? "" : "s", s, s > 0 ? (double)n / s : 0.0);
    }
    free(p);
    return rc;
}
