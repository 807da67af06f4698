/* unit_evidence.c - an ETDump does not record its tick unit; a runner that
 * timed the same iterations with a wall clock says which unit it is. Each
 * hypothesis (ns, us, ms, s, and cycles at --cpu-hz) turns the average
 * Method::execute into milliseconds; a wall time can only be a little
 * shorter than the work measured inside it (clock granularity) and, around
 * one Method::execute, not vastly longer. Units a factor of 1000 apart
 * cannot both fit. */
#include <stdio.h>
#include <string.h>

#include "analysis/attribution/analysis_internal.h"
#include "etprof/runner_log.h"

/* wall / execute below this: the wall clock saw less time than the ETDump. */
#define FIT_LOW 0.9
/* wall / execute above this: far more than one Method::execute (only for
 * evidence that times the execution alone). */
#define FIT_HIGH 100.0
#define MAX_EVIDENCE 16

typedef struct hypothesis {
    const char *label;
    etp_unit unit;
    double ticks_per_ms;
} hypothesis;

static int fits(double ratio, const etp_wall_evidence *ev)
{
    return ratio >= FIT_LOW && (ev->includes_other_work || ratio <= FIT_HIGH);
}

/* The hypotheses to test: the time units, and cycles at the given clock. */
static uint32_t hypotheses(double cpu_hz, hypothesis *h, char *cycles_label, size_t cap)
{
    uint32_t n = 0;
    for (unsigned u = 0; u < etp_unit_count(); u++)
        if (etp_unit_is_tick((etp_unit)u) && etp_unit_dim((etp_unit)u) == ETP_DIM_TIME)
            h[n++] = (hypothesis){etp_unit_name((etp_unit)u), (etp_unit)u,
                                  etp_unit_divisor((etp_unit)u, ETP_UNIT_MS)};
    if (cpu_hz > 0) {
        snprintf(cycles_label, cap, "cycles at %g Hz", cpu_hz);
        h[n++] = (hypothesis){cycles_label, ETP_UNIT_CYCLES, etp_unit_divisor_hz(cpu_hz, ETP_UNIT_MS)};
    }
    return n;
}

/* The wall times to test against: the runner log's iterations, then the
 * caller's. */
static uint32_t gather(const etp_abuild *b, etp_wall_evidence *ev)
{
    uint32_t n = 0;
    const etp_runner_log *log = b->opt->runner_log;
    if (log && log->iteration_count) {
        double s = 0;
        for (uint32_t i = 0; i < log->iteration_count; i++)
            s += log->iteration_ms[i];
        ev[n++] = (etp_wall_evidence){"runner log", log->path, log->iteration_count,
                                      s / log->iteration_count, 0};
    } else if (log && log->has_total && log->total_runs) {
        /* Runners before 1.3 print only the total over all runs; it may
         * include work between the executions, so it only bounds them. */
        ev[n++] = (etp_wall_evidence){"runner log (total)", log->path, log->total_runs,
                                      log->total_ms / log->total_runs, 1};
    }
    for (uint32_t i = 0; i < b->opt->wall_evidence_count && n < MAX_EVIDENCE; i++)
        if (b->opt->wall_evidence[i].iterations && b->opt->wall_evidence[i].ms_per_iteration >= 0)
            ev[n++] = b->opt->wall_evidence[i];
    return n;
}

static const char *unit_label(const etp_analysis *a, const char *cycles_label)
{
    return a->source_unit == ETP_UNIT_CYCLES ? cycles_label : etp_unit_name(a->source_unit);
}

