/* publish_memory.c - detailed/memory.json: the memory summary of the run
 * (planned arena per buffer, method allocator, peak RSS, program size), each
 * with its unit and source. */
#include <stdlib.h>
#include <string.h>

#include "etprof/bundle.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/report/device_output.h"
#include "util/jsonw.h"

etp_status etp_publish_memory(etp_bundle *b, const etp_analysis *a, etp_error *err)
{
    etp_jw w;
    etp_jw_init_mem(&w, 1);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "schema", ETP_MEMORY_SCHEMA);
    etp_jw_kint(&w, "schema_version", 1);
    etp_jw_key(&w, "memory");
    etp_json_memory(&w, a);
    etp_jw_obj_end(&w);
    size_t len;
    char *t = etp_jw_take(&w, &len);
    if (!t)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory writing the bundle");
    etp_status s = etp_bundle_write(b, "detailed/memory.json", t, len, "application/json", "diagnostic",
                                    ETP_MEMORY_SCHEMA, 1, err);
    free(t);
    return s;
}
