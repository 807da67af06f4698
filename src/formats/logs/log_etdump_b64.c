/* log_etdump_b64.c - files carried in a console log as base64
 * (specs/runner-logs.md §4.1, §6): the Arm runner's `#[RUN THIS]` block, whose
 * `echo "<base64>" | base64 -d >NAME` lines hold etdump.bin and
 * debug_buffer.bin, and a bare base64 body between two lines naming
 * etdump.bin. Decoding is strict (standard alphabet, padding, canonical
 * trailing bits): a console that dropped or garbled characters is caught, not
 * decoded into a wrong dump. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"
#include "util/str.h"

#define MIN_BARE_LINE 16 /* a shorter first line does not start a bare body */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int etp_base64_decode(const char *s, size_t n, uint8_t **out, size_t *size, size_t *bad_at)
{
    *out = NULL;
    *size = 0;
    if (n % 4) {
        *bad_at = n;
        return -1;
    }
    size_t pad = 0;
    if (n && s[n - 1] == '=')
        pad = n >= 2 && s[n - 2] == '=' ? 2 : 1;
    uint8_t *o = malloc(n / 4 * 3 + 1);
    if (!o)
        return -2;
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int j = 0; j < 4; j++) {
            size_t at = i + (size_t)j;
            if (at >= n - pad) {
                v[j] = 0; /* padding */
                continue;
            }
            v[j] = b64_value((unsigned char)s[at]);
            if (v[j] < 0) {
                free(o);
                *bad_at = at;
                return -1;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        size_t take = i + 4 < n ? 3 : 3 - pad;
        /* Canonical encodings leave the bits under the padding zero. */
        if ((pad == 1 && i + 4 == n && (w & 0xff)) || (pad == 2 && i + 4 == n && (w & 0xffff))) {
            free(o);
            *bad_at = n - pad - 1;
            return -1;
        }
        o[k++] = (uint8_t)(w >> 16);
        if (take > 1)
            o[k++] = (uint8_t)(w >> 8);
        if (take > 2)
            o[k++] = (uint8_t)w;
    }
    *out = o;
    *size = k;
    return 0;
}

void etp_b64_init(etp_b64_state *st)
{
    memset(st, 0, sizeof *st);
    st->announced = -1;
}

static int is_b64_char(char c)
{
    return b64_value((unsigned char)c) >= 0 || c == '=';
}

/* Keep a decoded file in @p slot; the same file twice is fine, two different
 * ETDumps (or debug buffers) in one log are an error. Takes @p data. */
static int keep(etp_device_log *l, etp_dl_blob *slot, const char *name, uint8_t *data, size_t size,
                uint32_t no, etp_error *err)
{
    if (slot->data) {
        int same = slot->size == size && !memcmp(slot->data, data, size);
        free(data);
        if (same)
            return 1;
        char what[400];
        snprintf(what, sizeof what, "a second, different %s (the first is at line %u): which run is it?",
                 name, slot->line);
        return etp_ls_bad(err, l->path, no, what);
    }
    slot->name = etp_strdup(name);
    if (!slot->name) {
        free(data);
        return etp_ls_oom(err, l->path);
    }
    slot->data = data;
    slot->size = size;
    slot->line = no;
    l->formats |= ETP_DL_ETDUMP_BLOCK;
    return 1;
}

static int decode_into(etp_device_log *l, const char *name, const char *s, size_t n, uint32_t no,
                       etp_error *err)
{
    uint8_t *data;
    size_t size, bad_at;
    int r = etp_base64_decode(s, n, &data, &size, &bad_at);
    if (r == -2)
        return etp_ls_oom(err, l->path);
    if (r) {
        char what[400];
        if (bad_at == n)
            snprintf(what, sizeof what,
                     "base64 of %s is %zu characters, not a multiple of 4: cut short or garbled", name, n);
        else
            snprintf(what, sizeof what, "base64 of %s: bad character 0x%02x at column %zu", name,
                     (unsigned char)s[bad_at], bad_at + 1);
        return etp_ls_bad(err, l->path, no, what);
    }
    if (!size) {
        free(data);
        return etp_ls_bad(err, l->path, no, "empty base64 body");
    }
    int debug = strstr(name, "debug") != NULL;
    return keep(l, debug ? &l->debug_buffer : &l->etdump, name, data, size, no, err);
}

/* `echo "<base64>" | base64 -d >NAME` inside a block. */
static int echo_line(etp_b64_state *st, etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    const char *gt = strrchr(line, '>');
    const char *q1 = strchr(line, '"');
    const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    if (!q2)
        return etp_ls_bad(err, l->path, no, "base64 line without its closing quote: cut short");
    if (!gt || gt < q2)
        return etp_ls_bad(err, l->path, no, "base64 line without '>FILE'");
    const char *name = gt + 1;
    while (*name == ' ')
        name++;
    size_t nn = strcspn(name, " \t");
    char nbuf[128];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)(nn < 100 ? nn : 100), name);
    if (!strstr(nbuf, "etdump") && !strstr(nbuf, "debug_buffer"))
        return 1; /* another file (output.bin): not ours to keep */
    size_t n = (size_t)(q2 - q1 - 1);
    int is_dump = strstr(nbuf, "etdump") != NULL;
    if (is_dump && st->announced >= 0) {
        if ((uint64_t)st->announced != n) {
            char what[400];
            snprintf(what, sizeof what,
                     "%s: %zu base64 characters, but line %u announced %lld: cut short or garbled",
                     nbuf, n, st->announced_line, (long long)st->announced);
            return etp_ls_bad(err, l->path, no, what);
        }
        st->announced = -1;
    }
    return decode_into(l, nbuf, q1 + 1, n, no, err);
}

