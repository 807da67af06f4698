/* bundle_read.c - read a published bundle back: its manifest, summary
 * metrics, operators table and run metadata (see etprof/bundle.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "etprof/bundle.h"
#include "outputs/bundle/bundle_rules.h"
#include "outputs/bundle/bundle_verify.h"
#include "util/jsonw.h"
#include "util/sha256.h"

/* Biggest artifact read into memory (summary, operators, run metadata). */
#define READ_MAX ((size_t)1 << 31)

struct etp_bundle_doc {
    char *dir;
    etp_bundle_manifest manifest;
    etp_bundle_metric *metrics;
    uint32_t metric_count;
    etp_bundle_table operators;
    etp_bundle_run_metadata meta;
    /* The parsed documents stay alive: the strings above point into them. */
    json_t *manifest_json, *summary_json, *meta_json, *operators_json;
    /* Everything else the document allocated, freed by etp_bundle_close(). */
    void **owned;
    size_t owned_count, owned_cap;
};

/* One open: the document being filled, where it lives, and whether its
 * artifacts must still match the verified manifest when read. */
typedef struct reader {
    etp_bundle_doc *doc;
    int dirfd;
    int verify;
    etp_error *err;
} reader;

/* ---- memory ----------------------------------------------------------- */

/* Keep @p p (may be NULL: then out of memory) until the document closes. */
static void *own(reader *r, void *p)
{
    etp_bundle_doc *d = r->doc;
    if (!p)
        return NULL;
    if (d->owned_count == d->owned_cap) {
        size_t cap = d->owned_cap ? d->owned_cap * 2 : 64;
        void **n = realloc(d->owned, cap * sizeof *n);
        if (!n) {
            free(p);
            return NULL;
        }
        d->owned = n;
        d->owned_cap = cap;
    }
    d->owned[d->owned_count++] = p;
    return p;
}

static void *own_calloc(reader *r, size_t n, size_t size)
{
    return own(r, calloc(n ? n : 1, size));
}

static const char *own_strndup(reader *r, const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return own(r, p);
}

static etp_status nomem(reader *r)
{
    return etp_error_set(r->err, ETP_E_NOMEM, r->doc->dir, ETP_NO_OFFSET,
                         "out of memory reading the bundle");
}

/* ETP_E_FORMAT naming DIR/@p rel. */
static etp_status bad(reader *r, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static etp_status bad(reader *r, const char *rel, const char *fmt, ...)
{
    char file[600], msg[512];
    snprintf(file, sizeof file, "%s/%s", r->doc->dir, rel);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return etp_error_set(r->err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "%s", msg);
}

/* ---- JSON members ----------------------------------------------------- */

/* *out = the string member @p key of @p obj, NULL when absent or null; a
 * member of another type is an error of @p rel. */
static etp_status str_member(reader *r, const char *rel, const char *ctx, const json_t *obj,
                             const char *key, const char **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!json_is_string(v))
        return bad(r, rel, "%s\"%s\" is not a string", ctx, key);
    *out = json_string_value(v);
    return ETP_OK;
}

/* A non-negative integer member; *present 0 when absent. */
static etp_status uint_member(reader *r, const char *rel, const char *ctx, const json_t *obj,
                              const char *key, uint64_t *out, int *present)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (present)
        *present = 0;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return bad(r, rel, "%s\"%s\" is not a non-negative integer", ctx, key);
    *out = (uint64_t)json_integer_value(v);
    if (present)
        *present = 1;
    return ETP_OK;
}

/* An object or array member as compact JSON with sorted keys (the form the
 * manifest's options digest is taken over); NULL when absent or null. */
static etp_status json_text_member(reader *r, const json_t *obj, const char *key,
                                   const char **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return ETP_OK;
    if (!(*out = own(r, json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS))))
        return nomem(r);
    return ETP_OK;
}

static etp_status parse_json(reader *r, const char *rel, const char *text, size_t len,
                             json_t **out)
{
    json_error_t je;
    *out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return bad(r, rel, "not valid JSON: %s (line %d, column %d)", je.text, je.line, je.column);
    if (!json_is_object(*out))
        return bad(r, rel, "not a JSON object");
    return ETP_OK;
}

