/* nx_memory.c - statistics info (the stripe ids) and statistics
 * memory (LE u32 counter words: a task is words_per_task words, a block is
 * tasks_per_block tasks, block L + s holds stripe s) into stripe rows. */
#include <stdlib.h>
#include <string.h>

#include "formats/nx/nx_internal.h"

#define INFO_MAGIC 0x2211EEFFu
#define NONE 0xFFFFFFFFu
#define MAX_INFO_IDS (1u << 24)

static etp_status nomem(etp_error *err, const char *where)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", where);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static etp_status check_duplicates(const uint32_t *ids, uint32_t n, const char *where, etp_error *err)
{
    if (n < 2)
        return ETP_OK;
    uint32_t hi = 0;
    for (uint32_t i = 0; i < n; i++)
        hi = ids[i] > hi ? ids[i] : hi;
    if (hi / 8 < 4u * n + 4096u) { /* dense ids (the usual 0..n-1): a bitmap */
        uint8_t *seen = calloc((size_t)hi / 8 + 1, 1);
        if (!seen)
            return nomem(err, where);
        for (uint32_t i = 0; i < n; i++) {
            if (seen[ids[i] >> 3] & (1u << (ids[i] & 7))) {
                free(seen);
                return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                     "%s: statistics_info lists stripe %u twice", where, ids[i]);
            }
            seen[ids[i] >> 3] |= (uint8_t)(1u << (ids[i] & 7));
        }
        free(seen);
        return ETP_OK;
    }
    uint32_t *s = malloc(n * sizeof *s);
    if (!s)
        return nomem(err, where);
    memcpy(s, ids, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u32);
    for (uint32_t i = 1; i < n; i++)
        if (s[i] == s[i - 1]) {
            uint32_t dup = s[i];
            free(s);
            return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                 "%s: statistics_info lists stripe %u twice", where, dup);
        }
    free(s);
    return ETP_OK;
}

static int push_id(uint32_t **ids, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 16;
        uint32_t *nv = realloc(*ids, c * sizeof *nv);
        if (!nv)
            return -1;
        *ids = nv;
        *cap = c;
    }
    (*ids)[(*n)++] = v;
    return 0;
}

static int is_sep(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == ',' || c == ';';
}

static etp_status parse_text(const uint8_t *p, size_t n, const char *where, uint32_t **ids, uint32_t *count,
                             etp_error *err)
{
    while (n && p[n - 1] == 0)
        n--;
    uint32_t cap = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_sep(p[i]))
            i++;
        if (i >= n)
            break;
        size_t a = i;
        while (i < n && !is_sep(p[i]))
            i++;
        int hex = i - a > 2 && p[a] == '0' && (p[a + 1] == 'x' || p[a + 1] == 'X');
        uint64_t v = 0;
        int ok = i > a;
        for (size_t k = a + (hex ? 2 : 0); k < i && ok; k++) {
            uint8_t c = p[k];
            int d = c >= '0' && c <= '9' ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                ok = 0;
            else if ((v = v * (hex ? 16 : 10) + (uint64_t)d) > UINT32_MAX)
                ok = 0;
        }
        if (!ok)
            return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                 "%s: statistics_info text: token \"%.*s\" at byte %zu is not a stripe id "
                                 "(unsigned decimal or 0x hex, at most 0xFFFFFFFF)",
                                 where, (int)(i - a > 24 ? 24 : i - a), (const char *)p + a, a);
        if (*count >= MAX_INFO_IDS)
            return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET, "%s: statistics_info: more than %u ids",
                                 where, MAX_INFO_IDS);
        if (push_id(ids, count, &cap, (uint32_t)v))
            return nomem(err, where);
    }
    if (!*count)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "%s: statistics_info text has no stripe ids",
                             where);
    return ETP_OK;
}

