/* inspect_report.c - render an etp_inspect as text tables or JSON. */
#include "outputs/report/inspect_report.h"

#include <math.h>
#include <string.h>

#include "util/jsonw.h"

/* Decimals that show every digit of a whole-tick value in the target unit:
 * ns -> ms needs 6. */
static int unit_decimals(double divisor)
{
    int d = 0;
    while (divisor > 1.0 + 1e-9 && d < 12) {
        divisor /= 10.0;
        d++;
    }
    return d;
}

static const char *row_label(const etp_inspect_row *r, char *buf, size_t n)
{
    if (r->event_name)
        return r->event_name;
    if (r->delegate_id_str)
        snprintf(buf, n, "%s", r->delegate_id_str);
    else
        snprintf(buf, n, "%d", r->delegate_id_int);
    return buf;
}

static const char *method_label(const etp_inspect_block *b, char *buf, size_t n)
{
    if (!b->plan)
        return NULL;
    snprintf(buf, n, "%s", b->plan->name ? b->plan->name : "(unnamed)");
    if (b->candidate_count > 1) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, " (indistinguishable from");
        for (uint32_t i = 1; i < b->candidate_count; i++) {
            l = strlen(buf);
            snprintf(buf + l, n - l, "%s %s", i > 1 ? "," : "", b->candidates[i]->name);
        }
        l = strlen(buf);
        snprintf(buf + l, n - l, ")");
    }
    return buf;
}

static void stat_cols(FILE *fp, const etp_stats *s, int dec)
{
    fprintf(fp, " %12.*f %12.*f %12.*f %12.*f %12.*f %12.*f", dec, s->avg, dec, s->p10, dec, s->p50,
            dec, s->p90, dec, s->min, dec, s->max);
}

static void summary_line(FILE *fp, const char *label, const etp_stats *s, int dec)
{
    fprintf(fp, "    %-40s %12.*f %12.*f %12.*f %12.*f\n", label, dec, s->avg, dec, s->p50, dec,
            s->min, dec, s->max);
}