/* ---- artifacts -------------------------------------------------------- */

/* Read artifact @p a into a new buffer (caller frees). Never through a
 * symlink; when verifying, the bytes must still be the verified ones. */
static etp_status read_artifact(reader *r, const etp_bundle_artifact_info *a, char **data,
                                size_t *len)
{
    int parent;
    const char *leaf;
    char badpart[ETP_BUNDLE_PATH_MAX + 1];
    *data = NULL;
    if (etp_bundle_path_problem(a->path, strlen(a->path)))
        return bad(r, a->path, "not a safe relative path");
    if (etp_bundle_walk_parent(r->dirfd, a->path, 0, &parent, &leaf, badpart, sizeof badpart))
        return bad(r, a->path, "cannot be reached without a symlink ('%s')", badpart);
    int fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int e = errno;
    close(parent);
    if (fd < 0)
        return etp_error_set(r->err, ETP_E_IO, a->path, ETP_NO_OFFSET, "cannot open: %s",
                             strerror(e));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > READ_MAX) {
        close(fd);
        return bad(r, a->path, "not a regular file of at most %zu bytes", READ_MAX);
    }
    size_t cap = (size_t)st.st_size, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return nomem(r);
    }
    while (n < cap) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    if (n != cap) {
        free(buf);
        return etp_error_set(r->err, ETP_E_IO, a->path, ETP_NO_OFFSET, "short read");
    }
    if (r->verify) {
        char hex[ETP_SHA256_HEX];
        if (etp_sha256_buf(buf, n, hex) != 0) {
            free(buf);
            return nomem(r);
        }
        if (n != a->size || !a->sha256 || strcmp(hex, a->sha256)) {
            free(buf);
            return bad(r, a->path, "changed since it was verified");
        }
    }
    *data = buf;
    *len = n;
    return ETP_OK;
}

/* ---- the manifest ----------------------------------------------------- */

static int cmp_artifact(const void *x, const void *y)
{
    return strcmp(((const etp_bundle_artifact_info *)x)->path,
                  ((const etp_bundle_artifact_info *)y)->path);
}

static etp_status read_inputs(reader *r, const char *rel, const json_t *arr, const char *where,
                              uint32_t *count, const etp_bundle_input_info **out)
{
    *count = 0;
    *out = NULL;
    if (!arr || json_is_null(arr))
        return ETP_OK;
    if (!json_is_array(arr))
        return bad(r, rel, "\"%s\" is not an array", where);
    size_t n = json_array_size(arr);
    etp_bundle_input_info *in = own_calloc(r, n, sizeof *in);
    if (!in)
        return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[80];
        snprintf(ctx, sizeof ctx, "%s[%zu]: ", where, i);
        if (!json_is_object(o))
            return bad(r, rel, "%snot an object", ctx);
        int has_size;
        etp_status s = str_member(r, rel, ctx, o, "role", &in[i].role);
        if (!s)
            s = str_member(r, rel, ctx, o, "name", &in[i].name);
        if (!s)
            s = str_member(r, rel, ctx, o, "path", &in[i].path);
        if (!s)
            s = str_member(r, rel, ctx, o, "sha256", &in[i].sha256);
        if (!s)
            s = uint_member(r, rel, ctx, o, "size_bytes", &in[i].size, &has_size);
        if (s)
            return s;
        in[i].has_digest = has_size && in[i].sha256;
    }
    *count = (uint32_t)n;
    *out = in;
    return ETP_OK;
}

static etp_status read_issues(reader *r, const json_t *arr)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_manifest *m = &r->doc->manifest;
    if (!arr)
        return ETP_OK;
    if (!json_is_array(arr))
        return bad(r, rel, "\"issues\" is not an array");
    size_t n = json_array_size(arr);
    etp_bundle_issue *is = own_calloc(r, n, sizeof *is);
    if (!is)
        return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[40];
        snprintf(ctx, sizeof ctx, "issues[%zu]: ", i);
        if (!json_is_object(o))
            return bad(r, rel, "%snot an object", ctx);
        etp_status s = str_member(r, rel, ctx, o, "code", &is[i].code);
        if (!s)
            s = str_member(r, rel, ctx, o, "severity", &is[i].severity);
        if (!s)
            s = str_member(r, rel, ctx, o, "message", &is[i].message);
        if (!s)
            s = json_text_member(r, o, "context", &is[i].context_json);
        if (s)
            return s;
    }
    m->issue_count = (uint32_t)n;
    m->issues = is;
    return ETP_OK;
}

