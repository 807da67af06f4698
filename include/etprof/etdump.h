/*
 * etprof/etdump.h - read an ETDump (the runtime's event trace), zero-copy.
 *
 * An etp_etdump is immutable once opened: the whole FlatBuffer has been
 * verified (every offset, length, vtable and alignment) and all accessors
 * return views into the file's bytes. Strings are NUL-terminated in place.
 * Views stay valid until etp_etdump_free().
 *
 * Ownership: the etp_etdump owns its file bytes; every pointer in an
 * etp_run, etp_event or etp_dbg_tensor points into them and is owned by the
 * dump (never freed by the caller). Those structs are plain values the
 * caller provides; they hold nothing to release.
 *
 * Thread safety: a dump opened with etp_etdump_open() / _from_blob() may be
 * read by any number of threads at once (every function below except
 * etp_etdump_free(); the readers' lookup caches are per thread). A dump
 * opened deferred is not read-only until its events are verified: its
 * first etp_inspect_run() (or etp_etdump_verify()) records that they are,
 * so that call must finish before any other thread uses the dump, and it
 * must not run beside any other call on the same dump. From then on
 * (etp_etdump_verified() is 1) the dump is as shareable as an ordinary one.
 * etp_etdump_free() must not run beside any other use of the dump.
 * Different dumps are independent.
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

/**
 * One RunData block ("Default" for load_method, "Execute" per execute()),
 * filled by etp_etdump_run(). Pass it only to functions of the dump it
 * came from: they find the run's vectors by its index.
 */
typedef struct etp_run {
    const char *name;            /**< block name or NULL */
    int32_t bundled_input_index; /**< -1 when unset */
    uint32_t index;              /**< position in the dump's run_data (0-based) */
    int has_events;              /**< the RunData has an events vector (possibly empty) */
    uint32_t event_count;        /**< 0 when there is no events vector */
    uint32_t allocator_count;
    uint32_t offset;             /**< file offset of the RunData table */
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
    uint32_t offset;             /**< file offset of the DebugEvent table */
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
 * On success *out is a new dump the caller owns: release it with
 * etp_etdump_free(). On failure *out is NULL.
 */
etp_status etp_etdump_open(const char *path, etp_etdump **out, etp_error *err);

/** As etp_etdump_open but takes ownership of @p blob (freed on failure too;
 *  on success freed by etp_etdump_free()). */
etp_status etp_etdump_from_blob(etp_blob *blob, etp_etdump **out, etp_error *err);

/**
 * Open an ETDump for one full pass over its events: like etp_etdump_open(),
 * except that the events' own tables are checked by the first
 * etp_inspect_run() on the dump as it decodes them (the file is then read
 * once, not twice; same errors either way). Until that call has returned
 * ETP_OK, no other function may read the dump's events (etp_etdump_run()
 * and the dump's own fields are fine), and no other thread may use the dump
 * (see the thread-safety note above). Release with etp_etdump_free().
 */
etp_status etp_etdump_open_deferred(const char *path, etp_etdump **out, etp_error *err);

/** As etp_etdump_open_deferred but takes ownership of @p blob. */
etp_status etp_etdump_from_blob_deferred(etp_blob *blob, etp_etdump **out, etp_error *err);

/** A predicate: 1 once every table of the dump has been verified (from the
 *  start after etp_etdump_open(); after a deferred open, once
 *  etp_inspect_run() or etp_etdump_verify() has succeeded), else 0. */
int etp_etdump_verified(const etp_etdump *d);

/** Verify now whatever a deferred open left unverified, as
 *  etp_etdump_open() would have (nothing to do otherwise). Callers use it
 *  to report a defect in the ETDump before the problems of other inputs.
 *  On success it marks the dump verified (a write to the dump's state, see
 *  the thread-safety note); on failure the dump stays unverified and its
 *  events must not be read. */
etp_status etp_etdump_verify(const etp_etdump *d, etp_error *err);

/** Release the dump and its file bytes (mapping or buffer); every view
 *  into it dies with it. Safe on NULL. */
void etp_etdump_free(etp_etdump *d);

/** The file's path (or blob name), owned by the dump. */
const char *etp_etdump_path(const etp_etdump *d);
/** File size in bytes. */
size_t etp_etdump_size(const etp_etdump *d);
/** ETDump schema version field (0 in every runtime so far). */
uint32_t etp_etdump_version(const etp_etdump *d);
/** Number of RunData blocks. */
uint32_t etp_etdump_run_count(const etp_etdump *d);
/** Fill @p out with block @p i (i < run_count). */
void etp_etdump_run(const etp_etdump *d, uint32_t i, etp_run *out);
/** Name of allocator @p i (0-based) of @p run, or NULL (owned by the dump). */
const char *etp_etdump_allocator_name(const etp_etdump *d, const etp_run *run, uint32_t i);
/** Fill @p out with event @p j (j < run->event_count) of @p run. After a
 *  deferred open, only once etp_etdump_verified() is 1. */
void etp_etdump_event(const etp_etdump *d, const etp_run *run, uint32_t j, etp_event *out);
/**
 * Tensor @p k of a debug event's value (k < tensor_count), read from the
 * dump @p ev came from. A lookup, not a failure: returns 0 when the tensor
 * exists (@p out filled), -1 when there is no such tensor (@p out untouched).
 */
int etp_etdump_debug_tensor(const etp_etdump *d, const etp_debug_event *ev, uint32_t k,
                            etp_dbg_tensor *out);

/** Bytes of one element of ExecuTorch ScalarType @p type (the runtime's
 *  enum, a superset of schemas/flatbuffers/scalar_type.fbs); 0 for a type it does not
 *  have. A pure function. */
uint32_t etp_scalar_type_size(int type);

/** What etp_etdump_check_debug_buffer() found. */
typedef struct etp_debug_buffer_check {
    uint64_t debug_events;       /**< debug events in the dump (every RunData) */
    uint64_t tensors;            /**< tensors with bytes: each lies inside the buffer */
    uint64_t empty_tensors;      /**< tensors logged without bytes (offset -1) */
    uint64_t bytes_referenced;   /**< the largest offset + nbytes over the tensors */
} etp_debug_buffer_check;

/**
 * Check the dump's debug events against the debug buffer the runtime wrote
 * beside it (@p buffer_size bytes, called @p buffer_name in errors): every
 * logged tensor's bytes [offset, offset + nbytes), nbytes = the product of
 * its sizes times its element size, must lie inside the buffer. Reads
 * every RunData's events: the dump must be verified (etp_etdump_verified()).
 * @return ETP_OK with *@p out filled; ETP_E_MISMATCH naming the run, event,
 *         tensor and offset when one lies outside; ETP_E_FORMAT for a
 *         tensor whose size or place cannot be known (unknown scalar type,
 *         negative size, a byte count past 2^63, a negative offset other
 *         than -1); ETP_E_USAGE for an unverified dump.
 *         A pure read: safe from any thread once the dump is verified.
 */
etp_status etp_etdump_check_debug_buffer(const etp_etdump *d, uint64_t buffer_size, const char *buffer_name,
                                         etp_debug_buffer_check *out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
