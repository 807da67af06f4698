/* test_bundle.c - result bundles: publication (staged beside DIR, swapped in
 * at commit, nothing without commit, what DIR may be), determinism, API
 * refusals, and
 * every tamper case `etprof verify` must catch, checked through the library
 * report and through the CLI's exit status and message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "etprof/bundle.h"
#include "testutil.h"

/* The artifacts of the sample bundle, in the (unsorted) order written. */
static const char *const ART_PATHS[] = {"summary.json", "operators.csv", "run_metadata.json",
                                        "model_explorer/me_overlay_avg_us.json",
                                        "detailed/events.json"};
#define ART_COUNT 5

static const char *art_text(size_t i)
{
    static const char *const texts[] = {
        "{\"schema\":\"etprof.summary\",\"schema_version\":1,\"validity\":\"valid\"}\n",
        "entity_id,name,count,avg_us\nc0i1,aten::add,10,1.5\nc0i2,aten::mul,10,2.25\n",
        "{\"schema\":\"etprof.run-metadata\",\"schema_version\":1}\n",
        "{\"main\":{\"results\":{\"add\":{\"value\":1.5}}}}\n",
        "[{\"event\":0,\"ticks\":7},{\"event\":1,\"ticks\":9}]\n",
    };
    return texts[i];
}

static void check_ok(etp_status s, const etp_error *err)
{
    if (s)
        fail_msg("unexpected error: %s: %s", err->file, err->message);
}

/* Write the sample artifacts, in @p reverse order or not, and commit. */
static void make_bundle_ex(const char *dir, int reverse, const char *run_id, const char *ts)
{
    etp_error err;
    etp_error_clear(&err);
    etp_bundle *b;
    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    if (run_id || ts)
        check_ok(etp_bundle_set_identity(b, run_id, ts, &err), &err);
    check_ok(etp_bundle_set_options(b, "{\"b\": [1, 2.5], \"a\": \"x\"}", &err), &err);
    check_ok(etp_bundle_set_json(b, "comparability", "{\"z\": 1, \"a\": null}", &err), &err);
    for (size_t k = 0; k < ART_COUNT; k++) {
        size_t i = reverse ? ART_COUNT - 1 - k : k;
        const char *t = art_text(i);
        int json = strstr(ART_PATHS[i], ".json") != NULL;
        check_ok(etp_bundle_write(b, ART_PATHS[i], t, strlen(t), NULL, i < 3 ? "core" : "export",
                                  json && i < 3 ? "etprof.sample" : NULL, 1, &err),
                 &err);
    }
    etp_bundle_set_status(b, "complete", NULL);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
}

static void make_bundle(const char *dir) { make_bundle_ex(dir, 0, NULL, NULL); }

static char *path_in(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static int exists(const char *dir, const char *rel)
{
    char *p = path_in(dir, rel);
    struct stat st;
    int r = lstat(p, &st) == 0;
    free(p);
    return r;
}

static etp_verify_report *verify(const char *dir)
{
    etp_error err;
    etp_error_clear(&err);
    etp_verify_report *r = NULL;
    check_ok(etp_bundle_verify(dir, &r, &err), &err);
    assert_non_null(r);
    return r;
}

/* The bundle must fail verification with a problem line containing @p
 * rel_or_null joined to @p dir (when given) and @p needle; the CLI must exit
 * 1 and print the same line. */
static void expect_problem(const char *dir, const char *rel, const char *needle)
{
    etp_verify_report *r = verify(dir);
    char who[1200];
    snprintf(who, sizeof who, "%s/%s: ", dir, rel ? rel : "result_manifest.json");
    int found = 0;
    for (uint32_t i = 0; i < r->problem_count; i++)
        if (strstr(r->problems[i], who) == r->problems[i] && strstr(r->problems[i], needle))
            found = 1;
    if (!found) {
        for (uint32_t i = 0; i < r->problem_count; i++)
            print_message("  problem: %s\n", r->problems[i]);
        fail_msg("no problem '%s...%s' (%u problems)", who, needle, r->problem_count);
    }
    etp_verify_report_free(r);

    char cmd[2400];
    snprintf(cmd, sizeof cmd, "'%s' verify '%s' 2>&1", tu_etprof(), dir);
    int status;
    char *out = tu_run(cmd, &status);
    assert_non_null(out);
    char line[1300];
    snprintf(line, sizeof line, "etprof: %s", who);
    if (status != 1 || !strstr(out, line) || !strstr(out, needle))
        fail_msg("CLI: status %d, output:\n%s", status, out);
    free(out);
}

/* Rewrite the manifest after @p edit changed its JSON. */
static void edit_manifest(const char *dir, void (*edit)(json_t *root))
{
    char *p = path_in(dir, ETP_BUNDLE_MANIFEST);
    json_error_t je;
    json_t *root = json_load_file(p, 0, &je);
    assert_non_null(root);
    edit(root);
    assert_int_equal(json_dump_file(root, p, JSON_INDENT(2)), 0);
    json_decref(root);
    free(p);
}

static json_t *artifacts(json_t *root) { return json_object_get(root, "artifacts"); }

static json_t *artifact_named(json_t *root, const char *path)
{
    size_t i;
    json_t *a;
    json_array_foreach(artifacts(root), i, a) {
        if (!strcmp(json_string_value(json_object_get(a, "path")), path))
            return a;
    }
    fail_msg("artifact %s not in the manifest", path);
    return NULL;
}

static void add_entry(json_t *root, const char *path)
{
    json_t *a = json_deep_copy(artifact_named(root, "summary.json"));
    json_object_set_new(a, "path", json_string(path));
    json_array_append_new(artifacts(root), a);
}

static char *read_text(const char *path)
{
    size_t n;
    uint8_t *d = tu_read_file(path, &n);
    assert_non_null(d);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, d, n);
    s[n] = '\0';
    free(d);
    return s;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* ---- a good bundle ------------------------------------------------------ */

static void good_bundle_verifies(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *sub = path_in(dir, "out"); /* created by the commit */
    make_bundle(sub);
    etp_verify_report *r = verify(sub);
    for (uint32_t i = 0; i < r->problem_count; i++)
        print_message("problem: %s\n", r->problems[i]);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->warning_count, 0);
    assert_int_equal(r->artifact_count, ART_COUNT);
    etp_verify_report_free(r);

    char cmd[2400];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' verify --strict '%s' 2>&1", tu_etprof(), sub);
    char *out = tu_run(cmd, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "ok, 5 artifacts verified"));
    free(out);
    /* DIR/result_manifest.json is accepted for DIR. */
    snprintf(cmd, sizeof cmd, "'%s' verify '%s/result_manifest.json' 2>&1", tu_etprof(), sub);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 0);
    free(out);
    free(sub);
    tu_rmrf(dir);
    free(dir);
}

