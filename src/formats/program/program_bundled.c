/* program_bundled.c - a bundled program's test-case values (etprof/program.h):
 * the inputs and expected outputs each test case carries, read in place
 * from the verified BundledProgram FlatBuffer. */
#include <string.h>

#include "etprof/program.h"
#include "formats/flatbuffers/fb.h"
#include "formats/flatbuffers/schemas.h"
#include "formats/program/program_internal.h"

/* BundledProgram Value: a union of Tensor, Int, Bool, Double. */
enum { BP_VALUE_TYPE = 0, BP_VALUE_VAL = 1 };
enum { BP_U_TENSOR = 1, BP_U_INT = 2, BP_U_BOOL = 3, BP_U_DOUBLE = 4 };
enum { BP_TENSOR_SCALAR_TYPE = 0, BP_TENSOR_SIZES = 1, BP_TENSOR_DATA = 2, BP_TENSOR_DIM_ORDER = 3 };

int etp_program_bundled_value(const etp_program *p, uint32_t suite, uint32_t test_case, int expected, uint32_t k,
                              etp_bundled_value *out)
{
    uint32_t root;
    int bundled;
    const fb_buf *b = etp_program_flatbuffer(p, &root, &bundled);
    if (!bundled)
        return -1;
    uint32_t suites = fb_ref(b, root, BP_SUITES);
    if (suite >= fb_vec_len(b, suites))
        return -1;
    uint32_t cases = fb_ref(b, fb_vec_ref(b, suites, suite), BP_SUITE_CASES);
    if (test_case >= fb_vec_len(b, cases))
        return -1;
    uint32_t values = fb_ref(b, fb_vec_ref(b, cases, test_case), expected ? BP_CASE_OUTPUTS : BP_CASE_INPUTS);
    if (k >= fb_vec_len(b, values))
        return -1;
    uint32_t v = fb_vec_ref(b, values, k);
    memset(out, 0, sizeof *out);
    out->offset = v;
    uint8_t type = fb_get_u8(b, v, BP_VALUE_TYPE, 0);
    uint32_t val = fb_ref(b, v, BP_VALUE_VAL);
    if (!val)
        return 0; /* kind NONE */
    switch (type) {
    case BP_U_TENSOR: {
        out->kind = ETP_EV_TENSOR;
        out->scalar_type = (int8_t)fb_get_u8(b, val, BP_TENSOR_SCALAR_TYPE, 0);
        uint32_t sizes = fb_ref(b, val, BP_TENSOR_SIZES);
        out->rank = fb_vec_len(b, sizes);
        out->sizes = sizes ? (const int32_t *)(const void *)fb_vec_data(b, sizes) : NULL;
        uint32_t data = fb_ref(b, val, BP_TENSOR_DATA);
        out->data_len = fb_vec_len(b, data);
        out->data = data ? fb_vec_data(b, data) : NULL;
        uint32_t order = fb_ref(b, val, BP_TENSOR_DIM_ORDER);
        out->dim_order_len = fb_vec_len(b, order);
        out->dim_order = order ? fb_vec_data(b, order) : NULL;
        break;
    }
    case BP_U_INT: out->kind = ETP_EV_INT, out->i = fb_get_i64(b, val, 0, 0); break;
    case BP_U_BOOL: out->kind = ETP_EV_BOOL, out->i = fb_get_u8(b, val, 0, 0) != 0; break;
    case BP_U_DOUBLE: out->kind = ETP_EV_DOUBLE, out->d = fb_get_f64(b, val, 0, 0); break;
    default: break;
    }
    return 0;
}
