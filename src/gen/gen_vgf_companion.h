/* gen_vgf_companion.h - the files `etprof gen vgf-stats` writes beside its
 * ETDumps (gen_vgf_companion.c): an ETRecord for the VGF program and a
 * two-call companion program for the coverage-gap case. */
#ifndef ETP_GEN_VGF_COMPANION_H
#define ETP_GEN_VGF_COMPANION_H

#include <stdint.h>

#include "etprof/error.h"
#include "etprof/program.h"
#include "etprof/vgf.h"

/* Whether TOSA op @p k of the generated debug database gets a plain
 * TFLite-style label ("model/op_<k>") that names no SPIR-V id. */
static inline int gen_vgf_plain_label(uint32_t k) { return k % 25 == 7; }

/* Whether the generated ETRecord's delegate map leaves TOSA op @p k unnamed. */
static inline int gen_vgf_unnamed(uint32_t k) { return k % 5 == 3; }

/*
 * The ETRecord of a program whose method "forward" is KernelCall,
 * DelegateCall VgfBackend (instruction @p vgf_instr = 1), KernelCall, as the
 * fixture program is: an edge graph of quantize, one source node per
 * non-Rescale TOSA op of @p ops (a Rescale shares the node before it) and
 * dequantize; debug handles 1 (quantize), 2 (dequantize), 10 + node; the
 * delegate map of the VGF call names each TOSA op k by its SPIR-V result id,
 * or by its plain label, except when gen_vgf_unnamed(k).
 */
etp_status gen_vgf_etrecord(const etp_spv_op *const *ops, uint32_t nops, const char *path, uint64_t *bytes,
                            etp_error *err);

/*
 * A program whose forward calls the VGF delegate @p d twice: 0 KernelCall
 * quantize, 1 and 2 DelegateCall VgfBackend (the same delegate), 3
 * KernelCall dequantize. The VGF bytes are copied into a segment.
 */
etp_status gen_vgf_two_call_pte(const etp_delegate *d, const char *path, uint64_t *bytes, etp_error *err);

#endif
