/* etrecord_zip.c - the ETRecord container: libzip over borrowed bytes,
 * capped listing, bounded streaming reads, and what each entry name means. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

#include "formats/etrecord/etrecord_internal.h"

#define ETR_READ_CHUNK (256u * 1024u)

struct etr_zip {
    zip_t *za;
    uint32_t count;
    char *chunk; /* ETR_READ_CHUNK bytes, reused by every read */
};

/* libzip's error as an etprof status + one-line message. */
static etp_status zip_fail(etp_error *err, const char *file, zip_error_t *ze, const char *what)
{
    int code = zip_error_code_zip(ze);
    etp_status st = ETP_E_FORMAT;
    const char *hint = "";
    switch (code) {
    case ZIP_ER_NOZIP:
        hint = " (no end-of-central-directory record)";
        break;
    case ZIP_ER_EXISTS: /* libzip refuses archives with a repeated name */
        return etp_error_set(err, st, file, ETP_NO_OFFSET,
                             "%s: the central directory lists the same entry name twice", what);
    case ZIP_ER_EOF:
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
        st = ETP_E_TRUNCATED;
        break;
    case ZIP_ER_MEMORY:
        st = ETP_E_NOMEM;
        break;
    default:
        break;
    }
    return etp_error_set(err, st, file, ETP_NO_OFFSET, "%s: %s%s", what, zip_error_strerror(ze),
                         hint);
}

/* Open an archive over @p src (ownership taken). */
static etp_status zip_open_source(zip_source_t *src, const char *file, etr_zip **out,
                                  etp_error *err)
{
    zip_error_t ze;
    zip_error_init(&ze);
    /* CHECKCONS: compare every local header with the central directory. */
    zip_t *za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!za) {
        zip_source_free(src);
        etp_status st = zip_fail(err, file, &ze, "not a readable zip archive");
        zip_error_fini(&ze);
        return st;
    }
    zip_error_fini(&ze);
    zip_int64_t n = zip_get_num_entries(za, 0);
    if (n < 0 || (uint64_t)n > ETP_ETRECORD_MAX_ENTRIES) {
        zip_discard(za);
        return etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                             "zip archive lists %" PRId64 " entries; the limit is %u", (int64_t)n,
                             ETP_ETRECORD_MAX_ENTRIES);
    }
    etr_zip *z = calloc(1, sizeof *z);
    char *chunk = malloc(ETR_READ_CHUNK);
    if (!z || !chunk) {
        free(z);
        free(chunk);
        zip_discard(za);
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "out of memory");
    }
    z->za = za;
    z->count = (uint32_t)n;
    z->chunk = chunk;
    *out = z;
    return ETP_OK;
}

etp_status etr_zip_open(const void *data, size_t size, const char *file, etr_zip **out,
                        etp_error *err)
{
    *out = NULL;
    static const char empty = 0;
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(size ? data : &empty, size, 0, &ze);
    if (!src) {
        etp_status st = zip_fail(err, file, &ze, "not a readable zip archive");
        zip_error_fini(&ze);
        return st;
    }
    return zip_open_source(src, file, out, err);
}

etp_status etr_zip_open_path(const char *path, uint64_t *file_size, etr_zip **out,
                             etp_error *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot open: %s",
                             strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "not a regular file");
    }
    *file_size = (uint64_t)st.st_size;
    zip_error_t ze;
    zip_error_init(&ze);
    /* libzip reads the file through stdio: the archive is never mapped or
     * loaded whole, so memory stays proportional to what is parsed. */
    zip_source_t *src = zip_source_filep_create(fp, 0, -1, &ze);
    if (!src) {
        fclose(fp);
        etp_status rc = zip_fail(err, path, &ze, "not a readable zip archive");
        zip_error_fini(&ze);
        return rc;
    }
    zip_error_fini(&ze);
    return zip_open_source(src, path, out, err);
}

uint32_t etr_zip_count(const etr_zip *z)
{
    return z->count;
}

etp_status etr_zip_stat(etr_zip *z, uint32_t i, etp_zip_entry_info *out, const char *file,
                        etp_error *err)
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z->za, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !st.name)
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                             "zip entry #%u: cannot read its directory record: %s", i,
                             zip_strerror(z->za));
    memset(out, 0, sizeof *out);
    out->name = st.name;
    out->size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    out->compressed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    out->method = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : -1;
    return ETP_OK;
}

