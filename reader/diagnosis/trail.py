"""The walk from a bad tensor back to where the NaN/∞ was born (uses the edges of `walk`).

Rules of the walk, each for a reason:
- follow the earliest bad input (ties by file order) until an op whose inputs were all finite
  (or not recorded): that op made the NaN/∞; of an op holding NaN, the earliest input
  holding NaN, when one does (an input holding only ∞ did not bring it);
- a collective's output (an all-reduce of the replicas' gradients) has the other members'
  inputs as inputs too, though no edge records them (`reader.diagnosis.collectives`);
- an iterator's output has the element a dataset function (dataset.map) made as an input
  (`reader.diagnosis.pipeline`);
- a tensor that only carries another's value (a traced Placeholder, an eager tf.function
  call's output) is crossed to the tensor it carries;
- an eager tf.function call is never an origin while its own traces show where inside it
  the NaN/∞ appeared: the earliest bad trace of that call is followed instead (a call is not
  a primitive op, see `reader.diagnosis.calls`);
- an eager op whose NaN/∞ came through an input no recorded op made is not the origin when
  that input is, by the tensor ids, an unrecorded Identity of a recorded bad tensor: the
  walk goes on from that tensor and says so (`reader.diagnosis.unrecorded`); nor when,
  failing that, the input is taken to be a read of a variable whose last recorded write put
  NaN/∞ there (TensorFlow records no ReadVariableOp for an eager `x * w`): the walk goes on
  from the value written (`reader.diagnosis.unrecorded_reads`); nor a graph op whose
  finite inputs a comparison of NaN made (`reader.diagnosis.comparisons`);
- an ∞ that a constant holds on purpose (a −∞ mask) is not a bug: when NaN first appears at
  an op whose only bad inputs hold such deliberate ∞ (0 × −∞, ∞ − ∞, softmax of a row of
  −∞), the walk stops there and the constants are named as where the ∞ came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reader.diagnosis import pipeline
from reader.diagnosis.calls import call_graph, first_bad_trace
from reader.diagnosis.collectives import peer_links
from reader.diagnosis.comparisons import compared_nan
from reader.diagnosis.explain import In, explain_step
from reader.diagnosis.index import Ref
from reader.diagnosis.unrecorded import unrecorded_identity
from reader.diagnosis.unrecorded_reads import unknown_reads, unrecorded_read
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.schema import GRAPH

MAX_STEPS = 10_000
# eager ops that only place or move values: ∞ coming out of them was put in on purpose
VALUE_OPS = frozenset({"Fill", "Const", "SelectV2", "Select", "BroadcastTo", "Tile", "Reshape",
                       "Identity", "Pack", "ConcatV2", "Cast", "ExpandDims", "OnesLike",
                       "ZerosLike", "MatrixBandPart", "MatrixSetDiag", "Where", "Transpose",
                       "StridedSlice", "GatherV2", "ScatterNd", "TensorScatterUpdate"})


@dataclass
class Trail:
    """What the walk found: the origin, its inputs, and how it got there."""

    origin: Ref
    links: list[Link]
    path: list[str]
    steps: list[str] = field(default_factory=list)
    note: str = ""
    infinities: list[Ref] = field(default_factory=list)  # deliberate ±∞ sources of the NaN
    entered_call: Ref | None = None  # the eager tf.function call the walk went into
    inferred: list[str] = field(default_factory=list)  # unrecorded tensors crossed (why), or
    # what the record cannot tell at the origin (a variable written from numpy)


def op_type(walker: Walker, ref: Ref) -> str:
    L = walker.L
    if ref.kind == GRAPH:
        return L.op_type_of_trace(ref.index)
    return L.op_type_of_execution(ref.index)


def in_of(walker: Walker, link: Link, need_values: bool) -> In:
    health = walker.idx.health(link.ref, need_values) if link.ref is not None else None
    if health is not None and health.bad == -1 and health.size is None:
        health = None  # recorded without any health (NO_TENSOR, SHAPE)
    return In(link.name, health, link.note)


def _step(walker: Walker, ref: Ref, links: list[Link]) -> str | None:
    out = walker.idx.health(ref)
    ins = [in_of(walker, lk, False) for lk in links]
    text = explain_step(op_type(walker, ref), out, ins)
    return f"{walker.name(ref)}: {text}" if text else None


def find_origin(walker: Walker, start: Ref, deliberate_check: bool = True,
                depth: int = 0) -> Trail:
    """Follow bad inputs back from `start` to the origin (see the module docstring). `depth`:
    walks within a walk (the candidates of an unrecorded Identity) compare none of their
    own."""
    idx = walker.idx
    cur = start
    trail = Trail(start, [], [walker.name(start)])
    seen = {start}

    def go(ref: Ref, via: tuple[str, ...] = ()) -> None:
        nonlocal cur
        trail.path.extend(via)
        trail.path.append(walker.name(ref))
        seen.add(ref)
        cur = ref

    for _ in range(MAX_STEPS):
        hop = walker.passthrough(cur)
        if hop is not None:
            if hop.ref is not None and hop.ref not in seen and idx.is_bad(hop.ref) == 1:
                go(hop.ref, hop.via)
                continue
            inside = _inside_call(walker, cur, seen)
            if inside is not None:
                trail.entered_call = trail.entered_call or cur
                go(inside)
                continue
            trail.origin = cur
            trail.note = hop.note or ("its feeder " + walker.name(hop.ref) + " held no NaN/∞"
                                      if hop.ref is not None else "")
            return trail
        links = walker.inputs(cur) + peer_links(walker, cur) + pipeline.links(walker, cur)
        bad = [(lk, lk.ref) for lk in links if lk.ref is not None and lk.ref not in seen
               and idx.is_bad(lk.ref) == 1]
        if not bad:
            agree = (lambda refs: _one_origin(walker, refs, depth)) if depth < 1 else None
            same = unrecorded_identity(walker, cur, links, agree) or unrecorded_read(
                walker, cur, links)
            if same is None or same.ref in seen:
                same = compared_nan(walker, cur)
            if same is not None and same.ref not in seen:
                trail.inferred.append(same.text)
                go(same.ref, same.via)
                continue
            unknown = unknown_reads(walker, cur, links)
            if unknown is not None:  # what a variable held is not known: said so
                trail.inferred.append(unknown)
            trail.origin, trail.links = cur, links
            return trail
        if deliberate_check:
            consts = _deliberate_infinities(walker, cur, [r for _, r in bad])
            if consts:
                trail.origin, trail.links, trail.infinities = cur, links, consts
                return trail
        step = _step(walker, cur, links)
        if step:
            trail.steps.append(step)
        if idx.health(cur).nan:  # NaN out, NaN in: it came through there, not through
            # an input holding only ∞ (a −∞ mask's max added back to a NaN sum)
            bad = [p for p in bad if idx.health(p[1]).nan] or bad
        nxt, ref = min(bad, key=lambda p: (idx.wall(p[1]), p[1].kind, p[1].index))
        go(ref, nxt.via)
    trail.origin, trail.note = cur, "the walk was cut short"
    return trail


def _one_origin(walker: Walker, refs: list[Ref], depth: int) -> str | None:
    """The origin every one of `refs` walks back to, as "Op at file:line" (the same op type,
    graph and line: one incident); None when they differ or one has no line."""
    found = set()
    for ref in refs:
        origin = find_origin(walker, ref, depth=depth + 1).origin
        try:
            uf = walker.L.user_frame(walker.L.alert_stack(origin.kind, origin.index))
        except ReaderError:
            return None
        if uf is None:
            return None
        graph = (f" in {walker.graph_name(walker.L.graph_of_trace(origin.index))}"
                 if origin.kind == GRAPH else "")
        found.add(f"{op_type(walker, origin)}{graph} at {uf.file.rsplit('/', 1)[-1]}:{uf.line}")
    return found.pop() if len(found) == 1 else None


def _inside_call(walker: Walker, ref: Ref, seen: set[Ref]) -> Ref | None:
    """For an eager tf.function call, the earliest bad trace of that very call."""
    g = call_graph(walker.idx, ref)
    if g is None:
        return None
    first = first_bad_trace(walker.idx, ref.index, g)
    return first if first is not None and first not in seen else None


def _deliberate_infinities(walker: Walker, cur: Ref, bad: list[Ref]) -> list[Ref]:
    """The constants behind `cur`'s ∞ inputs, when NaN is born at `cur` from them alone."""
    idx = walker.idx
    out = idx.health(cur)
    if not out.nan:
        return []
    found: list[Ref] = []
    for ref in bad:
        h = idx.health(ref)
        if h.nan is None or h.nan:  # NaN came in (or unknown): not born here
            return []
        sub = find_origin(walker, ref, deliberate_check=False)
        if not _is_deliberate(walker, sub):
            return []
        found.append(sub.origin)
    return found


