/* graph.c - `etprof graph PROGRAM -o FILE`: the program's Model Explorer graph. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "etprof/mexplorer.h"
#include "etprof/program.h"
#include "etprof/detect.h"
#include "etprof/vgf.h"
#include "outputs/mexplorer/me_vgf.h"

static void help(void)
{
    printf("usage: etprof graph PROGRAM.pte|MODEL.vgf -o GRAPH.json [--method NAME] [options]\n\n"
           "Write the instruction graph of a program (.pte or .bpte) for Google's Model\n"
           "Explorer, as Arm's PTE adapter draws it: one graph per method, node ids\n"
           "<method>_<chain>_<instruction> (the ids ETDump events carry), so overlays\n"
           "written by etprof apply to it. A VGF delegate's graph is its TOSA graph,\n"
           "drawn as Arm's VGF adapter draws it, under the delegate-call node's id.\n"
           "A .vgf file gives that graph alone (one graph \"Main\", as the VGF adapter).\n\n"
           "  -o, --output FILE       where to write (default: standard output)\n"
           "  -m, --method NAME       only this method's graph\n"
           "  -l, --label TEXT        collection label (default: the file name)\n"
           "      --no-delegate-graphs  leave out the graphs that delegate calls\n"
           "                          (VGF, Ethos-U) link to\n"
           "      --compact           no indentation\n");
}

/* What cli_write_atomic() writes: the collection, as the flags ask. */
typedef struct graph_job {
    const etp_me_collection *col;
    int flags;
} graph_job;

/* `etprof graph MODEL.vgf`: the VGF adapter's document. */
typedef struct vgf_job {
    const etp_me_vgf_graph *g;
    const char *label;
    int pretty;
} vgf_job;

static etp_status fill_vgf(FILE *fp, void *ctx, etp_error *err)
{
    const vgf_job *j = ctx;
    return etp_me_vgf_write(j->g, j->label, fp, j->pretty, err);
}

static int graph_vgf(const char *path, const char *label, const char *out_path, int pretty)
{
    etp_error err;
    etp_error_clear(&err);
    etp_vgf *v;
    etp_me_vgf_graph *g;
    if (etp_vgf_open(path, &v, &err) || etp_me_vgf_build_owned(v, &g, &err))
        return cli_fail(&err);
    /* The adapter labels the collection with the file's base name without its extension. */
    char base[256];
    const char *slash = strrchr(path, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : path);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    vgf_job job = {g, label ? label : base, pretty};
    int rc = cli_write_atomic(out_path ? out_path : "-", fill_vgf, &job);
    etp_me_vgf_free(g);
    return rc;
}

/* Whether the file at @p path starts like a VGF (0 when it cannot be read:
 * the program reader then reports the problem). */
static int is_vgf_file(const char *path)
{
    uint8_t head[16];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return etp_detect_kind(head, n) == ETP_KIND_VGF;
}

static etp_status fill_graph(FILE *fp, void *ctx, etp_error *err)
{
    const graph_job *j = ctx;
    return etp_me_write(j->col, fp, j->flags, err);
}

int cmd_graph(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"pte", required_argument, NULL, 'p'},
        {"method", required_argument, NULL, 'm'},
        {"label", required_argument, NULL, 'l'},
        {"no-delegate-graphs", no_argument, NULL, 'D'},
        {"compact", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out_path = NULL, *method = NULL, *label = NULL, *pte_opt = NULL;
    int flags = ETP_ME_PRETTY, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:m:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'p': pte_opt = optarg; break;
        case 'm': method = optarg; break;
        case 'l': label = optarg; break;
        case 'D': flags |= ETP_ME_NO_DELEGATE_GRAPHS; break;
        case 'c': flags &= ~ETP_ME_PRETTY; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("graph", argv);
        }
    }
    /* A VGF file is drawn as the VGF adapter draws it. */
    if (!pte_opt && optind + 1 == argc && is_vgf_file(argv[optind])) {
        if (method)
            return cli_usage("graph", "--method applies to programs, not to a VGF file");
        return graph_vgf(argv[optind], label, out_path, (flags & ETP_ME_PRETTY) != 0);
    }
    cli_inputs ins;
    memset(&ins, 0, sizeof ins);
    int bad_in = pte_opt ? cli_inputs_set("graph", &ins, CLI_IN_PTE, pte_opt) : ETP_EXIT_OK;
    if (!bad_in)
        bad_in = cli_inputs_check(&ins);
    for (; !bad_in && optind < argc; optind++)
        bad_in = cli_inputs_add("graph", &ins, argv[optind], CLI_ACCEPT(CLI_IN_PTE));
    if (bad_in)
        return bad_in;
    const char *path = ins.path[CLI_IN_PTE];
    int missing = cli_inputs_require("graph", &ins, CLI_IN_PTE, "graph PROGRAM [-o FILE]");
    if (missing)
        return missing;

    etp_error err;
    etp_error_clear(&err);
    etp_program *p;
    etp_status s = etp_program_open(path, &p, &err);
    if (s)
        return cli_fail_status(s, &err);
    etp_me_collection *col;
    /* An unknown --method is a usage error (exit 2), as in every command. */
    if (method && !etp_program_find_plan(p, method)) {
        char list[400] = "";
        size_t len = 0;
        for (uint32_t i = 0; i < p->plan_count && len + 80 < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", p->plans[i].name);
        etp_error_set(&err, ETP_E_USAGE, p->path, ETP_NO_OFFSET, "no method named '%s' (methods: %s)",
                      method, list);
        etp_program_free(p);
        return cli_fail_status(ETP_E_USAGE, &err);
    }
    if (etp_me_build(p, method, label, &col, &err)) {
        etp_program_free(p);
        return cli_fail(&err);
    }
    graph_job job = {col, flags};
    int rc = cli_write_atomic(out_path ? out_path : "-", fill_graph, &job);
    etp_me_free(col);
    etp_program_free(p);
    return rc;
}