/* Check entry @p i against the limits and open it; *declared is its size. */
static etp_status open_entry(etr_zip *z, uint32_t i, const char *entry_name, uint64_t max_raw,
                             const uint64_t *budget, const char *file, zip_file_t **zf,
                             uint64_t *declared, etp_error *err)
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z->za, i, 0, &st) != 0)
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "entry '%s': %s", entry_name,
                             zip_strerror(z->za));
    *declared = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    if (*declared > max_raw)
        return etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                             "entry '%s' declares %" PRIu64 " bytes; the limit for a parsed entry "
                             "is %" PRIu64,
                             entry_name, *declared, max_raw);
    if (*declared > *budget)
        return etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                             "entry '%s' (%" PRIu64 " bytes) exceeds the remaining total budget of "
                             "%" PRIu64 " bytes for parsed entries",
                             entry_name, *declared, *budget);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "entry '%s' is encrypted",
                             entry_name);
    *zf = zip_fopen_index(z->za, i, 0);
    if (!*zf)
        return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET, "entry '%s': cannot open: %s",
                             entry_name, zip_strerror(z->za));
    return ETP_OK;
}

static etp_status read_failed(zip_file_t *zf, const char *file, const char *entry_name,
                              uint64_t total, etp_error *err)
{
    zip_error_t *ze = zip_file_get_error(zf);
    int code = zip_error_code_zip(ze);
    return etp_error_set(err,
                         code == ZIP_ER_EOF || code == ZIP_ER_READ ? ETP_E_TRUNCATED
                         : code == ZIP_ER_MEMORY                  ? ETP_E_NOMEM
                                                                  : ETP_E_FORMAT,
                         file, ETP_NO_OFFSET, "entry '%s': read failed after %" PRIu64 " bytes: %s",
                         entry_name, total, zip_error_strerror(ze));
}

static etp_status too_long(const char *file, const char *entry_name, uint64_t declared,
                           etp_error *err)
{
    return etp_error_set(err, ETP_E_FORMAT, file, ETP_NO_OFFSET,
                         "entry '%s' holds more than its declared %" PRIu64 " bytes", entry_name,
                         declared);
}

static etp_status too_short(const char *file, const char *entry_name, uint64_t total,
                            uint64_t declared, etp_error *err)
{
    return etp_error_set(err, ETP_E_TRUNCATED, file, ETP_NO_OFFSET,
                         "entry '%s' holds %" PRIu64 " bytes but declares %" PRIu64, entry_name,
                         total, declared);
}

etp_status etr_zip_read(etr_zip *z, uint32_t i, const char *entry_name, etr_squeeze *sq,
                        uint64_t max_raw, uint64_t *budget, const char *file, etp_error *err)
{
    zip_file_t *zf = NULL;
    uint64_t declared = 0;
    etp_status rc = open_entry(z, i, entry_name, max_raw, budget, file, &zf, &declared, err);
    if (rc)
        return rc;
    etr_squeeze_expect(sq, declared);
    uint64_t total = 0;
    for (;;) {
        zip_int64_t n = zip_fread(zf, z->chunk, ETR_READ_CHUNK);
        if (n < 0) {
            rc = read_failed(zf, file, entry_name, total, err);
            break;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        /* Never trust the declared size: stop as soon as the real data
         * passes it or a cap. */
        if (total > declared) {
            rc = too_long(file, entry_name, declared, err);
            break;
        }
        if (etr_squeeze_feed(sq, z->chunk, (size_t)n)) {
            rc = sq->failed == 2
                     ? etp_error_set(err, ETP_E_LIMIT, file, ETP_NO_OFFSET,
                                     "entry '%s': JSON text over %zu bytes even without huge "
                                     "strings",
                                     entry_name, sq->max_len)
                     : etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET,
                                     "entry '%s': out of memory after %" PRIu64 " bytes",
                                     entry_name, total);
            break;
        }
    }
    zip_fclose(zf);
    if (rc == ETP_OK && total != declared)
        rc = too_short(file, entry_name, total, declared, err);
    *budget -= total <= *budget ? total : *budget;
    return rc;
}

