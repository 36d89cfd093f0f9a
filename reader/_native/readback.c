/* Reading tensor summaries back by record offset, in bulk (reader/index/detail.py).
 *
 * Why: the index keeps per tensor row only `bad` (and an eager output's id); a comparison of
 * two runs needs every row's counts, i.e. one summary per record for millions of records.
 * Python pays ~5 µs a record for that (pread, CRC, parse); this loop reads the file a few
 * MB at a time, without the GIL, and takes every summary it was asked for.
 *
 * Exactness, as in _ingest.c: a record is taken only when its frame and CRCs are intact, its
 * DebugEvent head is the canonical one, and its summary is the canonical float64 vector of a
 * fixed-layout mode. Its trace/execution fields may come in any order (the summary's meaning
 * does not depend on it), but a field that could merge or repeat ambiguously (a second
 * tensor_proto of a trace, a second mode) sends it back. Everything else is handed back to
 * the Python read-back, which stays the definition; rows whose record records no summary
 * (NO_TENSOR, an empty tensor, a slot past the tensors) are "nothing".
 */
#include "wire.h"

#include <errno.h>
#include <unistd.h>

enum { RB_NOTHING = 0, RB_VECTOR = 1, RB_PYTHON = -1, RB_OUTSIDE = 2 };
enum { RB_TRACE = 0, RB_EXECUTION = 1 };

/* The mode and the wanted tensor (bytes) of a trace (`slot` unused) or an execution (its
 * `slot`-th tensor_protos). 1 = understood (tensor may be NULL: none), 0 = hand back. */
static int summary_of(const uint8_t *m, size_t nm, int which, int32_t slot, int32_t *mode,
                      const uint8_t **tensor, size_t *ntensor) {
    const uint8_t *q = m, *qe = m + nm;
    int mode_seen = 0, tensors = 0;
    *mode = 0;
    *tensor = NULL;
    *ntensor = 0;
    int tensor_field = which == RB_TRACE ? 5 : 7, mode_field = which == RB_TRACE ? 4 : 6;
    while (q < qe) {
        uint64_t tag;
        if (!varint(&q, qe, 5, &tag)) return 0;
        uint64_t field = tag >> 3;
        unsigned wt = (unsigned)(tag & 7);
        if (field == (uint64_t)mode_field) {
            if (wt != 0 || mode_seen++ || !int32_field(&q, qe, mode)) return 0;
        } else if (field == (uint64_t)tensor_field) {
            const uint8_t *s;
            size_t k;
            if (wt != 2 || !len_field(&q, qe, &s, &k)) return 0;
            if (which == RB_TRACE && tensors) return 0; /* a second one: let protobuf decide */
            if (which == RB_TRACE || tensors == slot) {
                *tensor = s;
                *ntensor = k;
            }
            tensors++;
        } else if (field == 0 || !skip_field(&q, qe, wt)) {
            return 0;
        }
    }
    return 1;
}

/* One record at offsets[i] - base: its status, and its mode and summary when a vector. */
static int one(const uint8_t *b, size_t n, long long rel, int which, int32_t slot,
               int32_t *mode_out, double *vec_out) {
    if (rel < 0 || (unsigned long long)rel >= n) return RB_OUTSIDE;
    Span pl;
    size_t next;
    int f = frame(b, n, (size_t)rel, &pl, &next);
    if (f == 0) return RB_OUTSIDE; /* runs past this chunk */
    if (f < 0) return RB_PYTHON;
    const uint8_t *w, *m;
    size_t nm;
    if (!event_head(pl.p, pl.p + pl.n, which == RB_TRACE ? 0x52 : 0x4a, &w, &m, &nm))
        return RB_PYTHON;
    int32_t mode;
    const uint8_t *t;
    size_t nt;
    if (!summary_of(m, nm, which, slot, &mode, &t, &nt)) return RB_PYTHON;
    if (mode == MODE_NO_TENSOR || !t || !nt) return RB_NOTHING;
    const uint8_t *v = canonical_vector(mode, t, nt);
    if (!v) return RB_PYTHON; /* FULL_TENSOR values, a non-canonical summary: Python */
    memcpy(vec_out, v, 8 * (size_t)tfr_rules[mode].len);
    *mode_out = mode;
    return RB_VECTOR;
}

