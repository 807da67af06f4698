/* diff_findings.c - the findings of two runs compared by code: a code only
 * the new run has appeared, one only the base run has disappeared, one on
 * both sides was kept; with each, the entities either side's findings of
 * that code name, and on which side. */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_internal.h"

const char *etp_diff_finding_change_name(etp_diff_finding_change c)
{
    switch (c) {
    case ETP_DIFF_FINDING_APPEARED: return "appeared";
    case ETP_DIFF_FINDING_DISAPPEARED: return "disappeared";
    case ETP_DIFF_FINDING_KEPT: return "kept";
    }
    return "unknown";
}

/* What one side has of one code. */
typedef struct side_code {
    uint32_t count;
    const char *status, *message, *severity;
} side_code;

static side_code of_code(const etp_diff_side *s, const char *code)
{
    side_code r = {0, NULL, NULL, NULL};
    for (uint32_t i = 0; i < s->find_count; i++) {
        const etp_diff_side_finding *f = &s->finds[i];
        if (strcmp(f->code, code))
            continue;
        if (!r.count++) {
            r.message = f->message;
            r.severity = f->severity;
        }
        if (!r.status || !strcmp(f->status, "fired"))
            r.status = f->status;
    }
    return r;
}

/* The entities the findings of @p code name on both sides, each once. */
static int entities(const etp_diff_side *side[2], const char *code, etp_diff_finding *out, etp_diff_arena *ar)
{
    uint32_t cap = 0;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < side[k]->find_count; i++)
            if (!strcmp(side[k]->finds[i].code, code))
                cap += side[k]->finds[i].entity_count;
    const char **ids = etp_diff_own(ar, malloc(((size_t)cap + 1) * sizeof *ids));
    uint8_t *in = etp_diff_own(ar, calloc((size_t)cap + 1, 1));
    if (!ids || !in)
        return -1;
    uint32_t n = 0;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < side[k]->find_count; i++) {
            const etp_diff_side_finding *f = &side[k]->finds[i];
            if (strcmp(f->code, code))
                continue;
            for (uint32_t q = 0; q < f->entity_count; q++) {
                uint32_t at = 0; /* a few entities per finding: a linear search */
                while (at < n && strcmp(ids[at], f->entity_ids[q]))
                    at++;
                if (at == n && !(ids[n++] = etp_diff_strdup(ar, f->entity_ids[q])))
                    return -1;
                in[at] |= k ? ETP_DIFF_IN_NEW : ETP_DIFF_IN_BASE;
            }
        }
    out->entity_ids = ids;
    out->entity_in = in;
    out->entity_count = n;
    return 0;
}

static int cmp_finding(const void *x, const void *y)
{
    const etp_diff_finding *a = x, *b = y;
    if (a->change != b->change)
        return a->change == ETP_DIFF_FINDING_APPEARED     ? -1
               : b->change == ETP_DIFF_FINDING_APPEARED   ? 1
               : a->change == ETP_DIFF_FINDING_DISAPPEARED ? -1
                                                           : 1;
    return strcmp(a->code, b->code);
}

int etp_diff_compare_findings(const etp_diff_side *base, const etp_diff_side *new_side, etp_diff *d,
                              etp_diff_arena *ar)
{
    d->findings_compared = base->id.has_findings && new_side->id.has_findings;
    if (!d->findings_compared)
        return 0;
    const etp_diff_side *side[2] = {base, new_side};
    uint32_t cap = base->find_count + new_side->find_count;
    etp_diff_finding *rows = etp_diff_own(ar, calloc((size_t)cap + 1, sizeof *rows));
    if (!rows)
        return -1;
    uint32_t n = 0;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < side[k]->find_count; i++) {
            const char *code = side[k]->finds[i].code;
            uint32_t seen = 0;
            while (seen < n && strcmp(rows[seen].code, code))
                seen++;
            if (seen < n)
                continue;
            side_code b = of_code(base, code), w = of_code(new_side, code);
            etp_diff_finding *r = &rows[n++];
            r->change = !b.count ? ETP_DIFF_FINDING_APPEARED
                        : !w.count ? ETP_DIFF_FINDING_DISAPPEARED
                                   : ETP_DIFF_FINDING_KEPT;
            r->code = etp_diff_strdup(ar, code);
            r->severity = etp_diff_strdup(ar, w.severity ? w.severity : b.severity);
            r->base_count = b.count;
            r->new_count = w.count;
            r->base_status = etp_diff_strdup(ar, b.status);
            r->new_status = etp_diff_strdup(ar, w.status);
            r->base_message = etp_diff_strdup(ar, b.message);
            r->new_message = etp_diff_strdup(ar, w.message);
            if (!r->code || entities(side, code, r, ar))
                return -1;
        }
    qsort(rows, n, sizeof *rows, cmp_finding);
    d->findings = rows;
    d->finding_count = n;
    return ar->failed ? -1 : 0;
}