etp_status etr_zip_read_whole(etr_zip *z, uint32_t i, const char *entry_name, uint64_t max_raw,
                              uint64_t *budget, const char *file, char **out, size_t *len,
                              etp_error *err)
{
    *out = NULL;
    *len = 0;
    zip_file_t *zf = NULL;
    uint64_t declared = 0;
    etp_status rc = open_entry(z, i, entry_name, max_raw, budget, file, &zf, &declared, err);
    if (rc)
        return rc;
    char *buf = declared < SIZE_MAX ? malloc((size_t)declared + 1) : NULL;
    if (!buf) {
        zip_fclose(zf);
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET,
                             "entry '%s': out of memory for %" PRIu64 " bytes", entry_name,
                             declared);
    }
    etr_hint_huge_pages(buf, (size_t)declared + 1);
    uint64_t total = 0;
    for (;;) {
        /* Straight into the buffer; past the declared size, one byte more
         * into the chunk shows whether the entry is longer than it says. */
        int past = total == declared;
        zip_int64_t n = past ? zip_fread(zf, z->chunk, 1)
                             : zip_fread(zf, buf + total, (zip_uint64_t)(declared - total));
        if (n < 0) {
            rc = read_failed(zf, file, entry_name, total, err);
            break;
        }
        if (n == 0)
            break;
        if (past) {
            rc = too_long(file, entry_name, declared, err);
            break;
        }
        total += (uint64_t)n;
    }
    zip_fclose(zf);
    if (rc == ETP_OK && total != declared)
        rc = too_short(file, entry_name, total, declared, err);
    *budget -= total <= *budget ? total : *budget;
    if (rc) {
        free(buf);
        return rc;
    }
    buf[total] = '\0';
    *out = buf;
    *len = (size_t)total;
    return ETP_OK;
}

void etr_zip_close(etr_zip *z)
{
    if (!z)
        return;
    zip_discard(z->za);
    free(z->chunk);
    free(z);
}

/* ---- names ------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

#define EDGE_NAME "edge_dialect_exported_program"

etp_etrecord_role etr_classify(const char *name, const char **method_out)
{
    static const struct {
        const char *name;
        etp_etrecord_role kind;
    } reserved[] = {
        {"ETRECORD_V0", ETP_ETR_MARKER},
        {"debug_handle_map", ETP_ETR_DEBUG_HANDLE_MAP},
        {"delegate_map", ETP_ETR_DELEGATE_MAP},
        {"instruction_id_to_num_outs_map", ETP_ETR_NUM_OUTS_MAP},
        {"export_graph_id", ETP_ETR_EXPORT_GRAPH_ID},
        {"reference_outputs", ETP_ETR_REFERENCE_OUTPUTS},
        {"representative_inputs", ETP_ETR_REPRESENTATIVE_INPUTS},
        /* Written only by 2023 writers; never JSON we need (program_buffer
         * is the raw .pte). */
        {"et_dialect_graph_module", ETP_ETR_RESERVED_UNUSED},
        {"program_buffer", ETP_ETR_RESERVED_UNUSED},
        {"exported_program", ETP_ETR_EXPORTED_PROGRAM},
        {EDGE_NAME, ETP_ETR_EDGE_PROGRAM},
    };
    *method_out = NULL;
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
        if (strcmp(name, reserved[k].name) == 0) {
            if (reserved[k].kind == ETP_ETR_EXPORTED_PROGRAM ||
                reserved[k].kind == ETP_ETR_EDGE_PROGRAM)
                *method_out = "forward";
            return reserved[k].kind;
        }
    size_t len = strlen(name);
    if (len && name[len - 1] == '/')
        return ETP_ETR_DIRECTORY;
    if (strncmp(name, EDGE_NAME "/", sizeof EDGE_NAME) == 0 && !ends_with(name, "_state_dict") &&
        !ends_with(name, "_constants") && !ends_with(name, "_example_inputs")) {
        *method_out = name + sizeof EDGE_NAME;
        return ETP_ETR_EDGE_PROGRAM;
    }
    if (ends_with(name, "state_dict") || ends_with(name, "constants") ||
        ends_with(name, "example_inputs"))
        return ETP_ETR_SIDE_BLOB;
    const char *slash = strrchr(name, '/');
    *method_out = slash ? slash + 1 : "forward";
    return ETP_ETR_GRAPH_MAP_PROGRAM;
}