/* Reads [start, start + want) of fd into b (short only at the end of the file); -1 on error. */
static Py_ssize_t read_at(int fd, uint8_t *b, size_t want, long long start) {
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, b + got, want - got, (off_t)(start + (long long)got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (Py_ssize_t)got;
}

/* read_summaries(fd, which, offsets, slots, status, modes, vectors, chunk, tail)
 * For each row i, in the order given (offsets ascending: the file is then read once, `chunk`
 * bytes from a row's record on, plus `tail` past the last record starting in it): the record
 * at file offset offsets[i] (int64) of fd; which = 0 traces, 1 executions (slots[i], int32:
 * the output's slot). Writes status[i] (int8: 1 vector, 0 nothing, -1 Python's: declined,
 * longer than chunk + tail, or unreadable), modes[i] (int32) and vectors[i, :len] (float64,
 * rows of `width` >= 15 elements) for vectors. Runs without the GIL. */
PyObject *tfr_read_summaries(PyObject *self, PyObject *args) {
    Py_buffer off, slots, status, modes, vecs;
    int fd, which;
    Py_ssize_t chunk, tail;
    if (!PyArg_ParseTuple(args, "iiy*y*w*w*w*nn", &fd, &which, &off, &slots, &status, &modes,
                          &vecs, &chunk, &tail))
        return NULL;
    Py_ssize_t rows = off.len / 8;
    const char *err = NULL;
    if (which != RB_TRACE && which != RB_EXECUTION) err = "which must be 0 or 1";
    else if (slots.len < rows * 4 || status.len < rows || modes.len < rows * 4)
        err = "output buffers too short";
    else if (chunk <= 0 || tail <= 0 || chunk > (1 << 30) || tail > (1 << 30))
        err = "chunk and tail must be positive and at most 1 GiB";
    Py_ssize_t width = rows ? vecs.len / 8 / rows : 0;
    if (!err && rows && width < 15) err = "vectors need 15 float64 per row";
    uint8_t *b = NULL;
    if (!err && rows && !(b = PyMem_RawMalloc((size_t)(chunk + tail)))) err = "out of memory";
    if (!err && rows) {
        const int64_t *o = off.buf;
        const int32_t *sl = slots.buf;
        int8_t *st = status.buf;
        int32_t *md = modes.buf;
        double *vc = vecs.buf;
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t i = 0;
        while (i < rows) {
            long long start = o[i];
            Py_ssize_t j = i + 1;
            while (j < rows && o[j] >= start && o[j] - start < chunk) j++;
            size_t want = (size_t)(o[j - 1] - start + tail);
            Py_ssize_t n = start < 0 ? -1 : read_at(fd, b, want, start);
            if (n < 0) { /* unreadable: Python tries, and says unknown */
                for (; i < j; i++) st[i] = RB_PYTHON;
                continue;
            }
            Py_ssize_t k = j;
            for (Py_ssize_t r = i; r < j; r++) {
                st[r] = (int8_t)one(b, (size_t)n, o[r] - start, which, sl[r], &md[r],
                                    vc + r * width);
                if (st[r] == RB_OUTSIDE) {
                    k = r;
                    break;
                }
            }
            if (k == i) /* a record longer than chunk + tail (or past the end): Python's */
                for (; k < rows && o[k] == start; k++) st[k] = RB_PYTHON;
            i = k;
        }
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(b);
    PyBuffer_Release(&off);
    PyBuffer_Release(&slots);
    PyBuffer_Release(&status);
    PyBuffer_Release(&modes);
    PyBuffer_Release(&vecs);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}
