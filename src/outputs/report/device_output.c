/* device_output.c - the device figures, memory summary and Ethos-U split of
 * an analysis, written as JSON members (summary.json, analysis JSON,
 * detailed/memory.json) and as the terminal summary's lines. */
#include "outputs/report/device_output.h"

#include <string.h>

#include "etprof/columns.h"
#include "etprof/device_report.h"
#include "etprof/tensors.h"
#include "outputs/tensors/tensors_write.h"

const char *etp_thousands(uint64_t v, char *buf, size_t cap)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    size_t k = 0;
    for (int i = 0; i < n && k + 1 < cap; i++) {
        if (i && (n - i) % 3 == 0 && k + 2 < cap)
            buf[k++] = ',';
        buf[k++] = tmp[i];
    }
    buf[k] = '\0';
    return buf;
}

/* Logs are named as the manifest names inputs: by file name (a path given
 * on the command line, or etprof run's temporary one, says nothing more). */
static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

void etp_json_device(etp_jw *w, const etp_analysis *a)
{
    const etp_device_report *r = a->device;
    if (!r) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    etp_jw_key(w, "etdump_tick_unit_evidence");
    if (r->has_tick_unit_evidence) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "unit", etp_unit_name(r->tick_unit_evidence));
        etp_jw_kstr(w, "log", base_name(r->tick_unit_log));
        etp_jw_kuint(w, "line", r->tick_unit_line);
        etp_jw_obj_end(w);
    } else {
        etp_jw_null(w);
    }
    etp_jw_key(w, "figures");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->figure_count; i++) {
        const etp_device_figure *f = &r->figures[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "name", f->name);
        etp_jw_kstr(w, "unit", etp_unit_name(f->unit));
        etp_jw_kstr(w, "source", f->source);
        etp_jw_kstr(w, "log", base_name(f->log));
        if (f->line)
            etp_jw_kuint(w, "line", f->line);
        etp_jw_kbool(w, "summable", f->summable);
        etp_jw_kuint(w, "n", f->n);
        etp_jw_kbool(w, "per_inference", f->per_inference);
        etp_jw_kdouble(w, "total", f->total);
        etp_jw_kdouble(w, "avg", f->avg);
        etp_jw_kdouble(w, "p50", f->p50);
        etp_jw_kdouble(w, "min", f->min);
        etp_jw_kdouble(w, "max", f->max);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

void etp_json_memory(etp_jw *w, const etp_analysis *a)
{
    const etp_device_report *r = a->device;
    if (!r) {
        etp_jw_null(w);
        return;
    }
    const etp_memory_summary *m = &r->memory;
    etp_jw_obj_begin(w);
    etp_jw_key(w, "planned_arena");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", "bytes");
    etp_jw_kstr(w, "source", m->planned_source);
    etp_jw_ku64s(w, "buffers", m->planned_bytes, m->planned_count);
    etp_jw_key(w, "total");
    if (m->planned_source)
        etp_jw_uint(w, m->planned_total);
    else
        etp_jw_null(w);
    if (m->device_planned_count) {
        etp_jw_kuint(w, "device_buffers", m->device_planned_count);
        etp_jw_kuint(w, "device_total", m->device_planned_total);
    }
    etp_jw_obj_end(w);
    etp_jw_key(w, "method_allocator");
    if (m->has_allocator) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "unit", "bytes");
        etp_jw_kstr(w, "source", "Arm runner log");
        etp_jw_kuint(w, "used", m->allocator_used);
        etp_jw_kuint(w, "size", m->allocator_size);
        etp_jw_kuint(w, "planned", m->allocator_planned);
        etp_jw_kuint(w, "pool", m->allocator_pool);
        etp_jw_obj_end(w);
    } else {
        etp_jw_null(w);
    }
    etp_jw_key(w, "peak_rss");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", "KiB");
    etp_jw_key(w, "value");
    if (m->has_peak_rss)
        etp_jw_uint(w, m->peak_rss_kib);
    else
        etp_jw_null(w);
    etp_jw_kstr(w, "source", m->peak_rss_source);
    if (!m->has_peak_rss)
        etp_jw_kstr(w, "reason", m->peak_rss_reason);
    etp_jw_obj_end(w);
    etp_jw_key(w, "program");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", "bytes");
    etp_jw_key(w, "size");
    if (m->has_program_size)
        etp_jw_uint(w, m->program_bytes);
    else
        etp_jw_null(w);
    etp_jw_kstr(w, "source", m->program_source);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_json_npu(etp_jw *w, const etp_analysis *a)
{
    const etp_device_report *r = a->device;
    if (!r || !r->npu.present) {
        etp_jw_null(w);
        return;
    }
    const etp_npu_split *p = &r->npu;
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "backend", "EthosUBackend");
    etp_jw_kstr(w, "unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(w, "basis", "per execution: sum over the delegate calls of one execution, averaged");
    etp_jw_kuint(w, "executions", p->executions);
    etp_jw_kuint(w, "calls", p->calls);
    etp_jw_kdouble(w, "execute_avg", p->execute_avg);
    etp_jw_key(w, "npu_avg");
    p->has_npu ? etp_jw_double(w, p->npu_avg) : etp_jw_null(w);
    etp_jw_key(w, "input_copy_avg");
    p->has_input_copy ? etp_jw_double(w, p->input_copy_avg) : etp_jw_null(w);
    if (p->has_output_copy)
        etp_jw_kdouble(w, "output_copy_avg", p->output_copy_avg);
    etp_jw_kdouble(w, "rest_avg", p->rest_avg);
    etp_jw_key(w, "cpu_outside_delegate_avg");
    p->has_cpu_outside ? etp_jw_double(w, p->cpu_outside_avg) : etp_jw_null(w);
    etp_jw_key(w, "by_instruction");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < p->site_count; i++) {
        const etp_npu_call_site *c = &p->sites[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "instruction", c->instruction);
        etp_jw_kdouble(w, "execute_avg", c->execute_avg);
        etp_jw_kdouble(w, "npu_avg", c->npu_avg);
        etp_jw_kdouble(w, "input_copy_avg", c->input_copy_avg);
        if (p->has_output_copy)
            etp_jw_kdouble(w, "output_copy_avg", c->output_copy_avg);
        etp_jw_kdouble(w, "rest_avg", c->rest_avg);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

const char *etp_npu_row_note(const etp_analysis *a, const etp_entity *e, char *buf, size_t cap)
{
    /* The entity's own Ethos-U columns (etprof/columns.h). */
    const etp_column *cx = etp_column_get(ETP_COL_NPU_EXECUTE_AVG), *cn = etp_column_get(ETP_COL_NPU_AVG),
                     *ci = etp_column_get(ETP_COL_NPU_INPUT_COPY_AVG),
                     *co = etp_column_get(ETP_COL_NPU_OUTPUT_COPY_AVG), *cr = etp_column_get(ETP_COL_NPU_REST_AVG);
    if (!cx->present(e))
        return NULL;
    double x = cx->get(a, e).d;
    if (!(x > 0))
        return NULL;
    double npu = cn->present(e) ? cn->get(a, e).d : 0, in = ci->present(e) ? ci->get(a, e).d : 0;
    int n = snprintf(buf, cap, "NPU %.0f%%, input copy %.0f%%", 100 * npu / x, 100 * in / x);
    if (co->present(e) && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", output copy %.0f%%", 100 * co->get(a, e).d / x);
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", rest %.0f%% of EthosUBackend::execute()",
                 100 * cr->get(a, e).d / x);
    return buf;
}

