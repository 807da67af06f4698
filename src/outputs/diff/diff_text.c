/* diff_text.c - the terminal table of a diff: who is compared with whom, at
 * which level and why, the warnings, every model-level figure, then the
 * entity rows that changed most, the findings that appeared or disappeared. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/diff_io.h"

static void num(FILE *fp, int has, double v, int width)
{
    if (has)
        fprintf(fp, " %*.6g", width, v);
    else
        fprintf(fp, " %*s", width, "-");
}

static void side_line(FILE *fp, const char *which, const etp_diff_identity *id)
{
    fprintf(fp, "  %-4s %s (%s", which, id->label ? id->label : "?", id->origin ? id->origin : "?");
    if (id->program_sha256)
        fprintf(fp, ", program %.12s", id->program_sha256);
    fprintf(fp, ", method %s, %u executions, times in %s", id->method ? id->method : "?",
            id->executions, etp_unit_name(id->time_unit));
    if (id->has_tick_unit)
        fprintf(fp, ", ticks %s%s", etp_unit_name(id->tick_unit), id->ticks_assumed ? " (assumed)" : "");
    fprintf(fp, ", %s)\n", id->validity ? id->validity : "validity unknown");
}

/* ratio, interval and verdict of @p r in a fixed width */
static void ratio_cells(FILE *fp, const etp_diff_row *r, int color)
{
    if (r->has_ratio)
        fprintf(fp, " %8.3fx", r->ratio);
    else
        fprintf(fp, " %9s", "-");
    char ci[48] = "-";
    if (r->has_ci)
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->ci_low, r->ci_high);
    fprintf(fp, " %-19s", ci);
    const char *verdict = !r->has_ci ? (r->has_ratio ? "no samples" : "")
                          : !r->significant ? "n.s."
                          : r->ratio > 1    ? "slower"
                                            : "faster";
    const char *on = "", *off = "";
    if (color && r->has_ci && r->significant) {
        on = r->ratio > 1 ? "\033[31m" : "\033[32m";
        off = "\033[0m";
    }
    fprintf(fp, " %s%-10s%s", on, verdict, off);
}

static void share_cells(FILE *fp, const etp_diff_row *r)
{
    char b[16] = "-", n[16] = "-";
    if (r->base.has_share)
        snprintf(b, sizeof b, "%.1f%%", 100 * r->base.share);
    if (r->new_.has_share)
        snprintf(n, sizeof n, "%.1f%%", 100 * r->new_.share);
    fprintf(fp, " %7s %7s", b, n);
}

static void row_line(FILE *fp, const etp_diff_row *r, int color, int with_kind)
{
    char label[80];
    int shared = r->base.shared || r->new_.shared;
    snprintf(label, sizeof label, "%s%s", r->key, shared ? " *" : "");
    if (with_kind)
        fprintf(fp, "  %-14s %-36.36s", etp_diff_kind_name(r->kind), label);
    else
        fprintf(fp, "  %-51.51s", label);
    num(fp, r->base.available, r->base.value, 11);
    num(fp, r->new_.available, r->new_.value, 11);
    num(fp, r->has_delta, r->delta, 11);
    ratio_cells(fp, r, color);
    share_cells(fp, r);
    if (r->unit && r->kind == ETP_DIFF_MODEL && r->basis && strcmp(r->basis, "per execution"))
        fprintf(fp, "  (%s, %s)", r->unit, r->basis);
    else if (r->note && (!r->matched || !r->has_delta || !r->has_ratio))
        fprintf(fp, "  (%s)", r->note);
    fputc('\n', fp);
}

/* Entities of a finding the terminal names (a fragmented program's finding
 * may name hundreds). */
#define TEXT_FINDING_ENTITIES 8

/* The findings that appeared, disappeared or were kept, with the entities
 * either side names (+ only the new run's, - only the base run's). */
