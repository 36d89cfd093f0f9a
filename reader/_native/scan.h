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

PyObject *tfr_scan_traces(PyObject *self, PyObject *args);
PyObject *tfr_scan_executions(PyObject *self, PyObject *args);

#endif
