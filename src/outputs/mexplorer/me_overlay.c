/*
 * me_overlay.c - Model Explorer node-data ("overlay") files: one metric on
 * one graph, keyed by graph id then node id (spec section 2).
 *
 * Every result carries an explicit bgColor/textColor computed here with the
 * rules Model Explorer applies to a gradient. Model Explorer would paint
 * nothing when all values are equal (its t = 0/0), and explicit colours let
 * several overlays share one scale (use_range); the gradient is still written
 * so the UI can draw its legend.
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "outputs/mexplorer/me_color.h"
#include "util/hashmap.h"
#include "util/jsonw.h"

static const etp_me_stop default_stops[] = {
    {0.0, "#1a9850"}, {0.5, "#ffd700"}, {1.0, "#d73027"}};

const etp_me_stop *etp_me_default_stops(size_t *n)
{
    *n = sizeof default_stops / sizeof default_stops[0];
    return default_stops;
}

void etp_me_overlay_init(etp_me_overlay *ov)
{
    memset(ov, 0, sizeof *ov);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20); /* ASCII lower case; keeps non-letters non-hex */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "#rrggbb" -> rgb; 0 when malformed or longer, @p rgb untouched (a NUL
 * is no hex digit, so s[7] is read only after six digits). */
static int parse_hex(const char *s, int rgb[3])
{
    if (!s || s[0] != '#')
        return 0;
    int v[3];
    for (int i = 0; i < 3; i++) {
        int hi = hex_digit(s[1 + 2 * i]);
        if (hi < 0)
            return 0;
        int lo = hex_digit(s[2 + 2 * i]);
        if (lo < 0)
            return 0;
        v[i] = hi * 16 + lo;
    }
    if (s[7] != '\0')
        return 0;
    memcpy(rgb, v, sizeof v);
    return 1;
}

static int stops_valid(const etp_me_stop *stops, size_t n)
{
    int rgb[3];
    if (n < 2 || stops[0].stop != 0.0 || stops[n - 1].stop != 1.0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!parse_hex(stops[i].bg_color, rgb) || !isfinite(stops[i].stop))
            return 0;
        if (i && stops[i].stop < stops[i - 1].stop)
            return 0;
    }
    return 1;
}

static double gamma22[256]; /* pow(i / 255.0, 2.2) */
static pthread_once_t gamma_once = PTHREAD_ONCE_INIT;

static void gamma_init(void)
{
    for (int i = 0; i < 256; i++)
        gamma22[i] = pow(i / 255.0, 2.2);
}

/* Where @p v sits between @p min and @p max, clamped to [0, 1]. */
static double position(double min, double max, double v)
{
    double t = max > min ? (v - min) / (max - min) : 0.0;
    if (!(t >= 0.0)) /* also NaN */
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    return t;
}

/* The colour at @p t between stops @p s0 (colour @p a) and @p s1 (@p b). */
static void paint(double t, double s0, double s1, const int a[3], const int b[3], char *bg,
                  char *text)
{
    int c[3];
    double span = s1 - s0;
    double ratio = span > 0 ? (t - s0) / span : 0.0;
    if (ratio < 0)
        ratio = 0;
    if (ratio > 1)
        ratio = 1;
    for (int i = 0; i < 3; i++) {
        c[i] = (int)floor(a[i] + (b[i] - a[i]) * ratio);
        if (c[i] < 0)
            c[i] = 0;
        if (c[i] > 255)
            c[i] = 255;
    }
    static const char hex[] = "0123456789abcdef";
    bg[0] = '#';
    for (int i = 0; i < 3; i++) {
        bg[1 + 2 * i] = hex[c[i] >> 4];
        bg[2 + 2 * i] = hex[c[i] & 15];
    }
    bg[7] = '\0';
    /* Model Explorer's contrast rule: relative luminance with gamma 2.2
     * (overlays colour a million nodes: the powers come from a table of the
     * same pow() results). */
    pthread_once(&gamma_once, gamma_init);
    double lum = 0.2126 * gamma22[c[0]] + 0.7152 * gamma22[c[1]] + 0.0722 * gamma22[c[2]];
    memcpy(text, lum < 0.38 ? "#ffffff" : "#1f1f1f", 8);
}

