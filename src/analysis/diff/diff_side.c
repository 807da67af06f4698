/* diff_side.c - a run as the diff sees it: an identity and entries, every
 * one copied in, indexed by (kind, id). */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_internal.h"
#include "util/str.h"

uint64_t etp_diff_key_hash(etp_diff_kind kind, const char *id)
{
    return etp_hash_bytes(id, strlen(id), 0x9e3779b97f4a7c15ull + (uint64_t)kind);
}

/* A copy of @p s (NULL stays NULL); *bad set when the copy fails. */
static char *dup_opt(const char *s, int *bad)
{
    if (!s)
        return NULL;
    char *c = etp_strdup(s);
    if (!c)
        *bad = 1;
    return c;
}

static void free_identity(etp_diff_identity *id)
{
    free((char *)id->label);
    free((char *)id->origin);
    free((char *)id->program_sha256);
    free((char *)id->etrecord_sha256);
    free((char *)id->method);
    free((char *)id->status);
    free((char *)id->validity);
}

static void free_entry(etp_diff_entry *e)
{
    free((char *)e->id);
    free((char *)e->name);
    free((char *)e->op_type);
    free((char *)e->backend);
    free((char *)e->unit);
    free((char *)e->basis);
    free((char *)e->reason);
    free((double *)e->samples);
}

etp_status etp_diff_side_new(const etp_diff_identity *id, etp_diff_side **out, etp_error *err)
{
    *out = NULL;
    etp_diff_side *s = calloc(1, sizeof *s);
    if (!s)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    int bad = 0;
    s->id = *id;
    s->id.label = dup_opt(id->label, &bad);
    s->id.origin = dup_opt(id->origin, &bad);
    s->id.program_sha256 = dup_opt(id->program_sha256, &bad);
    s->id.etrecord_sha256 = dup_opt(id->etrecord_sha256, &bad);
    s->id.method = dup_opt(id->method, &bad);
    s->id.status = dup_opt(id->status, &bad);
    s->id.validity = dup_opt(id->validity, &bad);
    etp_hm_init(&s->index);
    if (bad) {
        etp_diff_side_free(s);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    *out = s;
    return ETP_OK;
}

const etp_diff_entry *etp_diff_side_lookup(const etp_diff_side *s, etp_diff_kind kind,
                                           const char *id)
{
    size_t cur = 0;
    uint32_t v;
    uint64_t h = etp_diff_key_hash(kind, id);
    while (etp_hm_next(&s->index, h, &cur, &v))
        if (s->ents[v].kind == kind && !strcmp(s->ents[v].id, id))
            return &s->ents[v];
    return NULL;
}

etp_status etp_diff_side_add(etp_diff_side *s, const etp_diff_entry *e, etp_error *err)
{
    if (!e->id || !*e->id)
        return etp_error_set(err, ETP_E_USAGE, s->id.label, ETP_NO_OFFSET, "a diff entry without an id");
    if (e->kind == ETP_DIFF_OP_TYPE || (unsigned)e->kind > ETP_DIFF_OP_TYPE)
        return etp_error_set(err, ETP_E_USAGE, s->id.label, ETP_NO_OFFSET,
                             "entry '%s': not a kind a side holds", e->id);
    if (etp_diff_side_lookup(s, e->kind, e->id))
        return etp_error_set(err, ETP_E_USAGE, s->id.label, ETP_NO_OFFSET,
                             "%s '%s' given twice", etp_diff_kind_name(e->kind), e->id);
    if (s->count == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 64;
        etp_diff_entry *ne = realloc(s->ents, (size_t)nc * sizeof *ne);
        if (!ne)
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        s->ents = ne;
        s->cap = nc;
    }
    etp_diff_entry *d = &s->ents[s->count];
    int bad = 0;
    *d = *e;
    d->id = dup_opt(e->id, &bad);
    d->name = dup_opt(e->name, &bad);
    d->op_type = dup_opt(e->op_type, &bad);
    d->backend = dup_opt(e->backend, &bad);
    d->unit = dup_opt(e->unit, &bad);
    d->basis = dup_opt(e->basis, &bad);
    d->reason = dup_opt(e->reason, &bad);
    d->samples = NULL;
    d->sample_count = 0;
    if (e->samples && e->sample_count) {
        double *v = malloc((size_t)e->sample_count * sizeof *v);
        if (v) {
            memcpy(v, e->samples, (size_t)e->sample_count * sizeof *v);
            d->samples = v;
            d->sample_count = e->sample_count;
        } else
            bad = 1;
    }
    if (bad || etp_hm_put(&s->index, etp_diff_key_hash(e->kind, e->id), s->count)) {
        free_entry(d);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    s->count++;
    return ETP_OK;
}

static void free_finding(etp_diff_side_finding *f)
{
    free((char *)f->code);
    free((char *)f->severity);
    free((char *)f->status);
    free((char *)f->message);
    for (uint32_t k = 0; f->entity_ids && k < f->entity_count; k++)
        free((char *)f->entity_ids[k]);
    free((char **)f->entity_ids);
}

etp_status etp_diff_side_add_finding(etp_diff_side *s, const etp_diff_side_finding *f, etp_error *err)
{
    if (!f->code || !*f->code || !f->status || (strcmp(f->status, "fired") && strcmp(f->status, "withheld")))
        return etp_error_set(err, ETP_E_USAGE, s->id.label, ETP_NO_OFFSET,
                             "a finding needs a code and the status \"fired\" or \"withheld\"");
    if (s->find_count == s->find_cap) {
        uint32_t nc = s->find_cap ? s->find_cap * 2 : 8;
        etp_diff_side_finding *nf = realloc(s->finds, (size_t)nc * sizeof *nf);
        if (!nf)
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        s->finds = nf;
        s->find_cap = nc;
    }
    etp_diff_side_finding *d = &s->finds[s->find_count];
    int bad = 0;
    memset(d, 0, sizeof *d);
    d->code = dup_opt(f->code, &bad);
    d->severity = dup_opt(f->severity, &bad);
    d->status = dup_opt(f->status, &bad);
    d->message = dup_opt(f->message, &bad);
    char **ids = f->entity_count ? calloc(f->entity_count, sizeof *ids) : NULL;
    if (f->entity_count && !ids)
        bad = 1;
    d->entity_ids = (const char *const *)ids;
    d->entity_count = ids ? f->entity_count : 0;
    for (uint32_t k = 0; ids && k < f->entity_count; k++)
        ids[k] = dup_opt(f->entity_ids[k] ? f->entity_ids[k] : "", &bad);
    if (bad) {
        free_finding(d);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    s->find_count++;
    return ETP_OK;
}

const etp_diff_identity *etp_diff_side_identity(const etp_diff_side *s) { return &s->id; }

void etp_diff_side_free(etp_diff_side *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->count; i++)
        free_entry(&s->ents[i]);
    free(s->ents);
    for (uint32_t i = 0; i < s->find_count; i++)
        free_finding(&s->finds[i]);
    free(s->finds);
    etp_hm_free(&s->index);
    free_identity(&s->id);
    free(s);
}

const char *etp_diff_kind_name(etp_diff_kind k)
{
    switch (k) {
    case ETP_DIFF_MODEL: return "model";
    case ETP_DIFF_INSTRUCTION: return "instruction";
    case ETP_DIFF_DELEGATE_EVENT: return "delegate_event";
    case ETP_DIFF_OPERATOR: return "operator";
    case ETP_DIFF_OP_TYPE: return "op_type";
    }
    return "unknown";
}