void etp_inspect_write_text(const etp_inspect *in, const etp_etdump *d, const etp_program *p,
                            FILE *fp)
{
    const char *unit = etp_unit_name(in->target_unit);
    int dec = unit_decimals(in->divisor);
    if (dec < 3)
        dec = 3;
    fprintf(fp, "ETDump %s: %u block%s, ticks in %s, times in %s\n", etp_etdump_path(d),
            in->block_count, in->block_count == 1 ? "" : "s", etp_unit_name(in->source_unit), unit);
    if (p)
        fprintf(fp, "program %s\n", p->path);
    if (in->runs_without_events)
        fprintf(fp, "note: %u run%s without an events vector skipped\n", in->runs_without_events,
                in->runs_without_events == 1 ? "" : "s");
    char lbl[160], mbuf[400];
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *b = &in->blocks[bi];
        const char *m = method_label(b, mbuf, sizeof mbuf);
        fprintf(fp, "\nBlock %u \"%s\": %u run%s", bi, b->name ? b->name : "", b->run_count,
                b->run_count == 1 ? "" : "s");
        if (m)
            fprintf(fp, ", method %s", m);
        else if (p && b->summary.instructions_observed == 0)
            fprintf(fp, ", method not determined (no instruction-level events)");
        else if (p)
            fprintf(fp, ", method not determined");
        if (b->bundled_input_index != -1)
            fprintf(fp, ", bundled input %d", b->bundled_input_index);
        fputc('\n', fp);
        size_t w = 24;
        for (uint32_t r = 0; r < b->row_count; r++) {
            size_t l = strlen(row_label(&b->rows[r], lbl, sizeof lbl));
            if (l > w)
                w = l;
        }
        if (w > 48)
            w = 48;
        size_t ow = 0;
        for (uint32_t r = 0; r < b->row_count; r++)
            if (b->rows[r].op_name && strlen(b->rows[r].op_name) > ow)
                ow = strlen(b->rows[r].op_name);
        if (ow > 40)
            ow = 40;
        for (int framework = 0; framework <= 1; framework++) {
            int header = 0;
            for (uint32_t r = 0; r < b->row_count; r++) {
                const etp_inspect_row *row = &b->rows[r];
                if (row->is_framework != framework)
                    continue;
                if (!header) {
                    fprintf(fp, "  %s\n", framework ? "framework events" : "instruction events");
                    fprintf(fp, "  %5s %-*s", "instr", (int)w, "event");
                    if (ow)
                        fprintf(fp, " %-*s", (int)ow, "operator");
                    fprintf(fp, " %5s %12s %12s %12s %12s %12s %12s  (%s)\n", "n", "avg", "p10", "p50",
                            "p90", "min", "max", unit);
                    header = 1;
                }
                if (framework)
                    fprintf(fp, "  %5s", "-");
                else
                    fprintf(fp, "  %5d", row->instruction_id);
                fprintf(fp, " %-*.*s", (int)w, (int)w, row_label(row, lbl, sizeof lbl));
                if (ow)
                    fprintf(fp, " %-*.*s", (int)ow, (int)ow, row->op_name ? row->op_name : "");
                fprintf(fp, " %5llu", (unsigned long long)row->sample_count);
                stat_cols(fp, &row->stats, dec);
                if (row->is_delegated)
                    fputs("  delegate", fp);
                if (row->max_per_run > 1)
                    fprintf(fp, "  up to %u/run", row->max_per_run);
                fputc('\n', fp);
            }
        }
        const etp_block_summary *s = &b->summary;
        if (s->instructions_observed == 0 && !s->has_execute)
            continue;
        fprintf(fp, "  per execution (%s)%*s %12s %12s %12s %12s\n", unit, (int)(28 - strlen(unit)), "",
                "avg", "p50", "min", "max");
        if (s->has_execute)
            summary_line(fp, "Method::execute", &s->execute, dec);
        summary_line(fp, "sum of OPERATOR_CALL", &s->operator_calls, dec);
        summary_line(fp, "sum of DELEGATE_CALL", &s->delegate_calls, dec);
        if (s->other_calls.sum != 0)
            summary_line(fp, "sum of JF/MOVE/FREE_CALL", &s->other_calls, dec);
        summary_line(fp, "sum of native kernels (native_call_*)", &s->native_kernels, dec);
        summary_line(fp, "dispatch: OPERATOR_CALL - kernel", &s->dispatch, dec);
        if (s->has_execute)
            summary_line(fp, "framework: execute - instructions", &s->execute_overhead, dec);
        if (s->operator_calls_without_kernel)
            fprintf(fp, "    (%u OPERATOR_CALL event%s without a native_call_* kernel event: left "
                        "out of the dispatch figure)\n",
                    s->operator_calls_without_kernel, s->operator_calls_without_kernel == 1 ? "" : "s");
        if (b->debug_events || b->allocation_events || b->empty_events || b->wrapped_intervals)
            fprintf(fp, "  also: %llu debug events (%llu program outputs), %llu allocation events "
                        "(%llu bytes), %llu empty events, %llu intervals across a 32-bit wrap\n",
                    (unsigned long long)b->debug_events, (unsigned long long)b->program_outputs,
                    (unsigned long long)b->allocation_events, (unsigned long long)b->allocation_bytes,
                    (unsigned long long)b->empty_events, (unsigned long long)b->wrapped_intervals);
    }
}

static void json_stats(etp_jw *w, const etp_stats *s, int full)
{
    etp_jw_kuint(w, "n", s->n);
    etp_jw_kdouble(w, "avg", s->avg);
    if (full) {
        etp_jw_kdouble(w, "p10", s->p10);
        etp_jw_kdouble(w, "p50", s->p50);
        etp_jw_kdouble(w, "p90", s->p90);
    } else
        etp_jw_kdouble(w, "p50", s->p50);
    etp_jw_kdouble(w, "min", s->min);
    etp_jw_kdouble(w, "max", s->max);
}

static void json_summary_metric(etp_jw *w, const char *key, const etp_stats *s, const char *unit)
{
    etp_jw_key(w, key);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", unit);
    json_stats(w, s, 0);
    etp_jw_obj_end(w);
}