static void findings(FILE *fp, const etp_diff *d)
{
    if (!d->findings_compared) {
        fprintf(fp, "\n  Findings: not compared (%s records none: written before etprof had "
                    "findings)\n",
                d->base.has_findings ? "the new side" : "the base side");
        return;
    }
    uint32_t n[3] = {0, 0, 0};
    for (uint32_t i = 0; i < d->finding_count; i++)
        n[d->findings[i].change]++;
    fprintf(fp, "\n  Findings: %u appeared, %u disappeared, %u kept\n", n[ETP_DIFF_FINDING_APPEARED],
            n[ETP_DIFF_FINDING_DISAPPEARED], n[ETP_DIFF_FINDING_KEPT]);
    for (uint32_t i = 0; i < d->finding_count; i++) {
        const etp_diff_finding *f = &d->findings[i];
        fprintf(fp, "  %-11s %s (%s; base %s, new %s)", etp_diff_finding_change_name(f->change), f->code,
                f->severity ? f->severity : "?", f->base_status ? f->base_status : "-",
                f->new_status ? f->new_status : "-");
        const char *msg = f->new_message ? f->new_message : f->base_message;
        if (msg)
            fprintf(fp, ": %s", msg);
        fputc('\n', fp);
        if (!f->entity_count)
            continue;
        fputs("              entities:", fp);
        for (uint32_t k = 0; k < f->entity_count && k < TEXT_FINDING_ENTITIES; k++) {
            uint8_t in = f->entity_in[k];
            fprintf(fp, " %s%s", in == ETP_DIFF_IN_NEW ? "+" : in == ETP_DIFF_IN_BASE ? "-" : "", f->entity_ids[k]);
        }
        if (f->entity_count > TEXT_FINDING_ENTITIES)
            fprintf(fp, " ... and %u more (--json lists them)", f->entity_count - TEXT_FINDING_ENTITIES);
        fputc('\n', fp);
    }
    if (d->finding_count)
        fputs("  (entities: + named in the new run only, - in the base run only)\n", fp);
}

static void header(FILE *fp, const char *title, int with_kind)
{
    if (with_kind)
        fprintf(fp, "\n  %-14s %-36s", "kind", title);
    else
        fprintf(fp, "\n  %-51s", title);
    fprintf(fp, " %11s %11s %11s %9s %-19s %-10s %7s %7s\n", "base", "new", "delta", "ratio",
            "interval", "verdict", "share b", "share n");
}

etp_status etp_diff_write_text(const etp_diff *d, const etp_diff_text_style *st, FILE *fp,
                               etp_error *err)
{
    fprintf(fp, "etprof diff (%s of each row, in %s; ratio = new / base, > 1 is slower)\n",
            d->statistic == ETP_DIFF_STAT_AVG ? "mean over executions" : "median over executions",
            d->unit ? d->unit : "?");
    side_line(fp, "base", &d->base);
    side_line(fp, "new", &d->new_);
    fprintf(fp, "  matched at level: %s (%s)\n", d->level_name, d->level_reason);
    if (d->resamples)
        fprintf(fp, "  intervals: %.0f%% percentile bootstrap of the %s ratio, %u resamples, seed "
                    "%llu (only where both sides have per-execution samples)\n",
                100 * d->confidence, d->statistic_name, d->resamples, (unsigned long long)d->seed);
    for (uint32_t i = 0; i < d->warning_count; i++)
        fprintf(fp, "  warning %s: %s\n", d->warnings[i].code, d->warnings[i].message);
    header(fp, "Model", 0);
    for (uint32_t i = 0; i < d->row_count; i++)
        if (d->rows[i].kind == ETP_DIFF_MODEL)
            row_line(fp, &d->rows[i], st->color, 0);
    int failed = 0;
    uint32_t n = 0;
    uint32_t *order = etp_diff_ranked(d, st->rank, &n, &failed);
    if (failed)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    if (n) {
        uint32_t show = st->top && st->top < n ? st->top : n;
        char title[96];
        static const char *const by[] = {"|change|", "change", "ratio", "base value", "new value"};
        snprintf(title, sizeof title, "top %u of %u by %s", show, n, by[st->rank]);
        header(fp, title, 1);
        for (uint32_t i = 0; i < show; i++)
            row_line(fp, &d->rows[order[i]], st->color, 1);
    }
    free(order);
    findings(fp, d);
    fprintf(fp, "\n  * shared timing (co-attributed, non-additive): never summed; shares of "
                "Method::execute use each side's mean\n");
    if (fflush(fp) || ferror(fp))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "write error: %s", strerror(errno));
    return ETP_OK;
}