static int finish_bare(etp_b64_state *st, etp_device_log *l, uint32_t no, etp_error *err)
{
    st->in_bare = 0;
    int r = decode_into(l, "etdump.bin", st->bare, st->bare_len, st->bare_line, err);
    free(st->bare);
    st->bare = NULL;
    st->bare_len = st->bare_cap = 0;
    (void)no;
    return r;
}

/* The line without blanks and CRs around it. */
static void trim(const char *line, size_t len, const char **s, size_t *n)
{
    const char *b = line, *e = line + len;
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    *s = b;
    *n = (size_t)(e - b);
}

static int all_b64(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_b64_char(s[i]))
            return 0;
    return n > 0;
}

int etp_b64_line(etp_b64_state *st, etp_device_log *l, const char *line, size_t len, uint32_t no,
                 etp_error *err)
{
    const char *s;
    size_t n;
    trim(line, len, &s, &n);
    const char *p;
    if (st->in_bare) {
        if (all_b64(s, n)) {
            if (st->bare_len + n > ((size_t)64 << 20))
                return etp_ls_bad(err, l->path, no, "base64 body larger than 64 MiB");
            if (st->bare_len + n > st->bare_cap) {
                size_t cap = (st->bare_len + n) * 2;
                char *nb = realloc(st->bare, cap);
                if (!nb)
                    return etp_ls_oom(err, l->path);
                st->bare = nb;
                st->bare_cap = cap;
            }
            memcpy(st->bare + st->bare_len, s, n);
            st->bare_len += n;
            return 1;
        }
        if (!strstr(line, "etdump.bin")) {
            char what[400];
            snprintf(what, sizeof what,
                     "the base64 body of etdump.bin from line %u ends without a line naming etdump.bin: "
                     "cut short or interrupted",
                     st->bare_line);
            return etp_ls_bad(err, l->path, no, what);
        }
        return finish_bare(st, l, no, err) < 0 ? -1 : 1;
    }
    if ((p = etp_ls_after(line, "[base64] buffer size:"))) {
        uint64_t v;
        if (etp_ls_u64(&p, &v) || v > ((uint64_t)64 << 20))
            return etp_ls_bad(err, l->path, no, "unreadable [base64] buffer size");
        st->announced = (int64_t)v;
        st->announced_line = no;
        return 1;
    }
    if (n == 11 && !memcmp(s, "#[RUN THIS]", 11)) {
        if (st->in_block)
            return etp_ls_bad(err, l->path, no, "#[RUN THIS] inside another #[RUN THIS] block (no #[END])");
        st->in_block = 1;
        st->block_line = no;
        return 1;
    }
    if (st->in_block) {
        if (n == 6 && !memcmp(s, "#[END]", 6)) {
            st->in_block = 0;
            return 1;
        }
        if (strstr(line, "--source_time_scale cycles") && !st->cycles_hint)
            st->cycles_hint = (int)no;
        if (!strncmp(s, "echo \"", 6))
            return echo_line(st, l, line, no, err);
        if (s[0] == '#' || !strncmp(s, "python", 6))
            return 1; /* comments and commands of the block */
        return 0;     /* another stream's line interleaved with the block */
    }
    if (st->bare_pending) {
        st->bare_pending = 0;
        if (n >= MIN_BARE_LINE && all_b64(s, n)) {
            st->in_bare = 1;
            st->bare_line = no;
            return etp_b64_line(st, l, line, len, no, err);
        }
    }
    if (strstr(line, "etdump.bin") && !strchr(line, '"') && !strchr(line, '\''))
        st->bare_pending = 1;
    return 0;
}

int etp_b64_finish(etp_b64_state *st, etp_device_log *l, etp_error *err)
{
    int r = 0;
    if (st->in_block) {
        etp_error_set(err, ETP_E_TRUNCATED, l->path, ETP_NO_OFFSET,
                      "line %u: the #[RUN THIS] block has no #[END]: the capture was cut short",
                      st->block_line);
        r = -1;
    } else if (st->in_bare) {
        etp_error_set(err, ETP_E_TRUNCATED, l->path, ETP_NO_OFFSET,
                      "line %u: the base64 body of etdump.bin runs to the end of the log without a "
                      "closing line naming etdump.bin: the capture was cut short",
                      st->bare_line);
        r = -1;
    } else if (st->announced >= 0 && !l->etdump.data) {
        etp_error_set(err, ETP_E_TRUNCATED, l->path, ETP_NO_OFFSET,
                      "line %u announces a %lld-character base64 ETDump that never follows: the "
                      "capture was cut short",
                      st->announced_line, (long long)st->announced);
        r = -1;
    }
    if (!r && l->etdump.data && st->cycles_hint) {
        l->has_etdump_tick_unit = 1;
        l->etdump_tick_unit = ETP_UNIT_CYCLES;
        l->etdump_tick_unit_line = (uint32_t)st->cycles_hint;
    }
    free(st->bare);
    st->bare = NULL;
    return r;
}
