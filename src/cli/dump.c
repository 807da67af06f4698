/* dump.c - `etprof dump FILE [--json]`: decode any supported input. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "etprof/detect.h"
#include "etprof/dump.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/program.h"
#include "etprof/vgf.h"
#include "outputs/dump/outline.h"

static void help(void)
{
    printf("usage: etprof dump FILE [--json] [--compact]\n\n"
           "Decode an ETDump (.etdp), program (.pte), bundled program (.bpte), ETRecord\n"
           "(zip) or VGF (.vgf); the kind comes from the file's bytes, not its name.\n"
           "A program's VGF delegates are decoded and outlined too.\n\n"
           "  --json      the whole file as JSON: FlatBuffers inputs shaped like\n"
           "              `flatc --json --strict-json --defaults-json` (numbers exact);\n"
           "              an ETRecord as one normalized document (entries, layout,\n"
           "              programs with their nodes, the debug-handle/delegate maps);\n"
           "              a VGF as its sections (flatc's decode with schemas/flatbuffers/vgf.fbs), the\n"
           "              constants' records and the SPIR-V graphs (ops with result ids)\n"
           "  --compact   with --json: no indentation\n"
           "Without --json: a readable outline (blocks, counts, names).\n");
}

/* Each VGF delegate of @p p, decoded and outlined under its method. */
static int outline_vgf_delegates(const etp_program *p)
{
    for (uint32_t m = 0; m < p->plan_count; m++)
        for (uint32_t k = 0; k < p->plans[m].delegate_count; k++) {
            const etp_delegate *d = &p->plans[m].delegates[k];
            if (!etp_vgf_is_delegate(d))
                continue;
            etp_error err;
            etp_error_clear(&err);
            etp_vgf *v;
            if (etp_vgf_from_delegate(p, d, &v, &err))
                return cli_fail(&err);
            printf("method %s, delegate %u (VgfBackend):\n", p->plans[m].name ? p->plans[m].name : "", k);
            etp_outline_vgf(v, stdout, "  ");
            etp_vgf_free(v);
        }
    return ETP_EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"compact", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, pretty = 1, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'c': pretty = 0; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("dump", argv);
        }
    }
    if (optind + 1 != argc)
        return cli_usage("dump", "dump takes exactly one FILE");
    const char *path = argv[optind];

    etp_error err;
    etp_error_clear(&err);
    etp_blob *blob;
    if (etp_blob_open(path, 0, &blob, &err))
        return cli_fail(&err);
    etp_file_kind kind = etp_detect_kind(blob->data, blob->size);
    int rc = ETP_EXIT_OK;
    switch (kind) {
    case ETP_KIND_ETDUMP: {
        etp_etdump *d;
        if (etp_etdump_from_blob(blob, &d, &err))
            return cli_fail(&err);
        if (json)
            rc = etp_etdump_write_json(d, stdout, pretty, &err) ? cli_error("write error") : ETP_EXIT_OK;
        else
            etp_outline_etdump(d, stdout);
        etp_etdump_free(d);
        break;
    }
    case ETP_KIND_PTE:
    case ETP_KIND_BPTE: {
        etp_program *p;
        if (etp_program_from_blob(blob, &p, &err))
            return cli_fail(&err);
        if (json)
            rc = etp_program_write_json(p, stdout, pretty, &err) ? cli_error("write error") : ETP_EXIT_OK;
        else {
            etp_outline_program(p, stdout);
            rc = outline_vgf_delegates(p);
        }
        etp_program_free(p);
        break;
    }
    case ETP_KIND_VGF: {
        etp_vgf *v;
        if (etp_vgf_from_memory(blob->data, blob->size, path, 0, &v, &err)) {
            etp_blob_free(blob);
            return cli_fail(&err);
        }
        if (json)
            rc = etp_vgf_write_json(v, stdout, pretty, &err) ? cli_error("write error") : ETP_EXIT_OK;
        else
            etp_outline_vgf(v, stdout, "");
        etp_vgf_free(v);
        etp_blob_free(blob);
        break;
    }
    case ETP_KIND_ZIP: {
        /* The reader streams the archive itself; drop the mapping first. */
        etp_blob_free(blob);
        etp_etrecord *r;
        etp_status st = etp_etrecord_open(path, &r, &err);
        if (st)
            return cli_fail(&err);
        if (json)
            rc = etp_etrecord_write_json(r, stdout, pretty, &err) ? cli_error("write error") : ETP_EXIT_OK;
        else
            etp_outline_etrecord(r, stdout);
        etp_etrecord_free(r);
        break;
    }
    default:
        etp_blob_free(blob);
        etp_error_set(&err, ETP_E_FORMAT, path, ETP_NO_OFFSET,
                      "unrecognised file: no ETDump (ED00), program (ET12) or bundled program "
                      "(BP08) identifier, not a VGF and not a zip archive (ETRecord)");
        return cli_fail(&err);
    }
    return rc;
}
