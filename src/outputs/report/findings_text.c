/* findings_text.c - the terminal's "Findings" block: one line per finding
 * with its numbers, the entities it names and the next step. */
#include "outputs/report/analysis_report.h"

void etp_findings_write_text(const etp_finding_list *l, const etp_text_style *st, FILE *fp)
{
    if (!l->count)
        return;
    uint32_t held = etp_finding_list_count(l, ETP_FINDING_WITHHELD);
    fprintf(fp, "\nFindings (%u", l->count - held);
    if (held)
        fprintf(fp, "; %u withheld", held);
    fprintf(fp, "; thresholds: --list-finding-codes):\n");
    for (uint32_t i = 0; i < l->count; i++) {
        const etp_finding *f = &l->items[i];
        int warn = f->rule->severity == ETP_SEV_WARNING && f->status == ETP_FINDING_FIRED;
        const char *col = f->status == ETP_FINDING_WITHHELD ? "\033[2m" : warn ? "\033[33m" : "\033[36m";
        fprintf(fp, "  %s%-8s %s%s\n", st->color ? col : "",
                f->status == ETP_FINDING_WITHHELD ? "withheld" : etp_severity_name(f->rule->severity),
                f->rule->code, st->color ? "\033[0m" : "");
        fprintf(fp, "           %s\n", f->message);
        if (f->entity_count) {
            fprintf(fp, "           at");
            uint32_t shown = f->entity_count < 4 ? f->entity_count : 4;
            for (uint32_t k = 0; k < shown; k++)
                fprintf(fp, "%s %s", k ? "," : "", f->entities[k].id);
            if (shown < f->entity_count + f->entities_omitted)
                fprintf(fp, " and %u more", f->entity_count + f->entities_omitted - shown);
            fputc('\n', fp);
        }
        if (f->status == ETP_FINDING_FIRED)
            fprintf(fp, "           next: %s\n", f->rule->next_step);
    }
}