static void manifest_content(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *p = path_in(dir, ETP_BUNDLE_MANIFEST);
    json_error_t je;
    json_t *m = json_load_file(p, JSON_REJECT_DUPLICATES, &je);
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "schema")), "etprof.result-manifest");
    assert_true(json_is_integer(json_object_get(m, "schema_version")));
    assert_int_equal(json_integer_value(json_object_get(m, "schema_version")), 1);
    const char *run_id = json_string_value(json_object_get(m, "run_id"));
    assert_int_equal(strlen(run_id), 36);
    assert_int_equal(run_id[14], '4'); /* UUID version 4 */
    assert_non_null(strchr("89ab", run_id[19]));
    const char *ts = json_string_value(json_object_get(m, "timestamp"));
    /* Publication time to the millisecond: "YYYY-MM-DDTHH:MM:SS.mmmZ". */
    assert_int_equal(strlen(ts), 24);
    assert_int_equal(ts[19], '.');
    assert_int_equal(ts[23], 'Z');
    assert_string_equal(json_string_value(json_object_get(m, "validity")), "valid");
    /* Artifacts sorted by path; each entry's size and digest as written. */
    json_t *arts = artifacts(m);
    assert_int_equal(json_array_size(arts), ART_COUNT);
    const char *prev = "";
    size_t i;
    json_t *a;
    json_array_foreach(arts, i, a) {
        const char *path = json_string_value(json_object_get(a, "path"));
        assert_true(strcmp(prev, path) < 0);
        prev = path;
    }
    json_t *ops = artifact_named(m, "operators.csv");
    assert_string_equal(json_string_value(json_object_get(ops, "media_type")), "text/csv");
    assert_int_equal(json_integer_value(json_object_get(ops, "size_bytes")), strlen(art_text(1)));
    assert_null(json_object_get(ops, "schema"));
    json_t *sum = artifact_named(m, "summary.json");
    assert_string_equal(json_string_value(json_object_get(sum, "schema")), "etprof.sample");
    assert_int_equal(json_integer_value(json_object_get(sum, "schema_version")), 1);
    /* Digest of the canonical options text {"a":"x","b":[1,2.5]} (as Python's
     * json.dumps(sort_keys=True, separators=(",", ":")) also gives). */
    json_t *prov = json_object_get(m, "provenance");
    assert_string_equal(json_string_value(json_object_get(prov, "options_sha256")),
                        "66efddae6a97500318e4c6cdc4bc04149f340a165a7ef2d830393048b67b7a31");
    json_decref(m);
    free(p);
    tu_rmrf(dir);
    free(dir);
}

/* ---- tamper cases ------------------------------------------------------- */

static void flipped_byte_in_each_artifact(void **state)
{
    (void)state;
    for (size_t i = 0; i < ART_COUNT; i++) {
        char *dir = tu_tmpdir();
        make_bundle(dir);
        char *p = path_in(dir, ART_PATHS[i]);
        char *t = read_text(p);
        t[strlen(t) / 2] ^= 0x20;
        write_text(p, t);
        expect_problem(dir, ART_PATHS[i], "sha256 mismatch (declared ");
        free(t);
        free(p);
        tu_rmrf(dir);
        free(dir);
    }
}

static void deleted_artifact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *p = path_in(dir, "operators.csv");
    assert_int_equal(unlink(p), 0);
    expect_problem(dir, "operators.csv", "missing");
    free(p);
    tu_rmrf(dir);
    free(dir);
}

static void truncated_artifact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *p = path_in(dir, "detailed/events.json");
    assert_int_equal(truncate(p, 10), 0);
    char want[96];
    snprintf(want, sizeof want, "size mismatch (declared %zu, actual 10)", strlen(art_text(4)));
    expect_problem(dir, "detailed/events.json", want);
    free(p);
    tu_rmrf(dir);
    free(dir);
}

