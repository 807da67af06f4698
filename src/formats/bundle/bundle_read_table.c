/* bundle_read_table.c - the tables of a bundle read back: operators.csv
 * (RFC 4180; detailed/figures.csv the same way) or operators.json, as typed
 * cells. */
#include "formats/bundle/bundle_read_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"

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
typedef etp_status (*csv_field_fn)(etp_bundle_reader *r, void *ctx, const char *text,
                                   int end_of_record, size_t line);

static etp_status csv_split(etp_bundle_reader *r, const char *rel, char *buf, size_t len,
                            csv_field_fn field, void *ctx)
{
    size_t i = 0, line = 1;
    while (i < len) {
        char *out = buf + i, *start = out;
        size_t field_line = line;
        if (buf[i] == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return etp_bread_bad(r, rel, "line %zu: quoted field not closed", field_line);
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
                return etp_bread_bad(r, rel, "line %zu: text after a quoted field", field_line);
        } else {
            while (i < len && buf[i] != ',' && buf[i] != '\n' && buf[i] != '\r') {
                if (buf[i] == '"')
                    return etp_bread_bad(r, rel, "line %zu: quote inside an unquoted field", line);
                *out++ = buf[i++];
            }
        }
        int eor = 1;
        if (i < len && buf[i] == ',') {
            eor = 0;
            i++;
        } else if (i < len && buf[i] == '\r') {
            if (i + 1 >= len || buf[i + 1] != '\n')
                return etp_bread_bad(r, rel, "line %zu: CR without LF", line);
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

static etp_status csv_field(etp_bundle_reader *r, void *ctx, const char *text, int eor, size_t line)
{
    csv_build *b = ctx;
    if (!b->header_done) {
        if (b->column_count == b->column_cap) {
            uint32_t cap = b->column_cap ? b->column_cap * 2 : 32;
            const char **n = realloc(b->columns, cap * sizeof *n);
            if (!n)
                return etp_bread_nomem(r);
            b->columns = n;
            b->column_cap = cap;
        }
        b->columns[b->column_count++] = text;
        b->header_done = eor;
        return ETP_OK;
    }
    if (b->in_row >= b->column_count)
        return etp_bread_bad(r, b->rel, "line %zu has more fields than the header's %u", line,
                             b->column_count);
    if (b->cell_count == b->cell_cap) {
        size_t cap = b->cell_cap ? b->cell_cap * 2 : 1024;
        etp_bundle_cell *n = realloc(b->cells, cap * sizeof *n);
        if (!n)
            return etp_bread_nomem(r);
        b->cells = n;
        b->cell_cap = cap;
    }
    etp_bundle_cell *c = &b->cells[b->cell_count++];
    memset(c, 0, sizeof *c);
    type_cell(c, text);
    b->in_row++;
    if (eor) {
        if (b->in_row != b->column_count)
            return etp_bread_bad(r, b->rel, "line %zu has %u fields, the header %u", line,
                                 b->in_row, b->column_count);
        b->in_row = 0;
    }
    return ETP_OK;
}

etp_status etp_bread_csv_table(etp_bundle_reader *r, const etp_bundle_artifact_info *a,
                               etp_bundle_table *t)
{
    char *text;
    size_t len;
    etp_status s = etp_bread_artifact(r, a, &text, &len);
    if (s)
        return s;
    if (!etp_bread_own(r, text)) /* the cells' text lives in it */
        return etp_bread_nomem(r);
    csv_build b = {.rel = a->path};
    s = csv_split(r, a->path, text, len, csv_field, &b);
    if (!s && !b.column_count)
        s = etp_bread_bad(r, a->path, "no header row");
    if (!s && b.in_row)
        s = etp_bread_bad(r, a->path, "the last record is incomplete");
    /* etp_bread_own() frees what it cannot keep. */
    if (!s && !etp_bread_own(r, b.columns)) {
        b.columns = NULL;
        s = etp_bread_nomem(r);
    }
    if (!s && b.cells && !etp_bread_own(r, b.cells)) {
        b.cells = NULL;
        s = etp_bread_nomem(r);
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
static const char *scalar_text(etp_bundle_reader *r, const json_t *v)
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
        return etp_bread_own(r, s);
    }
    return etp_bread_strndup(r, buf, strlen(buf));
}

static etp_status set_cell(etp_bundle_reader *r, etp_bundle_cell *c, const json_t *v)
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
            return etp_bread_nomem(r);
        for (size_t i = 0; i < n; i++) {
            if (!(parts[i] = scalar_text(r, json_array_get(v, i)))) {
                free(parts);
                return etp_bread_nomem(r);
            }
            total += strlen(parts[i]) + 1;
        }
        char *joined = etp_bread_own(r, malloc(total));
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
            return etp_bread_nomem(r);
        c->type = ETP_CELL_STRING;
        c->text = joined;
        return ETP_OK;
    }
    if (!(c->text = scalar_text(r, v)))
        return etp_bread_nomem(r);
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

static etp_status flatten(etp_bundle_reader *r, json_build *b, const json_t *obj,
                          const char *prefix)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        char name[512];
        int len = snprintf(name, sizeof name, "%s%s.", prefix, key);
        if (len < 0 || (size_t)len >= sizeof name)
            return etp_bread_bad(r, b->rel, "a member name longer than %zu bytes", sizeof name - 2);
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
            const char **n = etp_bread_calloc(r, cap, sizeof *n);
            if (!n)
                return etp_bread_nomem(r);
            if (b->column_count)
                memcpy(n, b->columns, b->column_count * sizeof *n);
            b->columns = n; /* the old array stays owned until close: small */
            b->column_cap = cap;
        }
        if (!(b->columns[b->column_count] = etp_bread_strndup(r, name, strlen(name))))
            return etp_bread_nomem(r);
        b->column_count++;
    }
    return ETP_OK;
}

