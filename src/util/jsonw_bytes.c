/* jsonw_bytes.c - bytes as a JSON string or {"base64": ...} (jsonw_bytes.h). */
#include "util/jsonw_bytes.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* Whether jansson takes @p s as a JSON string (well-formed UTF-8): the
 * readers are jansson, so what it accepts is what reads back. */
static int json_text_ok(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

void etp_jw_out_of_memory(etp_jw *w)
{
    if (!w->failed)
        w->cause = ETP_JW_NOMEM;
    w->failed = 1;
}

void etp_jw_bytes(etp_jw *w, const char *s)
{
    if (json_text_ok(s)) {
        etp_jw_str(w, s);
        return;
    }
    size_t len = strlen(s);
    unsigned char *b64 = malloc(4 * ((len + 2) / 3) + 1);
    if (!b64) {
        etp_jw_out_of_memory(w);
        return;
    }
    EVP_EncodeBlock(b64, (const unsigned char *)s, (int)len);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "base64", (const char *)b64);
    etp_jw_obj_end(w);
    free(b64);
}
