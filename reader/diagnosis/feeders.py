"""What fed a Placeholder: the calling eager execution's argument, a loop's input or the
previous iteration, the tensor passed at a nested call's source line, or a captured tensor.

Functions of the `Walker` (they resolve through it), kept apart so the walk itself stays
short; see `reader.diagnosis.walk` for the cases.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from reader.diagnosis.index import Ref, first_tid
from reader.diagnosis.links import IF_OPS, WHILE_OPS, Link
from reader.diagnosis.nested import CONTROL_FLOW_PREFIXES
from reader.diagnosis.source import (
    call_frame_in,
    call_site_origin,
    caller_op_on_lines,
    flat_position,
)
from reader.errors import ReaderError
from reader.index.graphs import Graph, Op
from reader.index.schema import GRAPH

if TYPE_CHECKING:
    from reader.diagnosis.walk import Walker


def feeder(w: Walker, ph: Op, row: int | None, wall: float | None, depth: int,
            via: tuple[str, ...], shown: str) -> Link:
    """What fed Placeholder `ph` (see the module docstring for the cases)."""
    L, idx = w.L, w.idx
    g = L.graph(ph.graph_id)
    if g is None:
        return Link(shown, None, via, "its graph was not recorded")
    k = next((i for i, p in enumerate(idx.placeholders(g)) if p.op_name == ph.op_name), -1)
    if len(idx.executions_of_graph(g.graph_id)):
        link = eager_feeder(w, g, k, row, wall, via, shown, ph.op_name)
        if link.ref is not None or not g.outer_id or link.note.startswith("argument"):
            return link  # found, or the call was found and its argument is unrecorded
    outer = L.graph(g.outer_id) if g.outer_id else None
    if outer is None:
        return Link(shown, None, via, "a graph input whose feeder was not recorded")
    cf = control_flow_op(w, outer, g)
    if cf is not None:
        return loop_feeder(w, outer, g, cf, k, row, wall, depth, via, shown)
    site = call_site_feeder(w, outer, g, ph, k, row, wall, depth, via, shown)
    if isinstance(site, Link):
        return site
    link = capture_feeder(w, outer, ph, row, wall, depth, via, shown)
    if site and link.ref is None:  # the call site could not be read: say so
        link = replace(link, note=f"{link.note}; {site}" if link.note else site)
    return link

def eager_feeder(w: Walker, g: Graph, k: int, row: int | None, wall: float | None,
                  via: tuple[str, ...], shown: str, ph: str | None = None) -> Link:
    L, idx = w.L, w.idx
    if wall is None and row is not None:
        wall = float(L.traces.col("wall_time")[row])
    if wall is None:
        return Link(shown, None, via, "the function call was not recorded")
    e = idx.calling_execution(g.graph_id, wall)
    if e is None:
        return Link(shown, None, via, "the function call was not recorded")
    try:
        rec = L.read_execution(e)
    except ReaderError as exc:
        L.warn(str(exc))
        return Link(shown, None, via, "the function call could not be read")
    if not 0 <= k < len(rec.input_tensor_ids):
        return Link(shown, None, via, "a captured value of the function, not recorded")
    tid = int(rec.input_tensor_ids[k])
    ref = idx.eager_producer(tid, e)
    if ref is None:
        return Link(shown, None, via, f"argument {k} of {g.name or 'the function'} "
                    f"(eager #{e}) was made outside any recorded op (e.g. tf.constant, "
                    "numpy or a Python value)", call=e,
                    arg=(g.graph_id, ph) if ph else None, tid=tid)
    if w.idx.exec_graph(ref.index) is not None:  # another call's output: its graph tensor
        hop = w.passthrough(ref)
        if hop is not None and hop.ref is not None:
            return Link(shown, hop.ref, (*via, w.name(ref), *hop.via), tid=tid)
    return Link(shown, ref, via, tid=tid)

def control_flow_op(w: Walker, outer: Graph, inner: Graph) -> Op | None:
    if not inner.name.startswith(CONTROL_FLOW_PREFIXES):
        return None
    for op in outer.ops.values():
        if op.op_type in WHILE_OPS | IF_OPS:
            prefix = op.op_name + "/"
            if any(n.startswith(prefix) for n in inner.ops):
                return op
    return None

def loop_feeder(w: Walker, outer: Graph, inner: Graph, cf: Op, k: int, row: int | None,
                 wall: float | None, depth: int, via: tuple[str, ...], shown: str) -> Link:
    position = k + 1 if cf.op_type in IF_OPS else k  # an If's input 0 is the predicate
    links = []
    if 0 <= position < len(cf.inputs):
        n, s = cf.inputs[position]
        links.append(w._resolve(outer.graph_id, n, s, row, wall, cf, depth + 1, via,
                                   shown))
    if cf.op_type in WHILE_OPS:  # later iterations: the previous body output
        for body in w._bodies(outer, cf):
            if body.name.startswith("while_body"):
                links.append(_before(w, w._function_output(body, k, row, wall, depth + 1,
                                                           shown, via), row))
    found = [(lk, lk.ref) for lk in links if lk.ref is not None]
    if found:
        return max(found, key=lambda p: (w.idx.wall(p[1]), p[1].index))[0]
    return links[0] if links else Link(shown, None, via, f"input {k} of {cf.op_name}")

def _before(w: Walker, link: Link, row: int | None) -> Link:
    """The previous iteration's value of a loop output: a trace made before the body's
    Placeholder trace `row`. The walk pairs the k-th traces of two tensors of one graph (one
    of each per call), and a loop body runs many times a call: that paired this iteration's
    Placeholder with this iteration's output (made from it), not the one it was fed."""
    ref = link.ref
    if ref is None or row is None or ref.kind != GRAPH or ref.index < row:
        return link
    L = w.L
    earlier = w.idx.latest_trace(L.graph_of_trace(ref.index), L.op_name_of_trace(ref.index),
                                 ref.slot, row)
    return replace(link, ref=Ref(GRAPH, earlier, ref.slot)) if earlier is not None else \
        replace(link, ref=None, note="no earlier iteration was recorded")


