/* view.c - `etprof view BUNDLE [FILE...] [-o DIR] [--open]`: make the
 * per-program views (model_explorer/graph.json and index.html) later for a
 * bundle published without them (--model-explorer overlays|none, the light
 * CI levels).
 *
 * The views draw the whole analysis, so it is made again: from the inputs
 * the bundle recorded (each found where run_metadata.json says, in the
 * bundle's own logs/, or among FILE...), every one checked against the
 * SHA-256 the manifest recorded, with the options the bundle recorded. The
 * result is a complete bundle in DIR, published only when its summary.json
 * is byte for byte the one of BUNDLE: the same analysis, now with its views.
 */
/* nftw() is XSI */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_logs.h"
#include "etprof/bundle.h"
#include "etprof/bundle_read.h"
#include "util/sha256.h"

#define VIEW_MAX_INPUTS 24
#define VIEW_MAX_FILES 16

static void help(void)
{
    printf("usage: etprof view BUNDLE [FILE...] [-o DIR] [--force] [--open]\n\n"
           "Make the Model Explorer graph and the page (model_explorer/graph.json and\n"
           "index.html) of a bundle published without them (--model-explorer overlays or\n"
           "none). The analysis is made again from the bundle's inputs, with the options it\n"
           "recorded: each input is the FILE given with the SHA-256 the manifest recorded\n"
           "for it, else the file at the path run_metadata.json recorded, else the bundle's\n"
           "own logs/ copy; a file whose digest differs is refused with both digests.\n"
           "DIR (default BUNDLE.view) receives a complete bundle with the views, published\n"
           "only when its summary.json is byte for byte BUNDLE's: the same analysis.\n\n"
           "  -o DIR     where the bundle with the views goes (default BUNDLE.view)\n"
           "  --force    replace DIR when it exists\n"
           "  --open     open the page afterwards (xdg-open)\n\n"
           "Exit status: 0 published, 1 a changed, missing or different input (or a\n"
           "bundle that does not verify), 2 usage.\n");
}

/* One input the manifest records, and where it was found. */
typedef struct view_input {
    const char *role, *name, *sha256; /* from the manifest (owned by its JSON) */
    const char *recorded_path;        /* run_metadata.json's path, or NULL */
    char *found;                      /* the file read (owned) */
} view_input;

typedef struct view_files {
    const char *path[VIEW_MAX_FILES];
    char sha[VIEW_MAX_FILES][ETP_SHA256_HEX];
    int used[VIEW_MAX_FILES];
    int n;
    char links[4096]; /* a temporary directory of links, made on first use ("" until then) */
} view_files;

static int hash_file(const char *path, char sha[ETP_SHA256_HEX])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    uint64_t size;
    int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || etp_sha256_fd(fd, sha, &size) != 0;
    close(fd);
    return bad ? -1 : 0;
}

static json_t *load_json(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t je;
    return json_load_file(path, JSON_REJECT_DUPLICATES, &je);
}

