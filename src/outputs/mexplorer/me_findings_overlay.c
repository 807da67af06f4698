/* me_findings_overlay.c - which findings name each node of the program and
 * source graphs, as a Model Explorer string overlay. Findings point at
 * analysis entities; an entity's id is its node's id in both graphs (the
 * instruction id, the operator's name), so the mapping is the one the
 * metric overlays use (publish_me.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/mexplorer/me_findings_overlay.h"

#define FINDING_WARN_BG "#fdae61"
#define FINDING_INFO_BG "#abd9e9"

/* A node of a graph, sorted by id for lookups. */
typedef struct node_ref {
    const char *id;
    uint32_t index;
} node_ref;

static int cmp_ref(const void *x, const void *y)
{
    return strcmp(((const node_ref *)x)->id, ((const node_ref *)y)->id);
}

static node_ref *sorted_refs(const char *const *ids, uint32_t n)
{
    node_ref *r = malloc(((size_t)n + 1) * sizeof *r);
    if (!r)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        r[i] = (node_ref){ids[i], i};
    qsort(r, n, sizeof *r, cmp_ref);
    return r;
}

static int64_t find_ref(const node_ref *r, uint32_t n, const char *id)
{
    node_ref key = {id, 0};
    const node_ref *hit = id ? bsearch(&key, r, n, sizeof *r, cmp_ref) : NULL;
    return hit ? (int64_t)hit->index : -1;
}

/* The node id of delegate event @p id: its delegate call's instruction. */
static int delegate_call_node(const etp_analysis *a, const etp_me_graph *ig, const char *id, char *buf,
                              size_t size)
{
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == ETP_ENTITY_DELEGATE_EVENT && !strcmp(e->id, id) && e->chain >= 0 && e->instruction >= 0)
            return etp_me_node_id(buf, size, ig->id, (uint32_t)e->chain, (uint32_t)e->instruction) < (int)size;
    }
    return 0;
}

/* Per node of one graph: the codes naming it, joined as they come. */
typedef struct node_codes {
    char **text;                 /* per node, NULL: none */
    int *warn;                   /* per node: a fired warning names it */
    uint32_t count;
} node_codes;

static int add_code(node_codes *nc, uint32_t node, const etp_finding *f)
{
    const char *code = f->rule->code;
    const char *mark = f->status == ETP_FINDING_WITHHELD ? " (withheld)" : "";
    char one[200];
    snprintf(one, sizeof one, "%s%s", code, mark);
    char *old = nc->text[node];
    if (old) { /* one code once per node (a finding may name a call and its events) */
        for (const char *p = old; (p = strstr(p, one)); p += strlen(one)) {
            size_t end = (size_t)(p - old) + strlen(one);
            if ((p == old || p[-1] == ' ') && (old[end] == ';' || old[end] == 0))
                return 0;
        }
    }
    size_t n = (old ? strlen(old) + 2 : 0) + strlen(one) + 1;
    char *t = malloc(n);
    if (!t)
        return -1;
    snprintf(t, n, "%s%s%s", old ? old : "", old ? "; " : "", one);
    free(old);
    nc->text[node] = t;
    if (f->status == ETP_FINDING_FIRED && f->rule->severity == ETP_SEV_WARNING)
        nc->warn[node] = 1;
    return 0;
}

static void codes_free(node_codes *nc)
{
    for (uint32_t i = 0; nc->text && i < nc->count; i++)
        free(nc->text[i]);
    free(nc->text);
    free(nc->warn);
}

/* The labels of one graph into @p o (texts taken over). */
static void emit(etp_me_findings_overlay *o, const char *graph_id, node_codes *nc, const char *const *ids)
{
    size_t first = o->text_count;
    for (uint32_t i = 0; i < nc->count; i++) {
        if (!nc->text[i])
            continue;
        o->labels[o->text_count] = (etp_me_label){ids[i], nc->text[i], nc->warn[i] ? FINDING_WARN_BG
                                                                                    : FINDING_INFO_BG};
        o->texts[o->text_count++] = nc->text[i];
        nc->text[i] = NULL;
    }
    if (o->text_count > first)
        o->ov[o->count++] = (etp_me_label_overlay){graph_id, "Findings", &o->labels[first],
                                                   o->text_count - first};
}

etp_status etp_me_findings_overlay_build(const etp_analysis *a, const etp_me_graph *ig,
                                         const etp_source_graph *sg, etp_me_findings_overlay *out,
                                         etp_error *err)
{
    memset(out, 0, sizeof *out);
    const etp_finding_list *l = &a->findings;
    uint32_t ni = ig ? ig->node_count : 0, ns = sg ? sg->node_count : 0;
    if (!l->count || (!ni && !ns))
        return ETP_OK;
    const char **iids = malloc(((size_t)ni + 1) * sizeof *iids), **sids = malloc(((size_t)ns + 1) * sizeof *sids);
    node_codes ic = {calloc((size_t)ni + 1, sizeof(char *)), calloc((size_t)ni + 1, sizeof(int)), ni};
    node_codes sc = {calloc((size_t)ns + 1, sizeof(char *)), calloc((size_t)ns + 1, sizeof(int)), ns};
    node_ref *ir = NULL, *sr = NULL;
    int bad = !iids || !sids || !ic.text || !ic.warn || !sc.text || !sc.warn;
    if (!bad) {
        for (uint32_t i = 0; i < ni; i++)
            iids[i] = ig->nodes[i].id;
        for (uint32_t i = 0; i < ns; i++)
            sids[i] = sg->nodes[i].id;
        ir = sorted_refs(iids, ni);
        sr = sorted_refs(sids, ns);
        bad = !ir || !sr;
    }
    for (uint32_t k = 0; !bad && k < l->count; k++) {
        const etp_finding *f = &l->items[k];
        for (uint32_t q = 0; !bad && q < f->entity_count; q++) {
            const etp_finding_entity *fe = &f->entities[q];
            int64_t at = -1;
            char call[256];
            switch (fe->kind) {
            case ETP_FE_INSTRUCTION:
            case ETP_FE_DELEGATE_CALL: at = find_ref(ir, ni, fe->id); break;
            case ETP_FE_DELEGATE_EVENT:
                if (ni && delegate_call_node(a, ig, fe->id, call, sizeof call))
                    at = find_ref(ir, ni, call);
                break;
            case ETP_FE_OPERATOR:
                at = find_ref(sr, ns, fe->id);
                if (at >= 0 && sg->nodes[at].kind != ETP_SRC_NODE_OPERATOR)
                    at = -1;
                if (at >= 0)
                    bad = add_code(&sc, (uint32_t)at, f) != 0;
                continue;
            default: continue; /* NX: on the VGF graph's overlays */
            }
            if (at >= 0)
                bad = add_code(&ic, (uint32_t)at, f) != 0;
        }
    }
    if (!bad) {
        out->labels = calloc((size_t)ni + ns + 1, sizeof *out->labels);
        out->texts = calloc((size_t)ni + ns + 1, sizeof *out->texts);
        bad = !out->labels || !out->texts;
    }
    if (!bad) {
        if (ni)
            emit(out, ig->id, &ic, iids);
        if (ns)
            emit(out, sg->id, &sc, sids);
    }
    codes_free(&ic);
    codes_free(&sc);
    free(iids);
    free(sids);
    free(ir);
    free(sr);
    if (bad)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    return ETP_OK;
}

void etp_me_findings_overlay_free(etp_me_findings_overlay *o)
{
    for (size_t i = 0; o->texts && i < o->text_count; i++)
        free(o->texts[i]);
    free(o->texts);
    free(o->labels);
    memset(o, 0, sizeof *o);
}