def call_site_feeder(w: Walker, outer: Graph, callee: Graph, ph: Op, k: int, row: int | None,
                      wall: float | None, depth: int, via: tuple[str, ...],
                      shown: str) -> Link | str | None:
    """The caller tensor passed as this argument at the call line; a string when the
    source file could not be analysed (why), None when the call site does not say."""
    frames = w.L.op_stack(ph)
    call_frame = call_frame_in(frames, outer.name) or w.L.user_frame(frames)
    if call_frame is None or k < 0:
        return None
    position, element = flat_position(w.idx.placeholders(callee), ph)
    origin = call_site_origin(w.L, callee, position, ph, call_frame)
    if origin is None or isinstance(origin, str):
        return origin
    if origin.is_parameter and origin.op_name in outer.ops:
        return w._resolve(outer.graph_id, origin.op_name, 0, row, wall, ph, depth + 1,
                             via, shown)
    src = caller_op_on_lines(w.L, outer, call_frame.file, call_frame.function,
                             origin.lines, first_tid(ph))
    if src is None:
        return None
    slot = element if element < src.num_outputs else 0  # a tuple argument, flattened
    return w._resolve(outer.graph_id, src.op_name, slot, row, wall, ph, depth + 1, via,
                         shown)

def capture_feeder(w: Walker, outer: Graph, ph: Op, row: int | None, wall: float | None,
                    depth: int, via: tuple[str, ...], shown: str) -> Link:
    """A captured tensor: its Placeholder is named after the captured op (last scope part)."""
    base = ph.op_name.rsplit("/", 1)[-1]
    g: Graph | None = outer
    seen: set[str] = set()
    while g is not None and g.graph_id not in seen:
        seen.add(g.graph_id)
        if base in g.ops:
            return w._resolve(g.graph_id, base, 0, row, wall, ph, depth + 1, via, shown)
        g = w.L.graph(g.outer_id) if g.outer_id else None
    callee = w.L.graph(ph.graph_id)
    lifted = w.nested.lifted_capture(outer, callee, ph, w.idx.placeholders)
    if lifted is not None:
        return w._resolve(outer.graph_id, lifted.op_name, 0, row, wall, ph, depth + 1,
                             (*via, f"{lifted.op_name}:0 ({w.graph_name(outer.graph_id)})"),
                             shown)
    return Link(shown, None, via, "a function input whose caller was not recorded")
