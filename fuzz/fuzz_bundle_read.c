/* fuzz_bundle_read.c - libFuzzer target for reading a bundle back
 * (etp_bundle_open without verification, so every input gets parsed).
 *
 * A fixed manifest (made once, in /tmp) declares summary.json,
 * run_metadata.json and an operators table (operators.csv in one bundle,
 * operators.json in another). The first byte of the input says which of
 * the four files the rest becomes; the others hold a minimal valid text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etprof/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dirs[2][64];

static void put(const char *dir, const char *rel, const void *data, size_t size)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
}

static void make(char *dir, const char *table)
{
    static const char zeros[] = "0000000000000000000000000000000000000000000000000000000000000000";
    snprintf(dir, 64, "/tmp/etprof-fuzz-read-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    char manifest[2048];
    int n = snprintf(manifest, sizeof manifest,
                     "{\"schema\":\"etprof.result-manifest\",\"schema_version\":1,"
                     "\"bundle_type\":\"profile\",\"status\":\"complete\",\"validity\":\"valid\","
                     "\"tool\":{\"name\":\"etprof\",\"version\":\"0\"},\"issues\":[],"
                     "\"provenance\":{\"inputs\":[]},\"artifacts\":["
                     "{\"path\":\"summary.json\",\"media_type\":\"application/json\","
                     "\"size_bytes\":0,\"sha256\":\"%s\"},"
                     "{\"path\":\"run_metadata.json\",\"media_type\":\"application/json\","
                     "\"size_bytes\":0,\"sha256\":\"%s\"},"
                     "{\"path\":\"%s\",\"media_type\":\"text/plain\","
                     "\"size_bytes\":0,\"sha256\":\"%s\"}]}",
                     zeros, zeros, table, zeros);
    put(dir, "result_manifest.json", manifest, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dirs[0][0]) {
        make(dirs[0], "operators.csv");
        make(dirs[1], "operators.json");
    }
    if (size < 1)
        return 0;
    static const char *const files[] = {"summary.json", "run_metadata.json", "operators.csv",
                                        "operators.json"};
    int mode = data[0] & 3;
    const char *dir = dirs[mode == 3];
    for (int k = 0; k < 4; k++) {
        if ((k == 2 && mode == 3) || (k == 3 && mode != 3))
            continue; /* the other bundle's table */
        if (k == mode)
            put(dir, files[k], data + 1, size - 1);
        else
            put(dir, files[k], k == 2 ? "a\n" : k == 3 ? "{\"entities\":[]}" : "{}",
                k == 2 ? 2 : k == 3 ? 15 : 2);
    }
    etp_bundle_doc *doc = NULL;
    etp_error err;
    if (etp_bundle_open(dir, 0, &doc, &err) == ETP_OK) {
        const etp_bundle_table *t = etp_bundle_doc_operators(doc);
        for (uint32_t r = 0; r < t->row_count; r++)
            for (uint32_t c = 0; c < t->column_count; c++)
                if (!etp_bundle_table_cell(t, r, c)->text)
                    abort();
        etp_bundle_close(doc);
    }
    return 0;
}
