/* bench_nx_stats.c - what decoding and aggregating VGF NX statistics costs.
 *
 *   bench_nx_stats [EXECUTIONS [STRIPES]]   (default 1,000 x 1,000)
 *
 * 1. aggregate: EXECUTIONS executions of one segment with STRIPES stripes
 *    each (stripe rows decoded beforehand, 31 counters), added and
 *    summarised (etp_nx_add_segment + etp_nx_finish), chains of 2 stripes
 *    and cascades of 3 chains from a debug database of STRIPES stripes;
 * 2. per execution decoding of what is small: the statistics-info text of
 *    STRIPES ids, and the debug database (parsed once);
 * 3. statistics memory: STRIPES stripes of Mali-G2 mode 1 (64 KiB blocks,
 *    3 non-zero tasks each) decoded (MB/s), and one whole wrapper JSON with
 *    that memory as base64 (parse + strict base64, MB/s).
 * The memory of one execution of STRIPES stripes is STRIPES blocks (the
 * layout fixes 32-64 KiB per stripe), so part 3 is reported per byte and
 * per execution, not for all executions. Prints wall times and peak RSS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etprof/nx_stats.h"
#include "etprof/nx_record.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static char *ddb_text(uint32_t stripes, size_t *len)
{
    size_t cap = (size_t)stripes * 160 + 1024, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "id\ttosa_op\tapi_labels\n");
    for (uint32_t s = 0; s < stripes; s++)
        n += (size_t)sprintf(t + n, "%u\tConv2D\tTOSACONV2D_spirv_id_%u;\n", 10000 + s, 500 + s);
    n += (size_t)sprintf(t + n, "----\nid\tapi_label\n----\nid\ttosa_op_ids\n");
    for (uint32_t s = 0; s < stripes; s++)
        n += (size_t)sprintf(t + n, "%u\t%u\n", 20000 + s, 10000 + s);
    n += (size_t)sprintf(t + n, "----\nid\tfused_op_ids\n");
    for (uint32_t c = 0; c < stripes / 2; c++)
        n += (size_t)sprintf(t + n, "%u\t%u;%u\n", 30000 + c, 20000 + 2 * c, 20001 + 2 * c);
    n += (size_t)sprintf(t + n, "----\nid\tcascade_op_ids\n----\nid\top_id\tcascade_op_id\n");
    for (uint32_t s = 0; s < stripes; s++)
        n += (size_t)sprintf(t + n, "%u\t%u\t%u\n", 50000 + s, 30000 + s / 2, 40000 + s / 6);
    n += (size_t)sprintf(t + n, "----\nid\tstripe_op_id\n");
    for (uint32_t s = 0; s < stripes; s++)
        n += (size_t)sprintf(t + n, "%u\t%u\n", s, 50000 + s);
    *len = n;
    return t;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4); /* little-endian host (x86-64, AArch64) */
}

