/*
 * etprof/abi.h - the sizes of the public structures, for bindings.
 *
 * A caller in another language that lays out an etprof structure itself
 * (Python's ctypes does) asks the library it loaded how large that
 * structure is, and refuses to go on when its own layout differs: a field
 * added to a struct then fails loudly instead of corrupting memory.
 *
 * Thread safety: pure; callable from any thread.
 */
#ifndef ETPROF_ABI_H
#define ETPROF_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * sizeof the public structure named @p type_name (e.g.
 * "etp_analysis_options"), or 0 for a name this library does not list.
 */
size_t etp_abi_struct_size(const char *type_name);

#ifdef __cplusplus
}
#endif

#endif
