/*
 * etprof/etdump.h - read an ETDump (the runtime's event trace), zero-copy.
 *
 * An etp_etdump is immutable once opened: the whole FlatBuffer has been
 * verified (every offset, length, vtable and alignment) and all accessors
 * return views into the file's bytes. Strings are NUL-terminated in place.
 * Views stay valid until etp_etdump_free().
 */
#ifndef ETPROF_ETDUMP_H
#define ETPROF_ETDUMP_H

#include "etprof/blob.h"
#include "etprof/error.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_etdump etp_etdump;

/** One RunData block ("Default" for load_method, "Execute" per execute()). */
typedef struct etp_run {
    const char *name;            /**< block name or NULL */
    int32_t bundled_input_index; /**< -1 when unset */
    uint32_t event_count;
    uint32_t allocator_count;
    uint32_t offset;             /**< file offset of the RunData table */
    uint32_t events_pos_;        /**< internal */
    uint32_t allocators_pos_;    /**< internal */
} etp_run;

/** A timed event. Delegate-internal events have no name and a delegate id. */
typedef struct etp_profile_event {
    const char *name;            /**< NULL for delegate-internal events */
    uint32_t name_len;
    int32_t chain_index;         /**< -1: framework event outside any instruction */
    int32_t instruction_id;
    int32_t delegate_id_int;     /**< -1 when unset */
    const char *delegate_id_str; /**< NULL when unset */
    uint32_t delegate_id_str_len;
    const uint8_t *metadata;     /**< delegate metadata bytes, NULL when absent */
    uint32_t metadata_len;
    int has_metadata;            /**< the field is present (possibly empty) */
    uint64_t start_time;         /**< raw ticks */
    uint64_t end_time;
} etp_profile_event;

/** A memory allocation reported through the event tracer. */
typedef struct etp_allocation_event {
    int32_t allocator_id;        /**< 1-based index into the run's allocators */
    uint64_t allocation_size;    /**< bytes */
} etp_allocation_event;

/** Kinds of a logged debug value (ETDump ValueType). */
typedef enum etp_value_type {
    ETP_VAL_NULL = 0, ETP_VAL_INT, ETP_VAL_BOOL, ETP_VAL_FLOAT, ETP_VAL_DOUBLE, ETP_VAL_TENSOR,
    ETP_VAL_TENSOR_LIST, ETP_VAL_STRING
} etp_value_type;

/** Tensor metadata of a logged value (bytes live in the debug buffer file). */
typedef struct etp_dbg_tensor {
    int8_t scalar_type;
    uint32_t rank;
    const int64_t *sizes;        /**< rank entries (8-byte aligned, verified) */
    uint32_t stride_count;
    const int64_t *strides;
    int64_t offset;              /**< byte offset into the debug buffer, -1 if empty */
} etp_dbg_tensor;

/** A debug event: an intermediate or program output value. */
typedef struct etp_debug_event {
    uint64_t chain_index;        /**< program outputs carry 2^64-1 (int -1 widened) */
    int32_t instruction_id;
    int32_t delegate_id_int;
    const char *delegate_id_str;
    const char *name;
    int has_value;
    int8_t value_type;           /**< etp_value_type */
    int is_output;               /**< Value.output present and true */
    int64_t int_value;
    int bool_value;
    double double_value;         /**< Float or Double values */
    uint32_t tensor_count;       /**< 1 for a tensor, n for a tensor list, 0 otherwise */
    uint32_t value_pos_;         /**< internal: Value table position */
} etp_debug_event;

/** Which member(s) of an Event are set. The schema says exactly one. */
enum { ETP_EV_PROFILE = 1, ETP_EV_ALLOCATION = 2, ETP_EV_DEBUG = 4 };

typedef struct etp_event {
    unsigned kinds;              /**< bit set of ETP_EV_* (0: an empty event) */
    uint32_t offset;             /**< file offset of the Event table */
    etp_profile_event profile;
    etp_allocation_event allocation;
    etp_debug_event debug;
} etp_event;

/**
 * Open and verify an ETDump file. Checks the size prefix, the ED00
 * identifier and the whole tree; any defect is an error naming the offset.
 * Release with etp_etdump_free().
 */
etp_status etp_etdump_open(const char *path, etp_etdump **out, etp_error *err);

/** As etp_etdump_open but takes ownership of @p blob (freed on failure too). */
etp_status etp_etdump_from_blob(etp_blob *blob, etp_etdump **out, etp_error *err);

/**
 * Open an ETDump for one full pass over its events: like etp_etdump_open(),
 * except that the events' own tables are checked by the first
 * etp_inspect_run() on the dump as it decodes them (the file is then read
 * once, not twice; same errors either way). Until that call has returned
 * ETP_OK, no other function may read the dump's events.
 */
etp_status etp_etdump_open_deferred(const char *path, etp_etdump **out, etp_error *err);

/** As etp_etdump_open_deferred but takes ownership of @p blob. */
etp_status etp_etdump_from_blob_deferred(etp_blob *blob, etp_etdump **out, etp_error *err);

/** 1 once every table of the dump has been verified (from the start after
 *  etp_etdump_open(); after a deferred open, once etp_inspect_run() or
 *  etp_etdump_verify() has succeeded). */
int etp_etdump_verified(const etp_etdump *d);

/** Verify now whatever a deferred open left unverified, as
 *  etp_etdump_open() would have (nothing to do otherwise). Callers use it
 *  to report a defect in the ETDump before the problems of other inputs. */
etp_status etp_etdump_verify(const etp_etdump *d, etp_error *err);

/** Release. Safe on NULL. */
void etp_etdump_free(etp_etdump *d);

/** The file's path (or blob name). */
const char *etp_etdump_path(const etp_etdump *d);
/** File size in bytes. */
size_t etp_etdump_size(const etp_etdump *d);
/** ETDump schema version field (0 in every runtime so far). */
uint32_t etp_etdump_version(const etp_etdump *d);
/** Number of RunData blocks. */
uint32_t etp_etdump_run_count(const etp_etdump *d);
/** Fill @p out with block @p i (i < run_count). */
void etp_etdump_run(const etp_etdump *d, uint32_t i, etp_run *out);
/** Name of allocator @p i (0-based) of @p run, or NULL. */
const char *etp_etdump_allocator_name(const etp_etdump *d, const etp_run *run, uint32_t i);
/** Fill @p out with event @p j (j < run->event_count) of @p run. */
void etp_etdump_event(const etp_etdump *d, const etp_run *run, uint32_t j, etp_event *out);
/**
 * Tensor @p k of a debug event's value (k < tensor_count). Returns 0 on
 * success, -1 if there is no such tensor.
 */
int etp_etdump_debug_tensor(const etp_etdump *d, const etp_debug_event *ev, uint32_t k,
                            etp_dbg_tensor *out);

/**
 * Write the whole file to @p fp as JSON shaped like
 * `flatc --json --strict-json --defaults-json` output (same names, enum
 * names, defaults shown); numbers are exact. Returns 0, or -1 on write error.
 */
int etp_etdump_write_json(const etp_etdump *d, FILE *fp, int pretty);

#ifdef __cplusplus
}
#endif
#endif