int main(int argc, char **argv)
{
    uint32_t execs = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000;
    uint32_t stripes = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000;
    etp_error err;
    etp_nx_settings s;
    memset(&s, 0, sizeof s);
    s.device = ETP_NX_MALI_G2;
    s.mode = 1;
    s.layout = etp_nx_layout_get(ETP_NX_MALI_G2, 1);
    s.leading_blocks = 1;

    /* the debug database, the info text */
    size_t dlen;
    char *dtext = ddb_text(stripes, &dlen);
    double t0 = now();
    etp_nx_ddb *ddb = NULL;
    if (etp_nx_ddb_parse((const uint8_t *)dtext, dlen, NULL, 0, "bench", &ddb, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double t_ddb = now() - t0;
    char *info = malloc((size_t)stripes * 12 + 1);
    size_t il = 0;
    for (uint32_t i = 0; i < stripes; i++)
        il += (size_t)sprintf(info + il, "%s%u", i ? ", " : "", i);

    /* decoded rows: one execution's segment, re-used with other counters */
    const etp_nx_layout *l = s.layout;
    etp_nx_decoded dec;
    memset(&dec, 0, sizeof dec);
    dec.layout = l;
    dec.stripe_count = stripes;
    dec.stripes = calloc(stripes, sizeof *dec.stripes);
    dec.counter_store = calloc((size_t)stripes * l->counter_count, sizeof *dec.counter_store);
    for (uint32_t i = 0; i < stripes; i++) {
        etp_nx_stripe *r = &dec.stripes[i];
        r->id = i;
        r->counters = dec.counter_store + (size_t)i * l->counter_count;
        etp_nx_strlist ch = etp_nx_ddb_stripe_chains(ddb, i), ca = etp_nx_ddb_stripe_cascades(ddb, i);
        r->chain = ch.v[0];
        r->cascade = ca.v[0];
    }
    etp_nx_result *res = NULL;
    etp_nx_result_new(&res);
    res->settings = s;
    res->have_settings = 1;
    double t_info = 0, t_agg = 0, c_all = cpu(), w_all = now();
    uint64_t x = 88172645463325252ull;
    for (uint32_t e = 0; e < execs; e++) {
        double a = now();
        uint32_t *ids, n;
        if (etp_nx_info_parse((const uint8_t *)info, il, 1, "bench", &ids, &n, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        free(ids);
        double b = now();
        for (uint32_t i = 0; i < stripes; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            dec.stripes[i].op_cycles = dec.stripes[i].total_cycles = 1000 + x % 5000;
            dec.stripes[i].counters[0] = dec.stripes[i].op_cycles;
        }
        double c = now();
        if (etp_nx_add_segment(res, e, 1, 0, &dec, ddb, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        t_info += b - a;
        t_agg += now() - c;
    }
    double f0 = now();
    if (etp_nx_finish(res, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    t_agg += now() - f0;
    c_all = cpu() - c_all;
    w_all = now() - w_all;
    printf("info + aggregate loop, %u x %u: wall %.3f s, CPU %.3f s (the machine's load shows in wall, not CPU)\n",
           execs, stripes, w_all, c_all);
    printf("aggregate %u executions x %u stripes (%u entities): %.3f s\n", execs, stripes, res->entity_count, t_agg);
    printf("statistics info text (%u ids) x %u executions: %.3f s; debug database (%zu bytes) once: %.4f s\n",
           stripes, execs, t_info, dlen, t_ddb);
    printf("decode (info) + aggregate, %u x %u: %.3f s\n", execs, stripes, t_agg + t_info + t_ddb);
    etp_nx_result_free(res);
    if (getenv("BENCH_NX_AGGREGATE_ONLY"))
        return 0;

    /* statistics memory of one execution */
    size_t bytes = (size_t)(stripes + 1) * l->tasks_per_block * l->words_per_task * 4;
    uint8_t *mem = calloc(1, bytes);
    for (uint32_t st = 0; st < stripes; st++)
        for (uint32_t t = 0; t < 3; t++)
            for (uint32_t k = 0; k < l->counter_count; k++)
                put32(mem + (((size_t)(st + 1) * l->tasks_per_block + t) * l->words_per_task + l->counter_word[k]) * 4,
                      1 + st + k);
    uint32_t *ids = malloc(stripes * sizeof *ids);
    for (uint32_t i = 0; i < stripes; i++)
        ids[i] = i;
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double a = now();
        etp_nx_decoded *d = NULL;
        if (etp_nx_memory_decode(mem, bytes, ids, stripes, &s, "bench", &d, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        etp_nx_decoded_free(d);
        double b = now() - a;
        best = b < best ? b : best;
    }
    printf("statistics memory, Mali-G2 mode 1, %u stripes (%.1f MB): %.4f s = %.0f MB/s\n", stripes, bytes / 1e6,
           best, bytes / 1e6 / best);
    /* the whole wrapper of that execution */
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t blen = (bytes + 2) / 3 * 4, cap = blen + dlen * 2 + il * 2 + 4096, w = 0;
    char *json = malloc(cap);
    w += (size_t)sprintf(json + w,
                         "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1,\"backend\":\"VgfBackend\","
                         "\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\",\"api_available\":true,"
                         "\"data_available\":true,\"available\":true,\"reason\":\"\",\"segments\":[{\"segment_id\":0,"
                         "\"is_data_graph_pipeline\":true,\"statistics_bind_point_available\":true,"
                         "\"statistics_memory_host_visible\":true,\"statistics_memory_host_coherent\":true,"
                         "\"statistics_bind_point_reason\":\"\",\"debug_database\":{\"available\":true,\"is_text\":false,"
                         "\"vulkan_result\":0,\"size\":0,\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"\"},"
                         "\"statistics_info\":{\"available\":true,\"is_text\":true,\"vulkan_result\":0,\"size\":0,"
                         "\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"\"},\"statistics_memory\":{\"available\":true,"
                         "\"is_text\":false,\"vulkan_result\":0,\"size\":%zu,\"encoding\":\"base64\",\"reason\":\"\","
                         "\"data\":\"",
                         bytes);
    for (size_t i = 0; i < bytes; i += 3) {
        uint32_t v = (uint32_t)mem[i] << 16 | (i + 1 < bytes ? (uint32_t)mem[i + 1] << 8 : 0) |
                     (i + 2 < bytes ? mem[i + 2] : 0);
        json[w++] = b64[v >> 18];
        json[w++] = b64[(v >> 12) & 63];
        json[w++] = i + 1 < bytes ? b64[(v >> 6) & 63] : '=';
        json[w++] = i + 2 < bytes ? b64[v & 63] : '=';
    }
    w += (size_t)sprintf(json + w, "\"}}]}");
    best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double a = now();
        etp_nx_record *r = NULL;
        if (etp_nx_record_parse((const uint8_t *)json, w, "bench", &r, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        etp_nx_record_free(r);
        double b = now() - a;
        best = b < best ? b : best;
    }
    printf("wrapper JSON + strict base64 of that execution (%.1f MB): %.4f s = %.0f MB/s\n", w / 1e6, best,
           w / 1e6 / best);
    printf("peak RSS: %ld KB\n", peak_rss_kb());
    free(json);
    free(mem);
    free(ids);
    free(dec.stripes);
    free(dec.counter_store);
    free(info);
    free(dtext);
    etp_nx_ddb_free(ddb);
    return 0;
}
