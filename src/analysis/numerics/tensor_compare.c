/* tensor_compare.c - the numeric gap between two tensors (etprof/tensor.h):
 * the error figures the Inspector's numeric comparison reports (MSE, mean
 * absolute error, SNR, cosine similarity) and ExecuTorch's bundled-program
 * closeness rule, in one pass over both. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "etprof/program.h"
#include "etprof/tensor.h"

static double value_of(const etp_tensor_view *t, const etp_quant_params *q, uint64_t i)
{
    double v = etp_tensor_value(t, i);
    return q && q->present ? (v - (double)q->zero_point) * q->scale : v;
}

static int decodable(const etp_tensor_view *t)
{
    etp_dtype_class c = etp_dtype_class_of(t->scalar_type);
    return t->data && (c == ETP_DTYPE_INTEGER || c == ETP_DTYPE_FLOAT);
}

etp_status etp_tensor_compare(const etp_tensor_view *ref, const etp_quant_params *qref, const etp_tensor_view *got,
                              const etp_quant_params *qgot, etp_tolerance tol, const char *path, const char *what,
                              etp_tensor_gap *out, etp_error *err)
{
    memset(out, 0, sizeof *out);
    out->snr_db = out->cosine = NAN;
    if (!decodable(ref) || !decodable(got)) {
        const etp_tensor_view *bad = decodable(ref) ? got : ref;
        const char *name = etp_scalar_type_name(bad->scalar_type);
        return etp_error_set(err, ETP_E_MISMATCH, path, ETP_NO_OFFSET,
                             "%s: the %s tensor %s (%s%s%d): its values cannot be compared", what,
                             bad == ref ? "reference" : "compared", bad->data ? "has an undecoded type" : "has no bytes",
                             name ? name : "", name ? ", type " : "type ", bad->scalar_type);
    }
    int same_shape = ref->rank == got->rank && ref->numel == got->numel;
    for (uint32_t d = 0; same_shape && d < ref->rank; d++)
        same_shape = ref->sizes[d] == got->sizes[d];
    if (!same_shape) {
        char a[160], b[160];
        size_t ka = 0, kb = 0;
        a[0] = b[0] = 0;
        for (uint32_t d = 0; d < ref->rank && ka < sizeof a - 24; d++)
            ka += (size_t)snprintf(a + ka, sizeof a - ka, "%s%" PRId64, d ? "," : "", ref->sizes[d]);
        for (uint32_t d = 0; d < got->rank && kb < sizeof b - 24; d++)
            kb += (size_t)snprintf(b + kb, sizeof b - kb, "%s%" PRId64, d ? "," : "", got->sizes[d]);
        return etp_error_set(err, ETP_E_MISMATCH, path, ETP_NO_OFFSET,
                             "%s: shapes differ: reference [%s], compared [%s]", what, a, b);
    }
    int ref_int = etp_dtype_class_of(ref->scalar_type) == ETP_DTYPE_INTEGER && !(qref && qref->present);
    int got_int = etp_dtype_class_of(got->scalar_type) == ETP_DTYPE_INTEGER && !(qgot && qgot->present);
    out->exact_compare = ref_int && got_int;
    double sum_ref2 = 0, sum_got2 = 0, sum_err2 = 0, sum_abs = 0, dot = 0;
    double worst_excess = -INFINITY;
    for (uint64_t i = 0; i < ref->numel; i++) {
        double a = value_of(ref, qref, i), b = value_of(got, qgot, i);
        double excess;
        if (isfinite(a) && isfinite(b)) {
            double e = b - a, ae = fabs(e);
            out->count++;
            sum_ref2 += a * a;
            sum_got2 += b * b;
            sum_err2 += e * e;
            sum_abs += ae;
            dot += a * b;
            if (ae > out->max_abs_err || out->count == 1) {
                out->max_abs_err = ae;
                out->max_abs_index = i;
            }
            excess = out->exact_compare ? (a == b ? -1.0 : ae) : ae - (tol.atol + tol.rtol * fabs(a));
            if (out->exact_compare ? a != b : excess > 0)
                out->mismatches++;
        } else if ((isnan(a) && isnan(b)) || a == b) {
            excess = -INFINITY; /* NaN against NaN, or the same infinity: close */
        } else {
            out->nonfinite_diff++;
            out->mismatches++;
            excess = INFINITY;
        }
        if (excess > worst_excess || i == 0) {
            worst_excess = excess;
            out->worst_index = i;
            out->worst_reference = a;
            out->worst_got = b;
        }
    }
    if (out->count) {
        out->mse = sum_err2 / (double)out->count;
        out->mae = sum_abs / (double)out->count;
        out->snr_db = sum_err2 == 0 ? INFINITY : sum_ref2 == 0 ? -INFINITY : 10.0 * log10(sum_ref2 / sum_err2);
        /* The norms' product under one root (so identical tensors give 1
         * exactly) unless that product overflows. */
        double norms = sum_ref2 * sum_got2;
        norms = isfinite(norms) ? sqrt(norms) : sqrt(sum_ref2) * sqrt(sum_got2);
        out->cosine = sum_ref2 > 0 && sum_got2 > 0 ? dot / norms : NAN;
    } else {
        out->mse = out->mae = out->max_abs_err = NAN;
    }
    return ETP_OK;
}
