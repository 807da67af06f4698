/* diff_numerics.c - the numerics of a diff (etprof/numeric_diff.h) written
 * out: the "numerics" JSON object, numerics.csv, the terminal table, and
 * the Model Explorer overlay colouring the base program's nodes by SNR. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/diff_io.h"
#include "etprof/mexplorer.h"
#include "etprof/program.h"
#include "util/csvw.h"
#include "util/jsonw.h"

/* "[2,2]" into @p buf. */
static const char *shape_text(const etp_tensor_view *v, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "[");
    for (uint32_t d = 0; d < v->rank && k + 24 < size; d++)
        k += (size_t)snprintf(buf + k, size - k, "%s%" PRId64, d ? "," : "", v->sizes[d]);
    snprintf(buf + k, size - k, "]");
    return buf;
}

static const char *dtype_text(const etp_logged_tensor *t)
{
    const char *n = etp_scalar_type_name(t->view.scalar_type);
    return n ? n : "unknown";
}

/* SNR as text: "inf", "-inf", or the shortest round-trip number. */
static const char *snr_text(double v, char *buf, size_t size)
{
    if (isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (isnan(v))
        return "";
    etp_format_double(buf, size, v);
    return buf;
}

static void jsnr(etp_jw *w, const char *k, double v)
{
    char b[40];
    etp_jw_key(w, k);
    if (isinf(v))
        etp_jw_str(w, snr_text(v, b, sizeof b));
    else
        etp_jw_double(w, v); /* NaN: null */
}

static void jgap(etp_jw *w, const etp_tensor_gap *g)
{
    etp_jw_kuint(w, "count", g->count);
    etp_jw_kdouble(w, "mse", g->mse);
    etp_jw_kdouble(w, "mae", g->mae);
    etp_jw_kdouble(w, "max_abs_err", g->max_abs_err);
    etp_jw_kuint(w, "max_abs_index", g->max_abs_index);
    jsnr(w, "snr_db", g->snr_db);
    etp_jw_kdouble(w, "cosine", g->cosine);
    etp_jw_kuint(w, "mismatches", g->mismatches);
    etp_jw_kuint(w, "nonfinite_diff", g->nonfinite_diff);
    etp_jw_kbool(w, "exact_compare", g->exact_compare);
}

static void jpair(etp_jw *w, const etp_numeric_pair *p)
{
    char sb[400], sn[400];
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "key", p->base->key);
    etp_jw_kstr(w, "new_key", p->new_->key);
    etp_jw_kstr(w, "level", etp_numeric_match_level_name(p->level));
    etp_jw_kuint(w, "order", p->order);
    etp_jw_kstr(w, "origin", etp_tensor_origin_name(p->base->origin));
    etp_jw_kstr(w, "base_dtype", dtype_text(p->base));
    etp_jw_kstr(w, "new_dtype", dtype_text(p->new_));
    etp_jw_kstr(w, "base_shape", shape_text(&p->base->view, sb, sizeof sb));
    etp_jw_kstr(w, "new_shape", shape_text(&p->new_->view, sn, sizeof sn));
    if (p->base->source_operators)
        etp_jw_kstr(w, "source_operators", p->base->source_operators);
    else
        etp_jw_knull(w, "source_operators");
    etp_jw_kbool(w, "compared", p->compared);
    if (p->reason)
        etp_jw_kstr(w, "reason", p->reason);
    else
        etp_jw_knull(w, "reason");
    etp_jw_kbool(w, "quantized", p->quantized);
    etp_jw_kstr(w, "primary", p->primary);
    if (p->compared)
        jgap(w, &p->gap);
    etp_jw_kbool(w, "diverged", p->diverged);
    etp_jw_key(w, "stored");
    if (p->has_stored) {
        etp_jw_obj_begin(w);
        jgap(w, &p->stored);
        etp_jw_obj_end(w);
    } else {
        etp_jw_null(w);
    }
    etp_jw_obj_end(w);
}

char *etp_numeric_diff_json(const etp_numeric_diff *nd, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "level", nd->level);
    etp_jw_kstr(&w, "level_reason", nd->level_reason);
    etp_jw_kint(&w, "execution", nd->execution);
    etp_jw_key(&w, "tolerance");
    etp_jw_obj_begin(&w);
    etp_jw_kdouble(&w, "rtol", nd->tol.rtol);
    etp_jw_kdouble(&w, "atol", nd->tol.atol);
    etp_jw_kstr(&w, "rule", "|new - base| <= atol + rtol * |base|; integers without quantization exactly");
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "counts");
    etp_jw_obj_begin(&w);
    etp_jw_kuint(&w, "base_values", nd->base_values);
    etp_jw_kuint(&w, "new_values", nd->new_values);
    etp_jw_kuint(&w, "pairs", nd->pair_count);
    etp_jw_kuint(&w, "compared", nd->compared);
    etp_jw_kuint(&w, "incomparable", nd->incomparable);
    etp_jw_kuint(&w, "diverged", nd->diverged);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "unmatched");
    etp_jw_obj_begin(&w);
    etp_jw_kuint(&w, "base", nd->base_unmatched);
    etp_jw_kuint(&w, "new", nd->new_unmatched);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "first_divergence");
    if (nd->first_divergence)
        jpair(&w, nd->first_divergence);
    else
        etp_jw_null(&w);
    etp_jw_key(&w, "largest");
    if (nd->largest)
        jpair(&w, nd->largest);
    else
        etp_jw_null(&w);
    etp_jw_key(&w, "pairs");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < nd->pair_count; i++)
        jpair(&w, &nd->pairs[i]);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}

