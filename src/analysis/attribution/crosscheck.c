/* crosscheck.c - do the inputs describe one run? Instructions of the method
 * that never ran, a runner log that names another model, method, ETDump or
 * number of iterations, and an ETDump whose timings include copying
 * intermediate outputs. Each finding is a registry issue (issue_registry.c). */
#include <stdio.h>
#include <string.h>

#include "analysis/attribution/analysis_internal.h"
#include "etprof/runner_log.h"

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Whether one file name's stem (without directory and extension) contains
 * the other's: "et_add.pte" run, "et_add_x10.pte" analysed. */
static int stems_related(const char *x, const char *y)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%s", base_name(x));
    snprintf(b, sizeof b, "%s", base_name(y));
    char *d = strrchr(a, '.'), *e = strrchr(b, '.');
    if (d && d != a)
        *d = '\0';
    if (e && e != b)
        *e = '\0';
    return a[0] && b[0] && (strstr(a, b) || strstr(b, a));
}

static int chain_has_jumps(const etp_plan *pl, int32_t chain)
{
    if (!pl || chain < 0 || (uint32_t)chain >= pl->chain_count)
        return 0;
    const etp_chain *c = &pl->chains[chain];
    for (uint32_t i = 0; i < c->instruction_count; i++)
        if (c->instructions[i].kind == ETP_INSTR_JUMP_FALSE)
            return 1;
    return 0;
}

/* Append "forward_0_3" style ids to @p buf while room is left. */
static void list_id(char *buf, size_t cap, size_t *len, uint32_t *listed, const char *id)
{
    if (*listed >= 8 || *len + strlen(id) + 8 >= cap)
        return;
    *len += (size_t)snprintf(buf + *len, cap - *len, "%s%s", *listed ? ", " : "", id);
    (*listed)++;
}

/* Instructions of the selected method with fewer executions than the
 * analysis has. Nothing to say when the ETDump has no instruction events
 * at all (method-level profiling has its own issue). */
static int check_coverage(etp_abuild *b, int *checked)
{
    etp_analysis *a = b->a;
    uint32_t n = b->nexec, never = 0, never_jump = 0, some = 0, timed = 0, total = 0;
    char nl[400] = "", sl[400] = "";
    size_t nlen = 0, slen = 0;
    uint32_t nlisted = 0, slisted = 0;
    for (size_t i = 0; i < b->ents.n; i++) {
        const etp_entity *e = &b->ents.v[i];
        if (e->kind != ETP_ENTITY_INSTRUCTION)
            continue;
        total++;
        timed += e->time.executions > 0;
    }
    *checked = timed && a->plan;
    if (!*checked)
        return 0;
    for (size_t i = 0; i < b->ents.n; i++) {
        const etp_entity *e = &b->ents.v[i];
        /* (an instruction measured as NX cycles has no runtime series by design) */
        if (e->kind != ETP_ENTITY_INSTRUCTION || e->time.executions >= n || e->source == ETP_SRC_VGF_NX)
            continue;
        if (e->time.executions == 0 && !chain_has_jumps(a->plan, e->chain)) {
            never++;
            list_id(nl, sizeof nl, &nlen, &nlisted, e->id);
        } else {
            if (e->time.executions == 0)
                never_jump++;
            some++;
            list_id(sl, sizeof sl, &slen, &slisted, e->id);
        }
    }
    a->instructions_never_ran = never + never_jump;
    a->instructions_some_executions = some - never_jump;
    int bad = 0;
    if (never)
        bad |= etp_issue_add(&a->issues, "coverage.instructions_never_ran", NULL,
                             "%u of the %u instructions of %s never ran in any of the %u executions "
                             "(%s%s)",
                             never, total, a->method, n, nl, never > nlisted ? ", ..." : "");
    if (some)
        bad |= etp_issue_add(&a->issues, "coverage.instructions_not_every_execution", NULL,
                             "%u of the %u instructions of %s ran in fewer than all %u executions "
                             "(%s%s)%s",
                             some, total, a->method, n, sl, some > slisted ? ", ..." : "",
                             never_jump ? "; the chain has conditional jumps" : "");
    return bad;
}

