"""The shape of the index: its typed column tables and the two kinds of tensor rows.

Both the index (`reader.index.logdir`) and the hot loops that fill it (`reader.index.ingest`)
need these, so they live here, below both. Outside `reader/`, columns are read through the
typed properties below (`logdir.traces.op_name`), never by a string, so mypy checks them.
Every property is a read-only view of the rows so far: an array for what a row stores, a
`LazyColumn` (computed for the rows indexed) for what comes from its kind or its record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from reader.index.columns import Table
from reader.index.health import HEALTH_COLUMNS
from reader.index.kinds import KindTable, LazyColumn

# A tensor row is a graph trace (tf.function ops, one record per op output) or an eager
# execution's output (one execution record, several outputs).
GRAPH, EAGER = 0, 1

# What each row keeps in memory (about 21 bytes a trace): what repeats from row to row is
# interned as a kind (see `reader.index.kinds`); the health counts are read back from the
# record by offset when asked for (`reader.index.detail`), except for FULL_TENSOR rows, whose
# counts come from decoding the whole tensor and are kept (`DETAIL_SPEC`).
TRACE_SPEC = {"wall_time": "f8", "offset": "i8", "kind": "i4", "bad": "i1"}
TRACE_KIND_SPEC = {"graph_id": "i4", "op_name": "i4", "op_type": "i4", "slot": "i4",
                   "mode": "i4", "device": "i4", "fileset": "i4"}
EXEC_SPEC = {"wall_time": "f8", "offset": "i8", "first_output": "i8", "kind": "i4"}
EXEC_KIND_SPEC = {"op_type": "i4", "graph_id": "i4", "num_outputs": "i4", "mode": "i4",
                  "n_outputs": "i4", "fileset": "i4"}
OUTPUT_SPEC = {"execution": "i8", "slot": "i4", "tensor_id": "i8", "bad": "i1"}
# An index opened for comparison (`DebugLogdir(..., digests=True)`) also keeps each tensor
# row's summary digest (`reader.index.health.summary_digests`; 0 = none): 8 more bytes a row,
# which tell two equal rows of two runs apart from different ones without their records.
DIGEST_SPEC = {"digest": "u8"}
DETAIL_SPEC = {"row": "i8", **HEALTH_COLUMNS}
ALERT_SPEC = {"kind": "i1", "row": "i4"}  # a trace row (GRAPH) or an output row (EAGER)
NEAR = (8, 64)  # rows read with the one whose health is asked for: before, after
NEAR_KEPT = 4096  # rows' health remembered per table (a few screens of each pane)


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


HealthSource = Callable[["RowTable", np.ndarray], dict[str, np.ndarray]]


class RowTable(Table):
    """A table of rows that may share their repeating fields through kinds, and whose
    health columns not kept in memory are read back from the records (`detail`)."""

    def __init__(self, spec: dict[str, str], kind_spec: dict[str, str] | None = None) -> None:
        super().__init__(spec)
        self.kinds = KindTable(kind_spec) if kind_spec else None
        self.detail: HealthSource | None = None  # set by the index that owns the table
        self.details = Table(DETAIL_SPEC)  # rows whose health is kept (FULL_TENSOR counts)

    @property
    def logical_columns(self) -> tuple[str, ...]:
        """Every column a row has, stored or not."""
        out = [c for c in self.columns if c not in ("kind", "digest")]
        if self.kinds is not None:
            out += list(self.kinds.fields)
        if isinstance(self, HealthTable):
            out += [c for c in HEALTH_COLUMNS if c not in out]
        return tuple(out)

    def col(self, name: str) -> Any:
        """One column: a read-only array of what is stored, a `LazyColumn` of the rest
        (which computes the rows it is indexed with, or all of them for array work)."""
        if name in self._spec:
            return super().col(name)
        return self.lazy(name)

    def lazy(self, name: str) -> LazyColumn:
        """One column as a `LazyColumn`: indexing it computes only the rows asked for."""
        n = len(self)
        if name in self._spec:
            data = super().col(name)
            return LazyColumn(n, data.dtype, lambda rows: data[rows],
                              lambda a, b: np.array(data[a:b]))  # (a copy, as a gather is)
        if self.kinds is not None and name in self.kinds.fields:
            kinds = super().col("kind")
            values = self.kinds.col(name)
            return LazyColumn(n, values.dtype, lambda rows: values[kinds[rows]],
                              lambda a, b: values[kinds[a:b]])
        if name in HEALTH_COLUMNS:
            return LazyColumn(n, np.dtype(HEALTH_COLUMNS[name]),
                              lambda rows: self.health_columns(rows)[name])
        raise KeyError(name)

    def health_columns(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The health columns of `rows`: what is stored, the rest read back."""
        if self.detail is None:
            raise LookupError("this table's records cannot be read back")
        return self.detail(self, rows)

    @property
    def offset(self) -> np.ndarray:
        """Byte offset of each row's record in its file (traces, executions)."""
        return np.asarray(self.col("offset"))

    @property
    def fileset(self) -> LazyColumn:
        """Which file set (`DebugLogdir.filesets`) holds each row's record."""
        return self.lazy("fileset")

    def kind_of(self, name: str, rows: np.ndarray) -> np.ndarray:
        """A kind field of some rows (or a stored column)."""
        return self.lazy(name)[rows]