static void edit_dotdot(json_t *root) { add_entry(root, "../x"); }
static void edit_inner_dotdot(json_t *root) { add_entry(root, "detailed/../../x"); }
static void edit_absolute(json_t *root) { add_entry(root, "/etc/hostname"); }
static void edit_backslash(json_t *root) { add_entry(root, "detailed\\..\\..\\x"); }
static void edit_empty_component(json_t *root) { add_entry(root, "detailed//events.json"); }
static void edit_dot(json_t *root) { add_entry(root, "./summary.json"); }
static void edit_control(json_t *root) { add_entry(root, "a\x1b[31mred"); }
static void edit_self(json_t *root) { add_entry(root, "result_manifest.json"); }

static void unsafe_paths(void **state)
{
    (void)state;
    static const struct {
        void (*edit)(json_t *);
        const char *needle;
    } cases[] = {
        {edit_dotdot, "artifacts[5] '../x': '..' path component"},
        {edit_inner_dotdot, "artifacts[5] 'detailed/../../x': '..' path component"},
        {edit_absolute, "artifacts[5] '/etc/hostname': absolute path"},
        {edit_backslash, "backslash in path"},
        {edit_empty_component, "empty path component"},
        {edit_dot, "'.' path component"},
        {edit_control, "artifacts[5] 'a\\x1b[31mred': control character"},
        {edit_self, "the manifest cannot declare itself"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *top = tu_tmpdir();
        char *dir = path_in(top, "b");
        make_bundle(dir);
        /* A real file where "../x" points: still refused, never read. */
        char *outside = path_in(top, "x");
        write_text(outside, "outside\n");
        edit_manifest(dir, cases[i].edit);
        expect_problem(dir, NULL, cases[i].needle);
        free(outside);
        free(dir);
        tu_rmrf(top);
        free(top);
    }
}

static void symlinked_artifact(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bundle = path_in(dir, "b");
    make_bundle(bundle);
    /* Same bytes outside the bundle: size and digest would match if followed. */
    char *p = path_in(bundle, "summary.json");
    char *outside = path_in(dir, "summary-outside.json");
    assert_int_equal(rename(p, outside), 0);
    assert_int_equal(symlink(outside, p), 0);
    expect_problem(bundle, "summary.json", "is a symlink (not followed)");
    free(p);
    free(outside);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static void symlinked_subdirectory(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bundle = path_in(dir, "b");
    make_bundle(bundle);
    char *p = path_in(bundle, "detailed");
    char *outside = path_in(dir, "detailed-outside");
    assert_int_equal(rename(p, outside), 0);
    assert_int_equal(symlink("../detailed-outside", p), 0);
    expect_problem(bundle, "detailed/events.json", "directory 'detailed' is a symlink");
    free(p);
    free(outside);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static void edit_duplicate(json_t *root)
{
    json_array_append_new(artifacts(root), json_deep_copy(artifact_named(root, "operators.csv")));
}

static void duplicate_entry(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    edit_manifest(dir, edit_duplicate);
    /* operators.csv sorts at index 2 of the written manifest. */
    expect_problem(dir, "operators.csv", "declared more than once (artifacts[2] and artifacts[5])");
    tu_rmrf(dir);
    free(dir);
}

static void edit_wrong_size(json_t *root)
{
    json_t *a = artifact_named(root, "run_metadata.json");
    json_object_set_new(a, "size_bytes",
                        json_integer(json_integer_value(json_object_get(a, "size_bytes")) + 1));
}

static void wrong_size(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    edit_manifest(dir, edit_wrong_size);
    char want[96];
    snprintf(want, sizeof want, "size mismatch (declared %zu, actual %zu)",
             strlen(art_text(2)) + 1, strlen(art_text(2)));
    expect_problem(dir, "run_metadata.json", want);
    tu_rmrf(dir);
    free(dir);
}

static void edit_bad_sha(json_t *root)
{
    json_object_set_new(artifact_named(root, "summary.json"), "sha256", json_string("ABC"));
}
static void edit_schema_id(json_t *root)
{
    json_object_set_new(root, "schema", json_string("hpx.result-manifest"));
}
static void edit_schema_version(json_t *root)
{
    json_object_set_new(root, "schema_version", json_integer(2));
}
static void edit_schema_version_str(json_t *root)
{
    json_object_set_new(root, "schema_version", json_string("1"));
}
static void edit_no_artifacts(json_t *root) { json_object_del(root, "artifacts"); }
static void edit_status(json_t *root) { json_object_set_new(root, "status", json_string("ok")); }
static void edit_options(json_t *root)
{
    json_object_set_new(json_object_get(json_object_get(root, "provenance"), "options"), "a",
                        json_string("changed"));
}

static void malformed_manifest_members(void **state)
{
    (void)state;
    static const struct {
        void (*edit)(json_t *);
        const char *rel;
        const char *needle;
    } cases[] = {
        {edit_bad_sha, "summary.json", "\"sha256\" is missing or not 64 lowercase hex digits"},
        {edit_schema_id, NULL, "\"schema\" is \"hpx.result-manifest\", expected"},
        {edit_schema_version, NULL, "\"schema_version\" is 2; this etprof reads version 1"},
        {edit_schema_version_str, NULL, "\"schema_version\" is \"1\""},
        {edit_no_artifacts, NULL, "\"artifacts\" is missing"},
        {edit_status, NULL, "\"status\" is \"ok\", not one of"},
        {edit_options, NULL, "options_sha256 mismatch"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = tu_tmpdir();
        make_bundle(dir);
        edit_manifest(dir, cases[i].edit);
        expect_problem(dir, cases[i].rel, cases[i].needle);
        tu_rmrf(dir);
        free(dir);
    }
}

static void manifest_not_json(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *p = path_in(dir, ETP_BUNDLE_MANIFEST);
    write_text(p, "{\"schema\": \"etprof.result-manifest\",");
    expect_problem(dir, NULL, "not valid JSON");
    write_text(p, "[1, 2]");
    expect_problem(dir, NULL, "not a JSON object");
    write_text(p, "{\"schema\": 1, \"schema\": 2}");
    expect_problem(dir, NULL, "duplicate object key");
    free(p);
    tu_rmrf(dir);
    free(dir);
}

static void manifest_missing_or_symlink(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bundle = path_in(dir, "b");
    make_bundle(bundle);
    char *p = path_in(bundle, ETP_BUNDLE_MANIFEST);
    char *outside = path_in(dir, "manifest-outside.json");
    assert_int_equal(rename(p, outside), 0);
    expect_problem(bundle, NULL, "missing: the bundle is not published");
    assert_int_equal(symlink(outside, p), 0);
    expect_problem(bundle, NULL, "is a symlink (not followed)");
    free(p);
    free(outside);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static void artifact_not_regular(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *p = path_in(dir, "operators.csv");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0600), 0); /* must not hang the verifier */
    expect_problem(dir, "operators.csv", "not a regular file");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkdir(p, 0700), 0);
    expect_problem(dir, "operators.csv", "not a regular file");
    free(p);
    char *sub = path_in(dir, "model_explorer");
    tu_rmrf(dir); /* replace a directory component by a file */
    make_bundle(dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && echo x > '%s'", sub, sub);
    assert_int_equal(system(cmd), 0);
    expect_problem(dir, "model_explorer/me_overlay_avg_us.json", "'model_explorer' is not a directory");
    free(sub);
    tu_rmrf(dir);
    free(dir);
}

static void undeclared_files_warn(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    make_bundle(dir);
    char *extra = path_in(dir, "detailed/extra.txt");
    write_text(extra, "not declared\n");
    char *link = path_in(dir, "link");
    assert_int_equal(symlink("/etc/hostname", link), 0);
    etp_verify_report *r = verify(dir);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->warning_count, 2);
    char want[1200];
    snprintf(want, sizeof want, "%s/detailed/extra.txt: not declared in the manifest", dir);
    assert_string_equal(r->warnings[0], want);
    snprintf(want, sizeof want, "%s/link: not declared in the manifest (a symlink)", dir);
    assert_string_equal(r->warnings[1], want);
    etp_verify_report_free(r);

    char cmd[2400];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' verify '%s' 2>&1", tu_etprof(), dir);
    char *out = tu_run(cmd, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "etprof: warning: "));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' verify --strict '%s' 2>&1", tu_etprof(), dir);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "bundle does not verify (2 problems)"));
    free(out);
    free(extra);
    free(link);
    tu_rmrf(dir);
    free(dir);
}

static void cli_usage_and_missing_dir(void **state)
{
    (void)state;
    char cmd[1200];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' verify 2>&1", tu_etprof());
    free(tu_run(cmd, &status));
    assert_int_equal(status, 2);
    snprintf(cmd, sizeof cmd, "'%s' verify a b 2>&1", tu_etprof());
    free(tu_run(cmd, &status));
    assert_int_equal(status, 2);
    snprintf(cmd, sizeof cmd, "'%s' verify --bogus x 2>&1", tu_etprof());
    free(tu_run(cmd, &status));
    assert_int_equal(status, 2);
    snprintf(cmd, sizeof cmd, "'%s' verify /nonexistent/etprof-bundle 2>&1", tu_etprof());
    char *out = tu_run(cmd, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "etprof: /nonexistent/etprof-bundle: cannot open"));
    free(out);
}