static etp_status read_artifact_list(reader *r, const json_t *arr)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_manifest *m = &r->doc->manifest;
    if (!json_is_array(arr))
        return bad(r, rel, "\"artifacts\" is missing or not an array");
    size_t n = json_array_size(arr);
    if (n > ETP_VERIFY_ARTIFACTS_MAX)
        return bad(r, rel, "declares %zu artifacts; the limit is %u", n, ETP_VERIFY_ARTIFACTS_MAX);
    etp_bundle_artifact_info *as = own_calloc(r, n, sizeof *as);
    if (!as)
        return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(arr, i);
        char ctx[40];
        snprintf(ctx, sizeof ctx, "artifacts[%zu]: ", i);
        if (!json_is_object(o))
            return bad(r, rel, "%snot an object", ctx);
        uint64_t version;
        etp_status s = str_member(r, rel, ctx, o, "path", &as[i].path);
        if (!s && !as[i].path)
            s = bad(r, rel, "%sno \"path\"", ctx);
        if (!s)
            s = str_member(r, rel, ctx, o, "media_type", &as[i].media_type);
        if (!s)
            s = str_member(r, rel, ctx, o, "role", &as[i].role);
        if (!s)
            s = str_member(r, rel, ctx, o, "schema", &as[i].schema);
        if (!s)
            s = str_member(r, rel, ctx, o, "sha256", &as[i].sha256);
        if (!s)
            s = uint_member(r, rel, ctx, o, "size_bytes", &as[i].size, NULL);
        if (!s)
            s = uint_member(r, rel, ctx, o, "schema_version", &version, NULL);
        if (s)
            return s;
        as[i].schema_version = version > 1000000 ? 1000000 : (int)version;
    }
    qsort(as, n, sizeof *as, cmp_artifact);
    m->artifact_count = (uint32_t)n;
    m->artifacts = as;
    return ETP_OK;
}

static etp_status read_manifest_doc(reader *r, const char *text, size_t len)
{
    const char *rel = ETP_BUNDLE_MANIFEST;
    etp_bundle_doc *d = r->doc;
    etp_bundle_manifest *m = &d->manifest;
    etp_status s = parse_json(r, rel, text, len, &d->manifest_json);
    if (s)
        return s;
    const json_t *root = d->manifest_json;
    const json_t *schema = json_object_get(root, "schema");
    const json_t *ver = json_object_get(root, "schema_version");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), ETP_BUNDLE_SCHEMA) ||
        !json_is_integer(ver) || json_integer_value(ver) != ETP_BUNDLE_SCHEMA_VERSION)
        return bad(r, rel, "not an etprof result manifest of schema version %d",
                   ETP_BUNDLE_SCHEMA_VERSION);
    const json_t *tool = json_object_get(root, "tool");
    const json_t *prov = json_object_get(root, "provenance");
    if (tool && !json_is_object(tool))
        return bad(r, rel, "\"tool\" is not an object");
    if (prov && !json_is_object(prov))
        return bad(r, rel, "\"provenance\" is not an object");
    s = str_member(r, rel, "", root, "bundle_type", &m->bundle_type);
    if (!s)
        s = str_member(r, rel, "", root, "run_id", &m->run_id);
    if (!s)
        s = str_member(r, rel, "", root, "timestamp", &m->timestamp);
    if (!s)
        s = str_member(r, rel, "", root, "status", &m->status);
    if (!s)
        s = str_member(r, rel, "", root, "validity", &m->validity);
    if (!s)
        s = str_member(r, rel, "tool: ", tool, "name", &m->tool_name);
    if (!s)
        s = str_member(r, rel, "tool: ", tool, "version", &m->tool_version);
    if (!s)
        s = read_issues(r, json_object_get(root, "issues"));
    if (!s)
        s = read_artifact_list(r, json_object_get(root, "artifacts"));
    if (!s)
        s = read_inputs(r, rel, json_object_get(prov, "inputs"), "provenance.inputs",
                        &m->input_count, &m->inputs);
    if (!s)
        s = json_text_member(r, prov, "options", &m->options_json);
    if (!s)
        s = str_member(r, rel, "provenance: ", prov, "options_sha256", &m->options_sha256);
    return s;
}

