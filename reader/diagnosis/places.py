"""Places in the program the diagnosis points at: an op (traced or eager), with its line.

The origin is one place; a diagnosis may name others — the forward op of a gradient, the
write that put NaN into a variable, where the data entered, the constant that holds a
deliberate ∞ — and one of them is the *fix*: the line the user must change. A place knows its
user frame (the innermost frame of the user's own code, generated AutoGraph frames mapped
back to the user's file by `DebugLogdir.user_frame`) and its device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reader.diagnosis.index import DiagIndex, Ref
from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.index.graphs import Graph, Op
from reader.index.schema import GRAPH


@dataclass(frozen=True)
class Place:
    """An op of the program: which record (if any), which op, where it was written."""

    kind: str  # "graph" (an op of a graph, traced or not) or "eager" (an eager execution)
    index: int | None  # trace row / execution index; None for an op known only from its graph
    op_type: str
    op_name: str | None
    graph_name: str | None
    user_frame: Frame | None
    code: str | None
    device: str | None = None
    frames: list[Frame] = field(default_factory=list, compare=False, repr=False)

    def frame_json(self) -> dict[str, Any] | None:
        uf = self.user_frame
        if uf is None:
            return None
        return {"file": uf.file, "line": uf.line, "function": uf.function,
                "code": (self.code or "").strip()}

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op_type, "op_type": self.op_type, "op_name": self.op_name,
                "graph": self.graph_name, "kind": self.kind, "index": self.index,
                "device": self.device, "user_frame": self.frame_json()}


def graph_display_name(g: Graph | None) -> str | None:
    """A graph's name for people: None for the unnamed outermost graph (TF1's Session graph)."""
    return (g.name or None) if g is not None else None


def _finish(idx: DiagIndex, kind: str, index: int | None, op_type: str, op_name: str | None,
            graph: Graph | None, frames: list[Frame], device: str | None) -> Place:
    L = idx.L
    uf = L.user_frame(frames)
    return Place(kind, index, op_type, op_name, graph_display_name(graph), uf,
                 L.code_line(uf) if uf else None, device or None, frames)


def place_of_op(idx: DiagIndex, graph: Graph, op: Op, row: int | None = None) -> Place:
    """A graph op (its trace `row` if one is known)."""
    L = idx.L
    device = op.device
    if row is not None:
        device = L.strings[int(L.traces.col("device")[row])] or device
    return _finish(idx, "graph", row, op.op_type, op.op_name, graph, L.op_stack(op), device)


def place_of_ref(idx: DiagIndex, ref: Ref) -> Place:
    """A recorded tensor's op: a graph trace's op, or an eager execution."""
    L = idx.L
    if ref.kind == GRAPH:
        g = L.graph(L.graph_of_trace(ref.index))
        op = L.op_of_trace(ref.index)
        if g is not None and op is not None:
            return place_of_op(idx, g, op, ref.index)
        return _finish(idx, "graph", ref.index, L.op_type_of_trace(ref.index),
                       L.op_name_of_trace(ref.index), g, [],
                       L.strings[int(L.traces.col("device")[ref.index])])
    frames: list[Frame] = []
    device = None
    try:
        rec = L.read_execution(ref.index)
        frames = L.stack(rec.stack_frame_ids)
        dev_ids = rec.output_device_ids
        if 0 <= ref.slot < len(dev_ids):
            device = L.graphs.devices.get(int(dev_ids[ref.slot]))
    except ReaderError as exc:
        L.warn(str(exc))
    gid = idx.exec_graph(ref.index)
    return _finish(idx, "eager", ref.index, L.op_type_of_execution(ref.index), None,
                   L.graph(gid) if gid is not None else None, frames, device)
