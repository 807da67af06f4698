/*
 * gen_model.h - one description of a synthetic model, from which the three
 * artifacts are written consistently:
 *   - the program (.pte): values, instructions, operators, delegates, segments;
 *   - the ETDump: per-instruction typical durations and delegate-internal
 *     events;
 *   - the ETRecord: the edge graph (nodes with debug handles and metadata)
 *     and the instruction -> handle / delegate maps.
 *
 * Builders (gen_synth.c for large files, gen_demo.c for the demo triple)
 * fill a gm_program with the helpers below; writers (gen_pte.c,
 * gen_etdump.c, gen_etrecord.c) only read it.
 */
#ifndef ETP_GEN_MODEL_H
#define ETP_GEN_MODEL_H

#include <stdio.h>

#include "etprof/error.h"
#include "gen/gen_util.h"

#define GM_MAX_RANK 4
#define GM_MAX_METHODS 4
#define GM_MAX_NODE_ARGS 12
#define GM_MAX_SPECS 4

/* ExecuTorch ScalarType codes (.pte / ETDump). */
enum { GM_ST_CHAR = 1, GM_ST_LONG = 4, GM_ST_FLOAT = 6, GM_ST_BOOL = 11 };
/* torch.export serde dtype codes (ETRecord tensor_values); differ from the above. */
enum { GM_DT_LONG = 5, GM_DT_FLOAT = 7, GM_DT_BOOL = 12 };

/* An EValue of an execution plan. */
typedef struct gm_value {
    uint8_t kind;            /* PTE_V_* (formats/schemas.h) */
    int8_t scalar_type;      /* Tensor: ScalarType */
    uint8_t rank;            /* Tensor */
    uint8_t planned;         /* Tensor: memory-planned (has allocation_info) */
    int32_t sizes[GM_MAX_RANK];
    uint32_t data_buffer_idx;/* Tensor: > 0 for constants */
    uint64_t mem_offset;     /* planned tensors: offset in memory arena 1 */
    int64_t i;               /* Int, Bool */
    double d;                /* Double */
    uint32_t list_start;     /* IntList / TensorList: items in gm_method.lists */
    uint32_t list_count;
} gm_value;

/* A delegate-internal event logged inside a DelegateCall. */
typedef struct gm_dev {
    int32_t id_int;          /* delegate_debug_id_int, or -1 */
    const char *id_str;      /* delegate_debug_id_str, or NULL */
    double share;            /* fraction of the delegate call's time */
    uint32_t handle_start;   /* debug handles (gm_method.handles) for delegate_map */
    uint32_t handle_count;
    uint8_t map_str;         /* delegate_map keyed by id_str (a backend that names its ops);
                                string ids are otherwise not mapped (XNNPACK's empty map) */
} gm_dev;

typedef struct gm_instr {
    uint8_t kind;            /* PTE_I_KERNEL or PTE_I_DELEGATE */
    uint32_t index;          /* op_index or delegate_index */
    uint32_t arg_start, arg_count;       /* value indices in gm_method.args */
    uint32_t handle_start, handle_count; /* debug handles in gm_method.handles */
    double base_ns;          /* typical duration of the kernel / delegate call */
    uint32_t dev_start, dev_count;       /* delegate events in gm_method.devs */
    uint32_t num_outs;       /* DelegateCall: outputs of the lowered graph */
} gm_instr;

typedef struct gm_operator {
    const char *name;        /* "aten::convolution" */
    const char *overload;    /* "out" */
    const char *native;      /* "native_call_convolution.out" (ETDump event name) */
    uint32_t native_len;
} gm_operator;

typedef struct gm_delegate {
    const char *id;          /* backend id, e.g. "VulkanBackend" */
    uint32_t segment;        /* processed blob: Program.segments[segment] */
    int nspecs;
    const char *spec_key[GM_MAX_SPECS];
    const uint8_t *spec_val[GM_MAX_SPECS];
    uint32_t spec_len[GM_MAX_SPECS];
} gm_delegate;

/* Edge-graph argument of a node (torch.export serde Argument). */
enum { GA_TENSOR = 1, GA_INT, GA_INTS, GA_BOOL, GA_FLOAT };
typedef struct gm_arg {
    const char *name;        /* schema argument name */
    uint8_t kind;            /* GA_* */
    uint8_t nints;
    const char *tensor;      /* GA_TENSOR: tensor name */
    int64_t i;               /* GA_INT, GA_BOOL */
    int64_t ints[GM_MAX_RANK];
    double f;
} gm_arg;