/* The runner's own account of the run against the ETDump and the program. */
static int check_runner_log(etp_abuild *b, int coverage_checked)
{
    etp_analysis *a = b->a;
    const etp_runner_log *log = b->opt->runner_log;
    if (!log)
        return 0;
    int bad = 0;
    if (!etp_runner_log_has_run_lines(log))
        bad |= etp_issue_add(&a->issues, "runner_log.outputs_only", NULL,
                             "%s has no load, timing or memory lines, only %u printed output%s: the "
                             "runner was built with logging compiled out",
                             log->path, log->output_count, log->output_count == 1 ? "" : "s");
    uint32_t all = a->method_executions;
    uint32_t runs = log->iteration_count ? log->iteration_count : log->has_total ? log->total_runs : 0;
    if (runs && runs != all)
        bad |= etp_issue_add(&a->issues, "runner_log.count_differs", NULL,
                             "%s reports %u iterations; the ETDump has %u executions of %s",
                             log->path, runs, all, a->method);
    if (log->etdump_name) {
        const char *dn = etp_etdump_path(a->etdump);
        if (strcmp(base_name(dn), base_name(log->etdump_name)))
            bad |= etp_issue_add(&a->issues, "runner_log.other_etdump", NULL,
                                 "%s says it wrote %s; the ETDump analysed is %s", log->path,
                                 log->etdump_name, dn);
    }
    if (log->method && a->method && strcmp(log->method, a->method))
        bad |= etp_issue_add(&a->issues, "runner_log.method_differs", NULL,
                             "%s ran method %s; the analysis is of method %s (%s)", log->path,
                             log->method, a->method, a->method_basis);
    if (log->model_file && a->program) {
        const char *pn = a->program->path;
        if (strcmp(base_name(pn), base_name(log->model_file))) {
            /* A copy under a longer or shorter name is common; a program
             * of an unrelated name, or whose instructions did not all run,
             * is probably not the one that ran. */
            int clean = a->instructions_never_ran == 0 && a->instructions_some_executions == 0 &&
                        stems_related(pn, log->model_file);
            bad |= etp_issue_add(&a->issues,
                                 clean ? "runner_log.model_renamed" : "runner_log.not_this_model",
                                 NULL, "%s loaded %s; the program analysed is %s%s", log->path,
                                 log->model_file, pn,
                                 clean && coverage_checked
                                     ? " (related names, and every instruction of it ran in every "
                                       "execution, as in a renamed copy)"
                                 : clean ? " (related names; the ETDump has no instruction events to "
                                           "compare with the program)"
                                 : a->instructions_never_ran || a->instructions_some_executions
                                     ? ", and not every instruction of it ran"
                                     : ", an unrelated name");
        }
    }
    return bad;
}

static int check_intermediate_outputs(etp_abuild *b)
{
    etp_analysis *a = b->a;
    const etp_inspect *in = a->inspect;
    uint64_t debug = 0, outputs = 0;
    for (uint32_t i = 0; i < in->block_count; i++) {
        const etp_inspect_block *blk = &in->blocks[i];
        if (!etp_abuild_block_taken(b, blk))
            continue;
        debug += blk->debug_events;
        outputs += blk->program_outputs;
    }
    if (debug <= outputs)
        return 0;
    return etp_issue_add(&a->issues, "etdump.intermediate_outputs", NULL,
                         "the executions of %s logged %llu intermediate output%s (debug events that "
                         "are not program outputs); their copies are inside the measured times",
                         a->method, (unsigned long long)(debug - outputs), debug - outputs == 1 ? "" : "s");
}

etp_status etp_crosscheck_inputs(etp_abuild *b)
{
    int checked = 0;
    int bad = check_coverage(b, &checked);
    bad |= check_runner_log(b, checked);
    bad |= check_intermediate_outputs(b);
    return bad ? etp_abuild_oom(b) : ETP_OK;
}
