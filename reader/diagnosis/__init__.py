"""Name the op where a NaN/∞ was born, and say why in words.

`diagnose(logdir, kind, index, slot)` starts from a tensor holding NaN/∞ (an alert, or any
bad graph trace / eager output) and walks back through the recorded inputs — inside graphs,
through inner graphs, across tf.function boundaries and through eager ops (see
`reader.diagnosis.walk`) — to the *origin*: the earliest tensor holding NaN/∞ whose own inputs
were all finite (or not recorded). Then it explains the origin from its inputs' health, op by
op (see `reader.diagnosis.explain`). It reads only a handful of full records; every lookup in
the big tables is a `searchsorted` on an index cached per logdir (`reader.diagnosis.index`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reader.diagnosis.explain import In, explain_origin, explain_step
from reader.diagnosis.index import Health, Ref, diag_index
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER, GRAPH

MAX_STEPS = 10_000


@dataclass(frozen=True)
class InputHealth:
    """One input of the origin op, as the diagnosis saw it (None = not recorded)."""

    name: str
    source: str | None  # the recorded tensor that holds its value, when it differs from name
    size: int | None
    nan: int | None
    neg_inf: int | None
    pos_inf: int | None
    zero: int | None
    negative: int | None
    positive: int | None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "nan": self.nan,
                "neg_inf": self.neg_inf, "pos_inf": self.pos_inf, "zero": self.zero,
                "negative": self.negative, "positive": self.positive, "size": self.size}


@dataclass(frozen=True)
class Diagnosis:
    """Where a NaN/∞ was born and why. `origin_*` identify the tensor (`kind` GRAPH/EAGER)."""

    origin_kind: int
    origin_index: int
    origin_slot: int
    origin_op_type: str
    origin_op_name: str | None  # None for eager ops
    origin_graph_name: str | None
    explanation: str
    inputs: list[InputHealth]
    path: list[str]  # tensor names from the starting tensor back to the origin
    steps: list[str] = field(default_factory=list)  # where ∞ turned into NaN on the way
    origin_frames: list[Frame] = field(default_factory=list)  # creation / execution stack
    origin_user_frame: Frame | None = None
    origin_code: str | None = None  # the user frame's line of code
    start_bad: bool = True  # False when the starting tensor held no NaN/∞

    def to_json(self) -> dict[str, Any]:
        uf = self.origin_user_frame
        return {
            "origin": {
                "kind": "graph" if self.origin_kind == GRAPH else "eager",
                "index": self.origin_index, "slot": self.origin_slot,
                "op_type": self.origin_op_type, "op_name": self.origin_op_name,
                "graph_name": self.origin_graph_name,
                "user_frame": ({"file": uf.file, "line": uf.line, "function": uf.function,
                                "code": (self.origin_code or "").strip()} if uf else None),
            },
            "explanation": self.explanation,
            "inputs": [i.to_json() for i in self.inputs],
            "path": list(self.path),
            "steps": list(self.steps),
        }


def _in(walker: Walker, link: Link, need_values: bool) -> In:
    health = walker.idx.health(link.ref, need_values) if link.ref is not None else None
    if health is not None and health.bad == -1 and health.size is None:
        health = None  # recorded without any health (NO_TENSOR, SHAPE)
    return In(link.name, health, link.note)


def _input_health(walker: Walker, link: Link, x: In) -> InputHealth:
    h: Health | None = x.health
    source = walker.name(link.ref) if link.ref is not None else None
    if source is not None and source.split(" ")[0] == link.name:
        source = None
    return InputHealth(link.name, source, h.size if h else None, h.nan if h else None,
                       h.neg_inf if h else None, h.pos_inf if h else None,
                       h.zero if h else None, h.negative if h else None,
                       h.positive if h else None, link.note)


def _validate(L: DebugLogdir, kind: int, index: int, slot: int) -> Ref:
    if kind == GRAPH:
        if not 0 <= index < len(L.traces):
            raise ReaderError(f"no graph trace #{index}")
        return Ref(GRAPH, index, int(L.traces.col("slot")[index]))
    if kind == EAGER:
        if not 0 <= index < len(L.executions):
            raise ReaderError(f"no eager execution #{index}")
        if L.output_row(index, slot) is None:
            raise ReaderError(f"eager execution #{index} has no output {slot}")
        return Ref(EAGER, index, slot)
    raise ReaderError(f"unknown tensor kind {kind}")


def _walk(walker: Walker, start: Ref) -> tuple[Ref, list[Link], list[str], list[str], str]:
    """Follow bad inputs back to the origin. Returns origin, its inputs, path, steps, note."""
    idx = walker.idx
    cur = start
    path = [walker.name(start)]
    steps: list[str] = []
    seen = {start}
    for _ in range(MAX_STEPS):
        hop = walker.passthrough(cur)
        if hop is not None:
            if hop.ref is not None and hop.ref not in seen and idx.is_bad(hop.ref) == 1:
                path.extend(hop.via)
                path.append(walker.name(hop.ref))
                seen.add(hop.ref)
                cur = hop.ref
                continue
            note = hop.note or ("its feeder " + walker.name(hop.ref) + " held no NaN/∞"
                                if hop.ref is not None else "")
            return cur, [], path, steps, note
        links = walker.inputs(cur)
        bad = [(lk, lk.ref) for lk in links if lk.ref is not None and lk.ref not in seen
               and idx.is_bad(lk.ref) == 1]
        if not bad:
            return cur, links, path, steps, ""
        step = _step(walker, cur, links)
        if step:
            steps.append(step)
        nxt, ref = min(bad, key=lambda p: (idx.wall(p[1]), p[1].kind, p[1].index))
        path.extend(nxt.via)
        path.append(walker.name(ref))
        seen.add(ref)
        cur = ref
    return cur, [], path, steps, "the walk was cut short"


def _op_type(walker: Walker, ref: Ref) -> str:
    L = walker.L
    if ref.kind == GRAPH:
        return L.op_type_of_trace(ref.index)
    return L.strings[int(L.executions.col("op_type")[ref.index])]


def _step(walker: Walker, ref: Ref, links: list[Link]) -> str | None:
    out = walker.idx.health(ref)
    ins = [_in(walker, lk, False) for lk in links]
    text = explain_step(_op_type(walker, ref), out, ins)
    return f"{walker.name(ref)}: {text}" if text else None


def _frames(L: DebugLogdir, ref: Ref) -> list[Frame]:
    try:
        return L.alert_stack(ref.kind, ref.index)
    except ReaderError as exc:
        L.warn(str(exc))
        return []


def diagnose(logdir: DebugLogdir, kind: int, index: int, slot: int = 0) -> Diagnosis:
    """Diagnose the tensor `(kind, index, slot)`: trace row (GRAPH) or execution output (EAGER).

    `slot` is ignored for graph traces (a trace is one output slot already). Raises
    ReaderError for an index that does not exist; never for missing data — that is said in
    the explanation instead.
    """
    idx = diag_index(logdir)
    with idx.lock:
        start = _validate(logdir, kind, index, slot)
        walker = Walker(idx)
        start_bad = idx.is_bad(start) == 1
        origin, links, path, steps, note = _walk(walker, start)
        op_type = _op_type(walker, origin)
        ins = [_in(walker, lk, True) for lk in links]
        out = idx.health(origin, True)
        if not start_bad and idx.is_bad(start) != 1:
            explanation = (f"{walker.name(start)} holds no NaN/∞"
                           + (" (this mode cannot tell)" if idx.is_bad(start) == -1 else "")
                           + "; there is nothing to diagnose.")
        else:
            explanation = explain_origin(op_type, out, ins, note)
        if origin.kind == GRAPH:
            op_name: str | None = logdir.strings[int(logdir.traces.col("op_name")[origin.index])]
            graph = logdir.graph(logdir.graph_of_trace(origin.index))
        else:
            op_name = None
            gid = idx.exec_graph(origin.index)
            graph = logdir.graph(gid) if gid is not None else None
        frames = _frames(logdir, origin)
        uf = logdir.user_frame(frames)
        return Diagnosis(
            origin_kind=origin.kind, origin_index=origin.index, origin_slot=origin.slot,
            origin_op_type=op_type, origin_op_name=op_name,
            origin_graph_name=(graph.name or None) if graph else None,
            explanation=explanation,
            inputs=[_input_health(walker, lk, x) for lk, x in zip(links, ins, strict=True)],
            path=path, steps=steps, origin_frames=frames, origin_user_frame=uf,
            origin_code=logdir.code_line(uf) if uf else None, start_bad=start_bad,
        )


__all__ = ["Diagnosis", "InputHealth", "diagnose"]


def fed_by(logdir: DebugLogdir, index: int) -> list[int | None]:
    """For graph trace `index`, the trace that fed each input of its op, in input order.

    Exact where names are not: an input that is a tf.function's argument (a Placeholder that
    TensorFlow never traces) resolves to the caller's tensor through the same walk the
    diagnosis uses. None where the feeding tensor was not recorded or is an eager tensor.
    """
    op = logdir.op_of_trace(index)
    if op is None:
        return []
    idx = diag_index(logdir)
    with idx.lock:
        start = _validate(logdir, GRAPH, index, 0)
        links = Walker(idx).inputs(start)[: len(op.inputs)]
    return [lk.ref.index if lk.ref is not None and lk.ref.kind == GRAPH else None
            for lk in links]