int etp_inspect_write_json(const etp_inspect *in, const etp_etdump *d, const etp_program *p,
                           int raw, FILE *fp)
{
    const char *unit = etp_unit_name(in->target_unit);
    etp_jw w;
    etp_jw_init_file(&w, fp, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", "etprof.inspect");
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "etdump");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "path", etp_etdump_path(d));
    etp_jw_kuint(&w, "size_bytes", etp_etdump_size(d));
    etp_jw_kuint(&w, "schema_version", etp_etdump_version(d));
    etp_jw_obj_end(&w);
    if (p) {
        etp_jw_key(&w, "program");
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "path", p->path);
        etp_jw_kuint(&w, "size_bytes", p->file_size);
        etp_jw_obj_end(&w);
    } else
        etp_jw_knull(&w, "program");
    etp_jw_key(&w, "units");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "source", etp_unit_name(in->source_unit));
    etp_jw_kstr(&w, "target", unit);
    etp_jw_kdouble(&w, "divisor", in->divisor);
    if (in->cpu_hz > 0)
        etp_jw_kdouble(&w, "cpu_hz", in->cpu_hz);
    etp_jw_obj_end(&w);
    etp_jw_kuint(&w, "runs_without_events", in->runs_without_events);
    etp_jw_key(&w, "blocks");
    etp_jw_arr_begin(&w);
    char lbl[160];
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *b = &in->blocks[bi];
        etp_jw_obj_begin(&w);
        etp_jw_kuint(&w, "index", bi);
        etp_jw_kstr(&w, "name", b->name);
        etp_jw_kint(&w, "bundled_input_index", b->bundled_input_index);
        etp_jw_kuint(&w, "runs_count", b->run_count);
        etp_jw_key(&w, "runs");
        etp_jw_arr_begin(&w);
        for (uint32_t r = 0; r < b->run_count; r++)
            etp_jw_uint(&w, b->runs[r]);
        etp_jw_arr_end(&w);
        if (b->plan) {
            etp_jw_kstr(&w, "method", b->plan->name);
            etp_jw_key(&w, "indistinguishable_from");
            etp_jw_arr_begin(&w);
            for (uint32_t i = 1; i < b->candidate_count; i++)
                etp_jw_str(&w, b->candidates[i]->name);
            etp_jw_arr_end(&w);
        } else
            etp_jw_knull(&w, "method");
        etp_jw_key(&w, "events");
        etp_jw_arr_begin(&w);
        for (uint32_t r = 0; r < b->row_count; r++) {
            const etp_inspect_row *row = &b->rows[r];
            etp_jw_obj_begin(&w);
            etp_jw_kstr(&w, "name", row_label(row, lbl, sizeof lbl));
            etp_jw_kstr(&w, "event_name", row->event_name);
            etp_jw_kint(&w, "chain_index", row->chain_index);
            etp_jw_kint(&w, "instruction_id", row->instruction_id);
            etp_jw_key(&w, "delegate_debug_identifier");
            if (row->delegate_id_str)
                etp_jw_str(&w, row->delegate_id_str);
            else if (row->delegate_id_int != -1)
                etp_jw_int(&w, row->delegate_id_int);
            else
                etp_jw_null(&w);
            etp_jw_kbool(&w, "is_delegated_op", row->is_delegated);
            etp_jw_kbool(&w, "framework", row->is_framework);
            if (row->has_instruction) {
                etp_jw_kstr(&w, "instruction_kind", etp_instr_kind_name(row->instr_kind));
                etp_jw_kstr(&w, "operator", row->op_name);
            }
            etp_jw_kstr(&w, "unit", unit);
            etp_jw_kuint(&w, "max_per_run", row->max_per_run);
            json_stats(&w, &row->stats, 1);
            if (raw) {
                etp_jw_key(&w, "raw");
                etp_jw_arr_begin(&w);
                for (uint64_t k = 0; k < row->sample_count; k++)
                    etp_jw_double(&w, (double)row->ticks[k] / in->divisor);
                etp_jw_arr_end(&w);
            }
            etp_jw_obj_end(&w);
        }
        etp_jw_arr_end(&w);
        const etp_block_summary *s = &b->summary;
        etp_jw_key(&w, "summary");
        etp_jw_obj_begin(&w);
        etp_jw_kuint(&w, "instructions_observed", s->instructions_observed);
        if (s->has_execute)
            json_summary_metric(&w, "method_execute", &s->execute, unit);
        else
            etp_jw_knull(&w, "method_execute");
        json_summary_metric(&w, "operator_calls", &s->operator_calls, unit);
        json_summary_metric(&w, "delegate_calls", &s->delegate_calls, unit);
        json_summary_metric(&w, "other_calls", &s->other_calls, unit);
        json_summary_metric(&w, "native_kernels", &s->native_kernels, unit);
        json_summary_metric(&w, "dispatch_overhead", &s->dispatch, unit);
        etp_jw_kuint(&w, "operator_calls_without_kernel", s->operator_calls_without_kernel);
        if (s->has_execute)
            json_summary_metric(&w, "execute_minus_instructions", &s->execute_overhead, unit);
        else
            etp_jw_knull(&w, "execute_minus_instructions");
        etp_jw_obj_end(&w);
        etp_jw_kuint(&w, "debug_events", b->debug_events);
        etp_jw_kuint(&w, "program_outputs", b->program_outputs);
        etp_jw_kuint(&w, "allocation_events", b->allocation_events);
        etp_jw_kuint(&w, "allocation_bytes", b->allocation_bytes);
        etp_jw_kuint(&w, "empty_events", b->empty_events);
        etp_jw_kuint(&w, "wrapped_intervals", b->wrapped_intervals);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_finish(&w);
}
