/* The byte-string table the index loops look kinds and names up in (keytable.c holds the
 * Python type; the lookups are inline here, as they run once per record). */
#ifndef TFDBG_KEYTABLE_H
#define TFDBG_KEYTABLE_H

#include "wire.h"

/* ------------------------------------------------------------------ a byte-string table */

/* Maps a byte string to a small tuple of ints. Filled only by Python, with strings it has
 * validated; looked up by the loops. Open addressing, FNV-1a. */
typedef struct {
    uint64_t hash;
    char *key; /* NULL = empty slot */
    size_t len;
    int32_t v[4];
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *slots;
    size_t cap; /* power of two */
    size_t used;
} KeyTable;

extern PyTypeObject TfrKeyTableType;

/* A fast, non-cryptographic hash: eight bytes per multiply. The keys come from files, so a
 * hostile file can at most make its own lookups slow (the table is bounded). */
static inline uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static inline uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t h) {
    h = mix(h, n);
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = mix(h, v);
        p += 8;
        n -= 8;
    }
    uint64_t v = 0;
    memcpy(&v, p, n);
    return mix(h, v);
}

static inline Entry *kt_find(KeyTable *t, const uint8_t *key, size_t len, uint64_t h) {
    if (t->cap == 0) return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        Entry *e = &t->slots[i];
        if (!e->key) return e;
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return e;
    }
}


/* Key of a trace kind: file set, slot and mode (int32 each), then the length-prefixed context
 * id, op name and device name (`drivers.trace_key` builds the same bytes). */
static inline const Entry *trace_lookup(KeyTable *t, int32_t fsi, int32_t slot, int32_t mode,
                                        const uint8_t *ctx, size_t nc, const uint8_t *op,
                                        size_t no, const uint8_t *dev, size_t nd,
                                        uint8_t *scratch, size_t scratch_len) {
    size_t len = 36 + nc + no + nd;
    if (len > scratch_len || t->cap == 0) return NULL;
    uint64_t l;
    uint8_t *q = scratch;
    memcpy(q, &fsi, 4); memcpy(q + 4, &slot, 4); memcpy(q + 8, &mode, 4); q += 12;
    l = nc; memcpy(q, &l, 8); q += 8; if (nc) memcpy(q, ctx, nc); q += nc;
    l = no; memcpy(q, &l, 8); q += 8; if (no) memcpy(q, op, no); q += no;
    l = nd; memcpy(q, &l, 8); q += 8; if (nd) memcpy(q, dev, nd);
    uint64_t h = hash_bytes(scratch, len, 0xCBF29CE484222325ull);
    Entry *e = kt_find(t, scratch, len, h);
    return (e && e->key) ? e : NULL;
}

static inline const Entry *str_lookup(KeyTable *t, const uint8_t *s, size_t n) {
    if (t->cap == 0) return NULL;
    Entry *e = kt_find(t, s, n, hash_bytes(s, n, 0xCBF29CE484222325ull));
    return (e && e->key) ? e : NULL;
}

#endif
