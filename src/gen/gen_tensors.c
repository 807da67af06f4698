/* gen_tensors.c - the values a generated run logs (gen_model.h): each
 * KernelCall's output is a float32 tensor drawn from the seed and the
 * instruction, the same in every execution (a run of the same inputs), and
 * the method's output repeats the last KernelCall's. Written to the debug
 * buffer at 64-byte aligned offsets with zero padding, as ExecuTorch's
 * BufferDataSink lays them out. An optional fault multiplies instruction
 * K's values and every later one's by 1 + a relative error that grows down
 * the chain, so a numeric diff has a known first divergence. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_model.h"

etp_status gm_tensor_log_open(gm_tensor_log *l, const char *path, uint32_t elements, uint64_t seed,
                              uint32_t perturb_instruction, double perturb, etp_error *err)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    l->elements = elements ? elements : 256;
    l->seed = seed;
    l->perturb_instruction = perturb_instruction;
    l->perturb = perturb;
    if (!(l->values = malloc((size_t)l->elements * sizeof *l->values)))
        return etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
    if (!(l->fp = fopen(path, "wb"))) {
        free(l->values);
        l->values = NULL;
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot create: %s", strerror(errno));
    }
    return ETP_OK;
}

int64_t gm_tensor_log_write(gm_tensor_log *l, int32_t instr, int32_t last)
{
    int32_t which = instr < 0 ? last : instr;
    gen_rng r = gen_rng_make(l->seed, 0x54454e53u + (uint64_t)(uint32_t)which); /* "TENS" */
    /* A layer's activations: a scale and an offset of its own, then noise. */
    double scale = 0.25 + 2.0 * gen_unif(&r), shift = gen_gauss(&r) * 0.5;
    double fault = 0;
    if (l->perturb != 0 && which >= 0 && (uint32_t)which >= l->perturb_instruction)
        fault = l->perturb * (1.0 + 0.1 * (double)((uint32_t)which - l->perturb_instruction));
    for (uint32_t i = 0; i < l->elements; i++)
        l->values[i] = (float)((shift + scale * gen_gauss(&r)) * (1.0 + fault));
    static const uint8_t zeros[64];
    uint64_t at = (l->offset + 63) / 64 * 64;
    if (!l->failed && at > l->offset && fwrite(zeros, 1, at - l->offset, l->fp) != at - l->offset)
        l->failed = errno ? errno : EIO;
    size_t n = (size_t)l->elements * sizeof *l->values;
    if (!l->failed && fwrite(l->values, 1, n, l->fp) != n)
        l->failed = errno ? errno : EIO;
    l->offset = at + n;
    l->tensors++;
    return (int64_t)at;
}

etp_status gm_tensor_log_close(gm_tensor_log *l, etp_error *err)
{
    int failed = l->failed;
    if (l->fp && fclose(l->fp) && !failed)
        failed = errno ? errno : EIO;
    l->fp = NULL;
    free(l->values);
    l->values = NULL;
    if (failed)
        return etp_error_set(err, ETP_E_IO, l->path, ETP_NO_OFFSET, "cannot write: %s", strerror(failed));
    return ETP_OK;
}