/* ---- summary.json ----------------------------------------------------- */

static etp_status read_metric(reader *r, const char *rel, const json_t *o, size_t i,
                              etp_bundle_metric *mt)
{
    char ctx[40];
    snprintf(ctx, sizeof ctx, "metrics[%zu]: ", i);
    if (!json_is_object(o))
        return bad(r, rel, "%snot an object", ctx);
    const char *availability;
    etp_status s = str_member(r, rel, ctx, o, "name", &mt->name);
    if (!s && !mt->name)
        s = bad(r, rel, "%sno \"name\"", ctx);
    if (!s)
        s = str_member(r, rel, ctx, o, "unit", &mt->unit);
    if (!s)
        s = str_member(r, rel, ctx, o, "availability", &availability);
    if (s)
        return s;
    if (availability && !strcmp(availability, "unavailable"))
        return str_member(r, rel, ctx, o, "reason", &mt->reason);
    mt->available = 1;
    const json_t *v = json_object_get(o, "value");
    const json_t *add = json_object_get(o, "additive");
    if (json_is_null(v))
        mt->value = NAN; /* the writer's form of a non-finite value */
    else if (json_is_number(v))
        mt->value = json_number_value(v);
    else
        return bad(r, rel, "%s\"value\" is missing or not a number", ctx);
    if (add && !json_is_boolean(add))
        return bad(r, rel, "%s\"additive\" is not a boolean", ctx);
    mt->additive = json_is_true(add);
    s = str_member(r, rel, ctx, o, "aggregation", &mt->aggregation);
    if (!s)
        s = uint_member(r, rel, ctx, o, "samples", &mt->samples, NULL);
    return s;
}

static etp_status read_summary(reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    char *text;
    size_t len;
    etp_status s = read_artifact(r, a, &text, &len);
    if (s)
        return s;
    s = parse_json(r, a->path, text, len, &d->summary_json);
    free(text);
    if (s)
        return s;
    const json_t *arr = json_object_get(d->summary_json, "metrics");
    if (!arr)
        return ETP_OK;
    if (!json_is_array(arr))
        return bad(r, a->path, "\"metrics\" is not an array");
    size_t n = json_array_size(arr);
    if (!(d->metrics = own_calloc(r, n, sizeof *d->metrics)))
        return nomem(r);
    for (size_t i = 0; i < n; i++)
        if ((s = read_metric(r, a->path, json_array_get(arr, i), i, &d->metrics[i])))
            return s;
    d->metric_count = (uint32_t)n;
    return ETP_OK;
}

/* ---- operators.csv / operators.json ----------------------------------- */

/* A cell's type from its text, as the CSV writer produces them: empty is
 * NULL, true/false a boolean, a plain decimal number a number. */
static void type_cell(etp_bundle_cell *c, const char *text)
{
    c->text = text;
    c->type = ETP_CELL_STRING;
    if (!*text) {
        c->type = ETP_CELL_NULL;
        return;
    }
    if (!strcmp(text, "true") || !strcmp(text, "false")) {
        c->type = ETP_CELL_BOOL;
        c->boolean = text[0] == 't';
        return;
    }
    if (strspn(text, "0123456789+-.eE") != strlen(text) || !strpbrk(text, "0123456789"))
        return;
    char *end;
    double v = strtod(text, &end);
    if (*end || !isfinite(v))
        return;
    c->type = ETP_CELL_NUMBER;
    c->number = v;
}

/* Split RFC 4180 CSV text in place: fields end at ',' and records at LF
 * or CRLF; quoted fields may hold commas, quotes ("") and line breaks.
 * Calls @p field for every field (@p end_of_record set on a record's last);
 * the field's text is unescaped and NUL-terminated inside @p buf. */
typedef etp_status (*csv_field_fn)(reader *r, void *ctx, const char *text, int end_of_record,
                                   size_t line);

