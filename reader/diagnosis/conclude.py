"""From the origin the walk found to the cause, the explanation and the line to fix.

The walk (`reader.diagnosis.trail`) finds where the NaN/∞ was born; this decides what kind of
bug that is and where the user must change their code. `HANDLERS` is tried in order; the
first that recognises the origin answers, else the op's arithmetic rule does (`explain`):
- a gradient op (traced in a graph, or executed eagerly by `tape.gradient`) is fixed in the
  forward op it differentiates (`reader.diagnosis.gradients`);
- an eager tf.function call whose ops were not traced is explained from the inside when the
  recorded forward values allow it, else says what is unknown (`reader.diagnosis.calls`);
- NaN made from deliberate ±∞ constants is fixed where NaN appears, naming the constants;
- data (an iterator's output, a fed Placeholder) is fixed where the data enters the program;
- a variable that already held NaN/∞ names the write that put it there;
- 0/0 in an optimizer's update whose ε is 0 is fixed where the optimizer was made
  (`reader.diagnosis.optimizer_ops`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reader.diagnosis import data, optable, variables
from reader.diagnosis.calls import call_graph, call_traces, singular_candidates
from reader.diagnosis.ctc import unalignable
from reader.diagnosis.divergence import divergence
from reader.diagnosis.eager_divergence import eager_divergence
from reader.diagnosis.explain import In, explain_gradient, explain_origin
from reader.diagnosis.explain.cause import (
    deliberate_infinity,
    function_call,
    untraced_gradient,
)
from reader.diagnosis.explain.family import UNKNOWN_EXAMPLE
from reader.diagnosis.functions import function_label
from reader.diagnosis.gradients import (
    LOSS_SCALING,
    custom_gradient_function,
    eager_forward,
    finite_checked,
    forward_of,
    gradient_hint,
    where_guard,
    where_hides,
)
from reader.diagnosis.index import DiagIndex, Health, Ref
from reader.diagnosis.optimizer_ops import optimizer_setting
from reader.diagnosis.places import Place, place_of_op, place_of_ref
from reader.diagnosis.trail import Trail, in_of, op_type
from reader.diagnosis.underflow import underflow_behind
from reader.diagnosis.walk import Link, Walker
from reader.index.schema import GRAPH


@dataclass
class Case:
    """The origin as the handlers see it."""

    walker: Walker
    trail: Trail
    op_type: str
    out: Health
    ins: list[In]  # the data inputs (integer index/shape inputs left out, see INDEX_INPUTS)
    place: Place
    links: list[Link] = field(default_factory=list)  # the links of `ins`, in the same order

    @property
    def idx(self) -> DiagIndex:
        return self.walker.idx

    @property
    def origin(self) -> Ref:
        return self.trail.origin


@dataclass
class Verdict:
    """A handler's answer (see `reader.diagnosis.result.Diagnosis` for the fields)."""

    cause: str
    explanation: str
    fix: Place | None
    forward: Place | None = None
    write: Place | None = None
    source: Place | None = None
    inferred: Place | None = None
    notes: list[str] = field(default_factory=list)
    origin: Place | None = None  # the origin itself (set by `conclude`)


def _graph_gradient(c: Case) -> Verdict | None:
    if c.origin.kind != GRAPH:
        return None
    L = c.idx.L
    g = L.graph(L.graph_of_trace(c.origin.index))
    op = L.op_of_trace(c.origin.index)
    if g is None or op is None:
        return None
    fwd = forward_of(L, g, op, gradient_hint(c.place.frames))
    if fwd is None:
        return None
    row = c.idx.latest_trace(fwd.graph.graph_id, fwd.op.op_name, 0, c.origin.index)
    forward = place_of_op(c.idx, fwd.graph, fwd.op, row)
    text = explain_gradient(c.op_type, fwd.op.op_type, fwd.op.op_name, c.out, c.ins)
    guard = where_guard(L, fwd.graph, fwd.op)
    notes = []
    if guard is not None:
        text = text.rstrip(".") + "; " + guard + "."
        notes.append(guard)
    if not c.out.nan and finite_checked(L, g, op) is not None:
        text = text.rstrip(".") + "; but " + LOSS_SCALING + "."
        notes.append(LOSS_SCALING)
    return Verdict("gradient", text, forward, forward=forward, notes=notes)


