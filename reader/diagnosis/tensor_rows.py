"""Every trace row of each traced tensor, grouped: the diagnosis's "all traces of (graph, op,
slot)", in file order.

Why this shape: a run of ten million traces traces a few thousand distinct tensors, and a
trace row's graph, op name and slot are fields of its *kind* (`reader.index.kinds`). So the
tensor of each kind is found once per kind (thousands, not millions), and a row's tensor is
its kind's (one 16-bit id per row, made on the first question). A report's walks ask about
a few tensors (14 for 120 diagnoses of 10M traces), each then picked out of those ids in one
pass (~5 ms) and kept: ~0.1 s where grouping every row took ~0.2 s. A long TUI session asks
about more: past `EAGER_AFTER` tensors every row is counting-sorted by tensor one chunk at a
time (stable, so each tensor's rows stay in file order), and what stays is one row number per
trace (int32) plus where each tensor's rows start. There is no per-row composite key, no
argsort of the whole table and no binary search over millions of keys per question.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.index.schema import TraceTable

CHUNK = 1 << 18  # rows per step of the `nondecreasing` check
SORT_CHUNK = 1 << 16  # rows per counting-sort step: bounds the build's temporaries (~2 MB),
# which land at the end of a run, where the process's peak memory is
RELEASE_CHUNKS = 64  # chunks between two `release` calls: 16 MB of kinds
EAGER_AFTER = 24  # tensors picked out one by one before every row is grouped at once
_NO_ROWS = np.empty(0, np.int64)


class TensorRows:
    """Rows of each (graph id, op name id, slot) of a trace table, as of the last `build`.

    A walk asks about a few tensors (a report of 120 diagnoses at 10M traces: 14), so the
    rows are not grouped up front: each row's tensor id (16 bits) is found once, on the first
    question, and each tensor's rows are picked out of it when first asked (one pass, ~5 ms
    at 10M rows, kept). Only after `EAGER_AFTER` different tensors (a TUI session's walks)
    are all rows grouped at once (`_group`). Either way a tensor's rows are the same: every
    row of it, in file order."""

    def __init__(self) -> None:
        self._ids: dict[tuple[int, int, int], int] = {}
        self._order: np.ndarray | None = None  # every row grouped by tensor, once grouped
        self._bounds: np.ndarray = np.zeros(1, np.int64)
        self._picked: dict[int, np.ndarray] = {}  # the tensors asked about, before that
        self._row_tensor: np.ndarray | None = None  # each row's tensor, once asked
        self._table: TraceTable | None = None
        self._n = self._m = 0  # rows and tensors as of the build
        self._kind_tensor = np.empty(0, np.uint16)
        self._release: Callable[[], None] | None = None

    def build(self, table: TraceTable, release: Callable[[], None] | None = None) -> None:
        """Find the tensor of each kind of the table's rows (called again when the table
        grew); its rows are grouped as questions come. `release`, called every few chunks
        of a pass over the rows, lets go of the pages of mapped columns read so far
        (`DebugLogdir.release_pages`: the kinds of 10M traces are 40 MB of them)."""
        self._ids, self._order, self._picked, self._row_tensor = {}, None, {}, None
        kinds = table.kinds
        if kinds is None:
            raise TypeError("a trace table without kinds")
        fields = np.stack([kinds.col(f).astype(np.int64) for f in ("graph_id", "op_name",
                                                                    "slot")], axis=1)
        if len(fields):
            tensors, tensor_of = np.unique(fields, axis=0, return_inverse=True)
        else:
            tensors, tensor_of = fields, np.empty(0, np.int64)
        m = len(tensors)
        # uint16 ids make the per-chunk stable sort a radix sort, and halve the gathers
        self._kind_tensor = tensor_of.reshape(-1).astype(np.uint16 if m <= 1 << 16
                                                         else np.int32)
        self._table, self._release, self._n, self._m = table, release, len(table), m
        self._ids = {(g, o, s): i for i, (g, o, s) in enumerate(tensors.tolist())}

    def rows(self, graph: int, op_name: int, slot: int) -> np.ndarray:
        """The rows of one tensor (string ids of its graph and op name), in file order."""
        k = self._ids.get((graph, op_name, slot))
        if k is None:
            return _NO_ROWS
        if self._order is None:
            got = self._picked.get(k)
            if got is not None:
                return got
            if len(self._picked) < EAGER_AFTER:
                got = self._picked[k] = self._pick(k)
                return got
            self._group()
        assert self._order is not None
        return self._order[int(self._bounds[k]):int(self._bounds[k + 1])]

    def _tensor_of_rows(self) -> np.ndarray:
        """Each row's tensor (made on the first question: one pass over the kinds)."""
        if self._row_tensor is None:
            assert self._table is not None
            n = self._n  # (rows appended since the build are a later build's)
            kind = self._table.col("kind")[:n]
            out = np.empty(n, self._kind_tensor.dtype)
            for a in range(0, n, SORT_CHUNK):
                np.take(self._kind_tensor, kind[a:a + SORT_CHUNK], out=out[a:a + SORT_CHUNK])
                _every(a, self._release)
            self._row_tensor = out
        return self._row_tensor

    def _pick(self, k: int) -> np.ndarray:
        of = self._tensor_of_rows()
        rows = np.flatnonzero(of == of.dtype.type(k))
        return rows.astype(np.int32) if len(of) < np.iinfo(np.int32).max else rows

    def _group(self) -> None:
        """Every row grouped by tensor: counting-sorted one chunk at a time (stable: each
        tensor's rows stay in file order), one row number per trace (int32) kept."""
        t_all, m = self._tensor_of_rows(), self._m
        n = len(t_all)
        counts = np.zeros(m, np.int64)
        for a in range(0, n, SORT_CHUNK):
            counts += np.bincount(t_all[a:a + SORT_CHUNK], minlength=m)
        bounds = np.zeros(m + 1, np.int64)
        np.cumsum(counts, out=bounds[1:])
        del counts
        wide = n >= np.iinfo(np.int32).max
        order = np.empty(n, np.int64 if wide else np.int32)
        cursor = bounds[:-1].copy()  # where each tensor's next row goes
        step = np.arange(SORT_CHUNK, dtype=np.int64)
        for a in range(0, n, SORT_CHUNK):
            t = t_all[a:a + SORT_CHUNK]
            local = np.argsort(t, kind="stable")
            ts = t[local]
            per = np.bincount(t, minlength=m)
            # place = cursor[ts] + (position in chunk - each tensor's first place in the chunk)
            first = cursor - (np.cumsum(per) - per)
            place = first[ts]
            place += step[:len(t)]
            local += a
            order[place] = local
            cursor += per
        self._order, self._bounds = order, bounds
        self._picked, self._row_tensor = {}, None  # (the grouping answers from now on)


def _every(a: int, release: Callable[[], None] | None) -> None:
    """`release()` once every RELEASE_CHUNKS chunks (of SORT_CHUNK rows from row `a`)."""
    if release is not None and (a // SORT_CHUNK) % RELEASE_CHUNKS == RELEASE_CHUNKS - 1:
        release()


def nondecreasing(values: np.ndarray) -> bool:
    """True when `values` never decrease (no NaN), checked a chunk at a time."""
    n = len(values)
    for a in range(0, n, CHUNK):
        w = np.asarray(values[a:min(a + CHUNK + 1, n)])
        if not bool((w[1:] >= w[:-1]).all()):
            return False
    return not (n and bool(np.isnan(values[0])))
