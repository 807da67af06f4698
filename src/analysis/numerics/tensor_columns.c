/* tensor_columns.c - the logged-tensor columns, defined once
 * (etprof/tensor_columns.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/program.h"
#include "etprof/tensor_columns.h"

static const etp_tcol columns[ETP_TCOL_COUNT_OF_COLUMNS] = {
    {ETP_TCOL_KEY, "key", NULL, 0, "stable id within an execution: instruction/position, .../delegate/ID/position, output/N"},
    {ETP_TCOL_ORIGIN, "origin", NULL, 0, "instruction, delegate or program_output"},
    {ETP_TCOL_RUN, "run", NULL, 0, "RunData block of the ETDump (0-based)"},
    {ETP_TCOL_EXECUTION, "execution", NULL, 0, "execution of the analysed method (0-based); empty for other blocks"},
    {ETP_TCOL_EVENT, "event", NULL, 0, "event index within its block"},
    {ETP_TCOL_ITEM, "item", NULL, 0, "position within a logged tensor list (0 otherwise)"},
    {ETP_TCOL_POSITION, "position", NULL, 0, "output index, or which of the instruction's (delegate id's) values"},
    {ETP_TCOL_CHAIN, "chain", NULL, 0, "chain of the instruction (empty for program outputs)"},
    {ETP_TCOL_INSTRUCTION, "instruction", NULL, 0, "instruction id (empty for program outputs)"},
    {ETP_TCOL_DELEGATE_ID, "delegate_id", NULL, 0, "the delegate's debug identifier (int or string)"},
    {ETP_TCOL_NAME, "name", NULL, 0, "DebugEvent.name when the runtime wrote one"},
    {ETP_TCOL_VALUE_INDEX, "value_index", NULL, 0, "the program's EValue index (empty when not known)"},
    {ETP_TCOL_ENTITY, "entity", NULL, 0, "the instruction or delegate event of the operators table"},
    {ETP_TCOL_DEBUG_HANDLES, "debug_handles", NULL, 0, "the entity's debug handles (ETRecord), space-separated"},
    {ETP_TCOL_SOURCE_OPERATORS, "source_operators", NULL, 0, "source-graph operators the instruction ran, ;-separated"},
    {ETP_TCOL_DTYPE, "dtype", NULL, 0, "element type (ExecuTorch ScalarType name, or its number when unknown)"},
    {ETP_TCOL_SHAPE, "shape", NULL, 0, "sizes, e.g. [2,2] ([] for a scalar)"},
    {ETP_TCOL_STRIDES, "strides", "elements", 0, "the strides the ETDump records (the bytes are contiguous in any case)"},
    {ETP_TCOL_DIM_ORDER, "dim_order", NULL, 0, "dimensions from outermost to innermost, as the strides imply"},
    {ETP_TCOL_NUMEL, "numel", "elements", 1, "elements"},
    {ETP_TCOL_NBYTES, "nbytes", "bytes", 1, "bytes of the tensor"},
    {ETP_TCOL_BUFFER_OFFSET, "buffer_offset", "bytes", 0, "offset of its bytes in the debug buffer"},
    {ETP_TCOL_DECODED, "decoded", NULL, 0, "yes; no: logged without bytes; or the type is not read as numbers"},
    {ETP_TCOL_COUNT, "count", "elements", 1, "elements read"},
    {ETP_TCOL_FINITE, "finite", "elements", 1, "elements neither NaN nor infinite (the figures below are over these)"},
    {ETP_TCOL_NAN, "nan", "elements", 1, "NaN elements"},
    {ETP_TCOL_POS_INF, "pos_inf", "elements", 1, "+Inf elements"},
    {ETP_TCOL_NEG_INF, "neg_inf", "elements", 1, "-Inf elements"},
    {ETP_TCOL_ZERO, "zero", "elements", 1, "elements equal to zero"},
    {ETP_TCOL_MIN, "min", "value", 0, "smallest finite element (stored value)"},
    {ETP_TCOL_MAX, "max", "value", 0, "largest finite element"},
    {ETP_TCOL_MEAN, "mean", "value", 0, "mean of the finite elements"},
    {ETP_TCOL_STD, "std", "value", 0, "population standard deviation of the finite elements (ddof 0)"},
    {ETP_TCOL_MAX_ABS, "max_abs", "value", 0, "largest magnitude among finite elements"},
    {ETP_TCOL_QUANT_SCALE, "quant_scale", NULL, 0, "scale the program gives this value (quantize/dequantize args)"},
    {ETP_TCOL_QUANT_ZERO_POINT, "quant_zero_point", NULL, 0, "zero point the program gives this value"},
};

const etp_tcol *etp_tensor_columns(void)
{
    return columns;
}

size_t etp_tensor_column_count(void)
{
    return ETP_TCOL_COUNT_OF_COLUMNS;
}

static etp_tcell str(const char *s)
{
    etp_tcell c = {s ? ETP_TCELL_STR : ETP_TCELL_NONE, s, 0, 0, 0};
    return c;
}
static etp_tcell num_i(int64_t v)
{
    etp_tcell c = {ETP_TCELL_INT, NULL, v, 0, 0};
    return c;
}
static etp_tcell num_u(uint64_t v)
{
    etp_tcell c = {ETP_TCELL_UINT, NULL, 0, v, 0};
    return c;
}
/* A figure over finite elements: none when there were none. */
static etp_tcell fig(const etp_logged_tensor *t, double v)
{
    etp_tcell c = {t->stats.finite ? ETP_TCELL_DOUBLE : ETP_TCELL_NONE, NULL, 0, 0, v};
    return c;
}
static const etp_tcell none = {ETP_TCELL_NONE, NULL, 0, 0, 0};

