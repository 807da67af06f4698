/* series_runs.c - the point column of series_runs: what a series reads of a
 * run, in one value (a series reads one per run of the history, and every
 * column costs the server and libpq a little per row):
 *
 *   run (8 bytes), published_ms (8 bytes), both little-endian two's
 *   complement; detailed (1 byte, 0 or 1); the run id; a NUL; the labels as
 *   runs.labels holds them (key NUL value NUL ..., sorted by key). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define POINT_FIXED 17

static void put_le64(unsigned char *p, int64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)v >> (8 * i));
}

static int64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

unsigned char *etp_store_point_pack(const etp_store_point *pt, size_t *len)
{
    size_t n = POINT_FIXED + pt->run_id_len + 1 + pt->labels_len;
    unsigned char *p = malloc(n);
    if (!p)
        return NULL;
    put_le64(p, pt->run);
    put_le64(p + 8, pt->published_ms);
    p[16] = pt->detailed != 0;
    memcpy(p + POINT_FIXED, pt->run_id, pt->run_id_len);
    p[POINT_FIXED + pt->run_id_len] = '\0';
    memcpy(p + POINT_FIXED + pt->run_id_len + 1, pt->labels, pt->labels_len);
    *len = n;
    return p;
}

int etp_store_point_unpack(const char *bytes, size_t n, etp_store_point *pt)
{
    const unsigned char *p = (const unsigned char *)bytes;
    const char *nul = n > POINT_FIXED ? memchr(bytes + POINT_FIXED, 0, n - POINT_FIXED) : NULL;
    if (!nul || p[16] > 1)
        return -1;
    pt->run = get_le64(p);
    pt->published_ms = get_le64(p + 8);
    pt->detailed = p[16];
    pt->run_id = bytes + POINT_FIXED;
    pt->run_id_len = (size_t)(nul - pt->run_id);
    pt->labels = nul + 1;
    pt->labels_len = n - POINT_FIXED - pt->run_id_len - 1;
    return 0;
}