static etp_status csv_split(reader *r, const char *rel, char *buf, size_t len, csv_field_fn field,
                            void *ctx)
{
    size_t i = 0, line = 1;
    while (i < len) {
        char *out = buf + i, *start = out;
        size_t field_line = line;
        if (buf[i] == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return bad(r, rel, "line %zu: quoted field not closed", field_line);
                if (buf[i] == '"') {
                    if (i + 1 < len && buf[i + 1] == '"') {
                        *out++ = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                line += buf[i] == '\n';
                *out++ = buf[i++];
            }
            if (i < len && buf[i] != ',' && buf[i] != '\n' && buf[i] != '\r')
                return bad(r, rel, "line %zu: text after a quoted field", field_line);
        } else {
            while (i < len && buf[i] != ',' && buf[i] != '\n' && buf[i] != '\r') {
                if (buf[i] == '"')
                    return bad(r, rel, "line %zu: quote inside an unquoted field", line);
                *out++ = buf[i++];
            }
        }
        int eor = 1;
        if (i < len && buf[i] == ',') {
            eor = 0;
            i++;
        } else if (i < len && buf[i] == '\r') {
            if (i + 1 >= len || buf[i + 1] != '\n')
                return bad(r, rel, "line %zu: CR without LF", line);
            i += 2;
            line++;
        } else if (i < len) {
            i++;
            line++;
        }
        *out = '\0'; /* never past the separator just consumed */
        etp_status s = field(r, ctx, start, eor, field_line);
        if (s)
            return s;
        if (!eor && i >= len) /* a trailing comma ends in an empty field */
            return field(r, ctx, buf + len, 1, line);
    }
    return ETP_OK;
}

typedef struct csv_build {
    const char *rel;
    const char **columns;
    uint32_t column_count, column_cap;
    int header_done;
    etp_bundle_cell *cells;
    size_t cell_count, cell_cap;
    uint32_t in_row; /* fields so far in the current record */
} csv_build;

static etp_status csv_field(reader *r, void *ctx, const char *text, int eor, size_t line)
{
    csv_build *b = ctx;
    if (!b->header_done) {
        if (b->column_count == b->column_cap) {
            uint32_t cap = b->column_cap ? b->column_cap * 2 : 32;
            const char **n = realloc(b->columns, cap * sizeof *n);
            if (!n)
                return nomem(r);
            b->columns = n;
            b->column_cap = cap;
        }
        b->columns[b->column_count++] = text;
        b->header_done = eor;
        return ETP_OK;
    }
    if (b->in_row >= b->column_count)
        return bad(r, b->rel, "line %zu has more fields than the header's %u", line,
                   b->column_count);
    if (b->cell_count == b->cell_cap) {
        size_t cap = b->cell_cap ? b->cell_cap * 2 : 1024;
        etp_bundle_cell *n = realloc(b->cells, cap * sizeof *n);
        if (!n)
            return nomem(r);
        b->cells = n;
        b->cell_cap = cap;
    }
    etp_bundle_cell *c = &b->cells[b->cell_count++];
    memset(c, 0, sizeof *c);
    type_cell(c, text);
    b->in_row++;
    if (eor) {
        if (b->in_row != b->column_count)
            return bad(r, b->rel, "line %zu has %u fields, the header %u", line, b->in_row,
                       b->column_count);
        b->in_row = 0;
    }
    return ETP_OK;
}

static etp_status read_operators_csv(reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_table *t = &r->doc->operators;
    char *text;
    size_t len;
    etp_status s = read_artifact(r, a, &text, &len);
    if (s)
        return s;
    if (!own(r, text)) /* the cells' text lives in it */
        return nomem(r);
    csv_build b = {.rel = a->path};
    s = csv_split(r, a->path, text, len, csv_field, &b);
    if (!s && !b.column_count)
        s = bad(r, a->path, "no header row");
    if (!s && b.in_row)
        s = bad(r, a->path, "the last record is incomplete");
    /* own() frees what it cannot keep. */
    if (!s && !own(r, b.columns)) {
        b.columns = NULL;
        s = nomem(r);
    }
    if (!s && b.cells && !own(r, b.cells)) {
        b.cells = NULL;
        s = nomem(r);
    }
    if (s) {
        free(b.columns);
        free(b.cells);
        return s;
    }
    t->source = a->path;
    t->columns = b.columns;
    t->column_count = b.column_count;
    t->row_count = (uint32_t)(b.cell_count / b.column_count);
    t->cells = b.cells;
    return ETP_OK;
}

/* The JSON table: columns are the entities' members, nested objects
 * flattened to "parent.member". */
typedef struct json_build {
    const char *rel;
    const char **columns;
    uint32_t column_count, column_cap;
    etp_bundle_cell *row; /* NULL while collecting columns */
} json_build;

static int find_column(const json_build *b, const char *name)
{
    for (uint32_t i = 0; i < b->column_count; i++)
        if (!strcmp(b->columns[i], name))
            return (int)i;
    return -1;
}

/* A scalar's text as the CSV writer would print it. */
static const char *scalar_text(reader *r, const json_t *v)
{
    char buf[48];
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_true(v))
        return "true";
    if (json_is_false(v))
        return "false";
    if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        etp_format_double(buf, sizeof buf, json_real_value(v));
    else if (json_is_null(v))
        return "";
    else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
        return own(r, s);
    }
    return own_strndup(r, buf, strlen(buf));
}

