/* nx_json.h - a small strict JSON reader for the statistics wrapper,
 * whose base64 strings run to tens of megabytes: strings without escapes
 * are views into the text (no copy). Nodes live in one array. */
#ifndef ETP_VGF_STATS_JSON_H
#define ETP_VGF_STATS_JSON_H

#include <stddef.h>
#include <stdint.h>

enum { NXJ_NULL = 0, NXJ_FALSE, NXJ_TRUE, NXJ_NUMBER, NXJ_STRING, NXJ_ARRAY, NXJ_OBJECT };

typedef struct nxj_node {
    uint8_t type;
    uint8_t is_int;       /* NUMBER: an integer that fits int64 */
    uint32_t count;       /* ARRAY: items; OBJECT: members */
    uint32_t first;       /* ARRAY/OBJECT: first child (object: key, then value), 0 = none */
    uint32_t next;        /* next sibling, 0 = none */
    const char *str;      /* STRING: bytes (view or owned copy), not NUL-terminated */
    size_t len;
    int64_t ival;
} nxj_node;

typedef struct nxj_doc {
    nxj_node *n;          /* n[0] unused; the root is n[1] */
    uint32_t count, cap;
    char **owned;
    uint32_t nowned, owned_cap;
} nxj_doc;

/* Parse all of @p text (trailing whitespace only). Returns 0; -1 invalid
 * (*pos, *msg say where and what), -2 out of memory, -3 too deep / large. */
int nxj_parse(const char *text, size_t len, nxj_doc *d, size_t *pos, const char **msg);
void nxj_free(nxj_doc *d);
/* Member @p key of object node @p obj: its node index, 0 when absent;
 * *dups = how many times the key occurs. */
uint32_t nxj_get(const nxj_doc *d, uint32_t obj, const char *key, int *dups);
/* Item @p i of array node @p arr (0 when out of range): walks the list. */
uint32_t nxj_item_next(const nxj_doc *d, uint32_t item);

#endif
