/* testutil.c - helpers shared by the cmocka tests. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *fixtures_root(void)
{
    const char *e = getenv("ETP_FIXTURES");
    return e && *e ? e : "../shared/fixtures";
}

int tu_have_fixtures(void)
{
    struct stat st;
    return stat(fixtures_root(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *tu_fixture(const char *rel)
{
    static char bufs[8][1024];
    static int slot;
    if (!tu_have_fixtures())
        return NULL;
    char *b = bufs[slot++ % 8];
    snprintf(b, 1024, "%s/%s", fixtures_root(), rel);
    return b;
}

uint8_t *tu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf && size)
        *size = (size_t)n;
    return buf;
}

char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/etprof-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    if (!d)
        return NULL;
    char *out = malloc(strlen(d) + 1);
    if (out)
        strcpy(out, d);
    return out;
}

void tu_rmrf(const char *path)
{
    if (!path || strncmp(path, "/tmp/etprof-test-", 17) != 0)
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", path);
}

char *tu_run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    size_t n;
    while (out && (n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(out, cap * 2);
            if (!nb) {
                free(out);
                out = NULL;
                break;
            }
            out = nb;
            cap *= 2;
        }
    }
    int st = pclose(p);
    if (status)
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    if (out)
        out[len] = '\0';
    return out;
}

const char *tu_etprof(void)
{
    const char *e = getenv("ETPROF");
    return e && *e ? e : "./etprof";
}

uint64_t tu_rand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

char *tu_stream_text(FILE *fp, size_t *len)
{
    long n = ftell(fp);
    if (n < 0)
        return NULL;
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        return NULL;
    if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len)
        *len = (size_t)n;
    return buf;
}

int tu_stream_equals(FILE *fp, const char *want, size_t len)
{
    size_t got_len = 0;
    char *got = tu_stream_text(fp, &got_len);
    int same = got && got_len == len && !memcmp(got, want, len);
    free(got);
    return same;
}

etp_diff_identity tu_diff_identity(uint32_t executions)
{
    etp_diff_identity id;
    memset(&id, 0, sizeof id);
    id.label = "side";
    id.origin = "bundle";
    id.program_sha256 = "aa";
    id.method = "forward";
    id.time_unit = ETP_UNIT_MS;
    id.has_tick_unit = 1;
    id.tick_unit = ETP_UNIT_NS;
    id.status = "complete";
    id.validity = "valid";
    id.executions = executions;
    return id;
}