static etp_status set_cell(reader *r, etp_bundle_cell *c, const json_t *v)
{
    memset(c, 0, sizeof *c);
    if (json_is_array(v)) {
        size_t n = json_array_size(v), total = 1;
        if (!n) {
            c->text = "";
            return ETP_OK;
        }
        const char **parts = malloc(n * sizeof *parts);
        if (!parts)
            return nomem(r);
        for (size_t i = 0; i < n; i++) {
            if (!(parts[i] = scalar_text(r, json_array_get(v, i)))) {
                free(parts);
                return nomem(r);
            }
            total += strlen(parts[i]) + 1;
        }
        char *joined = own(r, malloc(total));
        if (joined) {
            size_t at = 0;
            for (size_t i = 0; i < n; i++) {
                size_t l = strlen(parts[i]);
                if (i)
                    joined[at++] = ' ';
                memcpy(joined + at, parts[i], l);
                at += l;
            }
            joined[at] = '\0';
        }
        free(parts);
        if (!joined)
            return nomem(r);
        c->type = ETP_CELL_STRING;
        c->text = joined;
        return ETP_OK;
    }
    if (!(c->text = scalar_text(r, v)))
        return nomem(r);
    if (json_is_string(v))
        c->type = ETP_CELL_STRING;
    else if (json_is_boolean(v)) {
        c->type = ETP_CELL_BOOL;
        c->boolean = json_is_true(v);
    } else if (json_is_number(v)) {
        c->type = ETP_CELL_NUMBER;
        c->number = json_number_value(v);
    }
    return ETP_OK;
}

static etp_status flatten(reader *r, json_build *b, const json_t *obj, const char *prefix)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        char name[512];
        int len = snprintf(name, sizeof name, "%s%s.", prefix, key);
        if (len < 0 || (size_t)len >= sizeof name)
            return bad(r, b->rel, "a member name longer than %zu bytes", sizeof name - 2);
        if (json_is_object(v)) {
            etp_status s = flatten(r, b, v, name); /* "parent." */
            if (s)
                return s;
            continue;
        }
        name[len - 1] = '\0'; /* a leaf: no trailing dot */
        int col = find_column(b, name);
        if (b->row) {
            etp_status s = col < 0 ? ETP_OK : set_cell(r, &b->row[col], v);
            if (s)
                return s;
            continue;
        }
        if (col >= 0)
            continue;
        if (b->column_count == b->column_cap) {
            uint32_t cap = b->column_cap ? b->column_cap * 2 : 32;
            const char **n = own_calloc(r, cap, sizeof *n);
            if (!n)
                return nomem(r);
            if (b->column_count)
                memcpy(n, b->columns, b->column_count * sizeof *n);
            b->columns = n; /* the old array stays owned until close: small */
            b->column_cap = cap;
        }
        if (!(b->columns[b->column_count] = own_strndup(r, name, strlen(name))))
            return nomem(r);
        b->column_count++;
    }
    return ETP_OK;
}

