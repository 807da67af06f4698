/* hist_page.c - the standalone trend page (etp_history_trend_html): a fixed
 * skeleton, the data as inline JSON (strings escaped so that nothing in it
 * can end its <script> element), and etprof's own script (assets/history.js)
 * that draws it. No text from the data is written as markup here: the
 * script puts every label into the page as text.
 *
 * The data: {"title", "charts": [{metric, entity, unit, series: [indices]}],
 * "series": [{series (its key), metric, entity, unit, lower_is_better,
 * group, time_order,
 * verdict, run: [], run_id: [], t: [], x: [] (only when the order is not
 * the publication time t), y: [], fixed_labels: {labels every point has
 * with one value}, label_keys: [the others], labels: [[value per point] per
 * key]}]}: one array per field, so that a large history stays small. */
#include <stdlib.h>
#include <string.h>

#include "etprof/history_io.h"
#include "outputs/history/hist_fields.h"
#include "util/str.h"

extern const char etp_history_css[];
extern const char etp_history_js[];

/* The distinct label keys of @p s's points, sorted: *n of them (malloc'd),
 * NULL when there are none or memory runs out (*failed then). */
static const char **label_keys(const etp_history_series *s, uint32_t *n, int *failed)
{
    const char **keys = NULL;
    uint32_t count = 0, cap = 0;
    for (uint32_t p = 0; p < s->point_count; p++)
        for (uint32_t l = 0; l < s->points[p].label_count; l++) {
            const char *k = s->points[p].labels[l].key;
            uint32_t at = 0;
            while (at < count && strcmp(keys[at], k) < 0)
                at++;
            if (at < count && !strcmp(keys[at], k))
                continue;
            if (count == cap) {
                const char **grown = realloc(keys, (cap = cap ? 2 * cap : 8) * sizeof *keys);
                if (!grown) {
                    free(keys);
                    *failed = 1;
                    *n = 0;
                    return NULL;
                }
                keys = grown;
            }
            memmove(keys + at + 1, keys + at, (count - at) * sizeof *keys);
            keys[at] = k;
            count++;
        }
    *n = count;
    return keys;
}

/* 1 when every point's order is its publication time (a time axis). */
static int time_order(const etp_history_series *s)
{
    for (uint32_t p = 0; p < s->point_count; p++)
        if (s->points[p].order != (double)s->points[p].published_ms)
            return 0;
    return 1;
}

/* 1 when every point has label @p key with the same value. */
static int fixed_label(const etp_history_series *s, const char *key)
{
    const char *first = NULL;
    for (uint32_t p = 0; p < s->point_count; p++) {
        const char *v = hist_label(s->points[p].labels, s->points[p].label_count, key);
        if (!v || (first && strcmp(v, first)))
            return 0;
        first = v;
    }
    return first != NULL;
}

enum { COL_RUN, COL_RUN_ID, COL_TIME, COL_ORDER, COL_VALUE };

/* One field of every point as an array member @p name. */
static void point_column(etp_jw *w, const char *name, const etp_history_series *s, int col)
{
    etp_jw_key(w, name);
    etp_jw_arr_begin(w);
    for (uint32_t p = 0; p < s->point_count; p++) {
        const etp_history_point *pt = &s->points[p];
        switch (col) {
        case COL_RUN: etp_jw_int(w, pt->run); break;
        case COL_RUN_ID: etp_jw_str(w, pt->run_id ? pt->run_id : ""); break;
        case COL_TIME: etp_jw_int(w, pt->published_ms); break;
        case COL_ORDER: etp_jw_double(w, pt->order); break;
        default: etp_jw_double(w, pt->value); break;
        }
    }
    etp_jw_arr_end(w);
}

static void series_data(etp_jw *w, const etp_history_series *s, const etp_regression *verdict, int *failed)
{
    hist_sink k = hist_json_sink(w);
    etp_jw_obj_begin(w);
    hist_series_fields(&k, s);
    int by_time = time_order(s);
    etp_jw_kbool(w, "time_order", by_time);
    etp_jw_key(w, "verdict");
    if (verdict)
        hist_verdict_json(w, s, verdict);
    else
        etp_jw_null(w);
    const etp_history_point *pt = s->points;
    point_column(w, "run", s, COL_RUN);
    point_column(w, "run_id", s, COL_RUN_ID);
    point_column(w, "t", s, COL_TIME);
    if (!by_time) /* else the order is t */
        point_column(w, "x", s, COL_ORDER);
    point_column(w, "y", s, COL_VALUE);
    /* Labels every point has with one value (the device, the branch, ...)
     * once; the others one value per point (null where a point lacks it). */
    uint32_t nk;
    const char **keys = label_keys(s, &nk, failed);
    etp_jw_key(w, "fixed_labels");
    etp_jw_obj_begin(w);
    for (uint32_t key = 0; key < nk; key++)
        if (fixed_label(s, keys[key]))
            etp_jw_kstr(w, keys[key], hist_label(pt[0].labels, pt[0].label_count, keys[key]));
    etp_jw_obj_end(w);
    etp_jw_key(w, "label_keys");
    etp_jw_arr_begin(w);
    for (uint32_t key = 0; key < nk; key++)
        if (!fixed_label(s, keys[key]))
            etp_jw_str(w, keys[key]);
    etp_jw_arr_end(w);
    etp_jw_key(w, "labels");
    etp_jw_arr_begin(w);
    for (uint32_t key = 0; key < nk; key++) {
        if (fixed_label(s, keys[key]))
            continue;
        etp_jw_arr_begin(w);
        for (uint32_t p = 0; p < s->point_count; p++) {
            const char *v = hist_label(pt[p].labels, pt[p].label_count, keys[key]);
            if (v)
                etp_jw_str(w, v);
            else
                etp_jw_null(w);
        }
        etp_jw_arr_end(w);
    }
    etp_jw_arr_end(w);
    free(keys);
    etp_jw_obj_end(w);
}

