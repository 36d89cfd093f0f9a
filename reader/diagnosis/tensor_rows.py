"""Every trace row of each traced tensor, grouped: the diagnosis's "all traces of (graph, op,
slot)", in file order.

Why this shape: a run of ten million traces traces a few thousand distinct tensors, and a
trace row's graph, op name and slot are fields of its *kind* (`reader.index.kinds`). So the
tensor of each kind is found once per kind (thousands, not millions), the rows are
counting-sorted by tensor one chunk of rows at a time (stable, so each tensor's rows
stay in file order), and what stays is one row number per trace (int32) plus where each
tensor's rows start. There is no per-row composite key, no argsort of the whole table and no
binary search over millions of keys per question: a lookup is a dict get and a slice. The
build's extra memory is that order array plus one chunk's temporaries (tens of MB at ten
million traces, where a whole-table key + argsort held ~270 MB).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.index.schema import TraceTable

CHUNK = 1 << 18  # rows per step of the `nondecreasing` check
SORT_CHUNK = 1 << 16  # rows per counting-sort step: bounds the build's temporaries (~2 MB),
# which land at the end of a run, where the process's peak memory is
RELEASE_CHUNKS = 64  # chunks between two `release` calls: 16 MB of kinds
_NO_ROWS = np.empty(0, np.int64)


class TensorRows:
    """Rows of each (graph id, op name id, slot) of a trace table, as of the last `build`."""

    def __init__(self) -> None:
        self._ids: dict[tuple[int, int, int], int] = {}
        self._order: np.ndarray = np.empty(0, np.int32)
        self._bounds: np.ndarray = np.zeros(1, np.int64)

    def build(self, table: TraceTable, release: Callable[[], None] | None = None) -> None:
        """Group the table's rows by tensor (called again when the table grew). `release`,
        called every few chunks, lets go of the pages of mapped columns read so far
        (`DebugLogdir.release_pages`: the kinds of 10M traces are 40 MB of them)."""
        self._ids, self._order = {}, np.empty(0, np.int32)  # free the old grouping first
        kinds = table.kinds
        if kinds is None:
            raise TypeError("a trace table without kinds")
        n = len(table)
        fields = np.stack([kinds.col(f).astype(np.int64) for f in ("graph_id", "op_name",
                                                                    "slot")], axis=1)
        if len(fields):
            tensors, tensor_of = np.unique(fields, axis=0, return_inverse=True)
        else:
            tensors, tensor_of = fields, np.empty(0, np.int64)
        m = len(tensors)
        # uint16 ids make the per-chunk stable sort a radix sort, and halve the gathers
        tensor_of_kind = tensor_of.reshape(-1).astype(np.uint16 if m <= 1 << 16 else np.int32)
        kind = table.col("kind")
        counts = np.zeros(m, np.int64)
        for a in range(0, n, SORT_CHUNK):
            counts += np.bincount(tensor_of_kind[kind[a:a + SORT_CHUNK]], minlength=m)
            _every(a, release)
        bounds = np.zeros(m + 1, np.int64)
        np.cumsum(counts, out=bounds[1:])
        del counts
        wide = n >= np.iinfo(np.int32).max
        order = np.empty(n, np.int64 if wide else np.int32)
        cursor = bounds[:-1].copy()  # where each tensor's next row goes
        step = np.arange(SORT_CHUNK, dtype=np.int64)
        for a in range(0, n, SORT_CHUNK):
            t = tensor_of_kind[kind[a:a + SORT_CHUNK]]
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
            _every(a, release)
        self._order, self._bounds = order, bounds
        self._ids = {(g, o, s): i for i, (g, o, s) in enumerate(tensors.tolist())}

    def rows(self, graph: int, op_name: int, slot: int) -> np.ndarray:
        """The rows of one tensor (string ids of its graph and op name), in file order."""
        k = self._ids.get((graph, op_name, slot))
        if k is None:
            return _NO_ROWS
        return self._order[int(self._bounds[k]):int(self._bounds[k + 1])]


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
