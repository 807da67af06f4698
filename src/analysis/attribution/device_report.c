/* device_report.c - the device's own numbers beside the ETDump's: one
 * figure per reported quantity (unit, source, file and line), the issues
 * where logs contradict each other or the ETDump, the memory summary and the
 * Ethos-U split of the delegate calls (NPU vs input copy vs the rest). */
#include "analysis/attribution/device_report.h"

#include "analysis/attribution/entities.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/device_log.h"
#include "etprof/device_report.h"
#include "etprof/runner_log.h"
#include "util/str.h"

typedef struct dbuild {
    etp_abuild *b;
    etp_device_report *r;
    int oom;
} dbuild;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static etp_device_figure *add(dbuild *d, const etp_device_log *l, const char *name, etp_unit unit,
                              const char *source, uint32_t line, int summable)
{
    etp_device_report *r = d->r;
    etp_device_figure *nf = realloc(r->figures, (r->figure_count + 1) * sizeof *nf);
    if (!nf) {
        d->oom = 1;
        return NULL;
    }
    r->figures = nf;
    etp_device_figure *f = &nf[r->figure_count];
    memset(f, 0, sizeof *f);
    if (!(f->name = etp_strdup(name))) {
        d->oom = 1;
        return NULL;
    }
    r->figure_count++;
    f->unit = unit;
    f->source = source;
    f->log = l->path;
    f->line = line;
    f->summable = summable;
    return f;
}

/* A figure over @p n values (scaled by @p scale). */
static void series(dbuild *d, const etp_device_log *l, const char *name, etp_unit unit,
                   const char *source, uint32_t line, const double *v, uint32_t n, double scale)
{
    if (!n)
        return;
    etp_device_figure *f = add(d, l, name, unit, source, line, 1);
    double *s = f ? malloc(n * sizeof *s) : NULL;
    if (!s) {
        d->oom = 1;
        return;
    }
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += s[i] = v[i] * scale;
    qsort(s, n, sizeof *s, cmp_double);
    f->n = n;
    f->total = sum;
    f->avg = sum / n;
    f->min = s[0];
    f->max = s[n - 1];
    f->p50 = etp_percentile_linear(s, n, 50);
    free(s);
}

static void single(dbuild *d, const etp_device_log *l, const char *name, etp_unit unit,
                   const char *source, uint32_t line, double v, int summable)
{
    etp_device_figure *f = add(d, l, name, unit, source, line, summable);
    if (f) {
        f->n = 1;
        f->total = f->avg = f->p50 = f->min = f->max = v;
    }
}

/* A total over @p n inferences, as the Arm runner prints it. */
static void per_inference(dbuild *d, const etp_device_log *l, const char *name, etp_unit unit,
                          uint64_t total, uint64_t n, int summable)
{
    if (!n)
        return;
    etp_device_figure *f = add(d, l, name, unit, "Arm runner perf report", 0, summable);
    if (f) {
        f->n = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
        f->per_inference = 1;
        f->total = (double)total;
        f->avg = f->p50 = f->min = f->max = (double)total / (double)n;
    }
}

#define ISSUE(d, code, ...)                                                      \
    do {                                                                         \
        if (etp_issue_add(&(d)->b->a->issues, code, NULL, __VA_ARGS__))          \
            (d)->oom = 1;                                                        \
    } while (0)

static void run_figures(dbuild *d, const etp_device_log *l)
{
    uint32_t n = l->run_count;
    if (!n)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v) {
        d->oom = 1;
        return;
    }
    const char *src = "etprof run (wait4)";
    for (uint32_t i = 0; i < n; i++)
        v[i] = l->runs[i].wall_s;
    series(d, l, "process.wall", ETP_UNIT_S, src, 0, v, n, 1);
    for (uint32_t i = 0; i < n; i++)
        v[i] = l->runs[i].user_s;
    series(d, l, "process.user_cpu", ETP_UNIT_S, src, 0, v, n, 1);
    for (uint32_t i = 0; i < n; i++)
        v[i] = l->runs[i].sys_s;
    series(d, l, "process.sys_cpu", ETP_UNIT_S, src, 0, v, n, 1);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (l->runs[i].has_max_rss)
            v[k++] = (double)l->runs[i].max_rss_kb;
    if (k == n && !l->run_adb) {
        series(d, l, "process.peak_rss", ETP_UNIT_KIB, src, 0, v, n, 1);
        if (d->r->figure_count)
            d->r->figures[d->r->figure_count - 1].summable = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        if (l->runs[i].exit_status)
            ISSUE(d, "device_log.exit_status", "%s: run %u exited with status %d", l->path, i + 1,
                  l->runs[i].exit_status);
    free(v);
}