etp_status etp_check_tick_unit(etp_abuild *b)
{
    etp_analysis *a = b->a;
    etp_tick_evidence *t = &a->tick_unit;
    memset(t, 0, sizeof *t);
    const char *how = b->opt->source_unit_given ? "given" : "assumed";
    etp_wall_evidence ev[MAX_EVIDENCE];
    uint32_t nev = gather(b, ev);
    double ticks = b->all_execute_count ? b->all_execute_ticks / b->all_execute_count : 0;
    if (!nev || !(ticks > 0)) {
        t->assumed = !b->opt->source_unit_given;
        if (t->assumed &&
            etp_issue_add(&a->issues, "units.assumed", NULL,
                          "ticks were read as nanoseconds (the default POSIX clock); %s",
                          b->opt->runner_log ? "the runner log has no iteration times to test "
                                               "them against"
                                             : "no wall times to test them against (--log)"))
            return etp_abuild_oom(b);
        return ETP_OK;
    }
    hypothesis h[8];
    char cyc[64];
    uint32_t nh = hypotheses(a->source_unit == ETP_UNIT_CYCLES ? a->cpu_hz : 0, h, cyc, sizeof cyc);
    int uncheckable = a->source_unit == ETP_UNIT_CYCLES && !(a->cpu_hz > 0);
    /* The first evidence that contradicts the unit used decides; else the first. */
    uint32_t pick = 0;
    int used_fits_all = 1;
    for (uint32_t e = 0; e < nev && !uncheckable; e++)
        for (uint32_t k = 0; k < nh; k++)
            if (h[k].unit == a->source_unit) {
                double r = ev[e].ms_per_iteration / (ticks / h[k].ticks_per_ms);
                if (!fits(r, &ev[e]) && used_fits_all) {
                    used_fits_all = 0;
                    pick = e;
                }
            }
    const etp_wall_evidence *w = &ev[pick];
    t->source = w->source;
    t->path = w->path;
    t->iterations = w->iterations;
    t->executions = b->all_execute_count;
    t->wall_ms = w->ms_per_iteration;
    t->execute_ticks = ticks;
    t->implied_hz = w->ms_per_iteration > 0 ? ticks / (w->ms_per_iteration / etp_unit_per_base(ETP_UNIT_MS)) : 0;
    size_t fl = 0;
    double used_ratio = 0, used_exec_ms = 0;
    for (uint32_t k = 0; k < nh; k++) {
        double exec_ms = ticks / h[k].ticks_per_ms, r = w->ms_per_iteration / exec_ms;
        if (h[k].unit == a->source_unit && !uncheckable) {
            used_ratio = r;
            used_exec_ms = exec_ms;
        }
        if (fits(r, w) && fl + strlen(h[k].label) + 3 < sizeof t->fits)
            fl += (size_t)snprintf(t->fits + fl, sizeof t->fits - fl, "%s%s", fl ? ", " : "", h[k].label);
    }
    t->ratio = used_ratio;
    /* Decisive only when no unit of another scale (10x or more apart) fits
     * too: a wall time that only bounds the execution from below fits every
     * unit above the true one. */
    double used_tpm = 0;
    for (uint32_t k = 0; k < nh; k++)
        if (h[k].unit == a->source_unit)
            used_tpm = h[k].ticks_per_ms;
    int ambiguous = 0;
    for (uint32_t k = 0; k < nh && used_tpm > 0; k++) {
        double r = w->ms_per_iteration / (ticks / h[k].ticks_per_ms);
        double apart = h[k].ticks_per_ms / used_tpm;
        if (fits(r, w) && (apart >= 10 || apart <= 0.1))
            ambiguous = 1;
    }
    const char *src = w->path ? w->path : w->source;
    const char *used = unit_label(a, cyc);
    int bad;
    if (uncheckable) {
        t->check = ETP_UNIT_UNCHECKABLE;
        bad = etp_issue_add(&a->issues, "units.unchecked", NULL,
                            "ticks %s as cycles cannot be tested without --cpu-hz: %s's %.6g ms per "
                            "iteration against %.6g ticks per Method::execute imply a %.4g MHz clock%s%s",
                            how, src, w->ms_per_iteration, ticks, t->implied_hz / 1e6,
                            t->fits[0] ? "; the wall time also fits ticks in " : "", t->fits);
    } else if (fits(used_ratio, w) && ambiguous) {
        /* Consistent, but so are other units: nothing learnt. */
        t->check = ETP_UNIT_UNTESTED;
        t->assumed = !b->opt->source_unit_given;
        bad = t->assumed &&
              etp_issue_add(&a->issues, "units.assumed", NULL,
                            "ticks were read as nanoseconds (the default POSIX clock); %s's %.6g ms "
                            "per iteration is consistent with ticks in %s, so it cannot tell",
                            src, w->ms_per_iteration, t->fits);
    } else if (fits(used_ratio, w)) {
        t->check = ETP_UNIT_CONFIRMED;
        bad = etp_issue_add(&a->issues, "units.confirmed", NULL,
                            "ticks in %s (%s) confirmed by %s: %.6g ms wall time per iteration (%u) "
                            "against %.6g ms Method::execute (%u executions), wall / execute = %.3g",
                            used, how, src, w->ms_per_iteration, w->iterations, used_exec_ms,
                            t->executions, used_ratio);
    } else if (!t->fits[0] && used_ratio < FIT_LOW) {
        t->check = ETP_UNIT_CONTRADICTED;
        bad = etp_issue_add(&a->issues, "runner_log.wall_shorter_than_execute", NULL,
                            "%s reports %.6g ms wall time per iteration, %.3g times shorter than "
                            "the ETDump's %.6g ms Method::execute (ticks in %s); no tick unit "
                            "reconciles them",
                            src, w->ms_per_iteration, used_ratio > 0 ? 1 / used_ratio : 0,
                            used_exec_ms, used);
    } else {
        t->check = ETP_UNIT_CONTRADICTED;
        bad = etp_issue_add(&a->issues, "units.contradicted", NULL,
                            "ticks %s as %s make Method::execute %.6g ms against %s's %.6g ms wall "
                            "time per iteration (wall / execute = %.3g); %s%s",
                            how, used, used_exec_ms, src, w->ms_per_iteration, used_ratio,
                            t->fits[0] ? "the wall time fits ticks in " : "no tick unit fits it",
                            t->fits);
    }
    return bad ? etp_abuild_oom(b) : ETP_OK;
}
