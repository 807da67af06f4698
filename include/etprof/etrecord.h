/*
 * etprof/etrecord.h - read an ETRecord: the zip of JSON the ExecuTorch export
 * flow writes next to a .pte, linking runtime instructions to graph nodes.
 *
 * Everything is read once at open time: the zip's entries are listed and
 * classified, every exported-program entry is parsed into a flat node list,
 * and the JSON maps (debug handles, delegates, output counts, graph id) are
 * decoded and sorted. torch.save / pickle side blobs are listed but never
 * parsed. The result is immutable; every pointer in it stays valid until
 * etp_etrecord_free() and is owned by the etp_etrecord.
 *
 * Untrusted input: entry count, entry sizes and total bytes are capped (see
 * the ETP_ETRECORD_* limits), entries are streamed with a bound rather than
 * allocated from declared sizes, and JSON strings longer than
 * ETP_ETRECORD_HUGE_STRING (base64 delegate payloads, lowered modules) are
 * dropped while streaming, replaced by a short placeholder, and counted.
 *
 * Ownership: one etp_etrecord owns every string, array and node reachable
 * from it (they live in one arena allocated with the record, behind the
 * public struct); etp_etrecord_free() releases them all at once. Callers
 * never free anything they get from this header.
 *
 * Thread safety: an opened etp_etrecord is immutable; any number of
 * threads may read it and call the lookups below on it at once.
 * etp_etrecord_free() must not run beside any other use of the record.
 * Several records may be opened at once on different threads.
 *
 * jansson: entries the built-in scanner declines are parsed with jansson,
 * through a bump allocator (src/util/json_arena.h). jansson's allocator
 * functions are process-wide, so the first open installs (with
 * json_set_alloc_funcs(), once, never undone) a pair that serves the
 * opening thread's arena while it parses an entry and otherwise forwards to
 * the functions installed before it (malloc/free by default). Other
 * threads' and later jansson use is therefore unaffected, including while
 * a record is being opened. A program that installs its own jansson
 * allocator must do so before the first etp_etrecord_open() /
 * _from_memory(): an allocator set later replaces the forwarding pair and
 * breaks the arena of an open in progress.
 */
#ifndef ETPROF_ETRECORD_H
#define ETPROF_ETRECORD_H

#include "etprof/error.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** At most this many zip entries. */
#define ETP_ETRECORD_MAX_ENTRIES 10000u
/** A parsed (JSON) entry may decompress to at most this many bytes. */
#define ETP_ETRECORD_MAX_ENTRY_SIZE (8ull << 30)
/** All parsed entries together may decompress to at most this many bytes. */
#define ETP_ETRECORD_MAX_TOTAL_SIZE (16ull << 30)
/** After huge strings are dropped, one entry's JSON text may keep this many bytes. */
#define ETP_ETRECORD_MAX_ENTRY_TEXT (2ull << 30)
/** JSON strings longer than this (raw bytes between the quotes) are not parsed. */
#define ETP_ETRECORD_HUGE_STRING (64u * 1024u)

/** What a zip entry is, following the Python reader's classification. */
typedef enum etp_etrecord_role {
    ETP_ETR_MARKER = 0,          /**< ETRECORD_V0 */
    ETP_ETR_EDGE_PROGRAM,        /**< edge_dialect_exported_program[/<method>] */
    ETP_ETR_EXPORTED_PROGRAM,    /**< exported_program (ATen, before to_edge) */
    ETP_ETR_GRAPH_MAP_PROGRAM,   /**< any other name: <module>/<method> program */
    ETP_ETR_SIDE_BLOB,           /**< *state_dict, *constants, *example_inputs (torch.save) */
    ETP_ETR_DEBUG_HANDLE_MAP,    /**< debug_handle_map */
    ETP_ETR_DELEGATE_MAP,        /**< delegate_map */
    ETP_ETR_NUM_OUTS_MAP,        /**< instruction_id_to_num_outs_map */
    ETP_ETR_EXPORT_GRAPH_ID,     /**< export_graph_id */
    ETP_ETR_REFERENCE_OUTPUTS,   /**< reference_outputs (torch.save or pickle) */
    ETP_ETR_REPRESENTATIVE_INPUTS, /**< representative_inputs (torch.save or pickle) */
    ETP_ETR_RESERVED_UNUSED,     /**< et_dialect_graph_module, program_buffer (2023 layouts) */
    ETP_ETR_DIRECTORY            /**< a directory entry (name ends in '/') */
} etp_etrecord_role;

