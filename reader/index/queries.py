"""The typed questions asked of the index about one tensor row: `logdir.trace(i)`,
`logdir.output_row(execution, slot)`, `logdir.tensor_health(kind, index, slot)`, ...

Outside `reader/` nobody reads a column by its name: the model and the panes ask these (or
use the typed table properties of `reader.index.schema` for vectorised work), so mypy checks
every access and each rule — above all which output row belongs to (execution, slot) — is
written once. `DebugLogdir` inherits them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reader.index.columns import StringTable
from reader.index.graphs import Graph, GraphStore, Op
from reader.index.schema import (
    GRAPH,
    ExecutionRow,
    ExecutionTable,
    HealthRow,
    OutputTable,
    TraceRow,
    TraceTable,
)


class TraceKinds(NamedTuple):
    """See `TensorQueries.trace_kinds`."""

    of_row: np.ndarray  # int32: the kind of each trace row
    graph_id: np.ndarray  # per kind: the graph id's string id
    op_name: np.ndarray  # per kind: the op name's string id
    slot: np.ndarray | None = None  # per kind: the output slot (None: not kept)


class ExecutionKinds(NamedTuple):
    """See `TensorQueries.execution_kinds`."""

    of_row: np.ndarray  # int32: the kind of each execution
    graph_id: np.ndarray  # per kind: the called graph's string id (-1: none)
    op_type: np.ndarray  # per kind: the op type's string id


class TensorQueries:
    """Typed row queries over the tables of an index (mixed into `DebugLogdir`)."""

    strings: StringTable
    graphs: GraphStore
    traces: TraceTable
    executions: ExecutionTable
    outputs: OutputTable

    def trace(self, i: int) -> TraceRow:
        """Graph trace `i`, strings resolved."""
        t = self.traces
        return TraceRow(i, float(t.wall_time[i]), self.graph_of_trace(i),
                        self.strings[int(t.op_name[i])], self.op_type_of_trace(i),
                        int(t.slot[i]), int(t.mode[i]), t.health(i))

    def execution(self, i: int) -> ExecutionRow:
        """Eager execution `i`, strings resolved."""
        e = self.executions
        gid = int(e.graph_id[i])
        return ExecutionRow(i, float(e.wall_time[i]), self.strings[int(e.op_type[i])],
                            self.strings[gid] if gid >= 0 else None, int(e.mode[i]),
                            int(e.num_outputs[i]), int(e.n_outputs[i]))

    def output_row(self, execution: int, slot: int) -> int | None:
        """The row of the output table holding output `slot` of eager `execution`, or None.

        The one place that maps (execution, slot) to a row: an execution's outputs are
        `n_outputs` consecutive rows from `first_output`, slots 0, 1, … in order (ingest
        writes them so; a test checks it on TensorFlow's logdirs).
        """
        e = self.executions
        if not 0 <= execution < len(e):
            return None
        if not 0 <= slot < int(e.n_outputs[execution]):
            return None
        return int(e.col("first_output")[execution]) + slot

    def output_rows(self, execution: int) -> range:
        """All output rows of eager `execution` (slot k is the k-th)."""
        first = int(self.executions.col("first_output")[execution])
        return range(first, first + int(self.executions.n_outputs[execution]))

    def tensor_mode(self, kind: int, index: int) -> int:
        """The debug mode a graph trace or an eager execution was recorded in."""
        table = self.traces if kind == GRAPH else self.executions
        return int(table.lazy("mode")[index])

    def tensor_health(self, kind: int, index: int, slot: int) -> HealthRow | None:
        """The health of a graph trace, or of an eager execution's output; None if no row."""
        if kind == GRAPH:
            return self.traces.health(index) if 0 <= index < len(self.traces) else None
        row = self.output_row(index, slot)
        return self.outputs.health(row) if row is not None else None

    def op_type_of_trace(self, i: int) -> str:
        return self.strings[int(self.traces.op_type[i])] or "?"

    def op_name_of_trace(self, i: int) -> str:
        return self.strings[int(self.traces.op_name[i])]

    def trace_name(self, i: int) -> str:
        t = self.traces
        return f"{self.strings[int(t.op_name[i])]}:{int(t.slot[i])}"

    def graph_of_trace(self, i: int) -> str:
        return self.strings[int(self.traces.graph_id[i])]

    def trace_kinds(self) -> TraceKinds | None:
        """The traces' kinds (`reader.index.kinds`): each row's kind, and each kind's graph id
        and op name (string ids). Work per distinct op — thousands — rather than per row —
        millions — starts here; None for a table without kinds."""
        t = self.traces
        kinds = t.kinds
        if kinds is None:
            return None
        slot = np.asarray(kinds.col("slot")) if "slot" in kinds.fields else None
        return TraceKinds(np.asarray(t.col("kind")), np.asarray(kinds.col("graph_id")),
                          np.asarray(kinds.col("op_name")), slot)

    def execution_kinds(self) -> ExecutionKinds | None:
        """The executions' kinds, as `trace_kinds` gives the traces': each execution's kind,
        and each kind's graph id and op type (string ids); None without kinds."""
        e = self.executions
        kinds = getattr(e, "kinds", None)
        if kinds is None or not {"graph_id", "op_type"} <= set(kinds.fields):
            return None
        return ExecutionKinds(np.asarray(e.col("kind")), np.asarray(kinds.col("graph_id")),
                              np.asarray(kinds.col("op_type")))

    def graph(self, graph_id: str) -> Graph | None:
        return self.graphs.graphs.get(graph_id)

    def op_of_trace(self, i: int) -> Op | None:
        return self.graphs.op(self.graph_of_trace(i), self.op_name_of_trace(i))

    def op_type_of_execution(self, i: int) -> str:
        return self.strings[int(self.executions.op_type[i])]

    def graph_of_execution(self, i: int) -> str | None:
        """The graph id of the tf.function execution `i` called, None for a plain eager op."""
        gid = int(self.executions.graph_id[i])
        return self.strings[gid] if gid >= 0 else None
