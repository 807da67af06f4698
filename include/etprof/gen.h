/*
 * etprof/gen.h - synthetic ExecuTorch artifacts for tests, benchmarks and
 * demos: a large ETDump with its matching program (.pte) and ETRecord, and
 * a small fixed demo triple.
 *
 * Output is a pure function of the options: the same options always give
 * byte-identical files (own PRNG, fixed zip timestamps, no clock reads).
 *
 * Nothing returned needs freeing: the results are plain values and the
 * files belong to the caller. Thread safety: the generators keep no shared
 * state, so calls writing different files may run at once. A file being
 * written is incomplete until the call returns; on failure it may be left
 * partly written.
 */
#ifndef ETPROF_GEN_H
#define ETPROF_GEN_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Delegate flavour of generated DelegateCalls. */
typedef enum etp_gen_backend {
    /** "XnnpackBackend": string ids like "Convolution (NHWC, F32) IGEMM #1",
     *  whole-microsecond durations, empty ETRecord delegate_map (as XNNPACK). */
    ETP_GEN_XNNPACK = 0,
    /** "VulkanBackend": int ids 0, 1, ... mapped to debug handles in the
     *  ETRecord delegate_map. */
    ETP_GEN_VULKAN = 1
} etp_gen_backend;

/** Options of etp_gen_etdump(). Start from etp_gen_etdump_defaults(). */
typedef struct etp_gen_etdump_opts {
    const char *etdump_path;    /**< ETDump to write (required) */
    const char *pte_path;       /**< also write the matching program, or NULL */
    const char *etrecord_path;  /**< also write the matching ETRecord, or NULL */
    uint32_t executions;        /**< "Execute" blocks after the "Default" one */
    uint32_t instructions;      /**< instructions in method forward's chain (>= 1) */
    uint32_t delegate_every;    /**< every K-th instruction is a DelegateCall; 0 = none */
    uint64_t seed;              /**< PRNG seed: durations, jitter, blobs */
    etp_gen_backend backend;    /**< delegate flavour */
    /** Injected slowdown (tests of `etprof diff`): instruction
     *  @p slow_instruction runs @p slow_factor times its usual time in every
     *  execution; the random draws are unchanged, so two runs with the same
     *  seed differ only there. 0: none. */
    double slow_factor;
    uint32_t slow_instruction;
    /** Every duration of the ETDump (kernels, delegate events, the gaps
     *  between events, load) is multiplied by this factor: the same program
     *  on a slower (> 1) or faster (< 1) device. 1 (the default) or 0: none,
     *  and the bytes are those of an unscaled ETDump. At most 1e6. */
    double time_scale;
    /** Seed of the ETDump's random draws (durations, jitter, spikes) apart
     *  from the model's: runs of one program with different timing seeds
     *  share the program and ETRecord but not their timings. 0 (default):
     *  @p seed drives both. */
    uint64_t timing_seed;
    /** Also log values, as example_runner's --dump_intermediate_outputs and
     *  --dump_outputs do: each KernelCall's output (float32, tensor_elements
     *  of them, the same in every execution, as for the same inputs) and the
     *  method's output, as ETDump debug events whose bytes go to this debug
     *  buffer (64-byte aligned, as the runtime's BufferDataSink). NULL: none. */
    const char *debug_buffer_path;
    uint32_t tensor_elements;   /**< elements of each logged tensor (0: 256) */
    /** A numerics fault to find: from KernelCall instruction
     *  perturb_instruction on, every logged output is off by a relative
     *  error of perturb, growing by a tenth of it per instruction after (as
     *  an error spreads downstream). perturb 0: none. */
    uint32_t perturb_instruction;
    double perturb;
} etp_gen_etdump_opts;

/** What was written. Sizes are 0 for files not requested. */
typedef struct etp_gen_result {
    uint64_t etdump_bytes;
    uint64_t pte_bytes;
    uint64_t etrecord_bytes;
    uint64_t events;            /**< ProfileEvents in the ETDump */
    uint32_t kernel_calls;      /**< KernelCall instructions per execution */
    uint32_t delegate_calls;    /**< DelegateCall instructions per execution */
    uint64_t debug_buffer_bytes;/**< bytes of the debug buffer written (0 without one) */
    uint64_t tensors;           /**< debug events (logged tensors) in the ETDump */
} etp_gen_result;

/** Most instructions etp_gen_etdump() accepts (the model is held in memory;
 *  real programs have far fewer). */
#define ETP_GEN_MAX_INSTRUCTIONS 1000000u

/** Fill @p o with defaults: 5 executions, 100 instructions, a DelegateCall
 *  every 10th, seed 1, XNNPACK, no paths, time scale 1, no timing seed. */
void etp_gen_etdump_defaults(etp_gen_etdump_opts *o);

/**
 * Write a synthetic ETDump of a CNN-like method `forward` (KernelCalls of
 * aten convolution, relu, max_pool2d_with_indices, add, hardtanh,
 * permute_copy, addmm; every delegate_every-th instruction a DelegateCall)
 * run @p o->executions times, and optionally the program and ETRecord it
 * belongs to. The whole ETDump is built in memory (about its file size).
 * @p res (optional) receives sizes and counts. Returns ETP_OK, or fills
 * @p err: ETP_E_USAGE for bad options, ETP_E_LIMIT when the ETDump would
 * exceed 4 GiB, ETP_E_IO / ETP_E_NOMEM otherwise.
 */
etp_status etp_gen_etdump(const etp_gen_etdump_opts *o, etp_gen_result *res, etp_error *err);

/**
 * Write the demo triple into the existing directory @p dir: model.pte,
 * model.etrecord and run.etdp (one load and @p executions runs of method
 * `forward`). The design is fixed (see gen_demo.c and the README): 9
 * forward instructions incl. one VulkanBackend DelegateCall with an event
 * per operator, one connected graph, every debug handle resolved (the
 * analysis with ns ticks is VALID), and a second method `preprocess`.
 * @p res is optional. Returns ETP_OK or fills @p err.
 */
etp_status etp_gen_demo(const char *dir, uint32_t executions, uint64_t seed, etp_gen_result *res,
                        etp_error *err);

/** etp_gen_demo_ex() flags. */
enum {
    /** The variant that shows the warnings: a delegate event shared by two
     *  operators, two operators sharing a handle, a view without an
     *  instruction (the graph in two parts) and a handle no node has. */
    ETP_GEN_DEMO_FLAWS = 1u << 0
};

/** etp_gen_demo() with ETP_GEN_DEMO_* @p flags. */
etp_status etp_gen_demo_ex(const char *dir, uint32_t executions, uint64_t seed, unsigned flags,
                           etp_gen_result *res, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