/** One zip entry as listed in the central directory. */
typedef struct etp_zip_entry_info {
    const char *name;          /**< entry name (UTF-8) */
    uint64_t size;             /**< declared uncompressed size */
    uint64_t compressed_size;  /**< declared compressed size */
    int method;                /**< zip compression method: 0 stored, 8 deflate, ... */
    etp_etrecord_role kind;    /**< classification */
    const char *role;          /**< kind as text, e.g. "edge_program", "side_blob" */
    int parsed;                /**< 1 if etprof parsed this entry's contents */
} etp_zip_entry_info;

/** One (key, path, type) item of a node's nn_module_stack. */
typedef struct etp_module_frame {
    char *key;   /**< e.g. "L__self___conv1" */
    char *path;  /**< e.g. "conv1" ("" for the root module) */
    char *type;  /**< fully qualified class name; "" if the item had fewer fields */
} etp_module_frame;

/** Where an etp_graph_node's name came from. */
typedef enum etp_node_name_source {
    ETP_NAME_FROM_NODE = 0,    /**< the node's own "name" (current format) */
    ETP_NAME_FROM_OUTPUT,      /**< old format: its first output's tensor name */
    ETP_NAME_SYNTHESIZED       /**< neither: "node_<index>" made up by etprof */
} etp_node_name_source;

/** One serialized graph node (call_function). */
typedef struct etp_graph_node {
    const char *name;
    etp_node_name_source name_source;
    const char *target;        /**< full target string */
    const char *op_type;       /**< Inspector op type, e.g. "aten.convolution.default" */
    int has_debug_handle;
    int64_t debug_handle;      /**< metadata "debug_handle" when has_debug_handle */
    const char *stack_trace;      /**< NULL when absent */
    const char *nn_module_stack;  /**< raw text, NULL when absent */
    const char *source_fn_stack;  /**< raw text, NULL when absent */
    uint32_t module_depth;
    etp_module_frame *modules;    /**< parsed nn_module_stack, outer to inner */
    uint32_t input_count;
    const char **inputs;          /**< tensor names consumed, in argument order */
    uint32_t output_count;
    const char **outputs;         /**< tensor names produced */
    int is_delegate_call;         /**< target is executorch_call_delegate */
} etp_graph_node;

/** One exported-program entry (edge, ATen or graph_map). */
typedef struct etp_exported_program {
    const char *entry;            /**< zip entry name */
    const char *method;           /**< "forward" for names without a /<method> part */
    etp_etrecord_role kind;       /**< EDGE_PROGRAM, EXPORTED_PROGRAM or GRAPH_MAP_PROGRAM */
    int is_edge;                  /**< an edge_dialect_exported_program entry */
    const char *schema_version;   /**< "1" (2023) or "5.4" style; NULL when absent */
    uint32_t node_count;
    etp_graph_node *nodes;        /**< in graph order */
    uint32_t input_count;
    const char **inputs;          /**< graph input tensor names */
    uint32_t output_count;
    const char **outputs;         /**< graph output tensor names */
    uint64_t skipped_strings;     /**< JSON strings over ETP_ETRECORD_HUGE_STRING dropped */
    uint64_t skipped_bytes;       /**< their total length */
    /* The nodes that have a debug handle, sorted by (handle, node index):
     * the index etp_exported_program_nodes_with_handle() searches. */
    uint32_t handled_count;       /**< nodes with a debug handle */
    const int64_t *handles_sorted;/**< their handles, ascending; NULL when none */
    const uint32_t *nodes_by_handle; /**< the node index of each, same order */
} etp_exported_program;

/** Debug handles of one instruction (an int in the JSON becomes one element). */
typedef struct etp_handle_list {
    uint32_t count;
    int64_t *handles;
} etp_handle_list;

/** instruction id -> handles (also used for num_outs: the value is handles[0]). */
typedef struct etp_instr_handles {
    int32_t instruction_id;
    etp_handle_list handles;
} etp_instr_handles;

/** A delegate debug identifier (always a string key in the JSON) and its handles. */
typedef struct etp_delegate_id_handles {
    const char *delegate_id;
    etp_handle_list handles;
} etp_delegate_id_handles;

/** delegate_map entry of one delegate-call instruction. */
typedef struct etp_instr_delegate {
    int32_t instruction_id;
    const char *backend;          /**< "name", e.g. "XnnpackBackend"; NULL if absent */
    uint32_t id_count;            /**< 0 for backends that map nothing (XNNPACK) */
    etp_delegate_id_handles *ids; /**< in file order */
} etp_instr_delegate;

