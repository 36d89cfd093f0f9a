"""What a read of a variable was given: the last write before it, and the value written.

Why apart from the walk: a read is the one op whose input is not an edge of the graph but a
write that may be anywhere — an earlier step's update in the same graph, the other trace of
a retraced tf.function (batches of two shapes run two graphs, each with its own update), an
eager `assign`, a function that restores a snapshot. The walk (`reader.diagnosis.walk`)
asks this module for that edge and follows it like any other:
- the last write is found over every graph and eager op (`variables.last_write`, through
  the read's handle, resolved when it is a function argument);
- when it is an update op of the read's own graph, the latest record of the value an
  Assign*VariableOp of that graph wrote (its records follow the graph's calls); otherwise
  the value that write took, resolved where it was made;
- a value no recorded op made (numpy, a function's numpy argument) is unknown: the write is
  then where the NaN/∞ entered the variable, not the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.diagnosis.copies import HOP, written_copy
from reader.diagnosis.index import Ref
from reader.diagnosis.links import ASSIGN_OPS, Link
from reader.diagnosis.variables import Write, last_write
from reader.errors import ReaderError
from reader.index.graphs import Op
from reader.index.schema import EAGER, GRAPH

if TYPE_CHECKING:
    from reader.diagnosis.walk import Walker


def graph_read_written(w: Walker, read: Op, ref: Ref, wall: float) -> list[Link]:
    """The value a graph read `ref` (op `read`, recorded at `wall`) was last given."""
    last = w.variable_write(ref)
    own = last is None or (last.op_type in ASSIGN_OPS and last.graph is not None
                           and last.graph.graph_id == read.graph_id)
    return (own and _assignments(w, read, ref.index, wall)) or write_links(w, ref)


def _assignments(w: Walker, read: Op, row: int, wall: float) -> list[Link]:
    """The last value an Assign*VariableOp of the read's graph wrote to the variable (an
    update op last: the graph's plain Assign is its initializer)."""
    g = w.L.graph(read.graph_id)
    if g is None:
        return []
    best: Link | None = None
    for op in g.ops.values():
        if op.op_type in ASSIGN_OPS and len(op.inputs) > 1 and op.inputs[0] == read.inputs[0]:
            n, s = op.inputs[1]
            link = w._resolve(g.graph_id, n, s, row, wall, op, 0, (),
                              f"value written by {op.op_name}")
            if link.ref is not None and (best is None or best.ref is None
                                         or link.ref.index > best.ref.index):
                best = link
    return [best] if best is not None else []


def last_write_of(w: Walker, ref: Ref) -> Write | None:
    """The last write before read `ref` to the variable it reads."""
    tid: int | None = None
    if ref.kind == EAGER:
        try:
            tids = w.L.read_execution(ref.index).input_tensor_ids
            tid = int(tids[0]) if tids else None
        except ReaderError as exc:
            w.L.warn(str(exc))
    else:
        op = w.op_of(ref)
        if op is not None and op.inputs:  # the handle: a function argument, resolved
            n, s = op.inputs[0]
            wall = float(w.L.traces.col("wall_time")[ref.index])
            link = w._resolve(op.graph_id, n, s, ref.index, wall, op, 0, (), n)
            tid = link.tid if link.tid is not None else (
                _output_tid(w, link.ref) if link.ref is not None else None)
    return last_write(w.idx, ref, tid, w.nested)


def _output_tid(w: Walker, ref: Ref) -> int | None:
    if ref.kind != EAGER:
        return None
    try:
        tids = w.L.read_execution(ref.index).output_tensor_ids
    except ReaderError:
        return None
    return int(tids[ref.slot]) if ref.slot < len(tids) else None


def write_links(w: Walker, ref: Ref) -> list[Link]:
    """The value the last write before read `ref` put into the variable (any graph or
    eager; see `reader.diagnosis.variables`)."""
    last = w.variable_write(ref)
    if last is None:
        return []
    if last.kind == EAGER and last.index is not None:
        name = f"value written by {last.op_type} (eager #{last.index})"
        if last.value_tid is None:
            return []
        p = w.idx.eager_producer(last.value_tid, last.index)
        if p is None:
            c = written_copy(w.idx, last.value_tid, last.index, w.idx.health(ref).size)
            if c is not None:
                return [Link(name, c, (f"tensor id {last.value_tid} ({HOP} {w.name(c)})",))]
            return [Link(name, None, (), "made outside any recorded op (e.g. numpy or a "
                         "Python value)")]
        return [Link(name, p)]
    if last.graph is None or last.op is None:
        return []
    g, op = last.graph, last.op
    row = ref.index if last.index is None and ref.kind == GRAPH else None
    wall = w.idx.wall(Ref(EAGER, last.index)) if last.index is not None else w.idx.wall(ref)
    pairs = [last.value] if last.value is not None else op.inputs[1:]
    links = [w._resolve(g.graph_id, n, s, row, wall, op, 0, (),
                        f"value written by {op.op_name} ({w.graph_name(g.graph_id)})")
             for n, s in pairs]
    # a value no recorded op made is unknown, as an eager write's (the module docstring)
    return [Link(lk.name, None, lk.via, lk.note) if lk.ref is None else lk for lk in links]
