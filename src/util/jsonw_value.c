/* jsonw_value.c - jansson value -> jsonw, with sorted keys. */
#include "util/jsonw_value.h"

#include <stdlib.h>
#include <string.h>

int etp_json_depth(const json_t *v, int cap)
{
    if (cap < 0)
        return 0;
    int deepest = 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            int d = etp_json_depth(m, cap - 1);
            if (d > deepest)
                deepest = d;
        }
        return deepest + 1;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) {
            int d = etp_json_depth(m, cap - 1);
            if (d > deepest)
                deepest = d;
        }
        return deepest + 1;
    }
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int emit(etp_jw *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(v);
        const char **keys = malloc((n ? n : 1) * sizeof *keys);
        if (!keys)
            return -1;
        size_t i = 0;
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) keys[i++] = k;
        qsort(keys, n, sizeof *keys, cmp_key);
        etp_jw_obj_begin(w);
        int rc = 0;
        for (i = 0; i < n && rc == 0; i++) {
            etp_jw_key(w, keys[i]);
            rc = emit(w, json_object_get(v, keys[i]));
        }
        etp_jw_obj_end(w);
        free(keys);
        return rc;
    }
    case JSON_ARRAY: {
        etp_jw_arr_begin(w);
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) {
            if (emit(w, m))
                return -1;
        }
        etp_jw_arr_end(w);
        return 0;
    }
    case JSON_STRING:
        etp_jw_strn(w, json_string_value(v), json_string_length(v));
        return 0;
    case JSON_INTEGER:
        etp_jw_int(w, (int64_t)json_integer_value(v));
        return 0;
    case JSON_REAL:
        etp_jw_double(w, json_real_value(v));
        return 0;
    case JSON_TRUE:
        etp_jw_bool(w, 1);
        return 0;
    case JSON_FALSE:
        etp_jw_bool(w, 0);
        return 0;
    case JSON_NULL:
        etp_jw_null(w);
        return 0;
    }
    return -1;
}

int etp_jw_value(etp_jw *w, const json_t *v)
{
    if (etp_json_depth(v, ETP_JW_VALUE_MAX_DEPTH) > ETP_JW_VALUE_MAX_DEPTH)
        return -1;
    return emit(w, v) || w->failed ? -1 : 0;
}
