/* log_arm_runner.c - the Arm bare-metal executor_runner's console lines
 * (specs/runner-logs.md §4): program size, allocator pool and planned
 * buffers, the perf report of arm_perf_monitor.cpp (CPU cycles, NPU share,
 * Ethos-U PMU counters) and the allocator statistics. Values are kept as
 * printed: cycle counts are totals over the inferences run. */
#include <stdlib.h>
#include <string.h>

#include "formats/logs/device_log_internal.h"
#include "util/str.h"

#define MAX_MEM_ID 4096u

static int seen(etp_device_log *l, uint32_t no)
{
    if (!l->arm.line)
        l->arm.line = no;
    l->formats |= ETP_DL_ARM_RUNNER;
    return 1;
}

/* "NAME : N" with an optional "(X per inference)" after: read N. */
static int counter(etp_device_log *l, const char *p, uint32_t no, uint64_t *v, int *has,
                   const char *what, etp_error *err)
{
    if (etp_ls_u64_or_wrapped(&p, v))
        return etp_ls_bad(err, l->path, no, what);
    if (has)
        *has = 1;
    return seen(l, no);
}

/* "Ethos-U PMU Events:[A, B, C]": the counter names, in counter order. */
static int pmu_events(etp_device_log *l, const char *p, uint32_t no, etp_error *err)
{
    const char *end = strchr(p, ']');
    if (!end)
        return etp_ls_bad(err, l->path, no, "Ethos-U PMU event list without ']'");
    for (uint32_t i = 0; i < l->arm.pmu_event_count; i++)
        free(l->arm.pmu_events[i]);
    l->arm.pmu_event_count = 0;
    while (p < end && l->arm.pmu_event_count < ETP_DL_MAX_PMU) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *s = p;
        while (p < end && *p != ',')
            p++;
        const char *e = p;
        while (e > s && e[-1] == ' ')
            e--;
        if (e == s)
            continue;
        char *name = etp_strndup(s, (size_t)(e - s));
        if (!name)
            return etp_ls_oom(err, l->path);
        l->arm.pmu_events[l->arm.pmu_event_count++] = name;
    }
    /* The event names say which NPU it was (Ethos-U85 counts SRAM/EXT
     * traffic; U55/U65 count AXI beats). */
    l->arm.npu_type = NULL;
    for (uint32_t i = 0; i < l->arm.pmu_event_count; i++) {
        if (!strncmp(l->arm.pmu_events[i], "SRAM_", 5) || !strncmp(l->arm.pmu_events[i], "EXT_", 4) ||
            !strcmp(l->arm.pmu_events[i], "MAC_ACTIVE") || !strcmp(l->arm.pmu_events[i], "WD_ACTIVE"))
            l->arm.npu_type = "Ethos-U85";
        else if (!strncmp(l->arm.pmu_events[i], "AXI", 3) && !l->arm.npu_type)
            l->arm.npu_type = "Ethos-U55 or U65";
    }
    return seen(l, no);
}

static int planned(etp_device_log *l, const char *p, uint32_t no, etp_error *err)
{
    uint64_t id, bytes;
    if (etp_ls_u64(&p, &id) || etp_ls_lit(&p, ", size") || etp_ls_u64(&p, &bytes))
        return etp_ls_bad(err, l->path, no, "unreadable planned buffer");
    if (id >= MAX_MEM_ID)
        return etp_ls_bad(err, l->path, no, "planned buffer mem_id out of range");
    if (id >= l->arm.planned_count) {
        uint64_t *nb = realloc(l->arm.planned_bytes, (size_t)(id + 1) * sizeof *nb);
        if (!nb)
            return etp_ls_oom(err, l->path);
        memset(nb + l->arm.planned_count, 0, (size_t)(id + 1 - l->arm.planned_count) * sizeof *nb);
        l->arm.planned_bytes = nb;
        l->arm.planned_count = (uint32_t)id + 1;
    }
    l->arm.planned_bytes[id] = bytes;
    return seen(l, no);
}

/* "Inference CPU ratio: 90.00 %" or "?.?? %" (no cycles measured). */
static int ratio(etp_device_log *l, const char *p, uint32_t no, double *v, int *has, etp_error *err)
{
    const char *q = p;
    if (!etp_ls_lit(&q, "?.??"))
        return seen(l, no);
    if (etp_ls_double(&p, v) || etp_ls_lit(&p, "%"))
        return etp_ls_bad(err, l->path, no, "unreadable inference ratio");
    *has = 1;
    return seen(l, no);
}

/* Where a message may start: after each "] " (the ET_LOG prefix, maybe
 * behind a terminal's own bracketed prefix) or at the line's start. With no
 * "] " at all a key may sit anywhere (an unknown prefix). Matching at these
 * few places instead of searching the line for each key is what keeps the
 * reader fast on long consoles. */
typedef struct starts {
    const char *line;
    const char *at[4];
    int n, anywhere;
} starts;

static void find_starts(const char *line, starts *m)
{
    m->line = line;
    m->n = 0;
    m->at[m->n++] = line;
    for (const char *p = strstr(line, "] "); p && m->n < 4; p = strstr(p + 2, "] "))
        m->at[m->n++] = p + 2;
    m->anywhere = m->n == 1;
}

