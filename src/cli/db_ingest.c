/* db_ingest.c - `etprof db ingest BUNDLE|DIR...`: find the bundles, verify
 * and read each (on --jobs threads), store each in its own transaction, in
 * the order found. A bundle that does not verify is refused by name and the
 * others still go in; the exit status says whether any was refused. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "etprof/bundle_read.h"
#include "util/jsonw.h"
#include "util/str.h"

static void help(void)
{
    printf("usage: etprof db ingest [--db TARGET] BUNDLE|DIR... [--label KEY=VALUE]...\n"
           "                        [--jobs N] [--json] [--quiet]\n\n"
           "Store published result bundles in the run history. A directory holding\n"
           "result_manifest.json is a bundle; any other directory is searched for bundles\n"
           "(symlinks are not followed). Each bundle is verified first (every artifact's\n"
           "size and SHA-256): one that does not verify, or is not published, is refused\n"
           "by name and the others still go in. Each bundle is one transaction; a bundle\n"
           "stored before (same result_manifest.json digest) changes nothing.\n\n"
           "  --db TARGET     SQLite file (created when missing) or postgresql://... URL;\n"
           "                  default $ETPROF_DB. An older schema is migrated first\n"
           "  --label K=V     add or override a label for this ingest only (the bundles\n"
           "                  are not changed); repeatable\n"
           "  --jobs N        verify and read N bundles at once (default: the CPUs\n"
           "                  online, at most 8); they are stored in the order found\n"
           "  --json          one JSON document: each bundle's status, run and digest\n"
           "  --quiet         print nothing but errors\n\n"
           "Exit status: 0 every bundle stored (or already there), 1 a bundle refused or\n"
           "a database error, 2 usage.\n");
}

/* ---- finding bundles ----------------------------------------------------- */

typedef struct found {
    char *path;
    const char *refused;          /* static reason, or NULL for a bundle to load */
} found;

typedef struct found_list {
    found *v;
    size_t n, cap;
} found_list;

static int add_found(found_list *l, const char *path, const char *refused)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        found *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n].path = etp_strdup(path)))
        return -1;
    l->v[l->n++].refused = refused;
    return 0;
}

