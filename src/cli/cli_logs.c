/* cli_logs.c - see cli_logs.h. */
#include "cli/cli_logs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etprof/blob.h"
#include "etprof/units.h"

const char *cli_run_embed_log = NULL;
const char *cli_run_command_line = NULL;
const char *cli_run_runner_json = NULL;
const char *cli_run_testset_basis = NULL;

const char *cli_run_embed_measurements = NULL;

#define CLI_MAX_ALIASES 40
static const char *alias_real[CLI_MAX_ALIASES], *alias_shown[CLI_MAX_ALIASES];
static int alias_count;

int cli_path_alias(const char *real, const char *shown)
{
    if (alias_count == CLI_MAX_ALIASES)
        return -1;
    alias_real[alias_count] = real;
    alias_shown[alias_count++] = shown;
    return 0;
}

void cli_path_aliases_clear(void) { alias_count = 0; }

const char *cli_log_shown_name(const char *path)
{
    if (!path)
        return NULL;
    if (cli_run_embed_log && !strcmp(path, cli_run_embed_log))
        return "logs/runner.log";
    for (int i = 0; i < alias_count; i++)
        if (!strcmp(path, alias_real[i]))
            return alias_shown[i];
    return path;
}

int cli_logs_add(cli_logs *c, const char *path)
{
    if (c->n == CLI_MAX_LOGS)
        return cli_usage("analyze", "at most %d --log files", CLI_MAX_LOGS);
    c->paths[c->n++] = path;
    return ETP_EXIT_OK;
}

/* Write carried file @p b as @p name in the private temporary directory
 * (made on first use) into *@p out. */
static int write_tmp(cli_logs *c, const etp_dl_blob *b, const char *name, char **out)
{
    if (!c->tmpdir) {
        const char *base = getenv("TMPDIR");
        c->tmpdir = malloc(strlen(base && *base ? base : "/tmp") + 32);
        if (!c->tmpdir)
            return cli_error("out of memory");
        sprintf(c->tmpdir, "%s/etprof-log-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(c->tmpdir)) {
            free(c->tmpdir);
            c->tmpdir = NULL;
            return cli_error("cannot create a temporary directory for the log's %s: %s", name, strerror(errno));
        }
    }
    /* The manifest records the input by its base name: keep the log's. */
    *out = malloc(strlen(c->tmpdir) + strlen(name) + 2);
    if (!*out)
        return cli_error("out of memory");
    sprintf(*out, "%s/%s", c->tmpdir, name);
    FILE *fp = fopen(*out, "wb");
    int bad = !fp || fwrite(b->data, 1, b->size, fp) != b->size;
    if (fp && fclose(fp))
        bad = 1;
    if (bad)
        return cli_error("%s: cannot write the log's %s: %s", *out, name, strerror(errno));
    return ETP_EXIT_OK;
}

/* Are the bytes of @p path those of @p b? -1 when it cannot be read. */
static int same_bytes(const char *path, const etp_dl_blob *b)
{
    etp_blob *f;
    etp_error err;
    if (etp_blob_open(path, (size_t)1 << 34, &f, &err))
        return -1;
    int same = f->size == b->size && !memcmp(f->data, b->data, b->size);
    etp_blob_free(f);
    return same;
}

