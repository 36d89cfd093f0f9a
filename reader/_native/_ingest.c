/* The compiled core of the reader's hot loops: TFRecord framing, CRC-32C, and a strict parse
 * of the two record kinds that come by the million (graph traces and executions).
 *
 * Why it can be exact: it only ever accepts records whose bytes are in the one canonical
 * protobuf layout (fields once each, in field order, with the wire types TensorFlow writes)
 * and whose strings the Python code has already validated and interned. Such a record has one
 * meaning under the protobuf wire format, which this file decodes. Everything else - a new
 * string, a damaged frame, a failing CRC, an unusual layout, a non-canonical tensor - makes it
 * stop and hand that one record back to the Python code (reader/index/ingest.py), which stays
 * the single definition of what a record means and of every warning.
 *
 * Output: rows in the same packed layouts the Python loops build (see ingest.py), appended to
 * bytearrays owned by the caller.
 *
 * The module is built from three files: this one (the index loops and the module), readback.c
 * (summaries read back by offset) and wire.c/wire.h (framing, fields, CRC, the mode rules).
 */
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

static const size_t MAX_ENTRIES = 1u << 20;

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

static Entry *kt_find(KeyTable *t, const uint8_t *key, size_t len, uint64_t h) {
    if (t->cap == 0) return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        Entry *e = &t->slots[i];
        if (!e->key) return e;
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) return e;
    }
}

static int kt_grow(KeyTable *t) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    Entry *slots = PyMem_Calloc(cap, sizeof(Entry));
    if (!slots) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        Entry *e = &t->slots[i];
        if (!e->key) continue;
        size_t j = (size_t)e->hash & (cap - 1);
        while (slots[j].key) j = (j + 1) & (cap - 1);
        slots[j] = *e;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