static etp_status read_operators_json(reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    etp_bundle_table *t = &d->operators;
    char *text;
    size_t len;
    etp_status s = read_artifact(r, a, &text, &len);
    if (s)
        return s;
    s = parse_json(r, a->path, text, len, &d->operators_json);
    free(text);
    if (s)
        return s;
    const json_t *ents = json_object_get(d->operators_json, "entities");
    if (!json_is_array(ents))
        return bad(r, a->path, "\"entities\" is missing or not an array");
    size_t n = json_array_size(ents);
    json_build b = {.rel = a->path};
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(ents, i);
        if (!json_is_object(e))
            return bad(r, a->path, "entities[%zu] is not an object", i);
        if ((s = flatten(r, &b, e, "")))
            return s;
    }
    etp_bundle_cell *cells = own_calloc(r, n * b.column_count, sizeof *cells);
    if (!cells)
        return nomem(r);
    for (size_t k = 0; k < n * b.column_count; k++)
        cells[k].text = "";
    for (size_t i = 0; i < n; i++) {
        b.row = cells + i * b.column_count;
        if ((s = flatten(r, &b, json_array_get(ents, i), "")))
            return s;
    }
    t->source = a->path;
    t->columns = b.columns;
    t->column_count = b.column_count;
    t->row_count = (uint32_t)n;
    t->cells = cells;
    return ETP_OK;
}

/* ---- run_metadata.json ------------------------------------------------ */

static etp_status read_run_metadata(reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    etp_bundle_run_metadata *m = &d->meta;
    char *text;
    size_t len;
    etp_status s = read_artifact(r, a, &text, &len);
    if (s)
        return s;
    s = parse_json(r, a->path, text, len, &d->meta_json);
    free(text);
    if (s)
        return s;
    const json_t *root = d->meta_json, *tool = json_object_get(root, "tool");
    if (tool && !json_is_object(tool))
        return bad(r, a->path, "\"tool\" is not an object");
    s = str_member(r, a->path, "", root, "run_id", &m->run_id);
    if (!s)
        s = str_member(r, a->path, "", root, "timestamp", &m->timestamp);
    if (!s)
        s = str_member(r, a->path, "", root, "command_line", &m->command_line);
    if (!s)
        s = str_member(r, a->path, "tool: ", tool, "name", &m->tool_name);
    if (!s)
        s = str_member(r, a->path, "tool: ", tool, "version", &m->tool_version);
    if (!s)
        s = json_text_member(r, root, "options", &m->options_json);
    if (!s)
        s = read_inputs(r, a->path, json_object_get(root, "inputs"), "inputs", &m->input_count,
                        &m->inputs);
    return s;
}

/* ---- entry points ----------------------------------------------------- */

static etp_status read_content(reader *r)
{
    const etp_bundle_doc *d = r->doc;
    const etp_bundle_artifact_info *a;
    etp_status s = ETP_OK;
    if ((a = etp_bundle_doc_artifact(d, "summary.json")))
        s = read_summary(r, a);
    if (!s && (a = etp_bundle_doc_artifact(d, "operators.csv")))
        s = read_operators_csv(r, a);
    else if (!s && (a = etp_bundle_doc_artifact(d, "operators.json")))
        s = read_operators_json(r, a);
    if (!s && (a = etp_bundle_doc_artifact(d, "run_metadata.json")))
        s = read_run_metadata(r, a);
    return s;
}

/* The verifier's first problem as the error; the report says the rest. */
static etp_status not_verified(const char *dir, const etp_verify_report *rep, etp_error *err)
{
    (void)dir; /* each problem starts with DIR/PATH */
    if (rep->problem_count == 1)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET, "bundle does not verify: %s",
                             rep->problems[0]);
    return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "bundle does not verify: %s (and %u more problems)", rep->problems[0],
                         rep->problem_count - 1);
}

