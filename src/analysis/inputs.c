/* inputs.c - open a run's inputs on three threads, report their failures
 * in input order (see etprof/inputs.h). */
#include "etprof/inputs.h"

#include <pthread.h>
#include <stdlib.h>

#include "util/thread.h"

struct etp_inputs {
    etp_etdump *etdump;
    etp_program *program;
    etp_etrecord *etrecord;
    etp_runner_log *runner_log;
    etp_inspect *prepared;
};

/* What one helper thread opens, and how it went. The ETRecord gets a
 * thread of its own because it is usually the longest to read (its JSON);
 * the program and the runner log share the other. */
typedef struct side_inputs {
    const char *pte, *etrecord, *log, *log_name;
    etp_program *p;
    etp_etrecord *r;
    etp_runner_log *lg;
    etp_status status;
    etp_error err;
} side_inputs;

static void *open_program_and_log(void *arg)
{
    side_inputs *s = arg;
    if (s->pte && (s->status = etp_program_open(s->pte, &s->p, &s->err)))
        return NULL;
    if (s->log)
        s->status = etp_runner_log_open_as(s->log, s->log_name, &s->lg, &s->err);
    return NULL;
}

static void *open_etrecord(void *arg)
{
    side_inputs *s = arg;
    if (s->etrecord)
        s->status = etp_etrecord_open(s->etrecord, &s->r, &s->err);
    return NULL;
}

/* Run @p fn on a new thread (*started = 1), or here if none can start. */
static void start_side(pthread_t *th, int *started, void *(*fn)(void *), side_inputs *s)
{
    etp_error_clear(&s->err);
    *started = etp_thread_start(th, fn, s) == 0;
    if (!*started)
        fn(s);
}

etp_status etp_inputs_open(const etp_inputs_spec *spec, etp_inputs **out, etp_error *err)
{
    *out = NULL;
    if (!spec || !spec->etdump)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no ETDump given");
    etp_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return etp_error_set(err, ETP_E_NOMEM, spec->etdump, ETP_NO_OFFSET, "out of memory");
    side_inputs side = {spec->pte, NULL, spec->log, spec->log_name, NULL, NULL, NULL, ETP_OK, {0}};
    side_inputs rec = {NULL, spec->etrecord, NULL, NULL, NULL, NULL, NULL, ETP_OK, {0}};
    pthread_t th, th_rec;
    int threaded = 0, threaded_rec = 0;
    if (spec->etrecord)
        start_side(&th_rec, &threaded_rec, open_etrecord, &rec);
    start_side(&th, &threaded, open_program_and_log, &side);
    /* A deferred open checks the events' tables as they are decoded (one
     * pass over the file instead of two). */
    etp_status ds = spec->verify_etdump ? etp_etdump_open(spec->etdump, &in->etdump, err)
                                        : etp_etdump_open_deferred(spec->etdump, &in->etdump, err);
    /* Decoding and grouping the events needs neither of the other inputs:
     * do it while they load. */
    etp_error perr;
    etp_error_clear(&perr);
    etp_status ps = ETP_OK;
    if (!ds && spec->prepare)
        ps = etp_analyze_prepare(in->etdump, spec->prepare, &in->prepared, &perr);
    if (threaded)
        pthread_join(th, NULL);
    if (threaded_rec)
        pthread_join(th_rec, NULL);
    in->program = side.p;
    in->etrecord = rec.r;
    in->runner_log = side.lg;
    /* Input order: the ETDump, the program, the ETRecord, the runner log,
     * then the grouping. A defect in events not decoded yet still counts as
     * the ETDump's. */
    if (!ds && (side.status || rec.status || ps) && !etp_etdump_verified(in->etdump))
        ds = etp_etdump_verify(in->etdump, err);
    int program_failed = side.status && side.pte && !side.p;
    if (!program_failed && rec.status) { /* the ETRecord comes before the log */
        side.status = rec.status;
        side.err = rec.err;
    }
    etp_status s = ds;
    if (!ds && side.status) {
        if (err)
            *err = side.err;
        s = side.status;
    } else if (!ds && ps) {
        if (err)
            *err = perr;
        s = ps;
    }
    if (s) {
        etp_inputs_free(in);
        return s;
    }
    *out = in;
    return ETP_OK;
}

const etp_etdump *etp_inputs_etdump(const etp_inputs *in) { return in->etdump; }
const etp_program *etp_inputs_program(const etp_inputs *in) { return in->program; }
const etp_etrecord *etp_inputs_etrecord(const etp_inputs *in) { return in->etrecord; }
const etp_runner_log *etp_inputs_runner_log(const etp_inputs *in) { return in->runner_log; }

etp_inspect *etp_inputs_take_prepared(etp_inputs *in)
{
    etp_inspect *p = in->prepared;
    in->prepared = NULL;
    return p;
}

void etp_inputs_free(etp_inputs *in)
{
    if (!in)
        return;
    etp_inspect_free(in->prepared);
    etp_etrecord_free(in->etrecord);
    etp_runner_log_free(in->runner_log);
    etp_program_free(in->program);
    etp_etdump_free(in->etdump);
    free(in);
}