/* ---- publication -------------------------------------------------------- */

/* Entries of @p dir whose name marks a staging or moved-aside directory. */
static int leftovers(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c 'etprof-staging-\\|etprof-old-'", dir);
    int status;
    char *out = tu_run(cmd, &status);
    assert_non_null(out);
    int n = atoi(out);
    free(out);
    return n;
}

static void no_manifest_without_commit(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *out = path_in(dir, "out");
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(out, &b, &err), &err);
    assert_false(exists(dir, "out")); /* staged beside it, not there yet */
    assert_int_equal(leftovers(dir), 1);
    check_ok(etp_bundle_write(b, "summary.json", "{}", 2, NULL, "core", NULL, 0, &err), &err);
    etp_bundle_free(b);
    assert_false(exists(dir, "out"));
    assert_int_equal(leftovers(dir), 0); /* the staging directory went with the bundle */
    free(out);
    tu_rmrf(dir);
    free(dir);
}

/* Until the commit the old bundle is untouched; after it only the new
 * artifacts are there (no stale file survives). */
static void old_bundle_kept_until_commit(void **state)
{
    (void)state;
    char *parent = tu_tmpdir();
    char *dir = path_in(parent, "b");
    make_bundle(dir);
    char *mp = path_in(dir, ETP_BUNDLE_MANIFEST);
    char *before = read_text(mp);
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    check_ok(etp_bundle_write(b, "other.json", "{}", 2, NULL, "core", NULL, 0, &err), &err);
    char *now = read_text(mp);
    assert_string_equal(now, before);
    free(now);
    assert_false(exists(dir, "other.json"));
    etp_bundle_free(b); /* abandoned: the old bundle stays published */
    etp_verify_report *r = verify(dir);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->artifact_count, ART_COUNT);
    etp_verify_report_free(r);
    assert_int_equal(leftovers(parent), 0);

    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    check_ok(etp_bundle_write(b, "other.json", "{}", 2, NULL, "core", NULL, 0, &err), &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    r = verify(dir);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->warning_count, 0);
    assert_int_equal(r->artifact_count, 1);
    etp_verify_report_free(r);
    for (size_t i = 0; i < ART_COUNT; i++)
        assert_false(exists(dir, ART_PATHS[i]));
    assert_false(exists(dir, "detailed"));
    assert_int_equal(leftovers(parent), 0);
    free(before);
    free(mp);
    tu_rmrf(parent);
    free(parent);
    free(dir);
}

