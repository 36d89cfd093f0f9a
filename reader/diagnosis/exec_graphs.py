"""Which graph each eager execution ran: the tf.function calls among the executions.

The diagnosis crosses from a graph's traces to the eager call that ran them (a function's
Placeholders are fed by the call's inputs) and back, so it asks "which graph did execution e
call", "which executions called graph g" and "which call ran a trace at time t" many times per
walk. Forward and backward calls of a function often carry no graph id in their record
(`reader.diagnosis.functions`), so the graph is resolved once per execution kind, by its op
type's function name, and kept as one small int per execution. Kept apart from
`reader.diagnosis.index` (which owns it and refreshes it) because it is its own question with
its own freshness: it is rebuilt when executions arrive or graphs are recorded, not traces.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.diagnosis.functions import called_graph_name
from reader.diagnosis.sorting import narrow, search_key
from reader.diagnosis.tensor_rows import CHUNK, nondecreasing
from reader.index.logdir import DebugLogdir

_EMPTY = np.empty(0, np.int32)


class ExecGraphs:
    """Per execution, the graph it called; built when first asked (see `build`)."""

    def __init__(self, logdir: DebugLogdir, by_name: Callable[[], dict[str, list[str]]]
                 ) -> None:
        self.L = logdir
        self._by_name = by_name  # graph name → graph ids (the owner's, kept fresh by it)
        self._n_exec = -1
        self._exec_by_graph: dict[int, np.ndarray] = {}
        self._exec_graph: np.ndarray = _EMPTY  # per execution: index into _gids, -1 none
        self._execs_checked = (-1, -1)  # (rows, version) of the executions' order check
        self._execs_in_order = False
        self._gids: list[str] = []
        self._gid_index: dict[str, int] = {}

    def invalidate(self) -> None:
        """Graphs were recorded since: calls may now resolve to them."""
        self._n_exec = -1

    def build(self) -> None:
        """(Re)build the table when the executions grew (or `invalidate` was called)."""
        L = self.L
        if len(L.executions) != self._n_exec:
            self._n_exec = len(L.executions)
            self._exec_by_graph = {}
            self._exec_graph = self._resolve_exec_graphs()
            L.release_pages()

    def _resolve_exec_graphs(self) -> np.ndarray:
        """The graph each execution ran, as an index into `self._gids` (-1: a primitive op).

        Its recorded graph id, else the graph found from its op type (see
        `reader.diagnosis.functions` for why forward/backward calls carry no graph id). One
        op type names one concrete function, so each is resolved once. Both are fields of
        the execution's kind, so the work is per kind (a few), then one gather per row.
        """
        L = self.L
        self._gids, self._gid_index = [], {}
        kind, kinds = L.executions.col("kind"), L.executions.kinds
        if not len(kind) or kinds is None or not len(kinds):
            return np.full(len(kind), -1, np.int32)
        used = np.zeros(len(kinds), bool)
        for a in range(0, len(kind), CHUNK):
            used |= np.bincount(kind[a:a + CHUNK], minlength=len(kinds)) > 0
        recorded, types = kinds.col("graph_id"), kinds.col("op_type")
        graph_of_kind = np.full(len(kinds), -1, np.int32)
        has = used & (recorded >= 0)
        for sid in np.unique(recorded[has]):
            graph_of_kind[has & (recorded == sid)] = self._local(L.strings[int(sid)])
        missing = used & (recorded < 0)
        for tid in np.unique(types[missing]):
            name = called_graph_name(L.strings[int(tid)])
            cands = self._by_name().get(name, []) if name else []
            if not cands:
                continue
            these = missing & (types == tid)
            if len(cands) == 1:
                gid = cands[0]
            else:  # the first call of that type tells which graph it is
                first = int(np.flatnonzero(np.isin(kind, np.flatnonzero(these)))[0])
                gid = self._traced_during(first, cands)
            graph_of_kind[these] = self._local(gid)
        return narrow(graph_of_kind)[kind]

    def _local(self, graph_id: str) -> int:
        k = self._gid_index.get(graph_id)
        if k is None:
            k = self._gid_index[graph_id] = len(self._gids)
            self._gids.append(graph_id)
        return k

    def _traced_during(self, e: int, cands: list[str]) -> str:
        """Of graphs sharing a name, the one whose traces ran during call `e` (else the last)."""
        L = self.L
        walls = L.executions.col("wall_time")
        hi = float(walls[e])
        lo = float(walls[e - 1]) if e > 0 else -np.inf
        tw = L.traces.col("wall_time")
        during = (tw > lo) & (tw <= hi)
        wanted = set(cands)
        for sid in np.unique(L.traces.col("graph_id")[during]):
            for gid in L.graphs.graph_chain(L.strings[int(sid)]):
                if gid in wanted:
                    return gid
        return cands[-1]

    def exec_graph(self, i: int) -> str | None:
        """The graph id execution `i` ran (a tf.function call), or None for a primitive op."""
        self.build()
        if not 0 <= i < len(self._exec_graph):
            return None
        k = int(self._exec_graph[i])
        return self._gids[k] if k >= 0 else None

    def calls_between(self, lo: int, hi: int) -> np.ndarray:
        """Per execution in [lo, hi): True for tf.function calls."""
        self.build()
        return self._exec_graph[lo:hi] >= 0

    def executions_of_graph(self, graph_id: str) -> np.ndarray:
        """Indices of the eager executions that called this graph (tf.function calls)."""
        self.build()
        gid = self._gid_index.get(graph_id, -1)
        if gid < 0:
            return np.empty(0, np.int64)
        hit = self._exec_by_graph.get(gid)
        if hit is None:
            hit = np.flatnonzero(self._exec_graph == gid)
            self._exec_by_graph[gid] = hit
        return hit

    def calling_execution(self, graph_id: str, wall: float) -> int | None:
        """The call of a top-level graph that a trace at `wall` belongs to.

        TensorFlow writes a tf.function's execution record after the call returns, so the
        call is the first one of that graph at or after the trace's wall time.
        """
        calls = self.executions_of_graph(graph_id)
        if not len(calls):
            return None
        every = self.L.executions.col("wall_time")
        first = int(np.searchsorted(every, wall, "left"))
        gid = self._gid_index.get(graph_id, -1)
        if first < len(every) and int(self._exec_graph[first]) != gid:
            return None  # the trace ran inside another function's call, not a call of its own
        if self.in_time_order():  # the calls before `first` are those earlier than `wall`
            j = search_key(calls, first)  # (a gather of every call's time: ~10 ms a call)
        else:
            j = int(np.searchsorted(every[calls], wall, "left"))
        return int(calls[j]) if j < len(calls) else int(calls[-1])

    def in_time_order(self) -> bool:
        """Are the executions' wall times nondecreasing, without NaN (checked once a length)?"""
        e = self.L.executions
        if self._execs_checked != (len(e), e.version):
            self._execs_checked = (len(e), e.version)
            self._execs_in_order = (e.ordered_rows >= len(e)
                                    or nondecreasing(e.col("wall_time")))
        return self._execs_in_order
