/*
 * etprof/tensor.h - one tensor's bytes read as numbers: its element type,
 * shape and values, one-pass statistics, and the comparison of two tensors
 * (the numerics of a run's logged outputs, etprof/tensors.h).
 *
 * An etp_tensor_view is a plain value that borrows the bytes it describes
 * (a debug buffer, a bundled program's expected output): it owns nothing,
 * and lives as long as those bytes. Every function here is pure: safe from
 * any thread at once on any views.
 *
 * Values are read as the runtime stored them: little-endian, contiguous in
 * the order of `sizes` (as the runtime writes a logged tensor: its raw
 * nbytes from the data pointer; strides and dim order are recorded, never
 * used to reorder). Every element type is read into a double: exact for
 * every integer below 2^53 and every floating type but a few Long/UInt64
 * values above it.
 */
#ifndef ETPROF_TENSOR_H
#define ETPROF_TENSOR_H

#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The runtime's dimension limit (kTensorDimensionLimit): a tensor of
 *  higher rank is refused as malformed. */
#define ETP_TENSOR_MAX_RANK 16

/** How an element type's values are read. */
typedef enum etp_dtype_class {
    ETP_DTYPE_UNKNOWN = 0,   /**< not a ScalarType the runtime has: listed, never decoded */
    ETP_DTYPE_INTEGER,       /**< Byte Char Short Int Long Bool UInt16/32/64 Bits8/16, and the
                                  quantized QInt8 QUInt8 QInt32 (their stored integers) */
    ETP_DTYPE_FLOAT,         /**< Half Float Double BFloat16 and the four Float8 types */
    ETP_DTYPE_UNDECODED      /**< known but not read as numbers: the complex types and the
                                  sub-byte packed ones (QUInt4x2 QUInt2x4 Bits1x8 Bits2x4
                                  Bits4x2); listed with their size */
} etp_dtype_class;

/** The class of ExecuTorch ScalarType @p type (the runtime's enum). */
etp_dtype_class etp_dtype_class_of(int type);

/** One tensor: its element type, shape and bytes (borrowed). */
typedef struct etp_tensor_view {
    int8_t scalar_type;          /**< ExecuTorch ScalarType */
    uint32_t rank;               /**< <= ETP_TENSOR_MAX_RANK */
    int64_t sizes[ETP_TENSOR_MAX_RANK];
    uint64_t numel;              /**< product of sizes (1 for rank 0) */
    uint64_t nbytes;             /**< numel x element size */
    const uint8_t *data;         /**< nbytes bytes; NULL when the tensor was logged without
                                      bytes (then numel elements are not available) */
} etp_tensor_view;

/**
 * Fill @p out from a ScalarType and @p rank sizes (int64, as an ETDump
 * holds them, or int32 with @p sizes32), checking what a view needs: a
 * known element size, rank <= ETP_TENSOR_MAX_RANK, no negative size, fewer
 * than 2^62 bytes. @p data may be NULL (no bytes). On failure returns
 * ETP_E_FORMAT with @p what (for example "run 1 event 3 tensor 0") and @p
 * path in the message, @p offset as the error's offset. Pure.
 */
etp_status etp_tensor_view_init(etp_tensor_view *out, int scalar_type, uint32_t rank, const int64_t *sizes,
                                const int32_t *sizes32, const uint8_t *data, const char *path, int64_t offset,
                                const char *what, etp_error *err);

/** Element @p i (< numel) of @p t as a double (NaN for an undecodable
 *  type). @p t->data must be set. Pure. */
double etp_tensor_value(const etp_tensor_view *t, uint64_t i);

/** Elements @p first .. @p first + @p n - 1 (all < numel) of @p t as
 *  doubles into @p out (@p n of them), as etp_tensor_value() reads each:
 *  for bindings that read a whole tensor in one call. Pure. */
void etp_tensor_values(const etp_tensor_view *t, uint64_t first, uint64_t n, double *out);

/**
 * What one pass over a tensor's values gives. NaN and Inf are counted and
 * left out of every other figure, so one NaN does not hide the rest. The
 * figures are over the finite elements (`finite` of them); NaN when there
 * are none. std is the population standard deviation (ddof 0, numpy's
 * default). Units: the tensor's own (none known); counts are elements.
 */
typedef struct etp_tensor_stats {
    uint64_t count;              /**< elements read */
    uint64_t finite;             /**< of them neither NaN nor +-Inf */
    uint64_t nan, pos_inf, neg_inf, zero;
    double min, max, mean, std;
    double max_abs;              /**< largest magnitude among finite elements */
} etp_tensor_stats;

/**
 * Statistics of @p t's values in one pass over its bytes (no copy). A view
 * without bytes or of an undecodable type gives count 0 and NaN figures.
 * Pure and thread-safe.
 */
void etp_tensor_stats_compute(const etp_tensor_view *t, etp_tensor_stats *out);

/** Dequantization of a tensor's stored integers: real = (q - zero_point) * scale. */
typedef struct etp_quant_params {
    int present;                 /**< 0: compare stored values as they are */
    double scale;
    int64_t zero_point;
} etp_quant_params;

/** Closeness: |got - expected| <= atol + rtol * |expected| (ExecuTorch's
 *  bundled-program rule; NaN matches NaN, an infinity its equal). */
typedef struct etp_tolerance {
    double rtol, atol;
} etp_tolerance;

/** ExecuTorch's bundled-program defaults: rtol 1e-5, atol 1e-8. */
#define ETP_TOLERANCE_DEFAULT ((etp_tolerance){1e-5, 1e-8})

/**
 * The numeric gap between a reference tensor and another of the same
 * shape, element by element in storage order (over elements both have
 * finite; non-finite positions that differ are counted in nonfinite_diff).
 * Errors are got - reference, in the values' unit (dequantized when a
 * quant_params is present).
 */
typedef struct etp_tensor_gap {
    uint64_t count;              /**< elements compared (both finite) */
    uint64_t nonfinite_diff;     /**< positions where NaN/Inf differ between the two */
    double mse;                  /**< mean squared error */
    double mae;                  /**< mean absolute error */
    double max_abs_err;          /**< largest |got - reference| */
    uint64_t max_abs_index;      /**< where (storage index) */
    double snr_db;               /**< 10 log10(sum ref^2 / sum err^2): +Inf when the error is 0,
                                      -Inf when the reference is all zeros and the error not */
    double cosine;               /**< cosine similarity; NaN when either norm is 0 */
    /* Closeness under the tolerance given: */
    uint64_t mismatches;         /**< elements outside the tolerance (non-finite differences
                                      included) */
    uint64_t worst_index;        /**< the element furthest outside it (first of equals); when
                                      mismatches is 0 the one closest to its bound */
    double worst_reference, worst_got;
    int exact_compare;           /**< 1: both integer types without quantization: compared
                                      exactly (a difference of any size is a mismatch), as
                                      ExecuTorch compares non-floating tensors */
} etp_tensor_gap;

/**
 * Compare @p got against @p reference. Both need bytes of a decodable type
 * and the same shape; otherwise ETP_E_MISMATCH saying which (shape, type)
 * with @p what and @p path. The element types may differ (a float reference
 * against a dequantized int8 run, say); @p qref / @p qgot (may be NULL)
 * dequantize either side first. Pure.
 */
etp_status etp_tensor_compare(const etp_tensor_view *reference, const etp_quant_params *qref,
                              const etp_tensor_view *got, const etp_quant_params *qgot, etp_tolerance tol,
                              const char *path, const char *what, etp_tensor_gap *out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
