/*
 * etprof/nx_record.h - decode the VGF neural-accelerator (NX) statistics an
 * ExecuTorch VgfBackend records in an ETDump: the delegate event
 * "VGF_NEURAL_STATISTICS", whose metadata is a JSON wrapper (schema
 * "executorch.vgf.neural_statistics", version 1 or 2) holding, per VGF
 * segment, three base64 blobs: the compiler's debug database, the
 * statistics info (the stripe ids) and the raw statistics memory (counter
 * words, one block of tasks per stripe).
 *
 * Three steps, each usable alone:
 *   1. etp_nx_record_parse(): the wrapper, strictly (schema, version, every
 *      v2 key, strict base64, decoded length == "size").
 *   2. etp_nx_settings_resolve(): the layout to decode with, from the v2
 *      declarations (checked against the layout table) or, for v1 and
 *      undeclared parts, from caller fallbacks and documented defaults
 *      (recorded in fallback_fields, with a note).
 *   3. etp_nx_segment_decode(): one segment's blobs into stripe rows
 *      (cycles and counters per stripe, in statistics-info order), with the
 *      chain and cascade of each stripe from the debug database.
 * Where the public description of the layout stops (the leading block, the
 * core of a mode-1 task) the reading is a parameter of etp_nx_options, and
 * the one used is recorded in etp_nx_settings and named in a note whenever
 * it is an assumption that can change a number.
 *
 * Units: every cycle figure is a count of accelerator clock cycles derived
 * from activity counters (not elapsed time), kept as uint64_t.
 *
 * Ownership: etp_nx_record, etp_nx_ddb and etp_nx_decoded own everything
 * reachable from them and are released with their _free() function (all
 * safe on NULL). The layout table is static and read-only.
 *
 * Thread safety: no function keeps state between calls; different objects
 * may be used from different threads at once, and a finished object may be
 * read by any number of threads.
 */
#ifndef ETPROF_VGF_STATS_H
#define ETPROF_VGF_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The wrapper's "schema" value and the delegate event's name. */
#define ETP_NX_SCHEMA "executorch.vgf.neural_statistics"
#define ETP_NX_EVENT_NAME "VGF_NEURAL_STATISTICS"
/** Most words a task has in any known layout. */
#define ETP_NX_MAX_WORDS 64u

/** The NX generations whose counter layouts are known. */
typedef enum etp_nx_device { ETP_NX_DEVICE_NONE = 0, ETP_NX_MALI_G1 = 1, ETP_NX_MALI_G2 = 2 } etp_nx_device;

/** How the core of a mode-1 task is found (the per-core maximum's key). */
typedef enum etp_nx_core_key {
    /** Default: all tasks of a block count as one core (exact on a
     *  single-core target such as "... MC1"; otherwise an assumption that is
     *  named in a note). */
    ETP_NX_CORE_SINGLE = 0,
    /** Word 0 of each task (the only unnamed word of mode 1) is its core
     *  index (0..ETP_NX_MAX_CORES-1). */
    ETP_NX_CORE_WORD0 = 1
} etp_nx_core_key;
#define ETP_NX_MAX_CORES 64u

/** One statistics-memory layout: (device, mode) -> shape and counters. */
typedef struct etp_nx_layout {
    etp_nx_device device;
    int mode;                        /**< 0: STATISTICS0, 1: STATISTICS1 */
    uint32_t words_per_task;
    uint32_t tasks_per_block;
    uint32_t leading_blocks;         /**< the layout's leading block count (1) */
    const char *schema_id;           /**< the v2 counter_layout schema_id ExecuTorch writes for it,
                                          or NULL when it registers none (Mali-G1) */
    uint32_t counter_count;          /**< named counters */
    const uint8_t *counter_word;     /**< counter k is word counter_word[k] of a task */
    const char *const *counter_name; /**< counter k's name ("nx_active", "section_3") */
    int op_counter;                  /**< counter index of op/total cycles in mode 1 (nx_active), -1 in mode 0 */
} etp_nx_layout;

