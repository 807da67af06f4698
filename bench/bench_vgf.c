/* bench_vgf.c - cost of decoding a VGF: header, the verified FlatBuffers
 * sections, the constants and every SPIR-V module's graphs (etp_vgf_*), and
 * separately of building its Model Explorer graph.
 *
 *   bench_vgf FILE [REPEAT]
 *
 * FILE is a .vgf or a .pte (then its first VGF delegate is timed, the
 * program itself is not). The bytes are loaded once; each repetition decodes
 * them from memory. Prints the minimum and median over REPEAT (default 20)
 * in ms, the throughput in MB/s (VGF bytes / minimum time, MB = 10^6 bytes)
 * and the process's peak RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etprof/program.h"
#include "etprof/vgf.h"
#include "outputs/mexplorer/me_vgf.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_vgf FILE.vgf|FILE.pte [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 20;
    if (repeat < 1)
        repeat = 1;
    etp_error err;
    etp_error_clear(&err);
    etp_blob *blob = NULL;
    etp_program *prog = NULL;
    const uint8_t *data;
    size_t size;
    if (etp_blob_open(argv[1], 0, &blob, &err))
        goto fail;
    data = blob->data;
    size = blob->size;
    if (size >= 8 && blob->data[4] == 'E' && blob->data[5] == 'T') {
        if (etp_program_from_blob(blob, &prog, &err))
            goto fail;
        blob = NULL;
        data = NULL;
        for (uint32_t m = 0; m < prog->plan_count && !data; m++)
            for (uint32_t k = 0; k < prog->plans[m].delegate_count && !data; k++)
                if (etp_vgf_is_delegate(&prog->plans[m].delegates[k])) {
                    data = prog->plans[m].delegates[k].processed;
                    size = (size_t)prog->plans[m].delegates[k].processed_size;
                }
        if (!data) {
            fprintf(stderr, "bench_vgf: %s has no VGF delegate\n", argv[1]);
            return 1;
        }
    }
    double *dec = calloc((size_t)repeat, sizeof *dec), *gr = calloc((size_t)repeat, sizeof *gr);
    if (!dec || !gr)
        return 1;
    uint32_t ops = 0;
    for (int r = 0; r < repeat; r++) {
        double t0 = now_ms();
        etp_vgf *v;
        if (etp_vgf_from_memory(data, size, argv[1], 0, &v, &err))
            goto fail;
        double t1 = now_ms();
        etp_me_vgf_graph *g;
        if (etp_me_vgf_build(v, &g, &err))
            goto fail;
        double t2 = now_ms();
        dec[r] = t1 - t0;
        gr[r] = t2 - t1;
        ops = 0;
        for (uint32_t i = 0; i < v->module_count; i++)
            for (uint32_t k = 0; v->modules[i].spv && k < v->modules[i].spv->graph_count; k++)
                ops += v->modules[i].spv->graphs[k].op_count;
        etp_me_vgf_free(g);
        etp_vgf_free(v);
    }
    qsort(dec, (size_t)repeat, sizeof *dec, cmp_double);
    qsort(gr, (size_t)repeat, sizeof *gr, cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("vgf bytes %zu, TOSA ops %u, repeats %d\n", size, ops, repeat);
    printf("decode (tables + SPIR-V graphs): min %.3f ms, median %.3f ms, %.0f MB/s\n", dec[0],
           dec[repeat / 2], size / 1e6 / (dec[0] / 1e3));
    printf("Model Explorer graph build:      min %.3f ms, median %.3f ms\n", gr[0],
           gr[repeat / 2]);
    printf("peak RSS %ld KiB\n", ru.ru_maxrss);
    free(dec);
    free(gr);
    etp_program_free(prog);
    etp_blob_free(blob);
    return 0;
fail:;
    char buf[1200];
    fprintf(stderr, "bench_vgf: %s\n", etp_error_format(&err, buf, sizeof buf));
    return 1;
}
