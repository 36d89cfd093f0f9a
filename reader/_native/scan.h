/* What the two index loops (scan_traces.c, scan_executions.c) share: packed row layouts,
 * growable output buffers and their status codes. */
#ifndef TFDBG_SCAN_H
#define TFDBG_SCAN_H

#include "keytable.h"

enum { ST_END = 0, ST_PUNT = 1 };

/* ------------------------------------------------------------------ packed rows */

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

/* ------------------------------------------------------------------ summaries kept

 * Where a scan also appends every summary vector it took, when asked (`vectors`, a tuple of
 * three bytearrays, or None): the vector's bytes, its row (int64) and its mode (int32), as
 * `reader.index.batches.HealthBatch` keeps them. Why: an export needs every row's counts;
 * kept while the scan has the record at hand, they need not be read back from the file. */
typedef struct {
    int on;
    PyObject *dst[3];
    Buf vec, rows, modes;
} VecSink;

/* 0, or -1 with a TypeError when `o` is neither None nor three bytearrays. */
static inline int vec_sink_open(VecSink *s, PyObject *o) {
    memset(s, 0, sizeof *s);
    if (o == Py_None) return 0;
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 3) goto bad;
    for (int i = 0; i < 3; i++) {
        s->dst[i] = PyTuple_GET_ITEM(o, i);
        if (!PyByteArray_Check(s->dst[i])) goto bad;
    }
    s->on = 1;
    return 0;
bad:
    PyErr_SetString(PyExc_TypeError, "vectors must be None or a tuple of three bytearrays");
    return -1;
}

static inline int vec_sink_put(VecSink *s, const uint8_t *v, int len, int32_t mode,
                               int64_t row) {
    if (!s->on || !v) return 0;
    return buf_put(&s->vec, v, 8 * (size_t)len) | buf_put(&s->rows, &row, 8) |
           buf_put(&s->modes, &mode, 4);
}

/* Append what was kept to the three bytearrays (always frees; -1: out of memory). */
static inline int vec_sink_flush(VecSink *s) {
    if (!s->on) return 0;
    return buf_flush(&s->vec, s->dst[0]) | buf_flush(&s->rows, s->dst[1]) |
           buf_flush(&s->modes, s->dst[2]);
}

PyObject *tfr_scan_traces(PyObject *self, PyObject *args);
PyObject *tfr_scan_executions(PyObject *self, PyObject *args);

#endif