static void time_figures(dbuild *d, const etp_device_log *l)
{
    const etp_dl_time *t = &l->time;
    if (!t->line)
        return;
    const char *src = "GNU time -v";
    if (t->has_wall)
        single(d, l, "gnu_time.wall", ETP_UNIT_S, src, t->line, t->wall_s, 1);
    if (t->has_user)
        single(d, l, "gnu_time.user_cpu", ETP_UNIT_S, src, t->line, t->user_s, 1);
    if (t->has_sys)
        single(d, l, "gnu_time.sys_cpu", ETP_UNIT_S, src, t->line, t->sys_s, 1);
    if (t->has_cpu_percent)
        single(d, l, "gnu_time.cpu_percent", ETP_UNIT_PERCENT, src, t->line, t->cpu_percent, 0);
    if (t->has_max_rss)
        single(d, l, "gnu_time.peak_rss", ETP_UNIT_KIB, src, t->line, (double)t->max_rss_kb, 0);
    if (t->has_exit_status && t->exit_status)
        ISSUE(d, "device_log.exit_status", "%s: time -v reports exit status %d", l->path,
              t->exit_status);
}

static void vmhwm_figure(dbuild *d, const etp_device_log *l)
{
    if (l->has_vmhwm)
        single(d, l, "proc_status.peak_rss", ETP_UNIT_KIB, "/proc status VmHWM", l->vmhwm_line, (double)l->vmhwm_kb, 0);
}

static void arm_figures(dbuild *d, const etp_device_log *l)
{
    const etp_dl_arm *a = &l->arm;
    if (!a->line)
        return;
    uint64_t n = a->npu_inferences ? a->npu_inferences : a->inferences_started;
    if (a->has_inference_cycles)
        per_inference(d, l, "arm.inference_cycles", ETP_UNIT_CPU_CYCLES, a->inference_cycles, n, 0);
    if (a->has_operator_cycles)
        per_inference(d, l, "arm.operator_cycles", ETP_UNIT_CPU_CYCLES, a->operator_cycles, n, 0);
    if (a->has_ethosu_cycles)
        per_inference(d, l, "arm.ethosu_operator_cycles", ETP_UNIT_CPU_CYCLES, a->ethosu_cycles, n, 0);
    if (a->has_wait_cycles)
        per_inference(d, l, "arm.cpu_wait_for_npu_cycles", ETP_UNIT_CPU_CYCLES, a->wait_cycles, n, 0);
    if (a->has_pmu_cycles)
        per_inference(d, l, "arm.npu_active_cycles", ETP_UNIT_NPU_CYCLES, a->pmu_cycles, n, 0);
    if (a->npu_delegations)
        per_inference(d, l, "arm.npu_delegations", ETP_UNIT_COUNT, a->npu_delegations, n, 0);
    for (uint32_t i = 0; i < a->pmu_count; i++) {
        char name[96];
        if (i < a->pmu_event_count)
            snprintf(name, sizeof name, "arm.pmu.%s", a->pmu_events[i]);
        else
            snprintf(name, sizeof name, "arm.pmu.cntr%u", i);
        per_inference(d, l, name, ETP_UNIT_COUNT, a->pmu[i], n, 0);
    }
    double hz = d->b->opt->cpu_hz;
    if (a->has_inference_cycles && n && hz > 0) {
        etp_device_figure *f = add(d, l, "arm.inference_time", ETP_UNIT_MS, "Arm runner perf report", 0, 0);
        if (f) {
            f->n = (uint32_t)n;
            f->per_inference = 1;
            f->total = (double)a->inference_cycles / hz * etp_unit_factor(ETP_UNIT_S, ETP_UNIT_MS);
            f->avg = f->p50 = f->min = f->max = f->total / (double)n;
        }
    }
    if (a->has_cpu_ratio)
        single(d, l, "arm.cpu_ratio", ETP_UNIT_PERCENT, "Arm runner perf report", 0, a->cpu_ratio, 0);
    if (a->has_npu_ratio)
        single(d, l, "arm.npu_ratio", ETP_UNIT_PERCENT, "Arm runner perf report", 0, a->npu_ratio, 0);
    if (a->linux_cycle_count) {
        etp_device_figure *f = add(d, l, "ethosu_linux.cycles", ETP_UNIT_NPU_CYCLES,
                                   "Ethos-U Linux delegate", 0, 0);
        if (f) {
            f->n = a->linux_cycle_count;
            f->total = (double)a->linux_cycles_sum;
            f->avg = f->p50 = f->min = f->max = f->total / f->n;
            f->per_inference = 1;
        }
    }
    /* The runner counted its inferences; the ETDump should hold as many. */
    uint32_t ex = d->b->a->execution_count;
    if (n && n != ex)
        ISSUE(d, "device_log.count_differs", "%s reports %llu inferences; the ETDump has %u executions",
              l->path, (unsigned long long)n, ex);
    /* With cycle ticks the perf report's total and the ETDump's must agree. */
    const etp_figure *me = etp_analysis_figure_by_id(d->b->a, ETP_FIG_METHOD_EXECUTE);
    if (a->has_inference_cycles && me && me->available && d->b->a->source_unit == ETP_UNIT_CYCLES &&
        d->b->a->divisor > 0) {
        double etd = me->stats.sum * d->b->a->divisor; /* back to ticks */
        double rep = (double)a->inference_cycles;
        if (fabs(etd - rep) > 0.01 * (rep > etd ? rep : etd))
            ISSUE(d, "device_log.cycles_differ",
                  "%s: Inference runtime %.0f CPU cycles; the ETDump's Method::execute sums to %.0f ticks",
                  l->path, rep, etd);
    }
}

