"""A gradient origin that is the backward of a forward origin: one incident, not two.

log(0) = −∞ in the forward pass, and its gradient takes 1/x = 1/0 = ∞ in the backward pass:
the gradient's ∞ is not born of the forward's −∞ (it reads the forward op's *input*, 0, which
is finite), so the walk back from it stops at the gradient op and calls it an origin of its
own. The user sees two incidents for one bug — the forward line. PyTorch's anomaly mode tells
it as one: the forward op, "and its backward also produced NaN". So a diagnosed gradient
origin joins the incident of the forward op it differentiates when that forward op is itself
an incident's origin in the same step (`find_incidents`), its alerts counted downstream, and
the incident's text names the backward op.

Which forward op a gradient op differentiates is the diagnosis' (`Diagnosis.forward`, found by
`reader.diagnosis.gradients`: TensorFlow's `gradients/…_grad/` and `gradient_tape/` names and
the gradient function on the op's stack). Names can mislead — two forward ops in one scope,
a forward op reading the same input as another — so the link is confirmed by dataflow where
the records have it: the gradient op reads (directly, or through a few ops of the gradient
itself) the forward op's input or output, as every registered gradient does (SqrtGrad reads
Sqrt's output, Log's gradient the reciprocal of Log's input). Where the forward values cross
into a backward function of their own (its Placeholders, which no edge ties to the forward
graph), the function pairing the diagnosis made is taken as it is.

A backward function called from eager code (tape.gradient over tf.functions called eagerly)
is never traced: its call is the origin and the diagnosis can only name the forward ops whose
derivative can be infinite (`untraced_forwards`: `reader.diagnosis.calls.
singular_candidates`). When exactly one of them is an incident's origin in the same step and
the backward call reads what a call of that forward function returned, that is its forward op.
"""

from __future__ import annotations

from dataclasses import replace

from reader.diagnosis.calls import call_graph, singular_candidates
from reader.diagnosis.explain.common import then
from reader.diagnosis.gradients import is_gradient_name
from reader.diagnosis.index import DiagIndex, Ref
from reader.diagnosis.places import Place, graph_display_name
from reader.diagnosis.result import Diagnosis
from reader.errors import ReaderError
from reader.index.graphs import Graph, Op
from reader.index.schema import EAGER, GRAPH

Identity = tuple[object, ...]
_PASS = frozenset({"Identity", "IdentityN", "Placeholder", "Conj", "StopGradient"})
SAY = 3  # gradient ops named in the incident's text
DEPTH = 3  # ops of the gradient followed back from the gradient origin to the forward values


def origin_identity(d: Diagnosis) -> Identity:
    """The origin op itself: a graph op by graph and name (any trace of it), an eager op by
    its execution."""
    if d.origin_kind == GRAPH:
        return ("graph", d.origin_graph_name, d.origin_op_name)
    return ("eager", d.origin_index)


def forward_identity(p: Place) -> Identity | None:
    """The forward op a gradient diagnosis names, as `origin_identity` names origins."""
    if p.kind == "graph":
        return ("graph", p.graph_name, p.op_name) if p.op_name else None
    return ("eager", p.index) if p.index is not None else None


def is_backward_of_origin(d: Diagnosis) -> bool:
    """Could `d` join a forward origin's incident: a gradient op (not one the user wrote with
    tf.custom_gradient, whose line is its own fix) whose forward op is known."""
    return (d.cause == "gradient" and d.forward is not None and d.fix == d.forward
            and forward_identity(d.forward) is not None)


def untraced_forwards(idx: DiagIndex, d: Diagnosis) -> list[tuple[Identity, str]]:
    """For a gradient origin that is an untraced backward function's call, its forward op
    not chosen: the forward ops with a singular derivative it differentiates, each with the
    id of the graph whose calls run it."""
    if d.cause != "gradient" or d.forward is not None or d.origin_kind != EAGER:
        return []
    try:
        g = call_graph(idx, Ref(EAGER, d.origin_index, d.origin_slot))
        if g is None:
            return []
        return [(("graph", graph_display_name(c.forward_graph), c.forward.op_name),
                 c.forward_graph.graph_id)
                for c in singular_candidates(idx, g, d.origin_index)]
    except ReaderError as exc:
        idx.L.warn(str(exc))
        return []