static void cnum(etp_csvw *w, int has, double v)
{
    if (has && !isnan(v))
        etp_csvw_double(w, v);
    else
        etp_csvw_empty(w);
}

static void csnr(etp_csvw *w, int has, double v)
{
    char b[40];
    if (has && isinf(v))
        etp_csvw_str(w, snr_text(v, b, sizeof b));
    else
        cnum(w, has, v);
}

char *etp_numeric_diff_csv(const etp_numeric_diff *nd, size_t *len)
{
    static const char *const head[] = {
        "key", "new_key", "level", "order", "origin", "base_dtype", "new_dtype", "base_shape", "new_shape",
        "compared", "reason", "quantized", "primary", "count", "mse", "mae", "max_abs_err", "snr_db", "cosine",
        "mismatches", "nonfinite_diff", "diverged", "stored_mse", "stored_max_abs_err", "stored_snr_db",
        "first_divergence", "largest"};
    etp_csvw w;
    etp_csvw_init(&w);
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        etp_csvw_str(&w, head[i]);
    etp_csvw_end_row(&w);
    for (uint32_t i = 0; i < nd->pair_count; i++) {
        const etp_numeric_pair *p = &nd->pairs[i];
        char sb[400], sn[400];
        etp_csvw_str(&w, p->base->key);
        etp_csvw_str(&w, p->new_->key);
        etp_csvw_str(&w, etp_numeric_match_level_name(p->level));
        etp_csvw_uint(&w, p->order);
        etp_csvw_str(&w, etp_tensor_origin_name(p->base->origin));
        etp_csvw_str(&w, dtype_text(p->base));
        etp_csvw_str(&w, dtype_text(p->new_));
        etp_csvw_str(&w, shape_text(&p->base->view, sb, sizeof sb));
        etp_csvw_str(&w, shape_text(&p->new_->view, sn, sizeof sn));
        etp_csvw_str(&w, p->compared ? "true" : "false");
        if (p->reason)
            etp_csvw_str(&w, p->reason);
        else
            etp_csvw_empty(&w);
        etp_csvw_str(&w, p->quantized ? "true" : "false");
        etp_csvw_str(&w, p->primary);
        if (p->compared)
            etp_csvw_uint(&w, p->gap.count);
        else
            etp_csvw_empty(&w);
        cnum(&w, p->compared, p->gap.mse);
        cnum(&w, p->compared, p->gap.mae);
        cnum(&w, p->compared, p->gap.max_abs_err);
        csnr(&w, p->compared, p->gap.snr_db);
        cnum(&w, p->compared, p->gap.cosine);
        if (p->compared) {
            etp_csvw_uint(&w, p->gap.mismatches);
            etp_csvw_uint(&w, p->gap.nonfinite_diff);
        } else {
            etp_csvw_empty(&w);
            etp_csvw_empty(&w);
        }
        etp_csvw_str(&w, p->diverged ? "true" : "false");
        cnum(&w, p->has_stored, p->stored.mse);
        cnum(&w, p->has_stored, p->stored.max_abs_err);
        csnr(&w, p->has_stored, p->stored.snr_db);
        etp_csvw_str(&w, p == nd->first_divergence ? "true" : "false");
        etp_csvw_str(&w, p == nd->largest ? "true" : "false");
        etp_csvw_end_row(&w);
    }
    return etp_csvw_take(&w, len);
}

static void tnum(FILE *fp, int has, double v, int width)
{
    if (!has || isnan(v))
        fprintf(fp, " %*s", width, "-");
    else if (isinf(v))
        fprintf(fp, " %*s", width, v > 0 ? "+inf" : "-inf");
    else
        fprintf(fp, " %*.4g", width, v);
}

static void pair_phrase(FILE *fp, const etp_numeric_pair *p)
{
    char b[40];
    fprintf(fp, "%s", p->base->key);
    if (strcmp(p->base->key, p->new_->key))
        fprintf(fp, " (new %s)", p->new_->key);
    const char *s = snr_text(p->gap.snr_db, b, sizeof b);
    fprintf(fp, ": %" PRIu64 " of %" PRIu64 " elements outside the tolerance, SNR %s dB, max abs err %.6g",
            p->gap.mismatches, p->base->view.numel, *s ? s : "n/a", p->gap.max_abs_err);
}