def _custom_gradient(c: Case) -> Verdict | None:
    """An op of a gradient the user wrote (tf.custom_gradient): fixed where it was written."""
    fn = custom_gradient_function(c.place.frames)
    if fn is None:
        return None
    text = explain_origin(c.op_type, c.out, c.ins, c.trail.note).rstrip(".")
    text += (f"; this op is in a gradient function written with tf.custom_gradient "
             f"({fn.function}), so the backward pass is fixed there.")
    return Verdict("gradient", text, c.place, forward=_custom_forward(c))


def _custom_forward(c: Case) -> Place | None:
    """The custom gradient's forward op: the IdentityN TensorFlow wraps its outputs in."""
    if c.origin.kind != GRAPH:
        return None
    L = c.idx.L
    g = L.graph(L.graph_of_trace(c.origin.index))
    wraps = [op for op in g.ops.values() if op.op_type == "IdentityN"] if g else []
    return place_of_op(c.idx, g, wraps[0]) if g is not None and len(wraps) == 1 else None


def _eager_gradient(c: Case) -> Verdict | None:
    if c.origin.kind == GRAPH or call_graph(c.idx, c.origin) is not None:
        return None
    hint = gradient_hint(c.place.frames)
    if hint is None:
        return None
    ref = eager_forward(c.idx, c.origin.index, hint)
    if ref is None:
        return None
    forward = place_of_ref(c.idx, ref)
    text = explain_gradient(c.op_type, forward.op_type, f"eager #{ref.index}", c.out, c.ins)
    return Verdict("gradient", text, forward, forward=forward)


def _untraced_call(c: Case) -> Verdict | None:
    g = call_graph(c.idx, c.origin)
    if g is None:
        return None
    cands = singular_candidates(c.idx, g, c.origin.index)
    if cands or g.name.startswith("__backward_"):
        text, chosen = untraced_gradient(function_label(c.op_type), g.name, c.out, c.ins, cands)
        if chosen is None:
            return Verdict("gradient", text, None)
        row = c.idx.latest_trace(chosen.forward_graph.graph_id, chosen.forward.op_name, 0,
                                 at_or_before_wall=c.idx.wall(c.origin))
        forward = place_of_op(c.idx, chosen.forward_graph, chosen.forward, row)
        inferred = place_of_op(c.idx, g, chosen.gradient)
        return Verdict("gradient", text, forward, forward=forward, inferred=inferred)
    note = c.trail.note
    if not len(call_traces(c.idx, c.origin.index, g)):
        note = ("no trace of this call was recorded: a circular buffer dropped them (it "
                "keeps only the last records), or its ops are not instrumented")
    text = function_call(function_label(c.op_type), g.name, c.out, c.ins, note)
    return Verdict("function", text, c.place)


def _deliberate(c: Case) -> Verdict | None:
    if not c.trail.infinities:
        return None
    consts = [place_of_ref(c.idx, r) for r in c.trail.infinities]
    text = deliberate_infinity(c.op_type, c.out, c.ins, consts)
    return Verdict("forward", text, c.place, source=consts[0])


def _data(c: Case) -> Verdict | None:
    found = data.data_origin(c.walker, c.origin, c.op_type, c.out)
    if found is None:
        return None
    text, source = found
    return Verdict("data", text, source or c.place, source=source)


def _argument(c: Case) -> Verdict | None:
    found = data.argument_data(c.walker, c.op_type, c.out, c.links, c.ins, c.place)
    if found is None:
        return None
    text, call, placeholder = found
    return Verdict("data", text, call, source=call, inferred=placeholder)


def _divergence(c: Case) -> Verdict | None:
    finite = bool(c.ins) and all(x.health is not None and x.health.bad == 0 for x in c.ins)
    found = (divergence(c.walker, c.origin, c.op_type, c.out, finite)
             or eager_divergence(c.walker, c.origin, c.op_type, c.out, finite))
    if found is None:
        return None
    uf = found.weights.user_frame
    note = (f"the weights grow through {found.weights.op_type}"
            + (f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""))
    if found.cause != "divergence":  # FULL_TENSOR: the weights did not grow
        return Verdict(found.cause, found.text, found.fix or c.place)
    return Verdict("divergence", found.text, found.fix, notes=[note])


def _variable(c: Case) -> Verdict | None:
    if c.op_type not in variables.READ_OPS:
        return None
    found = c.walker.variable_write(c.origin)
    write = variables.write_place(c.idx, found) if found is not None else None
    written = [lk for lk in c.trail.links if lk.name.startswith("value written by")]
    note = ""
    if written and written[0].ref is None:
        note = "was not recorded" + (f" ({written[0].note})" if written[0].note else "")
    elif written:
        note = f"({written[0].name}) held no NaN/∞"
    text = variables.explain_read(c.op_type, c.out, write, note)
    return Verdict("variable", text, write or c.place, write=write)


