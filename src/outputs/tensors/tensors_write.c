/* tensors_write.c - the logged-tensor table in each output form; the
 * columns and their values come from etprof/tensor_columns.h only. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "etprof/etdump.h"
#include "etprof/json.h"
#include "etprof/tensor_columns.h"
#include "outputs/tensors/tensors_write.h"

void etp_tensors_csv(etp_csvw *w, const etp_tensor_set *s)
{
    const etp_tcol *cols = etp_tensor_columns();
    for (int c = 0; c < ETP_TCOL_COUNT_OF_COLUMNS; c++)
        etp_csvw_str(w, cols[c].name);
    etp_csvw_end_row(w);
    char buf[512];
    for (uint32_t i = 0; i < s->count; i++) {
        for (int c = 0; c < ETP_TCOL_COUNT_OF_COLUMNS; c++) {
            etp_tcell v = etp_tensor_cell(&s->items[i], (etp_tcol_id)c, buf, sizeof buf);
            switch (v.kind) {
            case ETP_TCELL_STR: etp_csvw_str(w, v.s); break;
            case ETP_TCELL_INT: etp_csvw_int(w, v.i); break;
            case ETP_TCELL_UINT: etp_csvw_uint(w, v.u); break;
            case ETP_TCELL_DOUBLE: etp_csvw_double(w, v.d); break;
            case ETP_TCELL_BOOL: etp_csvw_str(w, v.i ? "true" : "false"); break;
            default: etp_csvw_empty(w); break;
            }
        }
        etp_csvw_end_row(w);
    }
}

static void cell_json(etp_jw *w, etp_tcell v)
{
    switch (v.kind) {
    case ETP_TCELL_STR: etp_jw_str(w, v.s); break;
    case ETP_TCELL_INT: etp_jw_int(w, v.i); break;
    case ETP_TCELL_UINT: etp_jw_uint(w, v.u); break;
    case ETP_TCELL_DOUBLE: etp_jw_double(w, v.d); break;
    case ETP_TCELL_BOOL: etp_jw_bool(w, (int)v.i); break;
    default: etp_jw_null(w); break;
    }
}

/* A value that may be NaN or infinite: JSON has neither, so they are
 * strings ("NaN", "Infinity", "-Infinity"), as numpy and pandas read them. */
static void value_json(etp_jw *w, double v)
{
    if (isnan(v))
        etp_jw_str(w, "NaN");
    else if (isinf(v))
        etp_jw_str(w, v > 0 ? "Infinity" : "-Infinity");
    else
        etp_jw_double(w, v);
}

static void kvalue(etp_jw *w, const char *key, double v)
{
    etp_jw_key(w, key);
    value_json(w, v);
}