etp_tcell etp_tensor_cell(const etp_logged_tensor *t, etp_tcol_id id, char *buf, size_t cap)
{
    int program_output = t->origin == ETP_TENSOR_PROGRAM_OUTPUT;
    const etp_entity *e = t->entity;
    switch (id) {
    case ETP_TCOL_KEY: return str(t->key);
    case ETP_TCOL_ORIGIN: return str(etp_tensor_origin_name(t->origin));
    case ETP_TCOL_RUN: return num_u(t->run);
    case ETP_TCOL_EXECUTION: return t->execution >= 0 ? num_i(t->execution) : none;
    case ETP_TCOL_EVENT: return num_u(t->event);
    case ETP_TCOL_ITEM: return num_u(t->item);
    case ETP_TCOL_POSITION: return num_u(t->position);
    case ETP_TCOL_CHAIN: return program_output ? none : num_i(t->chain);
    case ETP_TCOL_INSTRUCTION: return program_output ? none : num_i(t->instruction);
    case ETP_TCOL_DELEGATE_ID:
        if (t->delegate_id_str)
            return str(t->delegate_id_str);
        return t->delegate_id_int != -1 ? num_i(t->delegate_id_int) : none;
    case ETP_TCOL_NAME: return str(t->name);
    case ETP_TCOL_VALUE_INDEX: return t->value_index >= 0 ? num_i(t->value_index) : none;
    case ETP_TCOL_ENTITY: return str(e ? e->id : NULL);
    case ETP_TCOL_DEBUG_HANDLES: {
        if (!e || !e->handle_count || !cap)
            return none;
        size_t k = 0;
        buf[0] = 0;
        for (uint32_t i = 0; i < e->handle_count && k + 24 < cap; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId64, i ? " " : "", e->handles[i]);
        return str(buf);
    }
    case ETP_TCOL_SOURCE_OPERATORS: return str(t->source_operators);
    case ETP_TCOL_DTYPE: {
        const char *n = etp_scalar_type_name(t->view.scalar_type);
        if (n)
            return str(n);
        snprintf(buf, cap, "%d", t->view.scalar_type);
        return str(buf);
    }
    case ETP_TCOL_SHAPE: {
        size_t k = (size_t)snprintf(buf, cap, "[");
        for (uint32_t i = 0; i < t->view.rank && k + 24 < cap; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId64, i ? "," : "", t->view.sizes[i]);
        snprintf(buf + k, cap - k, "]");
        return str(buf);
    }
    case ETP_TCOL_STRIDES: {
        if (t->value_type != ETP_VAL_TENSOR && t->value_type != ETP_VAL_TENSOR_LIST)
            return none;
        size_t k = (size_t)snprintf(buf, cap, "[");
        for (uint32_t i = 0; i < t->stride_count && k + 24 < cap; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId64, i ? "," : "", t->strides[i]);
        snprintf(buf + k, cap - k, "]");
        return str(buf);
    }
    case ETP_TCOL_DIM_ORDER: {
        /* By decreasing stride, ties in dimension order (ExecuTorch's
         * dim-order convention); none when the strides do not cover the rank. */
        if (t->stride_count != t->view.rank || (t->value_type != ETP_VAL_TENSOR && t->value_type != ETP_VAL_TENSOR_LIST))
            return none;
        uint32_t order[ETP_TENSOR_MAX_RANK];
        for (uint32_t i = 0; i < t->view.rank; i++) {
            uint32_t j = i;
            for (; j > 0 && t->strides[order[j - 1]] < t->strides[i]; j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
        size_t k = (size_t)snprintf(buf, cap, "[");
        for (uint32_t i = 0; i < t->view.rank && k + 24 < cap; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu32, i ? "," : "", order[i]);
        snprintf(buf + k, cap - k, "]");
        return str(buf);
    }
    case ETP_TCOL_NUMEL: return num_u(t->view.numel);
    case ETP_TCOL_NBYTES: return num_u(t->view.nbytes);
    case ETP_TCOL_BUFFER_OFFSET: return t->buffer_offset >= 0 ? num_i(t->buffer_offset) : none;
    case ETP_TCOL_DECODED:
        if (t->dtype_class == ETP_DTYPE_UNKNOWN)
            return str("no: unknown element type");
        if (t->dtype_class == ETP_DTYPE_UNDECODED)
            return str("no: element type not read as numbers");
        return str(t->has_bytes ? "yes" : "no: logged without bytes");
    case ETP_TCOL_COUNT: return num_u(t->stats.count);
    case ETP_TCOL_FINITE: return num_u(t->stats.finite);
    case ETP_TCOL_NAN: return num_u(t->stats.nan);
    case ETP_TCOL_POS_INF: return num_u(t->stats.pos_inf);
    case ETP_TCOL_NEG_INF: return num_u(t->stats.neg_inf);
    case ETP_TCOL_ZERO: return num_u(t->stats.zero);
    case ETP_TCOL_MIN: return fig(t, t->stats.min);
    case ETP_TCOL_MAX: return fig(t, t->stats.max);
    case ETP_TCOL_MEAN: return fig(t, t->stats.mean);
    case ETP_TCOL_STD: return fig(t, t->stats.std);
    case ETP_TCOL_MAX_ABS: return fig(t, t->stats.max_abs);
    case ETP_TCOL_QUANT_SCALE: {
        etp_tcell c = {t->quant.present ? ETP_TCELL_DOUBLE : ETP_TCELL_NONE, NULL, 0, 0, t->quant.scale};
        return c;
    }
    case ETP_TCOL_QUANT_ZERO_POINT: return t->quant.present ? num_i(t->quant.zero_point) : none;
    case ETP_TCOL_COUNT_OF_COLUMNS: break;
    }
    return none;
}