void etp_me_color(const etp_me_stop *stops, size_t n, double min, double max, double v, char *bg,
                  char *text)
{
    if (!stops || n < 2) {
        stops = default_stops;
        n = sizeof default_stops / sizeof default_stops[0];
    }
    double t = position(min, max, v);
    size_t seg = 0;
    while (seg + 2 < n && t > stops[seg + 1].stop)
        seg++;
    int a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    parse_hex(stops[seg].bg_color, a);
    parse_hex(stops[seg + 1].bg_color, b);
    paint(t, stops[seg].stop, stops[seg + 1].stop, a, b, bg, text);
}

int etp_me_scale_init(etp_me_scale *s, const etp_me_stop *stops, size_t n, double min, double max)
{
    if (!stops || n < 2) {
        stops = default_stops;
        n = sizeof default_stops / sizeof default_stops[0];
    }
    if (n > ETP_ME_SCALE_STOPS)
        return -1;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->min = min;
    s->max = max;
    for (size_t i = 0; i < n; i++) {
        s->stop[i] = stops[i].stop;
        parse_hex(stops[i].bg_color, s->rgb[i]); /* malformed: stays black */
    }
    return 0;
}

void etp_me_scale_color(const etp_me_scale *s, double v, char *bg, char *text)
{
    double t = position(s->min, s->max, v);
    size_t seg = 0;
    while (seg + 2 < s->n && t > s->stop[seg + 1])
        seg++;
    paint(t, s->stop[seg], s->stop[seg + 1], s->rgb[seg], s->rgb[seg + 1], bg, text);
}

int etp_me_overlay_filename(char *buf, size_t size, const char *metric, const char *unit)
{
    char tmp[256];
    size_t n = 0;
    int dash = 0;
    const char *parts[2] = {metric ? metric : "", unit ? unit : ""};
    for (int p = 0; p < 2; p++, dash = 1)
        for (const char *s = parts[p]; *s && n < sizeof tmp - 8; s++) {
            unsigned char ch = (unsigned char)*s;
            if (isalnum(ch) && ch < 0x80) {
                if (dash && n)
                    tmp[n++] = '-';
                dash = 0;
                tmp[n++] = (char)tolower(ch);
            } else
                dash = 1;
        }
    if (!n) {
        memcpy(tmp, "overlay", 7);
        n = 7;
    }
    tmp[n] = '\0';
    return snprintf(buf, size, "%s.json", tmp);
}

/* Refuse a node id given twice. @p first points at the node_id member of
 * the first of @p n records laid out @p stride bytes apart (values and labels
 * share this check). */
static etp_status no_duplicate_ids(const char *metric, const char *const *first, size_t n,
                                   size_t stride, etp_error *err)
{
    if (n < 2)
        return ETP_OK;
    if (n > UINT32_MAX)
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "overlay \"%s\": too many values", metric);
    /* A hash set of the ids seen so far: one pass, no sort. */
    etp_hm seen;
    etp_hm_init(&seen);
    etp_status s = ETP_OK;
    for (size_t i = 0; i < n && !s; i++) {
        const char *id = *(const char *const *)((const char *)first + i * stride);
        uint64_t h = etp_hash_bytes(id, strlen(id), 0);
        size_t cur = 0;
        uint32_t j;
        while (!s && etp_hm_next(&seen, h, &cur, &j))
            if (!strcmp(id, *(const char *const *)((const char *)first + (size_t)j * stride)))
                s = etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                  "overlay \"%s\": node %s has two values", metric, id);
        if (!s && etp_hm_put(&seen, h, (uint32_t)i) != 0)
            s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    etp_hm_free(&seen);
    return s;
}

static etp_status check(const etp_me_overlay *ov, etp_error *err)
{
    if (!ov->graph_id || !ov->metric || !*ov->metric)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "overlay needs a graph id and a metric name");
    if (ov->stops && !stops_valid(ov->stops, ov->stop_count))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "overlay \"%s\": gradient stops must run from 0 to 1 in order with "
                             "#rrggbb colours",
                             ov->metric);
    if (ov->use_range && !(isfinite(ov->range_min) && isfinite(ov->range_max) &&
                           ov->range_min <= ov->range_max))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "overlay \"%s\": bad colour range", ov->metric);
    if (ov->significant_digits < 0 || ov->significant_digits > 17)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "overlay \"%s\": significant digits must be 0..17", ov->metric);
    for (size_t i = 0; i < ov->value_count; i++) {
        if (!ov->values[i].node_id)
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "overlay \"%s\": value %zu has no node id", ov->metric, i);
        if (!isfinite(ov->values[i].value))
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "overlay \"%s\": node %s has a non-finite value", ov->metric,
                                 ov->values[i].node_id);
    }
    if (!ov->value_count)
        return ETP_OK;
    return no_duplicate_ids(ov->metric, &ov->values[0].node_id, ov->value_count,
                            sizeof ov->values[0], err);
}