static void other_figures(dbuild *d, const etp_device_log *l)
{
    series(d, l, "rtt.inference", ETP_UNIT_MS, "RTT Inference lines", l->rtt_ms.first_line, l->rtt_ms.v,
           l->rtt_ms.count, 1);
    series(d, l, "vgf.device_time", ETP_UNIT_MS, "VGF device time", l->vgf_ns.first_line, l->vgf_ns.v,
           l->vgf_ns.count, etp_unit_factor(ETP_UNIT_NS, ETP_UNIT_MS));
    if (l->rtt_ms.count && l->rtt_ms.count != d->b->a->execution_count)
        ISSUE(d, "device_log.count_differs", "%s has %u Inference lines; the ETDump has %u executions",
              l->path, l->rtt_ms.count, d->b->a->execution_count);
}

/* ---- memory ---------------------------------------------------------------- */

static void memory(dbuild *d)
{
    etp_abuild *b = d->b;
    etp_memory_summary *m = &d->r->memory;
    const etp_plan *plan = b->a->plan;
    const etp_runner_log *rl = b->opt->runner_log;
    /* The program's memory plan is what the runtime allocates; the logs say
     * what a runner set up (they must agree). */
    if (plan && plan->buffer_count > 1) {
        m->planned_count = plan->buffer_count - 1;
        m->planned_source = "program";
    } else if (rl && rl->buffer_count) {
        m->planned_count = rl->buffer_count;
        m->planned_source = "runner log";
    }
    if (m->planned_count) {
        if (!(m->planned_bytes = calloc(m->planned_count, sizeof *m->planned_bytes))) {
            d->oom = 1;
            return;
        }
        for (uint32_t i = 0; i < m->planned_count; i++) {
            m->planned_bytes[i] = plan && plan->buffer_count > 1
                                      ? (uint64_t)(plan->buffer_sizes[i + 1] > 0 ? plan->buffer_sizes[i + 1] : 0)
                                      : rl->buffer_bytes[i];
            m->planned_total += m->planned_bytes[i];
        }
    }
    if (rl && rl->buffer_count && m->planned_source && !strcmp(m->planned_source, "program") &&
        rl->planned_bytes != m->planned_total)
        ISSUE(d, "memory.planned_differs", "%s sets up %.0f planned bytes; the program plans %.0f",
              rl->path, (double)rl->planned_bytes, (double)m->planned_total);
    const etp_device_log *rss_log = NULL, *run_log = NULL, *hwm_log = NULL;
    for (uint32_t i = 0; i < b->opt->device_log_count; i++) {
        const etp_device_log *l = b->opt->device_logs[i];
        for (uint32_t k = 0; k < l->device_buffer_count; k++) {
            m->device_planned_total += l->device_buffers[k].bytes;
            m->device_planned_count++;
        }
        if (l->arm.has_alloc_used && !m->has_allocator) {
            m->has_allocator = 1;
            m->allocator_used = l->arm.alloc_used;
            m->allocator_size = l->arm.alloc_size;
            m->allocator_planned = l->arm.alloc_planned;
            m->allocator_pool = l->arm.method_pool_bytes;
        }
        /* (the runner log's own check covers the log it was read from) */
        if (l->arm.planned_count && m->planned_source && !(rl && !strcmp(rl->path, l->path))) {
            uint64_t t = 0;
            for (uint32_t k = 0; k < l->arm.planned_count; k++)
                t += l->arm.planned_bytes[k];
            if (t != m->planned_total)
                ISSUE(d, "memory.planned_differs", "%s sets up %llu planned bytes; the %s has %llu",
                      l->path, (unsigned long long)t, m->planned_source,
                      (unsigned long long)m->planned_total);
        }
        if (l->time.has_max_rss) {
            if (rss_log && rss_log->time.max_rss_kb != l->time.max_rss_kb)
                ISSUE(d, "device_log.contradiction", "%s and another log report different peak RSS "
                      "(%.0f vs %.0f KiB)", l->path, (double)l->time.max_rss_kb,
                      (double)rss_log->time.max_rss_kb);
            if (!rss_log)
                rss_log = l;
        }
        if (l->run_count && !run_log)
            run_log = l;
        if (l->has_vmhwm && !hwm_log)
            hwm_log = l;
        if (l->arm.has_pte_size && !m->has_program_size) {
            m->has_program_size = 1;
            m->program_bytes = l->arm.pte_size;
            m->program_source = "Arm runner log";
        }
    }
    /* Peak RSS: a device-side time -v first (over adb the host's wait4 is
     * adb's own), then what etprof run measured of a local child. */
    if (rss_log) {
        m->has_peak_rss = 1;
        m->peak_rss_kib = rss_log->time.max_rss_kb;
        m->peak_rss_source = "GNU time -v";
    } else if (hwm_log) {
        m->has_peak_rss = 1;
        m->peak_rss_kib = hwm_log->vmhwm_kb;
        m->peak_rss_source = "/proc status VmHWM";
    } else if (run_log && !run_log->run_adb) {
        uint64_t mx = 0;
        int all = 1;
        for (uint32_t i = 0; i < run_log->run_count; i++) {
            all &= run_log->runs[i].has_max_rss;
            if (run_log->runs[i].max_rss_kb > mx)
                mx = run_log->runs[i].max_rss_kb;
        }
        if (all) {
            m->has_peak_rss = 1;
            m->peak_rss_kib = mx;
            m->peak_rss_source = "etprof run (wait4)";
        }
    }
    if (!m->has_peak_rss) {
        m->peak_rss_reason = run_log && run_log->run_adb
                                 ? "the runner ran on another device: the host's wait4 measures adb, "
                                   "not the model; run it under a device-side `time -v`"
                                 : "no time -v block and no etprof run measurement";
        if (run_log && run_log->run_adb)
            ISSUE(d, "memory.peak_rss_unavailable", "%s: %s", run_log->path, m->peak_rss_reason);
    }
    if (b->a->program) {
        if (m->has_program_size && m->program_bytes != b->a->program->file_size)
            ISSUE(d, "device_log.contradiction", "a device log loaded a %llu-byte program; %s is %zu bytes",
                  (unsigned long long)m->program_bytes, b->a->program->path, b->a->program->file_size);
        m->has_program_size = 1;
        m->program_bytes = b->a->program->file_size;
        m->program_source = "program file";
    }
}

