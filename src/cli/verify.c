/* verify.c - `etprof verify DIR`: is this result bundle complete and intact? */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "etprof/bundle.h"

static void help(void)
{
    printf("usage: etprof verify [--strict] [--quiet] DIR\n\n"
           "Check the result bundle in DIR against its result_manifest.json: the manifest\n"
           "parses and is an etprof manifest of schema version 1, and every declared\n"
           "artifact has a safe relative path, is declared once, is a regular file inside\n"
           "DIR reached without following any symlink, and has the declared size and\n"
           "SHA-256. DIR may also be given as DIR/result_manifest.json.\n\n"
           "Prints one line per problem (`etprof: DIR/PATH: what is wrong`) on stderr.\n"
           "Files under DIR that the manifest does not declare are reported as\n"
           "`etprof: warning: ...` lines; they do not fail verification unless --strict.\n\n"
           "  --strict   undeclared files are problems too\n"
           "  --quiet    print nothing on success\n\n"
           "Exit status: 0 the bundle verifies, 1 it does not (or DIR cannot be read),\n"
           "2 usage error.\n");
}

/* Accept DIR/result_manifest.json for DIR: people point at the file they see. */
static void bundle_dir_of(const char *arg, char *out, size_t size)
{
    size_t n = strlen(arg), m = strlen(ETP_BUNDLE_MANIFEST);
    struct stat st;
    if (n >= m && !strcmp(arg + n - m, ETP_BUNDLE_MANIFEST) && (n == m || arg[n - m - 1] == '/') &&
        lstat(arg, &st) == 0 && !S_ISDIR(st.st_mode)) {
        if (n == m)
            snprintf(out, size, ".");
        else
            snprintf(out, size, "%.*s", (int)(n - m - 1), arg);
        if (!out[0])
            snprintf(out, size, "/");
        return;
    }
    snprintf(out, size, "%s", arg);
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"strict", no_argument, NULL, 's'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int strict = 0, quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
        switch (c) {
        case 's': strict = 1; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("verify", argv);
        }
    }
    if (optind + 1 != argc)
        return cli_usage("verify", "verify takes exactly one DIR");
    char dir[4096];
    bundle_dir_of(argv[optind], dir, sizeof dir);

    etp_error err;
    etp_error_clear(&err);
    /* Verified, then read back: a bundle passes only if a consumer
     * (etp_bundle_open) can also read what it declares. */
    etp_verify_report *r = NULL;
    etp_bundle_doc *doc = NULL;
    etp_status s = etp_bundle_open_report(dir, &doc, &r, &err);
    if (!r)
        return cli_fail(&err);
    for (uint32_t i = 0; i < r->problem_count; i++)
        fprintf(stderr, "etprof: %s\n", r->problems[i]);
    for (uint32_t i = 0; i < r->warning_count; i++)
        fprintf(stderr, "etprof: %s%s\n", strict ? "" : "warning: ", r->warnings[i]);
    uint32_t failures = r->problem_count + (strict ? r->warning_count : 0);
    if (!r->problem_count && s) {
        cli_fail(&err); /* it verifies but does not read back */
        failures++;
    }
    if (failures == 0 && !quiet)
        printf("%s: ok, %u artifact%s verified%s\n", dir, r->artifact_count,
               r->artifact_count == 1 ? "" : "s",
               r->warning_count ? " (with warnings)" : "");
    else if (failures)
        fprintf(stderr, "etprof: %s: bundle does not verify (%u problem%s)\n", dir, failures,
                failures == 1 ? "" : "s");
    etp_bundle_close(doc);
    etp_verify_report_free(r);
    return failures ? ETP_EXIT_INPUT : ETP_EXIT_OK;
}
