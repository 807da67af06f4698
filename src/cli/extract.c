/* extract.c - `etprof extract CAPTURE.log -o DIR`: write the files a console
 * log carries as base64 (the ETDump, the debug buffer) to DIR, decoded and
 * checked (etprof/device_log.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "etprof/device_log.h"

static void help(void)
{
    printf("usage: etprof extract CAPTURE.log -o DIR [--quiet]\n\n"
           "Decode the files a device console log carries as base64 - the Arm runner's\n"
           "#[RUN THIS] block (etdump.bin, debug_buffer.bin) or a bare base64 body between\n"
           "lines naming etdump.bin - into DIR (created if missing). Malformed or cut-short\n"
           "base64, and two different ETDumps in one log, are errors.\n"
           "Exit status: 0 written, 1 bad log or nothing carried, 2 usage.\n");
}

typedef struct blob_ctx {
    const etp_dl_blob *b;
} blob_ctx;

static etp_status fill(FILE *fp, void *ctx, etp_error *err)
{
    const etp_dl_blob *b = ((blob_ctx *)ctx)->b;
    if (fwrite(b->data, 1, b->size, fp) != b->size)
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "write error: %s", strerror(errno));
    return ETP_OK;
}

/* The file name to write: the log's name without directories, and only
 * from a safe alphabet (the name comes from the log: untrusted). */
static void safe_name(const char *name, const char *fallback, char *out, size_t cap)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t k = 0;
    for (const char *p = base; *p && k + 1 < cap; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '_' || *p == '-' || (*p == '.' && k))
            out[k++] = *p;
    out[k] = '\0';
    if (!k)
        snprintf(out, cap, "%s", fallback);
}

static int write_blob(const char *dir, const etp_dl_blob *b, const char *fallback, int quiet)
{
    char name[128], path[4200];
    safe_name(b->name, fallback, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    blob_ctx c = {b};
    int rc = cli_write_atomic(path, fill, &c);
    if (!rc && !quiet)
        printf("%s: %zu bytes (base64 from line %u)\n", path, b->size, b->line);
    return rc;
}

int cmd_extract(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *outdir = NULL;
    int quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_usage("extract", "bad option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage("extract", "give exactly one CAPTURE.log");
    if (!outdir)
        return cli_usage("extract", "-o DIR is required");
    const char *log = argv[optind];
    etp_error err;
    etp_error_clear(&err);
    etp_device_log *l;
    if (etp_device_log_open(log, &l, &err))
        return cli_fail(&err);
    int rc = ETP_EXIT_OK;
    if (!l->etdump.data && !l->debug_buffer.data) {
        rc = cli_error("%s: carries no base64 ETDump or debug buffer (no #[RUN THIS] block, no "
                       "base64 body between lines naming etdump.bin)",
                       log);
    } else if (mkdir(outdir, 0777) && errno != EEXIST) {
        rc = cli_error("%s: cannot create: %s", outdir, strerror(errno));
    } else {
        if (l->etdump.data)
            rc = write_blob(outdir, &l->etdump, "etdump.bin", quiet);
        if (!rc && l->debug_buffer.data)
            rc = write_blob(outdir, &l->debug_buffer, "debug_buffer.bin", quiet);
        if (!rc && !quiet && l->has_etdump_tick_unit)
            printf("ticks of this ETDump: %s (line %u); analyse it with --source-unit %s\n",
                   etp_unit_name(l->etdump_tick_unit), l->etdump_tick_unit_line,
                   etp_unit_name(l->etdump_tick_unit));
    }
    etp_device_log_free(l);
    return rc;
}
