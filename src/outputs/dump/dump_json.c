/* dump_json.c - `etprof dump --json` of the FlatBuffers inputs (ETDump,
 * program, bundled program): the schema-driven walk in flatc's
 * --strict-json --defaults-json shape. The ETRecord's and the VGF's are
 * etrecord_json.c and vgf_json.c. */
#include <stdio.h>

#include "etprof/dump.h"
#include "formats/etdump/etdump_internal.h"
#include "formats/flatbuffers/fb_schema.h"
#include "formats/flatbuffers/schemas.h"
#include "formats/program/program_internal.h"
#include "util/jsonw.h"

etp_status etp_etdump_write_json(const etp_etdump *d, FILE *fp, int pretty, etp_error *err)
{
    uint32_t root;
    const fb_buf *b = etp_etdump_flatbuffer(d, &root);
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    fb_dump_json(b, root, &etp_schema_etdump, &w);
    char what[600];
    snprintf(what, sizeof what, "the JSON of %s", etp_etdump_path(d));
    return etp_jw_finish_status(&w, what, err);
}

etp_status etp_program_write_json(const etp_program *p, FILE *fp, int pretty, etp_error *err)
{
    uint32_t root;
    int bundled;
    const fb_buf *b = etp_program_flatbuffer(p, &root, &bundled);
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    fb_dump_json(b, root, bundled ? &etp_schema_bundled_program : &etp_schema_program, &w);
    char what[600];
    snprintf(what, sizeof what, "the JSON of %s", p->path);
    return etp_jw_finish_status(&w, what, err);
}