etp_status etp_nx_info_parse(const uint8_t *data, size_t n, int is_text, const char *where, uint32_t **ids,
                             uint32_t *count, etp_error *err)
{
    *ids = NULL;
    *count = 0;
    if (!where)
        where = "VGF_NEURAL_STATISTICS";
    etp_status st;
    if (is_text) {
        st = parse_text(data, n, where, ids, count, err);
    } else {
        const uint8_t *p;
        size_t len;
        st = etp_nx_unframe(data, n, INFO_MAGIC, "statistics_info", where, &p, &len, err);
        if (st == ETP_OK && len % 4)
            st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                               "%s: statistics_info of %zu bytes is not a whole number of 32-bit words", where,
                               len);
        else if (st == ETP_OK && len / 4 > MAX_INFO_IDS)
            st = etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET, "%s: statistics_info: more than %u ids",
                               where, MAX_INFO_IDS);
        if (st == ETP_OK && len) {
            *count = (uint32_t)(len / 4);
            if (!(*ids = malloc(len)))
                st = nomem(err, where);
            for (uint32_t k = 0; st == ETP_OK && k < *count; k++)
                (*ids)[k] = etp_nx_le32(p + 4 * (size_t)k);
        }
    }
    if (st == ETP_OK)
        st = check_duplicates(*ids, *count, where, err);
    if (st != ETP_OK) {
        free(*ids);
        *ids = NULL;
        *count = 0;
    }
    return st;
}

void etp_nx_decoded_free(etp_nx_decoded *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->string_count; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->stripes);
    free(d->counter_store);
    free(d);
}

static inline uint32_t word_at(const uint8_t *mem, uint64_t w)
{
    return etp_nx_le32(mem + 4 * w);
}

/* Mode 0: per section, the sum over the block's tasks. Returns 1 when the
 * block has a non-zero word (a row). */
static int block_mode0(const uint8_t *mem, uint64_t first_task, uint64_t ntasks, uint64_t *sums)
{
    uint64_t acc[16] = {0};
    const uint8_t *p = mem + first_task * 64;
    for (uint64_t t = 0; t < ntasks; t++, p += 64)
        for (int w = 0; w < 16; w++)
            acc[w] += etp_nx_le32(p + 4 * w);
    int any = 0;
    for (int w = 0; w < 16; w++) {
        sums[w] = acc[w];
        any |= acc[w] != 0;
    }
    return any;
}

/* Mode 1: per named counter, the sum over each core's tasks, then the
 * largest core total. Returns 1 when a task has a non-zero word, 0 when
 * none, -1 when a core index is out of range (*bad_task, *bad_core). */
static int block_mode1(const uint8_t *mem, uint64_t first_task, uint64_t ntasks, const etp_nx_layout *l,
                       etp_nx_core_key key, uint64_t *sums, uint64_t (*per_core)[ETP_NX_MAX_WORDS],
                       uint32_t *cores_seen, uint64_t *bad_task, uint32_t *bad_core)
{
    uint32_t wpt = l->words_per_task, nc = l->counter_count;
    uint64_t used = 0; /* bit set of cores seen */
    int any = 0;
    for (uint64_t t = 0; t < ntasks; t++) {
        const uint8_t *p = mem + (first_task + t) * 4 * wpt;
        uint32_t nz = 0;
        for (uint32_t w = 0; w < wpt; w++)
            nz |= etp_nx_le32(p + 4 * w);
        if (!nz)
            continue; /* an all-zero task adds nothing */
        any = 1;
        uint32_t core = 0;
        if (key == ETP_NX_CORE_WORD0) {
            core = etp_nx_le32(p);
            if (core >= ETP_NX_MAX_CORES) {
                *bad_task = first_task + t;
                *bad_core = core;
                return -1;
            }
        }
        if (!(used & (1ull << core))) {
            used |= 1ull << core;
            memset(per_core[core], 0, sizeof per_core[core]);
        }
        for (uint32_t k = 0; k < nc; k++)
            per_core[core][k] += etp_nx_le32(p + 4 * l->counter_word[k]);
    }
    memset(sums, 0, nc * sizeof *sums);
    uint32_t seen = 0;
    for (uint32_t c = 0; c < ETP_NX_MAX_CORES; c++) {
        if (!(used & (1ull << c)))
            continue;
        seen++;
        for (uint32_t k = 0; k < nc; k++)
            if (per_core[c][k] > sums[k])
                sums[k] = per_core[c][k];
    }
    if (seen > *cores_seen)
        *cores_seen = seen;
    return any;
}

