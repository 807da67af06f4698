/*
 * me_pystr.h - the string forms Python gives values, for outputs that must match
 * text written by Python tools byte for byte (Arm's PTE adapter prints
 * attribute values with str()/repr() of flatbuffers objects).
 */
#ifndef ETP_PYSTR_H
#define ETP_PYSTR_H

#include <stddef.h>

/*
 * Format @p v as Python's repr(float) does: the shortest digits that read back
 * to the same double, fixed notation for decimal exponents -4..15 (with ".0"
 * when integral), otherwise d.ddde+XX; "inf", "-inf", "nan". @p out needs at
 * least 32 bytes. Returns the length written.
 */
size_t etp_py_repr_double(char *out, size_t size, double v);

/*
 * Decode @p n bytes at @p s as Python's bytes.decode("utf-8", "replace"):
 * each maximal invalid subsequence becomes U+FFFD. Returns a new
 * NUL-terminated string (caller frees), or NULL when out of memory.
 */
char *etp_py_decode_utf8(const char *s, size_t n);

#endif