/* Row @p i of the table: "entities" first, then "nx_groups" (the VGF NX
 * rows; operators.csv holds them after the entities too). */
static const json_t *json_row(const json_t *ents, const json_t *groups, size_t i)
{
    size_t n = json_array_size(ents);
    return i < n ? json_array_get(ents, i) : json_array_get(groups, i - n);
}

etp_status etp_bread_operators_json(etp_bundle_reader *r, const etp_bundle_artifact_info *a)
{
    etp_bundle_doc *d = r->doc;
    etp_bundle_table *t = &d->operators;
    etp_status s = etp_bread_artifact_json(r, a, &d->operators_json);
    if (s)
        return s;
    const json_t *ents = json_object_get(d->operators_json, "entities");
    if (!json_is_array(ents))
        return etp_bread_bad(r, a->path, "\"entities\" is missing or not an array");
    const json_t *groups = json_object_get(d->operators_json, "nx_groups");
    if (groups && !json_is_array(groups))
        return etp_bread_bad(r, a->path, "\"nx_groups\" is not an array");
    size_t n = json_array_size(ents) + json_array_size(groups);
    json_build b = {.rel = a->path};
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_row(ents, groups, i);
        if (!json_is_object(e)) {
            size_t ne = json_array_size(ents);
            return i < ne ? etp_bread_bad(r, a->path, "entities[%zu] is not an object", i)
                          : etp_bread_bad(r, a->path, "nx_groups[%zu] is not an object", i - ne);
        }
        if ((s = flatten(r, &b, e, "")))
            return s;
    }
    etp_bundle_cell *cells = etp_bread_calloc(r, n * b.column_count, sizeof *cells);
    if (!cells)
        return etp_bread_nomem(r);
    for (size_t k = 0; k < n * b.column_count; k++)
        cells[k].text = "";
    for (size_t i = 0; i < n; i++) {
        b.row = cells + i * b.column_count;
        if ((s = flatten(r, &b, json_row(ents, groups, i), "")))
            return s;
    }
    t->source = a->path;
    t->columns = b.columns;
    t->column_count = b.column_count;
    t->row_count = (uint32_t)n;
    t->cells = cells;
    return ETP_OK;
}
