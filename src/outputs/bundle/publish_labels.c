/* publish_labels.c - a run's labels in run_metadata.json: {"KEY": "VALUE"}
 * sorted by key, a value that is not UTF-8 as {"base64": "..."} (JSON text
 * cannot carry its bytes), and nothing at all without labels. */
#include <stdlib.h>
#include <string.h>

#include "etprof/bundle_read.h"
#include "outputs/bundle/publish_internal.h"
#include "util/jsonw_bytes.h"

etp_status etp_publish_labels_check(const etp_publish_options *po, etp_error *err)
{
    if (po->label_count && (!po->label_keys || !po->label_values))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "labels given without keys or values");
    for (uint32_t i = 0; i < po->label_count; i++) {
        const char *k = po->label_keys[i], *why = etp_label_key_problem(k);
        if (!why)
            why = etp_label_value_problem(po->label_values[i]);
        if (why)
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "label '%.64s': %s",
                                 k ? k : "", why);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(po->label_keys[j], k))
                return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                     "label '%s' given twice", k);
    }
    return ETP_OK;
}

void etp_publish_labels_json(etp_jw *w, const etp_publish_options *po)
{
    if (!po->label_count)
        return;
    uint32_t n = po->label_count;
    uint32_t *order = malloc(n * sizeof *order);
    if (!order) {
        etp_jw_out_of_memory(w);
        return;
    }
    for (uint32_t i = 0; i < n; i++) /* insertion sort by key: a handful of labels */
        for (uint32_t k = i;; k--) {
            if (k == 0 || strcmp(po->label_keys[order[k - 1]], po->label_keys[i]) < 0) {
                order[k] = i;
                break;
            }
            order[k] = order[k - 1];
        }
    etp_jw_key(w, "labels");
    etp_jw_obj_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_key(w, po->label_keys[order[i]]);
        etp_jw_bytes(w, po->label_values[order[i]]);
    }
    etp_jw_obj_end(w);
    free(order);
}