/* A call_function node of the edge graph. */
typedef struct gm_node {
    const char *name;
    const char *target;      /* "aten.convolution.default" (edge prefix added on write) */
    uint8_t nargs, nouts;
    gm_arg args[GM_MAX_NODE_ARGS];
    const char *outs[2];     /* 2 outputs: written as as_tensors */
    int32_t handle;          /* debug_handle metadata; 0 = none */
    const char *stack_trace;
    const char *module_stack;/* nn_module_stack */
    const char *source_fn;   /* source_fn_stack */
    const char *torch_fn;
    const char *from_node;   /* JSON text, or NULL */
} gm_node;

/* tensor_values entry of the edge graph. */
typedef struct gm_tmeta {
    const char *name;
    int dtype;               /* serde dtype code */
    uint8_t rank;
    int64_t sizes[GM_MAX_RANK];
} gm_tmeta;

/* Graph input: a user input, or a lifted parameter or buffer. */
typedef struct gm_ginput {
    const char *name;        /* placeholder name, e.g. "p_conv1_weight" */
    const char *param;       /* FQN "conv1.weight", or NULL for a user input */
    int buffer;              /* the FQN names a buffer, not a parameter */
} gm_ginput;

typedef struct gm_method {
    const char *name;
    gen_vec values;          /* gm_value */
    gen_vec lists;           /* int64_t list items */
    gen_vec args;            /* int32_t instruction args */
    gen_vec instrs;          /* gm_instr */
    gen_vec ops;             /* gm_operator */
    gen_vec delegates;       /* gm_delegate */
    gen_vec handles;         /* int32_t debug handles */
    gen_vec devs;            /* gm_dev */
    gen_vec inputs, outputs; /* int32_t value indices */
    uint64_t planned_bytes;  /* arena 1 size */
    uint32_t ring_slots;     /* > 0: planned tensors reuse this many fixed slots */
    uint64_t ring_slot_bytes;
    uint32_t ring_next;
    const char *encoded_inp, *encoded_out;
    /* edge graph */
    gen_vec nodes;           /* gm_node */
    gen_vec tmeta;           /* gm_tmeta */
    gen_vec ginputs;         /* gm_ginput */
    const char *goutput;     /* name of the graph's single output tensor */
} gm_method;

typedef struct gm_segment {
    uint64_t size;
    uint8_t *data;           /* arena-owned bytes, or NULL for zeros */
} gm_segment;

typedef struct gm_program {
    gen_arena arena;
    int nmethods;
    gm_method methods[GM_MAX_METHODS];
    gen_vec segments;        /* gm_segment: Program.segments[1...] */
    gen_vec const_offsets;   /* uint64_t: constant_segment.offsets (entry 0 reserved) */
    gen_vec const_bytes;     /* uint8_t: the constant segment's contents */
    gen_vec const_dedup;     /* internal: zero-filled constants shared by size */
    int64_t export_graph_id; /* ETRecord export_graph_id (and from_node graph_id) */
    int us_quantized;        /* ETDump: delegate durations in whole microseconds (XNNPACK) */
    double load_ns;          /* ETDump: Method::init duration */
} gm_program;

void gm_init(gm_program *p);
void gm_free(gm_program *p);
/* Add a method; returns it (NULL past GM_MAX_METHODS). */
gm_method *gm_add_method(gm_program *p, const char *name);
/* Any allocation failed while building? */
int gm_failed(const gm_program *p);

/* Values; each returns the new value's index. */
uint32_t gm_int(gm_method *m, int64_t v);
uint32_t gm_bool(gm_method *m, int v);
uint32_t gm_double(gm_method *m, double v);
/* An IntList: @p n Int values followed by the list that boxes them. */
uint32_t gm_int_list(gm_method *m, const int64_t *v, int n);
/* A memory-planned activation tensor (arena 1, 16-byte aligned). With
 * gm_method.ring_slots set, tensors take the slots in turn (a simple
 * lifetime-based plan for chains whose values die within ring_slots steps). */
uint32_t gm_tensor(gm_method *m, int8_t st, int rank, const int32_t *sizes);
/* A tensor aliasing @p base's memory with another shape (memory.view). */
uint32_t gm_view(gm_method *m, uint32_t base, int rank, const int32_t *sizes);
/* A constant tensor in the constant segment. @p rng fills it with small
 * floats; NULL writes zeros and shares storage between equal-sized zero
 * tensors (as the exir emitter deduplicates identical constant buffers). */