/** The layout of (@p device, @p mode), or NULL when none is known. Pure. */
const etp_nx_layout *etp_nx_layout_get(etp_nx_device device, int mode);
/** "Mali-G1", "Mali-G2" or "none" (static). */
const char *etp_nx_device_name(etp_nx_device device);
/** Parse "Mali-G1"/"Mali-G2" (as a setting); ETP_NX_DEVICE_NONE otherwise. */
etp_nx_device etp_nx_device_parse(const char *s);
/** Generation from a target: vendor 0x13B5 and a name matching
 *  ^Mali-G([12])($|[- ]); ETP_NX_DEVICE_NONE otherwise. Pure. */
etp_nx_device etp_nx_device_from_target(uint32_t vendor_id, const char *device_name);

/* ---- 1. the wrapper ------------------------------------------------------ */

enum { ETP_NX_DEBUG_DATABASE = 0, ETP_NX_STATISTICS_INFO = 1, ETP_NX_STATISTICS_MEMORY = 2, ETP_NX_BLOBS = 3 };
/** "debug_database", "statistics_info", "statistics_memory" (static). */
const char *etp_nx_blob_name(int which);

typedef struct etp_nx_blob {
    int available;
    int is_text;
    int32_t vulkan_result;
    uint64_t size;          /**< the declared decoded size (checked == len) */
    char *reason;
    uint8_t *data;          /**< decoded bytes (owned; NULL when len is 0) */
    size_t len;
} etp_nx_blob;

typedef struct etp_nx_segment {
    int64_t segment_id;
    int is_data_graph_pipeline;
    int bind_point_available, host_visible, host_coherent;
    char *bind_point_reason;
    etp_nx_blob blob[ETP_NX_BLOBS];
} etp_nx_segment;

typedef struct etp_nx_record {
    int schema_version;             /**< 1 or 2 */
    char *backend, *api, *event_name;
    int api_available, data_available;
    char *reason;
    /* v2 only (has_v2_settings): */
    int has_v2_settings;
    int64_t mode_index, vulkan_value;
    char *vulkan_name;
    int target_available;
    char *device_name;
    uint64_t vendor_id, device_id, driver_version;
    int layout_available;
    char *layout_schema_id;
    int64_t layout_schema_version;
    char *endianness, *word_type;
    int64_t words_per_task, leading_block_count;
    char *layout_reason;
    etp_nx_segment *segments;
    uint32_t segment_count;
} etp_nx_record;

/** Whether @p n bytes of delegate metadata claim the schema (contain
 *  ETP_NX_SCHEMA): such metadata must parse, or the capture is malformed. */
int etp_nx_claims_schema(const uint8_t *text, size_t n);

/**
 * Parse the wrapper JSON in @p n bytes at @p text. Every check of the
 * format is applied: schema string, schema_version 1 or 2, the v2 objects
 * with all their keys and types, per blob encoding "base64", strict base64
 * and decoded length == size. @p where names the event in errors (e.g.
 * "run 3 instruction 2"). On success *out is a new record (free with
 * etp_nx_record_free()). ETP_E_FORMAT on any defect, ETP_E_NOMEM, ETP_E_LIMIT
 * (more than 4096 segments or 1 GiB of text).
 */
etp_status etp_nx_record_parse(const uint8_t *text, size_t n, const char *where,
                               etp_nx_record **out, etp_error *err);
void etp_nx_record_free(etp_nx_record *r);

/* ---- 2. settings --------------------------------------------------------- */

/** Caller choices. Start from etp_nx_options_defaults(). */
typedef struct etp_nx_options {
    int statistics_mode;            /**< fallback mode 0/1 for records without one, -1: none */
    etp_nx_device profiling_device; /**< fallback device, NONE: none */
    int leading_blocks;             /**< -1: the record's / default 1; else 0 or 1, forced */
    etp_nx_core_key core_key;
} etp_nx_options;

void etp_nx_options_defaults(etp_nx_options *o);