/* What may be replaced, and the signal-time undo. */
static void probe_and_abandon(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *missing = path_in(dir, "new"), *deep = path_in(dir, "a/b/c");
    char *other = path_in(dir, "other"), *file = path_in(dir, "file");
    char *bundle = path_in(dir, "bundle"), *empty = path_in(dir, "empty");
    etp_error err;
    etp_bundle_target kind;
    check_ok(etp_bundle_probe(missing, 0, &kind, &err), &err);
    assert_int_equal(kind, ETP_BUNDLE_TARGET_MISSING);
    assert_int_equal(etp_bundle_probe(deep, 0, &kind, &err), ETP_E_IO);
    assert_non_null(strstr(err.message, "parent directory does not exist"));
    check_ok(etp_bundle_probe(deep, ETP_BUNDLE_PARENTS, &kind, &err), &err);
    assert_false(exists(dir, "a")); /* probing creates nothing */
    assert_int_equal(mkdir(empty, 0700), 0);
    check_ok(etp_bundle_probe(empty, 0, &kind, &err), &err);
    assert_int_equal(kind, ETP_BUNDLE_TARGET_EMPTY);
    assert_int_equal(mkdir(other, 0700), 0);
    char *note = path_in(other, "note.txt");
    write_text(note, "mine\n");
    assert_int_equal(etp_bundle_probe(other, 0, &kind, &err), ETP_E_IO);
    assert_int_equal(kind, ETP_BUNDLE_TARGET_OTHER);
    assert_non_null(strstr(err.message, "not an etprof bundle"));
    check_ok(etp_bundle_probe(other, ETP_BUNDLE_FORCE, &kind, &err), &err);
    etp_bundle *b;
    assert_int_equal(etp_bundle_begin(other, &b, &err), ETP_E_IO);
    assert_int_equal(leftovers(dir), 0);
    write_text(file, "x");
    assert_int_equal(etp_bundle_probe(file, ETP_BUNDLE_FORCE, &kind, &err), ETP_E_IO);
    make_bundle(bundle);
    check_ok(etp_bundle_probe(bundle, 0, &kind, &err), &err);
    assert_int_equal(kind, ETP_BUNDLE_TARGET_BUNDLE);
    static const char *const bad[] = {"", "/", ".", "..", "x/.."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(etp_bundle_probe(bad[i], 0, &kind, &err), ETP_E_USAGE);

    /* A publication abandoned from a signal handler: its staging directory
     * goes, the bundle it would have replaced stays; other work is left. */
    check_ok(etp_bundle_begin(bundle, &b, &err), &err);
    check_ok(etp_bundle_write(b, "d/x.json", "{}", 2, NULL, "core", NULL, 0, &err), &err);
    assert_int_equal(leftovers(dir), 1);
    etp_bundle_abandon_from_signal();
    assert_int_equal(leftovers(dir), 0);
    etp_verify_report *r = verify(bundle);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->artifact_count, ART_COUNT);
    etp_verify_report_free(r);
    etp_bundle_free(b);
    char *kept = read_text(note);
    assert_string_equal(kept, "mine\n");
    free(kept);
    free(note);
    free(missing);
    free(deep);
    free(other);
    free(file);
    free(bundle);
    free(empty);
    tu_rmrf(dir);
    free(dir);
}

/* Blank out the run_id and timestamp values of a manifest text. */
static void blank_identity(char *text)
{
    static const char *const keys[] = {"\"run_id\": \"", "\"timestamp\": \""};
    for (int k = 0; k < 2; k++) {
        char *p = strstr(text, keys[k]);
        assert_non_null(p);
        for (p += strlen(keys[k]); *p && *p != '"'; p++)
            *p = '_';
    }
}

static void manifests_are_deterministic(void **state)
{
    (void)state;
    char *d1 = tu_tmpdir(), *d2 = tu_tmpdir();
    make_bundle_ex(d1, 0, NULL, NULL);
    make_bundle_ex(d2, 1, NULL, NULL); /* same artifacts, written in reverse order */
    char *p1 = path_in(d1, ETP_BUNDLE_MANIFEST), *p2 = path_in(d2, ETP_BUNDLE_MANIFEST);
    char *t1 = read_text(p1), *t2 = read_text(p2);
    assert_true(strcmp(t1, t2) != 0); /* distinct run ids */
    blank_identity(t1);
    blank_identity(t2);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    /* With a fixed identity the manifests are byte-identical. */
    const char *id = "01234567-89ab-4cde-8f01-23456789abcd", *ts = "2026-01-02T03:04:05Z";
    make_bundle_ex(d1, 0, id, ts);
    make_bundle_ex(d2, 1, id, ts);
    t1 = read_text(p1);
    t2 = read_text(p2);
    assert_string_equal(t1, t2);
    assert_non_null(strstr(t1, id));
    assert_int_equal(t1[strlen(t1) - 1], '\n');
    free(t1);
    free(t2);
    free(p1);
    free(p2);
    tu_rmrf(d1);
    tu_rmrf(d2);
    free(d1);
    free(d2);
}