static const char *base_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* A given file under another name: read through a link of the recorded
 * name, since the analysis compares names (a runner log's model file with
 * the program's, for one). */
static int link_as(view_files *f, const char *path, view_input *in)
{
    if (!f->links[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(f->links, sizeof f->links, "%s/etprof-view-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(f->links)) {
            f->links[0] = 0;
            return cli_error("cannot create a temporary directory: %s", strerror(errno));
        }
    }
    char *abs = realpath(path, NULL);
    size_t n = strlen(f->links) + strlen(in->name) + 2;
    in->found = malloc(n);
    if (!abs || !in->found || strchr(in->name, '/')) {
        free(abs);
        return cli_error("%s: cannot be read under its recorded name %s", path, in->name);
    }
    snprintf(in->found, n, "%s/%s", f->links, in->name);
    int bad = symlink(abs, in->found) != 0;
    free(abs);
    return bad ? cli_error("%s: cannot link it as %s: %s", path, in->found, strerror(errno)) : ETP_EXIT_OK;
}

static int links_used(const view_files *f) { return f->links[0] != 0; }

/* Find input @p in: a given file of its digest; the recorded path; the
 * bundle's logs/NAME. A candidate of the same name with another digest is
 * an error naming both digests. */
static int find_input(const char *bundle, view_input *in, view_files *f)
{
    for (int i = 0; i < f->n; i++)
        if (!strncmp(f->sha[i], in->sha256, 64)) {
            f->used[i] = 1;
            if (strcmp(base_of(f->path[i]), in->name))
                return link_as(f, f->path[i], in);
            in->found = strdup(f->path[i]);
            return in->found ? ETP_EXIT_OK : cli_error("out of memory");
        }
    for (int i = 0; i < f->n; i++)
        if (!strcmp(base_of(f->path[i]), in->name))
            return cli_error("%s: SHA-256 %.64s differs from %s, the digest %s recorded for its %s input %s: "
                             "not the file that was analysed",
                             f->path[i], f->sha[i], in->sha256, bundle, in->role, in->name);
    char cand[3][4200];
    int nc = 0;
    if (in->recorded_path) {
        if (!strncmp(in->recorded_path, "logs/", 5))
            snprintf(cand[nc++], sizeof cand[0], "%s/%s", bundle, in->recorded_path);
        else
            snprintf(cand[nc++], sizeof cand[0], "%s", in->recorded_path);
    }
    if (!strcmp(in->role, "log") || !strcmp(in->role, "device_log"))
        snprintf(cand[nc++], sizeof cand[0], "%s/logs/%s", bundle, in->name);
    for (int k = 0; k < nc; k++) {
        char sha[ETP_SHA256_HEX];
        if (hash_file(cand[k], sha))
            continue;
        if (strncmp(sha, in->sha256, 64))
            return cli_error("%s: SHA-256 %.64s differs from %s, the digest %s recorded for its %s input %s: "
                             "the file changed since; give the one that was analysed",
                             cand[k], sha, in->sha256, bundle, in->role, in->name);
        in->found = strdup(cand[k]);
        return in->found ? ETP_EXIT_OK : cli_error("out of memory");
    }
    return cli_error("%s: its %s input %s (SHA-256 %s) is not at %s: give that file", bundle, in->role, in->name,
                     in->sha256, in->recorded_path ? in->recorded_path : "a recorded path");
}

/* argv for `analyze` from the recorded options (run_metadata.json "options",
 * etp_analysis_options_json()). Strings are kept in @p keep. */
typedef struct argv_buf {
    char *v[128];
    int n;
    char *keep[64];
    int nkeep;
} argv_buf;

static void arg(argv_buf *a, const char *s)
{
    if (a->n < 126)
        a->v[a->n++] = (char *)s;
}

static const char *keep(argv_buf *a, char *s)
{
    if (s && a->nkeep < 64)
        a->keep[a->nkeep++] = s;
    return s ? s : "";
}

static int options_args(const json_t *o, argv_buf *a)
{
    if (!json_is_object(o))
        return cli_error("the bundle recorded no analysis options: it cannot be made again");
    const char *m = json_string_value(json_object_get(o, "method"));
    if (m)
        arg(a, "--method"), arg(a, m);
    if (json_is_true(json_object_get(o, "source_unit_given")))
        arg(a, "--source-unit"), arg(a, json_string_value(json_object_get(o, "source_unit")));
    const char *u = json_string_value(json_object_get(o, "unit"));
    if (u)
        arg(a, "--unit"), arg(a, u);
    char buf[64];
    json_t *hz = json_object_get(o, "cpu_hz");
    if (json_is_number(hz)) {
        snprintf(buf, sizeof buf, "%.17g", json_number_value(hz));
        arg(a, "--cpu-hz"), arg(a, keep(a, strdup(buf)));
    }
    json_t *skip = json_object_get(o, "skip_executions");
    if (json_is_integer(skip) && json_integer_value(skip) > 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(skip));
        arg(a, "--skip-executions"), arg(a, keep(a, strdup(buf)));
    }
    const char *rank = json_string_value(json_object_get(o, "rank_by"));
    if (rank)
        arg(a, "--rank-by"), arg(a, rank);
    const char *fmt = json_string_value(json_object_get(o, "format"));
    if (fmt)
        arg(a, "--format"), arg(a, fmt);
    if (json_is_true(json_object_get(o, "detailed")))
        arg(a, "--detailed");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(o, "finding_thresholds"), k, v)
    {
        char *kv = malloc(strlen(k) + 40);
        if (kv)
            snprintf(kv, strlen(k) + 40, "%s=%.17g", k, json_number_value(v));
        arg(a, "--finding"), arg(a, keep(a, kv));
    }
    json_t *nx = json_object_get(o, "nx");
    static const char *const nx_opt[][2] = {{"statistics_mode", "--nx-statistics-mode"},
                                            {"profiling_device", "--nx-profiling-device"},
                                            {"leading_blocks", "--nx-leading-blocks"},
                                            {"core_key", "--nx-core-key"}};
    for (int i = 0; i < 4; i++) {
        json_t *x = json_object_get(nx, nx_opt[i][0]);
        if (json_is_integer(x)) {
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(x));
            arg(a, nx_opt[i][1]), arg(a, keep(a, strdup(buf)));
        } else if (json_is_string(x)) {
            arg(a, nx_opt[i][1]), arg(a, json_string_value(x));
        }
    }
    return ETP_EXIT_OK;
}