etp_status etp_numeric_diff_write_text(const etp_numeric_diff *nd, FILE *fp, etp_error *err)
{
    fprintf(fp, "\nnumerics: execution %" PRId32 ", matched at level %s (%s); tolerance rtol %g, atol %g\n",
            nd->execution, nd->level, nd->level_reason, nd->tol.rtol, nd->tol.atol);
    fprintf(fp, "  %" PRIu32 " pairs: %" PRIu32 " compared, %" PRIu32 " not comparable, %" PRIu32
                " outside the tolerance; unmatched values: base %" PRIu32 " of %" PRIu32 ", new %" PRIu32
                " of %" PRIu32 "\n",
            nd->pair_count, nd->compared, nd->incomparable, nd->diverged, nd->base_unmatched, nd->base_values,
            nd->new_unmatched, nd->new_values);
    fprintf(fp, "  %-32s %-16s %10s %12s %12s %10s\n", "key", "level", "SNR dB", "MSE", "max abs err", "cosine");
    for (uint32_t i = 0; i < nd->pair_count; i++) {
        const etp_numeric_pair *p = &nd->pairs[i];
        fprintf(fp, "%c %-32s %-16s", p == nd->first_divergence ? '>' : ' ', p->base->key,
                etp_numeric_match_level_name(p->level));
        if (p->compared) {
            tnum(fp, 1, p->gap.snr_db, 10);
            tnum(fp, 1, p->gap.mse, 12);
            tnum(fp, 1, p->gap.max_abs_err, 12);
            tnum(fp, 1, p->gap.cosine, 10);
            fprintf(fp, "%s\n", p->diverged ? "  diverged" : "");
        } else {
            fprintf(fp, "  not compared: %s\n", p->reason ? p->reason : "?");
        }
    }
    if (nd->first_divergence) {
        fputs("first divergence (the error starts here): ", fp);
        pair_phrase(fp, nd->first_divergence);
        fputs("\n", fp);
    } else {
        fprintf(fp, "no divergence: every compared pair is within the tolerance\n");
    }
    if (nd->largest) {
        fputs("largest error: ", fp);
        pair_phrase(fp, nd->largest);
        fputs("\n", fp);
    }
    if (ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "write error");
    return ETP_OK;
}

static const etp_me_stop snr_stops[] = {{0.0, "#d73027"}, {0.5, "#ffd700"}, {1.0, "#1a9850"}};

etp_status etp_numeric_diff_overlay(const etp_numeric_diff *nd, char **out, size_t *len, etp_error *err)
{
    *out = NULL;
    *len = 0;
    if (!nd->base_method || !nd->pair_count)
        return ETP_OK;
    etp_me_value *vals = calloc(nd->pair_count, sizeof *vals);
    char **ids = calloc(nd->pair_count, sizeof *ids);
    etp_status st = ETP_OK;
    if (!vals || !ids)
        st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    size_t n = 0;
    for (uint32_t i = 0; !st && i < nd->pair_count; i++) {
        const etp_numeric_pair *p = &nd->pairs[i];
        if (!p->compared || p->base->origin == ETP_TENSOR_PROGRAM_OUTPUT || p->base->chain < 0 ||
            p->base->instruction < 0)
            continue;
        double v = p->gap.snr_db;
        if (isnan(v))
            v = p->gap.nonfinite_diff ? -INFINITY : INFINITY;
        v = v > ETP_NUMERIC_OVERLAY_SNR_CAP    ? ETP_NUMERIC_OVERLAY_SNR_CAP
            : v < -ETP_NUMERIC_OVERLAY_SNR_CAP ? -ETP_NUMERIC_OVERLAY_SNR_CAP
                                               : v;
        char id[256];
        etp_me_node_id(id, sizeof id, nd->base_method, (uint32_t)p->base->chain, (uint32_t)p->base->instruction);
        size_t k = 0;
        while (k < n && strcmp(ids[k], id))
            k++;
        if (k < n) { /* the node's lowest SNR */
            if (v < vals[k].value)
                vals[k].value = v;
            continue;
        }
        if (!(ids[n] = malloc(strlen(id) + 1))) {
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            break;
        }
        strcpy(ids[n], id);
        vals[n].node_id = ids[n];
        vals[n].value = v;
        n++;
    }
    if (!st && n) {
        etp_me_overlay ov;
        etp_me_overlay_init(&ov);
        ov.graph_id = nd->base_method;
        ov.metric = "Numerics SNR against base";
        ov.unit = "dB";
        ov.values = vals;
        ov.value_count = n;
        ov.stops = snr_stops;
        ov.stop_count = sizeof snr_stops / sizeof snr_stops[0];
        ov.use_range = 1;
        ov.range_min = 0;
        ov.range_max = 80;
        ov.hide_stats = ETP_ME_HIDE_SUM; /* SNRs are never added */
        char *buf = NULL;
        size_t size = 0;
        FILE *fp = open_memstream(&buf, &size);
        if (!fp) {
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        } else {
            st = etp_me_write_overlay(&ov, fp, 1, err);
            if (fclose(fp) && !st)
                st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            if (st) {
                free(buf);
            } else {
                *out = buf;
                *len = size;
            }
        }
    }
    for (size_t k = 0; ids && k < n; k++)
        free(ids[k]);
    free(ids);
    free(vals);
    return st;
}