/* NaN and Inf elements over every logged value (counts: may be added). */
static uint64_t tensors_nan(const etp_tensor_set *t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->count; i++)
        n += t->items[i].stats.nan;
    return n;
}

static uint64_t tensors_inf(const etp_tensor_set *t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->count; i++)
        n += t->items[i].stats.pos_inf + t->items[i].stats.neg_inf;
    return n;
}

void etp_json_debug_buffer(etp_jw *w, const etp_analysis *a)
{
    const etp_debug_buffer_info *db = &a->debug_buffer;
    if (!db->checked) {
        etp_jw_null(w);
        return;
    }
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", db->name);
    etp_jw_kuint(w, "size_bytes", db->size);
    etp_jw_kuint(w, "debug_events", db->check.debug_events);
    etp_jw_kuint(w, "tensors_checked", db->check.tensors);
    etp_jw_kuint(w, "empty_tensors", db->check.empty_tensors);
    etp_jw_kuint(w, "bytes_referenced", db->check.bytes_referenced);
    etp_jw_kstr(w, "check", "every logged tensor's bytes lie inside the buffer");
    /* The values read from it (etprof tensors; detailed/tensors.csv), when
     * the analysis had the buffer's bytes. */
    const etp_tensor_set *t = a->tensors;
    etp_jw_key(w, "values");
    if (t) {
        etp_jw_obj_begin(w);
        etp_jw_kuint(w, "logged", t->count);
        etp_jw_kuint(w, "tensors", t->tensors);
        etp_jw_kuint(w, "scalars", t->scalars);
        etp_jw_kuint(w, "program_outputs", t->program_outputs);
        etp_jw_kuint(w, "not_decoded", t->not_decoded);
        etp_jw_kuint(w, "without_bytes", t->without_bytes);
        etp_jw_kuint(w, "bytes_read", t->bytes);
        etp_jw_kuint(w, "nan_elements", tensors_nan(t));
        etp_jw_kuint(w, "inf_elements", tensors_inf(t));
        etp_jw_obj_end(w);
        etp_jw_key(w, "bundled_check");
        etp_bundled_check_json(w, &t->bundled);
    } else {
        etp_jw_null(w);
        etp_jw_key(w, "bundled_check");
        etp_jw_null(w);
    }
    etp_jw_obj_end(w);
}

