/* The wire-level pieces both compiled loops share (_ingest.c indexes records, readback.c reads
 * a record's summary back by offset): TFRecord framing with CRC-32C, protobuf varints and
 * fields, a DebugEvent's head, and the canonical float64 summary of each mode.
 *
 * Small helpers are `static inline` here (each file gets its own copy); the CRC function and
 * the per-mode rules are single objects defined in wire.c, so `configure` sets them once for
 * both loops.
 */
#ifndef TFDBG_WIRE_H
#define TFDBG_WIRE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* CRC-32C (unmasked) of what `crc` covered followed by a buffer (0: of the buffer alone):
 * hardware when the CPU has it (`tfr_crc_setup`). */
extern uint32_t (*tfr_crc32c_update)(uint32_t crc, const uint8_t *, size_t);
void tfr_crc_setup(void);
int tfr_crc_is_hardware(void);

static inline uint32_t tfr_crc32c(const uint8_t *p, size_t n) {
    return tfr_crc32c_update(0, p, n);
}

static inline uint32_t masked(uint32_t c) { return ((c >> 15) | (c << 17)) + 0xA282EAD8u; }

static inline uint64_t le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* ------------------------------------------------------------------ wire format */

/* A varint of at most `maxlen` bytes; 0 when malformed or longer (the caller then hands the
 * record to Python, whose protobuf runtime decides). */
