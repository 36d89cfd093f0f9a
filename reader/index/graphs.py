"""Graph structure: every DebuggedGraph (inner graphs too) with its op creations.

Ops usually number in the thousands, so plain objects are fine here — but a `.graphs` file
can hold millions (a forged or a huge one), so each op stays small: slotted, its repeated
strings (graph id, op type, device, host, stack frame ids) and its stack shared with the
ops before it (`_Shared`) — memory stays within ~3× the file's size
(tests/hostile/test_memory_from_one_field.py). Edges are kept both ways: an op's inputs as
("op", slot) pairs and each op's consumers, because the Graph Structure pane and the
diagnosis walk them in both directions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from google.protobuf.message import DecodeError

from reader.io.problems import ProblemLog
from reader.proto import tfdbg_events_pb2 as pb


@dataclass(slots=True)
class Op:
    """A GraphOpCreation: one op of one graph, with where it was created."""

    graph_id: str
    op_type: str
    op_name: str
    device: str
    input_names: tuple[str, ...]
    num_outputs: int
    output_tensor_ids: tuple[int, ...]
    stack_frame_ids: tuple[str, ...]
    host: str
    fileset: int
    # (consumer op name, consumer input index, our output slot), filled as consumers arrive
    consumers: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def inputs(self) -> list[tuple[str, int]]:
        """Inputs as (op name, output slot); control inputs ("^op") are skipped."""
        out = []
        for name in self.input_names:
            parsed = parse_tensor_name(name)
            if parsed is not None:
                out.append(parsed)
        return out


@dataclass
class Graph:
    """A DebuggedGraph: a tf.function's graph, or an inner graph (while body, cond branch…)."""

    graph_id: str
    name: str
    outer_id: str
    inner_ids: list[str] = field(default_factory=list)
    ops: dict[str, Op] = field(default_factory=dict)
    placeholder: bool = False  # referenced by ops but its DebuggedGraph record not seen yet

    def op(self, op_name: str) -> Op | None:
        return self.ops.get(op_name)


def parse_tensor_name(name: str) -> tuple[str, int] | None:
    """"op:slot" → (op, slot); "op" → (op, 0); control inputs "^op" → None."""
    if not name or name.startswith("^"):
        return None
    op, sep, slot = name.rpartition(":")
    if sep and slot.isascii() and slot.isdigit():  # '²'.isdigit() is true, int('²') fails
        return op, int(slot)
    return name, 0


T = TypeVar("T")


class _Shared:
    """One object per distinct string or stack, so millions of ops do not hold millions of
    copies of the same graph id, op type or stack (bounded: past `LIMIT` values, new ones are
    not shared — a forged file of all-distinct values gains nothing from a table)."""

    LIMIT = 1 << 16

    def __init__(self) -> None:
        self._values: dict[object, object] = {}

    def __call__(self, value: T) -> T:
        got = self._values.get(value)
        if got is not None:
            return cast(T, got)
        if len(self._values) < self.LIMIT:
            self._values[value] = value
        return value


class GraphStore:
    """All graphs of a run, keyed by graph id, with consumer links maintained incrementally."""

    def __init__(self) -> None:
        self.shared = _Shared()
        self.graphs: dict[str, Graph] = {}
        self.num_ops = 0
        self.devices: dict[int, str] = {}
        self._pending: dict[tuple[str, str], list[tuple[str, int, int]]] = {}

    def add_graph(self, graph_id: str, name: str, outer_id: str) -> None:
        g = self.graphs.get(graph_id)
        if g is None:
            g = Graph(graph_id, name, outer_id)
            self.graphs[graph_id] = g
        else:  # a placeholder made earlier, or a repeated record
            g.name, g.outer_id, g.placeholder = name or g.name, outer_id or g.outer_id, False
        if outer_id:
            outer = self._get_or_placeholder(outer_id)
            if graph_id not in outer.inner_ids:
                outer.inner_ids.append(graph_id)

    def _get_or_placeholder(self, graph_id: str) -> Graph:
        g = self.graphs.get(graph_id)
        if g is None:
            g = Graph(graph_id, "", "", placeholder=True)
            self.graphs[graph_id] = g
        return g

    def add_op(self, op: Op) -> None:
        g = self._get_or_placeholder(op.graph_id)
        if op.op_name not in g.ops:
            self.num_ops += 1
        g.ops[op.op_name] = op
        for dst_index, (src_name, src_slot) in enumerate(op.inputs):
            src = g.ops.get(src_name)
            link = (op.op_name, dst_index, src_slot)
            if src is not None:
                src.consumers.append(link)
            else:  # consumer recorded before its producer: link when the producer arrives
                self._pending.setdefault((op.graph_id, src_name), []).append(link)
        waiting = self._pending.pop((op.graph_id, op.op_name), None)
        if waiting:
            op.consumers.extend(waiting)

    def op(self, graph_id: str, op_name: str) -> Op | None:
        g = self.graphs.get(graph_id)
        return g.ops.get(op_name) if g else None

    def outermost(self) -> list[Graph]:
        return [g for g in self.graphs.values() if not g.outer_id]

    def graph_chain(self, graph_id: str) -> list[str]:
        """Graph ids from the outermost graph down to `graph_id`."""
        chain: list[str] = []
        seen: set[str] = set()
        gid = graph_id
        while gid and gid not in seen:
            seen.add(gid)
            chain.insert(0, gid)
            g = self.graphs.get(gid)
            gid = g.outer_id if g else ""
        return chain


def ingest_graphs(store: GraphStore, fsi: int, records: Iterable[tuple[int, memoryview]],
                  name: str, problems: ProblemLog) -> int:
    """Add the `.graphs` records (graphs, op creations, devices); returns how many ops came."""
    ops = 0
    for offset, payload in records:
        ev = pb.DebugEvent()
        try:
            ev.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            problems.skip_record(name, offset, "could not be parsed")
            continue
        try:
            ops += _add_graph_event(store, fsi, ev)
        except (ValueError, LookupError, ArithmeticError) as exc:  # ours: one line, go on
            problems.skip_record(name, offset, f"could not be indexed ({type(exc).__name__}: "
                                               f"{str(exc)[:200]})")
    return ops


def _add_graph_event(store: GraphStore, fsi: int, ev: pb.DebugEvent) -> int:
    """Add one `.graphs` event; returns 1 for an op creation."""
    what = ev.WhichOneof("what")
    if what == "graph_op_creation":
        oc = ev.graph_op_creation
        sh = store.shared
        frames = tuple(sh(f) for f in oc.code_location.stack_frame_ids)
        store.add_op(Op(sh(oc.graph_id), sh(oc.op_type), oc.op_name, sh(oc.device_name),
                        tuple(oc.input_names), oc.num_outputs, tuple(oc.output_tensor_ids),
                        sh(frames), sh(oc.code_location.host_name), fsi))
        return 1
    if what == "debugged_graph":
        dg = ev.debugged_graph
        store.add_graph(dg.graph_id, dg.graph_name, dg.outer_context_id)
    elif what == "debugged_device":
        store.devices[ev.debugged_device.device_id] = ev.debugged_device.device_name
    return 0