static int has_file(const char *dir, const char *name)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The bundles under @p dir, in name order; 0, or -1 when out of memory. */
static int walk(const char *dir, int depth, found_list *l)
{
    if (has_file(dir, ETP_BUNDLE_MANIFEST))
        return add_found(l, dir, NULL);
    if (has_file(dir, ETP_BUNDLE_MANIFEST_TMP))
        return add_found(l, dir, "not published (only a temporary manifest: the publication "
                                 "did not finish)");
    if (depth > 32)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        /* '.', '..', hidden entries (a publication's staging directory) */
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        if (!(names[n] = etp_strdup(e->d_name)))
            rc = -1;
        else
            n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (!rc && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rc = walk(p, depth + 1, l);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int find_bundles(char **args, int n, found_list *l)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        size_t before = l->n;
        int rc = 0;
        if (stat(args[i], &st) != 0)
            rc = add_found(l, args[i], "cannot be read (no such directory)");
        else if (!S_ISDIR(st.st_mode))
            rc = add_found(l, args[i], "not a directory (a bundle is a directory)");
        else if ((rc = walk(args[i], 0, l)) == 0 && l->n == before)
            rc = add_found(l, args[i], "not published: no result_manifest.json in it or below it");
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- loading on threads ---------------------------------------------------- */

typedef struct slot {
    etp_store_bundle *bundle;
    etp_status status;
    etp_error err;
    int done;
} slot;

typedef struct loader {
    const found_list *found;
    const etp_history_label *extra;
    uint32_t extra_count;
    slot *slots;
    size_t next;                  /* next item to claim */
    size_t consumed;              /* items the storing thread has taken */
    size_t window;                /* how far loading may run ahead of storing */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} loader;

static void load_one(loader *L, size_t i)
{
    slot *s = &L->slots[i];
    etp_error_clear(&s->err);
    if (L->found->v[i].refused)
        s->status = ETP_E_FORMAT;
    else
        s->status = etp_store_bundle_load(L->found->v[i].path, L->extra, L->extra_count, &s->bundle,
                                          &s->err);
}

static void *worker(void *arg)
{
    loader *L = arg;
    pthread_mutex_lock(&L->mu);
    for (;;) {
        while (!L->stop && L->next < L->found->n && L->next >= L->consumed + L->window)
            pthread_cond_wait(&L->cv, &L->mu);
        if (L->stop || L->next >= L->found->n)
            break;
        size_t i = L->next++;
        pthread_mutex_unlock(&L->mu);
        load_one(L, i);
        pthread_mutex_lock(&L->mu);
        L->slots[i].done = 1;
        pthread_cond_broadcast(&L->cv);
    }
    pthread_mutex_unlock(&L->mu);
    return NULL;
}

/* ---- storing and reporting ---------------------------------------------- */

typedef struct tally {
    uint64_t added, present, refused;
} tally;

static void report(etp_jw *jw, int quiet, const found *f, const slot *sl, etp_status st,
                   const etp_error *err, const etp_store_ingest_result *res, tally *t)
{
    char buf[1200];
    const char *why = NULL;
    if (f->refused)
        why = f->refused;
    else if (st)
        why = etp_error_format(err, buf, sizeof buf);
    const etp_history_run *run = sl->bundle ? etp_store_bundle_run(sl->bundle) : NULL;
    if (why) {
        t->refused++;
        fprintf(stderr, "etprof: %s: refused: %s\n", f->path, why);
    } else if (res->added) {
        t->added++;
    } else {
        t->present++;
    }
    if (jw) {
        etp_jw_obj_begin(jw);
        etp_jw_kstr(jw, "bundle", f->path);
        etp_jw_kstr(jw, "status", why ? "refused" : res->added ? "added" : "present");
        if (why) {
            etp_jw_kstr(jw, "error", why);
        } else {
            etp_jw_kint(jw, "run", res->run);
            etp_jw_kstr(jw, "run_id", run->run_id);
            etp_jw_kstr(jw, "manifest_sha256", run->manifest_sha256);
            etp_jw_kuint(jw, "rows", res->rows);
        }
        etp_jw_obj_end(jw);
    } else if (!quiet && !why) {
        if (res->added)
            printf("added    %s (run %lld, %llu rows)\n", f->path, (long long)res->run,
                   (unsigned long long)res->rows);
        else
            printf("present  %s (run %lld): already stored, nothing changed\n", f->path,
                   (long long)res->run);
    }
}

int cli_db_ingest(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},   {"label", required_argument, NULL, 'l'},
        {"jobs", required_argument, NULL, 'j'}, {"json", no_argument, NULL, 'J'},
        {"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    int json = 0, quiet = 0, c;
    long long jobs = 0; /* 0: one per CPU online (verifying and reading is most of the work) */
    cli_labels labels;
    memset(&labels, 0, sizeof labels);
    optind = 1;
    int rc = ETP_EXIT_OK;
    while (!rc && (c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'l': rc = cli_labels_add("db ingest", "--label", &labels, optarg, 1); break;
        case 'j':
            jobs = cli_parse_count(optarg);
            if (jobs < 1 || jobs > 64)
                rc = cli_usage("db ingest", "--jobs needs a count from 1 to 64, got '%s'", optarg);
            break;
        case 'J': json = 1; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: rc = cli_bad_option("db ingest", argv);
        }
    }
    if (!rc && optind >= argc)
        rc = cli_usage("db ingest", "give at least one BUNDLE or DIR");
    etp_store *s = NULL;
    if (!jobs) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus < 1 ? 1 : cpus > 8 ? 8 : cpus;
    }
    if (!rc)
        rc = cli_db_connect("ingest", db, ETP_STORE_WRITE, &s);
    found_list fl = {0};
    if (!rc && find_bundles(argv + optind, argc - optind, &fl))
        rc = cli_error("out of memory");
    etp_history_label extra[CLI_MAX_LABELS];
    for (uint32_t i = 0; i < labels.n; i++)
        extra[i] = (etp_history_label){labels.keys[i], labels.values[i]};
    loader L = {.found = &fl, .extra = extra, .extra_count = labels.n, .window = (size_t)jobs * 2};
    pthread_t threads[64];
    int started = 0;
    if (!rc && !(L.slots = calloc(fl.n + 1, sizeof *L.slots)))
        rc = cli_error("out of memory");
    pthread_mutex_init(&L.mu, NULL);
    pthread_cond_init(&L.cv, NULL);
    for (; !rc && jobs > 1 && started < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &L))
            break; /* fewer threads: the storing thread loads what is left */
    etp_jw jw;
    int jw_open = !rc && json;
    if (jw_open) {
        etp_jw_init_file(&jw, stdout, 1);
        etp_jw_obj_begin(&jw);
        etp_jw_kstr(&jw, "target", etp_store_display(s));
        etp_jw_key(&jw, "bundles");
        etp_jw_arr_begin(&jw);
    }
    tally t = {0};
    for (size_t i = 0; !rc && i < fl.n; i++) {
        slot *sl = &L.slots[i];
        pthread_mutex_lock(&L.mu);
        int claim = !started || (L.next <= i && !sl->done);
        if (claim && L.next <= i)
            L.next = i + 1; /* nobody took it: load it here */
        else
            claim = 0;
        while (!claim && !sl->done)
            pthread_cond_wait(&L.cv, &L.mu);
        pthread_mutex_unlock(&L.mu);
        if (claim)
            load_one(&L, i);
        etp_store_ingest_result res;
        memset(&res, 0, sizeof res);
        etp_error err = sl->err;
        etp_status st = sl->status;
        /* A bundle that does not load is refused; a database that does not
         * take it (unreachable, read-only, full) stops the ingest: one line,
         * and its transaction left nothing behind. */
        if (!st && (st = etp_store_insert(s, sl->bundle, &res, &err)))
            rc = cli_fail_status(st, &err);
        else
            report(json ? &jw : NULL, quiet, &fl.v[i], sl, st, &err, &res, &t);
        etp_store_bundle_free(sl->bundle);
        sl->bundle = NULL;
        pthread_mutex_lock(&L.mu);
        L.consumed = i + 1;
        pthread_cond_broadcast(&L.cv);
        pthread_mutex_unlock(&L.mu);
    }
    pthread_mutex_lock(&L.mu);
    L.stop = 1;
    pthread_cond_broadcast(&L.cv);
    pthread_mutex_unlock(&L.mu);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    if (jw_open && rc)
        etp_jw_discard(&jw); /* the one line of the error says it all */
    if (jw_open && !rc) {
        etp_jw_arr_end(&jw);
        etp_jw_kuint(&jw, "added", t.added);
        etp_jw_kuint(&jw, "present", t.present);
        etp_jw_kuint(&jw, "refused", t.refused);
        etp_jw_obj_end(&jw);
        etp_jw_raw_text(&jw, "\n", 1);
        if (etp_jw_finish(&jw))
            rc = cli_error("write error on standard output");
    } else if (!rc && !quiet) {
        printf("%llu added, %llu already stored, %llu refused (%s)\n", (unsigned long long)t.added,
               (unsigned long long)t.present, (unsigned long long)t.refused, etp_store_display(s));
    }
    if (!rc && t.refused)
        rc = ETP_EXIT_INPUT;
    for (size_t i = 0; i < fl.n; i++) {
        etp_store_bundle_free(L.slots ? L.slots[i].bundle : NULL);
        free(fl.v[i].path);
    }
    free(fl.v);
    free(L.slots);
    pthread_mutex_destroy(&L.mu);
    pthread_cond_destroy(&L.cv);
    etp_store_close(s);
    return rc;
}