/* ---- API refusals -------------------------------------------------------- */

static void write_refusals(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    static const char *const bad[] = {"", "/abs", "../x", "a/../b", "./a", "a//b", "a/",
                                      "a\\b", "a\nb", "result_manifest.json",
                                      ".result_manifest.json.tmp"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(etp_bundle_write(b, bad[i], "x", 1, NULL, "core", NULL, 0, &err),
                         ETP_E_USAGE);
    assert_int_equal(etp_bundle_write(b, "a.json", "x", 1, NULL, "important", NULL, 0, &err),
                     ETP_E_USAGE);
    assert_int_equal(etp_bundle_write(b, "a.json", "x", 1, NULL, "core", "Bad Id", 1, &err),
                     ETP_E_USAGE);
    assert_int_equal(etp_bundle_write(b, "a.json", "x", 1, NULL, "core", "etprof.x", 0, &err),
                     ETP_E_USAGE);
    assert_int_equal(etp_bundle_write(b, "a.json", "x", 1, "no-slash", "core", NULL, 0, &err),
                     ETP_E_USAGE);
    check_ok(etp_bundle_write(b, "d/a.json", "x", 1, NULL, "core", NULL, 0, &err), &err);
    check_ok(etp_bundle_write(b, "d-x.json", "x", 1, NULL, "core", NULL, 0, &err), &err);
    assert_int_equal(etp_bundle_write(b, "d/a.json", "y", 1, NULL, "core", NULL, 0, &err),
                     ETP_E_USAGE);
    assert_non_null(strstr(err.message, "already in the bundle"));
    assert_int_equal(etp_bundle_write(b, "d", "y", 1, NULL, "core", NULL, 0, &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_write(b, "d/a.json/x", "y", 1, NULL, "core", NULL, 0, &err),
                     ETP_E_USAGE);
    /* Bad envelope values. */
    assert_int_equal(etp_bundle_set_json(b, "issues", "{}", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_json(b, "issues", "[{\"code\":\"a\"}]", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_json(b, "comparability", "[]", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_json(b, "comparability", "{\"a\":1,\"a\":2}", &err),
                     ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_json(b, "extensions", "{", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_json(b, "artifacts", "[]", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_options(b, "[1]", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_type(b, "Profile", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_identity(b, "not-a-uuid", NULL, &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_set_identity(b, NULL, "2026-01-02 03:04:05", &err), ETP_E_USAGE);
    assert_int_equal(etp_bundle_add_input(b, "etdump", "/nonexistent/x.etdp", &err), ETP_E_IO);
    assert_int_equal(etp_bundle_add_input(b, "etdump", "/tmp", &err), ETP_E_IO);
    assert_int_equal(etp_bundle_add_input(b, "ETDump", "/etc/hostname", &err), ETP_E_USAGE);
    /* An invalid status blocks publication. */
    etp_bundle_set_status(b, "done", "valid");
    assert_int_equal(etp_bundle_commit(b, &err), ETP_E_USAGE);
    assert_false(exists(dir, ETP_BUNDLE_MANIFEST));
    etp_bundle_set_status(b, "complete", "valid");
    check_ok(etp_bundle_commit(b, &err), &err);
    /* Published: no more changes. */
    assert_int_equal(etp_bundle_write(b, "late.json", "x", 1, NULL, "core", NULL, 0, &err),
                     ETP_E_USAGE);
    assert_int_equal(etp_bundle_commit(b, &err), ETP_E_USAGE);
    etp_bundle_free(b);
    etp_verify_report *r = verify(dir);
    assert_int_equal(r->problem_count, 0);
    etp_verify_report_free(r);
    tu_rmrf(dir);
    free(dir);
}

static void begin_refusals(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    etp_error err;
    etp_bundle *b = (etp_bundle *)1;
    char *file = path_in(dir, "file");
    write_text(file, "x");
    assert_int_equal(etp_bundle_begin(file, &b, &err), ETP_E_IO);
    assert_null(b);
    char *under = path_in(dir, "file/sub");
    assert_int_equal(etp_bundle_begin(under, &b, &err), ETP_E_IO);
    char *real = path_in(dir, "real");
    char *link = path_in(dir, "link");
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink("real", link), 0);
    assert_int_equal(etp_bundle_begin(link, &b, &err), ETP_E_IO);
    assert_non_null(strstr(err.message, "symlink"));
    assert_int_equal(etp_bundle_begin_ex(link, ETP_BUNDLE_FORCE, &b, &err), ETP_E_IO);
    /* Parents only on request. */
    char *deep = path_in(dir, "x/y/z");
    assert_int_equal(etp_bundle_begin(deep, &b, &err), ETP_E_IO);
    assert_non_null(strstr(err.message, "parent directory does not exist"));
    assert_false(exists(dir, "x"));
    check_ok(etp_bundle_begin_ex(deep, ETP_BUNDLE_PARENTS, &b, &err), &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    assert_true(exists(dir, "x/y/z/" ETP_BUNDLE_MANIFEST));
    free(deep);
    free(file);
    free(under);
    free(real);
    free(link);
    tu_rmrf(dir);
    free(dir);
}

/* A directory of symlinks replaced with ETP_BUNDLE_FORCE: nothing is
 * written through them, and they are removed (not what they point to). */
static void writes_never_follow_symlinks(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bundle = path_in(dir, "b");
    char *outside = path_in(dir, "outside");
    char *victim = path_in(dir, "victim.txt");
    assert_int_equal(mkdir(bundle, 0700), 0);
    assert_int_equal(mkdir(outside, 0700), 0);
    write_text(victim, "precious\n");
    char *sublink = path_in(bundle, "detailed");
    char *filelink = path_in(bundle, "summary.json");
    assert_int_equal(symlink(outside, sublink), 0);
    assert_int_equal(symlink(victim, filelink), 0);
    etp_error err;
    etp_bundle *b;
    assert_int_equal(etp_bundle_begin(bundle, &b, &err), ETP_E_IO); /* not a bundle */
    check_ok(etp_bundle_begin_ex(bundle, ETP_BUNDLE_FORCE, &b, &err), &err);
    check_ok(etp_bundle_write(b, "detailed/x.json", "{}", 2, NULL, "projection", NULL, 0, &err),
             &err);
    check_ok(etp_bundle_write(b, "summary.json", "{}", 2, NULL, "core", NULL, 0, &err), &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    char *leaked = path_in(outside, "x.json");
    struct stat st;
    assert_int_equal(lstat(leaked, &st), -1);
    assert_int_equal(lstat(outside, &st), 0);
    char *v = read_text(victim);
    assert_string_equal(v, "precious\n");
    free(v);
    assert_int_equal(lstat(filelink, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(lstat(sublink, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    etp_verify_report *r = verify(bundle);
    assert_int_equal(r->problem_count, 0);
    etp_verify_report_free(r);
    free(leaked);
    free(sublink);
    free(filelink);
    free(victim);
    free(outside);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static int fill_ok(FILE *fp, void *ctx, etp_error *err)
{
    (void)err;
    for (int i = 0; i < *(int *)ctx; i++)
        fprintf(fp, "%d\n", i);
    return 0;
}

static int fill_fails(FILE *fp, void *ctx, etp_error *err)
{
    (void)ctx;
    fputs("partial", fp);
    etp_error_set(err, ETP_E_FORMAT, "input.etdp", 12, "bad event");
    return -1;
}

/* A batch writes the same bundle as the same streams one after another,
 * and a failure anywhere in it records none of it. */
static char *batch_manifest(const char *bundle, int fail_at)
{
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(bundle, &b, &err), &err);
    check_ok(etp_bundle_set_identity(b, "00000000-0000-4000-8000-000000000000",
                                     "2026-01-01T00:00:00Z", &err),
             &err);
    int sizes[5] = {100000, 3, 50000, 7, 20000};
    static const char *const rel[5] = {"z/big.txt", "a.txt", "m/mid.txt", "b.txt", "z/c.txt"};
    etp_bundle_stream st[5];
    for (int i = 0; i < 5; i++)
        st[i] = (etp_bundle_stream){rel[i], NULL, "diagnostic", NULL, 0,
                                    i == fail_at ? fill_fails : fill_ok, &sizes[i]};
    etp_status s = fail_at == -1 ? etp_bundle_write_streams(b, st, 5, &err) : ETP_OK;
    for (int i = 0; fail_at == -2 && i < 5; i++)
        check_ok(etp_bundle_write_stream(b, rel[i], NULL, "diagnostic", NULL, 0, fill_ok,
                                         &sizes[i], &err),
                 &err);
    if (fail_at >= 0) {
        assert_int_equal(etp_bundle_write_streams(b, st, 5, &err), ETP_E_FORMAT);
        assert_string_equal(err.message, "bad event");
        /* a duplicate path inside the batch is refused before anything runs */
        st[fail_at] = st[0];
        assert_int_equal(etp_bundle_write_streams(b, st, 5, &err), ETP_E_USAGE);
        assert_non_null(strstr(err.message, "already in the bundle"));
        etp_bundle_free(b); /* abandoned: nothing is published */
        assert_false(exists(bundle, ETP_BUNDLE_MANIFEST));
        return NULL;
    }
    check_ok(s, &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    char *mp = path_in(bundle, ETP_BUNDLE_MANIFEST);
    char *m = read_text(mp);
    free(mp);
    etp_verify_report *r = verify(bundle);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->artifact_count, 5);
    etp_verify_report_free(r);
    return m;
}

/* A writer that stops when its file refuses bytes, as the table writers do. */
static int fill_until_refused(FILE *fp, void *ctx, etp_error *err)
{
    (void)ctx;
    (void)err;
    for (int i = 0; i < 200000; i++)
        if (fprintf(fp, "%d\n", i) < 0)
            return -1;
    return fflush(fp) == 0 ? 0 : -1;
}

/* A stream whose file cannot grow (the file size limit standing in for a
 * full disk) fails with the file's own error, not a bare "writer failed". */
static void stream_sink_error_is_reported(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *bundle = path_in(dir, "out");
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 65536;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(bundle, &b, &err), &err);
    etp_bundle_stream st = {"big.txt", NULL, "diagnostic", NULL, 0, fill_until_refused, NULL};
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    etp_status s = etp_bundle_write_streams(b, &st, 1, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    assert_int_equal(s, ETP_E_IO);
    assert_non_null(strstr(err.message, "artifact 'big.txt': write: "));
    assert_non_null(strstr(err.message, strerror(EFBIG)));
    etp_bundle_free(b);
    assert_false(exists(bundle, ETP_BUNDLE_MANIFEST));
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static void stream_batch(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *one = path_in(dir, "one"), *batch = path_in(dir, "batch"), *bad = path_in(dir, "bad");
    char *m1 = batch_manifest(one, -2), *m2 = batch_manifest(batch, -1);
    assert_string_equal(m1, m2);
    assert_null(batch_manifest(bad, 2));
    free(m1);
    free(m2);
    free(one);
    free(batch);
    free(bad);
    tu_rmrf(dir);
    free(dir);
}

/* Inputs hashed in the background are recorded as sequential adds would. */
static void inputs_in_background(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *in1 = path_in(dir, "run.etdp"), *in2 = path_in(dir, "m.pte");
    char *missing = path_in(dir, "nope.pte");
    write_text(in1, "abc");
    write_text(in2, "");
    const char *roles[] = {"etdump", "pte"};
    const char *paths[] = {in1, in2};
    etp_error err;
    etp_bundle *b;
    char *bundle = path_in(dir, "b");
    check_ok(etp_bundle_begin(bundle, &b, &err), &err);
    etp_bundle_input_job *j = etp_bundle_add_inputs_begin(b, roles, paths, 2, &err);
    assert_non_null(j);
    check_ok(etp_bundle_add_inputs_end(j, &err), &err);
    assert_string_equal(etp_bundle_input_sha256(b, "etdump", NULL),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    uint64_t size = 7;
    assert_string_equal(etp_bundle_input_sha256(b, "pte", &size),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_int_equal(size, 0);
    /* a file that cannot be read fails at the end, naming it; none recorded */
    paths[1] = missing;
    roles[0] = "log";
    j = etp_bundle_add_inputs_begin(b, roles, paths, 2, &err);
    assert_non_null(j);
    assert_int_equal(etp_bundle_add_inputs_end(j, &err), ETP_E_IO);
    assert_string_equal(err.file, missing);
    assert_null(etp_bundle_input_sha256(b, "log", NULL));
    /* a bad role is refused at once */
    roles[0] = "Bad Role";
    assert_null(etp_bundle_add_inputs_begin(b, roles, paths, 2, &err));
    assert_int_equal(err.code, ETP_E_USAGE);
    etp_bundle_free(b);
    free(in1);
    free(in2);
    free(missing);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

static void stream_writes_and_inputs(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *input = path_in(dir, "in.etdp");
    write_text(input, "abc"); /* sha256("abc") is a known vector */
    char *bundle = path_in(dir, "b");
    etp_error err;
    etp_bundle *b;
    check_ok(etp_bundle_begin(bundle, &b, &err), &err);
    check_ok(etp_bundle_add_input(b, "etdump", input, &err), &err);
    int lines = 200000;
    check_ok(etp_bundle_write_stream(b, "detailed/big.txt", NULL, "diagnostic", NULL, 0, fill_ok,
                                     &lines, &err),
             &err);
    assert_int_equal(etp_bundle_write_stream(b, "detailed/bad.txt", NULL, "diagnostic", NULL, 0,
                                             fill_fails, NULL, &err),
                     ETP_E_FORMAT);
    assert_string_equal(err.message, "bad event");
    assert_false(exists(bundle, "detailed/bad.txt"));
    check_ok(etp_bundle_set_json(b, "issues",
                                 "[{\"code\":\"a.b\",\"severity\":\"warning\",\"message\":\"m\"},"
                                 "{\"code\":\"c.d\",\"severity\":\"error\",\"message\":\"m\"}]",
                                 &err),
             &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    char *mp = path_in(bundle, ETP_BUNDLE_MANIFEST);
    char *m = read_text(mp);
    assert_non_null(strstr(m, "\"validity\": \"invalid\"")); /* derived: an error issue */
    assert_non_null(strstr(m, "\"name\": \"in.etdp\""));
    assert_null(strstr(m, dir)); /* no local directories in the manifest */
    assert_non_null(
        strstr(m, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    assert_null(strstr(m, "options"));
    free(m);
    etp_verify_report *r = verify(bundle);
    assert_int_equal(r->problem_count, 0);
    assert_int_equal(r->artifact_count, 1);
    etp_verify_report_free(r);
    free(mp);
    free(input);
    free(bundle);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_bundle_verifies),
        cmocka_unit_test(manifest_content),
        cmocka_unit_test(flipped_byte_in_each_artifact),
        cmocka_unit_test(deleted_artifact),
        cmocka_unit_test(truncated_artifact),
        cmocka_unit_test(unsafe_paths),
        cmocka_unit_test(symlinked_artifact),
        cmocka_unit_test(symlinked_subdirectory),
        cmocka_unit_test(duplicate_entry),
        cmocka_unit_test(wrong_size),
        cmocka_unit_test(malformed_manifest_members),
        cmocka_unit_test(manifest_not_json),
        cmocka_unit_test(manifest_missing_or_symlink),
        cmocka_unit_test(artifact_not_regular),
        cmocka_unit_test(undeclared_files_warn),
        cmocka_unit_test(cli_usage_and_missing_dir),
        cmocka_unit_test(no_manifest_without_commit),
        cmocka_unit_test(old_bundle_kept_until_commit),
        cmocka_unit_test(probe_and_abandon),
        cmocka_unit_test(manifests_are_deterministic),
        cmocka_unit_test(write_refusals),
        cmocka_unit_test(begin_refusals),
        cmocka_unit_test(writes_never_follow_symlinks),
        cmocka_unit_test(stream_writes_and_inputs), cmocka_unit_test(stream_batch),
        cmocka_unit_test(stream_sink_error_is_reported),
        cmocka_unit_test(inputs_in_background),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
