/* vgf_names.c - printable names of the Vulkan and VGF values a VGF stores,
 * spelt as Arm's vgf_dump prints them (unknown values as "Unknown(N)"). */
#include "etprof/vgf.h"

#include <stdio.h>

typedef struct named {
    uint32_t v;
    const char *name;
} named;

static const named descriptor_types[] = {
    {0, "VK_DESCRIPTOR_TYPE_SAMPLER"},
    {1, "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER"},
    {2, "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE"},
    {3, "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE"},
    {4, "VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER"},
    {5, "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER"},
    {6, "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER"},
    {7, "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"},
    {8, "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC"},
    {9, "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC"},
    {10, "VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT"},
    {1000460000u, "VK_DESCRIPTOR_TYPE_TENSOR_ARM"},
};

static const named formats[] = {
    {0, "VK_FORMAT_UNDEFINED"},
    {13, "VK_FORMAT_R8_UINT"},
    {14, "VK_FORMAT_R8_SINT"},
    {74, "VK_FORMAT_R16_UINT"},
    {75, "VK_FORMAT_R16_SINT"},
    {76, "VK_FORMAT_R16_SFLOAT"},
    {98, "VK_FORMAT_R32_UINT"},
    {99, "VK_FORMAT_R32_SINT"},
    {100, "VK_FORMAT_R32_SFLOAT"},
    {110, "VK_FORMAT_R64_UINT"},
    {111, "VK_FORMAT_R64_SINT"},
    {112, "VK_FORMAT_R64_SFLOAT"},
    {1000460000u, "VK_FORMAT_R8_BOOL_ARM"},
    {1000460001u, "VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM"},
    {1000460002u, "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM"},
    {1000460003u, "VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM"},
};

static const named categories[] = {
    {0, "INPUT"}, {1, "OUTPUT"}, {2, "INTERMEDIATE"}, {3, "CONSTANT"}};
static const named module_types[] = {{0, "COMPUTE"}, {1, "GRAPH"}};

static const char *lookup(const named *t, size_t n, uint32_t v, char *buf)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].v == v)
            return t[i].name;
    snprintf(buf, 24, "Unknown(%u)", v);
    return buf;
}

#define LOOKUP(t, v, buf) lookup(t, sizeof t / sizeof t[0], v, buf)

const char *etp_vgf_descriptor_type_name(uint32_t v, char *buf)
{
    return v == ETP_VGF_UNSET ? "none" : LOOKUP(descriptor_types, v, buf);
}

const char *etp_vgf_format_name(uint32_t v, char *buf) { return LOOKUP(formats, v, buf); }
const char *etp_vgf_category_name(uint32_t v, char *buf) { return LOOKUP(categories, v, buf); }
const char *etp_vgf_module_type_name(uint32_t v, char *buf) { return LOOKUP(module_types, v, buf); }
