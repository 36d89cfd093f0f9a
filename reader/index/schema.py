"""The shape of the index: its typed column tables and the two kinds of tensor rows.

Both the index (`reader.index.logdir`) and the hot loops that fill it (`reader.index.ingest`)
need these, so they live here, below both. Outside `reader/`, columns are read through the
typed properties below (`logdir.traces.op_name`), never by a string, so mypy checks them.
Every property is a read-only view of the rows so far (see `Table.col`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.index.columns import Table
from reader.index.health import HEALTH_COLUMNS

# A tensor row is a graph trace (tf.function ops, one record per op output) or an eager
# execution's output (one execution record, several outputs).
GRAPH, EAGER = 0, 1

EXEC_SPEC = {"wall_time": "f8", "op_type": "i4", "graph_id": "i4", "num_outputs": "i4",
             "mode": "i4", "fileset": "i2", "offset": "i8", "first_output": "i8",
             "n_outputs": "i4"}
OUTPUT_SPEC = {"execution": "i8", "slot": "i4", **HEALTH_COLUMNS}
TRACE_SPEC = {"wall_time": "f8", "graph_id": "i4", "op_name": "i4", "op_type": "i4",
              "slot": "i4", "mode": "i4", "device": "i4", "fileset": "i2", "offset": "i8",
              **HEALTH_COLUMNS}
ALERT_SPEC = {"kind": "i1", "index": "i8", "slot": "i4", "wall_time": "f8"}


@dataclass(frozen=True)
class HealthRow:
    """One tensor row's health columns; -1 means "not recorded in this mode".

    `bad` is 1 when the tensor holds NaN/∞, 0 when known clean, -1 when the mode cannot tell.
    """

    tensor_id: int
    dtype: int
    rank: int
    size: int
    neg_inf: int
    pos_inf: int
    nan: int
    neg: int
    zero: int
    pos: int
    bad: int

    def counts(self, *names: str) -> dict[str, int]:
        """The named fields as a dict (for JSON and for bars keyed by name)."""
        return {n: int(getattr(self, n)) for n in names}


@dataclass(frozen=True)
class TraceRow:
    """One graph trace as the index holds it, with its strings resolved."""

    index: int
    wall_time: float
    graph_id: str
    op_name: str
    op_type: str  # "?" while the op's creation record is not read yet
    slot: int
    mode: int
    health: HealthRow

    @property
    def tensor_name(self) -> str:
        return f"{self.op_name}:{self.slot}"


@dataclass(frozen=True)
class ExecutionRow:
    """One eager execution as the index holds it, with its strings resolved."""

    index: int
    wall_time: float
    op_type: str
    graph_id: str | None  # the called tf.function's graph, None for a plain eager op
    mode: int
    num_outputs: int  # what the record says
    n_outputs: int  # output rows kept (see `DebugLogdir.output_row`)


class HealthTable(Table):
    """A table whose rows are tensors: the health columns, typed."""

    @property
    def tensor_id(self) -> np.ndarray:
        return self.col("tensor_id")

    @property
    def dtype(self) -> np.ndarray:
        return self.col("dtype")

    @property
    def rank(self) -> np.ndarray:
        return self.col("rank")

    @property
    def size(self) -> np.ndarray:
        return self.col("size")

    @property
    def neg_inf(self) -> np.ndarray:
        return self.col("neg_inf")

    @property
    def pos_inf(self) -> np.ndarray:
        return self.col("pos_inf")

    @property
    def nan(self) -> np.ndarray:
        return self.col("nan")

    @property
    def neg(self) -> np.ndarray:
        return self.col("neg")

    @property
    def zero(self) -> np.ndarray:
        return self.col("zero")

    @property
    def pos(self) -> np.ndarray:
        return self.col("pos")

    @property
    def bad(self) -> np.ndarray:
        return self.col("bad")

    def health(self, row: int) -> HealthRow:
        """Row `row`'s health columns as one value."""
        return HealthRow(*(int(self._data[c][row]) for c in HEALTH_COLUMNS))


class TraceTable(HealthTable):
    """Graph traces: one row per traced op output, in file order."""

    def __init__(self) -> None:
        super().__init__(TRACE_SPEC)

    @property
    def wall_time(self) -> np.ndarray:
        return self.col("wall_time")

    @property
    def graph_id(self) -> np.ndarray:
        """String ids (see `DebugLogdir.strings`) of the graph (tf.function) of each trace."""
        return self.col("graph_id")

    @property
    def op_name(self) -> np.ndarray:
        """String ids of the op names."""
        return self.col("op_name")

    @property
    def op_type(self) -> np.ndarray:
        """String ids of the op types (-1 while the op's creation record is not read yet)."""
        return self.col("op_type")

    @property
    def slot(self) -> np.ndarray:
        return self.col("slot")

    @property
    def mode(self) -> np.ndarray:
        return self.col("mode")

    @property
    def device(self) -> np.ndarray:
        return self.col("device")


class ExecutionTable(Table):
    """Eager executions (ops and tf.function calls): one row per `.execution` record.

    An execution's outputs are `n_outputs` consecutive rows of the output table starting at
    `first_output`, slots 0, 1, …: see `DebugLogdir.output_row`.
    """

    def __init__(self) -> None:
        super().__init__(EXEC_SPEC)

    @property
    def wall_time(self) -> np.ndarray:
        return self.col("wall_time")

    @property
    def op_type(self) -> np.ndarray:
        """String ids of the op types (a tf.function call's is its function name)."""
        return self.col("op_type")

    @property
    def graph_id(self) -> np.ndarray:
        """String id of the called tf.function's graph, -1 for a plain eager op."""
        return self.col("graph_id")

    @property
    def num_outputs(self) -> np.ndarray:
        """What the record says the op has (may exceed the output rows kept)."""
        return self.col("num_outputs")

    @property
    def n_outputs(self) -> np.ndarray:
        """How many output rows the execution has."""
        return self.col("n_outputs")

    @property
    def mode(self) -> np.ndarray:
        return self.col("mode")


class OutputTable(HealthTable):
    """Eager outputs: one row per output of each execution."""

    def __init__(self) -> None:
        super().__init__(OUTPUT_SPEC)

    @property
    def execution(self) -> np.ndarray:
        return self.col("execution")

    @property
    def slot(self) -> np.ndarray:
        return self.col("slot")
