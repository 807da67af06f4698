/* publish_operators.c - the per-entity table of a bundle: operators.csv
 * (RFC 4180, CRLF) or operators.json (schema etprof.operators). */
#include <stdlib.h>
#include <string.h>

#include "outputs/bundle/publish_internal.h"
#include "outputs/report/analysis_report.h"
#include "util/jsonw.h"

static void csv_field(etp_jw *w, const char *s)
{
    /* RFC 4180: quote when the field holds a comma, quote, CR or LF. */
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        etp_jw_raw_text(w, s, strlen(s));
        return;
    }
    etp_jw_raw_text(w, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            etp_jw_raw_text(w, "\"\"", 2);
        else
            etp_jw_raw_text(w, p, 1);
    }
    etp_jw_raw_text(w, "\"", 1);
}

static void csv_sep(etp_jw *w) { etp_jw_raw_text(w, ",", 1); }

static void csv_num(etp_jw *w, double v, int present)
{
    if (!present)
        return;
    char b[40];
    int n = etp_format_double(b, sizeof b, v);
    etp_jw_raw_text(w, b, (size_t)n);
}

static void csv_uint(etp_jw *w, uint64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    etp_jw_raw_text(w, b, (size_t)n);
}

static void csv_handles(etp_jw *w, const int64_t *h, uint32_t n)
{
    char buf[32];
    for (uint32_t i = 0; i < n; i++) {
        int l = snprintf(buf, sizeof buf, "%s%lld", i ? " " : "", (long long)h[i]);
        etp_jw_raw_text(w, buf, (size_t)l);
    }
}

/* Several ids in one field, separated by spaces, quoted as one field: quoting
 * each id separately would put quotes inside an unquoted field. */
static void csv_list(etp_jw *w, char *const *items, uint32_t n)
{
    size_t total = 1;
    for (uint32_t k = 0; k < n; k++)
        total += strlen(items[k]) + 1;
    char *joined = malloc(total);
    if (!joined) {
        w->failed = 1;
        return;
    }
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) {
        size_t l = strlen(items[k]);
        if (k)
            joined[at++] = ' ';
        memcpy(joined + at, items[k], l);
        at += l;
    }
    joined[at] = 0;
    csv_field(w, joined);
    free(joined);
}

char *etp_operators_csv(const etp_analysis *a, size_t *len)
{
    const char *u = etp_unit_name(a->target_unit);
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    char hdr[800];
    snprintf(hdr, sizeof hdr,
             "entity_id,kind,name,op_type,backend,chain,instruction,instruction_kind,debug_handles,"
             "timing_source,executions,events,avg_%s,p10_%s,p50_%s,p90_%s,min_%s,max_%s,additive,"
             "shared,co_attributed,unresolved_debug_handles,kernel_avg_%s,dispatch_avg_%s,"
             "module_path\r\n",
             u, u, u, u, u, u, u, u);
    etp_jw_raw_text(&w, hdr, strlen(hdr));
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        int timed = e->time.executions > 0;
        csv_field(&w, e->id);
        csv_sep(&w);
        csv_field(&w, etp_entity_kind_name(e->kind));
        csv_sep(&w);
        csv_field(&w, e->name);
        csv_sep(&w);
        csv_field(&w, e->op_type);
        csv_sep(&w);
        csv_field(&w, e->backend);
        csv_sep(&w);
        if (e->kind != ETP_ENTITY_OPERATOR) {
            csv_uint(&w, (uint64_t)e->chain);
            csv_sep(&w);
            csv_uint(&w, (uint64_t)e->instruction);
            csv_sep(&w);
            csv_field(&w, e->instr_kind == ETP_INSTR_NONE ? NULL : etp_instr_kind_name(e->instr_kind));
        } else {
            csv_sep(&w);
            csv_sep(&w);
        }
        csv_sep(&w);
        csv_handles(&w, e->handles, e->handle_count);
        csv_sep(&w);
        csv_field(&w, timed ? etp_timing_source_name(e->source) : NULL);
        csv_sep(&w);
        csv_uint(&w, e->time.executions);
        csv_sep(&w);
        csv_uint(&w, e->time.events);
        const etp_stats *s = &e->time.stats;
        double v[6] = {s->avg, s->p10, s->p50, s->p90, s->min, s->max};
        for (int k = 0; k < 6; k++) {
            csv_sep(&w);
            csv_num(&w, v[k], timed);
        }
        csv_sep(&w);
        if (timed)
            csv_field(&w, e->additive ? "true" : "false");
        csv_sep(&w);
        if (timed)
            csv_field(&w, e->shared ? "true" : "false");
        csv_sep(&w);
        csv_list(&w, e->co_attributed, e->co_count);
        csv_sep(&w);
        csv_handles(&w, e->unresolved, e->unresolved_count);
        csv_sep(&w);
        csv_num(&w, e->kernel.stats.avg, e->has_kernel && e->kernel.executions);
        csv_sep(&w);
        csv_num(&w, e->dispatch.avg, e->has_kernel && e->dispatch.n);
        csv_sep(&w);
        csv_field(&w, e->module_path);
        etp_jw_raw_text(&w, "\r\n", 2);
    }
    return etp_jw_take(&w, len);
}

char *etp_operators_json(const etp_analysis *a, size_t *len)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_OPERATORS_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "unit", etp_unit_name(a->target_unit));
    etp_jw_kstr(&w, "method", a->method);
    etp_jw_kuint(&w, "executions", a->execution_count);
    etp_jw_key(&w, "entities");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->entity_count; i++)
        etp_json_entity(&w, a, &a->entities[i]);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, len);
}