def reads_forward_call(idx: DiagIndex, e: int, graph_id: str, window: int = 8) -> bool:
    """Does eager call `e` read an output of a call (one of the last `window` before it) of
    the function whose graph `graph_id` is (or is nested in)?"""
    L = idx.L
    try:
        chain = L.graphs.graph_chain(graph_id)
        calls = idx.executions_of_graph(chain[-1] if chain else graph_id)
        calls = calls[calls < e][-window:]
        tids = {int(t) for t in L.read_execution(e).input_tensor_ids}
        return any(tids.intersection(int(t) for t in
                                     (L.read_execution(int(x)).output_tensor_ids or ()))
                   for x in calls)
    except ReaderError as exc:
        L.warn(str(exc))
        return False


def reads_forward(idx: DiagIndex, d: Diagnosis) -> bool:
    """Does the gradient origin of `d` read its forward op's input or output (see the module
    docstring)? True where the records cannot tell (the forward op in another graph)."""
    fwd = d.forward
    if fwd is None:
        return False
    L = idx.L
    try:
        if d.origin_kind == EAGER and fwd.kind == "eager" and fwd.index is not None:
            return _eager_reads(idx, d.origin_index, fwd.index)
        if d.origin_kind == GRAPH and fwd.kind == "graph" and fwd.op_name:
            g = L.graph(L.graph_of_trace(d.origin_index))
            op = L.op_of_trace(d.origin_index)
            if g is None or op is None:
                return False
            if (g.name or None) != fwd.graph_name:
                return True  # a backward function's Placeholders: the pairing stands
            forward = g.ops.get(fwd.op_name)
            return forward is not None and _graph_reads(g, op, forward)
    except ReaderError as exc:
        L.warn(str(exc))
        return False
    return True  # an eager gradient of a traced forward op (or back): no edge to follow


def _graph_reads(g: Graph, grad: Op, forward: Op) -> bool:
    wanted = {forward.op_name}
    for name, _slot in forward.inputs:  # its inputs, and what a pass-through input passes
        wanted.add(name)
        op = g.ops.get(name)
        if op is not None and op.op_type in _PASS:
            wanted.update(n for n, _ in op.inputs)
    frontier, seen = [n for n, _ in grad.inputs], set()
    for _ in range(DEPTH):
        nxt: list[str] = []
        for name in frontier:
            if name in wanted:
                return True
            op = g.ops.get(name)
            if name in seen or op is None:
                continue
            seen.add(name)
            if op.op_type in _PASS or is_gradient_name(op.op_name):
                nxt.extend(n for n, _ in op.inputs)
        frontier = nxt
    return any(name in wanted for name in frontier)


def _eager_reads(idx: DiagIndex, e: int, f: int) -> bool:
    L = idx.L
    fr = L.read_execution(f)
    wanted = {int(t) for t in (*fr.input_tensor_ids, *(fr.output_tensor_ids or ()))}
    frontier = [e]
    for _ in range(DEPTH):
        nxt: list[int] = []
        for x in frontier:
            tids = [int(t) for t in L.read_execution(x).input_tensor_ids]
            if wanted.intersection(tids):
                return True
            for t in tids:  # back through the gradient's own ops, made after the forward's
                ref = idx.eager_producer(t, x)
                if ref is not None and ref.kind == EAGER and f < ref.index < x:
                    nxt.append(ref.index)
        frontier = nxt
    return False


def with_backward(forward: Diagnosis, backward: list[Diagnosis], step: int | None
                  ) -> Diagnosis:
    """The forward origin's diagnosis, its text saying that its gradient is also non-finite
    (the incident's diagnosis: each alert keeps its own)."""
    if not backward:
        return forward
    parts = [f"{b.origin_op_type}, "
             + (b.origin_op_name if b.origin_op_name else f"eager #{b.origin_index}")
             for b in backward[:SAY]]
    more = f"; +{len(backward) - SAY} more" if len(backward) > SAY else ""
    when = f" of step {step}" if step is not None else ""
    one = len(backward) == 1
    text = (f"In the backward pass{when}, its gradient{'' if one else 's'} "
            f"({'; '.join(parts)}{more}) {'is' if one else 'are'} also non-finite: "
            f"{_first_sentence(backward[0].explanation)} "
            "One bug: fixing this line fixes both.")
    return replace(forward, explanation=then(forward.explanation, text))


def _first_sentence(text: str) -> str:
    """The gradient's own why, up to its first full stop (the rest repeats the forward's)."""
    text = text.strip()
    cut = text.find(". ")
    return text if cut < 0 else text[:cut + 1]
