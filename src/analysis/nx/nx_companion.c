/* nx_companion.c - structural associations of the VGF statistics with the
 * deployed program (--pte): method, DELEGATE_CALL instruction, VGF segment
 * and SPIR-V result ids. A match does not prove the program produced the
 * capture (the same ids occur in other programs); a mismatch proves it did
 * not, and fails the analysis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_stats.h"
#include "etprof/vgf.h"
#include "util/str.h"

static const etp_spv_op *find_op(const etp_vgf *v, const etp_vgf_segment *seg, uint32_t id)
{
    const etp_vgf_module *m = &v->modules[seg->module_index];
    if (!m->spv)
        return NULL;
    for (uint32_t g = 0; g < m->spv->graph_count; g++) {
        const etp_spv_op *op = etp_spv_find_op(&m->spv->graphs[g], id);
        if (op)
            return op;
    }
    return NULL;
}

static etp_status check_instruction(etp_nx_result *r, const etp_program *p, const etp_plan *plan,
                                    const char *method, uint32_t instr, etp_error *err)
{
    const char *file = p->path;
    if (!plan->chain_count || instr >= plan->chains[0].instruction_count)
        return etp_error_set(err, ETP_E_MISMATCH, file, ETP_NO_OFFSET,
                             "VGF_NEURAL_STATISTICS of instruction %u: method %s has no such instruction "
                             "(its chain has %u)",
                             instr, method, plan->chain_count ? plan->chains[0].instruction_count : 0);
    const etp_instruction *in = &plan->chains[0].instructions[instr];
    if (in->kind != ETP_INSTR_DELEGATE || in->a < 0 || (uint32_t)in->a >= plan->delegate_count ||
        !etp_vgf_is_delegate(&plan->delegates[in->a]))
        return etp_error_set(err, ETP_E_MISMATCH, file, ETP_NO_OFFSET,
                             "VGF_NEURAL_STATISTICS of instruction %u: instruction %u of method %s is a %s, not a "
                             "VgfBackend DelegateCall",
                             instr, instr, method, etp_instr_kind_name(in->kind));
    etp_vgf *v = NULL;
    etp_status st = etp_vgf_from_delegate(p, &plan->delegates[in->a], &v, err);
    if (st)
        return st;
    for (uint32_t i = 0; st == ETP_OK && i < r->entity_count; i++) {
        etp_nx_entity *e = &r->entities[i];
        if (e->instruction_id != (int32_t)instr)
            continue;
        if (e->segment_id < 0 || (uint64_t)e->segment_id >= v->segment_count ||
            v->segments[e->segment_id].type != ETP_VGF_GRAPH) {
            st = etp_error_set(err, ETP_E_MISMATCH, file, ETP_NO_OFFSET,
                               "VGF statistics of instruction %u segment %lld: the program's VGF has no graph "
                               "segment %lld (%u segments)",
                               instr, (long long)e->segment_id, (long long)e->segment_id, v->segment_count);
            break;
        }
        const etp_vgf_segment *seg = &v->segments[e->segment_id];
        if (e->kind == ETP_NX_SEGMENT)
            r->companion_segments++;
        if (e->kind != ETP_NX_CHAIN && e->kind != ETP_NX_CASCADE)
            continue;
        for (uint32_t k = 0; k < e->op_count; k++) {
            etp_nx_op *o = &e->ops[k];
            if (o->spirv_id < 0)
                continue;
            const etp_spv_op *op = find_op(v, seg, (uint32_t)o->spirv_id);
            if (!op) {
                st = etp_error_set(err, ETP_E_MISMATCH, file, ETP_NO_OFFSET,
                                   "VGF statistics of instruction %u segment %lld: TOSA op %s (%s) names SPIR-V "
                                   "result id %lld, which segment %lld of the program's VGF does not have",
                                   instr, (long long)e->segment_id, o->tosa_id, o->labels, (long long)o->spirv_id,
                                   (long long)e->segment_id);
                break;
            }
            free(o->vgf_op);
            if (!(o->vgf_op = etp_strdup(op->label))) {
                st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
                break;
            }
            if (e->kind == ETP_NX_CHAIN)
                r->companion_associations++;
        }
    }
    etp_vgf_free(v);
    return st;
}

etp_status etp_nx_companion_check(etp_nx_result *r, const etp_program *p, const etp_plan *plan,
                                  const char *method, const char *sha256, etp_error *err)
{
    if (!plan)
        return etp_error_set(err, ETP_E_MISMATCH, p->path, ETP_NO_OFFSET,
                             "VGF statistics: the program has no method %s", method ? method : "(none selected)");
    r->companion_associations = r->companion_segments = 0;
    for (uint32_t i = 0; i < r->vgf_instruction_count; i++) {
        etp_status st = check_instruction(r, p, plan, plan->name, r->vgf_instructions[i], err);
        if (st)
            return st;
    }
    if (sha256 && *sha256) {
        snprintf(r->companion_sha256, sizeof r->companion_sha256, "%s", sha256);
    } else {
        etp_status st = etp_program_sha256(p, r->companion_sha256, err);
        if (st)
            return st;
    }
    snprintf(r->companion_method, sizeof r->companion_method, "%s", plan->name);
    r->companion_checked = 1;
    return ETP_OK;
}