def _is_deliberate(walker: Walker, sub: Trail) -> bool:
    """An ∞ that is written in the program: a graph Const, or an eager op that only placed a
    value that came from outside any recorded op (a Python or numpy −inf)."""
    ref = sub.origin
    h = walker.idx.health(ref)
    if h.nan is None or h.nan:
        return False
    kind = op_type(walker, ref)
    if ref.kind == GRAPH:
        return kind == "Const"
    return kind in VALUE_OPS and (not sub.links or any(lk.ref is None for lk in sub.links))


def is_deliberate_origin(walker: Walker, trail: Trail) -> bool:
    """True when the walk ended at an ∞ that is written in the program (a −∞ mask)."""
    return _is_deliberate(walker, trail)


def nan_from_infinity(walker: Walker, start: Ref, limit: int = 64) -> Trail | None:
    """For an alert on a deliberate ±∞ constant: where NaN first appears from such ∞.

    The constant's alert stays in the list, but what to fix is downstream: the first later
    alert holding NaN whose walk stops at NaN made from deliberate ∞ (0 × −∞, ∞ − ∞…).
    """
    idx = walker.idx
    alerts = idx.L.alerts()
    wall = idx.wall(start)
    first = int(np.searchsorted(alerts.wall_time, wall, "left"))
    tried = 0
    for k in range(first, len(alerts)):
        ref = Ref(int(alerts.kind[k]), int(alerts.index[k]), int(alerts.slot[k]))
        if ref == start:
            continue
        nan = idx.health(ref).nan
        if nan == 0:
            continue
        tried += 1
        if tried > limit:
            break
        t = find_origin(walker, ref)
        if t.infinities:
            return t
    return None
