/* schema_defs.h - macros for writing fb_table descriptions compactly. */
#ifndef ETP_SCHEMA_DEFS_H
#define ETP_SCHEMA_DEFS_H

#include "formats/flatbuffers/fb_schema.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* name, kind, elem, table, enum, union, int default, float default */
#define F_SC(n, k) {n, k, 0, NULL, NULL, NULL, 0, 0.0}
#define F_SCD(n, k, d) {n, k, 0, NULL, NULL, NULL, d, 0.0}
#define F_EN(n, k, e) {n, k, 0, NULL, &(e), NULL, 0, 0.0}
#define F_STR(n) {n, FB_STR, 0, NULL, NULL, NULL, 0, 0.0}
#define F_TAB(n, t) {n, FB_TABLE, 0, &(t), NULL, NULL, 0, 0.0}
#define F_VEC(n, ek) {n, FB_VEC, ek, NULL, NULL, NULL, 0, 0.0}
#define F_VECE(n, ek, e) {n, FB_VEC, ek, NULL, &(e), NULL, 0, 0.0}
#define F_VECT(n, t) {n, FB_VEC, FB_TABLE, &(t), NULL, NULL, 0, 0.0}
#define F_VECS(n) {n, FB_VEC, FB_STR, NULL, NULL, NULL, 0, 0.0}
#define F_UTYPE(n, u) {n, FB_UTYPE, 0, NULL, NULL, &(u), 0, 0.0}
#define F_UNION(n, u) {n, FB_UNION, 0, NULL, NULL, &(u), 0, 0.0}
#define TABLE(var, name, fields) const fb_table var = {name, ARRAY_LEN(fields), fields}

#endif