/* The value as written: rounded to the requested significant digits. */
static double shown(const etp_me_overlay *ov, double v)
{
    if (!ov->significant_digits)
        return v;
    char b[40];
    snprintf(b, sizeof b, "%.*g", ov->significant_digits, v);
    return strtod(b, NULL);
}

/* One graph's GraphNodeData object (the value under its graph id). */
static etp_status write_graph_data(etp_jw *w, const etp_me_overlay *ov, etp_error *err)
{
    const etp_me_stop *stops = ov->stops ? ov->stops : default_stops;
    size_t nstops = ov->stops ? ov->stop_count : sizeof default_stops / sizeof default_stops[0];

    double lo = ov->range_min, hi = ov->range_max;
    if (!ov->use_range) {
        lo = INFINITY;
        hi = -INFINITY;
        for (size_t i = 0; i < ov->value_count; i++) {
            double v = shown(ov, ov->values[i].value);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }

    etp_jw_key(w, ov->graph_id);
    etp_jw_obj_begin(w);

    /* The unit goes into the run name: the UI shows nothing else about it. */
    char *name = malloc(strlen(ov->metric) + (ov->unit ? strlen(ov->unit) : 0) + 4);
    if (!name)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    if (ov->unit && *ov->unit)
        sprintf(name, "%s (%s)", ov->metric, ov->unit);
    else
        strcpy(name, ov->metric);
    ETP_JW_KSTR_LIT(w, "name", name);
    free(name);

    /* Model Explorer derives a result's colours from the gradient over this
     * overlay's own min..max exactly as etp_me_color does, except when that
     * range is empty (it paints nothing) or a shared one is wanted. */
    int derived = ov->colors_when_needed && !ov->use_range && hi > lo;
    /* One value (or all equal): a scale from 0, as the report page draws
     * it, so the only node shows as the costly one it is, not the cheapest. */
    if (!ov->use_range && lo == hi && hi > 0)
        lo = 0;
    etp_me_scale scale;
    int scaled = etp_me_scale_init(&scale, stops, nstops, lo, hi) == 0;
    ETP_JW_KEY_LIT(w, "results");
    etp_jw_obj_begin(w);
    for (size_t i = 0; i < ov->value_count; i++) {
        double v = shown(ov, ov->values[i].value);
        etp_jw_key(w, ov->values[i].node_id);
        etp_jw_obj_begin(w);
        ETP_JW_KDOUBLE_LIT(w, "value", v);
        if (!derived) {
            char bg[8], text[8];
            if (scaled)
                etp_me_scale_color(&scale, v, bg, text);
            else
                etp_me_color(stops, nstops, lo, hi, v, bg, text);
            ETP_JW_KSTR_LIT(w, "bgColor", bg);
            ETP_JW_KSTR_LIT(w, "textColor", text);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_obj_end(w);

    ETP_JW_KEY_LIT(w, "gradient");
    etp_jw_arr_begin(w);
    for (size_t i = 0; i < nstops; i++) {
        etp_jw_obj_begin(w);
        ETP_JW_KDOUBLE_LIT(w, "stop", stops[i].stop);
        ETP_JW_KSTR_LIT(w, "bgColor", stops[i].bg_color);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);

    ETP_JW_KEY_LIT(w, "hideAggregatedStats");
    etp_jw_arr_begin(w);
    static const char *const stat_names[] = {"min", "max", "sum", "avg"};
    for (int i = 0; i < 4; i++)
        if (ov->hide_stats & (1u << i))
            etp_jw_str(w, stat_names[i]);
    etp_jw_arr_end(w);

    etp_jw_obj_end(w);
    return ETP_OK;
}

/* ETP_E_USAGE when overlay @p i of the array @p items (elements of @p size
 * bytes, their graph id at @p id_at) targets a graph an earlier one does:
 * one file holds one overlay per graph. */
static etp_status graph_repeated(const void *items, size_t size, size_t i, size_t id_at,
                                 const char *metric, etp_error *err)
{
    const char *base = items;
    const char *id = *(const char *const *)(const void *)(base + i * size + id_at);
    for (size_t k = 0; k < i; k++)
        if (!strcmp(*(const char *const *)(const void *)(base + k * size + id_at), id))
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "overlay \"%s\": graph %s appears twice", metric, id);
    return ETP_OK;
}

etp_status etp_me_write_overlays(const etp_me_overlay *ovs, size_t count, FILE *fp, int pretty,
                                 etp_error *err)
{
    if (!count)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no overlay to write");
    for (size_t i = 0; i < count; i++) {
        etp_status s = check(&ovs[i], err);
        if (s)
            return s;
        if ((s = graph_repeated(ovs, sizeof ovs[0], i, offsetof(etp_me_overlay, graph_id),
                                ovs[i].metric, err)))
            return s;
    }
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    etp_jw_obj_begin(&w);
    etp_status s = ETP_OK;
    for (size_t i = 0; i < count && !s; i++)
        s = write_graph_data(&w, &ovs[i], err);
    etp_jw_obj_end(&w);
    if (etp_jw_finish(&w) && !s)
        s = etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "could not write the overlay \"%s\"",
                          ovs[0].metric);
    return s;
}

etp_status etp_me_write_overlay(const etp_me_overlay *ov, FILE *fp, int pretty, etp_error *err)
{
    return etp_me_write_overlays(ov, 1, fp, pretty, err);
}

static etp_status label_duplicates(const etp_me_label_overlay *ov, etp_error *err)
{
    if (!ov->label_count)
        return ETP_OK;
    return no_duplicate_ids(ov->metric, &ov->labels[0].node_id, ov->label_count,
                            sizeof ov->labels[0], err);
}

etp_status etp_me_write_label_overlays(const etp_me_label_overlay *ovs, size_t count, FILE *fp,
                                       int pretty, etp_error *err)
{
    if (!count)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no overlay to write");
    for (size_t i = 0; i < count; i++) {
        if (!ovs[i].graph_id || !ovs[i].metric || !*ovs[i].metric)
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "overlay needs a graph id and a metric name");
        for (size_t k = 0; k < ovs[i].label_count; k++) {
            int rgb[3];
            const etp_me_label *l = &ovs[i].labels[k];
            if (!l->node_id || !l->value || (l->bg_color && !parse_hex(l->bg_color, rgb)))
                return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                     "overlay \"%s\": label %zu needs a node id, a value and a "
                                     "#rrggbb colour",
                                     ovs[i].metric, k);
        }
        etp_status s = label_duplicates(&ovs[i], err);
        if (s)
            return s;
        if ((s = graph_repeated(ovs, sizeof ovs[0], i, offsetof(etp_me_label_overlay, graph_id),
                                ovs[i].metric, err)))
            return s;
    }
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    etp_jw_obj_begin(&w);
    for (size_t i = 0; i < count; i++) {
        const etp_me_label_overlay *ov = &ovs[i];
        etp_jw_key(&w, ov->graph_id);
        etp_jw_obj_begin(&w);
        ETP_JW_KSTR_LIT(&w, "name", ov->metric);
        ETP_JW_KEY_LIT(&w, "results");
        etp_jw_obj_begin(&w);
        for (size_t k = 0; k < ov->label_count; k++) {
            const etp_me_label *l = &ov->labels[k];
            etp_jw_key(&w, l->node_id);
            etp_jw_obj_begin(&w);
            ETP_JW_KSTR_LIT(&w, "value", l->value);
            if (l->bg_color) {
                int rgb[3];
                parse_hex(l->bg_color, rgb);
                double lum = 0.2126 * pow(rgb[0] / 255.0, 2.2) + 0.7152 * pow(rgb[1] / 255.0, 2.2) +
                             0.0722 * pow(rgb[2] / 255.0, 2.2);
                ETP_JW_KSTR_LIT(&w, "bgColor", l->bg_color);
                ETP_JW_KSTR_LIT(&w, "textColor", lum < 0.38 ? "#ffffff" : "#1f1f1f");
            }
            etp_jw_obj_end(&w);
        }
        etp_jw_obj_end(&w);
        /* Strings have no min/max/sum/avg; per-value counts on layers instead. */
        ETP_JW_KBOOL_LIT(&w, "showExpandedSummaryOnGroupNode", 1);
        etp_jw_obj_end(&w);
    }
    etp_jw_obj_end(&w);
    if (etp_jw_finish(&w))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "could not write the overlay \"%s\"",
                             ovs[0].metric);
    return ETP_OK;
}
