/* fuzz_manifest.c - libFuzzer target for the result-manifest verifier.
 *
 * The input is the manifest text; it is checked against a small fixed
 * bundle directory (made once, in /tmp) holding a regular file, a
 * subdirectory, a symlink and a FIFO, so path walking, hashing and the
 * undeclared-file scan all run. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bundle/bundle_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static int dirfd_ = -1;

static void put(const char *rel, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/etprof-fuzz-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    char p[256];
    put("summary.json", "{}\n");
    snprintf(p, sizeof p, "%s/detailed", dir);
    mkdir(p, 0700);
    put("detailed/a.csv", "a,b\n1,2\n");
    snprintf(p, sizeof p, "%s/link", dir);
    if (symlink("/etc/hostname", p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/fifo", dir);
    mkfifo(p, 0600);
    dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
    if (dirfd_ < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (dirfd_ < 0)
        setup();
    etp_verify_report *r = calloc(1, sizeof *r);
    if (!r)
        return 0;
    etp_bundle_verify_text(dirfd_, dir, (const char *)data, size, r);
    etp_verify_report_free(r);
    return 0;
}