def _where_hidden(c: Case) -> str | None:
    """A forward NaN/∞ that a tf.where drops: why that guard does not protect the gradient."""
    if c.origin.kind != GRAPH:
        return None
    L = c.idx.L
    g = L.graph(L.graph_of_trace(c.origin.index))
    op = L.op_of_trace(c.origin.index)
    return where_hides(c.idx, g, op, c.origin.index) if g is not None and op is not None else None


HANDLERS: tuple[Callable[[Case], Verdict | None], ...] = (
    _custom_gradient, _graph_gradient, _eager_gradient, _untraced_call, _deliberate, _data,
    _argument, _variable, _divergence,
)


def conclude(walker: Walker, trail: Trail) -> Verdict:
    """The verdict for the origin `trail` found (its explanation never claims more than the
    records show)."""
    idx = walker.idx
    origin = trail.origin
    kind = op_type(walker, origin)
    links, ins = data_links(kind, trail.links, [in_of(walker, lk, True) for lk in trail.links])
    case = Case(walker, trail, kind, idx.health(origin, True), ins, place_of_ref(idx, origin),
                links)
    for handler in HANDLERS:
        verdict = handler(case)
        if verdict is not None:
            break
    else:
        verdict = Verdict("forward", explain_origin(case.op_type, case.out, case.ins,
                                                    trail.note), case.place)
        which = unalignable(walker, case.op_type, trail.links)
        if which is not None:  # the integer labels were recorded: name the example
            text = verdict.explanation
            verdict.explanation = (text.replace(UNKNOWN_EXAMPLE, which) if UNKNOWN_EXAMPLE
                                   in text else text.rstrip(".") + "; " + which + ".")
        under = underflow_behind(walker, case.op_type, case.ins, case.links)
        if under is not None:  # the zeros were made upstream: fixed where they were made
            verdict.explanation = verdict.explanation.rstrip(".") + "; " + under.text + "."
            verdict.fix = verdict.source = under.producer
        setting = optimizer_setting(walker, origin, case.op_type, case.links)
        if setting is not None:  # ε = 0: fixed where the optimizer was made
            verdict.explanation = verdict.explanation.rstrip(".") + "; " + setting.text + "."
            verdict.fix = setting.made or verdict.fix
        hidden = _where_hidden(case)
        if hidden:
            verdict.explanation = verdict.explanation.rstrip(".") + "; " + hidden + "."
            verdict.notes.append(hidden)
    verdict.origin = case.place
    return verdict


# input positions that hold integers (axes, shapes, indices): never NaN, never traced in the
# health modes, so "not recorded" says nothing about them (negative: from the end)
INDEX_INPUTS: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(("Mean", "Sum", "Max", "Min", "Prod", "ArgMax", "ArgMin", "Cumsum",
                     "Cumprod", "Reshape", "Tile", "Transpose", "ExpandDims", "BroadcastTo",
                     "Pad", "PadV2", "MirrorPad", "TopKV2", "ResourceGather",
                     "ResourceGatherNd", "EuclideanNorm", "ReduceLogSumExp"), (1,)),
    "GatherV2": (1, 2), "StridedSlice": (1, 2, 3), "Slice": (1, 2), "Fill": (0,),
    "ConcatV2": (-1,), "OneHot": (0, 1), "UnsortedSegmentSum": (1, 2), "SplitV": (1, 2),
    "Split": (0,), "SparseSoftmaxCrossEntropyWithLogits": (1,), "Range": (0, 1, 2),
}


def data_links(op: str, links: list[Link], ins: list[In]) -> tuple[list[Link], list[In]]:
    """The inputs that can carry NaN: integer/boolean inputs (the op table's non-floating
    arguments, or INDEX_INPUTS) are dropped when their health is not known — they cannot
    hold NaN, and "not recorded" says nothing about them. Kept when nothing else would
    remain (a Cast from an integer: its one input is then what is unknown)."""
    if not links:
        return [], []
    positions = {p % len(links) for p in INDEX_INPUTS.get(op, ())}
    positions |= {p for p in optable.nonfloat_inputs(op) if p < len(links)}
    keep = [i for i in range(len(links)) if not (i in positions and ins[i].health is None)]
    if not keep:
        return links, ins
    return [links[i] for i in keep], [ins[i] for i in keep]