static const char *key(const starts *m, const char *k)
{
    if (m->anywhere)
        return etp_ls_after(m->line, k);
    size_t n = strlen(k);
    for (int i = 0; i < m->n; i++)
        if (!strncmp(m->at[i], k, n))
            return m->at[i] + n;
    return NULL;
}

int etp_dl_arm_line(etp_device_log *l, const char *line, uint32_t no, etp_error *err)
{
    etp_dl_arm *a = &l->arm;
    const char *p;
    starts st;
    find_starts(line, &st);
    if ((p = key(&st, "PTE Model data loaded. Size: ")))
        return counter(l, p, no, &a->pte_size, &a->has_pte_size, "unreadable program size", err);
    if ((p = key(&st, "Setup Method allocator pool. Size: ")))
        return counter(l, p, no, &a->method_pool_bytes, &a->has_pool, "unreadable allocator pool size", err);
    if ((p = key(&st, "Setting up planned buffer with mem_id=")))
        return planned(l, p, no, err);
    if ((p = key(&st, "Starting running ")) && strstr(p, " inferences"))
        return counter(l, p, no, &a->inferences_started, NULL, "unreadable inference count", err);
    if ((p = strstr(line, " inferences finished"))) {
        const char *s = p;
        while (s > line && s[-1] >= '0' && s[-1] <= '9')
            s--;
        if (s == p)
            return 0;
        return counter(l, s, no, &a->inferences_finished, NULL, "unreadable inference count", err);
    }
    if ((p = key(&st, "NPU Inferences :")))
        return counter(l, p, no, &a->npu_inferences, &a->has_perf, "unreadable NPU inference count", err);
    if ((p = key(&st, "NPU delegations:")))
        return counter(l, p, no, &a->npu_delegations, &a->has_perf, "unreadable NPU delegation count", err);
    if ((p = key(&st, "ethos-u : cycle_cnt :")))
        return counter(l, p, no, &a->ethosu_cycles, &a->has_ethosu_cycles, "unreadable ethos-u cycle count", err);
    if ((p = key(&st, "Operator(s) total:")))
        return counter(l, p, no, &a->operator_cycles, &a->has_operator_cycles, "unreadable operator cycles", err);
    if ((p = key(&st, "Inference runtime:")) && strstr(p, "CPU cycles"))
        return counter(l, p, no, &a->inference_cycles, &a->has_inference_cycles, "unreadable inference cycles", err);
    if ((p = key(&st, "Inference CPU ratio:")))
        return ratio(l, p, no, &a->cpu_ratio, &a->has_cpu_ratio, err);
    if ((p = key(&st, "Inference NPU ratio:")))
        return ratio(l, p, no, &a->npu_ratio, &a->has_npu_ratio, err);
    if ((p = key(&st, "cpu_wait_for_npu_cntr :")))
        return counter(l, p, no, &a->wait_cycles, &a->has_wait_cycles, "unreadable cpu_wait_for_npu_cntr", err);
    if ((p = key(&st, "ethosu_pmu_cycle_cntr :")))
        return counter(l, p, no, &a->pmu_cycles, &a->has_pmu_cycles, "unreadable ethosu_pmu_cycle_cntr", err);
    if ((p = key(&st, "ethosu_pmu_cntr"))) {
        uint64_t i, v;
        if (etp_ls_u64(&p, &i) || etp_ls_lit(&p, ":") || etp_ls_u64_or_wrapped(&p, &v))
            return etp_ls_bad(err, l->path, no, "unreadable ethosu_pmu_cntr line");
        if (i >= ETP_DL_MAX_PMU)
            return etp_ls_bad(err, l->path, no, "ethosu_pmu_cntr index out of range");
        a->pmu[i] = v;
        if (i + 1 > a->pmu_count)
            a->pmu_count = (uint32_t)i + 1;
        return seen(l, no);
    }
    if ((p = key(&st, "Ethos-U PMU Events:[")))
        return pmu_events(l, p, no, err);
    if ((p = key(&st, "method_allocator_used:"))) {
        if (etp_ls_u64(&p, &a->alloc_used) || etp_ls_lit(&p, "/") || etp_ls_u64(&p, &a->alloc_size) ||
            etp_ls_lit(&p, "free:") || etp_ls_u64(&p, &a->alloc_free))
            return etp_ls_bad(err, l->path, no, "unreadable method_allocator_used line");
        a->has_alloc_used = 1;
        return seen(l, no);
    }
    if ((p = key(&st, "method_allocator_planned:")))
        return counter(l, p, no, &a->alloc_planned, &a->has_alloc_planned, "unreadable method_allocator_planned", err);
    if ((p = key(&st, "Ethos-U Linux delegate cycle counter:"))) {
        uint64_t v;
        if (etp_ls_u64(&p, &v))
            return etp_ls_bad(err, l->path, no, "unreadable Ethos-U Linux delegate cycle counter");
        if (a->linux_cycle_count >= ETP_DL_MAX_REPEAT)
            return etp_ls_bad(err, l->path, no, "too many cycle counter lines");
        a->linux_cycle_count++;
        a->linux_cycles_sum += v;
        return seen(l, no);
    }
    if (strstr(line, "Program complete, exiting.")) {
        a->program_complete = 1;
        return seen(l, no);
    }
    /* Lines in the Arm runner's own prefix form ("I [executorch:file:line func()] ")
     * mark the log as the Arm runner's even when the message is not read. */
    if (strstr(line, "[executorch:arm_"))
        seen(l, no);
    return 0;
}