class HealthTable(RowTable):
    """A table whose rows are tensors: the health columns, typed."""

    _near: tuple[int, dict[int, HealthRow]] | None = None  # see `health`

    @property
    def tensor_id(self) -> LazyColumn:
        return self.lazy("tensor_id")

    @property
    def dtype(self) -> LazyColumn:
        return self.lazy("dtype")

    @property
    def rank(self) -> LazyColumn:
        return self.lazy("rank")

    @property
    def size(self) -> LazyColumn:
        return self.lazy("size")

    @property
    def neg_inf(self) -> LazyColumn:
        return self.lazy("neg_inf")

    @property
    def pos_inf(self) -> LazyColumn:
        return self.lazy("pos_inf")

    @property
    def nan(self) -> LazyColumn:
        return self.lazy("nan")

    @property
    def neg(self) -> LazyColumn:
        return self.lazy("neg")

    @property
    def zero(self) -> LazyColumn:
        return self.lazy("zero")

    @property
    def pos(self) -> LazyColumn:
        return self.lazy("pos")

    @property
    def bad(self) -> np.ndarray:
        """1: holds NaN/∞; 0: known clean; -1: the mode cannot tell (always in memory)."""
        return self.col("bad")

    @property
    def digest(self) -> np.ndarray | None:
        """Each row's summary digest (uint64, 0 = none), or None when the index keeps none
        (it was not opened for comparison)."""
        return self.col("digest") if "digest" in self._spec else None

    def health(self, row: int) -> HealthRow:
        """Row `row`'s health columns as one value. A pane asks row by row for the rows it
        draws, and a row's health not kept in memory is a record read back: so the rows
        around it are read with it, in one bulk read (`NEAR`: 72 rows cost about what 3
        read one by one do), and remembered until rows already there change (`version`)."""
        n = len(self)
        if not 0 <= row < n:
            cols = self.health_columns(np.array([row], dtype=np.int64))
            return HealthRow(*(int(cols[c][0]) for c in HEALTH_COLUMNS))
        near = self._near
        if near is None or near[0] != self.version or len(near[1]) > NEAR_KEPT:
            near = self._near = (self.version, {})
        hit = near[1].get(row)
        if hit is not None:
            return hit
        lo, hi = max(0, row - NEAR[0]), min(n, row + NEAR[1])
        cols = self.health_columns(np.arange(lo, hi, dtype=np.int64))
        values = [cols[c].tolist() for c in HEALTH_COLUMNS]
        got = {lo + j: HealthRow(*(int(v[j]) for v in values)) for j in range(hi - lo)}
        near[1].update(got)
        return got[row]


