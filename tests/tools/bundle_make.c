/* bundle_make.c - write a small but complete result bundle through the
 * public bundle API, for the scenario tests (schema validation, CLI verify).
 *
 * usage: bundle_make DIR [--fixed-identity]
 * Also writes DIR.inputs/ with two made-up input files that the bundle's
 * provenance records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etprof/bundle.h"

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int fail(const etp_error *err)
{
    char buf[1200];
    fprintf(stderr, "bundle_make: %s\n", etp_error_format(err, buf, sizeof buf));
    return 1;
}

static int fill_detail(FILE *fp, void *ctx, etp_error *err)
{
    (void)ctx;
    (void)err;
    fputs("[", fp);
    for (int i = 0; i < 1000; i++)
        fprintf(fp, "%s{\"event\":%d,\"ticks\":%d}", i ? "," : "", i, i * 7);
    fputs("]\n", fp);
    return ferror(fp) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bundle_make DIR [--fixed-identity]\n");
        return 2;
    }
    const char *dir = argv[1];
    int fixed = argc > 2 && !strcmp(argv[2], "--fixed-identity");
    char inputs[4096], etdp[4200], pte[4200];
    snprintf(inputs, sizeof inputs, "%s.inputs", dir);
    snprintf(etdp, sizeof etdp, "%s/run.etdp", inputs);
    snprintf(pte, sizeof pte, "%s/model.pte", inputs);
    mkdir(inputs, 0777);
    if (put(etdp, "not really an etdump, only bytes to hash\n") || put(pte, "ET12 stand-in\n")) {
        fprintf(stderr, "bundle_make: cannot write %s\n", inputs);
        return 1;
    }

    etp_error err;
    etp_error_clear(&err);
    etp_bundle *b;
    if (etp_bundle_begin(dir, &b, &err))
        return fail(&err);
    const char *summary = "{\n  \"schema\": \"etprof.summary\",\n  \"schema_version\": 1,\n"
                          "  \"validity\": \"degraded\"\n}\n";
    const char *ops = "entity_id,name,count,avg_us\nc0i1,aten::add,10,1.5\n";
    const char *meta = "{\"schema\":\"etprof.run-metadata\",\"schema_version\":1}\n";
    const char *overlay = "{\"main\":{\"results\":{}}}\n";
    int rc = (fixed && etp_bundle_set_identity(b, "01234567-89ab-4cde-8f01-23456789abcd",
                                               "2026-01-02T03:04:05Z", &err)) ||
             etp_bundle_add_input(b, "etdump", etdp, &err) ||
             etp_bundle_add_input(b, "pte", pte, &err) ||
             etp_bundle_set_options(b, "{\"top\": 10, \"aggregation\": \"median\", "
                                       "\"method\": \"forward\"}", &err) ||
             etp_bundle_set_json(b, "issues",
                                 "[{\"code\": \"timing.unresolved_handles\", \"severity\": "
                                 "\"warning\", \"message\": \"2 debug handles had no operator\", "
                                 "\"context\": {\"count\": 2}}]", &err) ||
             etp_bundle_set_json(b, "comparability",
                                 "{\"pte_sha256\": null, \"method\": \"forward\", "
                                 "\"etdump_version\": 0}", &err) ||
             etp_bundle_set_json(b, "extensions", "{\"executorch\": {\"runs\": 10}}", &err) ||
             etp_bundle_write(b, "summary.json", summary, strlen(summary), NULL, "core",
                              "etprof.summary", 1, &err) ||
             etp_bundle_write(b, "operators.csv", ops, strlen(ops), NULL, "core", NULL, 0, &err) ||
             etp_bundle_write(b, "run_metadata.json", meta, strlen(meta), NULL, "core",
                              "etprof.run-metadata", 1, &err) ||
             etp_bundle_write(b, "model_explorer/me_overlay_avg_us.json", overlay,
                              strlen(overlay), NULL, "export", NULL, 0, &err) ||
             etp_bundle_write_stream(b, "detailed/events.json", NULL, "projection", NULL, 0,
                                     fill_detail, NULL, &err) ||
             etp_bundle_commit(b, &err);
    if (rc) {
        etp_bundle_free(b);
        return fail(&err);
    }
    etp_bundle_free(b);
    return 0;
}
