/* vgf_tosa_table.c - the TOSA.001000.1 extended instruction set: opcode,
 * grammar name, MLIR mnemonic and operands (attribute operands marked). */
#include "etprof/vgf.h"

#include <stddef.h>

static const char *const r_argmax[] = {"axis", "nan_mode", "input"};
static const char *const r_avg_pool2d[] = {"kernel", "stride", "pad", "acc_type", "input", "input_zp", "output_zp"};
static const char *const r_conv2d[] = {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"};
static const char *const r_conv3d[] = {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"};
static const char *const r_depthwise_conv2d[] = {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"};
static const char *const r_fft2d[] = {"inverse", "local_bound", "input_real", "input_imag"};
static const char *const r_matmul[] = {"A", "B", "A_zp", "B_zp"};
static const char *const r_max_pool2d[] = {"kernel", "stride", "pad", "nan_mode", "input"};
static const char *const r_rfft2d[] = {"local_bound", "input_real"};
static const char *const r_transpose_conv2d[] = {"out_pad", "stride", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"};
static const char *const r_clamp[] = {"min_val", "max_val", "nan_mode", "input"};
static const char *const r_erf[] = {"input"};
static const char *const r_sigmoid[] = {"input"};
static const char *const r_tanh[] = {"input"};
static const char *const r_add[] = {"input1", "input2"};
static const char *const r_arithmetic_right_shift[] = {"round", "input1", "input2"};
static const char *const r_bitwise_and[] = {"input1", "input2"};
static const char *const r_bitwise_or[] = {"input1", "input2"};
static const char *const r_bitwise_xor[] = {"input1", "input2"};
static const char *const r_intdiv[] = {"input1", "input2"};
static const char *const r_logical_and[] = {"input1", "input2"};
static const char *const r_logical_left_shift[] = {"input1", "input2"};
static const char *const r_logical_right_shift[] = {"input1", "input2"};
static const char *const r_logical_or[] = {"input1", "input2"};
static const char *const r_logical_xor[] = {"input1", "input2"};
static const char *const r_maximum[] = {"nan_mode", "input1", "input2"};
static const char *const r_minimum[] = {"nan_mode", "input1", "input2"};
static const char *const r_mul[] = {"input1", "input2", "shift"};
static const char *const r_pow[] = {"input1", "input2"};
static const char *const r_sub[] = {"input1", "input2"};
static const char *const r_table[] = {"input1", "table"};
static const char *const r_abs[] = {"input1"};
static const char *const r_bitwise_not[] = {"input1"};
static const char *const r_ceil[] = {"input1"};
static const char *const r_clz[] = {"input1"};
static const char *const r_cos[] = {"input1"};
static const char *const r_exp[] = {"input1"};
static const char *const r_floor[] = {"input1"};
static const char *const r_log[] = {"input1"};
static const char *const r_logical_not[] = {"input1"};
static const char *const r_negate[] = {"input1", "input1_zp", "output_zp"};
static const char *const r_reciprocal[] = {"input1"};
static const char *const r_rsqrt[] = {"input1"};
static const char *const r_sin[] = {"input1"};
static const char *const r_select[] = {"input1", "input2", "input3"};
static const char *const r_equal[] = {"input1", "input2"};
static const char *const r_greater[] = {"input1", "input2"};
static const char *const r_greater_equal[] = {"input1", "input2"};
static const char *const r_reduce_all[] = {"axis", "input"};
static const char *const r_reduce_any[] = {"axis", "input"};
static const char *const r_reduce_max[] = {"axis", "nan_mode", "input"};
static const char *const r_reduce_min[] = {"axis", "nan_mode", "input"};
static const char *const r_reduce_product[] = {"axis", "input"};
static const char *const r_reduce_sum[] = {"axis", "input"};
static const char *const r_concat[] = {"axis", "input1"};
static const char *const r_pad[] = {"input1", "padding", "pad_const"};
static const char *const r_reshape[] = {"input1", "shape"};
static const char *const r_reverse[] = {"axis", "input1"};
static const char *const r_slice[] = {"input1", "start", "size"};
static const char *const r_tile[] = {"input1", "multiples"};
static const char *const r_transpose[] = {"perms", "input1"};
static const char *const r_gather[] = {"values", "indices"};
static const char *const r_scatter[] = {"values_in", "indices", "input"};
static const char *const r_resize[] = {"mode", "input", "scale", "offset", "border"};
static const char *const r_cast[] = {"input"};
static const char *const r_rescale[] = {"scale32", "rounding_mode", "per_channel", "input_unsigned", "output_unsigned", "input", "multiplier", "shift", "input_zp", "output_zp"};

static const etp_tosa_op_info ops[] = {
    {"ARGMAX", "ArgMax", 3, 0, r_argmax, 0x3u}, /* 0 */
    {"AVG_POOL2D", "AvgPool2D", 7, 0, r_avg_pool2d, 0xfu}, /* 1 */
    {"CONV2D", "Conv2D", 10, 0, r_conv2d, 0x1fu}, /* 2 */
    {"CONV3D", "Conv3D", 10, 0, r_conv3d, 0x1fu}, /* 3 */
    {"DEPTHWISE_CONV2D", "DepthwiseConv2D", 10, 0, r_depthwise_conv2d, 0x1fu}, /* 4 */
    {"FFT2D", "FFT2D", 4, 0, r_fft2d, 0x3u}, /* 5 */
    {"MATMUL", "MatMul", 4, 0, r_matmul, 0x0u}, /* 6 */
    {"MAX_POOL2D", "MaxPool2D", 5, 0, r_max_pool2d, 0xfu}, /* 7 */
    {"RFFT2D", "RFFT2D", 2, 0, r_rfft2d, 0x1u}, /* 8 */
    {"TRANSPOSE_CONV2D", "TransposeConv2D", 9, 0, r_transpose_conv2d, 0xfu}, /* 9 */
    {"CLAMP", "Clamp", 4, 0, r_clamp, 0x7u}, /* 10 */
    {"ERF", "Erf", 1, 0, r_erf, 0x0u}, /* 11 */
    {"SIGMOID", "Sigmoid", 1, 0, r_sigmoid, 0x0u}, /* 12 */
    {"TANH", "Tanh", 1, 0, r_tanh, 0x0u}, /* 13 */
    {"ADD", "Add", 2, 0, r_add, 0x0u}, /* 14 */
    {"ARITHMETIC_RIGHT_SHIFT", "ArithmeticRightShift", 3, 0, r_arithmetic_right_shift, 0x1u}, /* 15 */
    {"BITWISE_AND", "BitwiseAnd", 2, 0, r_bitwise_and, 0x0u}, /* 16 */
    {"BITWISE_OR", "BitwiseOr", 2, 0, r_bitwise_or, 0x0u}, /* 17 */
    {"BITWISE_XOR", "BitwiseXor", 2, 0, r_bitwise_xor, 0x0u}, /* 18 */
    {"INTDIV", "IntDiv", 2, 0, r_intdiv, 0x0u}, /* 19 */
    {"LOGICAL_AND", "LogicalAnd", 2, 0, r_logical_and, 0x0u}, /* 20 */
    {"LOGICAL_LEFT_SHIFT", "LogicalLeftShift", 2, 0, r_logical_left_shift, 0x0u}, /* 21 */
    {"LOGICAL_RIGHT_SHIFT", "LogicalRightShift", 2, 0, r_logical_right_shift, 0x0u}, /* 22 */
    {"LOGICAL_OR", "LogicalOr", 2, 0, r_logical_or, 0x0u}, /* 23 */
    {"LOGICAL_XOR", "LogicalXor", 2, 0, r_logical_xor, 0x0u}, /* 24 */
    {"MAXIMUM", "Maximum", 3, 0, r_maximum, 0x1u}, /* 25 */
    {"MINIMUM", "Minimum", 3, 0, r_minimum, 0x1u}, /* 26 */
    {"MUL", "Mul", 3, 0, r_mul, 0x0u}, /* 27 */
    {"POW", "Pow", 2, 0, r_pow, 0x0u}, /* 28 */
    {"SUB", "Sub", 2, 0, r_sub, 0x0u}, /* 29 */
    {"TABLE", "Table", 2, 0, r_table, 0x0u}, /* 30 */
    {"ABS", "Abs", 1, 0, r_abs, 0x0u}, /* 31 */
    {"BITWISE_NOT", "BitwiseNot", 1, 0, r_bitwise_not, 0x0u}, /* 32 */
    {"CEIL", "Ceil", 1, 0, r_ceil, 0x0u}, /* 33 */
    {"CLZ", "Clz", 1, 0, r_clz, 0x0u}, /* 34 */
    {"COS", "Cos", 1, 0, r_cos, 0x0u}, /* 35 */
    {"EXP", "Exp", 1, 0, r_exp, 0x0u}, /* 36 */
    {"FLOOR", "Floor", 1, 0, r_floor, 0x0u}, /* 37 */
    {"LOG", "Log", 1, 0, r_log, 0x0u}, /* 38 */
    {"LOGICAL_NOT", "LogicalNot", 1, 0, r_logical_not, 0x0u}, /* 39 */
    {"NEGATE", "Negate", 3, 0, r_negate, 0x0u}, /* 40 */
    {"RECIPROCAL", "Reciprocal", 1, 0, r_reciprocal, 0x0u}, /* 41 */
    {"RSQRT", "Rsqrt", 1, 0, r_rsqrt, 0x0u}, /* 42 */
    {"SIN", "Sin", 1, 0, r_sin, 0x0u}, /* 43 */
    {"SELECT", "Select", 3, 0, r_select, 0x0u}, /* 44 */
    {"EQUAL", "Equal", 2, 0, r_equal, 0x0u}, /* 45 */
    {"GREATER", "Greater", 2, 0, r_greater, 0x0u}, /* 46 */
    {"GREATER_EQUAL", "GreaterEqual", 2, 0, r_greater_equal, 0x0u}, /* 47 */
    {"REDUCE_ALL", "ReduceAll", 2, 0, r_reduce_all, 0x1u}, /* 48 */
    {"REDUCE_ANY", "ReduceAny", 2, 0, r_reduce_any, 0x1u}, /* 49 */
    {"REDUCE_MAX", "ReduceMax", 3, 0, r_reduce_max, 0x3u}, /* 50 */
    {"REDUCE_MIN", "ReduceMin", 3, 0, r_reduce_min, 0x3u}, /* 51 */
    {"REDUCE_PRODUCT", "ReduceProduct", 2, 0, r_reduce_product, 0x1u}, /* 52 */
    {"REDUCE_SUM", "ReduceSum", 2, 0, r_reduce_sum, 0x1u}, /* 53 */
    {"CONCAT", "Concat", 2, 1, r_concat, 0x1u}, /* 54 */
    {"PAD", "Pad", 3, 0, r_pad, 0x0u}, /* 55 */
    {"RESHAPE", "Reshape", 2, 0, r_reshape, 0x0u}, /* 56 */
    {"REVERSE", "Reverse", 2, 0, r_reverse, 0x1u}, /* 57 */
    {"SLICE", "Slice", 3, 0, r_slice, 0x0u}, /* 58 */
    {"TILE", "Tile", 2, 0, r_tile, 0x0u}, /* 59 */
    {"TRANSPOSE", "Transpose", 2, 0, r_transpose, 0x1u}, /* 60 */
    {"GATHER", "Gather", 2, 0, r_gather, 0x0u}, /* 61 */
    {"SCATTER", "Scatter", 3, 0, r_scatter, 0x0u}, /* 62 */
    {"RESIZE", "Resize", 5, 0, r_resize, 0x1u}, /* 63 */
    {"CAST", "Cast", 1, 0, r_cast, 0x0u}, /* 64 */
    {"RESCALE", "Rescale", 10, 0, r_rescale, 0x1fu}, /* 65 */
};

const etp_tosa_op_info *etp_tosa_op(uint32_t opcode)
{
    return opcode < sizeof ops / sizeof ops[0] ? &ops[opcode] : NULL;
}