static inline int varint(const uint8_t **pp, const uint8_t *end, int maxlen, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int i = 0; i < maxlen && p < end; i++) {
        uint8_t b = *p++;
        if (i == 9 && b > 1) return 0;
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* An int32 field: only plain non-negative values up to INT32_MAX are taken here. */
static inline int int32_field(const uint8_t **pp, const uint8_t *end, int32_t *out) {
    uint64_t v;
    if (!varint(pp, end, 5, &v) || v > 0x7FFFFFFFu) return 0;
    *out = (int32_t)v;
    return 1;
}

static inline int len_field(const uint8_t **pp, const uint8_t *end, const uint8_t **s,
                            size_t *n) {
    uint64_t v;
    if (!varint(pp, end, 5, &v) || v > (uint64_t)(end - *pp)) return 0;
    *s = *pp;
    *n = (size_t)v;
    *pp += v;
    return 1;
}

/* Skip one field of any wire type but groups; 0 when malformed. */
static inline int skip_field(const uint8_t **pp, const uint8_t *end, unsigned wt) {
    uint64_t v;
    const uint8_t *s;
    size_t n;
    switch (wt) {
    case 0: return varint(pp, end, 10, &v);
    case 1: if (end - *pp < 8) return 0; *pp += 8; return 1;
    case 2: return len_field(pp, end, &s, &n);
    case 5: if (end - *pp < 4) return 0; *pp += 4; return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------------ the canonical summary */

/* Per mode, from Python (`configure`, from reader.index.batches.VECTOR_RULES, which restates
 * reader.index.health.fill_from_vectors): the float64 summary's length, how `bad` follows from
 * it, whether element 0 is the tensor id, and each element's largest sane value. */
enum { RULE_NONE = 0, RULE_NONZERO = 1, RULE_SUM_POSITIVE = 2, RULE_ANY_NONZERO_RAW = 3 };
typedef struct {
    int len, rule, ncols, has_tid;
    int cols[4];
    double max[15];
} ModeRule;
extern ModeRule tfr_rules[16];

/* A mode's summary serialized the way TensorFlow does it: dtype=DT_DOUBLE, shape=[L],
 * tensor_content=8L bytes, in field order. Returns the content or NULL. */
static inline const uint8_t *canonical_vector(int mode, const uint8_t *t, size_t n) {
    if (mode < 0 || mode >= 16 || !tfr_rules[mode].len) return NULL;
    int L = tfr_rules[mode].len;
    const uint8_t hdr[10] = {0x08, 0x02, 0x12, 0x04, 0x12, 0x02, 0x08, (uint8_t)L, 0x22,
                             (uint8_t)(8 * L)};
    if (n != 10 + 8 * (size_t)L || memcmp(t, hdr, 10) != 0) return NULL;
    return t + 10;
}


/* ------------------------------------------------------------------ summary health */

static inline double elem(const uint8_t *v, int i) {
    double x;
    memcpy(&x, v + 8 * i, 8);
    return x;
}

/* numpy.nan_to_num(x, nan=-1, posinf=-1, neginf=-1) */
static inline double clean(double x) { return (x != x || x - x != 0) ? -1.0 : x; }

/* What `fill_from_vectors` makes of one summary: `bad` (1, 0 or -1) and the tensor id.
 * 0 when the summary is not sane (`health.sane`: an id or count that is NaN, ±inf, below -1
 * or past its limit): Python then decides, and warns. */
static inline int vector_health(int mode, const uint8_t *v, int8_t *bad, int64_t *tid) {
    const ModeRule *r = &tfr_rules[mode];
    *tid = -1;
    if (r->has_tid) {
        for (int i = 0; i < r->len; i++) {
            double x = elem(v, i);
            if (!(x >= -1.0 && x <= r->max[i])) return 0;
        }
        *tid = (int64_t)elem(v, 0);
    }
    switch (r->rule) {
    case RULE_NONZERO: *bad = clean(elem(v, r->cols[0])) != 0; break;
    case RULE_SUM_POSITIVE: {
        double sum = clean(elem(v, r->cols[0]));
        for (int i = 1; i < r->ncols; i++) sum = sum + clean(elem(v, r->cols[i]));
        *bad = sum > 0;
        break;
    }
    case RULE_ANY_NONZERO_RAW: {
        int any = 0;
        for (int i = 0; i < r->ncols; i++) any |= elem(v, r->cols[i]) != 0;
        *bad = (int8_t)any;
        break;
    }
    default: *bad = -1;
    }
    return 1;
}


/* ------------------------------------------------------------------ summary digest */

/* Per mode, the elements [lo, hi) a comparison of two runs compares (`configure_digests`, from
 * reader.index.health.COMPARED); hi == 0: the mode has no digest. */
extern int tfr_digest_range[16][2];

static inline uint64_t fmix64(uint64_t z) { /* MurmurHash3's finalizer: a bijection */
    z ^= z >> 33;
    z *= 0xFF51AFD7ED558CCDull;
    z ^= z >> 33;
    z *= 0xC4CEB9FE1A85EC53ull;
    return z ^ (z >> 33);
}

/* The digest of a sane summary (reader.index.health.summary_digests is the definition): 64
 * bits over the exact bits of its compared elements and its mode; 0 = none (no range, or a
 * NaN among them). DIGEST_EMPTY: a row of a mode with a range whose record holds no summary
 * for it (`empty_digest`). */
#define DIGEST_EMPTY UINT64_MAX
static inline uint64_t empty_digest(int mode) {
    return mode >= 0 && mode < 16 && tfr_digest_range[mode][1] > 0 ? DIGEST_EMPTY : 0;
}

static inline uint64_t summary_digest(int mode, const uint8_t *v) {
    int lo = tfr_digest_range[mode][0], hi = tfr_digest_range[mode][1];
    if (hi <= lo) return 0;
    uint64_t h = fmix64(0x9E3779B97F4A7C15ull ^ (uint64_t)mode);
    for (int i = lo; i < hi; i++) {
        uint64_t w = le64(v + 8 * i);
        double x;
        memcpy(&x, &w, 8);
        if (x != x) return 0;
        h = fmix64(h ^ w);
    }
    return h == 0 ? 1 : h == DIGEST_EMPTY ? DIGEST_EMPTY - 1 : h;
}

enum { MODE_NO_TENSOR = 1 };

/* ------------------------------------------------------------------ framing */

typedef struct {
    const uint8_t *p;
    size_t n;
} Span;

/* One framed record at pos: 1 = intact (payload in *pl, *next = its end), 0 = partial (stop,
 * "not yet written"), -1 = anything wrong (hand to Python; *next = end of this record's slot
 * when the length was good, else pos + 12). */
static inline int frame(const uint8_t *b, size_t n, size_t pos, Span *pl, size_t *next) {
    if (n - pos < 12) return 0;
    uint64_t length = le64(b + pos);
    if (masked(tfr_crc32c(b + pos, 8)) != le32(b + pos + 8)) {
        *next = pos + 12;
        return -1;
    }
    if (length > (uint64_t)(n - pos - 12) || (uint64_t)(n - pos - 12) - length < 4) return 0;
    size_t end = pos + 12 + (size_t)length + 4;
    *next = end;
    pl->p = b + pos + 12;
    pl->n = (size_t)length;
    if (masked(tfr_crc32c(pl->p, pl->n)) != le32(b + end - 4)) return -1;
    return 1;
}

/* The leading wall_time (field 1, fixed64) and optional step (field 2, varint) of a DebugEvent,
 * then the `what` field with tag `tag` spanning exactly the rest of the payload. */
static inline int event_head(const uint8_t *p, const uint8_t *e, uint8_t tag, const uint8_t **w,
                             const uint8_t **msg, size_t *nmsg) {
    static const uint8_t zero[8] = {0};
    *w = zero;
    if (p < e && *p == 0x09) {
        if (e - p < 9) return 0;
        *w = p + 1;
        p += 9;
    }
    if (p < e && *p == 0x10) {
        uint64_t v;
        p++;
        if (!varint(&p, e, 10, &v)) return 0;
    }
    if (p >= e || *p != tag) return 0;
    p++;
    if (!len_field(&p, e, msg, nmsg)) return 0;
    return p == e;
}


/* read_summaries(...): see readback.c. */
PyObject *tfr_read_summaries(PyObject *self, PyObject *args);

#endif