/** The maps' contents for one method. */
typedef struct etp_method_maps {
    const char *method;
    int in_debug_handle_map;      /**< the method is a key of debug_handle_map */
    int in_delegate_map;
    int in_num_outs_map;
    uint32_t handle_count;
    etp_instr_handles *handles;     /**< sorted by instruction_id */
    uint32_t delegate_count;
    etp_instr_delegate *delegates;  /**< sorted by instruction_id */
    uint32_t num_outs_count;
    etp_instr_handles *num_outs;    /**< sorted; the count is handles.handles[0] */
} etp_method_maps;

/** A whole ETRecord. All fields read-only. */
typedef struct etp_etrecord {
    const char *path;             /**< file path or the name given to from_memory */
    uint64_t file_size;
    const char *layout;           /**< heuristic, e.g. "2023 single program", "2026 per-method" */
    const char *layout_reason;    /**< which entries led to that guess */
    uint32_t entry_count;
    etp_zip_entry_info *entries;  /**< central directory order */
    uint32_t program_count;
    etp_exported_program *programs; /**< edge programs first, then the others (entry order) */
    int has_debug_handle_map, has_delegate_map, has_num_outs_map, has_export_graph_id;
    int64_t export_graph_id;
    uint32_t method_count;
    etp_method_maps *methods;     /**< union of the maps' methods, sorted by name */
} etp_etrecord;

/**
 * Open and fully read the ETRecord at @p path (streamed through stdio; the
 * file is closed before returning). Fails with ETP_E_FORMAT for a non-zip or a zip without the
 * ETRECORD_V0 marker, ETP_E_TRUNCATED / ETP_E_FORMAT for damaged archives or
 * JSON (the message names the entry and the JSON key or byte position),
 * ETP_E_LIMIT when a cap is exceeded, ETP_E_IO when the file cannot be read,
 * ETP_E_NOMEM. On success *out is a new record the caller owns: release it
 * with etp_etrecord_free(); on failure *out is NULL. Only this function and
 * etp_etrecord_from_memory() make an etp_etrecord that etp_etrecord_free()
 * can release. See the note on jansson above.
 */
etp_status etp_etrecord_open(const char *path, etp_etrecord **out, etp_error *err);

/**
 * As etp_etrecord_open, from @p size bytes at @p data (borrowed for the call
 * only; nothing keeps pointing into it). @p name labels errors and ->path.
 */
etp_status etp_etrecord_from_memory(const void *data, size_t size, const char *name,
                                    etp_etrecord **out, etp_error *err);

/** Release the record and everything it points to. Safe on NULL. */
void etp_etrecord_free(etp_etrecord *r);

/**
 * The edge program of @p method (NULL means "forward"); the old bare
 * edge_dialect_exported_program counts as "forward". NULL if there is none.
 * Returned pointers of this and the lookups below point into the record.
 */
const etp_exported_program *etp_etrecord_edge_program(const etp_etrecord *r, const char *method);

/** The program stored under zip entry @p entry, or NULL. */
const etp_exported_program *etp_etrecord_program(const etp_etrecord *r, const char *entry);

/**
 * Nodes of @p p whose debug handle is @p handle: returns their count and
 * points *@p node_indices (may be NULL) at that many indices into p->nodes,
 * ascending. The array is owned by the record.
 */
uint32_t etp_exported_program_nodes_with_handle(const etp_exported_program *p, int64_t handle,
                                                const uint32_t **node_indices);

/** Maps of @p method (NULL means "forward"), or NULL if no map names it. */
const etp_method_maps *etp_etrecord_maps(const etp_etrecord *r, const char *method);

/** debug_handle_map value of an instruction, or NULL if it has no entry. */
const etp_handle_list *etp_etrecord_instr_handles(const etp_method_maps *m, int32_t instruction_id);

/** delegate_map entry of an instruction, or NULL. */
const etp_instr_delegate *etp_etrecord_instr_delegate(const etp_method_maps *m,
                                                      int32_t instruction_id);

/**
 * instruction_id_to_num_outs_map value of an instruction. A lookup, not a
 * status: returns 1 and sets *@p num_outs when present, else 0 (*@p num_outs
 * untouched; the Inspector then assumes 1).
 */
int etp_etrecord_instr_num_outs(const etp_method_maps *m, int32_t instruction_id,
                                int64_t *num_outs);

#ifdef __cplusplus
}
#endif
#endif