static void kt_clear(KeyTable *t) {
    for (size_t i = 0; i < t->cap; i++) PyMem_Free(t->slots[i].key);
    PyMem_Free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

static void KeyTable_dealloc(KeyTable *t) {
    kt_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* add(key: bytes, a, b, c, d): remember key -> (a, b, c, d); silently full at MAX_ENTRIES. */
static PyObject *KeyTable_add(KeyTable *t, PyObject *args) {
    Py_buffer key;
    int a, b, c, d;
    if (!PyArg_ParseTuple(args, "y*iiii", &key, &a, &b, &c, &d)) return NULL;
    uint64_t h = hash_bytes(key.buf, (size_t)key.len, 0xCBF29CE484222325ull);
    if (t->used >= MAX_ENTRIES) goto done;
    if ((t->used + 1) * 2 > t->cap && kt_grow(t) < 0) {
        PyBuffer_Release(&key);
        return PyErr_NoMemory();
    }
    Entry *e = kt_find(t, key.buf, (size_t)key.len, h);
    if (!e->key) {
        e->key = PyMem_Malloc(key.len ? (size_t)key.len : 1);
        if (!e->key) {
            PyBuffer_Release(&key);
            return PyErr_NoMemory();
        }
        memcpy(e->key, key.buf, (size_t)key.len);
        e->len = (size_t)key.len;
        e->hash = h;
        t->used++;
    }
    e->v[0] = a; e->v[1] = b; e->v[2] = c; e->v[3] = d;
done:
    PyBuffer_Release(&key);
    Py_RETURN_NONE;
}

static PyObject *KeyTable_clear(KeyTable *t, PyObject *Py_UNUSED(ignored)) {
    kt_clear(t);
    Py_RETURN_NONE;
}

static Py_ssize_t KeyTable_len(KeyTable *t) { return (Py_ssize_t)t->used; }

static PyMethodDef KeyTable_methods[] = {
    {"add", (PyCFunction)KeyTable_add, METH_VARARGS, "add(key, a, b, c, d)"},
    {"clear", (PyCFunction)KeyTable_clear, METH_NOARGS, "forget every entry"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods KeyTable_as_seq = {.sq_length = (lenfunc)KeyTable_len};

static PyTypeObject KeyTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "reader._native._ingest.KeyTable",
    .tp_basicsize = sizeof(KeyTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "byte string -> four ints, filled by the Python ingest with validated strings",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)KeyTable_dealloc,
    .tp_methods = KeyTable_methods,
    .tp_as_sequence = &KeyTable_as_seq,
};

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

/* ------------------------------------------------------------------ growable buffers */

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static inline int buf_put(Buf *b, const void *src, size_t k) {
    if (b->n + k > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + k) cap *= 2;
        char *p = PyMem_RawRealloc(b->p, cap);
        if (!p) return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, k);
    b->n += k;
    return 0;
}

/* Append b's bytes to the bytearray `dst`, then free b. */
static int buf_flush(Buf *b, PyObject *dst) {
    int rc = 0;
    if (b->n) {
        Py_ssize_t n0 = PyByteArray_GET_SIZE(dst);
        if (PyByteArray_Resize(dst, n0 + (Py_ssize_t)b->n) < 0) rc = -1;
        else memcpy(PyByteArray_AS_STRING(dst) + n0, b->p, b->n);
    }
    PyMem_RawFree(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
    return rc;
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


enum { ST_END = 0, ST_PUNT = 1 };

/* ------------------------------------------------------------------ graph traces */

#pragma pack(push, 1)
typedef struct { /* == batches.TRACE_ROW "<dqi" */
    uint8_t wall[8];
    int64_t offset;
    int32_t kind;
} TraceRow;
typedef struct { /* == batches.EXEC_ROW "<dqqi" */
    uint8_t wall[8];
    int64_t offset, first_output;
    int32_t kind;
} ExecRow;
#pragma pack(pop)

/* Decode one canonical trace record of a known kind; 0 = hand it to Python. */
static int trace_record(const uint8_t *p, size_t n, int32_t fsi, KeyTable *keys, TraceRow *r,
                        int8_t *bad, uint8_t *scratch, size_t nscratch) {
    const uint8_t *e = p + n, *w, *m;
    size_t nm;
    if (!event_head(p, e, 0x52, &w, &m, &nm)) return 0;
    memcpy(r->wall, w, 8);
    const uint8_t *q = m, *qe = m + nm;
    const uint8_t *ctx = NULL, *op = NULL, *tp = NULL, *dev = NULL;
    size_t nc = 0, no = 0, nt = 0, nd = 0;
    int32_t slot = 0, mode = 0;
    int last = 0;
    while (q < qe) {
        uint8_t tag = *q++;
        int field = tag >> 3;
        if (field <= last || tag & 0x80) return 0; /* once each, in order, one-byte tags */
        last = field;
        switch (tag) {
        case 0x0a: if (!len_field(&q, qe, &ctx, &nc)) return 0; break;
        case 0x12: if (!len_field(&q, qe, &op, &no)) return 0; break;
        case 0x18: if (!int32_field(&q, qe, &slot)) return 0; break;
        case 0x20: if (!int32_field(&q, qe, &mode)) return 0; break;
        case 0x2a: if (!len_field(&q, qe, &tp, &nt)) return 0; break;
        case 0x32: if (!len_field(&q, qe, &dev, &nd)) return 0; break;
        default: return 0;
        }
    }
    const Entry *k = trace_lookup(keys, fsi, slot, mode, ctx, nc, op, no, dev, nd, scratch,
                                  nscratch);
    if (!k) return 0;
    *bad = -1;
    if (mode != MODE_NO_TENSOR && nt) {
        const uint8_t *v = canonical_vector(mode, tp, nt);
        int64_t tid;
        if (!v || !vector_health(mode, v, bad, &tid)) return 0;
    }
    r->kind = k->v[0];
    return 1;
}

#define SCRATCH (1 << 16)

/* scan_traces(buf, pos, base, fileset, keys, row, rows, bad) -> (pos, status, record_end, row)
 * Consumes intact canonical trace records of known kinds from buf[pos:], appending packed rows
 * to `rows` and one `bad` byte per row to `bad`. Stops at the end of the data or at a partial
 * record (status END; pos = where to resume), or at a record Python must handle (status PUNT;
 * that record is buf[pos:record_end]). `row` numbers rows within the batch. */
static PyObject *scan_traces(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos0;
    long long base, row;
    int fsi;
    KeyTable *keys;
    PyObject *o_rows, *o_bad;
    if (!PyArg_ParseTuple(args, "y*nLiO!LO!O!", &view, &pos0, &base, &fsi, &KeyTableType, &keys,
                          &row, &PyByteArray_Type, &o_rows, &PyByteArray_Type, &o_bad))
        return NULL;
    const uint8_t *b = view.buf;
    size_t n = (size_t)view.len;
    size_t pos = pos0 < 0 ? 0 : (size_t)pos0 > n ? n : (size_t)pos0, next = pos;
    int status = ST_END, oom = 0;
    Buf rows = {0}, bads = {0};
    uint8_t *scratch = PyMem_RawMalloc(SCRATCH);
    if (!scratch) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        Span pl;
        int f = frame(b, n, pos, &pl, &next);
        if (f == 0) break;
        TraceRow r;
        int8_t bad;
        if (f < 0 || !trace_record(pl.p, pl.n, fsi, keys, &r, &bad, scratch, SCRATCH)) {
            status = ST_PUNT;
            break;
        }
        r.offset = (int64_t)(base + (long long)pos);
        if (buf_put(&rows, &r, sizeof r) < 0 || buf_put(&bads, &bad, 1) < 0) {
            oom = 1;
            break;
        }
        row++;
        pos = next;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    PyBuffer_Release(&view);
    int rc = buf_flush(&rows, o_rows) | buf_flush(&bads, o_bad);
    if (oom || rc) return PyErr_NoMemory();
    return Py_BuildValue("(ninL)", (Py_ssize_t)pos, status,
                         (Py_ssize_t)(status == ST_PUNT ? next : pos), row);
}

/* ------------------------------------------------------------------ executions */

#define MAX_PROTOS 256
#define MAX_OUTPUTS 4096

typedef struct {
    const uint8_t *ids; /* the packed output tensor ids (validated varints) */
    size_t nids_bytes, n_ids, n_protos;
    int32_t n_out;
    const uint8_t *protos[MAX_PROTOS];
    size_t proto_len[MAX_PROTOS];
    int8_t bad[MAX_PROTOS];
    int64_t vec_tid[MAX_PROTOS];
    int has_vec[MAX_PROTOS];
} ExecParts;

/* Decode one canonical execution record of a known kind; 0 = hand it to Python. */
static int exec_record(const uint8_t *p, size_t n, int32_t fsi, KeyTable *names,
                       KeyTable *kinds, ExecRow *r, ExecParts *x) {
    const uint8_t *e = p + n, *w, *m;
    size_t nm;
    if (!event_head(p, e, 0x4a, &w, &m, &nm)) return 0;
    memcpy(r->wall, w, 8);
    const uint8_t *q = m, *qe = m + nm, *op = NULL, *gid = NULL;
    size_t nop = 0, ngid = 0;
    int32_t num_outputs = 0, mode = 0;
    int last = 0;
    x->ids = NULL;
    x->nids_bytes = x->n_ids = x->n_protos = 0;
    while (q < qe) {
        uint8_t tag = *q++;
        int field = tag >> 3;
        unsigned wt = tag & 7;
        if (tag & 0x80 || field < last) return 0;
        if (field == last && field != 4 && field != 7 && field != 9) return 0;
        last = field;
        const uint8_t *s;
        size_t k;
        switch (field) {
        case 1: if (wt != 2 || !len_field(&q, qe, &op, &nop)) return 0; break;
        case 2: if (wt != 0 || !int32_field(&q, qe, &num_outputs)) return 0; break;
        case 3: if (wt != 2 || !len_field(&q, qe, &gid, &ngid)) return 0; break;
        case 5: {
            if (wt != 2 || !len_field(&q, qe, &s, &k)) return 0;
            const uint8_t *t = s, *te = s + k;
            size_t c = 0;
            uint64_t v;
            while (t < te) {
                if (!varint(&t, te, 10, &v)) return 0;
                c++;
            }
            x->ids = s;
            x->nids_bytes = k;
            x->n_ids = c;
            break;
        }
        case 6: if (wt != 0 || !int32_field(&q, qe, &mode)) return 0; break;
        case 7:
            if (wt != 2 || x->n_protos >= MAX_PROTOS || !len_field(&q, qe, &s, &k)) return 0;
            x->protos[x->n_protos] = s;
            x->proto_len[x->n_protos] = k;
            x->n_protos++;
            break;
        case 4: case 8: case 9:
            if (!skip_field(&q, qe, wt)) return 0;
            break;
        default: return 0;
        }
    }
    const Entry *t = str_lookup(names, op, nop);
    if (!t) return 0;
    int32_t gid_id = -1;
    if (ngid) {
        const Entry *g = str_lookup(names, gid, ngid);
        if (!g) return 0;
        gid_id = g->v[0];
    }
    size_t n_out = x->n_ids;
    if (x->n_protos > n_out) n_out = x->n_protos;
    if ((size_t)num_outputs > n_out) n_out = (size_t)num_outputs;
    if (n_out > MAX_OUTPUTS) return 0;
    x->n_out = (int32_t)n_out;
    for (size_t i = 0; i < x->n_protos; i++) {
        x->has_vec[i] = 0;
        x->bad[i] = -1;
        x->vec_tid[i] = -1;
        if (mode == MODE_NO_TENSOR || !x->proto_len[i]) continue;
        const uint8_t *v = canonical_vector(mode, x->protos[i], x->proto_len[i]);
        if (!v || !vector_health(mode, v, &x->bad[i], &x->vec_tid[i])) return 0;
        x->has_vec[i] = 1;
    }
    int32_t key[6] = {t->v[0], gid_id, num_outputs, mode, (int32_t)n_out, fsi};
    const Entry *kind = str_lookup(kinds, (const uint8_t *)key, sizeof key);
    if (!kind) return 0;
    r->kind = kind->v[0];
    return 1;
}

/* scan_executions(buf, pos, base, fileset, names, kinds, row, orow, exec_base, out_base,
 *                 rows, out_exec, out_slot, out_tid, out_bad)
 *   -> (pos, status, record_end, row, orow)
 * As scan_traces, for `.execution` records; `names` maps op type and graph id bytes to their
 * interned ids, `kinds` execution kinds (op type, graph, num outputs, mode, outputs, file set)
 * to kind ids. Also appends one output row (execution, slot, tensor id, bad) per output. */
static PyObject *scan_executions(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos0;
    long long base, row, orow, exec_base, out_base;
    int fsi;
    KeyTable *names, *kinds;
    PyObject *o_rows, *o_exec, *o_slot, *o_tid, *o_bad;
    if (!PyArg_ParseTuple(args, "y*nLiO!O!LLLLO!O!O!O!O!", &view, &pos0, &base, &fsi,
                          &KeyTableType, &names, &KeyTableType, &kinds, &row, &orow, &exec_base,
                          &out_base, &PyByteArray_Type, &o_rows, &PyByteArray_Type, &o_exec,
                          &PyByteArray_Type, &o_slot, &PyByteArray_Type, &o_tid,
                          &PyByteArray_Type, &o_bad))
        return NULL;
    const uint8_t *b = view.buf;
    size_t n = (size_t)view.len;
    size_t pos = pos0 < 0 ? 0 : (size_t)pos0 > n ? n : (size_t)pos0, next = pos;
    int status = ST_END, oom = 0;
    Buf rows = {0}, oexec = {0}, oslot = {0}, otid = {0}, obad = {0};
    ExecParts *x = PyMem_RawMalloc(sizeof *x);
    if (!x) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        Span pl;
        int f = frame(b, n, pos, &pl, &next);
        if (f == 0) break;
        ExecRow r;
        if (f < 0 || !exec_record(pl.p, pl.n, fsi, names, kinds, &r, x)) {
            status = ST_PUNT;
            break;
        }
        r.offset = (int64_t)(base + (long long)pos);
        r.first_output = (int64_t)(out_base + orow);
        if (buf_put(&rows, &r, sizeof r) < 0) { oom = 1; break; }
        const uint8_t *t = x->ids, *te = x->ids + x->nids_bytes;
        int64_t exec_index = (int64_t)(exec_base + row);
        for (int32_t slot = 0; slot < x->n_out; slot++) {
            int64_t tid = -1;
            int8_t bad = -1;
            if ((size_t)slot < x->n_ids) {
                uint64_t v = 0;
                varint(&t, te, 10, &v); /* validated in exec_record */
                tid = (int64_t)v;
            }
            if ((size_t)slot < x->n_protos && x->has_vec[slot]) {
                bad = x->bad[slot];
                if (tid < 0) tid = x->vec_tid[slot];
            } else if (tid < 0) {
                tid = -1;
            }
            if (buf_put(&oexec, &exec_index, 8) < 0 || buf_put(&oslot, &slot, 4) < 0 ||
                buf_put(&otid, &tid, 8) < 0 || buf_put(&obad, &bad, 1) < 0) {
                oom = 1;
                break;
            }
            orow++;
        }
        if (oom) break;
        row++;
        pos = next;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(x);
    PyBuffer_Release(&view);
    int rc = buf_flush(&rows, o_rows) | buf_flush(&oexec, o_exec) | buf_flush(&oslot, o_slot) |
             buf_flush(&otid, o_tid) | buf_flush(&obad, o_bad);
    if (oom || rc) return PyErr_NoMemory();
    return Py_BuildValue("(ninLL)", (Py_ssize_t)pos, status,
                         (Py_ssize_t)(status == ST_PUNT ? next : pos), row, orow);
}

/* ------------------------------------------------------------------ module */

static PyObject *py_crc32c(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    uint32_t c;
    Py_BEGIN_ALLOW_THREADS
    c = tfr_crc32c(view.buf, (size_t)view.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(c);
}

/* configure({mode: (vector length, rule, columns, tensor id first)}): the fixed-layout modes
 * and how `bad` follows from their summary (reader.index.batches.VECTOR_RULES). */
static PyObject *configure(PyObject *self, PyObject *arg) {
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "configure() takes a dict");
        return NULL;
    }
    ModeRule table[16];
    memset(table, 0, sizeof table);
    PyObject *k, *v;
    Py_ssize_t i = 0;
    while (PyDict_Next(arg, &i, &k, &v)) {
        long mode = PyLong_AsLong(k);
        int len, rule, has_tid;
        PyObject *cols, *maxes;
        if (PyErr_Occurred()) return NULL;
        if (!PyArg_ParseTuple(v, "iiO!pO!", &len, &rule, &PyTuple_Type, &cols, &has_tid,
                              &PyTuple_Type, &maxes))
            return NULL;
        Py_ssize_t ncols = PyTuple_GET_SIZE(cols);
        if (mode < 0 || mode >= 16 || len <= 0 || len > 15 || rule < 0 || rule > 3 ||
            ncols > 4 || (rule != RULE_NONE && ncols == 0) || PyTuple_GET_SIZE(maxes) != len) {
            PyErr_SetString(PyExc_ValueError, "bad mode rule");
            return NULL;
        }
        ModeRule *r = &table[mode];
        r->len = len;
        r->rule = rule;
        r->ncols = (int)ncols;
        r->has_tid = has_tid;
        for (Py_ssize_t c = 0; c < ncols; c++) {
            long col = PyLong_AsLong(PyTuple_GET_ITEM(cols, c));
            if (PyErr_Occurred()) return NULL;
            if (col < 0 || col >= len) {
                PyErr_SetString(PyExc_ValueError, "rule column out of the vector");
                return NULL;
            }
            r->cols[c] = (int)col;
        }
        for (int e = 0; e < len; e++) {
            r->max[e] = PyFloat_AsDouble(PyTuple_GET_ITEM(maxes, e));
            if (PyErr_Occurred()) return NULL;
        }
    }
    memcpy(tfr_rules, table, sizeof table);
    Py_RETURN_NONE;
}

/* vector_health(mode, vector bytes) -> (bad, tensor id) or None: what the loops compute for
 * one canonical summary (for tests against reader.index.health.fill_from_vectors). */
static PyObject *py_vector_health(PyObject *self, PyObject *args) {
    int mode;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "iy*", &mode, &view)) return NULL;
    int8_t bad = -1;
    int64_t tid = -1;
    int ok = mode >= 0 && mode < 16 && tfr_rules[mode].len &&
             view.len == 8 * (Py_ssize_t)tfr_rules[mode].len &&
             vector_health(mode, view.buf, &bad, &tid);
    PyBuffer_Release(&view);
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(iL)", (int)bad, (long long)tid);
}

static PyMethodDef methods[] = {
    {"scan_traces", scan_traces, METH_VARARGS, "index canonical graph-trace records"},
    {"scan_executions", scan_executions, METH_VARARGS, "index canonical execution records"},
    {"crc32c", py_crc32c, METH_VARARGS, "CRC-32C (unmasked) of a buffer"},
    {"configure", configure, METH_O, "set the summary layout and rules of each mode"},
    {"vector_health", py_vector_health, METH_VARARGS, "bad and tensor id of one summary"},
    {"read_summaries", tfr_read_summaries, METH_VARARGS, "summaries of records, by offset"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_ingest",
    .m_doc = "Compiled hot loops of the reader (framing, CRC-32C, canonical record parse).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__ingest(void) {
    const uint16_t one = 1;
    if (*(const uint8_t *)&one != 1) {
        PyErr_SetString(PyExc_ImportError, "big-endian hosts use the pure-Python reader");
        return NULL;
    }
    tfr_crc_setup();
    if (PyType_Ready(&KeyTableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&KeyTableType);
    if (PyModule_AddObject(m, "KeyTable", (PyObject *)&KeyTableType) < 0) {
        Py_DECREF(&KeyTableType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "END", ST_END);
    PyModule_AddIntConstant(m, "PUNT", ST_PUNT);
    PyModule_AddIntConstant(m, "HARDWARE_CRC", tfr_crc_is_hardware());
    return m;
}