const char *etp_npu_verdict(const etp_npu_call_site *c)
{
    if (!c->has_npu)
        return "no NPU event: the whole call is CPU-side time";
    return c->npu_larger ? "the NPU is the larger cost of the call"
                         : "the CPU side (copies and the rest of the call) is the larger cost";
}

/* What the logged values showed: counts, NaN/Inf, the bundled check. */
static void tensors_text(FILE *fp, const etp_tensor_set *t)
{
    uint64_t nan = tensors_nan(t), inf = tensors_inf(t);
    fprintf(fp, "Logged values: %u read (%u program output%s)%s", t->count, t->program_outputs,
            t->program_outputs == 1 ? "" : "s", nan || inf ? "" : ", no NaN or Inf");
    if (nan || inf)
        fprintf(fp, ", %llu NaN and %llu Inf elements", (unsigned long long)nan, (unsigned long long)inf);
    fprintf(fp, " (etprof tensors lists them)\n");
    const etp_bundled_check *c = &t->bundled;
    if (c->done && !c->mismatched)
        fprintf(fp, "Bundled program: outputs match test case %d (%s)\n", c->testset, c->testset_basis);
    else if (c->done && c->worst->problem[0])
        fprintf(fp, "Bundled program: %u of %u outputs DIFFER from test case %d: %s\n", c->mismatched,
                c->output_count, c->testset, c->worst->problem);
    else if (c->done)
        fprintf(fp, "Bundled program: %u of %u outputs DIFFER from test case %d: element %llu expected %.9g, got %.9g\n",
                c->mismatched, c->output_count, c->testset, (unsigned long long)c->worst->gap.worst_index,
                c->worst->gap.worst_reference, c->worst->gap.worst_got);
    else if (c->bundled_program)
        fprintf(fp, "Bundled program: outputs not compared: %s\n", c->reason);
}