const char *etr_role_name(etp_etrecord_role k)
{
    switch (k) {
    case ETP_ETR_MARKER: return "marker";
    case ETP_ETR_EDGE_PROGRAM: return "edge_program";
    case ETP_ETR_EXPORTED_PROGRAM: return "exported_program";
    case ETP_ETR_GRAPH_MAP_PROGRAM: return "graph_map_program";
    case ETP_ETR_SIDE_BLOB: return "side_blob";
    case ETP_ETR_DEBUG_HANDLE_MAP: return "debug_handle_map";
    case ETP_ETR_DELEGATE_MAP: return "delegate_map";
    case ETP_ETR_NUM_OUTS_MAP: return "num_outs_map";
    case ETP_ETR_EXPORT_GRAPH_ID: return "export_graph_id";
    case ETP_ETR_REFERENCE_OUTPUTS: return "reference_outputs";
    case ETP_ETR_REPRESENTATIVE_INPUTS: return "representative_inputs";
    case ETP_ETR_RESERVED_UNUSED: return "reserved_unused";
    case ETP_ETR_DIRECTORY: return "directory";
    }
    return "unknown";
}

/* The marker was never versioned, so the layout is read from which entries
 * exist, against the writer history (spec §3.3). */
void etr_guess_layout(const etp_zip_entry_info *e, uint32_t n, const char **layout,
                      const char **reason)
{
    int edge_method = 0, edge_bare = 0, constants = 0, exported = 0, graph_id = 0, num_outs = 0;
    int reference = 0, representative = 0, old_et = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = e[i].name;
        switch (e[i].kind) {
        case ETP_ETR_EDGE_PROGRAM:
            if (strcmp(nm, EDGE_NAME) == 0)
                edge_bare = 1;
            else
                edge_method = 1;
            break;
        case ETP_ETR_SIDE_BLOB:
            if (ends_with(nm, "_constants") || ends_with(nm, "_example_inputs"))
                constants = 1;
            break;
        case ETP_ETR_EXPORTED_PROGRAM: exported = 1; break;
        case ETP_ETR_EXPORT_GRAPH_ID: graph_id = 1; break;
        case ETP_ETR_NUM_OUTS_MAP: num_outs = 1; break;
        case ETP_ETR_REFERENCE_OUTPUTS: reference = 1; break;
        case ETP_ETR_REPRESENTATIVE_INPUTS: representative = 1; break;
        case ETP_ETR_RESERVED_UNUSED: old_et = 1; break;
        case ETP_ETR_GRAPH_MAP_PROGRAM:
            if (strncmp(nm, "et_dialect_graph_module/", 24) == 0)
                old_et = 1;
            break;
        default: break;
        }
    }
    if (edge_method) {
        *layout = "2026 per-method";
        *reason = "edge_dialect_exported_program/<method> entries (writers since 2026-02)";
    } else if (edge_bare && num_outs) {
        *layout = "2025 single program";
        *reason = "bare edge_dialect_exported_program with instruction_id_to_num_outs_map "
                  "(writers 2025-09 to 2026-01)";
    } else if (edge_bare && (exported || graph_id)) {
        *layout = "2025 single program";
        *reason = "bare edge_dialect_exported_program with exported_program/export_graph_id, no "
                  "num_outs map (writers 2025-07 to 2025-08)";
    } else if (edge_bare && representative) {
        *layout = "2025 single program";
        *reason = "bare edge_dialect_exported_program with representative_inputs (writers "
                  "2025-05 to 2025-06)";
    } else if (edge_bare && constants) {
        *layout = "2024 single program";
        *reason = "bare edge_dialect_exported_program with _constants/_example_inputs side blobs "
                  "(writers 2024-07 to 2025-04)";
    } else if (edge_bare && reference) {
        *layout = "2023 single program";
        *reason = "bare edge_dialect_exported_program with reference_outputs, no _constants side "
                  "blobs (writers 2023-11 to 2024-06)";
    } else if (edge_bare) {
        *layout = "2023 single program";
        *reason = "bare edge_dialect_exported_program, no _constants side blobs (writers 2023-09 "
                  "to 2024-06)";
    } else if (old_et) {
        *layout = "2023 initial";
        *reason = "et_dialect_graph_module/program_buffer entries and no edge program (writers "
                  "2023-07 to 2023-09)";
    } else {
        *layout = "unknown";
        *reason = "no edge_dialect_exported_program entry";
    }
}