static int same_file_bytes(const char *a, const char *b)
{
    char x[ETP_SHA256_HEX], y[ETP_SHA256_HEX];
    return !hash_file(a, x) && !hash_file(b, y) && !strncmp(x, y, 64);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -r of the directory view made (depth first, never following a link). */
static void remove_tree(const char *path) { (void)nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

int cmd_view(int argc, char **argv)
{
    static const struct option longs[] = {{"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
                                          {"open", no_argument, 0, 'p'}, {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    const char *outdir = NULL;
    int force = 0, open_after = 0, c;
    while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        if (c == 'o')
            outdir = optarg;
        else if (c == 'f')
            force = 1;
        else if (c == 'p')
            open_after = 1;
        else if (c == 'h') {
            help();
            return ETP_EXIT_OK;
        } else
            return cli_bad_option("view", argv);
    }
    if (optind >= argc)
        return cli_usage("view", "give the BUNDLE to make the views of");
    const char *bundle = argv[optind++];
    view_files files;
    memset(&files, 0, sizeof files);
    for (; optind < argc; optind++) {
        if (files.n == VIEW_MAX_FILES)
            return cli_usage("view", "at most %d files", VIEW_MAX_FILES);
        if (hash_file(argv[optind], files.sha[files.n]))
            return cli_error("%s: cannot read: %s", argv[optind], strerror(errno ? errno : EINVAL));
        files.path[files.n++] = argv[optind];
    }
    char defdir[4200];
    if (!outdir) {
        size_t n = strlen(bundle);
        while (n > 1 && bundle[n - 1] == '/')
            n--;
        snprintf(defdir, sizeof defdir, "%.*s.view", (int)n, bundle);
        outdir = defdir;
    }
    /* The bundle must be intact: its digests are what the inputs are checked against. */
    etp_error err;
    etp_error_clear(&err);
    etp_bundle_doc *doc = NULL;
    etp_verify_report *rep = NULL;
    etp_status s = etp_bundle_open_report(bundle, &doc, &rep, &err);
    etp_verify_report_free(rep);
    etp_bundle_close(doc);
    if (s)
        return cli_fail_status(s, &err);
    json_t *man = load_json(bundle, ETP_BUNDLE_MANIFEST), *meta = load_json(bundle, "run_metadata.json");
    int rc = ETP_EXIT_OK;
    view_input in[VIEW_MAX_INPUTS];
    size_t nin = 0;
    memset(in, 0, sizeof in);
    argv_buf a;
    memset(&a, 0, sizeof a);
    char *cmdline = NULL, *tmp = NULL;
    if (!man || !meta) {
        rc = cli_error("%s: its manifest or run_metadata.json cannot be read as JSON", bundle);
        goto out;
    }
    json_t *ins = json_object_get(json_object_get(man, "provenance"), "inputs");
    size_t i;
    json_t *e;
    json_array_foreach(ins, i, e)
    {
        if (nin == VIEW_MAX_INPUTS)
            break;
        view_input *x = &in[nin];
        x->role = json_string_value(json_object_get(e, "role"));
        x->name = json_string_value(json_object_get(e, "name"));
        x->sha256 = json_string_value(json_object_get(e, "sha256"));
        if (!x->role || !x->name || !x->sha256 || strlen(x->sha256) != 64) {
            rc = cli_error("%s: input %zu of its manifest has no role, name or SHA-256", bundle, i);
            goto out;
        }
        size_t j;
        json_t *m;
        json_array_foreach(json_object_get(meta, "inputs"), j, m)
        {
            const char *ms = json_string_value(json_object_get(m, "sha256"));
            if (ms && !strcmp(ms, x->sha256) && json_is_string(json_object_get(m, "role")) &&
                !strcmp(json_string_value(json_object_get(m, "role")), x->role))
                x->recorded_path = json_string_value(json_object_get(m, "path"));
        }
        nin++;
    }
    for (size_t k = 0; k < nin && !rc; k++)
        rc = find_input(bundle, &in[k], &files);
    for (int k = 0; k < files.n && !rc; k++)
        if (!files.used[k])
            rc = cli_error("%s: SHA-256 %.64s is none of the inputs %s recorded", files.path[k], files.sha[k], bundle);
    if (rc)
        goto out;
    /* analyze with the same inputs, shown under the names they had. */
    arg(&a, "analyze");
    const char *runner_log = NULL;
    for (size_t k = 0; k < nin; k++) {
        const view_input *x = &in[k];
        const char *opt = !strcmp(x->role, "etdump")         ? "--etdump"
                          : !strcmp(x->role, "pte")          ? "--pte"
                          : !strcmp(x->role, "etrecord")     ? "--etrecord"
                          : !strcmp(x->role, "log")          ? "--log"
                          : !strcmp(x->role, "device_log")   ? "--log"
                          : !strcmp(x->role, "debug_buffer") ? "--debug-buffer"
                                                             : NULL;
        if (!opt) {
            rc = cli_error("%s: its input role %s is not one etprof analyze reads", bundle, x->role);
            goto out;
        }
        arg(&a, opt);
        arg(&a, x->found);
        if (!strcmp(x->role, "log") && x->recorded_path && !strcmp(x->recorded_path, "logs/runner.log"))
            runner_log = x->found; /* etprof run's capture: carried again */
        else if (!strcmp(x->role, "device_log") && !strcmp(x->name, "run.log") && runner_log)
            cli_run_embed_measurements = x->found;
        else if (x->recorded_path)
            cli_path_alias(x->found, x->recorded_path);
        else
            cli_path_alias(x->found, x->name);
    }
    rc = options_args(json_object_get(meta, "options"), &a);
    if (rc)
        goto out;
    /* Published beside DIR first, then compared, then moved into place. */
    size_t tl = strlen(outdir) + 32;
    tmp = malloc(tl);
    if (!tmp) {
        rc = cli_error("out of memory");
        goto out;
    }
    snprintf(tmp, tl, "%s.etprof-view-XXXXXX", outdir);
    if (!mkdtemp(tmp)) {
        rc = cli_error("%s: cannot create a directory beside it: %s", outdir, strerror(errno));
        free(tmp);
        tmp = NULL;
        goto out;
    }
    char staged[4300], sa[4400], sb[4400];
    snprintf(staged, sizeof staged, "%s/bundle", tmp);
    arg(&a, "-o"), arg(&a, staged);
    arg(&a, "--model-explorer"), arg(&a, "files");
    arg(&a, "--quiet");
    a.v[a.n] = NULL;
    cmdline = cli_join_command("view", argc, argv);
    cli_run_embed_log = runner_log;
    cli_run_command_line = cmdline;
    rc = cmd_analyze(a.n, a.v);
    cli_run_embed_log = NULL;
    cli_run_command_line = NULL;
    cli_run_embed_measurements = NULL;
    cli_path_aliases_clear();
    if (rc)
        goto out;
    snprintf(sa, sizeof sa, "%s/summary.json", bundle);
    snprintf(sb, sizeof sb, "%s/summary.json", staged);
    if (!same_file_bytes(sa, sb)) {
        rc = cli_error("%s: the analysis made again differs from the one published (summary.json): its "
                       "messages name an input by the path it had%s; no view written",
                       bundle, links_used(&files) ? ": give the files at the paths the bundle recorded" : "");
        goto out;
    }
    struct stat st;
    if (lstat(outdir, &st) == 0) {
        if (!force) {
            rc = cli_usage("view", "%s exists: give another -o DIR, or --force to replace it", outdir);
            goto out;
        }
        char aside[4300];
        snprintf(aside, sizeof aside, "%s/old", tmp);
        if (rename(outdir, aside)) {
            rc = cli_error("%s: cannot move it aside: %s", outdir, strerror(errno));
            goto out;
        }
    }
    if (rename(staged, outdir)) {
        rc = cli_error("%s: cannot publish: %s", outdir, strerror(errno));
        goto out;
    }
    printf("Views of %s in %s (check it with `etprof verify %s`): the same analysis (summary.json\n"
           "identical), with model_explorer/graph.json and model_explorer/index.html\n",
           bundle, outdir, outdir);
    if (open_after)
        cli_open_page(outdir);
out:
    if (files.links[0])
        remove_tree(files.links);
    if (tmp) {
        remove_tree(tmp);
        free(tmp);
    }
    cli_path_aliases_clear();
    for (int k = 0; k < a.nkeep; k++)
        free(a.keep[k]);
    for (size_t k = 0; k < nin; k++)
        free(in[k].found);
    free(cmdline);
    json_decref(man);
    json_decref(meta);
    return rc;
}