/* ---- Ethos-U delegate calls --------------------------------------------------- */

/* The EthosUBackend's own events (specs/runner-logs.md §5), all versions' names. */
enum { NPU_EXECUTE, NPU_RUN, NPU_IN, NPU_OUT, NPU_KINDS };

static int npu_kind(const char *name)
{
    if (!name)
        return -1;
    if (!strcmp(name, "EthosUBackend::execute()"))
        return NPU_EXECUTE;
    if (!strcmp(name, "+EthosUBackend::execute()NPU"))
        return NPU_RUN;
    if (!strcmp(name, "+EthosUBackend::execute()handles.input.memcpy()"))
        return NPU_IN;
    if (!strcmp(name, "+EthosUBackend::execute()handles.output.memcpy()"))
        return NPU_OUT;
    return -1;
}

static void npu_split(dbuild *d)
{
    etp_abuild *b = d->b;
    const etp_inspect *in = b->a->inspect;
    uint32_t n = b->nexec;
    double *sum = calloc((size_t)n * NPU_KINDS + 1, sizeof *sum);
    uint8_t *has = calloc((size_t)n * NPU_KINDS + 1, 1);
    if (!sum || !has) {
        free(sum);
        free(has);
        d->oom = 1;
        return;
    }
    uint64_t calls = 0;
    etp_npu_split *p = &d->r->npu;
    double (*site_tot)[NPU_KINDS] = NULL; /* per site: sums over the selected executions */
    uint8_t *site_has = NULL;             /* per site: bit k set when it has kind k events */
    for (uint32_t bi = 0; bi < in->block_count; bi++) {
        const etp_inspect_block *blk = &in->blocks[bi];
        if (!blk->run_count || b->exec_of_run[blk->runs[0]] == UINT32_MAX)
            continue;
        for (uint32_t r = 0; r < blk->row_count; r++) {
            const etp_inspect_row *row = &blk->rows[r];
            int k = npu_kind(row->event_name);
            if (k < 0)
                continue;
            uint32_t si = 0;
            while (si < p->site_count &&
                   (p->sites[si].chain != row->chain_index || p->sites[si].instr != row->instruction_id))
                si++;
            if (si == p->site_count) {
                if (si >= 65536)
                    continue; /* a hostile dump: more sites than any program has */
                etp_npu_call_site *ns = realloc(p->sites, (si + 1) * sizeof *ns);
                double (*nt)[NPU_KINDS] = ns ? realloc(site_tot, (si + 1) * sizeof *nt) : NULL;
                if (ns)
                    p->sites = ns;
                if (nt)
                    site_tot = nt;
                uint8_t *nh = nt ? realloc(site_has, si + 1) : NULL;
                if (!nh) {
                    d->oom = 1;
                    break;
                }
                site_has = nh;
                nh[si] = 0;
                memset(&ns[si], 0, sizeof ns[si]);
                memset(nt[si], 0, sizeof nt[si]);
                ns[si].chain = row->chain_index;
                ns[si].instr = row->instruction_id;
                ns[si].instruction = etp_strprintf("%s_%d_%d", b->a->method ? b->a->method : "?",
                                                   row->chain_index, row->instruction_id);
                p->site_count++;
                if (!ns[si].instruction) {
                    d->oom = 1;
                    break;
                }
            }
            uint64_t s = 0;
            for (uint32_t x = 0; x < blk->run_count; x++) {
                uint32_t e = b->exec_of_run[blk->runs[x]];
                for (uint32_t c = 0; c < row->per_run[x]; c++, s++) {
                    if (e == UINT32_MAX)
                        continue;
                    sum[(size_t)k * n + e] += (double)row->ticks[s];
                    site_tot[si][k] += (double)row->ticks[s];
                    has[(size_t)k * n + e] = 1;
                    site_has[si] |= 1u << k;
                    if (k == NPU_EXECUTE) {
                        calls++;
                        p->sites[si].calls++;
                    }
                }
            }
        }
        if (d->oom)
            break;
    }
    double tot[NPU_KINDS] = {0};
    uint32_t ex = 0;
    int any[NPU_KINDS] = {0};
    for (uint32_t e = 0; e < n; e++) {
        if (!has[(size_t)NPU_EXECUTE * n + e])
            continue;
        ex++;
        for (int k = 0; k < NPU_KINDS; k++) {
            tot[k] += sum[(size_t)k * n + e];
            any[k] |= has[(size_t)k * n + e];
        }
    }
    free(sum);
    free(has);
    double div = b->a->divisor > 0 ? b->a->divisor : 1;
    for (uint32_t si = 0; ex && si < p->site_count; si++) {
        etp_npu_call_site *c = &p->sites[si];
        c->execute_avg = site_tot[si][NPU_EXECUTE] / ex / div;
        c->npu_avg = site_tot[si][NPU_RUN] / ex / div;
        c->input_copy_avg = site_tot[si][NPU_IN] / ex / div;
        c->output_copy_avg = site_tot[si][NPU_OUT] / ex / div;
        c->rest_avg = c->execute_avg - c->npu_avg - c->input_copy_avg - c->output_copy_avg;
        c->has_npu = site_has[si] >> NPU_RUN & 1;
        c->has_input_copy = site_has[si] >> NPU_IN & 1;
        c->has_output_copy = site_has[si] >> NPU_OUT & 1;
        c->executions = ex;
        c->npu_larger = c->has_npu && c->npu_avg >= c->execute_avg - c->npu_avg;
    }
    free(site_tot);
    free(site_has);
    if (!ex || d->oom)
        return;
    p->present = 1;
    p->executions = ex;
    p->calls = calls;
    p->execute_avg = tot[NPU_EXECUTE] / ex / div;
    p->npu_avg = tot[NPU_RUN] / ex / div;
    p->input_copy_avg = tot[NPU_IN] / ex / div;
    p->output_copy_avg = tot[NPU_OUT] / ex / div;
    p->has_npu = any[NPU_RUN];
    p->has_input_copy = any[NPU_IN];
    p->has_output_copy = any[NPU_OUT];
    p->rest_avg = p->execute_avg - p->npu_avg - p->input_copy_avg - p->output_copy_avg;
    /* Each site's DelegateCall instruction points at it (the sites no
     * longer move): the operators table reads the split from the entity. */
    for (uint32_t si = 0; si < p->site_count; si++) {
        if (!p->sites[si].calls)
            continue; /* copies or NPU runs without their execute(): no split */
        int64_t id = etp_find_instruction(b, p->sites[si].chain, p->sites[si].instr);
        etp_entity *e = id >= 0 ? &b->ents.v[id] : NULL;
        /* A DelegateCall (or, without a program, an instruction timed by
         * DELEGATE_CALL events); never a KernelCall a hostile dump put them in. */
        if (e && (e->instr_kind == ETP_INSTR_DELEGATE ||
                  (e->instr_kind == ETP_INSTR_NONE && e->source == ETP_SRC_DELEGATE_CALL)))
            e->npu = &p->sites[si];
    }
    const etp_figure *me = etp_analysis_figure_by_id(b->a, ETP_FIG_METHOD_EXECUTE);
    if (me && me->available) {
        p->method_execute_avg = me->stats.avg;
        p->cpu_outside_avg = me->stats.avg - p->execute_avg;
        p->has_cpu_outside = 1;
    }
}

