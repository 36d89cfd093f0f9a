"""NaN/∞ alerts: which tensor rows to flag, found by a small list of detectors.

Detection is a step of its own, run after each batch of rows is indexed (never inside the
ingest loops): each detector looks at the rows the batch added and returns the alerts it
finds. Adding a kind of alert = one detector function here, added to `DETECTORS`.

An alert is kept as 5 bytes — its kind and the tensor row it flags (a graph trace, or an
eager output row, as int32: a table of 2**31 rows would be tens of GB of index) — in
wall-time order; its execution index, slot and wall time are looked
up in the tables when asked for. A run in which every other tensor goes NaN has millions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from reader.errors import LogdirError
from reader.index.columns import Table
from reader.index.kinds import LazyColumn
from reader.index.schema import ALERT_SPEC, EAGER, GRAPH, ExecutionTable, OutputTable, TraceTable


@dataclass(frozen=True)
class Alerts:
    """All NaN/∞ alerts, sorted by wall time (stable), as parallel columns.

    `graph_kinds`: how many of them are graph alerts of each trace kind (indexed by the
    traces' kind id) — what a summary by op type needs, counted as alerts are found, so
    that it costs the few thousand kinds, not the millions of alerts."""

    kind: Any  # GRAPH (0) or EAGER (1)
    index: Any  # trace index or execution index
    slot: Any
    wall_time: Any
    graph_kinds: Any = None  # np.ndarray (int64) per trace kind, or None when not counted

    def __len__(self) -> int:
        return len(self.kind)


@dataclass(frozen=True)
class NewRows:
    """The tables, and which of their rows one batch added (what detectors look at)."""

    traces: TraceTable
    executions: ExecutionTable
    outputs: OutputTable
    trace_rows: range
    output_rows: range


@dataclass(frozen=True)
class Found:
    """Alerts a detector found: the rows they flag (trace rows, or eager output rows)."""

    kind: int
    rows: np.ndarray


Detector = Callable[[NewRows], Iterable[Found]]


def nonfinite_traces(new: NewRows) -> Iterable[Found]:
    """Graph traces whose health says NaN/∞."""
    lo, hi = new.trace_rows.start, new.trace_rows.stop
    bad = np.flatnonzero(new.traces.bad[lo:hi] == 1) + lo
    if len(bad):
        yield Found(GRAPH, bad)


def nonfinite_outputs(new: NewRows) -> Iterable[Found]:
    """Eager outputs whose health says NaN/∞ (the alert names the execution and the slot)."""
    lo, hi = new.output_rows.start, new.output_rows.stop
    bad = np.flatnonzero(new.outputs.bad[lo:hi] == 1) + lo
    if len(bad):
        yield Found(EAGER, bad)


DETECTORS: tuple[Detector, ...] = (nonfinite_traces, nonfinite_outputs)


def _nondecreasing(a: np.ndarray, block: int = 1 << 20) -> bool:
    """`a` sorted ascending (NaN fails), checked a block at a time (no n-sized temporary)."""
    for s in range(0, max(0, len(a) - 1), block):
        part = a[s : s + block + 1]
        if not bool(np.all(part[1:] >= part[:-1])):
            return False
    return True


class _SortedPrefix:
    """Whether a growing column (a table's wall times) is still nondecreasing, checking only
    the rows added since the last look: alerts are sorted again after every batch while a
    big file is read, and re-checking 10 million wall times each time made that quadratic.
    Rows already checked only change through `Table.version` (adopt, patch): then all again."""

    __slots__ = ("key", "n", "ok")

    def __init__(self) -> None:
        self.key: tuple[int, int] | None = None
        self.n = 0
        self.ok = True

    def check(self, table: Table, name: str) -> bool:
        a = table.col(name)
        key = (id(table), table.version)
        if key != self.key or len(a) < self.n:
            self.key, self.n, self.ok = key, 0, True
        if self.ok and name == "wall_time" and table.ordered_rows >= len(a):
            self.n = len(a)  # in order as they were put there (not read to know it)
            return True
        if self.ok and len(a) > self.n:
            self.ok = _nondecreasing(a[max(0, self.n - 1):])
            self.n = len(a)
        return self.ok


ROW_DTYPE = np.dtype(ALERT_SPEC["row"])
ROW_MAX = int(np.iinfo(ROW_DTYPE).max)
ROWS_SPEC = {"row": ALERT_SPEC["row"]}


class AlertLog:
    """The alerts found so far, in wall-time order (sorted when asked, after new ones).

    Besides the sorted (kind, row) table, the alerts found since it was last sorted are kept
    per kind in the order found (ascending: rows are appended), with a count of graph alerts
    per trace kind, so that sorting again after a batch costs that batch — appending, when
    the batch's alerts all come after the ones sorted — or one O(n) merge without sorting
    (each kind's rows taken back from the sorted table, where they keep the order found),
    never a sort of the millions of alerts already found. The TUI sorts after every batch
    while it indexes. Only the rows not sorted yet are kept twice: keeping every alert's
    row per kind as well was 36 MB for 5.55M alerts.
    """

    def __init__(self, detectors: tuple[Detector, ...] = DETECTORS) -> None:
        self.detectors = detectors
        # the first len(_table) alerts found, sorted; grown by a quarter, not doubled
        # (millions are appended a batch at a time: 45 MB held for 28 MB of 5.55M alerts)
        self._table = Table(ALERT_SPEC, growth=1.25)
        self._pending = {GRAPH: Table(ROWS_SPEC), EAGER: Table(ROWS_SPEC)}  # found since
        self._last = {GRAPH: -1, EAGER: -1}  # the last row found of each kind
        self._split = True  # `_last` and `_ascending` hold for _table (not after adopting)
        self._ascending = True  # each kind's rows found in ascending order
        self._graph_kinds: np.ndarray | None = np.zeros(0, np.int64)  # None: not counted
        self._tables: tuple[TraceTable, ExecutionTable, OutputTable] | None = None
        self._sorted: Alerts | None = None
        self._walls = (_SortedPrefix(), _SortedPrefix())  # traces', executions' wall times

    @property
    def _n_pending(self) -> int:
        return len(self._pending[GRAPH]) + len(self._pending[EAGER])

    def __len__(self) -> int:
        return len(self._table) + self._n_pending

    def attach(self, traces: TraceTable, executions: ExecutionTable,
               outputs: OutputTable) -> None:
        """The tables the alerts point into."""
        self._tables = (traces, executions, outputs)

    def detect(self, new: NewRows) -> None:
        """Run every detector over the rows a batch added."""
        self.attach(new.traces, new.executions, new.outputs)
        if max(len(new.traces), len(new.outputs)) > ROW_MAX:
            raise LogdirError(f"more than {ROW_MAX} tensor rows: too many to index")
        for detector in self.detectors:
            for found in detector(new):
                # int32 while pending too: millions of alerts wait here until sorted
                self._add(found.kind, found.rows.astype(ROW_DTYPE, copy=False))

    def _add(self, kind: int, rows: np.ndarray) -> None:
        if not len(rows):
            return
        self._split_sorted()
        if rows[0] < self._last[kind] or not _nondecreasing(rows):
            self._ascending = False
        self._last[kind] = max(self._last[kind], int(rows.max()))
        self._pending[kind].extend({"row": rows})
        if kind == GRAPH and self._graph_kinds is not None:
            self._graph_kinds = self._count_kinds(rows, self._graph_kinds)

    def _count_kinds(self, rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """`counts` plus the graph alerts at trace `rows`, per trace kind (a new array: an
        `Alerts` handed out keeps its own)."""
        assert self._tables is not None
        add = np.bincount(self._tables[0].col("kind")[rows])
        out = np.zeros(max(len(add), len(counts)), np.int64)
        out[: len(counts)] += counts
        out[: len(add)] += add
        return out

    def _sorted_rows(self, kind: int) -> np.ndarray:
        """The rows of one kind among the sorted alerts, in their order there (the order
        they were found in, while `_ascending`)."""
        return self._table.col("row")[self._table.col("kind") == kind]

    def _split_sorted(self) -> None:
        """After `adopt_sorted`: what `_add` needs to know of the sorted rows (once, when
        new ones come): each kind's last row, whether they ascend, the count per kind."""
        if self._split:
            return
        for k in self._last:
            rows = self._sorted_rows(k)
            self._ascending = self._ascending and _nondecreasing(rows)
            self._last[k] = int(rows.max()) if len(rows) else -1
            if k == GRAPH:
                self._graph_kinds = self._count_kinds(rows, np.zeros(0, np.int64))
        self._split = True

    def spec(self) -> dict[str, np.dtype]:
        return {c: self._table.column_dtype(c) for c in self._table.columns}

    def sorted_columns(self) -> dict[str, np.ndarray]:
        """The alert columns in wall-time order (what the index cache saves)."""
        self.sorted()
        return {c: self._table.col(c) for c in self._table.columns}

    def adopt_sorted(self, columns: dict[str, np.ndarray], rows: int) -> None:
        """Start from alerts already in wall-time order (an index cache's)."""
        self._table.adopt(columns, rows)
        self._pending = {GRAPH: Table(ROWS_SPEC), EAGER: Table(ROWS_SPEC)}
        self._last = {GRAPH: -1, EAGER: -1}
        self._split, self._ascending = rows == 0, True
        self._graph_kinds = np.zeros(0, np.int64) if rows == 0 else None
        self._sorted = None

    def reserve(self, alerts: int) -> None:
        """Room for this many sorted alerts, made once: the pages are the process's only
        as alerts are written to them, and no growth copies the millions found so far."""
        self._table.reserve(alerts)

    def settle(self, at_least: int = 1) -> bool:
        """Sort the alerts found since the last time, if there are `at_least` of them (an
        open from shards, after a window: the rows they point at were just read, and the
        work and its temporaries stay a few windows'). True when it did."""
        if self._n_pending < max(1, at_least):
            return False
        self._merge()
        self._sorted = None
        return True

    def sorted(self) -> Alerts:
        """Every alert, earliest wall time first (ties keep file order, graph before eager)."""
        if self._sorted is not None and not self._n_pending:
            return self._sorted
        if self._n_pending:
            self._merge()
        t = self._table
        kind, row = t.col("kind"), t.col("row")
        self._sorted = self._view(kind, row)
        return self._sorted

    def _merge(self) -> None:
        assert self._tables is not None
        traces, executions, outputs = self._tables
        g_new, e_new = self._pending[GRAPH].col("row"), self._pending[EAGER].col("row")
        self._pending = {GRAPH: Table(ROWS_SPEC), EAGER: Table(ROWS_SPEC)}
        tw, ew = traces.wall_time, executions.wall_time
        old = self._table
        if not (self._ascending and self._walls[0].check(traces, "wall_time")
                and self._walls[1].check(executions, "wall_time")):
            g = np.concatenate([self._sorted_rows(GRAPH), g_new])
            e = np.concatenate([self._sorted_rows(EAGER), e_new])
            del old, g_new, e_new
            kind = np.concatenate([np.zeros(len(g), np.int8), np.ones(len(e), np.int8)])
            rows = np.concatenate([g, e])
            wall = np.concatenate([tw[g], ew[outputs.execution[e]]])
            order = np.lexsort((rows, kind, wall))  # ties: graph first, then file order
            self._table = Table(ALERT_SPEC, growth=1.25)
            self._table.adopt({"kind": kind[order], "row": rows[order]}, len(order))
            return
        # Both files in time order (the usual case): merge in O(n), no n-sized sort keys.
        if not len(old) or self._after(old, g_new, e_new):  # (into the room reserved)
            old.extend(self._interleave(tw, ew, outputs, g_new, e_new))  # only the new
            return
        g = np.concatenate([self._sorted_rows(GRAPH), g_new]) if len(old) else g_new
        e = np.concatenate([self._sorted_rows(EAGER), e_new]) if len(old) else e_new
        del g_new, e_new
        self._table = Table(ALERT_SPEC, growth=1.25)  # the old columns dropped first
        del old
        merged = self._interleave(tw, ew, outputs, g, e)
        self._table.adopt(merged, len(merged["kind"]))

    @staticmethod
    def _interleave(tw: np.ndarray, ew: np.ndarray, outputs: OutputTable, g: np.ndarray,
                    e: np.ndarray) -> dict[str, np.ndarray]:
        """Graph alerts `g` and eager alerts `e` (each ascending, in time order) merged by
        wall time: eager alert j lands after the graph alerts whose time is <= its own. The
        temporaries are kept int32 and freed early: this runs at the end of a read, where
        the process's peak memory is."""
        e_wall = ew[outputs.execution[e]]
        after = np.searchsorted(tw, e_wall, "right").astype(ROW_DTYPE)
        del e_wall
        at = np.searchsorted(g, after, "left")
        del after
        at += np.arange(len(e), dtype=at.dtype)
        kind = np.zeros(len(g) + len(e), dtype=np.int8)
        kind[at] = EAGER
        rows = np.empty(len(kind), dtype=ROW_DTYPE)
        rows[at] = e
        del at
        rows[kind == GRAPH] = g
        return {"kind": kind, "row": rows}

    def _after(self, old: Table, g_new: np.ndarray, e_new: np.ndarray) -> bool:
        """Do the new alerts all sort after the `old` ones (so they are only appended)?
        Ties: a graph alert goes before an eager one of the same time."""
        assert self._tables is not None
        traces, executions, outputs = self._tables
        last_kind, last_row = int(old.col("kind")[-1]), int(old.col("row")[-1])
        last = float(traces.wall_time[last_row] if last_kind == GRAPH
                     else executions.wall_time[outputs.execution[last_row]])
        if len(g_new):
            first = float(traces.wall_time[g_new[0]])
            if not (first > last or (first == last and last_kind == GRAPH)):
                return False
        if len(e_new):
            first = float(executions.wall_time[outputs.execution[e_new[0]]])
            if not first >= last:
                return False
        return True

    def _view(self, kind: np.ndarray, row: np.ndarray) -> Alerts:
        if self._tables is None:
            empty = np.zeros(0, np.int64)
            return Alerts(kind, empty, empty.astype(np.int32), empty.astype(np.float64))
        traces, executions, outputs = self._tables
        eager = kind == EAGER

        def index(sel: np.ndarray) -> np.ndarray:
            r = row[sel]
            out = r.copy()
            e = eager[sel]
            out[e] = outputs.execution[r[e]]
            return out

        def slot(sel: np.ndarray) -> np.ndarray:
            r = row[sel]
            e = eager[sel]
            out = np.empty(len(r), np.int32)
            out[~e] = traces.slot[r[~e]]
            out[e] = outputs.slot[r[e]]
            return out

        def wall(sel: np.ndarray) -> np.ndarray:
            r = row[sel]
            e = eager[sel]
            out = np.empty(len(r), np.float64)
            out[~e] = traces.wall_time[r[~e]]
            out[e] = executions.wall_time[outputs.execution[r[e]]]
            return out

        n = len(kind)

        def span(fetch: Callable[[Any], np.ndarray]) -> Callable[[int, int], np.ndarray]:
            return lambda a, b: fetch(slice(a, b))  # (no index array of the positions)

        return Alerts(kind, LazyColumn(n, np.dtype(np.int64), index, span(index)),
                      LazyColumn(n, np.dtype(np.int32), slot, span(slot)),
                      LazyColumn(n, np.dtype(np.float64), wall, span(wall)),
                      self._graph_kinds)
