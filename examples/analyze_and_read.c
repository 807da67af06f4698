/* examples/analyze_and_read.c - libetprof in a few calls: open a run's inputs,
 * analyse them, print a figure, and read a published bundle back.
 * usage: analyze_and_read RUN.etdp PROGRAM.pte [BUNDLE_DIR] */
#include <stdio.h>
#include "etprof/analysis.h"
#include "etprof/bundle.h"
#include "etprof/columns.h"
#include "etprof/inputs.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: analyze_and_read RUN.etdp PROGRAM.pte [BUNDLE_DIR]\n");
        return 2;
    }
    etp_error err;
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    etp_inputs_spec spec = {.etdump = argv[1], .pte = argv[2], .prepare = &opt};
    etp_inputs *in = NULL;
    etp_analysis *a;
    if (etp_inputs_open(&spec, &in, &err) ||
        etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in),
                             etp_inputs_program(in), NULL, &opt, &a, &err)) {
        char buf[1200];
        fprintf(stderr, "%s\n", etp_error_format(&err, buf, sizeof buf));
        etp_inputs_free(in);
        return 1;
    }
    const etp_figure *exec = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    if (exec && exec->available)
        printf("Method::execute avg %.6f %s over %u executions\n", exec->stats.avg,
               etp_unit_name(a->target_unit), a->execution_count);
    etp_analysis_free(a);
    etp_inputs_free(in);

    etp_bundle_doc *doc; /* a published bundle, verified and read back */
    if (argc > 3) {
        if (etp_bundle_open(argv[3], 1, &doc, &err)) {
            char buf[1200];
            fprintf(stderr, "%s\n", etp_error_format(&err, buf, sizeof buf));
            return 1;
        }
        const etp_bundle_metric *m = etp_bundle_doc_metric(doc, "method_execute.avg");
        if (m && m->available)
            printf("bundle: %s, method_execute.avg = %g %s\n",
                   etp_bundle_doc_manifest(doc)->validity, m->value, m->unit);
        etp_bundle_close(doc);
    }
    return 0;
}
