/* bench_etrecord.c - cost of opening an ETRecord whose edge program holds a
 * huge base64 string (a lowered delegate's processed_bytes).
 *
 *   bench_etrecord gen PATH MB [deflate]   write the archive (streamed)
 *   bench_etrecord open PATH               open it, print time and peak RSS
 *   bench_etrecord phases PATH [REPEAT]    per program entry: time to read
 *                                          and squeeze, prune, decode with
 *                                          the fast path, with jansson (min
 *                                          of REPEAT decodes, default 5)
 *
 * The generator and the reader run as separate processes so the reader's
 * peak RSS is its own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zip.h>

#include "etprof/etrecord.h"
#include "formats/etrecord/etrecord_internal.h"
#include "util/json_arena.h"

static const char head[] =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}], \"nodes\": ["
    "{\"name\": \"executorch_call_delegate\", "
    "\"target\": \"torch.ops.higher_order.executorch_call_delegate\", \"inputs\": ["
    "{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": \"{\\\"backend_id\\\": "
    "\\\"XnnpackBackend\\\", \\\"processed_bytes\\\": \\\"";
static const char tail[] =
    "\\\"}\"}}, {\"name\": \"delegate_arg_0\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}}],"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}], \"metadata\": {\"debug_handle\": \"1\"}}]"
    "}}, \"schema_version\": {\"major\": 5, \"minor\": 4}}";

/* Streams head + n pseudo-random base64 bytes + tail without holding them. */
typedef struct gen {
    uint64_t n, pos, total, rng;
} gen;

static zip_int64_t gen_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    gen *g = ud;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    switch (cmd) {
    case ZIP_SOURCE_OPEN: g->pos = 0; g->rng = 0x9E3779B97F4A7C15ull; return 0;
    case ZIP_SOURCE_READ: {
        char *out = data;
        zip_uint64_t k = 0;
        uint64_t hl = sizeof head - 1;
        while (k < len && g->pos < g->total) {
            if (g->pos < hl)
                out[k] = head[g->pos];
            else if (g->pos < hl + g->n) {
                g->rng ^= g->rng << 13;
                g->rng ^= g->rng >> 7;
                g->rng ^= g->rng << 17;
                out[k] = b64[g->rng & 63];
            } else
                out[k] = tail[g->pos - hl - g->n];
            k++;
            g->pos++;
        }
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE: return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = g->total;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR: return 2 * sizeof(int);
    case ZIP_SOURCE_FREE: return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              -1);
    default: return -1;
    }
}

static int add_str(zip_t *za, const char *name, const char *s)
{
    zip_source_t *src = zip_source_buffer(za, s, strlen(s), 0);
    zip_int64_t i = src ? zip_file_add(za, name, src, 0) : -1;
    if (i < 0)
        return -1;
    return zip_set_file_compression(za, (zip_uint64_t)i, ZIP_CM_STORE, 0);
}

static int cmd_gen(const char *path, uint64_t mb, int deflate)
{
    int e;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
    if (!za)
        return fprintf(stderr, "cannot create %s\n", path), 1;
    static gen g;
    g.n = mb << 20;
    g.total = sizeof head - 1 + g.n + sizeof tail - 1;
    if (add_str(za, "ETRECORD_V0", ""))
        return 1;
    zip_source_t *src = zip_source_function(za, gen_cb, &g);
    zip_int64_t i = src ? zip_file_add(za, "edge_dialect_exported_program/forward", src, 0) : -1;
    if (i < 0 || zip_set_file_compression(za, (zip_uint64_t)i,
                                          deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0))
        return fprintf(stderr, "%s\n", zip_strerror(za)), 1;
    if (add_str(za, "debug_handle_map", "{\"forward\": {\"0\": [1]}}") ||
        add_str(za, "delegate_map",
                "{\"forward\": {\"0\": {\"name\": \"XnnpackBackend\", \"delegate_map\": {}}}}"))
        return 1;
    if (zip_close(za))
        return fprintf(stderr, "%s\n", zip_strerror(za)), 1;
    printf("wrote %s: %llu MiB base64 string, %s\n", path, (unsigned long long)mb,
           deflate ? "deflate" : "stored");
    return 0;
}