/* Open @p dir; with @p report, verify first and hand the report back. */
static etp_status open_doc(const char *dir, etp_verify_report **report, etp_bundle_doc **out,
                           etp_error *err)
{
    *out = NULL;
    if (report)
        *report = NULL;
    if (!dir || !*dir)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no bundle directory given");
    char *text = NULL;
    size_t len = 0;
    if (report) {
        etp_status s = etp_bundle_verify_keep(dir, report, &text, &len, err);
        if (s)
            return s;
        if ((*report)->problem_count) {
            free(text);
            return not_verified(dir, *report, err);
        }
    }
    etp_bundle_doc *d = calloc(1, sizeof *d);
    reader r = {d, -1, report != NULL, err};
    if (!d || !(d->dir = strdup(dir))) {
        free(d);
        free(text);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    }
    etp_status s = ETP_OK;
    r.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r.dirfd < 0)
        s = etp_error_set(err, ETP_E_IO, dir, ETP_NO_OFFSET,
                          "cannot open the bundle directory: %s", strerror(errno));
    if (!s && !text) {
        /* Unverified: the manifest is still read as the verifier reads it. */
        etp_verify_report *rep = calloc(1, sizeof *rep);
        int oom = 0;
        if (!rep)
            s = nomem(&r);
        else if (!(text = etp_bundle_read_manifest(r.dirfd, dir, rep, &len, &oom)))
            s = oom || !rep->problem_count ? nomem(&r)
                                           : etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                                           "%s", rep->problems[0]);
        etp_verify_report_free(rep);
    }
    if (!s)
        s = read_manifest_doc(&r, text, len);
    if (!s)
        s = read_content(&r);
    free(text);
    if (r.dirfd >= 0)
        close(r.dirfd);
    if (s) {
        etp_bundle_close(d);
        return s;
    }
    *out = d;
    return ETP_OK;
}

etp_status etp_bundle_open(const char *dir, int verify, etp_bundle_doc **out, etp_error *err)
{
    etp_verify_report *rep = NULL;
    etp_status s = open_doc(dir, verify ? &rep : NULL, out, err);
    etp_verify_report_free(rep);
    return s;
}

etp_status etp_bundle_open_report(const char *dir, etp_bundle_doc **out,
                                  etp_verify_report **report, etp_error *err)
{
    return open_doc(dir, report, out, err);
}

void etp_bundle_close(etp_bundle_doc *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->owned_count; i++)
        free(b->owned[i]);
    free(b->owned);
    json_decref(b->manifest_json);
    json_decref(b->summary_json);
    json_decref(b->meta_json);
    json_decref(b->operators_json);
    free(b->dir);
    free(b);
}

const char *etp_bundle_doc_dir(const etp_bundle_doc *b) { return b->dir; }

const etp_bundle_manifest *etp_bundle_doc_manifest(const etp_bundle_doc *b)
{
    return &b->manifest;
}

const etp_bundle_artifact_info *etp_bundle_doc_artifact(const etp_bundle_doc *b, const char *path)
{
    etp_bundle_artifact_info key = {.path = path};
    if (!b->manifest.artifact_count)
        return NULL;
    return bsearch(&key, b->manifest.artifacts, b->manifest.artifact_count, sizeof key,
                   cmp_artifact);
}

const etp_bundle_metric *etp_bundle_doc_metrics(const etp_bundle_doc *b, uint32_t *count)
{
    *count = b->metric_count;
    return b->metric_count ? b->metrics : NULL;
}

const etp_bundle_metric *etp_bundle_doc_metric(const etp_bundle_doc *b, const char *name)
{
    for (uint32_t i = 0; i < b->metric_count; i++)
        if (!strcmp(b->metrics[i].name, name))
            return &b->metrics[i];
    return NULL;
}

const etp_bundle_table *etp_bundle_doc_operators(const etp_bundle_doc *b)
{
    return &b->operators;
}

int etp_bundle_table_column(const etp_bundle_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->column_count; i++)
        if (!strcmp(t->columns[i], name))
            return (int)i;
    return -1;
}

const etp_bundle_cell *etp_bundle_table_cell(const etp_bundle_table *t, uint32_t row, uint32_t col)
{
    return &t->cells[(size_t)row * t->column_count + col];
}

const etp_bundle_run_metadata *etp_bundle_doc_run_metadata(const etp_bundle_doc *b)
{
    return &b->meta;
}
