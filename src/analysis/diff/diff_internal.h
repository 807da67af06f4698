/* diff_internal.h - what the files of the diff share: the side's storage,
 * the owned-memory list of a diff, and the bootstrap's seed (the bootstrap
 * itself: diff_bootstrap.h). */
#ifndef ETP_DIFF_INTERNAL_H
#define ETP_DIFF_INTERNAL_H

#include <stddef.h>

#include "etprof/columns.h"
#include "analysis/diff/diff_bootstrap.h"
#include "etprof/diff.h"
#include "util/hashmap.h"

struct etp_diff_side {
    etp_diff_identity id;   /* every string owned */
    etp_diff_entry *ents;   /* every string and the samples owned */
    uint32_t count, cap;
    etp_hm index;           /* hash of (kind, id) -> index into ents */
    etp_diff_side_finding *finds; /* every string owned */
    uint32_t find_count, find_cap;
};

/* The entry of @p s with @p kind and @p id, or NULL. */
const etp_diff_entry *etp_diff_side_lookup(const etp_diff_side *s, etp_diff_kind kind,
                                           const char *id);
/* Hash of (kind, id) used by the side's index and the bootstrap's seed. */
uint64_t etp_diff_key_hash(etp_diff_kind kind, const char *id);

/* The entity columns a side is built from (diff_side_columns.c), whether
 * read from an analysis or from a bundle's operators table. */
#define ETP_DIFF_SIDE_COLUMNS 12
extern const etp_column_id etp_diff_side_columns[ETP_DIFF_SIDE_COLUMNS];
/* The entry of one entity from its cells: @p v[k] holds column
 * etp_diff_side_columns[k] where @p has[k]. Strings point into the cells;
 * no samples. 0, or -1 when the kind is not an entity kind. */
int etp_diff_entry_from_cells(etp_diff_entry *d, const etp_cell *v, const uint8_t *has);

/* Memory a diff owns: a growing list of blocks freed together. */
typedef struct etp_diff_arena {
    void **blocks;
    size_t count, cap;
    int failed;             /* sticky: an allocation failed */
} etp_diff_arena;

/* Keep @p p (NULL allowed: marks failure); returns @p p. */
void *etp_diff_own(etp_diff_arena *a, void *p);
/* A copy of @p s owned by @p a (NULL for NULL). */
const char *etp_diff_strdup(etp_diff_arena *a, const char *s);
void etp_diff_arena_free(etp_diff_arena *a);

/* The bootstrap seed of a row: @p seed XOR FNV-1a-64 of "KIND:KEY". */
uint64_t etp_diff_row_seed(uint64_t seed, etp_diff_kind kind, const char *key);

/* The findings of the two sides compared, by code, into d->findings
 * (diff_findings.c). 0, or -1 when out of memory. */
int etp_diff_compare_findings(const etp_diff_side *base, const etp_diff_side *new_side, etp_diff *d,
                              etp_diff_arena *ar);

#endif