static int cmd_open(const char *path)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    etp_error err;
    etp_etrecord *r;
    if (etp_etrecord_open(path, &r, &err))
        return fprintf(stderr, "%s: %s\n", path, err.message), 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const etp_exported_program *p = etp_etrecord_edge_program(r, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("opened %s (%llu bytes): %.3f s, peak RSS %ld MiB; edge program %u nodes, "
           "%llu string(s) skipped, %llu bytes\n",
           path, (unsigned long long)r->file_size,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
           ru.ru_maxrss / 1024, p ? p->node_count : 0,
           p ? (unsigned long long)p->skipped_strings : 0ull,
           p ? (unsigned long long)p->skipped_bytes : 0ull);
    etp_etrecord_free(r);
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How a program entry's text is decoded. */
enum { JANSSON, FAST_SQUEEZED, FAST_STORED };

/* Seconds for one decode: jansson or the fast path on @p sq, or the fast
 * path on the stored @p text (as the reader does first); -1 if it failed
 * or declined. */
static double time_decode(int how, const etr_squeeze *sq, const char *text, size_t len)
{
    etp_exported_program p;
    memset(&p, 0, sizeof p);
    p.entry = "bench";
    etr_arena a = {0};
    double t0 = now_s();
    int ok;
    if (how == FAST_STORED) {
        etr_fast_raw raw = {ETP_ETRECORD_HUGE_STRING, 0, 0};
        ok = etr_program_decode_fast(text, len, &p, &a, &raw) == ETR_FAST_OK;
    } else if (how == FAST_SQUEEZED) {
        ok = etr_program_decode_fast(sq->buf, sq->len, &p, &a, NULL) == ETR_FAST_OK;
    } else {
        etp_error err;
        json_t *doc = NULL;
        etp_json_arena ja;
        etp_json_arena_begin(&ja);
        ok = etr_json_load(sq, "bench", "bench", &doc, &err) == ETP_OK &&
             etr_program_decode(doc, &p, &a, "bench", &err) == ETP_OK;
        json_decref(doc);
        etp_json_arena_end(&ja);
    }
    double t = now_s() - t0;
    etr_arena_free(&a);
    return ok ? t : -1.0;
}

static double min_decode(int how, const etr_squeeze *sq, const char *text, size_t len, int repeat)
{
    double best = -1.0;
    for (int k = 0; k < repeat; k++) {
        double t = time_decode(how, sq, text, len);
        if (t < 0)
            return -1.0;
        if (best < 0 || t < best)
            best = t;
    }
    return best;
}

static void print_ms(const char *label, double s)
{
    if (s < 0)
        printf(" %s DECLINED", label);
    else
        printf(" %s %.1f ms", label, s * 1e3);
}

/* Per program entry: the reader's route (read whole, fast path on the
 * stored text), then its fallback (stream through the huge-string filter,
 * fast path on that; prune, jansson). */
static int cmd_phases(const char *path, int repeat)
{
    etp_error err;
    etr_zip *z;
    uint64_t size, budget = ETP_ETRECORD_MAX_TOTAL_SIZE;
    if (etr_zip_open_path(path, &size, &z, &err))
        return fprintf(stderr, "%s\n", err.message), 1;
    for (uint32_t i = 0; i < etr_zip_count(z); i++) {
        etp_zip_entry_info e;
        const char *method;
        if (etr_zip_stat(z, i, &e, path, &err))
            return fprintf(stderr, "%s\n", err.message), 1;
        etp_etrecord_role k = etr_classify(e.name, &method);
        if (k != ETP_ETR_EDGE_PROGRAM && k != ETP_ETR_EXPORTED_PROGRAM &&
            k != ETP_ETR_GRAPH_MAP_PROGRAM)
            continue;
        char *text = NULL;
        size_t len = 0;
        double t0 = now_s();
        if (etr_zip_read_whole(z, i, e.name, ETP_ETRECORD_MAX_ENTRY_SIZE, &budget, path, &text,
                               &len, &err))
            return fprintf(stderr, "%s\n", err.message), 1;
        double t1 = now_s();
        double stored = min_decode(FAST_STORED, NULL, text, len, repeat);
        free(text);
        etr_squeeze sq;
        etr_squeeze_init(&sq, ETP_ETRECORD_HUGE_STRING, (size_t)ETP_ETRECORD_MAX_ENTRY_TEXT);
        double t2 = now_s();
        if (etr_zip_read(z, i, e.name, &sq, ETP_ETRECORD_MAX_ENTRY_SIZE, &budget, path, &err) ||
            etr_squeeze_finish(&sq))
            return fprintf(stderr, "%s\n", err.message), 1;
        double t3 = now_s();
        size_t before = sq.len;
        double squeezed = min_decode(FAST_SQUEEZED, &sq, NULL, 0, repeat);
        double t4 = now_s();
        etr_squeeze_prune(&sq);
        double t5 = now_s();
        double slow = min_decode(JANSSON, &sq, NULL, 0, repeat);
        printf("%s: %llu raw bytes, %zu after squeeze, %zu after prune\n", e.name,
               (unsigned long long)e.size, before, sq.len);
        printf("  reader: read whole %.1f ms,", (t1 - t0) * 1e3);
        print_ms("fast", stored);
        printf("\n  fallback: read+squeeze %.1f ms,", (t3 - t2) * 1e3);
        print_ms("fast", squeezed);
        printf(", prune %.1f ms,", (t5 - t4) * 1e3);
        print_ms("jansson", slow);
        printf("\n");
        etr_squeeze_free(&sq);
    }
    etr_zip_close(z);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "gen") == 0)
        return cmd_gen(argv[2], strtoull(argv[3], NULL, 10), argc > 4 && !strcmp(argv[4], "deflate"));
    if (argc == 3 && strcmp(argv[1], "open") == 0)
        return cmd_open(argv[2]);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "phases") == 0)
        return cmd_phases(argv[2], argc == 4 ? atoi(argv[3]) : 5);
    fprintf(stderr, "usage: bench_etrecord gen PATH MB [deflate] | open PATH | phases PATH [REPEAT]\n");
    return 2;
}
