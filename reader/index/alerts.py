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
    """All NaN/∞ alerts, sorted by wall time (stable), as parallel columns."""

    kind: Any  # GRAPH (0) or EAGER (1)
    index: Any  # trace index or execution index
    slot: Any
    wall_time: Any

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


ROW_DTYPE = np.dtype(ALERT_SPEC["row"])
ROW_MAX = int(np.iinfo(ROW_DTYPE).max)


class AlertLog:
    """The alerts found so far, in wall-time order (sorted when asked, after new ones)."""

    def __init__(self, detectors: tuple[Detector, ...] = DETECTORS) -> None:
        self.detectors = detectors
        self._table = Table(ALERT_SPEC)  # sorted (kind, row)
        self._pending: list[Found] = []
        self._n_pending = 0
        self._tables: tuple[TraceTable, ExecutionTable, OutputTable] | None = None
        self._sorted: Alerts | None = None

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
                found = Found(found.kind, found.rows.astype(ROW_DTYPE, copy=False))
                self._pending.append(found)
                self._n_pending += len(found.rows)

    def spec(self) -> dict[str, np.dtype]:
        return {c: self._table.column_dtype(c) for c in self._table.columns}

    def sorted_columns(self) -> dict[str, np.ndarray]:
        """The alert columns in wall-time order (what the index cache saves)."""
        self.sorted()
        return {c: self._table.col(c) for c in self._table.columns}

    def adopt_sorted(self, columns: dict[str, np.ndarray], rows: int) -> None:
        """Start from alerts already in wall-time order (an index cache's)."""
        self._table.adopt(columns, rows)
        self._pending, self._n_pending, self._sorted = [], 0, None

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

    def _rows(self, kind: int) -> np.ndarray:
        """Every row of one kind flagged so far, ascending (int32, like the table's)."""
        parts = [self._table.col("row")[self._table.col("kind") == kind]]
        parts += [f.rows for f in self._pending if f.kind == kind]
        return np.concatenate(parts).astype(ROW_DTYPE, copy=False)

    def _merge(self) -> None:
        assert self._tables is not None
        traces, executions, outputs = self._tables
        g, e = self._rows(GRAPH), self._rows(EAGER)
        self._pending, self._n_pending = [], 0
        self._table = Table(ALERT_SPEC)  # drop the old columns before building the new
        tw, ew = traces.wall_time, executions.wall_time
        if _nondecreasing(tw) and _nondecreasing(ew):
            # Both files in time order (the usual case): merge in O(n), no n-sized sort keys.
            # Eager alert j lands after the graph alerts whose time is <= its own. The
            # temporaries are kept int32 and freed early: this runs at the end of a read,
            # where the process's peak memory is.
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
        else:
            kind = np.concatenate([np.zeros(len(g), np.int8), np.ones(len(e), np.int8)])
            rows = np.concatenate([g, e])
            wall = np.concatenate([tw[g], ew[outputs.execution[e]]])
            order = np.lexsort((rows, kind, wall))  # ties: graph first, then file order
            kind, rows = kind[order], rows[order]
        self._table.adopt({"kind": kind, "row": rows}, len(kind))

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
        return Alerts(kind, LazyColumn(n, np.dtype(np.int64), index),
                      LazyColumn(n, np.dtype(np.int32), slot),
                      LazyColumn(n, np.dtype(np.float64), wall))