static void gap_json(etp_jw *w, const etp_tensor_gap *g)
{
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "count", g->count);
    etp_jw_kuint(w, "nonfinite_diff", g->nonfinite_diff);
    etp_jw_kuint(w, "mismatches", g->mismatches);
    etp_jw_kbool(w, "exact_compare", g->exact_compare);
    kvalue(w, "mse", g->mse);
    kvalue(w, "mae", g->mae);
    kvalue(w, "max_abs_err", g->max_abs_err);
    etp_jw_kuint(w, "max_abs_index", g->max_abs_index);
    kvalue(w, "snr_db", g->snr_db);
    kvalue(w, "cosine", g->cosine);
    etp_jw_key(w, "worst");
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "index", g->worst_index);
    kvalue(w, "reference", g->worst_reference);
    kvalue(w, "got", g->worst_got);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_bundled_check_json(etp_jw *w, const etp_bundled_check *c)
{
    etp_jw_obj_begin(w);
    etp_jw_kbool(w, "compared", c->done);
    etp_jw_key(w, "reason");
    etp_jw_str(w, c->reason); /* null when compared */
    etp_jw_key(w, "testset");
    if (c->testset >= 0)
        etp_jw_int(w, c->testset);
    else
        etp_jw_null(w);
    etp_jw_key(w, "testset_basis");
    etp_jw_str(w, c->testset_basis);
    etp_jw_kdouble(w, "rtol", c->tol.rtol);
    etp_jw_kdouble(w, "atol", c->tol.atol);
    etp_jw_kbool(w, "tolerance_given", c->tol_given);
    etp_jw_kstr(w, "rule", "|got - expected| <= atol + rtol * |expected| for floating types; equal otherwise");
    etp_jw_kuint(w, "outputs_compared", c->output_count);
    etp_jw_kuint(w, "outputs_mismatched", c->mismatched);
    etp_jw_key(w, "outputs");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < c->output_count; i++) {
        const etp_bundled_output *o = &c->outputs[i];
        etp_jw_obj_begin(w);
        etp_jw_kint(w, "execution", o->execution);
        etp_jw_kuint(w, "output", o->output);
        etp_jw_key(w, "key");
        etp_jw_str(w, o->got ? o->got->key : NULL);
        etp_jw_kbool(w, "match", o->match);
        etp_jw_key(w, "problem");
        etp_jw_str(w, o->problem[0] ? o->problem : NULL);
        etp_jw_key(w, "gap");
        gap_json(w, &o->gap);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

void etp_tensors_json(etp_jw *w, const etp_analysis *a, const etp_tensor_set *s, uint64_t values)
{
    const etp_tcol *cols = etp_tensor_columns();
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "schema", "etprof.tensors");
    etp_jw_kint(w, "schema_version", 1);
    etp_jw_kstr(w, "etdump", etp_etdump_path(a->etdump));
    etp_jw_key(w, "method");
    etp_jw_str(w, a->method);
    etp_jw_key(w, "debug_buffer");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", s->buffer_name);
    etp_jw_kuint(w, "size", s->buffer_size);
    etp_jw_obj_end(w);
    etp_jw_key(w, "counts");
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "values", s->count);
    etp_jw_kuint(w, "tensors", s->tensors);
    etp_jw_kuint(w, "scalars", s->scalars);
    etp_jw_kuint(w, "program_outputs", s->program_outputs);
    etp_jw_kuint(w, "not_decoded", s->not_decoded);
    etp_jw_kuint(w, "without_bytes", s->without_bytes);
    etp_jw_kuint(w, "bytes_read", s->bytes);
    etp_jw_obj_end(w);
    etp_jw_key(w, "columns");
    etp_jw_arr_begin(w);
    for (int c = 0; c < ETP_TCOL_COUNT_OF_COLUMNS; c++) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", cols[c].name);
        etp_jw_key(w, "unit");
        etp_jw_str(w, cols[c].unit);
        etp_jw_kbool(w, "additive", cols[c].additive);
        etp_jw_kstr(w, "meaning", cols[c].meaning);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_key(w, "bundled_check");
    etp_bundled_check_json(w, &s->bundled);
    etp_jw_key(w, "tensors");
    etp_jw_arr_begin(w);
    char buf[512];
    for (uint32_t i = 0; i < s->count; i++) {
        const etp_logged_tensor *t = &s->items[i];
        etp_jw_obj_begin(w);
        for (int c = 0; c < ETP_TCOL_COUNT_OF_COLUMNS; c++) {
            etp_jw_key(w, cols[c].name);
            cell_json(w, etp_tensor_cell(t, (etp_tcol_id)c, buf, sizeof buf));
        }
        if (values) {
            etp_jw_key(w, "values");
            etp_jw_arr_begin(w);
            int readable = t->has_bytes && (t->dtype_class == ETP_DTYPE_INTEGER || t->dtype_class == ETP_DTYPE_FLOAT);
            for (uint64_t k = 0; readable && k < t->view.numel && k < values; k++)
                value_json(w, etp_tensor_value(&t->view, k));
            etp_jw_arr_end(w);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

char *etp_analysis_tensors_json(const etp_analysis *a, uint64_t values, size_t *len)
{
    if (!a || !a->tensors)
        return NULL;
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_tensors_json(&w, a, a->tensors, values);
    return etp_jw_take(&w, len);
}

static void fig_text(FILE *fp, const etp_logged_tensor *t, double v)
{
    if (!t->stats.finite)
        fprintf(fp, " %12s", "-");
    else
        fprintf(fp, " %12.6g", v);
}

void etp_tensors_text(FILE *fp, const etp_tensor_set *s, uint64_t values)
{
    fprintf(fp, "%" PRIu32 " logged values (%" PRIu32 " tensors, %" PRIu32 " scalars, %" PRIu32
                " program outputs), %" PRIu64 " bytes read from %s\n",
            s->count, s->tensors, s->scalars, s->program_outputs, s->bytes, s->buffer_name);
    if (s->not_decoded)
        fprintf(fp, "%" PRIu32 " of an element type not read as numbers (listed, no statistics)\n", s->not_decoded);
    if (s->without_bytes)
        fprintf(fp, "%" PRIu32 " logged without bytes\n", s->without_bytes);
    fprintf(fp, "statistics are over finite elements, in the tensors' own values; nan/inf are element counts\n\n");
    fprintf(fp, "%-28s %4s %-8s %-14s %12s %12s %12s %12s %6s %6s  %s\n", "key", "exec", "dtype", "shape", "min",
            "max", "mean", "std", "nan", "inf", "operator(s)");
    char shape[160], dtype[32];
    for (uint32_t i = 0; i < s->count; i++) {
        const etp_logged_tensor *t = &s->items[i];
        etp_tcell sh = etp_tensor_cell(t, ETP_TCOL_SHAPE, shape, sizeof shape);
        etp_tcell dt = etp_tensor_cell(t, ETP_TCOL_DTYPE, dtype, sizeof dtype);
        char ex[16];
        if (t->execution >= 0)
            snprintf(ex, sizeof ex, "%" PRId32, t->execution);
        else
            snprintf(ex, sizeof ex, "-");
        fprintf(fp, "%-28s %4s %-8s %-14s", t->key, ex, dt.s, sh.s);
        fig_text(fp, t, t->stats.min);
        fig_text(fp, t, t->stats.max);
        fig_text(fp, t, t->stats.mean);
        fig_text(fp, t, t->stats.std);
        fprintf(fp, " %6" PRIu64 " %6" PRIu64 "  %s\n", t->stats.nan, t->stats.pos_inf + t->stats.neg_inf,
                t->source_operators ? t->source_operators : (t->entity ? t->entity->name : ""));
        if (values && t->has_bytes && (t->dtype_class == ETP_DTYPE_INTEGER || t->dtype_class == ETP_DTYPE_FLOAT)) {
            fprintf(fp, "    values:");
            for (uint64_t k = 0; k < t->view.numel && k < values; k++)
                fprintf(fp, " %.8g", etp_tensor_value(&t->view, k));
            fprintf(fp, t->view.numel > values ? " ...\n" : "\n");
        }
    }
    const etp_bundled_check *c = &s->bundled;
    if (c->done && !c->mismatched)
        fprintf(fp, "\nbundled program: %" PRIu32 " output(s) match test case %" PRId32 " (%s; rtol %g, atol %g)\n",
                c->output_count, c->testset, c->testset_basis, c->tol.rtol, c->tol.atol);
    else if (c->done && c->worst->problem[0])
        fprintf(fp, "\nbundled program: %" PRIu32 " of %" PRIu32 " output(s) DIFFER from test case %" PRId32 " (%s): %s\n",
                c->mismatched, c->output_count, c->testset, c->testset_basis, c->worst->problem);
    else if (c->done)
        fprintf(fp, "\nbundled program: %" PRIu32 " of %" PRIu32 " output(s) DIFFER from test case %" PRId32
                    " (%s): execution %" PRId32 " output %" PRIu32 " element %" PRIu64 ": expected %.9g, got %.9g\n",
                c->mismatched, c->output_count, c->testset, c->testset_basis, c->worst->execution, c->worst->output,
                c->worst->gap.worst_index, c->worst->gap.worst_reference, c->worst->gap.worst_got);
    else if (c->bundled_program)
        fprintf(fp, "\nbundled program: not compared: %s\n", c->reason);
}
