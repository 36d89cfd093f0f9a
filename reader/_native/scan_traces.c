/* The index loop of graph traces: see _ingest.c for why it can be exact. */
#include "scan.h"


/* Decode one canonical trace record of a known kind; 0 = hand it to Python. `digest`: where
 * its summary digest goes, or NULL (not asked for); `vec`, `vmode`: its summary vector (NULL
 * when it has none) and mode. */
static int trace_record(const uint8_t *p, size_t n, int32_t fsi, KeyTable *keys, TraceRow *r,
                        int8_t *bad, uint64_t *digest, const uint8_t **vec, int32_t *vmode,
                        uint8_t *scratch, size_t nscratch) {
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
    *vec = NULL;
    *vmode = mode;
    if (digest) *digest = empty_digest(mode); /* NO_TENSOR has no range: 0 */
    if (mode != MODE_NO_TENSOR && nt) {
        const uint8_t *v = canonical_vector(mode, tp, nt);
        int64_t tid;
        if (!v || !vector_health(mode, v, bad, &tid)) return 0;
        if (digest) *digest = summary_digest(mode, v);
        *vec = v;
    }
    r->kind = k->v[0];
    return 1;
}

#define SCRATCH (1 << 16)

/* scan_traces(buf, pos, base, fileset, keys, row, rows, bad, digests=None, vectors=None)
 *   -> (pos, status, record_end, row)
 * Consumes intact canonical trace records of known kinds from buf[pos:], appending packed rows
 * to `rows`, one `bad` byte per row to `bad` and, when `digests` is a bytearray, each row's
 * summary digest (uint64, 0 = none) to it; with `vectors`, each summary (see VecSink). Stops
 * at the end of the data or at a partial record (status END; pos = where to resume), or at a
 * record Python must handle (status PUNT; that record is buf[pos:record_end]). `row` numbers
 * rows within the batch. */
PyObject *tfr_scan_traces(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos0;
    long long base, row;
    int fsi;
    KeyTable *keys;
    PyObject *o_rows, *o_bad, *o_digest = Py_None, *o_vec = Py_None;
    VecSink vs;
    if (!PyArg_ParseTuple(args, "y*nLiO!LO!O!|OO", &view, &pos0, &base, &fsi, &TfrKeyTableType,
                          &keys, &row, &PyByteArray_Type, &o_rows, &PyByteArray_Type, &o_bad,
                          &o_digest, &o_vec))
        return NULL;
    if (o_digest != Py_None && !PyByteArray_Check(o_digest)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "digests must be a bytearray or None");
        return NULL;
    }
    if (vec_sink_open(&vs, o_vec) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int want_digest = o_digest != Py_None;
    const uint8_t *b = view.buf;
    size_t n = (size_t)view.len;
    size_t pos = pos0 < 0 ? 0 : (size_t)pos0 > n ? n : (size_t)pos0, next = pos;
    int status = ST_END, oom = 0;
    Buf rows = {0}, bads = {0}, digests = {0};
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
        uint64_t digest = 0;
        const uint8_t *vec;
        int32_t vmode;
        if (f < 0 || !trace_record(pl.p, pl.n, fsi, keys, &r, &bad,
                                   want_digest ? &digest : NULL, &vec, &vmode, scratch,
                                   SCRATCH)) {
            status = ST_PUNT;
            break;
        }
        r.offset = (int64_t)(base + (long long)pos);
        if (buf_put(&rows, &r, sizeof r) < 0 || buf_put(&bads, &bad, 1) < 0 ||
            (want_digest && buf_put(&digests, &digest, 8) < 0) ||
            vec_sink_put(&vs, vec, vec ? tfr_rules[vmode].len : 0, vmode, (int64_t)row) < 0) {
            oom = 1;
            break;
        }
        row++;
        pos = next;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    PyBuffer_Release(&view);
    int rc = buf_flush(&rows, o_rows) | buf_flush(&bads, o_bad) |
             (want_digest ? buf_flush(&digests, o_digest) : 0) | vec_sink_flush(&vs);
    if (oom || rc) return PyErr_NoMemory();
    return Py_BuildValue("(ninL)", (Py_ssize_t)pos, status,
                         (Py_ssize_t)(status == ST_PUNT ? next : pos), row);
}
