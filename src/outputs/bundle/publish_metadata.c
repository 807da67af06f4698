/* publish_metadata.c - what a bundle says about its run: run_metadata.json
 * (tool, command line, options, host, and each input with what it
 * describes) and the manifest's "issues" and "comparability" members. Input
 * digests come from the bundle, which hashed each file once. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "etprof/etrecord.h"
#include "etprof/runner_log.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/report/analysis_report.h"
#include "util/jsonw.h"

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(out, n, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

/* Opens the input's object: role, path, name, size and digest; the caller
 * adds "describes" and closes it. */
static void input_entry(etp_jw *w, const char *role, const etp_publish_input *in)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "role", role);
    etp_jw_kstr(w, "path", in->path);
    const char *slash = strrchr(in->path, '/');
    etp_jw_kstr(w, "name", slash ? slash + 1 : in->path);
    if (in->sha256) {
        etp_jw_kuint(w, "size_bytes", in->size);
        etp_jw_kstr(w, "sha256", in->sha256);
    }
}

char *etp_run_metadata_json(const etp_analysis *a, const etp_publish_options *po,
                            const etp_publish_inputs *in, const char *run_id, const char *timestamp)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_RUN_METADATA_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_kstr(&w, "run_id", run_id);
    etp_jw_kstr(&w, "timestamp", timestamp);
    etp_jw_key(&w, "tool");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "name", "etprof");
    etp_jw_kstr(&w, "version", ETP_VERSION);
    etp_jw_obj_end(&w);
    etp_jw_kstr(&w, "command_line", po->command_line);
    if (po->runner_json) {
        etp_jw_key(&w, "runner");
        etp_jw_raw(&w, po->runner_json, strlen(po->runner_json));
    }
    etp_jw_key(&w, "options");
    if (po->options_json)
        etp_jw_raw(&w, po->options_json, strlen(po->options_json));
    else
        etp_jw_null(&w);
    etp_publish_labels_json(&w, po);
    struct utsname un;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    etp_jw_key(&w, "host");
    etp_jw_obj_begin(&w);
    if (uname(&un) == 0) {
        etp_jw_kstr(&w, "os", un.sysname);
        etp_jw_kstr(&w, "os_release", un.release);
        etp_jw_kstr(&w, "machine", un.machine);
    }
    etp_jw_kstr(&w, "cpu", cpu);
    etp_jw_obj_end(&w);
    etp_jw_key(&w, "inputs");
    etp_jw_arr_begin(&w);
    /* The ETDump, with what it says about itself. */
    input_entry(&w, "etdump", &in->etdump);
    etp_jw_key(&w, "describes");
    etp_jw_obj_begin(&w);
    etp_jw_kuint(&w, "etdump_schema_version", etp_etdump_version(a->etdump));
    etp_jw_kuint(&w, "blocks", etp_etdump_run_count(a->etdump));
    etp_jw_kuint(&w, "executions_of_method", a->execution_count);
    etp_jw_obj_end(&w);
    etp_jw_obj_end(&w);
    if (in->pte.path && a->program) {
        const etp_program *p = a->program;
        input_entry(&w, "pte", &in->pte);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kbool(&w, "bundled_program", p->bundled);
        etp_jw_kuint(&w, "program_version", p->version);
        etp_jw_key(&w, "methods");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < p->plan_count; i++)
            etp_jw_str(&w, p->plans[i].name);
        etp_jw_arr_end(&w);
        etp_jw_key(&w, "backends");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < p->plan_count; i++)
            for (uint32_t k = 0; k < p->plans[i].delegate_count; k++) {
                const char *id = p->plans[i].delegates[k].id;
                int dup = 0;
                for (uint32_t i2 = 0; i2 <= i && !dup; i2++)
                    for (uint32_t k2 = 0; k2 < (i2 == i ? k : p->plans[i2].delegate_count) && !dup; k2++)
                        dup = id && p->plans[i2].delegates[k2].id && !strcmp(id, p->plans[i2].delegates[k2].id);
                if (!dup)
                    etp_jw_str(&w, id);
            }
        etp_jw_arr_end(&w);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    if (in->etrecord.path && a->etrecord) {
        const etp_etrecord *r = a->etrecord;
        input_entry(&w, "etrecord", &in->etrecord);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "layout", r->layout);
        etp_jw_key(&w, "methods");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < r->method_count; i++)
            etp_jw_str(&w, r->methods[i].method);
        etp_jw_arr_end(&w);
        const etp_exported_program *ep = etp_etrecord_edge_program(r, a->method);
        etp_jw_kstr(&w, "exported_program_schema_version", ep ? ep->schema_version : NULL);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    if (in->log.path && a->runner_log) {
        const etp_runner_log *l = a->runner_log;
        input_entry(&w, "log", &in->log);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "method", l->method);
        etp_jw_kuint(&w, "iterations", l->iteration_count);
        etp_jw_kstr(&w, "etdump_name", l->etdump_name);
        etp_jw_kuint(&w, "planned_memory_bytes", l->planned_bytes);
        etp_jw_kstr(&w, "model_file", l->model_file);
        /* A runner built without logging prints only its outputs. */
        etp_jw_kbool(&w, "run_lines", etp_runner_log_has_run_lines(l));
        etp_jw_kuint(&w, "outputs_printed", l->output_count);
        etp_jw_key(&w, "output_lines");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < l->output_text_count; i++)
            etp_jw_str(&w, l->output_text[i]);
        etp_jw_arr_end(&w);
        if (l->bundleio_pass || l->bundleio_fail || l->verified) {
            etp_jw_key(&w, "bundled_program_check");
            etp_jw_obj_begin(&w);
            etp_jw_kuint(&w, "test_cases_passed", l->bundleio_pass);
            etp_jw_kuint(&w, "test_cases_failed", l->bundleio_fail);
            etp_jw_kbool(&w, "verified", l->verified || (l->bundleio_pass && !l->bundleio_fail));
            etp_jw_obj_end(&w);
        }
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    if (in->debug_buffer.path && a->debug_buffer.checked) {
        const etp_debug_buffer_check *c = &a->debug_buffer.check;
        input_entry(&w, "debug_buffer", &in->debug_buffer);
        etp_jw_key(&w, "describes");
        etp_jw_obj_begin(&w);
        etp_jw_kuint(&w, "debug_events", c->debug_events);
        etp_jw_kuint(&w, "tensors_checked", c->tensors);
        etp_jw_kuint(&w, "empty_tensors", c->empty_tensors);
        etp_jw_kuint(&w, "bytes_referenced", c->bytes_referenced);
        etp_jw_obj_end(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    /* What the inputs say about the ticks' unit, and the warm-up taken. */
    etp_jw_key(&w, "tick_unit");
    etp_json_tick_unit(&w, a);
    etp_jw_key(&w, "warmup");
    etp_json_warmup(&w, a);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}

/* ---- manifest members from the analysis --------------------------------- */

char *etp_manifest_issues_json(const etp_analysis *a)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_json_issues(&w, &a->issues);
    return etp_jw_take(&w, NULL);
}

char *etp_comparability_json(const etp_analysis *a, const etp_publish_inputs *in)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "method", a->method);
    /* null without a program file: the same digest as the manifest's input */
    etp_jw_kstr(&w, "program_sha256", in->pte.sha256);
    etp_jw_key(&w, "backends");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < a->figure_count; i++)
        if (a->figures[i].id == ETP_FIG_DELEGATE_TIME)
            etp_jw_str(&w, a->figures[i].backend);
    etp_jw_arr_end(&w);
    etp_jw_key(&w, "units");
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "etdump_ticks", etp_unit_name(a->source_unit));
    etp_jw_kstr(&w, "time", etp_unit_name(a->target_unit));
    etp_jw_obj_end(&w);
    etp_jw_kuint(&w, "etdump_schema_version", etp_etdump_version(a->etdump));
    etp_jw_key(&w, "program_version");
    if (a->program)
        etp_jw_uint(&w, a->program->version);
    else
        etp_jw_null(&w);
    etp_jw_kint(&w, "summary_schema_version", 1);
    etp_jw_kstr(&w, "tool_version", ETP_VERSION);
    etp_jw_obj_end(&w);
    return etp_jw_take(&w, NULL);
}
