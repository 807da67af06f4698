/* fuzz_etrecord.c - libFuzzer target for the ETRecord reader.
 *
 * Two shapes of input, chosen by the first byte:
 *   even: the rest is a whole zip archive (container parsing);
 *   odd:  the rest is split on "\n--\n" into the contents of the program and
 *         map entries, which are zipped here with valid CRCs so mutations
 *         reach the JSON, program and map decoders instead of dying on a
 *         checksum.
 * Any outcome but a crash, leak, hang or sanitizer report is fine; a
 * successful open is also written as JSON and outlined. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "etprof/dump.h"
#include "etprof/etrecord.h"
#include "outputs/dump/outline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const entry_names[] = {
    "edge_dialect_exported_program/forward", "debug_handle_map", "delegate_map",
    "instruction_id_to_num_outs_map",        "export_graph_id",  "aten_dialect_output/forward",
    "edge_dialect_exported_program",
};
#define N_ENTRIES (sizeof entry_names / sizeof entry_names[0])

/* Zip the separated parts; returns a malloc'd archive or NULL. */
static uint8_t *zip_parts(const uint8_t *data, size_t size, size_t *out_len)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!src)
        return NULL;
    zip_source_keep(src);
    zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, &ze);
    uint8_t *buf = NULL;
    if (!za)
        goto out;
    zip_file_add(za, "ETRECORD_V0", zip_source_buffer(za, "", 0, 0), 0);
    size_t pos = 0;
    for (size_t k = 0; k < N_ENTRIES && pos <= size; k++) {
        const uint8_t *end = NULL;
        for (size_t i = pos; i + 4 <= size; i++)
            if (memcmp(data + i, "\n--\n", 4) == 0) {
                end = data + i;
                break;
            }
        size_t n = end ? (size_t)(end - (data + pos)) : size - pos;
        zip_source_t *s = zip_source_buffer(za, data + pos, n, 0);
        zip_int64_t idx = s ? zip_file_add(za, entry_names[k], s, 0) : -1;
        if (idx < 0) {
            zip_source_free(s);
            break;
        }
        /* STORED: deflating here would cost more than the reader under test
         * (raw mode covers DEFLATE archives). */
        zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
        pos += n + 4;
        if (!end)
            break;
    }
    if (zip_close(za) != 0) {
        zip_discard(za);
        goto out;
    }
    if (zip_source_open(src) != 0)
        goto out;
    zip_source_seek(src, 0, SEEK_END);
    zip_int64_t len = zip_source_tell(src);
    zip_source_seek(src, 0, SEEK_SET);
    if (len > 0 && (buf = malloc((size_t)len)) != NULL &&
        zip_source_read(src, buf, (zip_uint64_t)len) != len) {
        free(buf);
        buf = NULL;
    }
    *out_len = (size_t)len;
    zip_source_close(src);
out:
    zip_source_free(src);
    zip_error_fini(&ze);
    return buf;
}

static void exercise(const etp_etrecord *r)
{
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        etp_etrecord_write_json(r, sink, 1, NULL);
        etp_outline_etrecord(r, sink);
        fclose(sink);
    }
    for (uint32_t i = 0; i < r->method_count; i++) {
        const etp_method_maps *m = &r->methods[i];
        const etp_exported_program *p = etp_etrecord_edge_program(r, m->method);
        for (uint32_t k = 0; k < m->handle_count; k++) {
            int32_t id = m->handles[k].instruction_id;
            int64_t outs;
            etp_etrecord_instr_handles(m, id);
            etp_etrecord_instr_delegate(m, id);
            etp_etrecord_instr_num_outs(m, id, &outs);
            for (uint32_t h = 0; p && h < m->handles[k].handles.count; h++)
                etp_exported_program_nodes_with_handle(p, m->handles[k].handles.handles[h], NULL);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t *zip = NULL;
    const uint8_t *in = data + 1;
    size_t n = size - 1;
    if (data[0] & 1) {
        zip = zip_parts(data + 1, size - 1, &n);
        if (!zip)
            return 0;
        in = zip;
    }
    etp_error err;
    etp_error_clear(&err);
    etp_etrecord *r = NULL;
    if (etp_etrecord_from_memory(in, n, "fuzz", &r, &err) == ETP_OK) {
        exercise(r);
        etp_etrecord_free(r);
    }
    free(zip);
    return 0;
}