int cli_logs_load(cli_logs *c, const char **etdump, cli_units *u, int unit_given)
{
    etp_error err;
    etp_error_clear(&err);
    const char *real[CLI_MAX_LOGS]; /* the path each loaded log was read from */
    int stdin_at = -1;              /* how many logs were loaded before "-" */
    for (uint32_t i = 0; i < c->n; i++) {
        if (!strcmp(c->paths[i], "-")) { /* standard input: read once, by the runner log */
            if (stdin_at < 0)
                stdin_at = (int)c->nloaded;
            continue;
        }
        if (etp_device_log_open_as(c->paths[i], cli_log_shown_name(c->paths[i]), &c->logs[c->nloaded], &err))
            return cli_fail(&err);
        real[c->nloaded++] = c->paths[i];
    }
    etp_device_logs_view v;
    if (etp_device_logs_view_read((const etp_device_log *const *)c->logs, c->nloaded, &v, &err))
        return cli_fail(&err);
    c->runner = stdin_at >= 0 && (v.runner < 0 || stdin_at <= v.runner) ? "-"
                : v.runner >= 0                                         ? real[v.runner]
                                                                        : NULL;
    const etp_device_log *carrier = v.etdump_carrier;
    int from_log = 0;
    if (carrier && *etdump) {
        int same = same_bytes(*etdump, &carrier->etdump);
        if (same == 0)
            return cli_error("%s carries an ETDump (line %u) that differs from --etdump %s", carrier->path,
                             carrier->etdump.line, *etdump);
        from_log = same == 1;
    } else if (carrier) {
        int rc = write_tmp(c, &carrier->etdump, "etdump.bin", &c->tmp_etdump);
        if (rc)
            return rc;
        *etdump = c->tmp_etdump;
        from_log = 1;
    }
    if (from_log)
        c->etdump_log = carrier->path;
    /* Tick-unit evidence (the Arm runner's cycle clock) counts for the dump it came with. */
    if (from_log && v.has_tick_unit && !u->source_given && v.tick_unit == ETP_UNIT_CYCLES) {
        u->source = ETP_UNIT_CYCLES;
        u->source_given = 1;
        if (!unit_given && !(u->cpu_hz > 0))
            u->target = ETP_UNIT_CYCLES;
    }
    return ETP_EXIT_OK;
}

int cli_logs_debug_buffer(cli_logs *c, const char *given, cli_debug_buffer *out)
{
    memset(out, 0, sizeof *out);
    etp_device_logs_view v;
    etp_error verr;
    etp_error_clear(&verr);
    if (etp_device_logs_view_read((const etp_device_log *const *)c->logs, c->nloaded, &v, &verr))
        return cli_fail(&verr);
    const etp_device_log *carrier = v.debug_carrier;
    if (given) {
        if (cli_input_not_executorch(given, "a debug buffer", "--debug-buffer"))
            return ETP_EXIT_INPUT;
        etp_blob *f;
        etp_error err;
        etp_error_clear(&err);
        if (etp_blob_open(given, (size_t)1 << 34, &f, &err))
            return cli_fail(&err);
        int same = !carrier || (f->size == carrier->debug_buffer.size &&
                                !memcmp(f->data, carrier->debug_buffer.data, f->size));
        out->size = f->size;
        out->data = f->data;
        c->debug_blob = f;
        if (!same)
            return cli_error("%s carries a debug buffer (line %u, %zu bytes) that differs from --debug-buffer %s "
                             "(%llu bytes)",
                             carrier->path, carrier->debug_buffer.line, carrier->debug_buffer.size, given,
                             (unsigned long long)out->size);
        out->path = given;
        out->name = cli_log_shown_name(given);
        return ETP_EXIT_OK;
    }
    if (!carrier)
        return ETP_EXIT_OK;
    int rc = write_tmp(c, &carrier->debug_buffer, "debug_buffer.bin", &c->tmp_debug);
    if (rc)
        return rc;
    size_t n = strlen(carrier->path) + 64;
    if (!(c->debug_name = malloc(n)))
        return cli_error("out of memory");
    snprintf(c->debug_name, n, "debug_buffer.bin carried by %s (line %u)", carrier->path, carrier->debug_buffer.line);
    out->path = c->tmp_debug;
    out->name = c->debug_name;
    out->size = carrier->debug_buffer.size;
    out->data = carrier->debug_buffer.data;
    return ETP_EXIT_OK;
}

void cli_logs_free(cli_logs *c)
{
    for (uint32_t i = 0; i < c->nloaded; i++)
        etp_device_log_free(c->logs[i]);
    if (c->tmp_debug)
        unlink(c->tmp_debug);
    free(c->tmp_debug);
    free(c->debug_name);
    etp_blob_free(c->debug_blob);
    if (c->tmp_etdump)
        unlink(c->tmp_etdump);
    if (c->tmpdir)
        rmdir(c->tmpdir);
    free(c->tmp_etdump);
    free(c->tmpdir);
    memset(c, 0, sizeof *c);
}