class TraceTable(HealthTable):
    """Graph traces: one row per traced op output, in file order."""

    def __init__(self, digests: bool = False) -> None:
        super().__init__({**TRACE_SPEC, **DIGEST_SPEC} if digests else TRACE_SPEC,
                         TRACE_KIND_SPEC)

    @property
    def wall_time(self) -> np.ndarray:
        return self.col("wall_time")

    @property
    def kind_ids(self) -> np.ndarray:
        """The trace kind (row of `kinds`) of each row: what its repeating fields are."""
        return np.asarray(self.col("kind"))

    def kinds_of_op(self, graph_id: int, op_name: int, slot: int | None = None) -> np.ndarray:
        """The trace kinds of one op's traces (string ids; one output `slot` or all): a
        tensor's traces are those of a few kinds (one per device and mode), found among
        thousands of kinds without looking at millions of rows."""
        if self.kinds is None:
            return np.zeros(0, np.int32)
        k = self.kinds
        match = (k.col("op_name") == op_name) & (k.col("graph_id") == graph_id)
        if slot is not None:
            match &= k.col("slot") == slot
        return np.flatnonzero(match).astype(np.int32)

    def kind_op_types(self) -> np.ndarray | None:
        """The op type (string id) of each trace kind, None if this index keeps no kinds."""
        return None if self.kinds is None else np.asarray(self.kinds.col("op_type"))

    @property
    def graph_id(self) -> LazyColumn:
        """String ids (see `DebugLogdir.strings`) of the graph (tf.function) of each trace."""
        return self.lazy("graph_id")

    @property
    def op_name(self) -> LazyColumn:
        """String ids of the op names."""
        return self.lazy("op_name")

    @property
    def op_type(self) -> LazyColumn:
        """String ids of the op types (-1 while the op's creation record is not read yet)."""
        return self.lazy("op_type")

    @property
    def slot(self) -> LazyColumn:
        return self.lazy("slot")

    @property
    def mode(self) -> LazyColumn:
        return self.lazy("mode")

    @property
    def device(self) -> LazyColumn:
        return self.lazy("device")


class ExecutionTable(RowTable):
    """Eager executions (ops and tf.function calls): one row per `.execution` record.

    An execution's outputs are `n_outputs` consecutive rows of the output table starting at
    `first_output`, slots 0, 1, …: see `DebugLogdir.output_row`.
    """

    def __init__(self) -> None:
        super().__init__(EXEC_SPEC, EXEC_KIND_SPEC)

    @property
    def wall_time(self) -> np.ndarray:
        return self.col("wall_time")

    @property
    def op_type(self) -> LazyColumn:
        """String ids of the op types (a tf.function call's is its function name)."""
        return self.lazy("op_type")

    @property
    def graph_id(self) -> LazyColumn:
        """String id of the called tf.function's graph, -1 for a plain eager op."""
        return self.lazy("graph_id")

    @property
    def first_output(self) -> np.ndarray:
        """Row of each execution's output slot 0 in the output table."""
        return np.asarray(self.col("first_output"))

    @property
    def num_outputs(self) -> LazyColumn:
        """What the record says the op has (may exceed the output rows kept)."""
        return self.lazy("num_outputs")

    @property
    def n_outputs(self) -> LazyColumn:
        """How many output rows the execution has."""
        return self.lazy("n_outputs")

    @property
    def mode(self) -> LazyColumn:
        return self.lazy("mode")


class OutputTable(HealthTable):
    """Eager outputs: one row per output of each execution."""

    def __init__(self, digests: bool = False) -> None:
        super().__init__({**OUTPUT_SPEC, **DIGEST_SPEC} if digests else OUTPUT_SPEC)

    @property
    def execution(self) -> np.ndarray:
        return self.col("execution")

    @property
    def slot(self) -> np.ndarray:
        return self.col("slot")


TENSOR_TABLES = ("traces", "executions", "outputs")


def tensor_parts(index: Any) -> dict[str, Any]:
    """Every array-holding part of an index's three tensor tables, by name: the tables, their
    kinds and the health they keep. The index cache saves these and the shard merge joins
    them, so both walk the same list."""
    out: dict[str, Any] = {}
    for name in TENSOR_TABLES:
        table = getattr(index, name)
        out[name] = table
        if table.kinds is not None:
            out[f"{name}.kinds"] = table.kinds.table
        out[f"{name}.details"] = table.details
    return out
