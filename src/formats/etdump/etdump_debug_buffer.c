/* etdump_debug_buffer.c - the debug events of an ETDump against the debug
 * buffer written beside it (etprof/etdump.h): the dump holds only each
 * tensor's metadata and the offset of its bytes in the buffer, so a buffer
 * from another run, or one cut short, shows as a tensor reaching past its
 * end. */
#include <inttypes.h>
#include <string.h>

#include "etprof/etdump.h"

uint32_t etp_scalar_type_size(int type)
{
    /* c10 / ExecuTorch ScalarType: Byte Char Short Int Long Half Float
     * Double ComplexHalf ComplexFloat ComplexDouble Bool QInt8 QUInt8 QInt32
     * BFloat16 QUInt4x2 QUInt2x4 Bits1x8 Bits2x4 Bits4x2 Bits8 Bits16
     * Float8_e5m2 Float8_e4m3fn Float8_e5m2fnuz Float8_e4m3fnuz UInt16
     * UInt32 UInt64. (QUInt4x2 / QUInt2x4 pack several values in a byte:
     * their element is one byte, as the runtime's elementSize says.) */
    static const uint8_t size[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                   2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8};
    return type >= 0 && (size_t)type < sizeof size ? size[type] : 0;
}

/* Bytes of tensor @p t, or -1 when they cannot be known (why in @p why). */
static int tensor_bytes(const etp_dbg_tensor *t, uint64_t *out, const char **why)
{
    uint64_t n = etp_scalar_type_size(t->scalar_type);
    if (!n) {
        *why = "an unknown scalar type";
        return -1;
    }
    for (uint32_t i = 0; i < t->rank; i++) {
        int64_t s = t->sizes[i];
        if (s < 0) {
            *why = "a negative size";
            return -1;
        }
        if (s && n > (UINT64_C(1) << 63) / (uint64_t)s) {
            *why = "more than 2^63 bytes";
            return -1;
        }
        n *= (uint64_t)s;
    }
    *out = n;
    return 0;
}

etp_status etp_etdump_check_debug_buffer(const etp_etdump *d, uint64_t buffer_size, const char *buffer_name,
                                         etp_debug_buffer_check *out, etp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *path = etp_etdump_path(d);
    if (!etp_etdump_verified(d))
        return etp_error_set(err, ETP_E_USAGE, path, ETP_NO_OFFSET,
                             "the debug buffer is checked against a verified ETDump only");
    uint32_t runs = etp_etdump_run_count(d);
    for (uint32_t r = 0; r < runs; r++) {
        etp_run run;
        etp_etdump_run(d, r, &run);
        for (uint32_t j = 0; j < run.event_count; j++) {
            etp_event ev;
            etp_etdump_event(d, &run, j, &ev);
            if (!(ev.kinds & ETP_EV_DEBUG))
                continue;
            out->debug_events++;
            for (uint32_t k = 0; k < ev.debug.tensor_count; k++) {
                etp_dbg_tensor t;
                if (etp_etdump_debug_tensor(d, &ev.debug, k, &t))
                    continue;
                if (t.offset == -1) {
                    out->empty_tensors++;
                    continue;
                }
                uint64_t nbytes;
                const char *why = NULL;
                if (tensor_bytes(&t, &nbytes, &why))
                    return etp_error_set(err, ETP_E_FORMAT, path, ev.debug.offset,
                                         "run %" PRIu32 " event %" PRIu32 ": tensor %" PRIu32
                                         " has %s (scalar type %d): its bytes in %s cannot be checked",
                                         r, j, k, why, t.scalar_type, buffer_name);
                /* -1 (no bytes) is the only negative offset the runtime writes:
                 * another is a defect of the dump, whatever the buffer */
                if (t.offset < 0)
                    return etp_error_set(err, ETP_E_FORMAT, path, ev.debug.offset,
                                         "run %" PRIu32 " event %" PRIu32 ": tensor %" PRIu32
                                         " has offset %" PRId64 " (only -1, no bytes, may be negative): its bytes in "
                                         "%s cannot be checked",
                                         r, j, k, t.offset, buffer_name);
                if ((uint64_t)t.offset > buffer_size || nbytes > buffer_size - (uint64_t)t.offset)
                    return etp_error_set(err, ETP_E_MISMATCH, path, ev.debug.offset,
                                         "run %" PRIu32 " event %" PRIu32 ": tensor %" PRIu32
                                         " at offset %" PRId64 " (%" PRIu64 " bytes) lies outside the %" PRIu64
                                         "-byte debug buffer %s: not this run's buffer, or cut short",
                                         r, j, k, t.offset, nbytes, buffer_size, buffer_name);
                out->tensors++;
                if ((uint64_t)t.offset + nbytes > out->bytes_referenced)
                    out->bytes_referenced = (uint64_t)t.offset + nbytes;
            }
        }
    }
    return ETP_OK;
}
