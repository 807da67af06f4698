/* publish_options.c - the analysis options a bundle records
 * (etp_analysis_options_json, etprof/publish.h): one writer for the CLI and
 * the Python package, so the same analysis records the same bytes. */
#include <stdio.h>

#include "etprof/findings.h"
#include "etprof/nx_record.h"
#include "etprof/publish.h"
#include "etprof/units.h"
#include "util/jsonw.h"

char *etp_analysis_options_json(const etp_analysis_options *o, const etp_publish_options *po,
                                int open_page)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "method", o->method);
    etp_jw_kstr(&w, "source_unit", etp_unit_name(o->source_unit));
    etp_jw_kbool(&w, "source_unit_given", o->source_unit_given);
    etp_jw_kstr(&w, "unit", etp_unit_name(o->target_unit));
    if (o->cpu_hz > 0)
        etp_jw_kdouble(&w, "cpu_hz", o->cpu_hz);
    etp_jw_kstr(&w, "format", po->operators_csv ? "csv" : "json");
    etp_jw_kbool(&w, "detailed", po->detailed);
    etp_jw_kstr(&w, "model_explorer",
                !po->model_explorer                  ? "none"
                : po->model_explorer_overlays_only ? "overlays"
                : open_page                          ? "open"
                                                     : "files");
    etp_jw_kuint(&w, "skip_executions", o->skip_executions);
    etp_jw_kstr(&w, "rank_by", etp_rank_key_name(o->rank_by));
    /* The findings' thresholds the user changed (--finding), by setting. */
    size_t n;
    const etp_finding_rule *r = etp_finding_registry(&n);
    int any = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < r[i].param_count; k++) {
            const etp_finding_param *p = &r[i].params[k];
            if (!o->findings.given[p->index])
                continue;
            if (!any++) {
                etp_jw_key(&w, "finding_thresholds");
                etp_jw_obj_begin(&w);
            }
            char key[160];
            snprintf(key, sizeof key, "%s.%s", r[i].code, p->key);
            etp_jw_kdouble(&w, key, o->findings.value[p->index]);
        }
    if (any)
        etp_jw_obj_end(&w);
    /* The VGF statistics decoder's choices given (--nx-*), so that the
     * analysis can be made again from the bundle (`etprof view`). */
    const etp_nx_options *nx = o->nx_options;
    if (nx && (nx->statistics_mode >= 0 || nx->profiling_device != ETP_NX_DEVICE_NONE || nx->leading_blocks >= 0 ||
               nx->core_key != ETP_NX_CORE_SINGLE)) {
        etp_jw_key(&w, "nx");
        etp_jw_obj_begin(&w);
        if (nx->statistics_mode >= 0)
            etp_jw_kint(&w, "statistics_mode", nx->statistics_mode);
        if (nx->profiling_device != ETP_NX_DEVICE_NONE)
            etp_jw_kstr(&w, "profiling_device", etp_nx_device_name(nx->profiling_device));
        if (nx->leading_blocks >= 0)
            etp_jw_kint(&w, "leading_blocks", nx->leading_blocks);
        if (nx->core_key != ETP_NX_CORE_SINGLE)
            etp_jw_kstr(&w, "core_key", "word0");
        etp_jw_obj_end(&w);
    }
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}
