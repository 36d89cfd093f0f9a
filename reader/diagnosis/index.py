"""Lookup structures the diagnosis needs, built lazily once per logdir and cached.

Why a separate index: a diagnosis asks "the latest trace of tensor (graph, op, slot) before
row r" and "which eager execution produced tensor id t" dozens of times per query, and a run
can hold millions of traces. Scanning the columns per question would cost O(N) each time;
instead each tensor's trace rows are found once (`reader.diagnosis.tensor_rows`: a dict get
per question after the first) and the eager outputs sorted by tensor id (two `searchsorted`
calls). The index is rebuilt when the logdir grew. Which graph each eager execution called
(the tf.function calls) is a question of its own, rebuilt on other changes:
`reader.diagnosis.exec_graphs`, owned here as `calls`.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import TYPE_CHECKING

import numpy as np

from reader.diagnosis import concurrent_calls
from reader.diagnosis.exec_graphs import ExecGraphs
from reader.diagnosis.health import Health, Ref, health_from_value, opt
from reader.diagnosis.sorting import argsort32, narrow, search_key
from reader.diagnosis.tensor_rows import TensorRows, nondecreasing
from reader.errors import ReaderError
from reader.index.graphs import Graph, Op
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER, GRAPH
from reader.io.tensors import TensorValue
from reader.modes import FULL_TENSOR

if TYPE_CHECKING:
    from reader.diagnosis.links import Link

_EMPTY = np.empty(0, np.int32)
MEMO_MAX = 200_000  # tensors whose inputs are remembered (a few hundred bytes each)
__all__ = ["DiagIndex", "Health", "Ref", "diag_index"]  # Health, Ref: see .health


class DiagIndex:
    """Per-logdir lookup tables for the diagnosis. Get one with `diag_index(logdir)`."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.L = logdir
        self._n_traces = -1
        self._n_outputs = -1
        self._tensor_rows = TensorRows()
        self._walls_sorted = False  # trace wall times never decrease in file order
        self._tid_order: np.ndarray = _EMPTY
        self._tid_sorted: np.ndarray = _EMPTY
        self._by_name: dict[str, list[str]] = {}
        self.calls = ExecGraphs(logdir, lambda: self._by_name)  # which graph each call ran
        self._n_graphs = (-1, -1)
        # `Walker.inputs` by tensor, for the logdir as long as it has not grown
        self.input_memo: dict[Ref, tuple[tuple[Link, ...], dict[int, int]]] = {}
        self._memo_key: tuple[int, ...] = ()
        self._placeholders: dict[tuple[str, int], list[Op]] = {}
        self._outputs: dict[tuple[str, int], list[Op]] = {}
        # The logdir's own lock: while the diagnosis walks the tables, `update()` cannot grow
        # one of them under it (a trace row whose kind is not yet in the kinds read a moment
        # before was an IndexError with thousands of file sets being indexed).
        self.lock = logdir.lock

    # ------------------------------------------------------------------ freshness
    def refresh(self) -> None:
        """Note what the logdir outgrew since the last query (live logdirs): each table is
        (re)built when a query first needs it (`_traces`, `_outputs`, `_executions`), so a
        diagnosis that never asks for one (an eager walk: no trace grouped by tensor, 40 MB
        and a quarter of a second for 10M traces) never builds it."""
        L = self.L
        graphs_key = (len(L.graphs.graphs), L.graphs.num_ops)
        memo_key = (len(L.traces), len(L.executions), *graphs_key)
        if memo_key != self._memo_key or len(self.input_memo) > MEMO_MAX:
            self._memo_key = memo_key
            self.input_memo = {}
        if graphs_key != self._n_graphs:  # names arrive with ops in a live logdir
            self._n_graphs = graphs_key
            self._by_name = {}
            for gid, g in list(L.graphs.graphs.items()):
                self._by_name.setdefault(g.name, []).append(gid)
            self.calls.invalidate()  # calls may now resolve to graphs recorded since

    def warm(self) -> None:
        """Build every table now (a worker thread, so that the screen's thread never does)."""
        with self.lock:
            self._traces()
            self._outputs_by_tid()
            self.calls.build()

    def _traces(self) -> None:
        L = self.L
        if len(L.traces) != self._n_traces:
            self._n_traces = len(L.traces)
            self._tensor_rows.build(L.traces, L.release_pages)
            self._walls_sorted = (L.traces.ordered_rows >= len(L.traces)  # (as merged)
                                  or nondecreasing(L.traces.col("wall_time")))
            L.release_pages()  # (passes over whole columns: their pages let go)

    def _outputs_by_tid(self) -> None:
        L = self.L
        if len(L.outputs) != self._n_outputs:
            self._n_outputs = len(L.outputs)
            tids = narrow(L.outputs.col("tensor_id"))  # (a radix sort when 16-bit)
            self._tid_order = argsort32(tids)
            self._tid_sorted = tids[self._tid_order]
            L.release_pages()

    # ------------------------------------------------------------------ traces
    def trace_rows(self, graph_id: str, op_name: str, slot: int) -> np.ndarray:
        """Rows of every trace of one tensor, in file order."""
        self._traces()
        S = self.L.strings
        g, o = S.lookup(graph_id), S.lookup(op_name)
        if g < 0 or o < 0:
            return np.empty(0, np.int64)
        return self._tensor_rows.rows(g, o, int(slot))

    def latest_trace(self, graph_id: str, op_name: str, slot: int, before_row: int | None = None,
                     at_or_before_wall: float | None = None) -> int | None:
        """The latest trace of a tensor before a row (file order) and/or at or before a time."""
        rows = self.trace_rows(graph_id, op_name, slot)
        if before_row is not None:
            rows = rows[: search_key(rows, before_row)]
        if at_or_before_wall is not None and len(rows):
            if self._walls_sorted and at_or_before_wall == at_or_before_wall:  # not NaN
                # the rows with a wall time ≤ t are a prefix of the table
                rows = rows[: search_key(rows, self._row_after(at_or_before_wall))]
            else:
                walls = self.L.traces.col("wall_time")[rows]
                rows = rows[walls <= at_or_before_wall]
        return int(rows[-1]) if len(rows) else None

    def _row_after(self, wall: float) -> int:
        """The first trace row with a wall time > `wall` (wall times in file order only)."""
        return int(np.searchsorted(self.L.traces.col("wall_time"), wall, "right"))

    def _in_window(self, rows: np.ndarray, window: tuple[float, float]) -> np.ndarray:
        """The rows (ascending) whose wall time is in (window[0], window[1]]."""
        if self._walls_sorted and window[0] == window[0] and window[1] == window[1]:
            # a range of rows (NaN bounds take the general path): two binary searches
            lo, hi = self._row_after(window[0]), self._row_after(window[1])
            return rows[search_key(rows, lo):search_key(rows, hi)]
        walls = self.L.traces.col("wall_time")[rows]
        return rows[(walls > window[0]) & (walls <= window[1])]

    def call_window(self, row: int) -> tuple[float, float]:
        """(after, up to) wall times of the eager execution trace `row` ran under; (0, 0) if
        none. A tf.function's traces run under its call; a dataset function's under the
        eager op that pulled the element (TensorFlow writes the record when it returns)."""
        walls = self.L.executions.col("wall_time")
        e = int(np.searchsorted(walls, float(self.L.traces.col("wall_time")[row]), "left"))
        if e >= len(walls):
            return 0.0, 0.0
        return (float(walls[e - 1]) if e > 0 else -np.inf), float(walls[e])

    def paired_trace(self, graph_id: str, consumer: tuple[str, int], producer: tuple[str, int],
                     row: int, window: tuple[float, float] | None,
                     whole_run: bool) -> int | None:
        """The producer trace of the same invocation as consumer trace `row` (same graph):
        the k-th of each, when both were traced equally often (see `Walker._in_same_call`)."""
        crows = self.trace_rows(graph_id, *consumer)
        prows = self.trace_rows(graph_id, *producer)
        if not whole_run:
            if window is None:
                return None
            crows = self._in_window(crows, window)
            prows = self._in_window(prows, window)
        if not len(crows) or len(crows) != len(prows):
            return None
        k = search_key(crows, row)
        if k >= len(crows) or int(crows[k]) != row:
            return None
        # calls that overlap (a parallel dataset map) interleave their records: the k-th
        # producer record need not be this call's (`reader.diagnosis.concurrent_calls`)
        return concurrent_calls.pick(
            concurrent_calls.overlap_candidates(crows, prows, k), prows,
            self.health(Ref(GRAPH, row, consumer[1])),
            lambda r: self.health(Ref(GRAPH, r, producer[1])))

    def trace_in_window(self, graph_id: str, op_name: str, slot: int, row: int,
                        window: tuple[float, float]) -> int | None:
        """The latest trace of a tensor before `row` within a wall-time window, else the
        first after it within the window."""
        rows = self.trace_rows(graph_id, op_name, slot)
        if not len(rows):
            return None
        inside = self._in_window(rows, window)
        before = inside[inside < row]
        if len(before):
            return int(before[-1])
        after = inside[inside > row]
        return int(after[0]) if len(after) else None

    # ------------------------------------------------------------------ eager
    def eager_producer(self, tensor_id: int, before_exec: int) -> Ref | None:
        """The eager output with this tensor id produced latest before execution `before_exec`."""
        self._outputs_by_tid()
        tids = self._tid_sorted
        info = np.iinfo(tids.dtype) if len(tids) else None
        if info is None or not info.min <= tensor_id <= info.max:
            return None
        key = tids.dtype.type(tensor_id)  # (a Python int key: the whole array converted)
        lo = int(np.searchsorted(tids, key, "left"))
        hi = int(np.searchsorted(tids, key, "right"))
        if lo == hi:
            return None
        rows = self._tid_order[lo:hi]  # ascending: the sort by tensor id is stable
        o = self.L.outputs
        ex = o.col("execution")[rows]
        keep = rows[ex < before_exec]
        if not len(keep):
            return None
        r = int(keep[-1])
        return Ref(EAGER, int(o.col("execution")[r]), int(o.col("slot")[r]))

    def outputs_by_tid(self) -> tuple[np.ndarray, np.ndarray]:
        """The eager outputs' tensor ids ascending, and the output row of each."""
        self._outputs_by_tid()
        return self._tid_sorted, self._tid_order

    def exec_graph(self, i: int) -> str | None:
        """The graph id execution `i` ran (a tf.function call), or None for a primitive op."""
        return self.calls.exec_graph(i)

    def calls_between(self, lo: int, hi: int) -> np.ndarray:
        """Per execution in [lo, hi): True for tf.function calls."""
        return self.calls.calls_between(lo, hi)

    def executions_of_graph(self, graph_id: str) -> np.ndarray:
        """Indices of the eager executions that called this graph (tf.function calls)."""
        return self.calls.executions_of_graph(graph_id)

    def calling_execution(self, graph_id: str, wall: float) -> int | None:
        """The call of a top-level graph that a trace at `wall` belongs to
        (`ExecGraphs.calling_execution`)."""
        return self.calls.calling_execution(graph_id, wall)

    # ------------------------------------------------------------------ graph structure
    def placeholders(self, g: Graph) -> list[Op]:
        """The graph's Placeholders in creation order: the function's inputs, then captures."""
        key = (g.graph_id, len(g.ops))
        hit = self._placeholders.get(key)
        if hit is None:
            hit = sorted((op for op in g.ops.values() if op.op_type == "Placeholder"),
                         key=first_tid)
            self._placeholders[key] = hit
        return hit

    def outputs(self, g: Graph) -> list[Op]:
        """The function's outputs: Identity ops nothing inside consumes, in creation order;
        only those named as tf.function names its returns (`Identity_1`) when there are such
        (a tf.custom_gradient's unused ones, as in Keras' `sgd/…`, are not outputs)."""
        key = (g.graph_id, len(g.ops))
        hit = self._outputs.get(key)
        if hit is None:
            hit = sorted((op for op in g.ops.values()
                          if op.op_type == "Identity" and not op.consumers), key=first_tid)
            hit = [op for op in hit if _RETURN.fullmatch(op.op_name)] or hit
            self._outputs[key] = hit
        return hit

    # ------------------------------------------------------------------ health
    def health(self, ref: Ref, need_values: bool = False) -> Health:
        """The record's health. FULL_TENSOR records are read to count signs (and values)."""
        L = self.L
        mode = L.tensor_mode(ref.kind, ref.index)
        h = L.tensor_health(ref.kind, ref.index, ref.slot)
        if h is None:  # an output slot the execution does not have
            return Health(mode, None, None, None, None, None, None, None, None, -1)
        if mode == FULL_TENSOR and (need_values or h.bad != 0):
            try:
                tv = (L.read_trace(ref.index).value if ref.kind == GRAPH
                      else _slot(L.read_execution(ref.index).debug_tensors, ref.slot))
                from_value = health_from_value(mode, tv)
                if from_value is not None:
                    return from_value
            except ReaderError as exc:
                L.warn(str(exc))
        return Health(mode, opt(h.dtype), opt(h.size), opt(h.nan), opt(h.neg_inf),
                      opt(h.pos_inf), opt(h.neg), opt(h.zero), opt(h.pos), h.bad)

    def is_bad(self, ref: Ref) -> int:
        """1 NaN/∞, 0 clean, -1 unknown — from the columns, without reading the record."""
        L = self.L
        if ref.kind == GRAPH:
            return int(L.traces.bad[ref.index])
        row = L.output_row(ref.index, ref.slot)
        if row is None or row >= len(L.outputs):
            return -1
        return int(L.outputs.bad[row])

    def wall(self, ref: Ref) -> float:
        t = self.L.traces if ref.kind == GRAPH else self.L.executions
        return float(t.col("wall_time")[ref.index])


def _slot(tensors: tuple[TensorValue | None, ...], slot: int) -> TensorValue | None:
    return tensors[slot] if 0 <= slot < len(tensors) else None


_RETURN = re.compile(r"Identity(_[0-9]+)?")  # a tf.function's return value, by name


def first_tid(op: Op) -> int:
    return op.output_tensor_ids[0] if op.output_tensor_ids else 1 << 62


_CACHE: weakref.WeakKeyDictionary[DebugLogdir, DiagIndex] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def diag_index(logdir: DebugLogdir) -> DiagIndex:
    """The logdir's cached index, refreshed to its current length."""
    with _CACHE_LOCK:
        idx = _CACHE.get(logdir)
        if idx is None:
            idx = _CACHE[logdir] = DiagIndex(logdir)
    with idx.lock:
        idx.refresh()
    return idx
