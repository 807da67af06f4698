/*
 * hashmap.h - open-addressing map from 64-bit hashes to 32-bit slots.
 *
 * Callers hash their own keys and resolve collisions by comparing the
 * candidates the map returns (etp_hm_find iterates every entry stored under
 * the same hash), so one small map serves several key types.
 */
#ifndef ETP_HASHMAP_H
#define ETP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct etp_hm {
    uint64_t *keys;   /* 0 marks an empty slot; stored hashes are forced non-zero */
    uint32_t *vals;
    size_t cap, len;  /* cap is a power of two */
} etp_hm;

void etp_hm_init(etp_hm *m);
void etp_hm_free(etp_hm *m);
/* Insert (hash, val); duplicates of hash are allowed. Returns 0, -1 on OOM. */
int etp_hm_put(etp_hm *m, uint64_t hash, uint32_t val);
/* Iterate values stored under @p hash: start with *cursor = 0; returns 1 and
 * sets *val while there are more. */
int etp_hm_next(const etp_hm *m, uint64_t hash, size_t *cursor, uint32_t *val);

/* 64-bit FNV-1a style byte hash with a final mix; stable across runs. */
uint64_t etp_hash_bytes(const void *data, size_t n, uint64_t seed);
/* Mix a 64-bit value into a hash. */
uint64_t etp_hash_u64(uint64_t h, uint64_t v);

#endif