/* "43.6 MB" style, decimal megabytes of @p bytes. */
static void mb(double bytes, char *buf, size_t cap)
{
    if (bytes >= 1e6)
        snprintf(buf, cap, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(buf, cap, "%.1f kB", bytes / 1e3);
    else
        snprintf(buf, cap, "%.0f B", bytes);
}

void etp_device_write_text(const etp_analysis *a, FILE *fp)
{
    const etp_device_report *r = a->device;
    if (!r)
        return;
    const etp_memory_summary *m = &r->memory;
    char t[40], s[40];
    fprintf(fp, "Memory: ");
    if (m->planned_source)
        fprintf(fp, "%s B planned arena (%u buffer%s, %s)", etp_thousands(m->planned_total, t, sizeof t),
                m->planned_count, m->planned_count == 1 ? "" : "s", m->planned_source);
    else
        fprintf(fp, "planned arena unknown");
    if (m->has_allocator)
        fprintf(fp, "; method allocator %s / %s B used", etp_thousands(m->allocator_used, t, sizeof t),
                etp_thousands(m->allocator_size, s, sizeof s));
    if (m->has_peak_rss) {
        mb((double)m->peak_rss_kib * 1024, s, sizeof s);
        fprintf(fp, "; peak RSS %s (%s KiB, %s)", s, etp_thousands(m->peak_rss_kib, t, sizeof t),
                m->peak_rss_source);
    } else {
        fprintf(fp, "; peak RSS unavailable");
    }
    if (m->has_program_size) {
        mb((double)m->program_bytes, s, sizeof s);
        fprintf(fp, "; program %s", s);
    }
    fputc('\n', fp);
    const etp_debug_buffer_info *db = &a->debug_buffer;
    if (db->checked)
        fprintf(fp, "Debug buffer: %s B, %s: %llu tensor%s of %llu debug event%s lie inside it "
                    "(up to byte %llu)\n",
                etp_thousands(db->size, t, sizeof t), db->name, (unsigned long long)db->check.tensors,
                db->check.tensors == 1 ? "" : "s", (unsigned long long)db->check.debug_events,
                db->check.debug_events == 1 ? "" : "s", (unsigned long long)db->check.bytes_referenced);
    if (a->tensors)
        tensors_text(fp, a->tensors);
    const char *u = etp_unit_name(a->target_unit);
    if (r->npu.present) {
        const etp_npu_split *p = &r->npu;
        double base = p->has_cpu_outside && p->method_execute_avg > 0 ? p->method_execute_avg : p->execute_avg;
        fprintf(fp, "Ethos-U delegate calls (%s per execution, %llu call%s in %u executions)\n", u,
                (unsigned long long)p->calls, p->calls == 1 ? "" : "s", p->executions);
#define PART(label, v, has)                                                                         \
    if (has)                                                                                        \
        fprintf(fp, "  %-30s %11.6f %6.1f%%\n", label, v, base > 0 ? 100.0 * (v) / base : 0.0)
        PART("NPU", p->npu_avg, p->has_npu);
        PART("input copy (CPU)", p->input_copy_avg, p->has_input_copy);
        PART("output copy (CPU)", p->output_copy_avg, p->has_output_copy);
        PART("rest of the call (CPU)", p->rest_avg, 1);
        PART("outside the NPU calls (CPU)", p->cpu_outside_avg, p->has_cpu_outside);
#undef PART
        fprintf(fp, "  (shares of Method::execute; the largest cost is %s)\n",
                p->has_npu && p->npu_avg >= p->execute_avg - p->npu_avg + (p->has_cpu_outside ? p->cpu_outside_avg : 0)
                    ? "the NPU"
                    : "on the CPU");
    }
    if (r->figure_count) {
        fprintf(fp, "Reported by the device logs (kept apart from the ETDump's figures)\n");
        for (uint32_t i = 0; i < r->figure_count; i++) {
            const etp_device_figure *f = &r->figures[i];
            if (f->per_inference)
                fprintf(fp, "  %-30s %14.2f %s per inference (total %.0f over %u; %s)\n", f->name, f->avg,
                        etp_unit_name(f->unit), f->total, f->n, f->source);
            else if (f->n > 1)
                fprintf(fp, "  %-30s avg %.6g p50 %.6g min %.6g max %.6g %s (n=%u; %s)\n", f->name, f->avg,
                        f->p50, f->min, f->max, etp_unit_name(f->unit), f->n, f->source);
            else
                fprintf(fp, "  %-30s %14.6g %s (%s)\n", f->name, f->avg, etp_unit_name(f->unit), f->source);
        }
    }
}