uint32_t gm_const_tensor(gm_program *p, gm_method *m, int8_t st, int rank, const int32_t *sizes,
                         gen_rng *rng);
/* Bytes of a tensor value. */
uint64_t gm_tensor_bytes(const gm_value *v);

/* Operator index of `name.overload` (added once per method). */
uint32_t gm_op(gm_program *p, gm_method *m, const char *name, const char *overload);

/* Instructions. @p handles become the instruction's debug-handle entry. */
gm_instr *gm_kernel(gm_method *m, uint32_t op, const uint32_t *args, int nargs,
                    const int32_t *handles, int nhandles, double base_ns);
gm_instr *gm_delegate_call(gm_method *m, uint32_t delegate, const uint32_t *args, int nargs,
                           const int32_t *handles, int nhandles, double base_ns,
                           uint32_t num_outs);
/* A delegate-internal event of the instruction just added. */
void gm_dev_event(gm_method *m, int32_t id_int, const char *id_str, double share,
                  const int32_t *handles, int nhandles);

/* A segment of @p size bytes (data NULL = zeros); returns its index in
 * Program.segments, where segment 0 is always the constant segment. */
uint32_t gm_segment_add(gm_program *p, uint64_t size, uint8_t *data);

/* Edge graph helpers. */
gm_node *gm_node_add(gm_method *m, const char *name, const char *target, int32_t handle);
void gm_arg_tensor(gm_node *n, const char *name, const char *tensor);
void gm_arg_int(gm_node *n, const char *name, int64_t v);
void gm_arg_bool(gm_node *n, const char *name, int v);
void gm_arg_ints(gm_node *n, const char *name, const int64_t *v, int count);
void gm_tmeta_add(gm_method *m, const char *name, int dtype, int rank, const int64_t *sizes);
void gm_ginput_add(gm_method *m, const char *name, const char *param, int buffer);

/* The pytree spec strings of a method taking @p n_inputs tensors and
 * returning one (ContainerMetadata / module_call_graph). */
const char *gm_encoded_inputs(gm_program *p, int n_inputs);
const char *gm_encoded_output(void);

/* Writers. Each returns ETP_OK or fills @p err (file named in the error). */
etp_status gm_write_pte(const gm_program *p, const char *path, uint64_t *bytes, etp_error *err);
etp_status gm_write_etrecord(const gm_program *p, const char *path, uint64_t *bytes,
                             etp_error *err);

/* ETDump writer parameters. */
typedef struct gm_etdump_opts {
    const gm_method *method;  /* the method executed */
    uint32_t executions;      /* Execute blocks */
    uint64_t seed;
    double scale;             /* every duration times this (> 0; 1: as drawn) */
    struct gm_tensor_log *tensors; /* log values too (gen_tensors.c), or NULL */
} gm_etdump_opts;

/* The values a generated run logs: each KernelCall's output, then the
 * method's, written to a debug buffer as the runtime's BufferDataSink does
 * (gen_tensors.c). */
typedef struct gm_tensor_log {
    FILE *fp;
    const char *path;
    uint32_t elements;        /* per tensor */
    uint64_t seed;
    uint32_t perturb_instruction;
    double perturb;           /* 0: none */
    uint64_t offset;          /* bytes written so far */
    uint64_t tensors;         /* debug events written */
    float *values;            /* scratch, elements of them */
    int failed;               /* errno of a failed write, or -1 out of memory */
} gm_tensor_log;

/* Open @p path for @p elements-element tensors; ETP_OK or an error. */
etp_status gm_tensor_log_open(gm_tensor_log *l, const char *path, uint32_t elements, uint64_t seed,
                              uint32_t perturb_instruction, double perturb, etp_error *err);
/* Write instruction @p instr's output (instr < 0: the method's output,
 * that of the last KernelCall @p last) and return its offset in the buffer. */
int64_t gm_tensor_log_write(gm_tensor_log *l, int32_t instr, int32_t last);
/* Close the buffer; ETP_OK, or the first write error. */
etp_status gm_tensor_log_close(gm_tensor_log *l, etp_error *err);
/* Approximate ETDump size in bytes for @p runs executions of @p m. */
uint64_t gm_etdump_estimate(const gm_method *m, uint32_t runs);
/* Write the ETDump; @p events (optional) receives the number of events. */
etp_status gm_write_etdump(const gm_program *p, const gm_etdump_opts *o, const char *path,
                           uint64_t *bytes, uint64_t *events, etp_error *err);

#endif