/** Names of settings that were assumed, not recorded (bits). */
enum {
    ETP_NX_FB_MODE = 1u << 0,           /**< "statistics_mode" */
    ETP_NX_FB_DEVICE = 1u << 1,         /**< "profiling_device" */
    ETP_NX_FB_LEADING = 1u << 2,        /**< "leading_block_count" */
    ETP_NX_FB_CORE = 1u << 3            /**< "core_key" (mode 1, target not known single-core) */
};
/** Name of fallback bit @p bit (static), NULL for an unknown bit. */
const char *etp_nx_fallback_name(unsigned bit);

typedef struct etp_nx_settings {
    const etp_nx_layout *layout;
    etp_nx_device device;
    int mode;
    uint32_t leading_blocks;        /**< blocks before stripe 0's block */
    etp_nx_core_key core_key;
    int single_core_target;         /**< the target name says MC1 */
    unsigned fallback_fields;       /**< ETP_NX_FB_* */
    char device_source[32];         /**< "counter_layout", "target", "fallback", "default" */
    char mode_source[32];           /**< "statistics_mode", "fallback", "default" */
} etp_nx_settings;

/** A warning or note found while decoding: a stable code and a message. */
typedef struct etp_nx_note {
    const char *code;               /**< static, e.g. "vgf.decoder_fallback" */
    char message[320];
} etp_nx_note;

typedef struct etp_nx_notes {
    etp_nx_note *items;
    size_t count, cap;
} etp_nx_notes;
void etp_nx_notes_free(etp_nx_notes *n);

/**
 * The settings to decode @p r with. v2 declarations are used and checked
 * (a declared counter-layout schema version other than 1, a vulkan_value
 * other than index + 1, a schema_id mode or device that disagrees, words per
 * task, leading block count, endianness or word type other than the table's
 * are ETP_E_FORMAT naming the setting; a caller fallback that disagrees with
 * a recorded value is ETP_E_MISMATCH). v1 (and undeclared parts of v2) take
 * the fallbacks, else mode 1 and Mali-G2, listed in fallback_fields with a
 * note in @p notes (may be NULL).
 */
etp_status etp_nx_settings_resolve(const etp_nx_record *r, const etp_nx_options *o, const char *where,
                                   etp_nx_settings *s, etp_nx_notes *notes, etp_error *err);

/* ---- 3. blobs ------------------------------------------------------------ */

/** A parsed debug database: its first seven sections and the maps built
 *  from them. Lookups below return NULL / 0 when absent. */
typedef struct etp_nx_ddb etp_nx_ddb;

/**
 * Parse a debug database blob (optional 12-byte frame of magic 0x1122FFEE,
 * then UTF-8 text of '----'-separated TAB tables). @p known_labels
 * (may be NULL) are SPIR-V debug names tried first when splitting
 * api_labels cells. ETP_E_FORMAT names the problem and the line.
 */
etp_status etp_nx_ddb_parse(const uint8_t *data, size_t n, const char *const *known_labels,
                            size_t known_count, const char *where, etp_nx_ddb **out, etp_error *err);
void etp_nx_ddb_free(etp_nx_ddb *d);
/** Number of rows in section @p k (0..6). */
uint32_t etp_nx_ddb_rows(const etp_nx_ddb *d, int k);

/** The chains / cascades / fused ops / TOSA ops of a stripe. */
typedef struct etp_nx_strlist { const char *const *v; uint32_t n; } etp_nx_strlist;
/** Chain ids of stripe index @p stripe (section 7 -> 6). */
etp_nx_strlist etp_nx_ddb_stripe_chains(const etp_nx_ddb *d, uint32_t stripe);
etp_nx_strlist etp_nx_ddb_stripe_cascades(const etp_nx_ddb *d, uint32_t stripe);
/** Fused op ids of chain @p chain (section 4). */
etp_nx_strlist etp_nx_ddb_chain_fused(const etp_nx_ddb *d, const char *chain);
/** TOSA op ids of fused op @p fused (section 3). */
etp_nx_strlist etp_nx_ddb_fused_tosa(const etp_nx_ddb *d, const char *fused);
/** Type names and API labels of TOSA op @p tosa (section 1); found = 0 when absent. */
etp_nx_strlist etp_nx_ddb_tosa_types(const etp_nx_ddb *d, const char *tosa, int *found);
etp_nx_strlist etp_nx_ddb_tosa_labels(const etp_nx_ddb *d, const char *tosa);