etp_status etp_nx_memory_decode(const uint8_t *mem, size_t n, const uint32_t *ids, uint32_t id_count,
                                const etp_nx_settings *s, const char *where, etp_nx_decoded **out, etp_error *err)
{
    *out = NULL;
    if (!where)
        where = "VGF_NEURAL_STATISTICS";
    const etp_nx_layout *l = s->layout;
    if (n % 4)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: statistics_memory of %zu bytes is not 4-byte aligned", where, n);
    uint64_t words = n / 4;
    if (!words)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "%s: statistics_memory is empty", where);
    if (words % 16)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: statistics_memory of %zu bytes is not aligned to 64 bytes", where, n);
    if (words % l->words_per_task)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: statistics_memory of %llu words is not a whole number of %u-word tasks (%s "
                             "mode %d)",
                             where, (unsigned long long)words, l->words_per_task, etp_nx_device_name(l->device),
                             l->mode);
    uint64_t tasks = words / l->words_per_task;
    uint64_t blocks = (tasks + l->tasks_per_block - 1) / l->tasks_per_block;
    uint64_t lead = s->leading_blocks < blocks ? s->leading_blocks : blocks;
    uint64_t range = blocks - lead; /* stripe ids 0..range-1 have a block */

    etp_nx_decoded *d = calloc(1, sizeof *d);
    if (!d)
        return nomem(err, where);
    d->layout = l;
    d->leading_blocks = s->leading_blocks;
    d->blocks = blocks;
    d->stripe_count = id_count;
    uint32_t nc = l->counter_count;
    d->stripes = calloc(id_count ? id_count : 1, sizeof *d->stripes);
    d->counter_store = calloc((size_t)(id_count ? id_count : 1) * nc, sizeof *d->counter_store);
    uint32_t *pos = range ? malloc((size_t)range * sizeof *pos) : NULL;
    uint64_t(*per_core)[ETP_NX_MAX_WORDS] = malloc(ETP_NX_MAX_CORES * sizeof *per_core);
    etp_status st = ETP_OK;
    if (!d->stripes || !d->counter_store || (range && !pos) || !per_core) {
        st = nomem(err, where);
        goto out;
    }
    for (uint64_t b = 0; b < range; b++)
        pos[b] = NONE;
    for (uint32_t i = 0; i < id_count; i++) {
        d->stripes[i].id = ids[i];
        d->stripes[i].zero_row = 1;
        d->stripes[i].counters = d->counter_store + (size_t)i * nc;
        if (ids[i] < range)
            pos[ids[i]] = i;
    }
    for (uint64_t w = 0; w < lead * l->tasks_per_block * l->words_per_task && w < words; w++)
        d->leading_nonzero_words += word_at(mem, w) != 0;
    uint64_t sums[ETP_NX_MAX_WORDS];
    for (uint64_t b = 0; b < range; b++) {
        uint64_t first = (lead + b) * l->tasks_per_block;
        uint64_t nt = tasks - first < l->tasks_per_block ? tasks - first : l->tasks_per_block;
        uint64_t bad_task = 0;
        uint32_t bad_core = 0;
        int row = l->mode == 0 ? block_mode0(mem, first, nt, sums)
                               : block_mode1(mem, first, nt, l, s->core_key, sums, per_core, &d->max_cores_seen,
                                             &bad_task, &bad_core);
        if (row < 0) {
            st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                               "%s: statistics_memory task %llu (stripe %llu): word 0 = %u is not a core index "
                               "below %u (core key word0)",
                               where, (unsigned long long)bad_task, (unsigned long long)b, bad_core,
                               ETP_NX_MAX_CORES);
            goto out;
        }
        if (!row)
            continue;
        if (pos[b] == NONE) {
            st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                               "%s: statistics_memory has a non-zero row for stripe %llu (block %llu), which "
                               "statistics_info does not list",
                               where, (unsigned long long)b, (unsigned long long)(lead + b));
            goto out;
        }
        etp_nx_stripe *r = &d->stripes[pos[b]];
        r->zero_row = 0;
        memcpy(r->counters, sums, nc * sizeof *sums);
        if (l->mode == 0) {
            uint64_t t = 0;
            for (uint32_t k = 0; k < nc; k++)
                t += sums[k];
            r->op_cycles = r->total_cycles = t;
        } else {
            r->op_cycles = r->total_cycles = sums[l->op_counter];
        }
    }
    for (uint32_t i = 0; i < id_count; i++)
        if (ids[i] >= range) {
            st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                               "%s: statistics_info lists stripe %u outside the statistics block range (%llu "
                               "stripe blocks after %llu leading)",
                               where, ids[i], (unsigned long long)range, (unsigned long long)lead);
            goto out;
        }
out:
    free(pos);
    free(per_core);
    if (st != ETP_OK) {
        etp_nx_decoded_free(d);
        return st;
    }
    *out = d;
    return ETP_OK;
}
