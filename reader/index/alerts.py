"""NaN/∞ alerts: which tensor rows to flag, found by a small list of detectors.

Detection is a step of its own, run after each batch of rows is indexed (never inside the
ingest loops): each detector looks at the rows the batch added and returns the alerts it
finds. Adding a kind of alert = one detector function here, added to `DETECTORS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from reader.index.columns import Table
from reader.index.schema import ALERT_SPEC, EAGER, GRAPH, ExecutionTable, OutputTable, TraceTable


@dataclass(frozen=True)
class Alerts:
    """All NaN/∞ alerts, sorted by wall time (stable), as parallel numpy arrays."""

    kind: np.ndarray  # GRAPH (0) or EAGER (1)
    index: np.ndarray  # trace index or execution index
    slot: np.ndarray
    wall_time: np.ndarray

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
    """Alerts a detector found: parallel arrays of tensor index, slot and wall time."""

    kind: int
    index: np.ndarray
    slot: np.ndarray
    wall_time: np.ndarray


Detector = Callable[[NewRows], Iterable[Found]]


def nonfinite_traces(new: NewRows) -> Iterable[Found]:
    """Graph traces whose health says NaN/∞."""
    lo, hi = new.trace_rows.start, new.trace_rows.stop
    bad = np.flatnonzero(new.traces.bad[lo:hi] == 1) + lo
    if len(bad):
        yield Found(GRAPH, bad, new.traces.slot[bad], new.traces.wall_time[bad])


def nonfinite_outputs(new: NewRows) -> Iterable[Found]:
    """Eager outputs whose health says NaN/∞ (the alert names the execution and the slot)."""
    lo, hi = new.output_rows.start, new.output_rows.stop
    bad = np.flatnonzero(new.outputs.bad[lo:hi] == 1) + lo
    if len(bad):
        ex = new.outputs.execution[bad]
        yield Found(EAGER, ex, new.outputs.slot[bad], new.executions.wall_time[ex])


DETECTORS: tuple[Detector, ...] = (nonfinite_traces, nonfinite_outputs)


class AlertLog:
    """The alerts found so far, in the order found, and their wall-time order on demand."""

    def __init__(self, detectors: tuple[Detector, ...] = DETECTORS) -> None:
        self.detectors = detectors
        self._table = Table(ALERT_SPEC)
        self._sorted: Alerts | None = None

    def __len__(self) -> int:
        return len(self._table)

    def detect(self, new: NewRows) -> None:
        """Run every detector over the rows a batch added."""
        for detector in self.detectors:
            for found in detector(new):
                self._table.extend({"kind": np.full(len(found.index), found.kind),
                                    "index": found.index, "slot": found.slot,
                                    "wall_time": found.wall_time})

    def spec(self) -> dict[str, np.dtype]:
        return {c: self._table.column_dtype(c) for c in self._table.columns}

    def sorted_columns(self) -> dict[str, np.ndarray]:
        """The alert columns in wall-time order (what the index cache saves)."""
        s = self.sorted()
        return {"kind": s.kind, "index": s.index, "slot": s.slot, "wall_time": s.wall_time}

    def adopt_sorted(self, columns: dict[str, np.ndarray], rows: int) -> None:
        """Start from alerts already in wall-time order (an index cache's)."""
        self._table.adopt(columns, rows)
        t = self._table
        self._sorted = Alerts(t.col("kind"), t.col("index"), t.col("slot"), t.col("wall_time"))

    def sorted(self) -> Alerts:
        """Every alert, earliest wall time first (ties keep file order, graph before eager)."""
        cached = self._sorted
        if cached is not None and len(cached) == len(self._table):
            return cached
        t = self._table
        kind, index, wall = t.col("kind"), t.col("index"), t.col("wall_time")
        order = np.lexsort((index, kind, wall))
        result = Alerts(kind[order], index[order], t.col("slot")[order], wall[order])
        self._sorted = result
        return result