/**
 * Split an api_labels cell: known labels first (longest first), then whole
 * JSON values, else up to the next ';' (trimmed, empty items dropped).
 * Fills @p out (caller frees each item and the array) with *count items.
 */
etp_status etp_nx_split_labels(const char *cell, size_t len, const char *const *known, size_t known_count,
                               char ***out, uint32_t *count);

/**
 * Stripe ids of a statistics-info blob: text (is_text: decimal or 0x hex
 * tokens separated by whitespace, ',' or ';') or binary (optional 12-byte
 * frame of magic 0x2211EEFF, then LE u32). Duplicates are an error.
 * *ids is malloc'ed (free()).
 */
etp_status etp_nx_info_parse(const uint8_t *data, size_t n, int is_text, const char *where,
                             uint32_t **ids, uint32_t *count, etp_error *err);

/** One stripe's measurement in one execution. */
typedef struct etp_nx_stripe {
    uint32_t id;              /**< stripe index */
    int zero_row;             /**< listed in info, but its block had no non-zero task */
    uint64_t op_cycles;       /**< cycles */
    uint64_t total_cycles;    /**< cycles */
    uint64_t *counters;       /**< layout->counter_count values (cycles), in the decoded's array */
    const char *chain;        /**< chain id (debug database, or the fill-in "chain_<s>") */
    const char *cascade;      /**< cascade id (or "cascade_<s>") */
    int chain_filled, cascade_filled; /**< 1 when a fill-in */
} etp_nx_stripe;

/** One segment decoded. */
typedef struct etp_nx_decoded {
    const etp_nx_layout *layout;
    uint32_t leading_blocks;
    uint64_t blocks;          /**< blocks in the memory (incl. leading ones, the last maybe partial) */
    uint64_t leading_nonzero_words; /**< non-zero words in the leading block(s) (not decoded) */
    uint32_t max_cores_seen;  /**< distinct cores summed (mode 1) */
    etp_nx_stripe *stripes;   /**< in statistics-info order */
    uint32_t stripe_count;
    uint64_t *counter_store;
    char **strings;           /**< fill-in names owned by the decoded */
    uint32_t string_count;
} etp_nx_decoded;

/**
 * Decode segment @p seg of a record with settings @p s: all three blobs
 * must be available and non-empty (else ETP_E_FORMAT naming the blob);
 * memory: 4-byte words, >= 1 word, a multiple of 16 words and of the task
 * size; stripes: every non-zero block must be listed in the info, every
 * listed id must be inside the block range unless its row is zero.
 * @p ddb may be NULL (the segment's debug database is parsed then); chains
 * and cascades: at most one each per stripe, else ETP_E_FORMAT.
 * @p where names the event and segment in errors.
 */
etp_status etp_nx_segment_decode(const etp_nx_segment *seg, const etp_nx_settings *s,
                                 const etp_nx_ddb *ddb, const char *where, etp_nx_decoded **out,
                                 etp_error *err);
void etp_nx_decoded_free(etp_nx_decoded *d);

/**
 * Only the statistics memory: @p words little-endian u32 at @p mem into
 * rows for @p ids (the info list) with @p s. Used by etp_nx_segment_decode;
 * public for tests and benchmarks. Chains/cascades are left NULL.
 */
etp_status etp_nx_memory_decode(const uint8_t *mem, size_t n, const uint32_t *ids, uint32_t id_count,
                                const etp_nx_settings *s, const char *where, etp_nx_decoded **out,
                                etp_error *err);

/** Strict standard base64 (A-Z a-z 0-9 + /, '=' padding only at the end,
 *  length a multiple of 4, no whitespace). *out malloc'ed (free()), NULL
 *  when empty. Returns 0, -1 on invalid text (*bad = offending offset), -2 OOM. */
int etp_nx_base64_decode(const char *s, size_t n, uint8_t **out, size_t *len, size_t *bad);

#ifdef __cplusplus
}
#endif
#endif