/* ---- tick unit evidence --------------------------------------------------------- */

static void tick_evidence(dbuild *d)
{
    etp_abuild *b = d->b;
    for (uint32_t i = 0; i < b->opt->device_log_count; i++) {
        const etp_device_log *l = b->opt->device_logs[i];
        if (!l->has_etdump_tick_unit || d->r->has_tick_unit_evidence)
            continue;
        d->r->has_tick_unit_evidence = 1;
        d->r->tick_unit_evidence = l->etdump_tick_unit;
        d->r->tick_unit_log = l->path;
        d->r->tick_unit_line = l->etdump_tick_unit_line;
        if (b->a->source_unit == ETP_UNIT_CYCLES)
            ISSUE(d, "device_log.tick_unit_cycles",
                  "ETDump ticks read as CPU cycles: %s line %u (the Arm runner's clock)", l->path,
                  l->etdump_tick_unit_line);
        else
            ISSUE(d, "device_log.tick_unit_differs",
                  "%s line %u says the ETDump's ticks are CPU cycles; they were read as %s", l->path,
                  l->etdump_tick_unit_line, etp_unit_name(b->a->source_unit));
    }
}

etp_status etp_build_device_report(etp_abuild *b)
{
    etp_device_report *r = calloc(1, sizeof *r);
    if (!r)
        return etp_abuild_oom(b);
    b->a->device = r;
    dbuild d = {b, r, 0};
    for (uint32_t i = 0; i < b->opt->device_log_count && !d.oom; i++) {
        const etp_device_log *l = b->opt->device_logs[i];
        run_figures(&d, l);
        time_figures(&d, l);
        vmhwm_figure(&d, l);
        arm_figures(&d, l);
        other_figures(&d, l);
    }
    if (!d.oom)
        memory(&d);
    if (!d.oom)
        npu_split(&d);
    if (!d.oom)
        tick_evidence(&d);
    return d.oom ? etp_abuild_oom(b) : ETP_OK;
}

void etp_device_report_free(etp_device_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->figure_count; i++)
        free(r->figures[i].name);
    free(r->figures);
    free(r->memory.planned_bytes);
    for (uint32_t i = 0; i < r->npu.site_count; i++)
        free(r->npu.sites[i].instruction);
    free(r->npu.sites);
    free(r);
}
