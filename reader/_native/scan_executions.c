/* The index loop of executions (and their outputs): see _ingest.c for why it can be exact. */
#include "scan.h"


/* ------------------------------------------------------------------ executions */

#define MAX_PROTOS 256
#define MAX_OUTPUTS 4096

typedef struct {
    const uint8_t *ids; /* the packed output tensor ids (validated varints) */
    size_t nids_bytes, n_ids, n_protos;
    int32_t n_out, mode;
    int want_digest; /* set by the caller: compute `digest` */
    const uint8_t *protos[MAX_PROTOS];
    size_t proto_len[MAX_PROTOS];
    int8_t bad[MAX_PROTOS];
    uint64_t digest[MAX_PROTOS];
    int64_t vec_tid[MAX_PROTOS];
    int has_vec[MAX_PROTOS];
    const uint8_t *vec[MAX_PROTOS];
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
    x->mode = mode;
    for (size_t i = 0; i < x->n_protos; i++) {
        x->has_vec[i] = 0;
        x->bad[i] = -1;
        x->vec_tid[i] = -1;
        x->digest[i] = x->want_digest ? empty_digest(mode) : 0;
        if (mode == MODE_NO_TENSOR || !x->proto_len[i]) continue;
        const uint8_t *v = canonical_vector(mode, x->protos[i], x->proto_len[i]);
        if (!v || !vector_health(mode, v, &x->bad[i], &x->vec_tid[i])) return 0;
        if (x->want_digest) x->digest[i] = summary_digest(mode, v);
        x->has_vec[i] = 1;
        x->vec[i] = v;
    }
    int32_t key[6] = {t->v[0], gid_id, num_outputs, mode, (int32_t)n_out, fsi};
    const Entry *kind = str_lookup(kinds, (const uint8_t *)key, sizeof key);
    if (!kind) return 0;
    r->kind = kind->v[0];
    return 1;
}

/* scan_executions(buf, pos, base, fileset, names, kinds, row, orow, exec_base, out_base,
 *                 rows, out_exec, out_slot, out_tid, out_bad, out_digest=None, vectors=None)
 *   -> (pos, status, record_end, row, orow)
 * As scan_traces, for `.execution` records; `names` maps op type and graph id bytes to their
 * interned ids, `kinds` execution kinds (op type, graph, num outputs, mode, outputs, file set)
 * to kind ids. Also appends one output row (execution, slot, tensor id, bad and, when
 * `out_digest` is a bytearray, its summary digest) per output; with `vectors`, each output's
 * summary, by output row (see VecSink). */
PyObject *tfr_scan_executions(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos0;
    long long base, row, orow, exec_base, out_base;
    int fsi;
    KeyTable *names, *kinds;
    PyObject *o_rows, *o_exec, *o_slot, *o_tid, *o_bad, *o_digest = Py_None, *o_vec = Py_None;
    VecSink vs;
    if (!PyArg_ParseTuple(args, "y*nLiO!O!LLLLO!O!O!O!O!|OO", &view, &pos0, &base, &fsi,
                          &TfrKeyTableType, &names, &TfrKeyTableType, &kinds, &row, &orow,
                          &exec_base, &out_base, &PyByteArray_Type, &o_rows,
                          &PyByteArray_Type, &o_exec, &PyByteArray_Type, &o_slot,
                          &PyByteArray_Type, &o_tid, &PyByteArray_Type, &o_bad, &o_digest,
                          &o_vec))
        return NULL;
    if (o_digest != Py_None && !PyByteArray_Check(o_digest)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "out_digest must be a bytearray or None");
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
    Buf rows = {0}, oexec = {0}, oslot = {0}, otid = {0}, obad = {0}, odigest = {0};
    ExecParts *x = PyMem_RawMalloc(sizeof *x);
    if (!x) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    x->want_digest = want_digest;
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
            uint64_t digest = empty_digest(x->mode);
            if ((size_t)slot < x->n_ids) {
                uint64_t v = 0;
                varint(&t, te, 10, &v); /* validated in exec_record */
                tid = (int64_t)v;
            }
            if ((size_t)slot < x->n_protos && x->has_vec[slot]) {
                bad = x->bad[slot];
                digest = x->digest[slot];
                if (tid < 0) tid = x->vec_tid[slot];
                if (vec_sink_put(&vs, x->vec[slot], tfr_rules[x->mode].len, x->mode,
                                 (int64_t)orow) < 0) {
                    oom = 1;
                    break;
                }
            } else if (tid < 0) {
                tid = -1;
            }
            if (buf_put(&oexec, &exec_index, 8) < 0 || buf_put(&oslot, &slot, 4) < 0 ||
                buf_put(&otid, &tid, 8) < 0 || buf_put(&obad, &bad, 1) < 0 ||
                (want_digest && buf_put(&odigest, &digest, 8) < 0)) {
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
             buf_flush(&otid, o_tid) | buf_flush(&obad, o_bad) |
             (want_digest ? buf_flush(&odigest, o_digest) : 0) | vec_sink_flush(&vs);
    if (oom || rc) return PyErr_NoMemory();
    return Py_BuildValue("(ninLL)", (Py_ssize_t)pos, status,
                         (Py_ssize_t)(status == ST_PUNT ? next : pos), row, orow);
}