/* Charts: one per (metric, entity, unit), in order of first appearance. */
static int same_chart(const etp_history_series *a, const etp_history_series *b)
{
    return !strcmp(a->metric ? a->metric : "", b->metric ? b->metric : "") &&
           !strcmp(a->entity ? a->entity : "", b->entity ? b->entity : "") &&
           !strcmp(a->unit ? a->unit : "", b->unit ? b->unit : "") && !a->entity == !b->entity;
}

static int charts_data(etp_jw *w, const etp_history_series *s, uint32_t n)
{
    /* first[i]: the first series of series i's chart. */
    uint32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    if (!first)
        return -1;
    uint32_t nfirst = 0, *heads = malloc(((size_t)n + 1) * sizeof *heads);
    if (!heads) {
        free(first);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = 0;
        while (h < nfirst && !same_chart(&s[heads[h]], &s[i]))
            h++;
        if (h == nfirst)
            heads[nfirst++] = i;
        first[i] = heads[h];
    }
    hist_sink k = hist_json_sink(w);
    etp_jw_arr_begin(w);
    for (uint32_t h = 0; h < nfirst; h++) {
        const etp_history_series *c = &s[heads[h]];
        etp_jw_obj_begin(w);
        k.str(&k, "metric", c->metric);
        k.str(&k, "entity", c->entity);
        k.str(&k, "unit", c->unit ? c->unit : "");
        etp_jw_key(w, "series");
        etp_jw_arr_begin(w);
        for (uint32_t i = heads[h]; i < n; i++)
            if (first[i] == heads[h])
                etp_jw_uint(w, i);
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    free(first);
    free(heads);
    return 0;
}

/* The page into @p w (memory or a FILE); -1 when its data could not be made. */
static int trend_page(etp_jw *w, const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                      const char *title)
{
    w->escape_lt = 1;
    int failed = 0;
    static const char head[] =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>etprof trend</title>\n<style>\n";
    static const char body[] =
        "</style>\n</head>\n<body>\n<h1 id=\"title\">etprof trend</h1>\n<div id=\"summary\" "
        "class=\"summary\"></div>\n<div id=\"charts\"></div>\n<div id=\"tip\"></div>\n"
        "<script type=\"application/json\" id=\"etp-data\">";
    etp_jw_raw_text(w, head, sizeof head - 1);
    etp_jw_raw_text(w, etp_history_css, strlen(etp_history_css));
    etp_jw_raw_text(w, body, sizeof body - 1);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "schema", "etprof.trend-page");
    etp_jw_kint(w, "schema_version", 1);
    etp_jw_kstr(w, "title", title ? title : "etprof trend");
    etp_jw_key(w, "charts");
    if (charts_data(w, s, n))
        failed = 1;
    etp_jw_key(w, "series");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_break(w);
        series_data(w, &s[i], verdicts ? &verdicts[i] : NULL, &failed);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
    static const char script[] = "</script>\n<script>\n";
    static const char tail[] = "</script>\n</body>\n</html>\n";
    etp_jw_raw_text(w, script, sizeof script - 1);
    etp_jw_raw_text(w, etp_history_js, strlen(etp_history_js));
    etp_jw_raw_text(w, tail, sizeof tail - 1);
    return failed ? -1 : 0;
}

char *etp_history_trend_html(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                             const char *title, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    if (trend_page(&w, s, n, verdicts, title)) {
        etp_jw_discard(&w);
        return NULL;
    }
    return etp_jw_take(&w, len);
}

etp_status etp_history_trend_html_write(const etp_history_series *s, uint32_t n,
                                        const etp_regression *verdicts, const char *title, FILE *fp,
                                        etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    int failed = trend_page(&w, s, n, verdicts, title);
    etp_status st = etp_jw_finish_status(&w, "the trend page", err);
    if (!st && failed)
        st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "cannot write the trend page: out of memory");
    return st;
}
