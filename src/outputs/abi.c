/* abi.c - sizes of the public structures that bindings lay out themselves
 * (etprof/abi.h). One table: adding a struct a binding mirrors means adding
 * a line here. */
#include "etprof/abi.h"

#include <string.h>

#include "etprof/analysis.h"
#include "etprof/bundle.h"
#include "etprof/columns.h"
#include "etprof/diff.h"
#include "etprof/diff_io.h"
#include "etprof/error.h"
#include "etprof/inputs.h"
#include "etprof/inspect.h"
#include "etprof/numeric_diff.h"
#include "etprof/publish.h"
#include "etprof/store.h"
#include "etprof/tensor.h"
#include "etprof/tensor_columns.h"
#include "etprof/tensors.h"

#define ENTRY(t) {#t, sizeof(t)}

static const struct {
    const char *name;
    size_t size;
} sizes[] = {
    ENTRY(etp_error),
    ENTRY(etp_analysis_options),
    ENTRY(etp_inspect_options),
    ENTRY(etp_inputs_spec),
    ENTRY(etp_publish_options),
    ENTRY(etp_cell),
    ENTRY(etp_column),
    ENTRY(etp_bundle_artifact_info),
    ENTRY(etp_bundle_issue),
    ENTRY(etp_bundle_input_info),
    ENTRY(etp_bundle_manifest),
    ENTRY(etp_bundle_metric),
    ENTRY(etp_bundle_cell),
    ENTRY(etp_bundle_table),
    ENTRY(etp_bundle_run_metadata),
    ENTRY(etp_diff_identity),
    ENTRY(etp_diff_options),
    ENTRY(etp_diff_value),
    ENTRY(etp_diff_row),
    ENTRY(etp_diff_warning),
    ENTRY(etp_diff),
    ENTRY(etp_diff_gate_outcome),
    ENTRY(etp_diff_publish_options),
    ENTRY(etp_numeric_diff_options),
    ENTRY(etp_bundle_label),
    ENTRY(etp_history_label),
    ENTRY(etp_history_run),
    ENTRY(etp_store_filter),
    ENTRY(etp_store_runs),
    ENTRY(etp_history_point),
    ENTRY(etp_history_series),
    ENTRY(etp_store_series_query),
    ENTRY(etp_history_series_set),
    ENTRY(etp_regression_options),
    ENTRY(etp_regression),
    ENTRY(etp_tensor_view),
    ENTRY(etp_tensor_stats),
    ENTRY(etp_quant_params),
    ENTRY(etp_tolerance),
    ENTRY(etp_tensor_gap),
    ENTRY(etp_logged_tensor),
    ENTRY(etp_bundled_output),
    ENTRY(etp_bundled_check),
    ENTRY(etp_tensor_set),
    ENTRY(etp_tcell),
    ENTRY(etp_tcol),
};

size_t etp_abi_struct_size(const char *type_name)
{
    for (size_t i = 0; type_name && i < sizeof sizes / sizeof sizes[0]; i++)
        if (!strcmp(sizes[i].name, type_name))
            return sizes[i].size;
    return 0;
}
